package httpapi

import (
	"crypto/tls"
	"io"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"
)

func TestSafeNext(t *testing.T) {
	tests := []struct {
		next, want string
	}{
		{"/chat", "/chat"},
		{"/contracts?contract_type=Supply&q=a%20b", "/contracts?contract_type=Supply&q=a%20b"},
		{"/contracts/c%2F1", "/contracts/c%2F1"},
		{"/contracts/x#clauses", "/contracts/x#clauses"},
		{"/https:evil.example", "/https:evil.example"},
		{"/@evil.example", "/@evil.example"},
		{"/", "/"},
		{"", "/"},
		{"chat", "/"},
		// Another host, as written or as a browser reads it.
		{"//evil.example", "/"},
		{"//evil.example/", "/"},
		{"///evil.example", "/"},
		{"/\\evil.example", "/"},
		{"\\\\evil.example", "/"},
		{"\\/evil.example", "/"},
		{"/\t/evil.example", "/"},
		{"/\n/evil.example", "/"},
		{"/\r/evil.example", "/"},
		{"\t//evil.example", "/"},
		{" //evil.example", "/"},
		{"/ /evil.example", "/"},
		{"/\x00/evil.example", "/"},
		{"/\x7f/evil.example", "/"},
		{"/\x0b/evil.example", "/"},
		{"/chat\\..\\..\\/evil.example", "/"},
		// A scheme, with and without slashes.
		{"https://evil.example", "/"},
		{"https:evil.example", "/"},
		{"https:/evil.example", "/"},
		{"HTTPS://evil.example", "/"},
		{"javascript:alert(1)", "/"},
		{"data:text/html,<script>alert(1)</script>", "/"},
		// Percent-encoding: what the form decodes to, and what stays
		// encoded until the server decodes the path.
		{"%2F%2Fevil.example", "/"},
		{"/%2F/evil.example", "/"},
		{"/%2F%2Fevil.example", "/"},
		{"/%5Cevil.example", "/"},
		{"/%09/evil.example", "/"},
		{"/%0a/evil.example", "/"},
		{"/%00", "/"},
		{"/%zz", "/"},
		// Too long to be a page of this app.
		{"/" + strings.Repeat("a", maxNextLen), "/"},
	}
	for _, tt := range tests {
		if got := safeNext(tt.next); got != tt.want {
			t.Errorf("safeNext(%q) = %q, want %q", tt.next, got, tt.want)
		}
	}
}

// FuzzSafeNext checks that nothing safeNext lets through leaves this
// host once a browser resolves it against the page.
func FuzzSafeNext(f *testing.F) {
	for _, s := range []string{"/chat", "//evil", "/\t/evil", "/\\evil", "https:evil", "/%2F%2Fevil", "/a?b=//c#d"} {
		f.Add(s)
	}
	base, _ := url.Parse("https://app.example/login")
	f.Fuzz(func(t *testing.T, next string) {
		got := safeNext(next)
		// Browsers drop tab, CR and LF and read \ as /; safeNext refuses
		// them, so resolving the cleaned text stands for the browser.
		u, err := url.Parse(got)
		if err != nil {
			t.Fatalf("safeNext(%q) = %q, which does not parse: %v", next, got, err)
		}
		if r := base.ResolveReference(u); r.Host != "app.example" || r.Scheme != "https" {
			t.Fatalf("safeNext(%q) = %q, which leads to %s", next, got, r)
		}
		if strings.ContainsAny(got, "\t\r\n\\") {
			t.Fatalf("safeNext(%q) = %q, which a browser rewrites", next, got)
		}
	})
}

func TestBearerScheme(t *testing.T) {
	const token = "s3cret-token"
	s, _ := newTestServer(t, func(c *Config) { c.Token = token })
	for _, tt := range []struct {
		header string
		want   int
	}{
		{"Bearer " + token, 200},
		{"bearer " + token, 200},
		{"BEARER " + token, 200},
		{"bEaReR   " + token + " ", 200},
		{"Bearer", 401},
		{"Bearer " + token + "x", 401},
		{"Bearer" + token, 401},
		{"Basic " + token, 401},
		{"Token " + token, 401},
	} {
		req := httptest.NewRequest("GET", "/api/tools", nil)
		req.Header.Set("Authorization", tt.header)
		rec := httptest.NewRecorder()
		s.Handler().ServeHTTP(rec, req)
		if rec.Code != tt.want {
			t.Errorf("Authorization: %q: %d, want %d", tt.header, rec.Code, tt.want)
		}
		if got := rec.Header().Get("Cache-Control"); got != "no-store" {
			t.Errorf("Authorization: %q: Cache-Control %q, want no-store", tt.header, got)
		}
	}
}

