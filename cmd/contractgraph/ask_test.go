package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/contractgraph/contractgraph/internal/agent"
	"github.com/contractgraph/contractgraph/internal/graph/graphtest"
	"github.com/contractgraph/contractgraph/internal/graph/sqlite"
	"github.com/contractgraph/contractgraph/internal/tools"
)

const askQuestion = "How many contracts ended after 1990-01-01?"

// askArgs is what every fake model asks contract_search in its first turn.
const askArgs = `{"min_end_date":"1990-01-02","limit":3}`

// fixtureDB writes the graph conformance fixture into a fresh SQLite file.
func fixtureDB(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "cg.db")
	st, err := sqlite.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if _, err := st.PutContracts(context.Background(), graphtest.Fixture()); err != nil {
		t.Fatal(err)
	}
	return path
}

// realResult is what contract_search really returns for askArgs on db.
func realResult(t *testing.T, db string) (json.RawMessage, []string) {
	t.Helper()
	st, err := sqlite.Open(db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	res, err := tools.New(st, tools.Options{}).Call(context.Background(), "contract_search", json.RawMessage(askArgs))
	if err != nil {
		t.Fatal(err)
	}
	var r struct {
		TotalCount int `json:"total_count"`
		Examples   []struct {
			ContractID string `json:"contract_id"`
		} `json:"examples"`
	}
	if err := json.Unmarshal(res, &r); err != nil || len(r.Examples) == 0 {
		t.Fatalf("contract_search result %s: %v", res, err)
	}
	var ids []string
	for _, e := range r.Examples {
		ids = append(ids, e.ContractID)
	}
	return res, ids
}

// turn is one request a fake provider received, in provider-neutral form.
type turn struct {
	tools       map[string]json.RawMessage // tool name → input schema
	toolResults []string                   // contents of tool results sent back
	stream      bool
}

// providerFake plays the two-turn conversation of the "Done when" check in
// one provider's wire format: a contract_search call first, then a text
// answer built from the tool result the client sent back.
type providerFake struct {
	t     *testing.T
	mu    sync.Mutex
	turns []turn
}

func (f *providerFake) record(tr turn) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.turns = append(f.turns, tr)
	return len(f.turns)
}

// answerFrom writes the fake model's answer from the tool result it got:
// the count and the example ids, and an id no tool returned.
func answerFrom(t *testing.T, result string) string {
	var r struct {
		TotalCount int `json:"total_count"`
		Examples   []struct {
			ContractID string `json:"contract_id"`
		} `json:"examples"`
	}
	if err := json.Unmarshal([]byte(result), &r); err != nil {
		t.Errorf("tool result sent to the model is not the tool's JSON: %v: %s", err, result)
	}
	var ids []string
	for _, e := range r.Examples {
		ids = append(ids, e.ContractID)
	}
	return fmt.Sprintf("%d contracts ended after 1990-01-01, for example %s.\nSources: %s, invented-id",
		r.TotalCount, strings.Join(ids, " and "), strings.Join(ids, ", "))
}

func readJSON(t *testing.T, r *http.Request) map[string]any {
	raw, _ := io.ReadAll(r.Body)
	var body map[string]any
	if err := json.Unmarshal(raw, &body); err != nil {
		t.Errorf("request body: %v: %s", err, raw)
	}
	return body
}

func rawJSON(v any) json.RawMessage {
	b, _ := json.Marshal(v)
	return b
}

func writeSSE(w http.ResponseWriter, event string, data any) {
	if event != "" {
		fmt.Fprintf(w, "event: %s\n", event)
	}
	b, _ := json.Marshal(data)
	fmt.Fprintf(w, "data: %s\n\n", b)
	w.(http.Flusher).Flush()
}

