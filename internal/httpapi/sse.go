package httpapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"
)

// sseWriter writes server-sent events: "event: NAME\ndata: JSON\n\n", each
// flushed at once. It is safe for concurrent use; after the first failed
// write (the client went away) every Send returns that error.
type sseWriter struct {
	mu  sync.Mutex
	w   http.ResponseWriter
	rc  *http.ResponseController
	err error
}

// startSSE sends the event-stream response header. It lifts the server's
// read and write deadlines for this connection: a stream lasts as long as
// the work behind it, which has its own timeout.
func startSSE(w http.ResponseWriter) *sseWriter {
	rc := http.NewResponseController(w)
	// Not every ResponseWriter supports deadlines (httptest's recorder does
	// not); the stream works without, only bounded by the server timeouts.
	_ = rc.SetWriteDeadline(time.Time{})
	_ = rc.SetReadDeadline(time.Time{})
	h := w.Header()
	h.Set("Content-Type", "text/event-stream; charset=utf-8")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Accel-Buffering", "no") // ask reverse proxies not to buffer
	w.WriteHeader(http.StatusOK)
	s := &sseWriter{w: w, rc: rc}
	s.flush()
	return s
}

// Send writes one event whose data is the JSON encoding of v.
func (s *sseWriter) Send(event string, v any) error {
	data, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("encode %s event: %w", event, err)
	}
	return s.sendRaw(event, data)
}

func (s *sseWriter) sendRaw(event string, data []byte) error {
	if strings.ContainsAny(event, "\r\n") {
		return errors.New("sse: event name contains a line break")
	}
	var b bytes.Buffer
	b.Grow(len(event) + len(data) + 16)
	b.WriteString("event: ")
	b.WriteString(event)
	b.WriteByte('\n')
	// JSON from encoding/json has no raw line breaks, but the format allows
	// multi-line data, so split defensively rather than corrupt the stream.
	for line := range bytes.SplitSeq(data, []byte("\n")) {
		b.WriteString("data: ")
		b.Write(line)
		b.WriteByte('\n')
	}
	b.WriteByte('\n')
	return s.write(b.Bytes())
}

// Comment writes an SSE comment line, which clients ignore; it keeps idle
// connections from being closed by proxies.
func (s *sseWriter) Comment(text string) error {
	return s.write([]byte(": " + strings.ReplaceAll(text, "\n", " ") + "\n\n"))
}

func (s *sseWriter) write(p []byte) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err != nil {
		return s.err
	}
	if _, err := s.w.Write(p); err != nil {
		s.err = err
		return err
	}
	s.flushLocked()
	return s.err
}

func (s *sseWriter) flush() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.flushLocked()
}

func (s *sseWriter) flushLocked() {
	if err := s.rc.Flush(); err != nil && !errors.Is(err, http.ErrNotSupported) {
		s.err = err
	}
}

// keepAlive writes a comment every interval until stop is closed.
func (s *sseWriter) keepAlive(interval time.Duration, stop <-chan struct{}) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case <-t.C:
			if s.Comment("keep-alive") != nil {
				return
			}
		}
	}
}
