package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/contractgraph/contractgraph/internal/agent"
	"github.com/contractgraph/contractgraph/internal/llm"
	"github.com/contractgraph/contractgraph/internal/llm/llmtest"
)

func TestOllamaBaseURL(t *testing.T) {
	for in, want := range map[string]string{
		"":                          "http://localhost:11434/v1",
		"127.0.0.1:11434":           "http://127.0.0.1:11434/v1",
		"http://gpu-box:11434/":     "http://gpu-box:11434/v1",
		"https://ollama.example/v1": "https://ollama.example/v1",
	} {
		if got := ollamaBaseURL(in); got != want {
			t.Errorf("ollamaBaseURL(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestOpenModelProviders(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "sk")
	t.Setenv("ANTHROPIC_API_KEY", "ak")
	t.Setenv("GEMINI_API_KEY", "gk")
	t.Setenv("AZURE_OPENAI_API_KEY", "az")
	t.Setenv("AZURE_OPENAI_ENDPOINT", "https://x.openai.azure.com")
	for _, name := range []string{"openai:gpt-4o-mini", "ollama:qwen2.5:7b", "azure:dep", "anthropic:claude-sonnet-4-5", "gemini:gemini-2.5-flash"} {
		a := newApp(nil, io.Discard, io.Discard)
		a.cfg.Model = name
		m, err := a.openModel(context.Background())
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if _, ok := m.(llm.Streamer); !ok {
			t.Errorf("%s: model cannot stream", name)
		}
	}
}

func TestOpenEmbedder(t *testing.T) {
	t.Setenv("ANTHROPIC_API_KEY", "ak")
	t.Setenv("OLLAMA_HOST", "")
	a := newApp(nil, io.Discard, io.Discard)
	if _, err := a.openEmbedder(context.Background()); !errors.Is(err, llm.ErrNoModel) || !strings.Contains(err.Error(), "--embed-model") {
		t.Errorf("no embed model: %v", err)
	}
	a.cfg.EmbedModel = "ollama:nomic-embed-text"
	if _, err := a.openEmbedder(context.Background()); err != nil {
		t.Errorf("ollama embedder: %v", err)
	}
	a.cfg.EmbedModel = "anthropic:claude-sonnet-4-5"
	if _, err := a.openEmbedder(context.Background()); err == nil || !strings.Contains(err.Error(), "no embeddings API") {
		t.Errorf("anthropic embedder: %v", err)
	}
}

func TestPrinterHoldsBackSourcesLine(t *testing.T) {
	tests := []struct {
		name   string
		tokens []string
		want   string
	}{
		{"split label", []string{"Two contracts.\nSour", "ces: c1, ", "c2"}, "Two contracts.\n"},
		{"bold label", []string{"Done.\n**Sources:** c1"}, "Done.\n"},
		{"not a label", []string{"Source", " code escrow applies.\nSo", "me more."}, "Source code escrow applies.\nSome more.\n"},
		{"label mid-answer", []string{"A.\nSources: c1\nB."}, "A.\nB.\n"},
		{"plain", []string{"Just ", "text."}, "Just text.\n"},
	}
	for _, tt := range tests {
		var b strings.Builder
		p := &printer{w: &b}
		for _, tok := range tt.tokens {
			p.event(agent.Event{Type: agent.EventToken, Token: tok})
		}
		p.event(agent.Event{Type: agent.EventAnswer, Answer: &agent.Answer{Text: "ignored when streamed"}})
		got, _, _ := strings.Cut(b.String(), "\nSources: none")
		if got != tt.want {
			t.Errorf("%s: printed %q, want %q", tt.name, got, tt.want)
		}
	}
}

func TestPrinterToolLines(t *testing.T) {
	var b strings.Builder
	p := &printer{w: &b}
	start, end := 5, 9
	for _, e := range []agent.Event{
		{Type: agent.EventToken, Token: "Let me check."},
		{Type: agent.EventToolCall, ToolCall: &agent.ToolCallEvent{Name: "contract_search", Arguments: []byte(`{ "contract_type" : "Distributor" }`)}},
		{Type: agent.EventToolResult, ToolResult: &agent.ToolResultEvent{Name: "contract_search", Result: []byte(`{"total_count":3,"examples":[]}`)}},
		{Type: agent.EventToolCall, ToolCall: &agent.ToolCallEvent{Name: "contract_aggregate", Arguments: []byte(`{}`)}},
		{Type: agent.EventToolResult, ToolResult: &agent.ToolResultEvent{Name: "contract_aggregate", Error: "group_by: unknown value"}},
		{Type: agent.EventAnswer, Answer: &agent.Answer{Text: "Three.", Citations: []agent.Citation{
			{ContractID: "c1", Title: "Supply"}, {ContractID: "c1", ClauseType: "Cap On Liability", Start: &start, End: &end}, {ContractID: "c2"}}}},
	} {
		p.event(e)
	}
	want := "Let me check.\n→ contract_search {\"contract_type\":\"Distributor\"}\n← 3 results\n→ contract_aggregate {}\n← error: group_by: unknown value\n" +
		"Three.\n\nSources:\n  - c1 (Supply)\n    Cap On Liability [5–9]\n  - c2\n"
	if b.String() != want {
		t.Errorf("printed:\n%s\nwant:\n%s", b.String(), want)
	}
}

func TestExplanationsKeepErrorsAndCapabilities(t *testing.T) {
	n := llm.ModelName{Provider: "ollama", Model: "x"}
	t.Setenv("OLLAMA_HOST", "http://gpu:1")
	down := &llm.APIError{Provider: "ollama", Kind: llm.ErrUnavailable, Err: errors.New("dial tcp: connection refused")}
	err := explain(n, endpointFor(n, false), fmt.Errorf("agent step 1: %w", down))
	if err.Error() != "cannot reach the ollama server at http://gpu:1/v1: start it or set OLLAMA_HOST to where it runs" {
		t.Errorf("explained as %q", err)
	}
	var ae *llm.APIError
	if !errors.Is(err, llm.ErrUnavailable) || !errors.As(err, &ae) {
		t.Errorf("explanation lost the error chain: %v", err)
	}
	if got := newApp(nil, io.Discard, io.Discard).explainModelError(fmt.Errorf("extract: %w", err)); got.Error() != err.Error() {
		t.Errorf("explainModelError = %q", got)
	}
	rate := &llm.APIError{Provider: "ollama", Kind: llm.ErrRateLimited, StatusCode: 429}
	if explain(n, endpointFor(n, false), rate) != rate {
		t.Error("rate limits need no explanation")
	}
	full := withExplanations(n, endpointFor(n, false), llmtest.NewScripted().Streaming())
	if _, ok := full.(llm.Streamer); !ok {
		t.Error("wrapper hid Stream")
	}
	if _, ok := full.(llm.Embedder); ok {
		t.Error("wrapper invented Embed")
	}
}

func TestMissingKeysMatchErrNoModel(t *testing.T) {
	for _, v := range []string{"OPENAI_API_KEY", "OPENAI_BASE_URL", "ANTHROPIC_API_KEY", "GEMINI_API_KEY", "GOOGLE_API_KEY", "AZURE_OPENAI_API_KEY"} {
		t.Setenv(v, "")
	}
	for _, name := range []string{"", "openai:gpt-4o-mini", "azure:dep", "anthropic:claude-sonnet-4-5", "gemini:gemini-2.5-flash"} {
		a := newApp(nil, io.Discard, io.Discard)
		a.cfg.Model = name
		_, err := a.openModel(context.Background())
		if !errors.Is(err, llm.ErrNoModel) || strings.HasPrefix(err.Error(), "no model configured: model") {
			t.Errorf("%q: err = %v, want a one-sentence ErrNoModel", name, err)
		}
	}
}

// The printed answer must not depend on how the stream was cut into tokens.
func FuzzPrinterTokenSplit(f *testing.F) {
	f.Add("Two.\nSources: c1, c2", 5)
	f.Add("Source code.\n**Sources:** x\nmore", 3)
	f.Fuzz(func(t *testing.T, text string, cut int) {
		render := func(tokens ...string) string {
			var b strings.Builder
			p := &printer{w: &b}
			for _, tok := range tokens {
				p.event(agent.Event{Type: agent.EventToken, Token: tok})
			}
			p.event(agent.Event{Type: agent.EventAnswer, Answer: &agent.Answer{}})
			return b.String()
		}
		if cut < 0 {
			cut = -cut
		}
		if len(text) > 0 {
			cut %= len(text) + 1
		} else {
			cut = 0
		}
		whole, split := render(text), render(text[:cut], text[cut:])
		if whole != split {
			t.Fatalf("text %q cut at %d printed\n%q\nbut whole\n%q", text, cut, split, whole)
		}
	})
}

func TestModelTimeoutSpec(t *testing.T) {
	base := llm.Timeouts{Chat: time.Minute, Structured: 2 * time.Minute, Embed: 3 * time.Minute, TokensPerSecond: 5}
	tests := []struct {
		spec    string
		want    llm.Timeouts
		wantErr string
	}{
		{spec: "", want: base},
		{spec: "10m", want: llm.Timeouts{Chat: 10 * time.Minute, Structured: 10 * time.Minute, Embed: 10 * time.Minute, TokensPerSecond: 5}},
		{spec: "extract=30m", want: llm.Timeouts{Chat: time.Minute, Structured: 30 * time.Minute, Embed: 3 * time.Minute, TokensPerSecond: 5}},
		{spec: "5m, embed=30s, rate=0", want: llm.Timeouts{Chat: 5 * time.Minute, Structured: 5 * time.Minute, Embed: 30 * time.Second}},
		{spec: "CHAT=none", want: llm.Timeouts{Chat: -1, Structured: 2 * time.Minute, Embed: 3 * time.Minute, TokensPerSecond: 5}},
		{spec: "10", wantErr: `"10" is not a positive duration`},
		{spec: "judge=1m", wantErr: `unknown kind "judge"`},
		{spec: "rate=fast", wantErr: `rate "fast"`},
		{spec: "-5m", wantErr: "not a positive duration"},
	}
	for _, tt := range tests {
		got := base
		err := applyTimeoutSpec(&got, tt.spec)
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("%q: err = %v, want %q", tt.spec, err, tt.wantErr)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("%q: got %+v, %v; want %+v", tt.spec, got, err, tt.want)
		}
	}
}

func TestLocalServersGetLongerTimeouts(t *testing.T) {
	tests := []struct {
		name, base string
		local      bool
	}{
		{"openai:gpt-4o-mini", "", false},
		{"openai:qwen", "http://127.0.0.1:8080/v1", true},
		{"openai:qwen", "http://localhost:8080/v1", true},
		{"openai:qwen", "http://[::1]:8080/v1", true},
		{"openai:qwen", "http://gpu-box:8000/v1", false},
		{"ollama:qwen2.5:7b", "", true},
		{"anthropic:claude-sonnet-4-5", "", false},
	}
	for _, tt := range tests {
		t.Setenv("OPENAI_BASE_URL", tt.base)
		if got := isLocalModel(tt.name); got != tt.local {
			t.Errorf("%s at %q: local = %v, want %v", tt.name, tt.base, got, tt.local)
		}
		n, _ := llm.ParseModelName(tt.name)
		to, err := modelTimeouts(n, endpointFor(n, false), "")
		if err != nil {
			t.Fatal(err)
		}
		if want := map[bool]llm.Timeouts{true: localTimeouts, false: remoteTimeouts}[tt.local]; to != want {
			t.Errorf("%s at %q: timeouts %+v, want %+v", tt.name, tt.base, to, want)
		}
	}
	// The cold first agent step the issue measured (6,668 prompt tokens at
	// ~6 tokens/s under load) fits the local bound for its first piece.
	cold := &llm.Request{Messages: []llm.Message{{Role: llm.RoleUser, Content: strings.Repeat("x", 6668*4)}}}
	if first, _ := localTimeouts.ForStream(cold, 0); first < 6668*time.Second/6 {
		t.Errorf("local first-piece bound %s is shorter than a cold prompt under load", first)
	}
}

func TestModelTimeoutFlagReachesTheServer(t *testing.T) {
	slow := func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-time.After(3 * time.Second):
		}
	}
	srv := llmtest.NewReplayServer(t, slow)
	t.Setenv("OPENAI_BASE_URL", srv.URL+"/v1")
	t.Setenv("OPENAI_API_KEY", "")
	a := newApp(nil, io.Discard, io.Discard)
	a.cfg.Model = "openai:qwen"
	a.cfg.ModelTimeout = "chat=100ms,rate=0"
	m, err := a.openModel(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	_, err = m.Generate(context.Background(), &llm.Request{Messages: []llm.Message{{Role: llm.RoleUser, Content: "q"}}})
	if err == nil || !strings.Contains(err.Error(), "did not answer within 100ms") || !strings.Contains(err.Error(), "--model-timeout") {
		t.Errorf("err = %v, want the 100ms timeout explained with the flag to raise", err)
	}
	a.cfg.ModelTimeout = "chat=soon"
	if _, err := a.openModel(context.Background()); err == nil || !strings.Contains(err.Error(), "--model-timeout") {
		t.Errorf("bad spec: err = %v", err)
	}
}

func TestEmbedBaseURLOverridesOpenAIBaseURL(t *testing.T) {
	embeddings := func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"object":"list","model":"e5","data":[{"object":"embedding","index":0,"embedding":[0.6,0.8]}],"usage":{"prompt_tokens":3,"total_tokens":3}}`)
	}
	chat := func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"id":"c","object":"chat.completion","created":1,"model":"m","choices":[{"index":0,"message":{"role":"assistant","content":"hi"},"finish_reason":"stop"}],"usage":{"prompt_tokens":1,"completion_tokens":1,"total_tokens":2}}`)
	}
	chatSrv := llmtest.NewReplayServer(t, chat)
	embedSrv := llmtest.NewReplayServer(t, embeddings)
	t.Setenv("OPENAI_API_KEY", "")
	t.Setenv("OPENAI_BASE_URL", chatSrv.URL+"/v1")
	t.Setenv("CONTRACTGRAPH_EMBED_BASE_URL", embedSrv.URL+"/v1/")
	a := newApp(nil, io.Discard, io.Discard)
	a.cfg.Model = "openai:qwen2.5-coder"
	a.cfg.EmbedModel = "openai:multilingual-e5-small"
	e, err := a.openEmbedder(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	vecs, _, err := e.Embed(context.Background(), []string{"governing law"})
	if err != nil || len(vecs) != 1 || len(vecs[0]) != 2 {
		t.Fatalf("embed: %v %v", vecs, err)
	}
	m, err := a.openModel(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.Generate(context.Background(), &llm.Request{Messages: []llm.Message{{Role: llm.RoleUser, Content: "q"}}}); err != nil {
		t.Fatal(err)
	}
	if r := embedSrv.Requests(); len(r) != 1 || r[0].Path != "/v1/embeddings" || r[0].Body["model"] != "multilingual-e5-small" {
		t.Errorf("embedding server saw %+v", r)
	}
	if r := chatSrv.Requests(); len(r) != 1 || r[0].Path != "/v1/chat/completions" {
		t.Errorf("chat server saw %+v, want only the chat call", r)
	}
	// A failure names the variable that points at the embedding server.
	n, _ := llm.ParseModelName(a.cfg.EmbedModel)
	down := &llm.APIError{Provider: "openai", Kind: llm.ErrUnavailable, Err: errors.New("connection refused")}
	if err := explain(n, endpointFor(n, true), down); !strings.Contains(err.Error(), embedSrv.URL+"/v1: start it or set CONTRACTGRAPH_EMBED_BASE_URL") {
		t.Errorf("explained as %q", err)
	}
	// Other providers ignore it.
	if ep := endpointFor(llm.ModelName{Provider: "ollama", Model: "nomic-embed-text"}, true); ep.envVar != "OLLAMA_HOST" {
		t.Errorf("ollama embed endpoint = %+v", ep)
	}
}

// TestHTMLReplyExplained: an OpenAI base URL that serves a web page is
// reported as such, naming the variable to fix, not as a server that
// cannot be reached.
func TestHTMLReplyExplained(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, "<html><head><title>Router login</title></head><body></body></html>")
	}))
	defer srv.Close()
	t.Setenv("OPENAI_BASE_URL", srv.URL)
	t.Setenv("OPENAI_API_KEY", "test")
	dir := t.TempDir()
	db, in := filepath.Join(dir, "g.db"), filepath.Join(dir, "c.jsonl")
	if err := os.WriteFile(in, []byte(`{"id":"c1"}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, errOut, code := runContractgraph(t, "", "--db", db, "import", "--no-resolve", in); code != 0 {
		t.Fatalf("import: %s", errOut)
	}
	_, errOut, code := runContractgraph(t, "", "--db", db, "--model", "openai:gpt-x", "ask", "How many contracts?")
	want := `the openai server at ` + srv.URL + ` answered HTTP 200 with a web page ("Router login"), not an OpenAI API reply: check OPENAI_BASE_URL (an OpenAI-compatible server's API usually ends in /v1)`
	if code != 1 || !strings.Contains(errOut, want) || strings.Contains(errOut, "cannot reach") {
		t.Errorf("exit %d, stderr %q\nwant %q", code, errOut, want)
	}
}