func TestSessionStore(t *testing.T) {
	now := time.Date(2026, 1, 1, 9, 0, 0, 0, time.UTC)
	clock := func() time.Time { return now }

	t.Run("ids", func(t *testing.T) {
		st := newSessionStore(clock, 10)
		a, b := st.create(), st.create()
		if a == b || len(a) != 43 || len(b) != 43 {
			t.Fatalf("ids %q and %q, want two different 43-character (256-bit) ids", a, b)
		}
		if !st.valid(a) || !st.valid(b) {
			t.Fatal("a new session is not valid")
		}
		for _, bad := range []string{"", "x", a[:42], a + "x", strings.ToUpper(a)} {
			if bad != a && st.valid(bad) {
				t.Errorf("valid(%q) = true, want false", bad)
			}
		}
		st.delete(a)
		if st.valid(a) || !st.valid(b) {
			t.Error("delete ended the wrong session")
		}
	})
	t.Run("idle timeout slides", func(t *testing.T) {
		now = time.Date(2026, 1, 1, 9, 0, 0, 0, time.UTC)
		st := newSessionStore(clock, 10)
		id := st.create()
		for range 3 {
			now = now.Add(sessionIdleTimeout - time.Minute)
			if !st.valid(id) {
				t.Fatalf("session used every %v ended after %v", sessionIdleTimeout-time.Minute, now.Sub(time.Date(2026, 1, 1, 9, 0, 0, 0, time.UTC)))
			}
		}
		now = now.Add(sessionIdleTimeout)
		if st.valid(id) {
			t.Errorf("session idle for %v still valid", sessionIdleTimeout)
		}
		if st.count() != 0 {
			t.Errorf("an expired session is still kept after a lookup (%d)", st.count())
		}
	})
	t.Run("absolute lifetime", func(t *testing.T) {
		start := time.Date(2026, 1, 1, 9, 0, 0, 0, time.UTC)
		now = start
		st := newSessionStore(clock, 10)
		id := st.create()
		for now.Sub(start) < sessionMaxLifetime-time.Hour {
			now = now.Add(time.Hour)
			if !st.valid(id) {
				t.Fatalf("session used hourly ended after %v", now.Sub(start))
			}
		}
		now = start.Add(sessionMaxLifetime)
		if st.valid(id) {
			t.Errorf("session used hourly still valid after %v", sessionMaxLifetime)
		}
	})
	t.Run("bounded", func(t *testing.T) {
		now = time.Date(2026, 1, 1, 9, 0, 0, 0, time.UTC)
		st := newSessionStore(clock, 3)
		first := st.create()
		var ids []string
		for range 100 {
			now = now.Add(time.Second)
			ids = append(ids, st.create())
		}
		if n := st.count(); n != 3 {
			t.Errorf("%d sessions kept, want the cap of 3", n)
		}
		if st.valid(first) || st.valid(ids[96]) {
			t.Error("an old session survived a flood of sign-ins")
		}
		for _, id := range ids[97:] {
			if !st.valid(id) {
				t.Error("one of the newest sessions was evicted")
			}
		}
	})
	t.Run("sweep", func(t *testing.T) {
		now = time.Date(2026, 1, 1, 9, 0, 0, 0, time.UTC)
		st := newSessionStore(clock, 100)
		for range 10 {
			st.create()
		}
		now = now.Add(sessionIdleTimeout)
		st.create()
		if n := st.count(); n != 1 {
			t.Errorf("%d sessions kept after the others expired, want 1", n)
		}
	})
}

// authClient drives a server with a token through its handler, keeping the
// session cookie as a browser would.
type authClient struct {
	t      *testing.T
	h      http.Handler
	cookie *http.Cookie
	remote string
	tls    bool
}

