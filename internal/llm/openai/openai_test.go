package openai_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/contractgraph/contractgraph/internal/llm"
	"github.com/contractgraph/contractgraph/internal/llm/llmtest"
	"github.com/contractgraph/contractgraph/internal/llm/openai"
	"github.com/google/go-cmp/cmp"
)

func jsonReply(v any) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(v)
	}
}

func completion(msg map[string]any, finish string) http.HandlerFunc {
	return jsonReply(map[string]any{
		"id": "chatcmpl-1", "object": "chat.completion", "created": 1, "model": "m",
		"choices": []any{map[string]any{"index": 0, "message": msg, "finish_reason": finish}},
		"usage":   map[string]any{"prompt_tokens": 42, "completion_tokens": 7, "total_tokens": 49},
	})
}

func textReply(text string) http.HandlerFunc {
	return completion(map[string]any{"role": "assistant", "content": text}, "stop")
}

func errorReply(code int, header map[string]string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		for k, v := range header {
			w.Header().Set(k, v)
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(code)
		fmt.Fprintf(w, `{"error":{"message":"status %d from fake","type":"x","param":null,"code":null}}`, code)
	}
}

func sse(chunks ...string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		for _, c := range chunks {
			fmt.Fprintf(w, "data: %s\n\n", c)
			w.(http.Flusher).Flush()
		}
		fmt.Fprint(w, "data: [DONE]\n\n")
	}
}

