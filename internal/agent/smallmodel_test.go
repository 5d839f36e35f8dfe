package agent_test

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/contractgraph/contractgraph/internal/agent"
	"github.com/contractgraph/contractgraph/internal/llm"
	"github.com/contractgraph/contractgraph/internal/llm/llmtest"
	"github.com/contractgraph/contractgraph/internal/tools"
)

// What a Qwen2.5-Coder-1.5B behind llama-server does: the call comes back
// as reply text, not as tool_calls.
const fencedCall = "```json\n{\"name\": \"contract_search\", \"arguments\": {\"contract_type\": \"Distributor\"}}\n```"

func tokens(rec *recorder) string {
	var b strings.Builder
	for _, e := range rec.ofType(agent.EventToken) {
		b.WriteString(e.Token)
	}
	return b.String()
}

func TestToolCallWrittenAsText(t *testing.T) {
	tests := []struct {
		name  string
		reply string
	}{
		{"json fence", fencedCall},
		{"hermes tags", "<tool_call>\n{\"name\": \"contract_search\", \"arguments\": {\"contract_type\": \"Distributor\"}}\n</tool_call>"},
		{"bare object, arguments as a string", `{"name": "contract_search", "arguments": "{\"contract_type\": \"Distributor\"}"}`},
	}
	for _, tt := range tests {
		for _, stream := range []bool{false, true} {
			name := tt.name
			if stream {
				name += " streaming"
			}
			t.Run(name, func(t *testing.T) {
				set := toolSet(t)
				s := llmtest.NewScripted(
					llmtest.Text(tt.reply),
					llmtest.Text("There is one Distributor contract, c03, which ended on 2005-12-31.\nSources: c03"),
				)
				var m llm.Model = s
				if stream {
					m = s.Streaming()
				}
				var rec recorder
				ans, err := newAgent(m, set).Run(context.Background(), nil, "How many distributor agreements?", rec.emit)
				if err != nil {
					t.Fatal(err)
				}
				calls := rec.ofType(agent.EventToolCall)
				if len(calls) != 1 || calls[0].ToolCall.Name != "contract_search" || !calls[0].ToolCall.FromText ||
					string(calls[0].ToolCall.Arguments) != `{"contract_type":"Distributor"}` {
					t.Fatalf("tool_call events = %+v, want one contract_search parsed from text", calls)
				}
				results := rec.ofType(agent.EventToolResult)
				if len(results) != 1 || results[0].ToolResult.Error != "" || !strings.Contains(string(results[0].ToolResult.Result), `"c03"`) {
					t.Fatalf("tool_result events = %+v", results)
				}
				if ans.Text != "There is one Distributor contract, c03, which ended on 2005-12-31." || len(ans.Citations) != 1 || ans.Citations[0].ContractID != "c03" {
					t.Errorf("answer = %+v, want the model's second reply citing c03", ans)
				}
				// The model sees its call as a real one, answered by the tool.
				msgs := s.Requests()[1].Messages
				assistant, tool := msgs[len(msgs)-2], msgs[len(msgs)-1]
				if len(assistant.ToolCalls) != 1 || assistant.ToolCalls[0].ID == "" || assistant.Content != "" {
					t.Errorf("assistant message sent back = %+v, want the parsed call and no text", assistant)
				}
				if tool.Role != llm.RoleTool || tool.ToolCallID != assistant.ToolCalls[0].ID || tool.Content != string(results[0].ToolResult.Result) {
					t.Errorf("tool message = %+v", tool)
				}
				if stream {
					if got := tokens(&rec); strings.Contains(got, "contract_search") || strings.Contains(got, "{") || !strings.HasPrefix(got, "There is one") {
						t.Errorf("streamed tokens %q: the call must not be shown as answer text", got)
					}
				}
			})
		}
	}
}

func TestTextCallsSeveralAndUnknown(t *testing.T) {
	m := llmtest.NewScripted(
		llmtest.Text("I will fetch both.\n<tool_call>{\"name\": \"get_contract\", \"arguments\": {\"contract_id\": \"c01\"}}</tool_call>\n"+
			"<tool_call>{\"name\": \"get_contract\", \"arguments\": {\"contract_id\": \"c02\"}}</tool_call>"),
		llmtest.Text("Use:\n```json\n{\"name\": \"answer_tool\", \"arguments\": {\"text\": \"c01\"}}\n```"),
	)
	var rec recorder
	ans, err := newAgent(m, toolSet(t)).Run(context.Background(), nil, "compare c01 and c02", rec.emit)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, e := range rec.ofType(agent.EventToolCall) {
		ids = append(ids, string(e.ToolCall.Arguments))
	}
	if diff := cmp.Diff([]string{`{"contract_id":"c01"}`, `{"contract_id":"c02"}`}, ids); diff != "" {
		t.Errorf("calls run (-want +got):\n%s", diff)
	}
	if got := m.Requests()[1].Messages[2].Content; got != "I will fetch both." {
		t.Errorf("assistant text kept with the calls = %q", got)
	}
	if !strings.Contains(ans.Text, "answer_tool") {
		t.Errorf("a call to a tool that does not exist must stay text: %q", ans.Text)
	}
}

