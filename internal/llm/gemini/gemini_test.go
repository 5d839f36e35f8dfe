package gemini_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/contractgraph/contractgraph/internal/llm"
	"github.com/contractgraph/contractgraph/internal/llm/gemini"
	"github.com/contractgraph/contractgraph/internal/llm/llmtest"
)

func candidate(finish string, parts ...any) map[string]any {
	return map[string]any{
		"candidates":    []any{map[string]any{"content": map[string]any{"role": "model", "parts": parts}, "finishReason": finish, "index": 0}},
		"usageMetadata": map[string]any{"promptTokenCount": 40, "candidatesTokenCount": 8, "totalTokenCount": 48},
		"modelVersion":  "gemini-test",
	}
}

func reply(v any) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(v)
	}
}

func text(s string) map[string]any { return map[string]any{"text": s} }

func call(name string, args any) map[string]any {
	return map[string]any{"functionCall": map[string]any{"name": name, "args": args}}
}

func errorReply(code int, status string, header map[string]string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		for k, v := range header {
			w.Header().Set(k, v)
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(code)
		fmt.Fprintf(w, `{"error":{"code":%d,"message":"fake says %d","status":%q}}`, code, code, status)
	}
}

func sse(chunks ...any) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		for _, c := range chunks {
			b, _ := json.Marshal(c)
			fmt.Fprintf(w, "data: %s\r\n\r\n", b)
			w.(http.Flusher).Flush()
		}
	}
}