func newModel(t *testing.T, f *llmtest.ReplayServer, mod func(*openai.Config)) *openai.Model {
	cfg := openai.Config{Model: "gpt-test", APIKey: "sk-test", BaseURL: f.URL + "/v1",
		Retry: llm.Retry{MaxAttempts: 3, BaseDelay: time.Millisecond, MaxDelay: 5 * time.Millisecond}}
	if mod != nil {
		mod(&cfg)
	}
	m, err := openai.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

var searchTool = llm.ToolDef{
	Name:        "contract_search",
	Description: "Find contracts.",
	InputSchema: json.RawMessage(`{"type":"object","properties":{"contract_type":{"type":"string"}},"additionalProperties":false}`),
}

func TestToolCallRoundTrip(t *testing.T) {
	f := llmtest.NewReplayServer(t,
		completion(map[string]any{"role": "assistant", "content": nil, "tool_calls": []any{
			map[string]any{"id": "call_a", "type": "function", "function": map[string]any{"name": "contract_search", "arguments": `{"contract_type":"Distributor"}`}},
			map[string]any{"id": "call_b", "type": "function", "function": map[string]any{"name": "get_contract", "arguments": `{"contract_id":"c1"}`}},
		}}, "tool_calls"),
		textReply("There are 3 distributor agreements."),
	)
	m := newModel(t, f, nil)
	ctx := context.Background()
	msgs := []llm.Message{{Role: llm.RoleSystem, Content: "be precise"}, {Role: llm.RoleUser, Content: "how many?"}}
	temp, seed := 0.0, int64(7)
	r1, err := m.Generate(ctx, &llm.Request{Messages: msgs, Tools: []llm.ToolDef{searchTool}, Temperature: &temp, Seed: &seed, MaxTokens: 100})
	if err != nil {
		t.Fatal(err)
	}
	want := []llm.ToolCall{
		{ID: "call_a", Name: "contract_search", Arguments: json.RawMessage(`{"contract_type":"Distributor"}`)},
		{ID: "call_b", Name: "get_contract", Arguments: json.RawMessage(`{"contract_id":"c1"}`)},
	}
	if diff := cmp.Diff(want, r1.Message.ToolCalls); diff != "" {
		t.Errorf("tool calls (-want +got):\n%s", diff)
	}
	if r1.Usage != (llm.Usage{InputTokens: 42, OutputTokens: 7}) || r1.FinishReason != "tool_calls" {
		t.Errorf("usage %+v finish %q", r1.Usage, r1.FinishReason)
	}
	msgs = append(msgs, r1.Message,
		llm.Message{Role: llm.RoleTool, ToolCallID: "call_a", Name: "contract_search", Content: `{"total_count":3}`},
		llm.Message{Role: llm.RoleTool, ToolCallID: "call_b", Name: "get_contract", Content: `{"error":"not found"}`})
	r2, err := m.Generate(ctx, &llm.Request{Messages: msgs, Tools: []llm.ToolDef{searchTool}})
	if err != nil {
		t.Fatal(err)
	}
	if r2.Message.Content != "There are 3 distributor agreements." || len(r2.Message.ToolCalls) != 0 {
		t.Errorf("second reply = %+v", r2.Message)
	}

	reqs := f.Requests()
	if reqs[0].Path != "/v1/chat/completions" || reqs[0].Header.Get("Authorization") != "Bearer sk-test" {
		t.Errorf("path %q auth %q", reqs[0].Path, reqs[0].Header.Get("Authorization"))
	}
	first := reqs[0].Body
	wantTools := []any{map[string]any{"type": "function", "function": map[string]any{
		"name": "contract_search", "description": "Find contracts.",
		"parameters": map[string]any{"type": "object", "properties": map[string]any{"contract_type": map[string]any{"type": "string"}}, "additionalProperties": false},
	}}}
	if diff := cmp.Diff(wantTools, first["tools"]); diff != "" {
		t.Errorf("tools sent (-want +got):\n%s", diff)
	}
	if first["model"] != "gpt-test" || first["temperature"] != 0.0 || first["seed"] != 7.0 || first["max_completion_tokens"] != 100.0 {
		t.Errorf("model/temperature/seed/max tokens = %v %v %v %v", first["model"], first["temperature"], first["seed"], first["max_completion_tokens"])
	}
	// Unset, they are not sent, so the server's own defaults apply.
	for _, k := range []string{"temperature", "seed", "max_completion_tokens"} {
		if v, ok := reqs[1].Body[k]; ok {
			t.Errorf("second request sent %s = %v though the request did not set it", k, v)
		}
	}
	wantMsgs := []any{
		map[string]any{"role": "system", "content": "be precise"},
		map[string]any{"role": "user", "content": "how many?"},
		map[string]any{"role": "assistant", "tool_calls": []any{
			map[string]any{"id": "call_a", "type": "function", "function": map[string]any{"name": "contract_search", "arguments": `{"contract_type":"Distributor"}`}},
			map[string]any{"id": "call_b", "type": "function", "function": map[string]any{"name": "get_contract", "arguments": `{"contract_id":"c1"}`}},
		}},
		map[string]any{"role": "tool", "tool_call_id": "call_a", "content": `{"total_count":3}`},
		map[string]any{"role": "tool", "tool_call_id": "call_b", "content": `{"error":"not found"}`},
	}
	if diff := cmp.Diff(wantMsgs, reqs[1].Body["messages"]); diff != "" {
		t.Errorf("second request messages (-want +got):\n%s", diff)
	}
}

type summary struct {
	Count int    `json:"count"`
	Type  string `json:"type"`
}

// streamChunk is one chat.completion.chunk with a delta.
func streamChunk(delta string, finish string) string {
	fr := "null"
	if finish != "" {
		fr = `"` + finish + `"`
	}
	return `{"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":` + delta + `,"finish_reason":` + fr + `}]}`
}

// report's fields are deliberately not in alphabetical order.
type report struct {
	Summary string   `json:"summary"`
	Parties []string `json:"parties"`
	Clauses []string `json:"clauses"`
}

func TestStructuredOutput(t *testing.T) {
	// GenerateData streams from a Streamer: the reply arrives in pieces.
	f := llmtest.NewReplayServer(t, sse(
		streamChunk(`{"role":"assistant","content":"{\"summary\":\"s\",\"parties\":[\"Acme\"],"}`, ""),
		streamChunk(`{"content":"\"clauses\":[]}"}`, "stop"),
	))
	m := newModel(t, f, nil)
	temp, seed := 0.0, int64(42)
	var progress llm.Progress
	got, resp, err := llm.GenerateData[report](context.Background(), m,
		&llm.Request{Messages: []llm.Message{{Role: llm.RoleUser, Content: "x"}}, Temperature: &temp, Seed: &seed},
		llm.WithProgress(func(p llm.Progress) { progress = p }))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(report{Summary: "s", Parties: []string{"Acme"}, Clauses: []string{}}, got); diff != "" {
		t.Errorf("value (-want +got):\n%s", diff)
	}
	if progress.Deltas != 2 || progress.Bytes != len(resp.Message.Content) || resp.FinishReason != "stop" {
		t.Errorf("progress %+v for %d bytes, finish %q", progress, len(resp.Message.Content), resp.FinishReason)
	}
	req := f.Requests()[0]
	body := req.Body
	rf := body["response_format"].(map[string]any)
	js := rf["json_schema"].(map[string]any)
	schema := js["schema"].(map[string]any)
	if rf["type"] != "json_schema" || js["name"] != "report" || schema["type"] != "object" || body["stream"] != true {
		t.Errorf("response_format = %v, stream %v", rf, body["stream"])
	}
	if body["temperature"] != 0.0 || body["seed"] != 42.0 {
		t.Errorf("temperature %v seed %v, want 0 and 42", body["temperature"], body["seed"])
	}
	if diff := cmp.Diff([]any{"summary", "parties", "clauses"}, schema["required"]); diff != "" {
		t.Errorf("schema required (-want +got):\n%s", diff)
	}
	// The properties go out in the struct's order, not sorted: models write
	// their reply in the order the schema lists them.
	raw := string(req.Raw)
	if i, j, k := strings.Index(raw, `"summary":{`), strings.Index(raw, `"parties":{`), strings.Index(raw, `"clauses":{`); i < 0 || !(i < j && j < k) {
		t.Errorf("properties not in declared order (summary %d, parties %d, clauses %d):\n%s", i, j, k, raw)
	}
}

func TestMalformedJSONFromModel(t *testing.T) {
	f := llmtest.NewReplayServer(t, textReply(`{"count": three}`))
	m := newModel(t, f, nil)
	resp, err := m.Generate(context.Background(), &llm.Request{Messages: []llm.Message{{Role: llm.RoleUser, Content: "x"}}})
	if err != nil {
		t.Fatal(err)
	}
	schema, err := llm.SchemaFor[summary]()
	if err != nil {
		t.Fatal(err)
	}
	_, err = llm.DecodeData[summary](schema, resp.Message.Content)
	var pe *llm.ParseError
	if !errors.As(err, &pe) || pe.Raw != `{"count": three}` {
		t.Fatalf("err = %v, want ParseError with the raw reply", err)
	}
}

func TestTimeoutsByCallKind(t *testing.T) {
	slow := func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
			return
		case <-time.After(150 * time.Millisecond):
		}
		textReply(`{"count":1,"type":"x"}`)(w, r)
	}
	f := llmtest.NewReplayServer(t, slow, slow)
	m := newModel(t, f, func(c *openai.Config) {
		c.Timeout = 5 * time.Second
		c.Timeouts = llm.Timeouts{Structured: 50 * time.Millisecond}
	})
	// A chat call takes the provider's 5s bound and is answered.
	if _, err := m.Generate(context.Background(), &llm.Request{Messages: []llm.Message{{Role: llm.RoleUser, Content: "q"}}}); err != nil {
		t.Fatalf("chat call: %v", err)
	}
	// A structured call has its own, shorter bound here.
	_, err := m.Generate(context.Background(), &llm.Request{Messages: []llm.Message{{Role: llm.RoleUser, Content: "q"}},
		ResponseFormat: &llm.ResponseFormat{Name: "summary", Schema: json.RawMessage(`{"type":"object"}`)}})
	var ae *llm.APIError
	if !errors.As(err, &ae) || ae.Timeout != 50*time.Millisecond {
		t.Errorf("structured call: err = %v, want the 50ms structured timeout", err)
	}
}

