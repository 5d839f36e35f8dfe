package httpapi

import (
	"crypto/subtle"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/contractgraph/contractgraph/internal/web"
)

// sessionCookie holds a session id (random, never derived from the token)
// after a successful sign-in on the login page.
const sessionCookie = "contractgraph_session"

// maxLoginBytes bounds the sign-in form: a token and a redirect target.
const maxLoginBytes = 8 << 10

// maxNextLen bounds a post-sign-in redirect target.
const maxNextLen = 2048

// safeNext returns next when it is a path on this server, else "/". It
// judges next by what a browser makes of it, not by how it looks: browsers
// drop tab, CR and LF anywhere in a URL ("/\t/evil.example" becomes
// "//evil.example", another host) and read "\" as "/", so any control
// character, space or backslash is refused outright. What is left must be
// an absolute path with no scheme or host whose first segment is not
// empty, before and after percent-decoding.
func safeNext(next string) string {
	if next == "" || len(next) > maxNextLen || next[0] != '/' || !cleanURLText(next) {
		return "/"
	}
	u, err := url.Parse(next)
	if err != nil || u.Scheme != "" || u.Host != "" || u.User != nil || u.Opaque != "" ||
		!strings.HasPrefix(u.Path, "/") || strings.HasPrefix(u.Path, "//") || !cleanURLText(u.Path) {
		return "/"
	}
	return next
}

// cleanURLText reports whether s has no ASCII control character, space or
// backslash.
func cleanURLText(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c <= ' ' || c == 0x7f || c == '\\' {
			return false
		}
	}
	return true
}

// bearerToken returns the credentials of an Authorization header in the
// Bearer scheme, whose name is case-insensitive (RFC 7235).
func bearerToken(header string) (string, bool) {
	scheme, token, ok := strings.Cut(header, " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return "", false
	}
	return strings.TrimSpace(token), true
}

// newSessionCookie is the session cookie with value, kept for maxAge
// seconds (negative deletes it). It is Secure when the request came over
// TLS or the server is configured for a TLS-terminating proxy; Lax keeps
// a link from another site signed in while CrossOriginProtection refuses
// its POSTs.
func (s *Server) newSessionCookie(r *http.Request, value string, maxAge int) *http.Cookie {
	return &http.Cookie{
		Name: sessionCookie, Value: value, Path: "/", MaxAge: maxAge,
		HttpOnly: true, SameSite: http.SameSiteLaxMode, Secure: s.secureCookies || r.TLS != nil,
	}
}

func (s *Server) pageLogin(w http.ResponseWriter, r *http.Request) {
	if s.token == "" {
		http.Redirect(w, r, "/", http.StatusSeeOther)
		return
	}
	s.render(w, r, http.StatusOK, web.PageLogin, web.LoginPage{Base: web.Base{Title: "Sign in"}, Next: safeNext(r.URL.Query().Get("next"))})
}

// handleLogin checks the token from the sign-in form and starts a session.
// Wrong tokens are rate-limited per client and in total (see
// loginFailuresPerClient); the limit is checked before the token is, so
// that a limited client learns nothing from its guesses.
func (s *Server) handleLogin(w http.ResponseWriter, r *http.Request) {
	if s.token == "" {
		http.Redirect(w, r, "/", http.StatusSeeOther)
		return
	}
	client := loginClient(r)
	if d := s.logins.wait(client); d > 0 {
		secs := int((d + time.Second - 1) / time.Second)
		w.Header().Set("Retry-After", strconv.Itoa(secs))
		s.renderError(w, r, http.StatusTooManyRequests, "Too many sign-in attempts",
			fmt.Sprintf("Too many wrong tokens were tried; try again in %d seconds.", secs))
		return
	}
	tooLarge := func() {
		s.renderError(w, r, http.StatusRequestEntityTooLarge, "Request too large",
			fmt.Sprintf("The sign-in form is larger than %d KiB.", maxLoginBytes>>10))
	}
	if r.ContentLength > maxLoginBytes {
		tooLarge()
		return
	}
	r.Body = http.MaxBytesReader(w, r.Body, maxLoginBytes)
	if err := r.ParseForm(); err != nil {
		if _, ok := errors.AsType[*http.MaxBytesError](err); ok {
			tooLarge()
			return
		}
		s.renderError(w, r, http.StatusBadRequest, "Bad request", "The sign-in form could not be read.")
		return
	}
	next := safeNext(r.PostForm.Get("next"))
	if subtle.ConstantTimeCompare([]byte(r.PostForm.Get("token")), []byte(s.token)) != 1 {
		s.logins.fail(client)
		s.render(w, r, http.StatusUnauthorized, web.PageLogin, web.LoginPage{Base: web.Base{Title: "Sign in"}, Failed: true, Next: next})
		return
	}
	s.logins.succeed(client)
	// A new id at every sign-in, so that a session id planted before it
	// is worth nothing.
	if c, err := r.Cookie(sessionCookie); err == nil {
		s.sessions.delete(c.Value)
	}
	http.SetCookie(w, s.newSessionCookie(r, s.sessions.create(), int(sessionMaxLifetime/time.Second)))
	http.Redirect(w, r, next, http.StatusSeeOther)
}

// handleLogout ends the session the cookie names and deletes the cookie.
// It needs no sign-in (an expired session can still sign out), and
// crossOriginProtection refuses it from other sites' pages.
func (s *Server) handleLogout(w http.ResponseWriter, r *http.Request) {
	if c, err := r.Cookie(sessionCookie); err == nil {
		s.sessions.delete(c.Value)
	}
	http.SetCookie(w, s.newSessionCookie(r, "", -1))
	to := "/login"
	if s.token == "" {
		to = "/"
	}
	http.Redirect(w, r, to, http.StatusSeeOther)
}
