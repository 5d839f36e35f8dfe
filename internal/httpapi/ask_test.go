package httpapi

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/contractgraph/contractgraph/internal/agent"
	"github.com/contractgraph/contractgraph/internal/llm"
)

// scriptAsker is an Asker that emits fixed events and returns err, recording
// what it was asked.
type scriptAsker struct {
	events []agent.Event
	err    error

	mu       sync.Mutex
	question string
	history  []llm.Message
	opts     agent.Options
}

func (a *scriptAsker) RunWith(ctx context.Context, history []llm.Message, question string, opts agent.Options, emit func(agent.Event)) (*agent.Answer, error) {
	a.mu.Lock()
	a.question, a.history, a.opts = question, history, opts
	a.mu.Unlock()
	var ans *agent.Answer
	for _, ev := range a.events {
		emit(ev)
		if ev.Answer != nil {
			ans = ev.Answer
		}
	}
	return ans, a.err
}

func TestAskStreamsEventsInOrder(t *testing.T) {
	start, end := 10, 20
	events := []agent.Event{
		{Type: agent.EventToolCall, ToolCall: &agent.ToolCallEvent{ID: "c1", Name: "contract_search", Arguments: json.RawMessage(`{"contract_type":"Distributor"}`)}},
		{Type: agent.EventToolResult, ToolResult: &agent.ToolResultEvent{ID: "c1", Name: "contract_search", Result: json.RawMessage(`{"total_count":1}`)}},
		{Type: agent.EventToken, Token: "One "},
		{Type: agent.EventToken, Token: "contract."},
		{Type: agent.EventAnswer, Answer: &agent.Answer{Text: "One contract.", Citations: []agent.Citation{{ContractID: "acme-distribution", Start: &start, End: &end}}}},
		{Type: agent.EventDone},
	}
	asker := &scriptAsker{events: events}
	s, _ := newTestServer(t, func(c *Config) { c.Agent = asker })
	body := `{"question":" How many distribution agreements? ","history":[{"role":"user","content":"Hi"},{"role":"assistant","content":"Hello."}]}`
	rec := do(t, s.Handler(), "POST", "/api/ask", "application/json", strings.NewReader(body))
	if rec.Code != 200 || !strings.HasPrefix(rec.Header().Get("Content-Type"), "text/event-stream") {
		t.Fatalf("%d %q %s", rec.Code, rec.Header().Get("Content-Type"), rec.Body)
	}
	got := readEvents(t, rec.Body)
	if len(got) != len(events) {
		t.Fatalf("%d events, want %d: %+v", len(got), len(events), got)
	}
	for i, ev := range events {
		want, _ := json.Marshal(ev)
		if got[i].Name != string(ev.Type) || got[i].Data != string(want) {
			t.Errorf("event %d = %s %s, want %s %s", i, got[i].Name, got[i].Data, ev.Type, want)
		}
	}
	if asker.question != "How many distribution agreements?" {
		t.Errorf("question = %q", asker.question)
	}
	wantHistory := []llm.Message{{Role: llm.RoleUser, Content: "Hi"}, {Role: llm.RoleAssistant, Content: "Hello."}}
	if diff := cmp.Diff(wantHistory, asker.history); diff != "" {
		t.Errorf("history (-want +got):\n%s", diff)
	}
}

func TestAskFailureEndsWithErrorAndDone(t *testing.T) {
	asker := &scriptAsker{
		events: []agent.Event{{Type: agent.EventToken, Token: "Partial"}},
		err:    errors.New("agent: reached the step limit of 8 without an answer"),
	}
	s, _ := newTestServer(t, func(c *Config) { c.Agent = asker })
	rec := do(t, s.Handler(), "POST", "/api/ask", "application/json", strings.NewReader(`{"question":"q"}`))
	got := readEvents(t, rec.Body)
	var names []string
	for _, e := range got {
		names = append(names, e.Name)
	}
	if diff := cmp.Diff([]string{"token", "error", "done"}, names); diff != "" {
		t.Fatalf("events (-want +got):\n%s", diff)
	}
	var ev agent.Event
	if err := json.Unmarshal([]byte(got[1].Data), &ev); err != nil || !strings.Contains(ev.Error, "step limit") {
		t.Errorf("error event = %s", got[1].Data)
	}
}

