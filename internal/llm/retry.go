package llm

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"
)

// APIError is a failure reported by a provider or by the transport to it,
// classified as one of ErrRateLimited, ErrUnavailable, ErrAuth or
// ErrBadRequest (errors.Is works with both the class and Err).
type APIError struct {
	Provider   string        // "openai", "anthropic", "gemini"
	StatusCode int           // HTTP status; 0 when no response arrived
	RetryAfter time.Duration // the server's Retry-After, if any
	Message    string        // the provider's message, if any
	Kind       error         // one of the sentinel errors
	Err        error         // the underlying SDK or transport error
	Timeout    time.Duration // set when the per-call timeout ended the call
}

func (e *APIError) Error() string {
	var b strings.Builder
	b.WriteString(e.Provider)
	b.WriteString(": ")
	b.WriteString(e.Kind.Error())
	if e.StatusCode != 0 {
		fmt.Fprintf(&b, " (HTTP %d)", e.StatusCode)
	}
	switch {
	case e.Message != "":
		b.WriteString(": ")
		b.WriteString(e.Message)
	case e.Err != nil:
		b.WriteString(": ")
		b.WriteString(e.Err.Error())
	}
	return b.String()
}

// Unwrap exposes both the class and the underlying error.
func (e *APIError) Unwrap() []error {
	if e.Err == nil {
		return []error{e.Kind}
	}
	return []error{e.Kind, e.Err}
}

// Retryable reports whether trying again may help: rate limits and
// unavailability, including connection failures, but not a per-call
// timeout (the next attempt would most likely time out too).
func (e *APIError) Retryable() bool {
	return e.Timeout == 0 && (e.Kind == ErrRateLimited || e.Kind == ErrUnavailable)
}

// KindForStatus classifies an HTTP status code.
func KindForStatus(code int) error {
	switch {
	case code == http.StatusUnauthorized || code == http.StatusForbidden:
		return ErrAuth
	case code == http.StatusTooManyRequests:
		return ErrRateLimited
	case code == http.StatusRequestTimeout || code == http.StatusConflict || code >= 500:
		return ErrUnavailable
	default:
		return ErrBadRequest
	}
}

// ParseRetryAfter reads how long a server asked us to wait: the
// non-standard retry-after-ms header, then Retry-After as seconds or an
// HTTP date. It returns 0 when there is no usable value.
func ParseRetryAfter(h http.Header, now time.Time) time.Duration {
	if h == nil {
		return 0
	}
	if v := h.Get("Retry-After-Ms"); v != "" {
		if ms, err := strconv.ParseFloat(v, 64); err == nil && ms > 0 {
			return time.Duration(ms * float64(time.Millisecond))
		}
	}
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return 0
	}
	if s, err := strconv.ParseFloat(v, 64); err == nil {
		if s <= 0 {
			return 0
		}
		return time.Duration(s * float64(time.Second))
	}
	if t, err := http.ParseTime(v); err == nil && t.After(now) {
		return t.Sub(now)
	}
	return 0
}

// Retry is an exponential-backoff policy with full jitter for provider
// calls. The zero value makes 3 attempts starting at 500ms.
type Retry struct {
	MaxAttempts   int           // total attempts including the first; 3 when zero, 1 when negative
	BaseDelay     time.Duration // first backoff; 500ms when zero
	MaxDelay      time.Duration // cap on one computed backoff; 20s when zero
	MaxRetryAfter time.Duration // longest Retry-After honoured; longer gives up; 2m when zero
}

func (r Retry) attempts() int {
	switch {
	case r.MaxAttempts < 0:
		return 1
	case r.MaxAttempts == 0:
		return 3
	}
	return r.MaxAttempts
}

// Delay returns the wait before retry number n (1-based) after err: the
// server's Retry-After when it gave one, else BaseDelay·2^(n-1) capped at
// MaxDelay with jitter in [d/2, d]. ok is false when err is not retryable
// or the server asks for a longer wait than MaxRetryAfter.
func (r Retry) Delay(n int, err error) (d time.Duration, ok bool) {
	var p *permanentError
	if errors.As(err, &p) {
		return 0, false
	}
	var ae *APIError
	if !errors.As(err, &ae) || !ae.Retryable() {
		return 0, false
	}
	if ae.RetryAfter > 0 {
		limit := r.MaxRetryAfter
		if limit == 0 {
			limit = 2 * time.Minute
		}
		return ae.RetryAfter, ae.RetryAfter <= limit
	}
	base, maxd := r.BaseDelay, r.MaxDelay
	if base <= 0 {
		base = 500 * time.Millisecond
	}
	if maxd <= 0 {
		maxd = 20 * time.Second
	}
	d = base
	for i := 1; i < n && d < maxd; i++ {
		d *= 2
	}
	d = min(d, maxd)
	half := d / 2
	return half + rand.N(d-half+1), true
}

