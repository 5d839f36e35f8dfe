package llm_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/contractgraph/contractgraph/internal/llm"
	"github.com/contractgraph/contractgraph/internal/llm/llmtest"
	"github.com/google/go-cmp/cmp"
)

type verdict struct {
	Complete  bool     `json:"complete"`
	FollowUps []string `json:"follow_ups" jsonschema:"questions still to answer"`
	Note      string   `json:"note,omitempty"`
}

func TestGenerateData(t *testing.T) {
	tests := []struct {
		name    string
		reply   string
		want    verdict
		wantErr string // substring of the ParseError; empty for success
	}{
		{name: "plain", reply: `{"complete":true,"follow_ups":[]}`, want: verdict{Complete: true, FollowUps: []string{}}},
		{name: "fenced", reply: "```json\n{\"complete\":false,\"follow_ups\":[\"who signed?\"],\"note\":\"n\"}\n```",
			want: verdict{FollowUps: []string{"who signed?"}, Note: "n"}},
		{name: "not json", reply: `sure! {"complete":`, wantErr: "invalid JSON"},
		{name: "empty", reply: "  ", wantErr: "empty reply"},
		{name: "missing required", reply: `{"complete":true}`, wantErr: "follow_ups"},
		{name: "wrong type", reply: `{"complete":"yes","follow_ups":[]}`, wantErr: "complete"},
		{name: "unknown field", reply: `{"complete":true,"follow_ups":[],"extra":1}`, wantErr: "extra"},
		{name: "trailing", reply: `{"complete":true,"follow_ups":[]} {}`, wantErr: "invalid JSON"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := llmtest.NewScripted(llmtest.Text(tt.reply))
			req := &llm.Request{
				Messages: []llm.Message{{Role: llm.RoleUser, Content: "judge"}},
				Tools:    []llm.ToolDef{{Name: "x"}},
			}
			got, resp, err := llm.GenerateData[verdict](context.Background(), m, req)
			sent := m.Requests()[0]
			if sent.ResponseFormat == nil || sent.ResponseFormat.Name != "verdict" ||
				!strings.Contains(string(sent.ResponseFormat.Schema), `"follow_ups"`) {
				t.Fatalf("request response format = %+v", sent.ResponseFormat)
			}
			if len(sent.Tools) != 0 || req.ResponseFormat != nil || len(req.Tools) != 1 {
				t.Errorf("tools must be dropped from the sent request only; sent %d, caller's request modified: %+v", len(sent.Tools), req)
			}
			if tt.wantErr == "" {
				if err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff(tt.want, got); diff != "" {
					t.Errorf("value (-want +got):\n%s", diff)
				}
				return
			}
			var pe *llm.ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("err = %v, want *ParseError", err)
			}
			if !strings.Contains(pe.Error(), tt.wantErr) {
				t.Errorf("error %q does not mention %q", pe.Error(), tt.wantErr)
			}
			if pe.Raw != tt.reply || resp == nil {
				t.Errorf("ParseError.Raw = %q, resp = %v; want the raw reply and the response", pe.Raw, resp)
			}
		})
	}
}

func TestGenerateDataRepairRound(t *testing.T) {
	m := llmtest.NewScripted(llmtest.Text(`{"complete":true}`), llmtest.Text(`{"complete":true,"follow_ups":["a"]}`))
	req := &llm.Request{Messages: []llm.Message{{Role: llm.RoleUser, Content: "judge"}}}
	_, _, err := llm.GenerateData[verdict](context.Background(), m, req)
	var pe *llm.ParseError
	if !errors.As(err, &pe) {
		t.Fatalf("first reply: err = %v, want ParseError", err)
	}
	req.Messages = append(req.Messages, pe.RepairMessages()...)
	got, _, err := llm.GenerateData[verdict](context.Background(), m, req)
	if err != nil {
		t.Fatal(err)
	}
	if !got.Complete || len(got.FollowUps) != 1 {
		t.Errorf("repaired value = %+v", got)
	}
	second := m.Requests()[1].Messages
	if len(second) != 3 || second[1].Content != `{"complete":true}` || !strings.Contains(second[2].Content, "follow_ups") {
		t.Errorf("repair round messages = %+v", second)
	}
}