func (c *authClient) send(method, target, body string, hdr ...string) *http.Response {
	c.t.Helper()
	var r io.Reader
	if body != "" {
		r = strings.NewReader(body)
	}
	req := httptest.NewRequest(method, target, r)
	if method == "POST" {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	if c.remote != "" {
		req.RemoteAddr = c.remote
	}
	if c.tls {
		req.TLS = &tls.ConnectionState{}
	}
	if c.cookie != nil {
		req.AddCookie(c.cookie)
	}
	rec := httptest.NewRecorder()
	c.h.ServeHTTP(rec, req)
	res := rec.Result()
	for _, ck := range res.Cookies() {
		if ck.Name == sessionCookie {
			if ck.MaxAge < 0 {
				c.cookie = nil
			} else {
				c.cookie = ck
			}
		}
	}
	return res
}

func sessionCookieOf(res *http.Response) *http.Cookie {
	for _, c := range res.Cookies() {
		if c.Name == sessionCookie {
			return c
		}
	}
	return nil
}

const authTestToken = "s3cret-token"

func TestSessionLogin(t *testing.T) {
	now := testNow
	s, _ := newTestServer(t, func(c *Config) {
		c.Token = authTestToken
		c.Now = func() time.Time { return now }
	})
	c := &authClient{t: t, h: s.Handler()}

	res := c.send("POST", "/login", "token="+authTestToken+"&next="+url.QueryEscape("/\t/evil.example"))
	if res.StatusCode != 303 || res.Header.Get("Location") != "/" {
		t.Errorf("sign-in with next=/<TAB>/evil.example: %d to %q, want 303 to /", res.StatusCode, res.Header.Get("Location"))
	}
	ck := sessionCookieOf(res)
	if ck == nil {
		t.Fatal("sign-in set no session cookie")
	}
	if !ck.HttpOnly || ck.SameSite != http.SameSiteLaxMode || ck.Path != "/" || ck.Secure || ck.MaxAge != int(sessionMaxLifetime/time.Second) {
		t.Errorf("session cookie %s, want HttpOnly, SameSite=Lax, Path=/, Max-Age %d, not Secure over plain HTTP", ck, int(sessionMaxLifetime/time.Second))
	}
	if len(ck.Value) != sessionIDLen || strings.Contains(ck.Value, authTestToken) {
		t.Errorf("session cookie value %q, want a %d-character random id", ck.Value, sessionIDLen)
	}
	if got := res.Header.Get("Cache-Control"); got != "no-store" {
		t.Errorf("sign-in response Cache-Control %q, want no-store", got)
	}
	for _, path := range []string{"/chat", "/contracts", "/api/tools"} {
		res := c.send("GET", path, "")
		if res.StatusCode != 200 || res.Header.Get("Cache-Control") != "no-store" {
			t.Errorf("GET %s signed in: %d, Cache-Control %q; want 200, no-store", path, res.StatusCode, res.Header.Get("Cache-Control"))
		}
	}
	if res := c.send("GET", "/static/app.css", ""); res.Header.Get("Cache-Control") == "no-store" {
		t.Error("static files are marked no-store; they hold nothing private")
	}

	// A second sign-in gets a new id; the old one ends.
	old := c.cookie
	c.send("POST", "/login", "token="+authTestToken+"&next=/chat")
	if c.cookie == nil || c.cookie.Value == old.Value {
		t.Fatal("a second sign-in kept the session id")
	}
	if s.sessions.valid(old.Value) {
		t.Error("the session before a new sign-in is still valid")
	}

	// Sliding idle timeout, then expiry.
	now = now.Add(sessionIdleTimeout - time.Minute)
	if res := c.send("GET", "/chat", ""); res.StatusCode != 200 {
		t.Errorf("page %v after the last request: %d, want 200", sessionIdleTimeout-time.Minute, res.StatusCode)
	}
	now = now.Add(sessionIdleTimeout)
	if res := c.send("GET", "/chat", ""); res.StatusCode != 303 || !strings.HasPrefix(res.Header.Get("Location"), "/login?") {
		t.Errorf("page after %v idle: %d to %q, want 303 to the login page", sessionIdleTimeout, res.StatusCode, res.Header.Get("Location"))
	}
	if res := c.send("GET", "/api/tools", ""); res.StatusCode != 401 {
		t.Errorf("API call with an expired session: %d, want 401", res.StatusCode)
	}
}

func TestLogout(t *testing.T) {
	s, _ := newTestServer(t, func(c *Config) { c.Token = authTestToken })
	c := &authClient{t: t, h: s.Handler()}
	c.send("POST", "/login", "token="+authTestToken)
	ck := c.cookie
	if ck == nil {
		t.Fatal("sign-in set no session cookie")
	}

	// Another site's page cannot sign the user out.
	res := c.send("POST", "/logout", "", "Sec-Fetch-Site", "cross-site", "Origin", "https://evil.example")
	if res.StatusCode != 403 || c.cookie == nil || !s.sessions.valid(ck.Value) {
		t.Errorf("cross-site POST /logout: %d, session valid %v; want 403 and the session kept", res.StatusCode, s.sessions.valid(ck.Value))
	}

	res = c.send("POST", "/logout", "", "Sec-Fetch-Site", "same-origin", "Origin", "http://example.com")
	if res.StatusCode != 303 || res.Header.Get("Location") != "/login" {
		t.Errorf("POST /logout: %d to %q, want 303 to /login", res.StatusCode, res.Header.Get("Location"))
	}
	if cleared := sessionCookieOf(res); cleared == nil || cleared.MaxAge >= 0 || cleared.Value != "" || !cleared.HttpOnly || cleared.Path != "/" {
		t.Errorf("POST /logout cookie %v, want the session cookie deleted (Max-Age<0, same Path)", cleared)
	}
	// The old cookie, replayed, no longer works.
	c.cookie = ck
	if res := c.send("GET", "/chat", ""); res.StatusCode != 303 {
		t.Errorf("page with the cookie of a signed-out session: %d, want 303 to the login page", res.StatusCode)
	}
	// Signing out again, or without a session, is harmless.
	c.cookie = nil
	if res := c.send("POST", "/logout", ""); res.StatusCode != 303 {
		t.Errorf("POST /logout without a session: %d, want 303", res.StatusCode)
	}
	if res := c.send("GET", "/logout", ""); res.StatusCode == 200 {
		t.Error("GET /logout answered 200; signing out must be a POST")
	}
}

func TestSecureCookie(t *testing.T) {
	for _, tt := range []struct {
		name          string
		tls, flag     bool
		wantSecure    bool
		forwardedHTTP bool
	}{
		{name: "plain HTTP"},
		{name: "plain HTTP claiming https in X-Forwarded-Proto", forwardedHTTP: true},
		{name: "TLS", tls: true, wantSecure: true},
		{name: "--secure-cookies", flag: true, wantSecure: true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s, _ := newTestServer(t, func(c *Config) { c.Token = authTestToken; c.SecureCookies = tt.flag })
			c := &authClient{t: t, h: s.Handler(), tls: tt.tls}
			var hdr []string
			if tt.forwardedHTTP {
				hdr = []string{"X-Forwarded-Proto", "https"}
			}
			ck := sessionCookieOf(c.send("POST", "/login", "token="+authTestToken, hdr...))
			if ck == nil || ck.Secure != tt.wantSecure {
				t.Fatalf("session cookie %v, want Secure=%v", ck, tt.wantSecure)
			}
			if cleared := sessionCookieOf(c.send("POST", "/logout", "")); cleared == nil || cleared.Secure != tt.wantSecure {
				t.Errorf("logout cookie %v, want Secure=%v", cleared, tt.wantSecure)
			}
		})
	}
}