func TestStreaming(t *testing.T) {
	chunk := streamChunk
	f := llmtest.NewReplayServer(t,
		sse(
			chunk(`{"role":"assistant","content":"Looking"}`, ""),
			chunk(`{"content":" it up."}`, ""),
			chunk(`{"tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"contract_search","arguments":""}}]}`, ""),
			chunk(`{"tool_calls":[{"index":0,"function":{"arguments":"{\"contract_"}}]}`, ""),
			chunk(`{"tool_calls":[{"index":1,"id":"call_2","type":"function","function":{"name":"party_search","arguments":"{\"name\":"}}]}`, ""),
			chunk(`{"tool_calls":[{"index":0,"function":{"arguments":"type\":\"Distributor\"}"}}]}`, ""),
			chunk(`{"tool_calls":[{"index":1,"function":{"arguments":"\"Acme\"}"}}]}`, ""),
			chunk(`{}`, "tool_calls"),
			`{"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[],"usage":{"prompt_tokens":11,"completion_tokens":22,"total_tokens":33}}`,
		),
	)
	m := newModel(t, f, nil)
	var text strings.Builder
	var names []string
	resp, err := m.Stream(context.Background(), &llm.Request{Messages: []llm.Message{{Role: llm.RoleUser, Content: "q"}}, Tools: []llm.ToolDef{searchTool}},
		func(d llm.Delta) error {
			text.WriteString(d.Text)
			if d.ToolCallName != "" {
				names = append(names, d.ToolCallName)
			}
			return nil
		})
	if err != nil {
		t.Fatal(err)
	}
	if text.String() != "Looking it up." || resp.Message.Content != "Looking it up." {
		t.Errorf("streamed %q, content %q", text.String(), resp.Message.Content)
	}
	want := []llm.ToolCall{
		{ID: "call_1", Name: "contract_search", Arguments: json.RawMessage(`{"contract_type":"Distributor"}`)},
		{ID: "call_2", Name: "party_search", Arguments: json.RawMessage(`{"name":"Acme"}`)},
	}
	if diff := cmp.Diff(want, resp.Message.ToolCalls); diff != "" {
		t.Errorf("assembled tool calls (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"contract_search", "party_search"}, names); diff != "" {
		t.Errorf("tool names announced (-want +got):\n%s", diff)
	}
	if resp.Usage != (llm.Usage{InputTokens: 11, OutputTokens: 22}) || resp.FinishReason != "tool_calls" {
		t.Errorf("usage %+v finish %q", resp.Usage, resp.FinishReason)
	}
	body := f.Requests()[0].Body
	if body["stream"] != true || body["stream_options"].(map[string]any)["include_usage"] != true {
		t.Errorf("stream flags = %v %v", body["stream"], body["stream_options"])
	}
}

func TestStreamCallbackErrorStops(t *testing.T) {
	f := llmtest.NewReplayServer(t, sse(`{"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":"a"},"finish_reason":null}]}`))
	m := newModel(t, f, nil)
	stop := errors.New("client went away")
	_, err := m.Stream(context.Background(), &llm.Request{}, func(llm.Delta) error { return stop })
	if !errors.Is(err, stop) || len(f.Requests()) != 1 {
		t.Errorf("err = %v after %d requests; want the callback's error, no retry", err, len(f.Requests()))
	}
}

func TestRateLimitThenSuccess(t *testing.T) {
	f := llmtest.NewReplayServer(t, errorReply(429, map[string]string{"Retry-After": "1"}), textReply("ok"))
	m := newModel(t, f, nil)
	start := time.Now()
	r, err := m.Generate(context.Background(), &llm.Request{Messages: []llm.Message{{Role: llm.RoleUser, Content: "q"}}})
	if err != nil {
		t.Fatal(err)
	}
	if r.Message.Content != "ok" || len(f.Requests()) != 2 {
		t.Errorf("reply %q after %d requests", r.Message.Content, len(f.Requests()))
	}
	if waited := time.Since(start); waited < time.Second {
		t.Errorf("retried after %v, want ≥ the server's Retry-After of 1s", waited)
	}
}

func TestStreamRateLimitThenSuccess(t *testing.T) {
	f := llmtest.NewReplayServer(t, errorReply(429, map[string]string{"Retry-After-Ms": "50"}),
		sse(`{"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":"fine"},"finish_reason":"stop"}]}`))
	m := newModel(t, f, nil)
	r, err := m.Stream(context.Background(), &llm.Request{}, func(llm.Delta) error { return nil })
	if err != nil || r.Message.Content != "fine" {
		t.Fatalf("reply %+v, err %v", r, err)
	}
}

func TestServerErrorsExhaustRetries(t *testing.T) {
	f := llmtest.NewReplayServer(t, errorReply(500, nil), errorReply(502, nil), errorReply(503, nil))
	m := newModel(t, f, nil)
	_, err := m.Generate(context.Background(), &llm.Request{})
	if !errors.Is(err, llm.ErrUnavailable) {
		t.Fatalf("err = %v, want ErrUnavailable", err)
	}
	var ae *llm.APIError
	if !errors.As(err, &ae) || ae.StatusCode != 503 || !strings.Contains(err.Error(), "after 3 attempts") {
		t.Errorf("err = %v, want the last status and the attempt count", err)
	}
	if n := len(f.Requests()); n != 3 {
		t.Errorf("%d requests, want 3", n)
	}
}

func TestAuthErrorNotRetried(t *testing.T) {
	f := llmtest.NewReplayServer(t, errorReply(401, nil))
	m := newModel(t, f, nil)
	_, err := m.Generate(context.Background(), &llm.Request{})
	if !errors.Is(err, llm.ErrAuth) || len(f.Requests()) != 1 || !strings.Contains(err.Error(), "status 401 from fake") {
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
	m := newModel(t, f, func(c *openai.Config) { c.Timeout = 100 * time.Millisecond })
	start := time.Now()
	_, err := m.Generate(context.Background(), &llm.Request{})
	if !errors.Is(err, llm.ErrUnavailable) || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v, want a timeout", err)
	}
	if el := time.Since(start); el > 2*time.Second {
		t.Errorf("took %v, want about the 100ms timeout", el)
	}
	if n := len(f.Requests()); n != 1 {
		t.Errorf("%d requests, want 1 (timeouts are not retried)", n)
	}
}

func TestContextCancel(t *testing.T) {
	f := llmtest.NewReplayServer(t, func(w http.ResponseWriter, r *http.Request) { <-r.Context().Done() })
	m := newModel(t, f, nil)
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(50*time.Millisecond, cancel)
	_, err := m.Generate(ctx, &llm.Request{})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want context.Canceled", err)
	}
}

