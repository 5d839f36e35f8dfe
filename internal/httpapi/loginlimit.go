package httpapi

import (
	"net"
	"net/http"
	"net/netip"
	"sync"
	"time"
)

// Sign-in rate limits. After loginFailuresPerClient wrong tokens from one
// client within loginFailureWindow, that client is answered 429 until the
// window ends; after loginFailuresGlobal wrong tokens from all clients
// together, every sign-in is, so that guessing from many addresses is
// bounded too. Signed-in sessions and bearer-token calls are not affected.
const (
	loginFailuresPerClient = 5
	loginFailuresGlobal    = 100
	loginFailureWindow     = time.Minute
)

// failureWindow counts failures in a fixed window from its first failure.
type failureWindow struct {
	start time.Time
	n     int
}

// wait is how long until the window lets another attempt in, 0 when it
// does now.
func (f *failureWindow) wait(now time.Time, limit int) time.Duration {
	if f.n < limit {
		return 0
	}
	if d := f.start.Add(loginFailureWindow).Sub(now); d > 0 {
		return d
	}
	return 0
}

func (f *failureWindow) add(now time.Time) {
	if f.n == 0 || now.Sub(f.start) >= loginFailureWindow {
		*f = failureWindow{start: now}
	}
	f.n++
}

// loginLimiter counts failed sign-ins per client and in total. The
// clients it remembers are bounded by the global limit: a failure is only
// counted for an attempt that was let in, and windows that have ended are
// dropped when the global window restarts. It is safe for concurrent use.
type loginLimiter struct {
	now func() time.Time

	mu      sync.Mutex
	global  failureWindow
	clients map[netip.Prefix]*failureWindow
}

func newLoginLimiter(now func() time.Time) *loginLimiter {
	return &loginLimiter{now: now, clients: make(map[netip.Prefix]*failureWindow)}
}

// wait is how long the client must wait before its next sign-in attempt;
// 0 means it may try now.
func (l *loginLimiter) wait(client netip.Prefix) time.Duration {
	now := l.now()
	l.mu.Lock()
	defer l.mu.Unlock()
	d := l.global.wait(now, loginFailuresGlobal)
	if f, ok := l.clients[client]; ok {
		d = max(d, f.wait(now, loginFailuresPerClient))
	}
	return d
}

// fail records a wrong token from client.
func (l *loginLimiter) fail(client netip.Prefix) {
	now := l.now()
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.global.n > 0 && now.Sub(l.global.start) >= loginFailureWindow {
		for c, f := range l.clients {
			if now.Sub(f.start) >= loginFailureWindow {
				delete(l.clients, c)
			}
		}
	}
	l.global.add(now)
	f, ok := l.clients[client]
	if !ok {
		f = &failureWindow{}
		l.clients[client] = f
	}
	f.add(now)
}

// succeed forgets client's failures after it signed in.
func (l *loginLimiter) succeed(client netip.Prefix) {
	l.mu.Lock()
	defer l.mu.Unlock()
	delete(l.clients, client)
}

// loginClient is who a sign-in attempt is counted against: the peer's
// address, or its /64 for IPv6, where one subscriber holds the whole
// prefix. Forwarding headers are not trusted, so behind a reverse proxy
// every client counts as the proxy.
func loginClient(r *http.Request) netip.Prefix {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		host = r.RemoteAddr
	}
	addr, err := netip.ParseAddr(host)
	if err != nil {
		return netip.Prefix{} // one bucket for whatever has no IP address
	}
	addr = addr.Unmap().WithZone("")
	bits := 32
	if addr.Is6() {
		bits = 64
	}
	p, _ := addr.Prefix(bits)
	return p
}