func TestGenerateDataProviderError(t *testing.T) {
	m := llmtest.NewScripted(llmtest.Fail(&llm.APIError{Provider: "p", Kind: llm.ErrAuth, StatusCode: 401}))
	_, resp, err := llm.GenerateData[verdict](context.Background(), m, &llm.Request{})
	if !errors.Is(err, llm.ErrAuth) || resp != nil {
		t.Errorf("err = %v, resp = %v; want ErrAuth and no response", err, resp)
	}
}

func TestParseModelName(t *testing.T) {
	tests := []struct {
		in      string
		want    llm.ModelName
		wantErr string
	}{
		{in: "openai:gpt-4o-mini", want: llm.ModelName{Provider: "openai", Model: "gpt-4o-mini"}},
		{in: "ollama:qwen2.5:7b", want: llm.ModelName{Provider: "ollama", Model: "qwen2.5:7b"}},
		{in: " Anthropic:claude-sonnet-4-5 ", want: llm.ModelName{Provider: "anthropic", Model: "claude-sonnet-4-5"}},
		{in: "azure:my-deployment", want: llm.ModelName{Provider: "azure", Model: "my-deployment"}},
		{in: "gemini:gemini-2.5-flash", want: llm.ModelName{Provider: "gemini", Model: "gemini-2.5-flash"}},
		{in: "", wantErr: "no model configured"},
		{in: "gpt-4o", wantErr: "want provider:model"},
		{in: "openai:", wantErr: "want provider:model"},
		{in: ":x", wantErr: "want provider:model"},
		{in: "mistral:large", wantErr: `unknown provider "mistral"`},
	}
	for _, tt := range tests {
		got, err := llm.ParseModelName(tt.in)
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("ParseModelName(%q) err = %v, want %q", tt.in, err, tt.wantErr)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("ParseModelName(%q) = %+v, %v; want %+v", tt.in, got, err, tt.want)
		}
		if back, _ := llm.ParseModelName(got.String()); back != got {
			t.Errorf("round trip of %q = %+v", got, back)
		}
	}
	if _, err := llm.ParseModelName(""); !errors.Is(err, llm.ErrNoModel) {
		t.Errorf("empty name err = %v, want ErrNoModel", err)
	}
}

func FuzzParseModelName(f *testing.F) {
	for _, s := range []string{"openai:gpt-4o", "ollama:a:b:c", "", ":", "x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n, err := llm.ParseModelName(s)
		if err != nil {
			return
		}
		if n.Provider == "" || n.Model == "" || strings.ContainsRune(n.Provider, ':') {
			t.Fatalf("ParseModelName(%q) = %+v", s, n)
		}
	})
}

func FuzzDecodeData(f *testing.F) {
	schema, err := llm.SchemaFor[verdict]()
	if err != nil {
		f.Fatal(err)
	}
	for _, s := range []string{`{"complete":true,"follow_ups":[]}`, "```\n{}\n```", `[1]`, `null`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, err := llm.DecodeData[verdict](schema, s)
		if err != nil {
			var pe *llm.ParseError
			if !errors.As(err, &pe) || pe.Raw != s {
				t.Fatalf("error %v is not a ParseError carrying the input", err)
			}
			return
		}
		if v.FollowUps == nil {
			t.Fatalf("accepted %q without the required follow_ups", s)
		}
	})
}

func TestParseRetryAfter(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	tests := []struct {
		name string
		h    http.Header
		want time.Duration
	}{
		{"none", http.Header{}, 0},
		{"seconds", http.Header{"Retry-After": {"2"}}, 2 * time.Second},
		{"fraction", http.Header{"Retry-After": {"0.5"}}, 500 * time.Millisecond},
		{"ms wins", http.Header{"Retry-After-Ms": {"150"}, "Retry-After": {"9"}}, 150 * time.Millisecond},
		{"date", http.Header{"Retry-After": {now.Add(30 * time.Second).Format(http.TimeFormat)}}, 30 * time.Second},
		{"past date", http.Header{"Retry-After": {now.Add(-time.Hour).Format(http.TimeFormat)}}, 0},
		{"garbage", http.Header{"Retry-After": {"soon"}}, 0},
		{"negative", http.Header{"Retry-After": {"-3"}}, 0},
	}
	for _, tt := range tests {
		if got := llm.ParseRetryAfter(tt.h, now); got != tt.want {
			t.Errorf("%s: got %v, want %v", tt.name, got, tt.want)
		}
	}
}