func TestUnreachable(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	url := srv.URL
	srv.Close()
	m, err := openai.New(openai.Config{Model: "x", BaseURL: url + "/v1", Retry: llm.Retry{MaxAttempts: 2, BaseDelay: time.Millisecond}})
	if err != nil {
		t.Fatal(err)
	}
	_, err = m.Generate(context.Background(), &llm.Request{})
	if !errors.Is(err, llm.ErrUnavailable) {
		t.Errorf("err = %v, want ErrUnavailable", err)
	}
}

func TestEmbed(t *testing.T) {
	f := llmtest.NewReplayServer(t, jsonReply(map[string]any{
		"object": "list", "model": "emb",
		"data": []any{
			map[string]any{"object": "embedding", "index": 1, "embedding": []float64{0, 1}},
			map[string]any{"object": "embedding", "index": 0, "embedding": []float64{1, 0.5}},
		},
		"usage": map[string]any{"prompt_tokens": 6, "total_tokens": 6},
	}))
	m := newModel(t, f, func(c *openai.Config) { c.EmbeddingModel = "text-embedding-3-small" })
	vs, usage, err := m.Embed(context.Background(), []string{"first", "second"})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([][]float32{{1, 0.5}, {0, 1}}, vs); diff != "" {
		t.Errorf("vectors (-want +got):\n%s", diff)
	}
	body := f.Requests()[0].Body
	if usage.InputTokens != 6 || body["model"] != "text-embedding-3-small" || f.Requests()[0].Path != "/v1/embeddings" {
		t.Errorf("usage %+v body %v", usage, body)
	}
	if diff := cmp.Diff([]any{"first", "second"}, body["input"]); diff != "" {
		t.Errorf("input (-want +got):\n%s", diff)
	}
}