// openAIFake speaks Chat Completions, streaming when asked to.
func (f *providerFake) openAI(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != "/v1/chat/completions" {
		http.NotFound(w, r)
		return
	}
	body := readJSON(f.t, r)
	tr := turn{tools: map[string]json.RawMessage{}, stream: body["stream"] == true}
	for _, x := range body["tools"].([]any) {
		fn := x.(map[string]any)["function"].(map[string]any)
		tr.tools[fn["name"].(string)] = rawJSON(fn["parameters"])
	}
	for _, x := range body["messages"].([]any) {
		if m := x.(map[string]any); m["role"] == "tool" {
			tr.toolResults = append(tr.toolResults, m["content"].(string))
		}
	}
	n := f.record(tr)
	var msg map[string]any
	if n == 1 {
		msg = map[string]any{"role": "assistant", "content": nil, "tool_calls": []any{map[string]any{
			"id": "call_1", "type": "function", "function": map[string]any{"name": "contract_search", "arguments": askArgs}}}}
	} else {
		msg = map[string]any{"role": "assistant", "content": answerFrom(f.t, strings.Join(tr.toolResults, ""))}
	}
	if !tr.stream {
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{"id": "x", "object": "chat.completion", "created": 1, "model": "any",
			"choices": []any{map[string]any{"index": 0, "message": msg, "finish_reason": "stop"}},
			"usage":   map[string]any{"prompt_tokens": 100, "completion_tokens": 20, "total_tokens": 120}})
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	chunk := func(delta map[string]any) map[string]any {
		return map[string]any{"id": "x", "object": "chat.completion.chunk", "created": 1, "model": "any",
			"choices": []any{map[string]any{"index": 0, "delta": delta, "finish_reason": nil}}}
	}
	if n == 1 {
		writeSSE(w, "", chunk(map[string]any{"tool_calls": []any{map[string]any{"index": 0, "id": "call_1", "type": "function",
			"function": map[string]any{"name": "contract_search", "arguments": askArgs[:10]}}}}))
		writeSSE(w, "", chunk(map[string]any{"tool_calls": []any{map[string]any{"index": 0, "function": map[string]any{"arguments": askArgs[10:]}}}}))
	} else {
		for _, word := range strings.SplitAfter(msg["content"].(string), " ") {
			writeSSE(w, "", chunk(map[string]any{"content": word}))
		}
	}
	writeSSE(w, "", map[string]any{"id": "x", "object": "chat.completion.chunk", "created": 1, "model": "any", "choices": []any{},
		"usage": map[string]any{"prompt_tokens": 100, "completion_tokens": 20, "total_tokens": 120}})
	fmt.Fprint(w, "data: [DONE]\n\n")
}

