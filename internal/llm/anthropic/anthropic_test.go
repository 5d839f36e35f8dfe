package anthropic_test

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
	"github.com/contractgraph/contractgraph/internal/llm/anthropic"
	"github.com/contractgraph/contractgraph/internal/llm/llmtest"
)

func message(stop string, content ...any) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{
			"id": "msg_1", "type": "message", "role": "assistant", "model": "claude-test",
			"content": content, "stop_reason": stop, "stop_sequence": nil,
			"usage": map[string]any{"input_tokens": 30, "output_tokens": 9},
		})
	}
}

func text(s string) map[string]any { return map[string]any{"type": "text", "text": s} }

func toolUse(id, name string, input any) map[string]any {
	return map[string]any{"type": "tool_use", "id": id, "name": name, "input": input}
}

func errorReply(code int, typ string, header map[string]string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		for k, v := range header {
			w.Header().Set(k, v)
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(code)
		fmt.Fprintf(w, `{"type":"error","error":{"type":%q,"message":"fake says %d"}}`, typ, code)
	}
}

func sse(events ...[2]string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		for _, e := range events {
			fmt.Fprintf(w, "event: %s\ndata: %s\n\n", e[0], e[1])
			w.(http.Flusher).Flush()
		}
	}
}

func newModel(t *testing.T, f *llmtest.ReplayServer, mod func(*anthropic.Config)) *anthropic.Model {
	cfg := anthropic.Config{Model: "claude-test", APIKey: "ak-test", BaseURL: f.URL,
		Retry: llm.Retry{MaxAttempts: 3, BaseDelay: time.Millisecond, MaxDelay: 5 * time.Millisecond}}
	if mod != nil {
		mod(&cfg)
	}
	m, err := anthropic.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

var searchTool = llm.ToolDef{Name: "contract_search", Description: "Find contracts.",
	InputSchema: json.RawMessage(`{"type":"object","properties":{"contract_type":{"type":"string"}},"required":["contract_type"],"additionalProperties":false}`)}

func TestToolCallRoundTrip(t *testing.T) {
	f := llmtest.NewReplayServer(t,
		message("tool_use", text("Let me look."),
			toolUse("toolu_a", "contract_search", map[string]any{"contract_type": "Distributor"}),
			toolUse("toolu_b", "get_contract", map[string]any{"contract_id": "c1"})),
		message("end_turn", text("Three distributor agreements.")),
	)
	m := newModel(t, f, nil)
	ctx := context.Background()
	msgs := []llm.Message{{Role: llm.RoleSystem, Content: "be precise"}, {Role: llm.RoleUser, Content: "how many?"}}
	r1, err := m.Generate(ctx, &llm.Request{Messages: msgs, Tools: []llm.ToolDef{searchTool}})
	if err != nil {
		t.Fatal(err)
	}
	want := []llm.ToolCall{
		{ID: "toolu_a", Name: "contract_search", Arguments: json.RawMessage(`{"contract_type":"Distributor"}`)},
		{ID: "toolu_b", Name: "get_contract", Arguments: json.RawMessage(`{"contract_id":"c1"}`)},
	}
	if diff := cmp.Diff(want, r1.Message.ToolCalls); diff != "" {
		t.Errorf("tool calls (-want +got):\n%s", diff)
	}
	if r1.Message.Content != "Let me look." || r1.Usage != (llm.Usage{InputTokens: 30, OutputTokens: 9}) || r1.FinishReason != "tool_use" {
		t.Errorf("reply %+v", r1)
	}
	msgs = append(msgs, r1.Message,
		llm.Message{Role: llm.RoleTool, ToolCallID: "toolu_a", Content: `{"total_count":3}`},
		llm.Message{Role: llm.RoleTool, ToolCallID: "toolu_b", Content: `{"error":"not found"}`})
	r2, err := m.Generate(ctx, &llm.Request{Messages: msgs, Tools: []llm.ToolDef{searchTool}})
	if err != nil {
		t.Fatal(err)
	}
	if r2.Message.Content != "Three distributor agreements." {
		t.Errorf("second reply %+v", r2.Message)
	}

	reqs := f.Requests()
	first := reqs[0]
	if first.Path != "/v1/messages" || first.Header.Get("X-Api-Key") != "ak-test" || first.Header.Get("Anthropic-Version") == "" {
		t.Errorf("path %q headers %v", first.Path, first.Header)
	}
	wantSystem := []any{map[string]any{"type": "text", "text": "be precise"}}
	if diff := cmp.Diff(wantSystem, first.Body["system"]); diff != "" {
		t.Errorf("system (-want +got):\n%s", diff)
	}
	wantTools := []any{map[string]any{"name": "contract_search", "description": "Find contracts.", "input_schema": map[string]any{
		"type": "object", "properties": map[string]any{"contract_type": map[string]any{"type": "string"}},
		"required": []any{"contract_type"}, "additionalProperties": false}}}
	if diff := cmp.Diff(wantTools, first.Body["tools"]); diff != "" {
		t.Errorf("tools (-want +got):\n%s", diff)
	}
	if first.Body["max_tokens"] != float64(anthropic.DefaultMaxTokens) || first.Body["model"] != "claude-test" {
		t.Errorf("max_tokens %v model %v", first.Body["max_tokens"], first.Body["model"])
	}
	wantMsgs := []any{
		map[string]any{"role": "user", "content": []any{map[string]any{"type": "text", "text": "how many?"}}},
		map[string]any{"role": "assistant", "content": []any{
			map[string]any{"type": "text", "text": "Let me look."},
			map[string]any{"type": "tool_use", "id": "toolu_a", "name": "contract_search", "input": map[string]any{"contract_type": "Distributor"}},
			map[string]any{"type": "tool_use", "id": "toolu_b", "name": "get_contract", "input": map[string]any{"contract_id": "c1"}},
		}},
		map[string]any{"role": "user", "content": []any{
			map[string]any{"type": "tool_result", "tool_use_id": "toolu_a", "is_error": false, "content": []any{map[string]any{"type": "text", "text": `{"total_count":3}`}}},
			map[string]any{"type": "tool_result", "tool_use_id": "toolu_b", "is_error": true, "content": []any{map[string]any{"type": "text", "text": `{"error":"not found"}`}}},
		}},
	}
	if diff := cmp.Diff(wantMsgs, reqs[1].Body["messages"]); diff != "" {
		t.Errorf("second request messages (-want +got):\n%s", diff)
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

func TestStructuredOutputForcedTool(t *testing.T) {
	// GenerateData streams: the forced tool's input arrives as JSON pieces
	// and is reported as the reply's text.
	f := llmtest.NewReplayServer(t, sse(
		[2]string{"message_start", `{"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","model":"claude-test","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":25,"output_tokens":1}}}`},
		[2]string{"content_block_start", `{"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"toolu_1","name":"report","input":{}}}`},
		[2]string{"content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"{\"summary\":\"s\","}}`},
		[2]string{"content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"\"parties\":[\"Acme\"]}"}}`},
		[2]string{"content_block_stop", `{"type":"content_block_stop","index":0}`},
		[2]string{"message_delta", `{"type":"message_delta","delta":{"stop_reason":"tool_use","stop_sequence":null},"usage":{"output_tokens":17}}`},
		[2]string{"message_stop", `{"type":"message_stop"}`},
	))
	m := newModel(t, f, nil)
	temp, seed := 0.0, int64(9)
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
		t.Errorf("progress = %+v, want the two JSON pieces", progress)
	}
	req := f.Requests()[0]
	body := req.Body
	if diff := cmp.Diff(map[string]any{"type": "tool", "name": "report"}, body["tool_choice"]); diff != "" {
		t.Errorf("tool_choice (-want +got):\n%s", diff)
	}
	tools := body["tools"].([]any)
	if len(tools) != 1 || tools[0].(map[string]any)["name"] != "report" {
		t.Errorf("tools = %v", tools)
	}
	schema := tools[0].(map[string]any)["input_schema"].(map[string]any)
	if diff := cmp.Diff([]any{"summary", "parties"}, schema["required"]); diff != "" {
		t.Errorf("required (-want +got):\n%s", diff)
	}
	if body["temperature"] != 0.0 || body["stream"] != true {
		t.Errorf("temperature %v stream %v", body["temperature"], body["stream"])
	}
	if _, ok := body["seed"]; ok {
		t.Error("the Messages API has no seed; it must not be sent")
	}
	raw := string(req.Raw)
	if i, j := strings.Index(raw, `"summary":{`), strings.Index(raw, `"parties":{`); i < 0 || i > j {
		t.Errorf("properties not in declared order:\n%s", raw)
	}
}

func TestMalformedJSONFromModel(t *testing.T) {
	// A model ignoring the forced tool and writing broken JSON as text.
	f := llmtest.NewReplayServer(t, message("end_turn", text(`{"complete": tru`)))
	m := newModel(t, f, nil)
	resp, err := m.Generate(context.Background(), &llm.Request{Messages: []llm.Message{{Role: llm.RoleUser, Content: "judge"}},
		ResponseFormat: &llm.ResponseFormat{Name: "verdict", Schema: json.RawMessage(`{"type":"object"}`)}})
	if err != nil {
		t.Fatal(err)
	}
	schema, err := llm.SchemaFor[verdict]()
	if err != nil {
		t.Fatal(err)
	}
	_, err = llm.DecodeData[verdict](schema, resp.Message.Content)
	var pe *llm.ParseError
	if !errors.As(err, &pe) || pe.Raw != `{"complete": tru` {
		t.Fatalf("err = %v, want ParseError with the raw reply", err)
	}
}

func TestStreaming(t *testing.T) {
	f := llmtest.NewReplayServer(t, sse(
		[2]string{"message_start", `{"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","model":"claude-test","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":25,"output_tokens":1}}}`},
		[2]string{"content_block_start", `{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`},
		[2]string{"ping", `{"type":"ping"}`},
		[2]string{"content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Checking"}}`},
		[2]string{"content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":" now."}}`},
		[2]string{"content_block_stop", `{"type":"content_block_stop","index":0}`},
		[2]string{"content_block_start", `{"type":"content_block_start","index":1,"content_block":{"type":"tool_use","id":"toolu_1","name":"contract_search","input":{}}}`},
		[2]string{"content_block_delta", `{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"{\"contract_type\":"}}`},
		[2]string{"content_block_delta", `{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"\"Distributor\"}"}}`},
		[2]string{"content_block_stop", `{"type":"content_block_stop","index":1}`},
		[2]string{"message_delta", `{"type":"message_delta","delta":{"stop_reason":"tool_use","stop_sequence":null},"usage":{"output_tokens":17}}`},
		[2]string{"message_stop", `{"type":"message_stop"}`},
	))
	m := newModel(t, f, nil)
	var textOut, args strings.Builder
	var names []string
	resp, err := m.Stream(context.Background(), &llm.Request{Messages: []llm.Message{{Role: llm.RoleUser, Content: "q"}}, Tools: []llm.ToolDef{searchTool}},
		func(d llm.Delta) error {
			textOut.WriteString(d.Text)
			args.WriteString(d.ArgumentsPart)
			if d.ToolCallName != "" {
				names = append(names, d.ToolCallName)
			}
			return nil
		})
	if err != nil {
		t.Fatal(err)
	}
	if textOut.String() != "Checking now." || resp.Message.Content != "Checking now." {
		t.Errorf("text %q / %q", textOut.String(), resp.Message.Content)
	}
	want := []llm.ToolCall{{ID: "toolu_1", Name: "contract_search", Arguments: json.RawMessage(`{"contract_type":"Distributor"}`)}}
	if diff := cmp.Diff(want, resp.Message.ToolCalls); diff != "" {
		t.Errorf("tool calls (-want +got):\n%s", diff)
	}
	if args.String() != `{"contract_type":"Distributor"}` || len(names) != 1 {
		t.Errorf("argument deltas %q names %v", args.String(), names)
	}
	if resp.Usage != (llm.Usage{InputTokens: 25, OutputTokens: 17}) || resp.FinishReason != "tool_use" {
		t.Errorf("usage %+v finish %q", resp.Usage, resp.FinishReason)
	}
	if f.Requests()[0].Body["stream"] != true {
		t.Error("request did not ask for a stream")
	}
}