func TestAzure(t *testing.T) {
	f := llmtest.NewReplayServer(t, textReply("from azure"))
	m, err := openai.New(openai.Config{Name: "azure", Model: "my-deploy", APIKey: "az-key",
		AzureEndpoint: f.URL, AzureAPIVersion: "2024-10-21"})
	if err != nil {
		t.Fatal(err)
	}
	r, err := m.Generate(context.Background(), &llm.Request{Messages: []llm.Message{{Role: llm.RoleUser, Content: "q"}}})
	if err != nil {
		t.Fatal(err)
	}
	req := f.Requests()[0]
	if r.Message.Content != "from azure" || req.Path != "/openai/deployments/my-deploy/chat/completions" ||
		req.Query != "api-version=2024-10-21" || req.Header.Get("Api-Key") != "az-key" || req.Header.Get("Authorization") != "" {
		t.Errorf("azure request path %q query %q headers %v", req.Path, req.Query, req.Header)
	}
}

func TestNewValidates(t *testing.T) {
	tests := []struct {
		cfg  openai.Config
		want error
	}{
		{openai.Config{}, llm.ErrNoModel},
		{openai.Config{Model: "gpt-4o"}, llm.ErrAuth},
		{openai.Config{Model: "d", AzureEndpoint: "https://x.openai.azure.com"}, llm.ErrAuth},
		{openai.Config{Model: "d", APIKey: "k", AzureEndpoint: "https://x.openai.azure.com"}, llm.ErrBadRequest},
	}
	for _, tt := range tests {
		if _, err := openai.New(tt.cfg); !errors.Is(err, tt.want) {
			t.Errorf("New(%+v) err = %v, want %v", tt.cfg, err, tt.want)
		}
	}
	if _, err := openai.New(openai.Config{Model: "qwen2.5:7b", BaseURL: "http://localhost:11434/v1"}); err != nil {
		t.Errorf("a local server needs no key: %v", err)
	}
}

