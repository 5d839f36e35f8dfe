package llmtest

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
)

// ReplayServer is an HTTP server for provider tests: it answers the n-th
// request with the n-th scripted handler (written in the provider's own wire
// format by the test) and records every request, so a test can drive a
// real SDK client and then check exactly what it sent.
type ReplayServer struct {
	*httptest.Server
	mu      sync.Mutex
	replies []http.HandlerFunc
	reqs    []Request
}

// Request is what a ReplayServer received: the path, raw query, headers and
// the JSON body decoded generically, and as sent (Raw), for tests of key
// order.
type Request struct {
	Path   string
	Query  string
	Header http.Header
	Body   map[string]any
	Raw    []byte
}

// NewReplayServer starts a server answering with replies in order; it is
// closed when the test ends. A body that is not JSON, or a request beyond
// the last reply, fails the test.
func NewReplayServer(t testing.TB, replies ...http.HandlerFunc) *ReplayServer {
	s := &ReplayServer{replies: replies}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		raw, _ := io.ReadAll(r.Body)
		var body map[string]any
		if err := json.Unmarshal(raw, &body); err != nil {
			t.Errorf("request body to %s is not JSON: %v: %s", r.URL.Path, err, raw)
		}
		s.mu.Lock()
		n := len(s.reqs)
		s.reqs = append(s.reqs, Request{Path: r.URL.Path, Query: r.URL.RawQuery, Header: r.Header.Clone(), Body: body, Raw: raw})
		s.mu.Unlock()
		if n >= len(s.replies) {
			t.Errorf("unexpected request %d to %s", n+1, r.URL.Path)
			http.Error(w, "no more replies", http.StatusInternalServerError)
			return
		}
		s.replies[n](w, r)
	}))
	t.Cleanup(s.Server.Close)
	return s
}

// Requests returns a copy of the requests received so far, in order.
func (s *ReplayServer) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.reqs...)
}