// checkDoneWhen asserts the acceptance criteria on one run.
func checkDoneWhen(t *testing.T, f *providerFake, db, model, stdout string, wantStream bool) {
	t.Helper()
	want, ids := realResult(t, db)
	if len(f.turns) != 2 {
		t.Fatalf("model received %d requests, want 2", len(f.turns))
	}
	// 1. The first request lists every typed tool with its JSON schema.
	st, err := sqlite.Open(db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	// The tools are described as --tool-schemas auto does for this model
	// (compact for the local openai and ollama servers).
	a := newApp(nil, io.Discard, io.Discard)
	a.cfg.Model = model
	set, err := a.newToolSet(context.Background(), st)
	if err != nil {
		t.Fatal(err)
	}
	wantTools := map[string]json.RawMessage{}
	for _, tl := range set.Tools() {
		wantTools[tl.Name] = tl.InputSchema
	}
	if len(f.turns[0].tools) != len(wantTools) {
		t.Errorf("first request offers %d tools, want %d", len(f.turns[0].tools), len(wantTools))
	}
	for name, schema := range wantTools {
		got, ok := f.turns[0].tools[name]
		if !ok {
			t.Errorf("first request lacks tool %s", name)
			continue
		}
		var g, w any
		json.Unmarshal(got, &g)
		json.Unmarshal(schema, &w)
		if diff := cmp.Diff(w, g); diff != "" {
			t.Errorf("tool %s schema sent (-want +got):\n%s", name, diff)
		}
	}
	if f.turns[0].stream != wantStream || f.turns[1].stream != wantStream {
		t.Errorf("stream flags %v %v, want %v", f.turns[0].stream, f.turns[1].stream, wantStream)
	}
	// 2. The second request carries the tool's real result.
	if len(f.turns[1].toolResults) != 1 || !jsonEqual(f.turns[1].toolResults[0], string(want)) {
		t.Errorf("second request tool results = %q\nwant %s", f.turns[1].toolResults, want)
	}
	// 3. The output is one JSON event per line, ending with answer and done;
	// the answer's citations are drawn from that result.
	var events []agent.Event
	for _, line := range strings.Split(strings.TrimSpace(stdout), "\n") {
		var e agent.Event
		if err := json.Unmarshal([]byte(line), &e); err != nil {
			t.Fatalf("stdout line is not an event: %v: %q", err, line)
		}
		events = append(events, e)
	}
	if len(events) < 4 || events[0].Type != agent.EventToolCall || events[1].Type != agent.EventToolResult ||
		events[len(events)-2].Type != agent.EventAnswer || events[len(events)-1].Type != agent.EventDone {
		t.Fatalf("event types: %v", eventTypes(events))
	}
	if events[0].ToolCall.Name != "contract_search" || !jsonEqual(string(events[0].ToolCall.Arguments), askArgs) {
		t.Errorf("tool_call event = %+v", events[0].ToolCall)
	}
	if string(events[1].ToolResult.Result) != string(want) {
		t.Errorf("tool_result event = %s", events[1].ToolResult.Result)
	}
	tokens := 0
	for _, e := range events {
		if e.Type == agent.EventToken {
			tokens++
		}
	}
	if wantStream != (tokens > 0) {
		t.Errorf("%d token events with streaming %v", tokens, wantStream)
	}
	ans := events[len(events)-2].Answer
	var cited []string
	for _, c := range ans.Citations {
		cited = append(cited, c.ContractID)
	}
	if diff := cmp.Diff(ids, cited); diff != "" {
		t.Errorf("citations (-want +got):\n%s", diff)
	}
	if !strings.HasPrefix(ans.Text, fmt.Sprintf("%d contracts ended after 1990-01-01", totalCount(t, want))) || strings.Contains(ans.Text, "Sources:") {
		t.Errorf("answer text %q", ans.Text)
	}
}

func jsonEqual(a, b string) bool {
	var x, y any
	if json.Unmarshal([]byte(a), &x) != nil || json.Unmarshal([]byte(b), &y) != nil {
		return false
	}
	return cmp.Equal(x, y)
}

// anthropic speaks the Messages API, streaming when asked to.
func (f *providerFake) anthropic(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != "/v1/messages" || r.Header.Get("X-Api-Key") != "ak-test" {
		http.Error(w, `{"type":"error","error":{"type":"not_found_error","message":"wrong path or key"}}`, 404)
		return
	}
	body := readJSON(f.t, r)
	tr := turn{tools: map[string]json.RawMessage{}, stream: body["stream"] == true}
	for _, x := range body["tools"].([]any) {
		tl := x.(map[string]any)
		tr.tools[tl["name"].(string)] = rawJSON(tl["input_schema"])
	}
	for _, x := range body["messages"].([]any) {
		content, _ := x.(map[string]any)["content"].([]any)
		for _, b := range content {
			if b := b.(map[string]any); b["type"] == "tool_result" {
				for _, c := range b["content"].([]any) {
					tr.toolResults = append(tr.toolResults, c.(map[string]any)["text"].(string))
				}
			}
		}
	}
	n := f.record(tr)
	var block map[string]any
	stop := "end_turn"
	if n == 1 {
		stop = "tool_use"
		var args any
		json.Unmarshal([]byte(askArgs), &args)
		block = map[string]any{"type": "tool_use", "id": "toolu_1", "name": "contract_search", "input": args}
	} else {
		block = map[string]any{"type": "text", "text": answerFrom(f.t, strings.Join(tr.toolResults, ""))}
	}
	usage := map[string]any{"input_tokens": 100, "output_tokens": 20}
	if !tr.stream {
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{"id": "msg_1", "type": "message", "role": "assistant", "model": "any",
			"content": []any{block}, "stop_reason": stop, "stop_sequence": nil, "usage": usage})
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	writeSSE(w, "message_start", map[string]any{"type": "message_start", "message": map[string]any{"id": "msg_1", "type": "message",
		"role": "assistant", "model": "any", "content": []any{}, "stop_reason": nil, "stop_sequence": nil, "usage": usage}})
	if n == 1 {
		writeSSE(w, "content_block_start", map[string]any{"type": "content_block_start", "index": 0,
			"content_block": map[string]any{"type": "tool_use", "id": "toolu_1", "name": "contract_search", "input": map[string]any{}}})
		for _, part := range []string{askArgs[:10], askArgs[10:]} {
			writeSSE(w, "content_block_delta", map[string]any{"type": "content_block_delta", "index": 0,
				"delta": map[string]any{"type": "input_json_delta", "partial_json": part}})
		}
	} else {
		writeSSE(w, "content_block_start", map[string]any{"type": "content_block_start", "index": 0, "content_block": map[string]any{"type": "text", "text": ""}})
		for _, word := range strings.SplitAfter(block["text"].(string), " ") {
			writeSSE(w, "content_block_delta", map[string]any{"type": "content_block_delta", "index": 0,
				"delta": map[string]any{"type": "text_delta", "text": word}})
		}
	}
	writeSSE(w, "content_block_stop", map[string]any{"type": "content_block_stop", "index": 0})
	writeSSE(w, "message_delta", map[string]any{"type": "message_delta", "delta": map[string]any{"stop_reason": stop, "stop_sequence": nil},
		"usage": map[string]any{"output_tokens": 20}})
	writeSSE(w, "message_stop", map[string]any{"type": "message_stop"})
}

// gemini speaks generateContent and streamGenerateContent.
func (f *providerFake) gemini(w http.ResponseWriter, r *http.Request) {
	stream := r.URL.Path == "/v1beta/models/any:streamGenerateContent"
	if (!stream && r.URL.Path != "/v1beta/models/any:generateContent") || r.Header.Get("X-Goog-Api-Key") != "g-test" {
		http.Error(w, `{"error":{"code":404,"message":"wrong path or key","status":"NOT_FOUND"}}`, 404)
		return
	}
	body := readJSON(f.t, r)
	tr := turn{tools: map[string]json.RawMessage{}, stream: stream}
	for _, x := range body["tools"].([]any) {
		for _, d := range x.(map[string]any)["functionDeclarations"].([]any) {
			d := d.(map[string]any)
			tr.tools[d["name"].(string)] = rawJSON(d["parametersJsonSchema"])
		}
	}
	for _, x := range body["contents"].([]any) {
		for _, p := range x.(map[string]any)["parts"].([]any) {
			if fr, ok := p.(map[string]any)["functionResponse"].(map[string]any); ok {
				tr.toolResults = append(tr.toolResults, string(rawJSON(fr["response"])))
			}
		}
	}
	n := f.record(tr)
	var part map[string]any
	if n == 1 {
		var args any
		json.Unmarshal([]byte(askArgs), &args)
		part = map[string]any{"functionCall": map[string]any{"name": "contract_search", "args": args}}
	} else {
		part = map[string]any{"text": answerFrom(f.t, strings.Join(tr.toolResults, ""))}
	}
	resp := func(parts ...any) map[string]any {
		return map[string]any{"candidates": []any{map[string]any{"content": map[string]any{"role": "model", "parts": parts}, "finishReason": "STOP", "index": 0}},
			"usageMetadata": map[string]any{"promptTokenCount": 100, "candidatesTokenCount": 20, "totalTokenCount": 120}}
	}
	if !stream {
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(resp(part))
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	if n == 1 {
		writeSSE(w, "", resp(part))
		return
	}
	for _, word := range strings.SplitAfter(part["text"].(string), " ") {
		writeSSE(w, "", resp(map[string]any{"text": word}))
	}
}

func totalCount(t *testing.T, res json.RawMessage) int {
	var r struct {
		TotalCount int `json:"total_count"`
	}
	if err := json.Unmarshal(res, &r); err != nil {
		t.Fatal(err)
	}
	return r.TotalCount
}

func eventTypes(es []agent.Event) []agent.EventType {
	var out []agent.EventType
	for _, e := range es {
		out = append(out, e.Type)
	}
	return out
}

func TestAskDoneWhen(t *testing.T) {
	tests := []struct {
		name   string
		model  string
		env    func(url string) map[string]string
		serve  func(f *providerFake) http.HandlerFunc
		flags  []string
		stream bool
	}{
		{name: "openai", model: "openai:any", flags: []string{"--no-stream"},
			env: func(u string) map[string]string {
				return map[string]string{"OPENAI_BASE_URL": u + "/v1", "OPENAI_API_KEY": "sk-test"}
			},
			serve: func(f *providerFake) http.HandlerFunc { return f.openAI }},
		{name: "openai streaming", model: "openai:any", stream: true,
			env: func(u string) map[string]string {
				return map[string]string{"OPENAI_BASE_URL": u + "/v1", "OPENAI_API_KEY": ""}
			},
			serve: func(f *providerFake) http.HandlerFunc { return f.openAI }},
		{name: "ollama streaming", model: "ollama:qwen2.5:7b", stream: true,
			env: func(u string) map[string]string {
				return map[string]string{"OLLAMA_HOST": u, "OPENAI_API_KEY": "", "OPENAI_BASE_URL": ""}
			},
			serve: func(f *providerFake) http.HandlerFunc { return f.openAI }},
		{name: "anthropic", model: "anthropic:any", flags: []string{"--no-stream"},
			env: func(u string) map[string]string {
				return map[string]string{"ANTHROPIC_BASE_URL": u, "ANTHROPIC_API_KEY": "ak-test"}
			},
			serve: func(f *providerFake) http.HandlerFunc { return f.anthropic }},
		{name: "anthropic streaming", model: "anthropic:any", stream: true,
			env: func(u string) map[string]string {
				return map[string]string{"ANTHROPIC_BASE_URL": u, "ANTHROPIC_API_KEY": "ak-test"}
			},
			serve: func(f *providerFake) http.HandlerFunc { return f.anthropic }},
		{name: "gemini", model: "gemini:any", flags: []string{"--no-stream"},
			env: func(u string) map[string]string {
				return map[string]string{"GOOGLE_GEMINI_BASE_URL": u, "GEMINI_API_KEY": "", "GOOGLE_API_KEY": "g-test"}
			},
			serve: func(f *providerFake) http.HandlerFunc { return f.gemini }},
		{name: "gemini streaming", model: "gemini:any", stream: true,
			env: func(u string) map[string]string {
				return map[string]string{"GOOGLE_GEMINI_BASE_URL": u, "GEMINI_API_KEY": "g-test"}
			},
			serve: func(f *providerFake) http.HandlerFunc { return f.gemini }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := &providerFake{t: t}
			srv := httptest.NewServer(tt.serve(f))
			defer srv.Close()
			for k, v := range tt.env(srv.URL) {
				t.Setenv(k, v)
			}
			db := fixtureDB(t)
			args := append([]string{"--db", db, "ask", "--json", "--model", tt.model}, tt.flags...)
			args = append(args, askQuestion)
			stdout, stderr, code := runContractgraph(t, "", args...)
			if code != 0 {
				t.Fatalf("exit %d, stderr: %s", code, stderr)
			}
			checkDoneWhen(t, f, db, tt.model, stdout, tt.stream)
		})
	}
}

func TestAskReadable(t *testing.T) {
	f := &providerFake{t: t}
	srv := httptest.NewServer(http.HandlerFunc(f.openAI))
	defer srv.Close()
	t.Setenv("OPENAI_BASE_URL", srv.URL+"/v1")
	db := fixtureDB(t)
	_, ids := realResult(t, db)
	stdout, stderr, code := runContractgraph(t, "", "--db", db, "--model", "openai:any", "ask", askQuestion)
	if code != 0 {
		t.Fatalf("exit %d, stderr: %s", code, stderr)
	}
	want := "→ contract_search " + askArgs + "\n"
	if !strings.HasPrefix(stdout, want) {
		t.Errorf("output should start with the compact tool call %q:\n%s", want, stdout)
	}
	if !strings.Contains(stdout, "\n← ") || !strings.Contains(stdout, " results\n") {
		t.Errorf("output lacks the compact tool result line:\n%s", stdout)
	}
	// The invented id is flagged in a note, never listed as a source.
	if strings.Contains(stdout, "- invented-id") || strings.Count(stdout, "Sources:") != 1 ||
		!strings.Contains(stdout, `Note: The answer mentions "invented-id", which no tool returned`) {
		t.Errorf("the model's own Sources line must be replaced by the checked one:\n%s", stdout)
	}
	for _, id := range ids {
		if !strings.Contains(stdout, "  - "+id) {
			t.Errorf("sources list lacks %s:\n%s", id, stdout)
		}
	}
}

func TestAskConfigurationErrors(t *testing.T) {
	db := fixtureDB(t)
	closed := httptest.NewServer(http.NotFoundHandler())
	closedURL := closed.URL
	closed.Close()
	tests := []struct {
		name string
		env  map[string]string
		args []string
		want string
	}{
		{name: "no model", env: map[string]string{"CONTRACTGRAPH_MODEL": ""}, args: []string{"ask", "q"},
			want: "no model configured: pass --model provider:model or set CONTRACTGRAPH_MODEL"},
		{name: "no openai key", env: map[string]string{"OPENAI_API_KEY": "", "OPENAI_BASE_URL": ""}, args: []string{"--model", "openai:gpt-4o-mini", "ask", "q"},
			want: "set OPENAI_API_KEY"},
		{name: "no anthropic key", env: map[string]string{"ANTHROPIC_API_KEY": ""}, args: []string{"--model", "anthropic:claude-sonnet-4-5", "ask", "q"},
			want: "set ANTHROPIC_API_KEY"},
		{name: "no gemini key", env: map[string]string{"GEMINI_API_KEY": "", "GOOGLE_API_KEY": ""}, args: []string{"--model", "gemini:gemini-2.5-flash", "ask", "q"},
			want: "set GEMINI_API_KEY"},
		{name: "no azure endpoint", env: map[string]string{"AZURE_OPENAI_API_KEY": "k", "AZURE_OPENAI_ENDPOINT": ""}, args: []string{"--model", "azure:dep", "ask", "q"},
			want: "AZURE_OPENAI_ENDPOINT"},
		{name: "bad model name", args: []string{"--model", "gpt-4o", "ask", "q"}, want: "want provider:model"},
		{name: "ollama down", env: map[string]string{"OLLAMA_HOST": closedURL}, args: []string{"--model", "ollama:qwen2.5:7b", "ask", "q"},
			want: "cannot reach the ollama server at " + closedURL + "/v1: start it or set OLLAMA_HOST"},
		{name: "openai-compatible server down", env: map[string]string{"OPENAI_BASE_URL": closedURL + "/v1"}, args: []string{"--model", "openai:local", "ask", "q"},
			want: "cannot reach the openai server at " + closedURL + "/v1: start it or set OPENAI_BASE_URL"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for k, v := range tt.env {
				t.Setenv(k, v)
			}
			stdout, stderr, code := runContractgraph(t, "", append([]string{"--db", db}, tt.args...)...)
			if code != 1 {
				t.Errorf("exit code %d, want 1", code)
			}
			lines := strings.Split(strings.TrimSpace(stderr), "\n")
			if len(lines) != 1 || !strings.Contains(stderr, tt.want) || strings.Contains(stderr, "goroutine") {
				t.Errorf("stderr should be one sentence containing %q, got:\n%s", tt.want, stderr)
			}
			if strings.Contains(stdout, "panic") {
				t.Errorf("stdout: %s", stdout)
			}
		})
	}
}