func TestStreamingToolCallsWithoutDistinctIndexes(t *testing.T) {
	// Some servers (older llama.cpp, some proxies) send every complete call
	// with index 0; distinct ids must still make distinct calls.
	f := llmtest.NewReplayServer(t, sse(
		`{"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"a","type":"function","function":{"name":"get_contract","arguments":"{\"contract_id\":\"c1\"}"}}]},"finish_reason":null}]}`,
		`{"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"b","type":"function","function":{"name":"get_contract","arguments":"{\"contract_id\":\"c2\"}"}}]},"finish_reason":"tool_calls"}]}`,
	))
	resp, err := newModel(t, f, nil).Stream(context.Background(), &llm.Request{}, func(llm.Delta) error { return nil })
	if err != nil {
		t.Fatal(err)
	}
	want := []llm.ToolCall{
		{ID: "a", Name: "get_contract", Arguments: json.RawMessage(`{"contract_id":"c1"}`)},
		{ID: "b", Name: "get_contract", Arguments: json.RawMessage(`{"contract_id":"c2"}`)},
	}
	if diff := cmp.Diff(want, resp.Message.ToolCalls); diff != "" {
		t.Errorf("tool calls (-want +got):\n%s", diff)
	}
}

func TestStreamInterruptedIsNotRetried(t *testing.T) {
	broken := func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprint(w, `data: {"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":"partial "},"finish_reason":null}]}`+"\n\n")
		w.(http.Flusher).Flush()
		panic(http.ErrAbortHandler) // drop the connection mid-stream
	}
	f := llmtest.NewReplayServer(t, broken, textReply("must not be requested"))
	var got strings.Builder
	_, err := newModel(t, f, nil).Stream(context.Background(), &llm.Request{}, func(d llm.Delta) error {
		got.WriteString(d.Text)
		return nil
	})
	if err == nil || !strings.Contains(err.Error(), "stream interrupted") {
		t.Fatalf("err = %v, want an interrupted stream", err)
	}
	if got.String() != "partial " || len(f.Requests()) != 1 {
		t.Errorf("received %q over %d requests; a stream that already delivered text must not be replayed", got.String(), len(f.Requests()))
	}
}