func TestKindForStatus(t *testing.T) {
	for code, want := range map[int]error{401: llm.ErrAuth, 403: llm.ErrAuth, 429: llm.ErrRateLimited, 500: llm.ErrUnavailable,
		503: llm.ErrUnavailable, 408: llm.ErrUnavailable, 400: llm.ErrBadRequest, 404: llm.ErrBadRequest, 422: llm.ErrBadRequest} {
		if got := llm.KindForStatus(code); got != want {
			t.Errorf("KindForStatus(%d) = %v, want %v", code, got, want)
		}
	}
}

func TestRetryDo(t *testing.T) {
	fast := llm.Retry{MaxAttempts: 3, BaseDelay: time.Millisecond, MaxDelay: 2 * time.Millisecond}
	unavailable := &llm.APIError{Provider: "p", Kind: llm.ErrUnavailable, StatusCode: 503}
	t.Run("succeeds after transient errors", func(t *testing.T) {
		n := 0
		err := fast.Do(context.Background(), func(context.Context) error {
			n++
			if n < 3 {
				return unavailable
			}
			return nil
		})
		if err != nil || n != 3 {
			t.Errorf("err = %v after %d calls", err, n)
		}
	})
	t.Run("exhausted", func(t *testing.T) {
		n := 0
		err := fast.Do(context.Background(), func(context.Context) error { n++; return unavailable })
		if !errors.Is(err, llm.ErrUnavailable) || n != 3 || !strings.Contains(err.Error(), "after 3 attempts") {
			t.Errorf("err = %v after %d calls", err, n)
		}
	})
	t.Run("not retryable", func(t *testing.T) {
		n := 0
		err := fast.Do(context.Background(), func(context.Context) error {
			n++
			return &llm.APIError{Provider: "p", Kind: llm.ErrBadRequest, StatusCode: 400}
		})
		if !errors.Is(err, llm.ErrBadRequest) || n != 1 {
			t.Errorf("err = %v after %d calls", err, n)
		}
	})
	t.Run("permanent", func(t *testing.T) {
		n := 0
		err := fast.Do(context.Background(), func(context.Context) error { n++; return llm.Permanent(unavailable) })
		if err != unavailable || n != 1 {
			t.Errorf("err = %v after %d calls", err, n)
		}
	})
	t.Run("honours retry-after", func(t *testing.T) {
		n := 0
		start := time.Now()
		err := fast.Do(context.Background(), func(context.Context) error {
			n++
			if n == 1 {
				return &llm.APIError{Provider: "p", Kind: llm.ErrRateLimited, StatusCode: 429, RetryAfter: 80 * time.Millisecond}
			}
			return nil
		})
		if err != nil || time.Since(start) < 80*time.Millisecond {
			t.Errorf("err = %v, waited %v; want success after ≥80ms", err, time.Since(start))
		}
	})
	t.Run("retry-after too long gives up", func(t *testing.T) {
		r := fast
		r.MaxRetryAfter = time.Second
		n := 0
		err := r.Do(context.Background(), func(context.Context) error {
			n++
			return &llm.APIError{Provider: "p", Kind: llm.ErrRateLimited, RetryAfter: time.Hour}
		})
		if !errors.Is(err, llm.ErrRateLimited) || n != 1 {
			t.Errorf("err = %v after %d calls", err, n)
		}
	})
	t.Run("context cancelled while waiting", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
		defer cancel()
		r := llm.Retry{MaxAttempts: 5, BaseDelay: time.Hour, MaxDelay: time.Hour}
		err := r.Do(ctx, func(context.Context) error { return unavailable })
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("err = %v, want deadline exceeded", err)
		}
	})
}

func TestRetryDelayBackoff(t *testing.T) {
	r := llm.Retry{BaseDelay: 100 * time.Millisecond, MaxDelay: 300 * time.Millisecond}
	err := &llm.APIError{Kind: llm.ErrUnavailable}
	for n, max := range map[int]time.Duration{1: 100 * time.Millisecond, 2: 200 * time.Millisecond, 3: 300 * time.Millisecond, 9: 300 * time.Millisecond} {
		for range 50 {
			d, ok := r.Delay(n, err)
			if !ok || d < max/2 || d > max {
				t.Fatalf("Delay(%d) = %v, %v; want within [%v, %v]", n, d, ok, max/2, max)
			}
		}
	}
}