func TestChatMultiTurn(t *testing.T) {
	var mu sync.Mutex
	var histories [][]string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body := readJSON(t, r)
		var contents []string
		for _, x := range body["messages"].([]any) {
			m := x.(map[string]any)
			if m["role"] != "system" {
				contents = append(contents, fmt.Sprint(m["role"], ": ", m["content"]))
			}
		}
		mu.Lock()
		histories = append(histories, contents)
		n := len(histories)
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{"id": "x", "object": "chat.completion", "created": 1, "model": "any",
			"choices": []any{map[string]any{"index": 0, "finish_reason": "stop",
				"message": map[string]any{"role": "assistant", "content": fmt.Sprintf("answer %d\nSources: none", n)}}}})
	}))
	defer srv.Close()
	t.Setenv("OPENAI_BASE_URL", srv.URL+"/v1")
	db := fixtureDB(t)
	stdout, stderr, code := runContractgraph(t, "first question\n\nsecond question\n/reset\nthird question\n/quit\nnever asked\n",
		"--db", db, "--model", "openai:any", "chat", "--no-stream")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	want := [][]string{
		{"user: first question"},
		{"user: first question", "assistant: answer 1\nSources: none", "user: second question"},
		{"user: third question"},
	}
	if diff := cmp.Diff(want, histories); diff != "" {
		t.Errorf("conversation sent to the model (-want +got):\n%s", diff)
	}
	for _, s := range []string{"answer 1", "answer 2", "answer 3", "(conversation cleared)"} {
		if !strings.Contains(stdout, s) {
			t.Errorf("chat output lacks %q:\n%s", s, stdout)
		}
	}
}