func TestStreamTimeoutIsPerPiece(t *testing.T) {
	chunk := func(text string) string {
		return `{"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":"` + text + `"},"finish_reason":null}]}`
	}
	slow := func(pause time.Duration, n int) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/event-stream")
			for i := range n {
				fmt.Fprintf(w, "data: %s\n\n", chunk(fmt.Sprint(i)))
				w.(http.Flusher).Flush()
				select {
				case <-time.After(pause):
				case <-r.Context().Done():
					return
				}
			}
			fmt.Fprint(w, "data: [DONE]\n\n")
		}
	}
	// 8 pieces 40ms apart take longer than the 150ms timeout in all, but
	// none waits longer than it.
	f := llmtest.NewReplayServer(t, slow(40*time.Millisecond, 8), slow(time.Second, 2))
	m := newModel(t, f, func(c *openai.Config) { c.Timeout = 150 * time.Millisecond })
	resp, err := m.Stream(context.Background(), &llm.Request{}, func(llm.Delta) error { return nil })
	if err != nil || resp.Message.Content != "01234567" {
		t.Fatalf("steady stream: %+v, %v", resp, err)
	}
	_, err = m.Stream(context.Background(), &llm.Request{}, func(llm.Delta) error { return nil })
	if !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "no data within 150ms") {
		t.Errorf("stalled stream: %v", err)
	}
}

// TestHTMLReply: a web page where the API should answer (a sign-in page, a
// web server at the wrong URL) is reported as such, not as an unreachable
// server, and is not retried unless it is a gateway's error page.
func TestHTMLReply(t *testing.T) {
	page := func(code int) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			w.WriteHeader(code)
			fmt.Fprint(w, "<!DOCTYPE html><html><head><title>\n  Sign in – Example  </title></head><body>Welcome</body></html>")
		}
	}
	for _, tt := range []struct {
		code     int
		kind     error
		requests int
	}{{200, llm.ErrBadRequest, 1}, {404, llm.ErrBadRequest, 1}, {502, llm.ErrUnavailable, 3}} {
		handlers := []http.HandlerFunc{}
		for range tt.requests {
			handlers = append(handlers, page(tt.code))
		}
		f := llmtest.NewReplayServer(t, handlers...)
		m := newModel(t, f, nil)
		_, err := m.Generate(context.Background(), &llm.Request{})
		want := fmt.Sprintf(`the server answered HTTP %d with a web page ("Sign in – Example"), not an OpenAI API reply`, tt.code)
		var ae *llm.APIError
		if !errors.Is(err, llm.ErrNotAPI) || !errors.Is(err, tt.kind) || !errors.As(err, &ae) || ae.StatusCode != tt.code || !strings.Contains(err.Error(), want) {
			t.Errorf("HTTP %d web page: %v", tt.code, err)
		}
		if n := len(f.Requests()); n != tt.requests {
			t.Errorf("HTTP %d web page: %d requests, want %d", tt.code, n, tt.requests)
		}
	}
	f := llmtest.NewReplayServer(t, page(200))
	_, err := newModel(t, f, nil).Stream(context.Background(), &llm.Request{}, func(llm.Delta) error { return nil })
	if !errors.Is(err, llm.ErrNotAPI) {
		t.Errorf("streamed request answered by a web page: %v", err)
	}
}