func TestEmptyAnswerAskedAgain(t *testing.T) {
	for _, stream := range []bool{false, true} {
		t.Run(map[bool]string{false: "generate", true: "stream"}[stream], func(t *testing.T) {
			s := llmtest.NewScripted(
				llmtest.Calls(llmtest.Call("a", "contract_search", `{"contract_type":"Distributor"}`)),
				llmtest.Text("Sources: c03"),
				llmtest.Text("There is 1 Distributor contract: c03.\nSources: c03"),
			)
			var m llm.Model = s
			if stream {
				m = s.Streaming()
			}
			var rec recorder
			ans, err := newAgent(m, toolSet(t)).Run(context.Background(), nil, "How many distributor agreements?", rec.emit)
			if err != nil {
				t.Fatal(err)
			}
			if ans.Text != "There is 1 Distributor contract: c03." || ans.ComposedFrom != "" {
				t.Errorf("answer %+v, want the second reply", ans)
			}
			reqs := s.Requests()
			if len(reqs) != 3 {
				t.Fatalf("%d model calls, want 3", len(reqs))
			}
			last := reqs[2].Messages[len(reqs[2].Messages)-1]
			if last.Role != llm.RoleUser || !strings.Contains(last.Content, "no answer text") || !strings.Contains(last.Content, "How many distributor agreements?") {
				t.Errorf("the retry asks %+v; want the no-answer prompt with the question", last)
			}
			if len(reqs[2].Tools) == 0 {
				t.Error("the retry should still offer the tools")
			}
			if stream {
				if got := tokens(&rec); got != "There is 1 Distributor contract: c03.\nSources: c03" {
					t.Errorf("tokens %q: the Sources-only reply must not be shown", got)
				}
			}
		})
	}
}

func TestEmptyAnswerComposed(t *testing.T) {
	set := toolSet(t)
	real, err := set.Call(context.Background(), "contract_search", json.RawMessage(`{"contract_type":"Sponsorship"}`))
	if err != nil {
		t.Fatal(err)
	}
	var res struct {
		TotalCount int `json:"total_count"`
	}
	json.Unmarshal(real, &res)
	m := llmtest.NewScripted(
		llmtest.Calls(llmtest.Call("a", "contract_search", `{"contract_type":"Sponsorship"}`)),
		llmtest.Text(""),
		llmtest.Text("**Sources:** c08, c09"),
	).Streaming()
	var rec recorder
	ans, err := newAgent(m, set).Run(context.Background(), nil, "sponsorships?", rec.emit)
	if err != nil {
		t.Fatal(err)
	}
	if ans.ComposedFrom != "contract_search" || !strings.HasPrefix(ans.Text, "The model gave no answer text, so this answer was composed from the last tool result.") {
		t.Errorf("answer %+v should be composed from contract_search and say so", ans)
	}
	if !strings.Contains(ans.Text, "found "+strconv.Itoa(res.TotalCount)+" contract") || !strings.Contains(ans.Text, "c08") || !strings.Contains(ans.Text, "c09") {
		t.Errorf("composed answer %q lacks the tool's count %d or ids", ans.Text, res.TotalCount)
	}
	cited := map[string]bool{}
	for _, c := range ans.Citations {
		cited[c.ContractID] = true
	}
	if diff := cmp.Diff(map[string]bool{"c08": true, "c09": true}, cited); diff != "" {
		t.Errorf("citations of the composed answer (-want +got):\n%s", diff)
	}
	if got := tokens(&rec); got != ans.Text {
		t.Errorf("streamed %q; the composed answer should be streamed as the answer", got)
	}
	if m.Remaining() != 0 {
		t.Errorf("%d scripted replies unused; want exactly one retry", m.Remaining())
	}
}

func TestEmptyAnswerWithoutResults(t *testing.T) {
	m := llmtest.NewScripted(llmtest.Text("  "), llmtest.Text("Sources: none"))
	var rec recorder
	ans, err := newAgent(m, toolSet(t)).Run(context.Background(), nil, "anything?", rec.emit)
	if !errors.Is(err, agent.ErrNoAnswer) || ans != nil {
		t.Fatalf("Run = %+v, %v; want ErrNoAnswer, never an empty success", ans, err)
	}
	if len(rec.ofType(agent.EventAnswer)) != 0 || len(rec.ofType(agent.EventError)) != 1 {
		t.Errorf("events %v", rec.types())
	}
}