// Do calls fn until it succeeds, fails with a non-retryable error, the
// attempts are used up or ctx ends. It returns fn's last error (wrapped
// with the attempt count when retries were exhausted) or ctx's error.
func (r Retry) Do(ctx context.Context, fn func(ctx context.Context) error) error {
	max := r.attempts()
	for n := 1; ; n++ {
		err := fn(ctx)
		if err == nil {
			return nil
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		d, ok := r.Delay(n, err)
		if !ok {
			var p *permanentError
			if errors.As(err, &p) {
				return p.err
			}
			return err
		}
		if n >= max {
			if max == 1 {
				return err
			}
			return fmt.Errorf("after %d attempts: %w", n, err)
		}
		t := time.NewTimer(d)
		select {
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		case <-t.C:
		}
	}
}

// CallTimeout runs fn with a per-attempt timeout (none when d ≤ 0). When the
// timeout, not the caller's ctx, ended the call, the error is an *APIError
// of class ErrUnavailable with Timeout set that also matches
// context.DeadlineExceeded.
func CallTimeout(ctx context.Context, provider string, d time.Duration, fn func(ctx context.Context) error) error {
	if d <= 0 {
		return fn(ctx)
	}
	cctx, cancel := context.WithTimeoutCause(ctx, d, errCallTimeout)
	defer cancel()
	err := fn(cctx)
	if err != nil && ctx.Err() == nil && errors.Is(context.Cause(cctx), errCallTimeout) {
		return &APIError{Provider: provider, Kind: ErrUnavailable, Timeout: d,
			Message: fmt.Sprintf("no reply within %s", d), Err: context.DeadlineExceeded}
	}
	return err
}

var errCallTimeout = errors.New("model call timed out")

// Permanent marks err as not to be retried by Retry.Do, which returns err
// itself. Streams use it once a delta has reached the caller.
func Permanent(err error) error { return &permanentError{err} }

type permanentError struct{ err error }

// IsPermanent reports whether err was marked with Permanent.
func IsPermanent(err error) bool {
	var p *permanentError
	return errors.As(err, &p)
}

func (e *permanentError) Error() string { return e.err.Error() }
func (e *permanentError) Unwrap() error { return e.err }

// Invoke runs fn under r with a per-attempt timeout: the common shape of
// every provider call.
func Invoke(ctx context.Context, provider string, r Retry, timeout time.Duration, fn func(ctx context.Context) error) error {
	return r.Do(ctx, func(ctx context.Context) error {
		return CallTimeout(ctx, provider, timeout, fn)
	})
}

// InvokeStream is Invoke for streamed calls: first bounds the wait for the
// first piece of the stream (which includes the server reading the prompt)
// and idle each wait after it, rather than the whole call, so a long answer
// that keeps arriving is never cut off. fn calls touch whenever data
// arrives. A stall ends the attempt with an *APIError of class
// ErrUnavailable with Timeout set (not retried). A bound ≤ 0 means none;
// first ≤ 0 takes idle.
func InvokeStream(ctx context.Context, provider string, r Retry, first, idle time.Duration, fn func(ctx context.Context, touch func()) error) error {
	if first <= 0 {
		first = idle
	}
	return r.Do(ctx, func(ctx context.Context) error {
		if idle <= 0 && first <= 0 {
			return fn(ctx, func() {})
		}
		cctx, cancel := context.WithCancelCause(ctx)
		defer cancel(nil)
		var (
			mu      sync.Mutex
			waiting = first // the bound now running, for the error
		)
		timer := time.AfterFunc(first, func() { cancel(errCallTimeout) })
		defer timer.Stop()
		touch := func() {
			if idle <= 0 {
				timer.Stop()
				return
			}
			mu.Lock()
			waiting = idle
			mu.Unlock()
			timer.Reset(idle)
		}
		err := fn(cctx, touch)
		if err != nil && ctx.Err() == nil && errors.Is(context.Cause(cctx), errCallTimeout) {
			mu.Lock()
			d := waiting
			mu.Unlock()
			return &APIError{Provider: provider, Kind: ErrUnavailable, Timeout: d,
				Message: fmt.Sprintf("no data within %s", d), Err: context.DeadlineExceeded}
		}
		return err
	})
}