func TestCallTimeout(t *testing.T) {
	err := llm.Invoke(context.Background(), "p", llm.Retry{MaxAttempts: 3}, 10*time.Millisecond, func(ctx context.Context) error {
		<-ctx.Done()
		return ctx.Err()
	})
	var ae *llm.APIError
	if !errors.As(err, &ae) || ae.Timeout != 10*time.Millisecond || !errors.Is(err, context.DeadlineExceeded) || !errors.Is(err, llm.ErrUnavailable) {
		t.Errorf("err = %v, want a timeout APIError", err)
	}
	if !strings.Contains(err.Error(), "no reply within 10ms") {
		t.Errorf("message %q does not state the timeout", err)
	}
}

func TestInvokeStreamIdleTimeout(t *testing.T) {
	r := llm.Retry{MaxAttempts: 3, BaseDelay: time.Millisecond}
	// Data that keeps coming is never cut off, however long it takes.
	err := llm.InvokeStream(context.Background(), "p", r, 0, 50*time.Millisecond, func(ctx context.Context, touch func()) error {
		for range 6 {
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-time.After(20 * time.Millisecond):
				touch()
			}
		}
		return nil
	})
	if err != nil {
		t.Fatalf("steady stream: %v", err)
	}
	// A stall ends the attempt, without retries.
	calls := 0
	err = llm.InvokeStream(context.Background(), "p", r, 0, 30*time.Millisecond, func(ctx context.Context, touch func()) error {
		calls++
		touch()
		<-ctx.Done()
		return ctx.Err()
	})
	var ae *llm.APIError
	if !errors.As(err, &ae) || ae.Timeout != 30*time.Millisecond || !errors.Is(err, context.DeadlineExceeded) || calls != 1 {
		t.Errorf("stalled stream: err = %v after %d calls", err, calls)
	}
}

func TestInvokeStreamFirstPieceBound(t *testing.T) {
	r := llm.Retry{MaxAttempts: 1}
	// A long wait for the first piece (the server reading a long prompt)
	// passes under a generous first bound even though it exceeds idle.
	err := llm.InvokeStream(context.Background(), "p", r, 200*time.Millisecond, 30*time.Millisecond, func(ctx context.Context, touch func()) error {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(80 * time.Millisecond):
		}
		touch()
		for range 3 {
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-time.After(10 * time.Millisecond):
				touch()
			}
		}
		return nil
	})
	if err != nil {
		t.Fatalf("slow first piece within its bound: %v", err)
	}
	// After the first piece, a stall longer than idle ends the attempt and
	// the error names the idle bound.
	err = llm.InvokeStream(context.Background(), "p", r, 200*time.Millisecond, 30*time.Millisecond, func(ctx context.Context, touch func()) error {
		touch()
		<-ctx.Done()
		return ctx.Err()
	})
	var ae *llm.APIError
	if !errors.As(err, &ae) || ae.Timeout != 30*time.Millisecond || !strings.Contains(err.Error(), "no data within 30ms") {
		t.Errorf("stall after first piece: err = %v", err)
	}
}

func TestTimeoutsByKindAndPrompt(t *testing.T) {
	prompt := strings.Repeat("x", 4000) // 1,000 estimated tokens
	chat := &llm.Request{Messages: []llm.Message{{Role: llm.RoleUser, Content: prompt}}, MaxTokens: 500}
	structured := &llm.Request{Messages: chat.Messages, MaxTokens: 500, ResponseFormat: &llm.ResponseFormat{Name: "x", Schema: []byte(`{}`)}}
	if llm.KindOf(chat) != llm.CallChat || llm.KindOf(structured) != llm.CallStructured || llm.CallStructured.String() != "extract" {
		t.Fatalf("kinds: %v %v", llm.KindOf(chat), llm.KindOf(structured))
	}
	fixed := llm.Timeouts{Chat: time.Minute, Structured: 5 * time.Minute}
	if got := fixed.For(chat, 2*time.Minute); got != time.Minute {
		t.Errorf("chat = %s, want 1m", got)
	}
	if got := fixed.For(structured, 2*time.Minute); got != 5*time.Minute {
		t.Errorf("structured = %s, want 5m", got)
	}
	if got := fixed.ForEmbed(2 * time.Minute); got != 2*time.Minute {
		t.Errorf("embed falls back to the provider timeout: %s", got)
	}
	if got := (llm.Timeouts{Chat: -1}).For(chat, time.Minute); got != 0 {
		t.Errorf("negative means no bound, got %s", got)
	}
	// At 10 tokens/s the bound grows with the prompt; a call that is not
	// streamed also gets time for its reply.
	slow := llm.Timeouts{Chat: time.Minute, TokensPerSecond: 10}
	n := llm.EstimateRequestTokens(chat)
	if n < 1000 || n > 1010 {
		t.Fatalf("estimate = %d tokens, want about 1000", n)
	}
	want := time.Minute + time.Duration(float64(n+500)/10*float64(time.Second))
	if got := slow.For(chat, 0); got != want {
		t.Errorf("non-streamed = %s, want %s", got, want)
	}
	first, idle := slow.ForStream(chat, 0)
	if wantFirst := time.Minute + time.Duration(float64(n)/10*float64(time.Second)); first != wantFirst || idle != time.Minute {
		t.Errorf("stream = %s first, %s idle; want %s and 1m", first, idle, wantFirst)
	}
	// A cold agent step: 6,668 prompt tokens on a 2-core machine under load
	// (6 tokens/s) takes about 18.5 minutes before the first token.
	cold := &llm.Request{Messages: []llm.Message{{Role: llm.RoleUser, Content: strings.Repeat("y", 6668*4)}}}
	local := llm.Timeouts{Chat: 5 * time.Minute, TokensPerSecond: 5}
	if first, _ := local.ForStream(cold, 0); first < 19*time.Minute {
		t.Errorf("cold first-piece bound %s would cut off a slow local server", first)
	}
}