func TestEmptyAnswerRetryBeyondMaxSteps(t *testing.T) {
	m := llmtest.NewScripted(
		llmtest.Calls(llmtest.Call("a", "contract_search", `{"contract_type":"Franchise"}`)),
		llmtest.Text(""),
		llmtest.Text("One franchise: c05.\nSources: c05"),
	)
	a := newAgent(m, toolSet(t))
	a.MaxSteps = 2
	ans, err := a.Run(context.Background(), nil, "franchise?", nil)
	if err != nil || ans.Text != "One franchise: c05." {
		t.Fatalf("Run = %+v, %v; the retry may take one call beyond MaxSteps", ans, err)
	}
}

func TestUnverifiedInAnswer(t *testing.T) {
	m := llmtest.NewScripted(
		llmtest.Calls(llmtest.Call("a", "contract_search", `{"contract_type":"Sponsorship"}`)),
		llmtest.Text("The sponsorships are c08 and c09; c77 is another.\nSources: c09, c08, invented-id"),
	)
	var rec recorder
	ans, err := newAgent(m, toolSet(t)).Run(context.Background(), nil, "sponsorships?", rec.emit)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"c77", "invented-id"}, ans.Unverified); diff != "" {
		t.Errorf("unverified (-want +got):\n%s", diff)
	}
	if len(ans.Notes) != 1 || !strings.Contains(ans.Notes[0], `"c77"`) || !strings.Contains(ans.Notes[0], "no tool returned") {
		t.Errorf("notes %q", ans.Notes)
	}
	if !strings.Contains(ans.Text, "c77") {
		t.Errorf("the model's text is kept as written: %q", ans.Text)
	}
	raw, _ := json.Marshal(rec.ofType(agent.EventAnswer)[0])
	if !strings.Contains(string(raw), `"unverified":["c77","invented-id"]`) {
		t.Errorf("answer event JSON lacks the unverified ids: %s", raw)
	}
}

// recordingTools records the arguments each call receives.
type recordingTools struct {
	*tools.Set
	mu   sync.Mutex
	args []string
}

func (r *recordingTools) Call(ctx context.Context, name string, args json.RawMessage) (json.RawMessage, error) {
	r.mu.Lock()
	r.args = append(r.args, string(args))
	r.mu.Unlock()
	return json.RawMessage(`{"total_count":0,"examples":[]}`), nil
}

func TestArgumentsReachTheTools(t *testing.T) {
	tb := &recordingTools{Set: toolSet(t)}
	m := llmtest.NewScripted(
		llmtest.Calls(
			llmtest.Call("1", "contract_search", `{"contract_type":null,"party_country":"","parties":[]}`),
			llmtest.Call("2", "contract_search", `null`),
			llmtest.Call("3", "contract_search", `"{\"contract_type\":\"Franchise\"}"`),
			llmtest.Call("4", "contract_search", `{"contract_type":"Franchise",}`),
		),
		llmtest.Text("No contracts matched.\nSources: none"),
	)
	if _, err := newAgent(m, tb).Run(context.Background(), nil, "q", nil); err != nil {
		t.Fatal(err)
	}
	want := []string{`{"contract_type":null,"party_country":"","parties":[]}`, `{}`, `{"contract_type":"Franchise"}`, `{"contract_type":"Franchise"}`}
	// The calls of one turn run concurrently, so compare in sorted order.
	slices.Sort(want)
	slices.Sort(tb.args)
	if diff := cmp.Diff(want, tb.args); diff != "" {
		t.Errorf("arguments the tools received (-want +got):\n%s", diff)
	}
}

// streamCounter counts Stream calls of a streaming scripted model.
type streamCounter struct {
	*llmtest.Streaming
	mu      sync.Mutex
	streams int
}

func (s *streamCounter) Stream(ctx context.Context, req *llm.Request, fn func(llm.Delta) error) (*llm.Response, error) {
	s.mu.Lock()
	s.streams++
	s.mu.Unlock()
	return s.Streaming.Stream(ctx, req, fn)
}

func TestNoStreamCoversCriticCalls(t *testing.T) {
	m := &streamCounter{Streaming: llmtest.NewScripted(
		llmtest.Text(`{"question":"How many franchise agreements are there?"}`),
		llmtest.Calls(llmtest.Call("a", "contract_search", `{"contract_type":"Franchise"}`)),
		llmtest.Text("One: c05.\nSources: c05"),
		llmtest.Text(`{"complete":true,"follow_ups":[]}`),
	).Streaming()}
	a := newAgent(m, toolSet(t))
	a.Rewrite, a.Critic, a.NoStream = true, true, true
	if _, err := a.Run(context.Background(), nil, "franchises?", nil); err != nil {
		t.Fatal(err)
	}
	if m.streams != 0 {
		t.Errorf("%d streamed calls with NoStream; servers that stream badly must not be streamed to", m.streams)
	}
}