func newModel(t *testing.T, f *llmtest.ReplayServer, mod func(*gemini.Config)) *gemini.Model {
	cfg := gemini.Config{Model: "gemini-test", APIKey: "g-key", BaseURL: f.URL,
		Retry: llm.Retry{MaxAttempts: 3, BaseDelay: time.Millisecond, MaxDelay: 5 * time.Millisecond}}
	if mod != nil {
		mod(&cfg)
	}
	m, err := gemini.New(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

var searchTool = llm.ToolDef{Name: "contract_search", Description: "Find contracts.",
	InputSchema: json.RawMessage(`{"type":"object","properties":{"contract_type":{"type":"string"}},"additionalProperties":false}`)}

func TestToolCallRoundTrip(t *testing.T) {
	signed := call("contract_search", map[string]any{"contract_type": "Distributor"})
	signed["thoughtSignature"] = "c2lnbmF0dXJl" // base64 "signature"
	f := llmtest.NewReplayServer(t,
		reply(candidate("STOP", signed, map[string]any{"functionCall": map[string]any{"id": "fc-7", "name": "get_contract", "args": map[string]any{"contract_id": "c1"}}})),
		reply(candidate("STOP", text("Three distributor agreements."))),
	)
	m := newModel(t, f, nil)
	ctx := context.Background()
	msgs := []llm.Message{{Role: llm.RoleSystem, Content: "be precise"}, {Role: llm.RoleUser, Content: "how many?"}}
	r1, err := m.Generate(ctx, &llm.Request{Messages: msgs, Tools: []llm.ToolDef{searchTool}})
	if err != nil {
		t.Fatal(err)
	}
	if len(r1.Message.ToolCalls) != 2 || r1.Message.ToolCalls[0].Name != "contract_search" || r1.Message.ToolCalls[1].ID == r1.Message.ToolCalls[0].ID ||
		string(r1.Message.ToolCalls[0].Arguments) != `{"contract_type":"Distributor"}` || string(r1.Message.ToolCalls[1].Arguments) != `{"contract_id":"c1"}` {
		t.Fatalf("tool calls = %+v", r1.Message.ToolCalls)
	}
	if r1.Usage != (llm.Usage{InputTokens: 40, OutputTokens: 8}) || r1.FinishReason != "STOP" {
		t.Errorf("usage %+v finish %q", r1.Usage, r1.FinishReason)
	}
	msgs = append(msgs, r1.Message,
		llm.Message{Role: llm.RoleTool, ToolCallID: r1.Message.ToolCalls[0].ID, Name: "contract_search", Content: `{"total_count":3}`},
		llm.Message{Role: llm.RoleTool, ToolCallID: r1.Message.ToolCalls[1].ID, Content: `not json`})
	r2, err := m.Generate(ctx, &llm.Request{Messages: msgs, Tools: []llm.ToolDef{searchTool}})
	if err != nil {
		t.Fatal(err)
	}
	if r2.Message.Content != "Three distributor agreements." {
		t.Errorf("second reply %+v", r2.Message)
	}

	reqs := f.Requests()
	if reqs[0].Path != "/v1beta/models/gemini-test:generateContent" || reqs[0].Header.Get("X-Goog-Api-Key") != "g-key" {
		t.Errorf("path %q key %q", reqs[0].Path, reqs[0].Header.Get("X-Goog-Api-Key"))
	}
	first := reqs[0].Body
	if diff := cmp.Diff(map[string]any{"role": "user", "parts": []any{map[string]any{"text": "be precise"}}}, first["systemInstruction"]); diff != "" {
		t.Errorf("systemInstruction (-want +got):\n%s", diff)
	}
	wantTools := []any{map[string]any{"functionDeclarations": []any{map[string]any{
		"name": "contract_search", "description": "Find contracts.",
		"parametersJsonSchema": map[string]any{"type": "object", "properties": map[string]any{"contract_type": map[string]any{"type": "string"}}, "additionalProperties": false},
	}}}}
	if diff := cmp.Diff(wantTools, first["tools"]); diff != "" {
		t.Errorf("tools (-want +got):\n%s", diff)
	}
	wantContents := []any{
		map[string]any{"role": "user", "parts": []any{map[string]any{"text": "how many?"}}},
		map[string]any{"role": "model", "parts": []any{
			map[string]any{"functionCall": map[string]any{"name": "contract_search", "args": map[string]any{"contract_type": "Distributor"}}, "thoughtSignature": "c2lnbmF0dXJl"},
			map[string]any{"functionCall": map[string]any{"id": "fc-7", "name": "get_contract", "args": map[string]any{"contract_id": "c1"}}},
		}},
		map[string]any{"role": "user", "parts": []any{
			map[string]any{"functionResponse": map[string]any{"name": "contract_search", "response": map[string]any{"total_count": 3.0}}},
			map[string]any{"functionResponse": map[string]any{"id": "fc-7", "name": "get_contract", "response": map[string]any{"output": "not json"}}},
		}},
	}
	if diff := cmp.Diff(wantContents, reqs[1].Body["contents"]); diff != "" {
		t.Errorf("second request contents (-want +got):\n%s", diff)
	}
}

type verdict struct {
	Complete  bool     `json:"complete"`
	FollowUps []string `json:"follow_ups"`
}

// report's fields are deliberately not in alphabetical order.
type report struct {
	Summary string   `json:"summary"`
	Parties []string `json:"parties"`
}

func TestStructuredOutput(t *testing.T) {
	// GenerateData streams: the JSON reply arrives in pieces.
	f := llmtest.NewReplayServer(t, sse(
		map[string]any{"candidates": []any{map[string]any{"content": map[string]any{"role": "model", "parts": []any{text(`{"summary":"s",`)}}, "index": 0}}},
		map[string]any{"candidates": []any{map[string]any{"content": map[string]any{"role": "model", "parts": []any{text(`"parties":["Acme"]}`)}}, "finishReason": "STOP", "index": 0}},
			"usageMetadata": map[string]any{"promptTokenCount": 12, "candidatesTokenCount": 20, "totalTokenCount": 32}},
	))
	m := newModel(t, f, nil)
	temp, seed := 0.0, int64(42)
	var progress llm.Progress
	got, _, err := llm.GenerateData[report](context.Background(), m,
		&llm.Request{Messages: []llm.Message{{Role: llm.RoleUser, Content: "judge"}}, Temperature: &temp, Seed: &seed},
		llm.WithProgress(func(p llm.Progress) { progress = p }))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(report{Summary: "s", Parties: []string{"Acme"}}, got); diff != "" {
		t.Errorf("value (-want +got):\n%s", diff)
	}
	if progress.Deltas != 2 {
		t.Errorf("progress = %+v, want two pieces", progress)
	}
	req := f.Requests()[0]
	gc := req.Body["generationConfig"].(map[string]any)
	schema, _ := gc["responseJsonSchema"].(map[string]any)
	if gc["responseMimeType"] != "application/json" || schema["type"] != "object" {
		t.Errorf("generationConfig = %v", gc)
	}
	if gc["temperature"] != 0.0 || gc["seed"] != 42.0 {
		t.Errorf("temperature %v seed %v, want 0 and 42", gc["temperature"], gc["seed"])
	}
	raw := string(req.Raw)
	if i, j := strings.Index(raw, `"summary":{`), strings.Index(raw, `"parties":{`); i < 0 || i > j {
		t.Errorf("properties not in declared order:\n%s", raw)
	}
}

func TestMalformedJSONFromModel(t *testing.T) {
	f := llmtest.NewReplayServer(t, reply(candidate("MAX_TOKENS", text(`{"complete":true,"follow_`))))
	m := newModel(t, f, nil)
	resp, err := m.Generate(context.Background(), &llm.Request{Messages: []llm.Message{{Role: llm.RoleUser, Content: "judge"}}})
	if err != nil {
		t.Fatal(err)
	}
	schema, err := llm.SchemaFor[verdict]()
	if err != nil {
		t.Fatal(err)
	}
	_, err = llm.DecodeData[verdict](schema, resp.Message.Content)
	var pe *llm.ParseError
	if !errors.As(err, &pe) || pe.Raw != `{"complete":true,"follow_` || resp.FinishReason != "MAX_TOKENS" {
		t.Fatalf("err = %v, want ParseError", err)
	}
}

func TestStreaming(t *testing.T) {
	f := llmtest.NewReplayServer(t, sse(
		map[string]any{"candidates": []any{map[string]any{"content": map[string]any{"role": "model", "parts": []any{text("Checking")}}, "index": 0}}},
		map[string]any{"candidates": []any{map[string]any{"content": map[string]any{"role": "model", "parts": []any{text(" now.")}}, "index": 0}}},
		map[string]any{"candidates": []any{map[string]any{"content": map[string]any{"role": "model", "parts": []any{call("contract_search", map[string]any{"contract_type": "Distributor"})}}, "finishReason": "STOP", "index": 0}},
			"usageMetadata": map[string]any{"promptTokenCount": 12, "candidatesTokenCount": 20, "totalTokenCount": 32}},
	))
	m := newModel(t, f, nil)
	var out strings.Builder
	var deltas []llm.Delta
	resp, err := m.Stream(context.Background(), &llm.Request{Messages: []llm.Message{{Role: llm.RoleUser, Content: "q"}}, Tools: []llm.ToolDef{searchTool}},
		func(d llm.Delta) error {
			out.WriteString(d.Text)
			if d.ToolCallName != "" {
				deltas = append(deltas, d)
			}
			return nil
		})
	if err != nil {
		t.Fatal(err)
	}
	if out.String() != "Checking now." || resp.Message.Content != "Checking now." {
		t.Errorf("text %q / %q", out.String(), resp.Message.Content)
	}
	want := []llm.ToolCall{{ID: "local-call-0", Name: "contract_search", Arguments: json.RawMessage(`{"contract_type":"Distributor"}`)}}
	if diff := cmp.Diff(want, resp.Message.ToolCalls); diff != "" {
		t.Errorf("tool calls (-want +got):\n%s", diff)
	}
	if len(deltas) != 1 || deltas[0].ArgumentsPart != `{"contract_type":"Distributor"}` {
		t.Errorf("tool deltas %+v", deltas)
	}
	if resp.Usage != (llm.Usage{InputTokens: 12, OutputTokens: 20}) || resp.FinishReason != "STOP" {
		t.Errorf("usage %+v finish %q", resp.Usage, resp.FinishReason)
	}
	if r := f.Requests()[0]; r.Path != "/v1beta/models/gemini-test:streamGenerateContent" || r.Query != "alt=sse" {
		t.Errorf("stream request %s?%s", r.Path, r.Query)
	}
}

func TestRateLimitThenSuccess(t *testing.T) {
	f := llmtest.NewReplayServer(t, errorReply(429, "RESOURCE_EXHAUSTED", map[string]string{"Retry-After": "1"}), reply(candidate("STOP", text("ok"))))
	m := newModel(t, f, nil)
	start := time.Now()
	r, err := m.Generate(context.Background(), &llm.Request{Messages: []llm.Message{{Role: llm.RoleUser, Content: "q"}}})
	if err != nil || r.Message.Content != "ok" {
		t.Fatalf("reply %+v err %v", r, err)
	}
	if waited := time.Since(start); waited < time.Second {
		t.Errorf("retried after %v, want ≥ Retry-After 1s", waited)
	}
}

func TestServerErrorsExhaustRetries(t *testing.T) {
	f := llmtest.NewReplayServer(t, errorReply(500, "INTERNAL", nil), errorReply(503, "UNAVAILABLE", nil), errorReply(500, "INTERNAL", nil))
	m := newModel(t, f, nil)
	_, err := m.Generate(context.Background(), &llm.Request{Messages: []llm.Message{{Role: llm.RoleUser, Content: "q"}}})
	var ae *llm.APIError
	if !errors.Is(err, llm.ErrUnavailable) || !errors.As(err, &ae) || ae.StatusCode != 500 || len(f.Requests()) != 3 {
		t.Errorf("err = %v after %d requests", err, len(f.Requests()))
	}
}

func TestAuthNotRetried(t *testing.T) {
	f := llmtest.NewReplayServer(t, errorReply(403, "PERMISSION_DENIED", nil))
	_, err := newModel(t, f, nil).Generate(context.Background(), &llm.Request{Messages: []llm.Message{{Role: llm.RoleUser, Content: "q"}}})
	if !errors.Is(err, llm.ErrAuth) || len(f.Requests()) != 1 || !strings.Contains(err.Error(), "fake says 403") {
		t.Errorf("err = %v after %d requests", err, len(f.Requests()))
	}
}

func TestTimeout(t *testing.T) {
	f := llmtest.NewReplayServer(t, func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-time.After(5 * time.Second):
		}
	})
	m := newModel(t, f, func(c *gemini.Config) { c.Timeout = 100 * time.Millisecond })
	_, err := m.Generate(context.Background(), &llm.Request{Messages: []llm.Message{{Role: llm.RoleUser, Content: "q"}}})
	if !errors.Is(err, context.DeadlineExceeded) || !errors.Is(err, llm.ErrUnavailable) || len(f.Requests()) != 1 {
		t.Errorf("err = %v after %d requests", err, len(f.Requests()))
	}
}

