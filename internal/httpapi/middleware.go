package httpapi

import (
	"crypto/subtle"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// middleware wraps the routes, outermost first: panic recovery, request
// log, security headers, CORS, DNS-rebinding check, cross-origin write
// protection, authentication.
func (s *Server) middleware(h http.Handler) http.Handler {
	h = s.requireAuth(h)
	h = s.crossOriginProtection(h)
	h = s.checkHost(h)
	h = s.cors(h)
	h = securityHeaders(h)
	h = s.logRequests(h)
	return s.recoverPanics(h)
}

// statusRecorder remembers the status code for the request log. Unwrap lets
// http.ResponseController reach the connection for flushing and deadlines.
type statusRecorder struct {
	http.ResponseWriter
	status int
}

func (r *statusRecorder) WriteHeader(code int) {
	if r.status == 0 {
		r.status = code
	}
	r.ResponseWriter.WriteHeader(code)
}

func (r *statusRecorder) Write(b []byte) (int, error) {
	if r.status == 0 {
		r.status = http.StatusOK
	}
	return r.ResponseWriter.Write(b)
}

func (r *statusRecorder) Unwrap() http.ResponseWriter { return r.ResponseWriter }

func (s *Server) logRequests(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		rec := &statusRecorder{ResponseWriter: w}
		next.ServeHTTP(rec, r)
		s.log.LogAttrs(r.Context(), slog.LevelInfo, "http request",
			slog.String("method", r.Method), slog.String("path", r.URL.Path),
			slog.Int("status", rec.status), slog.Duration("duration", time.Since(start)))
	})
}

func (s *Server) recoverPanics(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer func() {
			if v := recover(); v != nil {
				if v == http.ErrAbortHandler {
					panic(v)
				}
				s.log.ErrorContext(r.Context(), "handler panic", slog.String("path", r.URL.Path), slog.Any("panic", v))
				writeError(w, http.StatusInternalServerError, &apiError{Code: codeInternal, Message: "internal error; the server log has the details"})
			}
		}()
		next.ServeHTTP(w, r)
	})
}

// contentSecurityPolicy allows only the app's own scripts; inline styles are
// allowed for the bar widths and legend colours.
const contentSecurityPolicy = "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; " +
	"img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'"

func securityHeaders(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Referrer-Policy", "same-origin")
		h.Set("X-Frame-Options", "DENY")
		h.Set("Content-Security-Policy", contentSecurityPolicy)
		next.ServeHTTP(w, r)
	})
}

// cors answers preflight requests and marks API responses readable by the
// one configured origin. Without CORSOrigin it adds nothing, so browsers
// keep other origins from reading the API.
func (s *Server) cors(next http.Handler) http.Handler {
	if s.corsOrigin == "" {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !strings.HasPrefix(r.URL.Path, "/api/") {
			next.ServeHTTP(w, r)
			return
		}
		w.Header().Add("Vary", "Origin")
		origin := r.Header.Get("Origin")
		if origin != s.corsOrigin {
			next.ServeHTTP(w, r)
			return
		}
		h := w.Header()
		h.Set("Access-Control-Allow-Origin", origin)
		if r.Method == http.MethodOptions && r.Header.Get("Access-Control-Request-Method") != "" {
			h.Set("Access-Control-Allow-Methods", "GET, POST, DELETE")
			h.Set("Access-Control-Allow-Headers", "Authorization, Content-Type, Accept")
			h.Set("Access-Control-Max-Age", "600")
			w.WriteHeader(http.StatusNoContent)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// checkHost defends a loopback server without a token against DNS
// rebinding: a page on evil.example resolving to 127.0.0.1 sends
// "Host: evil.example", which a local server must not answer. Requests that
// did not arrive over a loopback connection are left alone.
func (s *Server) checkHost(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		local, _ := r.Context().Value(http.LocalAddrContextKey).(net.Addr)
		if s.token == "" && local != nil && isLoopbackAddr(local) && !loopbackHost(r.Host) {
			writeError(w, http.StatusForbidden, &apiError{Code: codeForbidden,
				Message: fmt.Sprintf("host %q is not a loopback name; a server without a token answers only localhost, 127.0.0.1 and [::1]", r.Host)})
			return
		}
		next.ServeHTTP(w, r)
	})
}

func loopbackHost(hostport string) bool {
	host := hostport
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		host = h
	}
	host = strings.Trim(host, "[]")
	if strings.EqualFold(host, "localhost") || strings.HasSuffix(strings.ToLower(host), ".localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// crossOriginProtection rejects state-changing requests (POST, DELETE) that a
// browser sends from another origin, such as a form on a web page posting
// to the local server. Requests without browser headers (curl, SDKs) pass.
func (s *Server) crossOriginProtection(next http.Handler) http.Handler {
	p := http.NewCrossOriginProtection()
	if s.corsOrigin != "" {
		// New has checked the origin.
		_ = p.AddTrustedOrigin(s.corsOrigin)
	}
	p.SetDenyHandler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		writeError(w, http.StatusForbidden, &apiError{Code: codeForbidden, Message: "cross-origin request refused"})
	}))
	return p.Handler(next)
}

// authorized reports whether r carries the token as a bearer token, or
// the cookie of a live session. An Authorization header in another scheme
// is ignored.
func (s *Server) authorized(r *http.Request) bool {
	if token, ok := bearerToken(r.Header.Get("Authorization")); ok {
		return subtle.ConstantTimeCompare([]byte(token), []byte(s.token)) == 1
	}
	if c, err := r.Cookie(sessionCookie); err == nil {
		return s.sessions.valid(c.Value)
	}
	return false
}

// requireAuth enforces the token when one is configured. API calls get a
// 401 JSON error; pages redirect to the login page. Every response but the
// static files is marked no-store, so that neither the browser nor a
// proxy keeps a copy of what a signed-in user saw.
func (s *Server) requireAuth(next http.Handler) http.Handler {
	if s.token == "" {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p := r.URL.Path
		if strings.HasPrefix(p, "/static/") {
			next.ServeHTTP(w, r)
			return
		}
		w.Header().Set("Cache-Control", "no-store")
		if p == "/healthz" || p == "/login" || p == "/logout" || s.authorized(r) {
			next.ServeHTTP(w, r)
			return
		}
		if strings.HasPrefix(p, "/api/") || r.Method != http.MethodGet {
			w.Header().Set("WWW-Authenticate", `Bearer realm="contractgraph"`)
			writeError(w, http.StatusUnauthorized, &apiError{Code: codeUnauthorized, Message: "missing or wrong token: send Authorization: Bearer <CONTRACTGRAPH_TOKEN>"})
			return
		}
		http.Redirect(w, r, "/login?next="+url.QueryEscape(r.URL.RequestURI()), http.StatusSeeOther)
	})
}