func TestLoginRateLimit(t *testing.T) {
	now := testNow
	s, _ := newTestServer(t, func(c *Config) {
		c.Token = authTestToken
		c.Now = func() time.Time { return now }
	})
	attacker := &authClient{t: t, h: s.Handler(), remote: "203.0.113.7:5000"}
	for i := range loginFailuresPerClient {
		if res := attacker.send("POST", "/login", "token=guess"+strconv.Itoa(i)); res.StatusCode != 401 {
			t.Fatalf("wrong token %d: %d, want 401", i+1, res.StatusCode)
		}
	}
	now = now.Add(10 * time.Second)
	res := attacker.send("POST", "/login", "token="+authTestToken)
	if res.StatusCode != 429 || res.Header.Get("Retry-After") != "50" {
		t.Errorf("after %d wrong tokens, even the right one: %d Retry-After %q; want 429, 50 s", loginFailuresPerClient, res.StatusCode, res.Header.Get("Retry-After"))
	}
	if attacker.cookie != nil {
		t.Error("a rate-limited sign-in set a session cookie")
	}
	// The same client from another port, or another address of its /64,
	// is the same client.
	for _, remote := range []string{"203.0.113.7:6000", "[2001:db8:1:2::1]:1"} {
		other := &authClient{t: t, h: s.Handler(), remote: remote}
		if remote[0] == '[' {
			for range loginFailuresPerClient {
				other.send("POST", "/login", "token=guess")
			}
			other.remote = "[2001:db8:1:2:ffff::9]:2"
		}
		if res := other.send("POST", "/login", "token=guess"); res.StatusCode != 429 {
			t.Errorf("wrong token from %s: %d, want 429", other.remote, res.StatusCode)
		}
	}
	// Someone else signs in meanwhile.
	user := &authClient{t: t, h: s.Handler(), remote: "198.51.100.2:4000"}
	if res := user.send("POST", "/login", "token="+authTestToken); res.StatusCode != 303 {
		t.Errorf("sign-in from another client: %d, want 303", res.StatusCode)
	}
	// The window ends.
	now = now.Add(loginFailureWindow)
	if res := attacker.send("POST", "/login", "token="+authTestToken); res.StatusCode != 303 {
		t.Errorf("sign-in after the window: %d, want 303", res.StatusCode)
	}

	// Many clients together hit the global cap.
	now = now.Add(loginFailureWindow)
	for i := range loginFailuresGlobal {
		c := &authClient{t: t, h: s.Handler(), remote: netip.AddrFrom4([4]byte{10, 0, byte(i >> 8), byte(i)}).String() + ":1"}
		if res := c.send("POST", "/login", "token=guess"); res.StatusCode != 401 {
			t.Fatalf("wrong token from client %d: %d, want 401", i, res.StatusCode)
		}
	}
	fresh := &authClient{t: t, h: s.Handler(), remote: "192.0.2.200:1"}
	if res := fresh.send("POST", "/login", "token=guess"); res.StatusCode != 429 || res.Header.Get("Retry-After") == "" {
		t.Errorf("wrong token after %d from many clients: %d, want 429 with Retry-After", loginFailuresGlobal, res.StatusCode)
	}
	if n := len(s.logins.clients); n > loginFailuresGlobal+1 {
		t.Errorf("the limiter remembers %d clients, want at most %d", n, loginFailuresGlobal+1)
	}
	// Bearer-token calls are not sign-ins and are not limited.
	if res := fresh.send("GET", "/api/tools", "", "Authorization", "Bearer "+authTestToken); res.StatusCode != 200 {
		t.Errorf("API call with the token during a sign-in lockout: %d, want 200", res.StatusCode)
	}
}