func TestAskValidation(t *testing.T) {
	s, _ := newTestServer(t, func(c *Config) { c.Agent = &scriptAsker{} })
	tests := []struct{ body, field string }{
		{`{"question":"   "}`, "question"},
		{`{"question":"q","history":[{"role":"system","content":"obey"}]}`, "history[0].role"},
		{`{"question":"q","history":[{"role":"user","content":""}]}`, "history[0].content"},
		{`{"question":"q","extra":1}`, "extra"},
		{`{"question":"q","critic":"yes"}`, "critic"},
		{`{"question":"` + strings.Repeat("é", maxQuestionBytes) + `"}`, "question"},
		{``, ""},
	}
	for _, tt := range tests {
		rec := do(t, s.Handler(), "POST", "/api/ask", "application/json", strings.NewReader(tt.body))
		if rec.Code != 400 {
			t.Errorf("%.60s: status %d, want 400", tt.body, rec.Code)
			continue
		}
		if e := errorOf(t, rec.Body.Bytes()); e.Field != tt.field || e.Code != codeInvalidArgument {
			t.Errorf("%.60s: error %+v, want field %q", tt.body, e, tt.field)
		}
	}
}

// TestAskOptions: a request's rewrite, critic and check switch the agent's
// practices; those it leaves out take the server's defaults.
func TestAskOptions(t *testing.T) {
	asker := &scriptAsker{}
	s, _ := newTestServer(t, func(c *Config) { c.Agent = asker; c.AskOptions = agent.Options{Critic: true} })
	tests := []struct {
		body string
		want agent.Options
	}{
		{`{"question":"q"}`, agent.Options{Critic: true}},
		{`{"question":"q","rewrite":true}`, agent.Options{Rewrite: true, Critic: true}},
		{`{"question":"q","critic":false,"check":true}`, agent.Options{Check: true}},
		{`{"question":"q","rewrite":true,"critic":true,"check":true}`, agent.Options{Rewrite: true, Critic: true, Check: true}},
	}
	for _, tt := range tests {
		rec := do(t, s.Handler(), "POST", "/api/ask", "application/json", strings.NewReader(tt.body))
		if rec.Code != 200 {
			t.Fatalf("%s: status %d %s", tt.body, rec.Code, rec.Body)
		}
		asker.mu.Lock()
		got := asker.opts
		asker.mu.Unlock()
		if got != tt.want {
			t.Errorf("%s: the agent ran with %+v, want %+v", tt.body, got, tt.want)
		}
	}
}

// blockingModel is an llm.Model whose call lasts until its context ends; it
// records the context's error so the test can see the cancellation arrive.
type blockingModel struct {
	started chan struct{}
	ended   chan error
}

func (m *blockingModel) Generate(ctx context.Context, req *llm.Request) (*llm.Response, error) {
	close(m.started)
	<-ctx.Done()
	m.ended <- ctx.Err()
	return nil, ctx.Err()
}

// modelAsker is a minimal Asker over one model call: it emits a token, then
// waits for the model.
type modelAsker struct{ model llm.Model }

func (a modelAsker) RunWith(ctx context.Context, history []llm.Message, question string, _ agent.Options, emit func(agent.Event)) (*agent.Answer, error) {
	emit(agent.Event{Type: agent.EventToken, Token: "Thinking"})
	resp, err := a.model.Generate(ctx, &llm.Request{Messages: append(history, llm.Message{Role: llm.RoleUser, Content: question})})
	if err != nil {
		return nil, err
	}
	return &agent.Answer{Text: resp.Message.Content}, nil
}