func TestGenerateDataStreamsWithProgress(t *testing.T) {
	reply := `{"complete": true, "follow_ups": ["who signed?", "when?"]}`
	m := llmtest.NewScripted(llmtest.Text(reply)).Streaming()
	var last llm.Progress
	calls := 0
	got, resp, err := llm.GenerateData[verdict](context.Background(), m, &llm.Request{Messages: []llm.Message{{Role: llm.RoleUser, Content: "judge"}}},
		llm.WithProgress(func(p llm.Progress) { calls++; last = p }))
	if err != nil {
		t.Fatal(err)
	}
	if !got.Complete || len(got.FollowUps) != 2 || resp.Message.Content != reply {
		t.Errorf("value %+v, content %q", got, resp.Message.Content)
	}
	if calls < 5 || last.Bytes != len(reply) || last.Deltas != calls {
		t.Errorf("progress: %d calls, last %+v; want one per piece, ending at %d bytes", calls, last, len(reply))
	}
	// A streamed reply that fails the schema is a ParseError like any other.
	m = llmtest.NewScripted(llmtest.Text(`{"complete": true}`)).Streaming()
	_, _, err = llm.GenerateData[verdict](context.Background(), m, &llm.Request{})
	var pe *llm.ParseError
	if !errors.As(err, &pe) || pe.Raw != `{"complete": true}` {
		t.Errorf("err = %v, want a ParseError with the raw reply", err)
	}
}

func TestCompleteWithoutStreamer(t *testing.T) {
	m := llmtest.NewScripted(llmtest.Text("four bytes"))
	var got llm.Progress
	resp, err := llm.Complete(context.Background(), m, &llm.Request{}, func(p llm.Progress) { got = p })
	if err != nil || resp.Message.Content != "four bytes" || got != (llm.Progress{Deltas: 1, Bytes: 10}) {
		t.Errorf("resp %v err %v progress %+v", resp, err, got)
	}
}

func TestWireSchemaKeepsPropertyOrder(t *testing.T) {
	raw := `{"type":"object","properties":{"summary":{"type":"string"},"parties":{"type":"array"},"clauses":{"type":"array"}}}`
	m, err := llm.WireSchema([]byte(raw))
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	if i, j, k := strings.Index(s, `"summary"`), strings.Index(s, `"parties"`), strings.Index(s, `"clauses"`); !(i < j && j < k) {
		t.Errorf("order lost: %s", s)
	}
	if _, err := llm.WireSchema([]byte(`[1]`)); err == nil {
		t.Error("a schema that is not an object must fail")
	}
}

func TestWireSchemaUnescapesHTML(t *testing.T) {
	raw, _ := json.Marshal(map[string]any{"properties": map[string]any{"limit": map[string]any{"description": `<= 50 & > 0, not \u003c`}}})
	m, err := llm.WireSchema(raw)
	if err != nil {
		t.Fatal(err)
	}
	got := string(m["properties"].(json.RawMessage))
	if want := `{"limit":{"description":"<= 50 & > 0, not \\u003c"}}`; got != want {
		t.Errorf("got %s, want %s", got, want)
	}
}
