package httpapi

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"
)

// blockingTools holds every clause_search call until release is closed;
// every other call goes to the real tool set.
type blockingTools struct {
	ToolSet
	started chan struct{}
	release chan struct{}
}

func (b *blockingTools) Call(ctx context.Context, name string, args json.RawMessage) (json.RawMessage, error) {
	if name == "clause_search" {
		b.started <- struct{}{}
		select {
		case <-b.release:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	return b.ToolSet.Call(ctx, name, args)
}

// TestAdmissionKeepsLookupsFast: while text searches hold every text slot
// and fill the queue, one more is refused at once with 503, Retry-After
// and the busy code, and a contract lookup and a contract search still
// answer; once the searches finish, text searches are admitted again.
func TestAdmissionKeepsLookupsFast(t *testing.T) {
	var bt *blockingTools
	s, _ := newTestServer(t, func(c *Config) {
		bt = &blockingTools{ToolSet: c.Tools, started: make(chan struct{}, 8), release: make(chan struct{})}
		c.Tools = bt
		c.Limits = map[Class]Limit{ClassText: {Concurrency: 1, Queue: 1, MaxWait: time.Minute}}
	})
	h := s.Handler()
	search := func() int {
		return do(t, h, "POST", "/api/tools/clause_search", "application/json", strings.NewReader(`{"query":"terminate"}`)).Code
	}
	var wg sync.WaitGroup
	codes := make([]int, 2)
	for i := range codes {
		wg.Go(func() { codes[i] = search() })
		if i == 0 {
			<-bt.started // the first runs; the second waits in the queue
		}
	}
	waitUntil(t, func() bool { return s.admission.gates[ClassText].waiting.Load() == 1 })

	rec := do(t, h, "POST", "/api/tools/clause_search", "application/json", strings.NewReader(`{"query":"terminate"}`))
	if rec.Code != http.StatusServiceUnavailable || rec.Header().Get("Retry-After") != "5" {
		t.Fatalf("third text search: %d, Retry-After %q; want 503 with Retry-After 5", rec.Code, rec.Header().Get("Retry-After"))
	}
	if e := errorOf(t, rec.Body.Bytes()); e.Code != codeBusy || !strings.Contains(e.Message, "busy with text requests") {
		t.Errorf("refusal %+v", e)
	}
	for _, target := range []string{"/api/contracts/acme-distribution", "/api/contracts?contract_type=Distributor", "/contracts/acme-distribution"} {
		start := time.Now()
		if rec := do(t, h, "GET", target, "", nil); rec.Code != http.StatusOK {
			t.Errorf("GET %s while text searches are full: %d %s", target, rec.Code, rec.Body)
		} else if d := time.Since(start); d > 2*time.Second {
			t.Errorf("GET %s took %s behind the text searches", target, d)
		}
	}

	close(bt.release)
	wg.Wait()
	for i, c := range codes {
		if c != http.StatusOK {
			t.Errorf("admitted text search %d: %d", i+1, c)
		}
	}
	if c := search(); c != http.StatusOK {
		t.Errorf("text search after the burst: %d", c)
	}
	if n := s.admission.gates[ClassText].refused.Load(); n != 1 {
		t.Errorf("%d refused, want 1", n)
	}
}

// TestAdmissionWaitBounded: a request that waits longer than MaxWait for
// a slot is refused; a page gets an HTML 503, not JSON.
func TestAdmissionWaitBounded(t *testing.T) {
	g := newGate(ClassQuery, Limit{Concurrency: 1, Queue: 4, MaxWait: 50 * time.Millisecond})
	release, err := g.enter(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if _, err := g.enter(context.Background()); !errors.Is(err, errBusy) {
		t.Fatalf("second enter: %v, want errBusy", err)
	}
	if d := time.Since(start); d < 50*time.Millisecond || d > 2*time.Second {
		t.Errorf("refused after %s, want about 50ms", d)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := g.enter(ctx); !errors.Is(err, context.Canceled) {
		t.Errorf("enter with a cancelled context: %v", err)
	}
	release()
	r2, err := g.enter(context.Background())
	if err != nil {
		t.Fatalf("enter after release: %v", err)
	}
	r2()

	s, _ := newTestServer(t, func(c *Config) {
		c.Limits = map[Class]Limit{ClassQuery: {Concurrency: 1, Queue: 0, MaxWait: time.Second}}
	})
	hold, err := s.admission.gates[ClassQuery].enter(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer hold()
	rec := do(t, s.Handler(), "GET", "/contracts", "", nil)
	if rec.Code != http.StatusServiceUnavailable || !strings.Contains(rec.Header().Get("Content-Type"), "text/html") || rec.Header().Get("Retry-After") != "1" {
		t.Errorf("contracts page when full: %d %q Retry-After %q", rec.Code, rec.Header().Get("Content-Type"), rec.Header().Get("Retry-After"))
	}
	if rec := do(t, s.Handler(), "GET", "/healthz", "", nil); rec.Code != http.StatusOK {
		t.Errorf("healthz is never admitted: %d", rec.Code)
	}
}

func TestParseLimits(t *testing.T) {
	base := DefaultLimits(2)
	got, err := ParseLimits("text=3/10/2s, model=4", base)
	if err != nil {
		t.Fatal(err)
	}
	if got[ClassText] != (Limit{3, 10, 2 * time.Second}) || got[ClassModel].Concurrency != 4 || got[ClassModel].Queue != base[ClassModel].Queue || got[ClassLookup] != base[ClassLookup] {
		t.Errorf("parsed %+v", got)
	}
	for _, bad := range []string{"text", "search=2", "text=0", "text=2/-1", "text=2/1/soon", "text=1/2/3/4"} {
		if _, err := ParseLimits(bad, base); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

func waitUntil(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition not reached in 10 s")
		}
		time.Sleep(5 * time.Millisecond)
	}
}