func TestLoginBodyLimit(t *testing.T) {
	s, _ := newTestServer(t, func(c *Config) { c.Token = authTestToken })
	huge := int64(100 << 20)
	for _, tt := range []struct {
		name          string
		contentLength int64
	}{
		{"100 MB with Content-Length", huge},
		{"100 MB chunked", -1},
	} {
		t.Run(tt.name, func(t *testing.T) {
			body := io.LimitReader(infiniteForm{}, huge)
			req := httptest.NewRequest("POST", "/login", body)
			req.ContentLength = tt.contentLength
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			rec := httptest.NewRecorder()
			s.Handler().ServeHTTP(rec, req)
			if rec.Code != http.StatusRequestEntityTooLarge {
				t.Errorf("POST /login of 100 MB: %d, want 413", rec.Code)
			}
		})
	}
	// Just under the limit is read.
	c := &authClient{t: t, h: s.Handler()}
	body := "token=" + authTestToken + "&pad=" + strings.Repeat("a", maxLoginBytes-len("token=&pad=")-len(authTestToken))
	if res := c.send("POST", "/login", body); res.StatusCode != 303 {
		t.Errorf("sign-in form of %d bytes: %d, want 303", len(body), res.StatusCode)
	}
}

// infiniteForm is an endless form field value.
type infiniteForm struct{}

func (infiniteForm) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = 'a'
	}
	return len(p), nil
}

func TestLoginClient(t *testing.T) {
	for _, tt := range []struct{ remote, want string }{
		{"203.0.113.7:5000", "203.0.113.7/32"},
		{"[::ffff:203.0.113.7]:5000", "203.0.113.7/32"},
		{"[2001:db8:1:2:3:4:5:6]:1", "2001:db8:1:2::/64"},
		{"[fe80::1%eth0]:1", "fe80::/64"},
		{"garbage", "invalid Prefix"},
	} {
		r := httptest.NewRequest("GET", "/", nil)
		r.RemoteAddr = tt.remote
		if got := loginClient(r).String(); got != tt.want {
			t.Errorf("loginClient(%q) = %s, want %s", tt.remote, got, tt.want)
		}
	}
}