func TestRateLimitThenSuccess(t *testing.T) {
	f := llmtest.NewReplayServer(t, errorReply(429, "rate_limit_error", map[string]string{"Retry-After": "1"}), message("end_turn", text("ok")))
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

func TestOverloadedExhaustsRetries(t *testing.T) {
	f := llmtest.NewReplayServer(t, errorReply(500, "api_error", nil), errorReply(529, "overloaded_error", nil), errorReply(500, "api_error", nil))
	m := newModel(t, f, nil)
	_, err := m.Generate(context.Background(), &llm.Request{Messages: []llm.Message{{Role: llm.RoleUser, Content: "q"}}})
	if !errors.Is(err, llm.ErrUnavailable) || len(f.Requests()) != 3 || !strings.Contains(err.Error(), "fake says 500") {
		t.Errorf("err = %v after %d requests", err, len(f.Requests()))
	}
}

func TestBadRequestAndAuth(t *testing.T) {
	for code, want := range map[int]error{400: llm.ErrBadRequest, 401: llm.ErrAuth} {
		f := llmtest.NewReplayServer(t, errorReply(code, "x", nil))
		_, err := newModel(t, f, nil).Generate(context.Background(), &llm.Request{Messages: []llm.Message{{Role: llm.RoleUser, Content: "q"}}})
		if !errors.Is(err, want) || len(f.Requests()) != 1 {
			t.Errorf("HTTP %d: err = %v after %d requests", code, err, len(f.Requests()))
		}
	}
}

func TestTimeout(t *testing.T) {
	f := llmtest.NewReplayServer(t, func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-time.After(5 * time.Second):
		}
	})
	m := newModel(t, f, func(c *anthropic.Config) { c.Timeout = 100 * time.Millisecond })
	_, err := m.Generate(context.Background(), &llm.Request{Messages: []llm.Message{{Role: llm.RoleUser, Content: "q"}}})
	if !errors.Is(err, context.DeadlineExceeded) || !errors.Is(err, llm.ErrUnavailable) || len(f.Requests()) != 1 {
		t.Errorf("err = %v after %d requests", err, len(f.Requests()))
	}
}