func TestAskCritic(t *testing.T) {
	var mu sync.Mutex
	var kinds []string
	var lastUser []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body := readJSON(t, r)
		msgs := body["messages"].([]any)
		last := msgs[len(msgs)-1].(map[string]any)
		kind := "tools"
		if rf, ok := body["response_format"].(map[string]any); ok {
			kind = rf["json_schema"].(map[string]any)["name"].(string)
		} else if last["role"] == "tool" {
			kind = "answer"
		}
		mu.Lock()
		kinds = append(kinds, kind)
		lastUser = append(lastUser, fmt.Sprint(last["content"]))
		passes := strings.Count(strings.Join(kinds, " "), "answer")
		mu.Unlock()
		msg := map[string]any{"role": "assistant"}
		switch kind {
		case "rewritten":
			msg["content"] = `{"question":"How many Sponsorship contracts are there, and when do they end?"}`
		case "critique":
			msg["content"] = `{"complete":false,"follow_ups":["When does the Festival Deal end?"]}`
		case "tools":
			args := `{"contract_type":"Sponsorship"}`
			if passes == 1 {
				args = `{"contract_id":"c09"}`
				msg["tool_calls"] = []any{map[string]any{"id": "g", "type": "function", "function": map[string]any{"name": "get_contract", "arguments": args}}}
			} else {
				msg["tool_calls"] = []any{map[string]any{"id": "s", "type": "function", "function": map[string]any{"name": "contract_search", "arguments": args}}}
			}
		case "answer":
			msg["content"] = fmt.Sprintf("Answer after pass %d: c08 and c09.\nSources: c08, c09", passes)
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{"id": "x", "object": "chat.completion", "created": 1, "model": "any",
			"choices": []any{map[string]any{"index": 0, "message": msg, "finish_reason": "stop"}}})
	}))
	defer srv.Close()
	t.Setenv("OPENAI_BASE_URL", srv.URL+"/v1")
	stdout, stderr, code := runContractgraph(t, "", "--db", fixtureDB(t), "--model", "openai:any", "--json", "ask", "--rewrite", "--critic", "--no-stream", "sponsorships and their end dates?")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if diff := cmp.Diff([]string{"rewritten", "tools", "answer", "critique", "tools", "answer"}, kinds); diff != "" {
		t.Fatalf("model calls (-want +got):\n%s", diff)
	}
	if lastUser[1] != "How many Sponsorship contracts are there, and when do they end?" || !strings.Contains(lastUser[4], "When does the Festival Deal end?") {
		t.Errorf("questions asked: %q", lastUser)
	}
	lines := strings.Split(strings.TrimSpace(stdout), "\n")
	var ans agent.Event
	if err := json.Unmarshal([]byte(lines[len(lines)-2]), &ans); err != nil || ans.Answer == nil {
		t.Fatalf("answer line %q: %v", lines[len(lines)-2], err)
	}
	if !strings.HasPrefix(ans.Answer.Text, "Answer after pass 2") {
		t.Errorf("final answer %q should come from the second pass", ans.Answer.Text)
	}
	var cited []string
	for _, c := range ans.Answer.Citations {
		if c.ClauseType == "" {
			cited = append(cited, c.ContractID)
		}
	}
	if diff := cmp.Diff([]string{"c08", "c09"}, cited); diff != "" {
		t.Errorf("citations (-want +got):\n%s", diff)
	}
}

