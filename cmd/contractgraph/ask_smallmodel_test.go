package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/contractgraph/contractgraph/internal/agent"
)

// smallModel is an OpenAI-compatible server replaying what a small local
// model replies, one reply per request: reply text, or a native tool call
// when the reply starts with "call:" ("call:NAME ARGS"). It streams when
// asked to and records the messages of every request.
type smallModel struct {
	t       *testing.T
	replies []string
	mu      sync.Mutex
	seen    [][]any // messages of each request
	temps   []any   // the temperature of each request, nil when absent
}

func (m *smallModel) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body := readJSON(m.t, r)
	m.mu.Lock()
	m.seen = append(m.seen, body["messages"].([]any))
	m.temps = append(m.temps, body["temperature"])
	n := len(m.seen)
	m.mu.Unlock()
	if n > len(m.replies) {
		http.Error(w, `{"error":{"message":"script exhausted"}}`, 500)
		return
	}
	reply := m.replies[n-1]
	msg := map[string]any{"role": "assistant", "content": reply}
	if spec, ok := strings.CutPrefix(reply, "call:"); ok {
		name, args, _ := strings.Cut(spec, " ")
		msg = map[string]any{"role": "assistant", "content": nil, "tool_calls": []any{map[string]any{
			"id": fmt.Sprintf("call_%d", n), "type": "function", "function": map[string]any{"name": name, "arguments": args}}}}
	}
	if body["stream"] != true {
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{"id": "x", "object": "chat.completion", "created": 1, "model": "any",
			"choices": []any{map[string]any{"index": 0, "message": msg, "finish_reason": "stop"}}})
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	chunk := func(delta map[string]any) map[string]any {
		return map[string]any{"id": "x", "object": "chat.completion.chunk", "created": 1, "model": "any",
			"choices": []any{map[string]any{"index": 0, "delta": delta, "finish_reason": nil}}}
	}
	if calls, ok := msg["tool_calls"]; ok {
		writeSSE(w, "", chunk(map[string]any{"tool_calls": []any{map[string]any{"index": 0,
			"id": calls.([]any)[0].(map[string]any)["id"], "type": "function", "function": calls.([]any)[0].(map[string]any)["function"]}}}))
	} else {
		for _, part := range strings.SplitAfter(reply, " ") {
			writeSSE(w, "", chunk(map[string]any{"content": part}))
		}
	}
	fmt.Fprint(w, "data: [DONE]\n\n")
}

func parseEvents(t *testing.T, stdout string) []agent.Event {
	t.Helper()
	var events []agent.Event
	for _, line := range strings.Split(strings.TrimSpace(stdout), "\n") {
		var e agent.Event
		if err := json.Unmarshal([]byte(line), &e); err != nil {
			t.Fatalf("stdout line is not an event: %v: %q", err, line)
		}
		events = append(events, e)
	}
	return events
}