func TestMalformedToolArgumentsInHistory(t *testing.T) {
	f := llmtest.NewReplayServer(t, message("end_turn", text("fixed")))
	m := newModel(t, f, nil)
	_, err := m.Generate(context.Background(), &llm.Request{Messages: []llm.Message{
		{Role: llm.RoleUser, Content: "q"},
		{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{{ID: "t1", Name: "contract_search", Arguments: json.RawMessage(`{"contract_type":`)}}},
		{Role: llm.RoleTool, ToolCallID: "t1", Content: `{"error":"arguments are not valid JSON"}`},
		{Role: llm.RoleUser, Content: "try again"},
	}})
	if err != nil {
		t.Fatal(err)
	}
	msgs := f.Requests()[0].Body["messages"].([]any)
	use := msgs[1].(map[string]any)["content"].([]any)[0].(map[string]any)
	if diff := cmp.Diff(map[string]any{"unparsed_arguments": `{"contract_type":`}, use["input"]); diff != "" {
		t.Errorf("malformed input sent as (-want +got):\n%s", diff)
	}
	if len(msgs) != 3 || len(msgs[2].(map[string]any)["content"].([]any)) != 2 {
		t.Errorf("tool result and follow-up text should share one user turn: %v", msgs)
	}
}

func TestNewValidates(t *testing.T) {
	if _, err := anthropic.New(anthropic.Config{APIKey: "k"}); !errors.Is(err, llm.ErrNoModel) {
		t.Errorf("no model: %v", err)
	}
	if _, err := anthropic.New(anthropic.Config{Model: "m"}); !errors.Is(err, llm.ErrAuth) {
		t.Errorf("no key: %v", err)
	}
}