func TestAskMaxSteps(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{"id": "x", "object": "chat.completion", "created": 1, "model": "any",
			"choices": []any{map[string]any{"index": 0, "finish_reason": "tool_calls", "message": map[string]any{"role": "assistant",
				"tool_calls": []any{map[string]any{"id": "c", "type": "function", "function": map[string]any{"name": "contract_search", "arguments": "{}"}}}}}}})
	}))
	defer srv.Close()
	t.Setenv("OPENAI_BASE_URL", srv.URL+"/v1")
	stdout, stderr, code := runContractgraph(t, "", "--db", fixtureDB(t), "--model", "openai:any", "ask", "--no-stream", "--max-steps", "2", "loop?")
	if code != 1 || !strings.Contains(stderr, "raise --max-steps") || strings.Count(stdout, "→ contract_search") != 2 {
		t.Errorf("exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
}

// TestAskRewriteSetAside: a rewrite stating a figure the question does not
// is not asked, and the readable output says so and shows the rewrite.
func TestAskRewriteSetAside(t *testing.T) {
	var mu sync.Mutex
	var asked []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Messages       []map[string]any `json:"messages"`
			ResponseFormat any              `json:"response_format"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		msg := map[string]any{"role": "assistant", "content": "There are two: c08 and c09.\nSources: c08, c09"}
		if req.ResponseFormat != nil {
			msg["content"] = `{"question":"How many Sponsorship contracts were signed in 2025?"}`
		} else {
			mu.Lock()
			asked = append(asked, fmt.Sprint(req.Messages[len(req.Messages)-1]["content"]))
			mu.Unlock()
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{"id": "x", "object": "chat.completion", "created": 1, "model": "any",
			"choices": []any{map[string]any{"index": 0, "message": msg, "finish_reason": "stop"}}})
	}))
	defer srv.Close()
	t.Setenv("OPENAI_BASE_URL", srv.URL+"/v1")
	stdout, stderr, code := runContractgraph(t, "", "--db", fixtureDB(t), "--model", "openai:any", "ask", "--rewrite", "--no-stream", "How many Sponsorship contracts are there?")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	want := "(question kept as asked: the rewrite added 2025, which neither the question nor the conversation states; the rewrite was: How many Sponsorship contracts were signed in 2025?)"
	if !strings.Contains(stdout, want) {
		t.Errorf("stdout lacks %q:\n%s", want, stdout)
	}
	if len(asked) == 0 || asked[0] != "How many Sponsorship contracts are there?" {
		t.Errorf("the tool loop was asked %q, want the question as written", asked)
	}
}