// The findings of issue 10: Qwen2.5-Coder-1.5B writes its call as a json
// fence; the product must run it rather than print it as the answer.
func TestAskToolCallWrittenAsText(t *testing.T) {
	for _, stream := range []bool{false, true} {
		t.Run(map[bool]string{false: "generate", true: "stream"}[stream], func(t *testing.T) {
			db := fixtureDB(t)
			want, ids := realResult(t, db)
			m := &smallModel{t: t, replies: []string{
				"```json\n{\"name\": \"contract_search\", \"arguments\": " + askArgs + "}\n```",
				fmt.Sprintf("%d contracts ended after 1990-01-01.\nSources: %s", totalCount(t, want), strings.Join(ids, ", ")),
			}}
			srv := httptest.NewServer(m)
			defer srv.Close()
			t.Setenv("OPENAI_BASE_URL", srv.URL+"/v1")
			args := []string{"--db", db, "--model", "openai:any", "--json", "ask"}
			if !stream {
				args = append(args, "--no-stream")
			}
			stdout, stderr, code := runContractgraph(t, "", append(args, askQuestion)...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			events := parseEvents(t, stdout)
			var call *agent.ToolCallEvent
			var result *agent.ToolResultEvent
			var ans *agent.Answer
			var tokens strings.Builder
			for _, e := range events {
				switch e.Type {
				case agent.EventToolCall:
					call = e.ToolCall
				case agent.EventToolResult:
					result = e.ToolResult
				case agent.EventAnswer:
					ans = e.Answer
				case agent.EventToken:
					tokens.WriteString(e.Token)
				}
			}
			if call == nil || call.Name != "contract_search" || !call.FromText || !jsonEqual(string(call.Arguments), askArgs) {
				t.Fatalf("tool_call event %+v, want contract_search from text", call)
			}
			if !strings.Contains(stdout, `"from_text":true`) {
				t.Errorf("the trace should say the call was parsed from text:\n%s", stdout)
			}
			if result == nil || string(result.Result) != string(want) {
				t.Errorf("tool_result %+v, want the real result", result)
			}
			if ans == nil || !strings.HasPrefix(ans.Text, fmt.Sprintf("%d contracts ended", totalCount(t, want))) || len(ans.Citations) != len(ids) {
				t.Errorf("answer %+v", ans)
			}
			if strings.Contains(tokens.String(), "```") || strings.Contains(tokens.String(), "contract_search") {
				t.Errorf("the call was streamed as answer text: %q", tokens.String())
			}
			// The second request carries the call as a real tool call and its result.
			if len(m.seen) != 2 {
				t.Fatalf("%d requests, want 2", len(m.seen))
			}
			msgs := m.seen[1]
			asst := msgs[len(msgs)-2].(map[string]any)
			tool := msgs[len(msgs)-1].(map[string]any)
			if _, ok := asst["tool_calls"]; !ok || tool["role"] != "tool" || !jsonEqual(tool["content"].(string), string(want)) {
				t.Errorf("second request ends with %v and %v", asst, tool)
			}
		})
	}
}

func TestAskEmptyAnswerComposed(t *testing.T) {
	db := fixtureDB(t)
	want, ids := realResult(t, db)
	m := &smallModel{t: t, replies: []string{"call:contract_search " + askArgs, "Sources: " + ids[0], "Sources: " + ids[0]}}
	srv := httptest.NewServer(m)
	defer srv.Close()
	t.Setenv("OPENAI_BASE_URL", srv.URL+"/v1")
	stdout, stderr, code := runContractgraph(t, "", "--db", db, "--model", "openai:any", "ask", askQuestion)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if len(m.seen) != 3 {
		t.Errorf("%d requests, want the tool turn, the empty answer and one retry", len(m.seen))
	}
	for _, s := range []string{
		"The model gave no answer text, so this answer was composed from the last tool result.",
		fmt.Sprintf("found %d contracts", totalCount(t, want)),
		"  - " + ids[0],
	} {
		if !strings.Contains(stdout, s) {
			t.Errorf("output lacks %q:\n%s", s, stdout)
		}
	}
	if strings.Count(stdout, "The model gave no answer text") != 1 {
		t.Errorf("the composed answer should be printed once:\n%s", stdout)
	}
}

// TestAskTemperature: the agent asks at temperature 0 unless told
// otherwise, so that a question gets the same answer each time; a negative
// temperature leaves it to the provider; a bad environment value is an
// error that names the variable.
func TestAskTemperature(t *testing.T) {
	db := fixtureDB(t)
	for _, tt := range []struct {
		env  string
		args []string
		want any
	}{
		{want: 0.0},
		{args: []string{"--temperature", "0.7"}, want: 0.7},
		{env: "0.2", want: 0.2},
		{env: "0.2", args: []string{"--temperature=-1"}, want: nil},
	} {
		m := &smallModel{t: t, replies: []string{"call:contract_search " + askArgs, "There are some.\nSources: none"}}
		srv := httptest.NewServer(m)
		t.Setenv("OPENAI_BASE_URL", srv.URL+"/v1")
		t.Setenv("CONTRACTGRAPH_TEMPERATURE", tt.env)
		args := append([]string{"--db", db, "--model", "openai:any"}, tt.args...)
		_, stderr, code := runContractgraph(t, "", append(args, "ask", askQuestion)...)
		srv.Close()
		if code != 0 {
			t.Fatalf("env %q args %q: exit %d: %s", tt.env, tt.args, code, stderr)
		}
		for i, got := range m.temps {
			if got != tt.want {
				t.Errorf("env %q args %q: request %d has temperature %v, want %v", tt.env, tt.args, i+1, got, tt.want)
			}
		}
	}
	t.Setenv("CONTRACTGRAPH_TEMPERATURE", "warm")
	_, stderr, code := runContractgraph(t, "", "--db", db, "--model", "openai:any", "ask", askQuestion)
	if code != 2 || !strings.Contains(stderr, `CONTRACTGRAPH_TEMPERATURE="warm" is not a number`) {
		t.Errorf("bad env: exit %d, stderr %q", code, stderr)
	}
}

func TestAskNoAnswerFails(t *testing.T) {
	m := &smallModel{t: t, replies: []string{"Sources: none", ""}}
	srv := httptest.NewServer(m)
	defer srv.Close()
	t.Setenv("OPENAI_BASE_URL", srv.URL+"/v1")
	_, stderr, code := runContractgraph(t, "", "--db", fixtureDB(t), "--model", "openai:any", "ask", "--no-stream", "hello?")
	if code != 1 || !strings.Contains(stderr, "no answer text") || !strings.Contains(stderr, "larger model") {
		t.Errorf("exit %d, stderr %q: an empty answer must not be a success", code, stderr)
	}
}

func TestAskUnverifiedNote(t *testing.T) {
	db := fixtureDB(t)
	_, ids := realResult(t, db)
	m := &smallModel{t: t, replies: []string{
		"call:contract_search " + askArgs,
		"See " + ids[0] + " and c99.\nSources: " + ids[0],
	}}
	srv := httptest.NewServer(m)
	defer srv.Close()
	t.Setenv("OPENAI_BASE_URL", srv.URL+"/v1")
	stdout, stderr, code := runContractgraph(t, "", "--db", db, "--model", "openai:any", "ask", askQuestion)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(stdout, `Note: The answer mentions "c99", which no tool returned in this run`) {
		t.Errorf("output lacks the note on c99:\n%s", stdout)
	}
}

func TestAskReadableTextCall(t *testing.T) {
	db := fixtureDB(t)
	_, ids := realResult(t, db)
	m := &smallModel{t: t, replies: []string{
		"<tool_call>\n{\"name\": \"contract_search\", \"arguments\": " + askArgs + "}\n</tool_call>",
		"They are " + strings.Join(ids, ", ") + ".\nSources: " + strings.Join(ids, ", "),
	}}
	srv := httptest.NewServer(m)
	defer srv.Close()
	t.Setenv("OPENAI_BASE_URL", srv.URL+"/v1")
	stdout, stderr, code := runContractgraph(t, "", "--db", db, "--model", "openai:any", "ask", askQuestion)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.HasPrefix(stdout, "→ contract_search "+askArgs+"  (written as text)\n") || strings.Contains(stdout, "<tool_call>") {
		t.Errorf("the call should be shown as a call, marked as written as text:\n%s", stdout)
	}
}