func TestEmbed(t *testing.T) {
	f := llmtest.NewReplayServer(t, reply(map[string]any{"embeddings": []any{map[string]any{"values": []float64{1, 0}}, map[string]any{"values": []float64{0, 1}}}}))
	m := newModel(t, f, func(c *gemini.Config) { c.EmbeddingModel = "gemini-embedding-001" })
	vs, _, err := m.Embed(context.Background(), []string{"a", "b"})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([][]float32{{1, 0}, {0, 1}}, vs); diff != "" {
		t.Errorf("vectors (-want +got):\n%s", diff)
	}
	if r := f.Requests()[0]; !strings.Contains(r.Path, "gemini-embedding-001") {
		t.Errorf("embed request path %s", r.Path)
	}
}

func TestNewValidates(t *testing.T) {
	if _, err := gemini.New(context.Background(), gemini.Config{APIKey: "k"}); !errors.Is(err, llm.ErrNoModel) {
		t.Errorf("no model: %v", err)
	}
	if _, err := gemini.New(context.Background(), gemini.Config{Model: "m"}); !errors.Is(err, llm.ErrAuth) {
		t.Errorf("no key: %v", err)
	}
}

func TestBlockedPromptAndEmptyReply(t *testing.T) {
	f := llmtest.NewReplayServer(t,
		reply(map[string]any{"promptFeedback": map[string]any{"blockReason": "SAFETY"}}),
		reply(map[string]any{}), reply(map[string]any{}), reply(map[string]any{}),
	)
	m := newModel(t, f, nil)
	req := &llm.Request{Messages: []llm.Message{{Role: llm.RoleUser, Content: "q"}}}
	if _, err := m.Generate(context.Background(), req); !errors.Is(err, llm.ErrBadRequest) || !strings.Contains(err.Error(), "prompt blocked: SAFETY") {
		t.Errorf("blocked prompt: %v", err)
	}
	if _, err := m.Generate(context.Background(), req); !errors.Is(err, llm.ErrUnavailable) || len(f.Requests()) != 4 {
		t.Errorf("empty replies: %v after %d requests (want retried, 4 in all)", err, len(f.Requests()))
	}
}
