package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"

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
	err := explain(n, fmt.Errorf("agent step 1: %w", down))
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
	if explain(n, rate) != rate {
		t.Error("rate limits need no explanation")
	}
	full := withExplanations(n, llmtest.NewScripted().Streaming())
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