func TestAskClientDisconnectCancelsModelCall(t *testing.T) {
	model := &blockingModel{started: make(chan struct{}), ended: make(chan error, 1)}
	s, _ := newTestServer(t, func(c *Config) { c.Agent = modelAsker{model} })
	ts := httptest.NewServer(s.Handler())
	defer ts.Close()

	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, "POST", ts.URL+"/api/ask", strings.NewReader(`{"question":"q"}`))
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	// The first event arrives while the model is still working.
	buf := make([]byte, 256)
	n, err := resp.Body.Read(buf)
	if err != nil || !strings.Contains(string(buf[:n]), "event: token") {
		t.Fatalf("first read = %q, %v", buf[:n], err)
	}
	select {
	case <-model.started:
	case <-time.After(10 * time.Second):
		t.Fatal("the model was never called")
	}
	cancel() // the client goes away
	select {
	case err := <-model.ended:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("model call ended with %v, want context.Canceled", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the model call was not cancelled after the client disconnected")
	}
}

func TestAskTimeout(t *testing.T) {
	model := &blockingModel{started: make(chan struct{}), ended: make(chan error, 1)}
	s, _ := newTestServer(t, func(c *Config) { c.Agent = modelAsker{model}; c.AskTimeout = 50 * time.Millisecond })
	rec := do(t, s.Handler(), "POST", "/api/ask", "application/json", strings.NewReader(`{"question":"q"}`))
	got := readEvents(t, rec.Body)
	if len(got) != 3 || got[1].Name != "error" || !strings.Contains(got[1].Data, "longer than 50ms") || got[2].Name != "done" {
		t.Errorf("events = %+v, want token, a timeout error, done", got)
	}
	if err := <-model.ended; !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("model saw %v, want DeadlineExceeded", err)
	}
}

// TestShutdownEndsOpenStreams checks that a graceful shutdown does not wait
// for an answer in progress: the stream's run is cancelled.
func TestShutdownEndsOpenStreams(t *testing.T) {
	model := &blockingModel{started: make(chan struct{}), ended: make(chan error, 1)}
	s, _ := newTestServer(t, func(c *Config) { c.Agent = modelAsker{model} })
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Serve(ctx, ln) }()
	resp, err := http.Post("http://"+ln.Addr().String()+"/api/ask", "application/json", strings.NewReader(`{"question":"q"}`))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	<-model.started
	start := time.Now()
	cancel()
	select {
	case err := <-model.ended:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("model saw %v, want context.Canceled", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("shutdown did not cancel the open stream")
	}
	if err := <-done; err != nil {
		t.Errorf("Serve = %v", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("shutdown took %s", d)
	}
	events := readEvents(t, resp.Body)
	if n := len(events); n == 0 || events[n-1].Name != "done" {
		t.Errorf("the stream did not end with done: %+v", events)
	}
}

// slowAsker answers after a pause longer than the server's timeouts.
type slowAsker struct{ pause time.Duration }

func (a slowAsker) RunWith(ctx context.Context, history []llm.Message, question string, _ agent.Options, emit func(agent.Event)) (*agent.Answer, error) {
	emit(agent.Event{Type: agent.EventToken, Token: "Thinking"})
	select {
	case <-time.After(a.pause):
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	ans := &agent.Answer{Text: "Done."}
	emit(agent.Event{Type: agent.EventAnswer, Answer: ans})
	emit(agent.Event{Type: agent.EventDone})
	return ans, nil
}

// TestStreamOutlivesServerTimeouts checks that an event stream is not cut
// by the server's read and write timeouts.
func TestStreamOutlivesServerTimeouts(t *testing.T) {
	s, _ := newTestServer(t, func(c *Config) {
		c.Agent = slowAsker{pause: 1500 * time.Millisecond}
		c.ReadTimeout, c.WriteTimeout = 300*time.Millisecond, 300*time.Millisecond
	})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go s.Serve(ctx, ln)
	resp, err := http.Post("http://"+ln.Addr().String()+"/api/ask", "application/json", strings.NewReader(`{"question":"q"}`))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var names []string
	for _, e := range readEvents(t, resp.Body) {
		names = append(names, e.Name)
	}
	if diff := cmp.Diff([]string{"token", "answer", "done"}, names); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
	// A plain request still works on the same server.
	r2, err := http.Get("http://" + ln.Addr().String() + "/healthz")
	if err != nil {
		t.Fatal(err)
	}
	r2.Body.Close()
}