// llamaToolParseError is llama.cpp's server's reply when the model wrote a
// tool call whose arguments are not JSON.
func llamaToolParseError(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(500)
	fmt.Fprint(w, `{"error":{"code":500,"message":"Failed to parse tool call arguments as JSON: [json.exception.parse_error.101] parse error at line 1, column 32: syntax error","type":"server_error"}}`)
}

func TestToolCallParseFailureRetriesRaw(t *testing.T) {
	const raw = "<tool_call>\n{\"name\": \"contract_search\", \"arguments\": {\"contract_type\": \"Distributor\",}}\n</tool_call>"
	req := &llm.Request{Messages: []llm.Message{{Role: llm.RoleUser, Content: "q"}}, Tools: []llm.ToolDef{searchTool}}
	check := func(t *testing.T, f *llmtest.ReplayServer, content string) {
		t.Helper()
		if content != raw {
			t.Errorf("content %q, want the model's raw text %q", content, raw)
		}
		reqs := f.Requests()
		if len(reqs) != 2 {
			t.Fatalf("%d requests, want 2", len(reqs))
		}
		if _, ok := reqs[0].Body["parse_tool_calls"]; ok {
			t.Errorf("first request sent parse_tool_calls: %v", reqs[0].Body)
		}
		if v, ok := reqs[1].Body["parse_tool_calls"]; !ok || v != false {
			t.Errorf("retry parse_tool_calls = %v (present %v), want false", v, ok)
		}
	}
	t.Run("generate", func(t *testing.T) {
		f := llmtest.NewReplayServer(t, llamaToolParseError, textReply(raw))
		r, err := newModel(t, f, nil).Generate(context.Background(), req)
		if err != nil {
			t.Fatal(err)
		}
		check(t, f, r.Message.Content)
	})
	t.Run("stream", func(t *testing.T) {
		body, _ := json.Marshal(raw)
		f := llmtest.NewReplayServer(t, llamaToolParseError,
			sse(`{"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":`+string(body)+`},"finish_reason":"stop"}]}`))
		r, err := newModel(t, f, nil).Stream(context.Background(), req, func(llm.Delta) error { return nil })
		if err != nil {
			t.Fatal(err)
		}
		check(t, f, r.Message.Content)
	})
	t.Run("other server errors keep parsing", func(t *testing.T) {
		f := llmtest.NewReplayServer(t, errorReply(500, nil), textReply("ok"))
		if _, err := newModel(t, f, nil).Generate(context.Background(), req); err != nil {
			t.Fatal(err)
		}
		if _, ok := f.Requests()[1].Body["parse_tool_calls"]; ok {
			t.Errorf("a plain 500's retry sent parse_tool_calls")
		}
	})
	t.Run("no tools offered", func(t *testing.T) {
		f := llmtest.NewReplayServer(t, llamaToolParseError, textReply("ok"))
		if _, err := newModel(t, f, nil).Generate(context.Background(), &llm.Request{Messages: req.Messages}); err != nil {
			t.Fatal(err)
		}
		if _, ok := f.Requests()[1].Body["parse_tool_calls"]; ok {
			t.Errorf("a request without tools sent parse_tool_calls on retry")
		}
	})
}