// TestDescribedCallIsAskedFor: a reply that describes calling a tool in
// prose, before any tool ran, gets one request to make the call; the call
// is then run and answered from. A second description is taken as the
// answer, and a reply after a tool ran is never questioned.
func TestDescribedCallIsAskedFor(t *testing.T) {
	plan := "To answer this, I'll use the `contract_aggregate` function:\n1. group_by: contract_type\n2. limit: 3"
	set := toolSet(t)
	s := llmtest.NewScripted(
		llmtest.Text(plan),
		llmtest.Calls(llmtest.Call("a", "contract_search", `{"contract_type":"Distributor"}`)),
		llmtest.Text("There is one Distributor contract, c03.\nSources: c03"),
	)
	ans, err := newAgent(s, set).Run(context.Background(), nil, "How many distributor agreements?", nil)
	if err != nil {
		t.Fatal(err)
	}
	reqs := s.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d model calls, want the plan, the call and the answer", len(reqs))
	}
	ask := reqs[1].Messages[len(reqs[1].Messages)-1]
	if ask.Role != llm.RoleUser || !strings.Contains(ask.Content, "You described calling contract_aggregate but did not call it") {
		t.Errorf("second request ends with %s %q", ask.Role, ask.Content)
	}
	if ans.Text != "There is one Distributor contract, c03." {
		t.Errorf("answer %q", ans.Text)
	}

	s = llmtest.NewScripted(llmtest.Text(plan), llmtest.Text(plan))
	ans, err = newAgent(s, toolSet(t)).Run(context.Background(), nil, "How many?", nil)
	if err != nil || len(s.Requests()) != 2 || ans.Text != plan {
		t.Errorf("a second description: %d model calls, answer %q, err %v; want it taken as the answer", len(s.Requests()), ans.Text, err)
	}
}

// TestArgumentsOnlyWrittenAsText: the model names one tool in prose and
// writes only its arguments in a fence; the agent runs that call. Replies
// naming two tools, with keys the tool lacks, or quoting a call already run
// stay text.
func TestArgumentsOnlyWrittenAsText(t *testing.T) {
	argsReply := "I'll use the `contract_search` tool:\n```json\n{\"contract_type\": \"Distributor\"}\n```"
	final := "There is one Distributor contract, c03.\nSources: c03"
	tests := []struct {
		name    string
		replies []llmtest.Step
		calls   []string // tool calls run, as name+arguments
		answer  string
	}{
		{"named tool, arguments in a fence",
			[]llmtest.Step{llmtest.Text(argsReply), llmtest.Text(final)},
			[]string{`contract_search {"contract_type":"Distributor"}`}, "There is one Distributor contract, c03."},
		// These stay text; the agent then asks once for the call the reply
		// describes, and the model answers without one.
		{"two tools named",
			[]llmtest.Step{llmtest.Text("Either `contract_search` or `party_search`:\n```json\n{\"contract_type\": \"Distributor\"}\n```"), llmtest.Text("I cannot tell.")},
			nil, "I cannot tell."},
		{"a key the tool does not have",
			[]llmtest.Step{llmtest.Text("Using contract_search:\n```json\n{\"kind\": \"Distributor\"}\n```"), llmtest.Text("I cannot tell.")},
			nil, "I cannot tell."},
		{"the name only inside a longer word",
			[]llmtest.Step{llmtest.Text("Using my_contract_search_v2:\n```json\n{\"contract_type\": \"Distributor\"}\n```")},
			nil, ""},
		{"quoting the call already run",
			[]llmtest.Step{llmtest.Text(argsReply), llmtest.Text("contract_search with {\"contract_type\": \"Distributor\"} found c03.\nSources: c03")},
			[]string{`contract_search {"contract_type":"Distributor"}`}, `contract_search with {"contract_type": "Distributor"} found c03.`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			set := toolSet(t)
			s := llmtest.NewScripted(tt.replies...)
			var rec recorder
			ans, err := newAgent(s, set).Run(context.Background(), nil, "How many distributor agreements?", rec.emit)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, e := range rec.ofType(agent.EventToolCall) {
				if !e.ToolCall.FromText {
					t.Errorf("call %s not marked as written in text", e.ToolCall.Name)
				}
				got = append(got, e.ToolCall.Name+" "+string(e.ToolCall.Arguments))
			}
			if !slices.Equal(got, tt.calls) {
				t.Errorf("calls run = %q, want %q", got, tt.calls)
			}
			if tt.answer != "" && ans.Text != tt.answer {
				t.Errorf("answer = %q, want %q", ans.Text, tt.answer)
			}
		})
	}
}
