package eval

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/contractgraph/contractgraph/internal/agent"
	"github.com/contractgraph/contractgraph/internal/llm"
	"github.com/contractgraph/contractgraph/internal/llm/llmtest"
	"github.com/contractgraph/contractgraph/internal/tools"
)

// canada is the demo question about parties in Canada (260 contracts).
var canada = Question{ID: "demo05", Question: "How many contracts involve a party located in Canada?",
	Expected: &Expected{Tool: "contract_search", Args: json.RawMessage(`{"party_country":"CA"}`)}, MustContain: []string{"260"},
	Source: Position{"demo.jsonl", 5}}

// answer is a scripted step that writes the reply from the tool results
// the agent sent back.
func answer(fn func(results []string) string) llmtest.Step {
	return llmtest.Step{Func: func(req *llm.Request) (*llm.Response, error) {
		var results []string
		for _, m := range req.Messages {
			if m.Role == llm.RoleTool {
				results = append(results, m.Content)
			}
		}
		return &llm.Response{Message: llm.Message{Role: llm.RoleAssistant, Content: fn(results)}, Usage: llm.Usage{InputTokens: 40, OutputTokens: 12}}, nil
	}}
}

// countAnswer states the total_count of the last result and cites its
// examples, plus extra sources.
func countAnswer(t *testing.T, extra ...string) llmtest.Step {
	return answer(func(results []string) string {
		var r struct {
			TotalCount int `json:"total_count"`
			Examples   []struct {
				ContractID string `json:"contract_id"`
			} `json:"examples"`
			Groups []struct {
				Count int `json:"count"`
			} `json:"groups"`
		}
		if len(results) == 0 {
			t.Error("the model got no tool result")
			return "I do not know."
		}
		if err := json.Unmarshal([]byte(results[len(results)-1]), &r); err != nil {
			t.Errorf("tool result is not JSON: %v", err)
		}
		n := r.TotalCount
		if len(r.Groups) == 1 {
			n = r.Groups[0].Count
		}
		ids := extra
		for _, e := range r.Examples {
			ids = append(ids, e.ContractID)
		}
		if len(ids) == 0 {
			ids = []string{"none"}
		}
		return fmt.Sprintf("There are %s such contracts.\nSources: %s", formatThousands(n), strings.Join(ids, ", "))
	})
}

func formatThousands(n int) string {
	s := fmt.Sprint(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

func runOne(t *testing.T, set *tools.Set, q Question, steps ...llmtest.Step) (*Run, *llmtest.Scripted) {
	t.Helper()
	m := llmtest.NewScripted(steps...)
	ev := &Answers{Agent: &agent.Agent{Model: m, Tools: set, Now: func() time.Time { return today }}, Model: "scripted", Seed: 42}
	run, err := ev.Run(context.Background(), []Question{q})
	if err != nil {
		t.Fatal(err)
	}
	if len(run.Results) != 1 {
		t.Fatalf("%d results, want 1", len(run.Results))
	}
	return run, m
}

func TestAnswersScoresToolResultsNotArguments(t *testing.T) {
	set := demoTools(t)
	call := func(tool, args string) llmtest.Step {
		return llmtest.Calls(llmtest.Call("c1", tool, args))
	}
	tests := []struct {
		name         string
		steps        []llmtest.Step
		wantTool     bool
		wantFigures  bool
		wantCites    bool
		wantPass     bool
		wantCheck    string
		wantUnreturn []string
	}{
		{name: "right call, right answer", steps: []llmtest.Step{call("contract_search", `{"party_country":"CA"}`), countAnswer(t)},
			wantTool: true, wantFigures: true, wantCites: true, wantPass: true, wantCheck: "total_count 260"},
		{name: "equivalent arguments", steps: []llmtest.Step{call("contract_search", `{"party_country":"Canada","limit":10,"order_by":"end_date"}`), countAnswer(t)},
			wantTool: true, wantFigures: true, wantCites: true, wantPass: true, wantCheck: "total_count 260"},
		{name: "an aggregate count is equivalent", steps: []llmtest.Step{call("contract_aggregate", `{"party_country":"canada","metric":"count"}`), countAnswer(t)},
			wantTool: true, wantFigures: true, wantCites: true, wantPass: true, wantCheck: "the aggregate's count 260"},
		{name: "a failed call, then a right one", steps: []llmtest.Step{call("contract_search", `{"party_country":"Canadia"}`), call("contract_search", `{"party_country":"CA","limit":2}`), countAnswer(t)},
			wantTool: true, wantFigures: true, wantCites: true, wantPass: true, wantCheck: "call 2 (contract_search): total_count 260"},
		{name: "wrong arguments", steps: []llmtest.Step{call("contract_search", `{"party_country":"US"}`), countAnswer(t)},
			wantTool: false, wantFigures: false, wantCites: true, wantPass: false, wantCheck: "expected 260"},
		{name: "a grouped aggregate answers another question", steps: []llmtest.Step{call("contract_aggregate", `{"party_country":"CA","group_by":"contract_type"}`), countAnswer(t)},
			wantTool: false, wantFigures: false, wantCites: true, wantPass: false, wantCheck: "does not answer what contract_search answers"},
		{name: "cites an id no tool returned", steps: []llmtest.Step{call("contract_search", `{"party_country":"CA","limit":1}`), countAnswer(t, "gen-7-9999999")},
			wantTool: true, wantFigures: true, wantCites: false, wantPass: false, wantCheck: "total_count 260", wantUnreturn: []string{"gen-7-9999999"}},
		{name: "names a stored contract no tool returned", steps: []llmtest.Step{call("contract_search", `{"party_country":"CA","limit":1}`),
			llmtest.Text("260 contracts, for example demo-saas-kestrel.\nSources: none")},
			wantTool: true, wantFigures: true, wantCites: false, wantPass: false, wantUnreturn: []string{"demo-saas-kestrel"}},
		{name: "no tool call", steps: []llmtest.Step{llmtest.Text("About 260, I believe.\nSources: none")},
			wantTool: false, wantFigures: true, wantCites: true, wantPass: false, wantCheck: "no tool was called"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			run, m := runOne(t, set, canada, tt.steps...)
			r := run.Results[0]
			if r.ToolCorrect == nil || *r.ToolCorrect != tt.wantTool {
				t.Errorf("tool correct = %v, want %v (%s)", deref(r.ToolCorrect), tt.wantTool, r.ToolCheck)
			}
			if !strings.Contains(r.ToolCheck, tt.wantCheck) {
				t.Errorf("tool check %q lacks %q", r.ToolCheck, tt.wantCheck)
			}
			if r.FiguresOK == nil || *r.FiguresOK != tt.wantFigures {
				t.Errorf("figures ok = %v, want %v; answer %q", deref(r.FiguresOK), tt.wantFigures, r.Answer)
			}
			if r.CitationsOK == nil || *r.CitationsOK != tt.wantCites {
				t.Errorf("citations ok = %v, want %v; unreturned %v", deref(r.CitationsOK), tt.wantCites, r.Unreturned)
			}
			if diff := cmp.Diff(tt.wantUnreturn, r.Unreturned); diff != "" {
				t.Errorf("unreturned ids (-want +got):\n%s", diff)
			}
			if r.Pass != tt.wantPass {
				t.Errorf("pass = %v, want %v", r.Pass, tt.wantPass)
			}
			if want := float64(map[bool]int{true: 1}[tt.wantPass]); run.Summary.Score != want {
				t.Errorf("score %v, want %v", run.Summary.Score, want)
			}
			if r.ModelCalls != len(tt.steps) || m.Remaining() != 0 {
				t.Errorf("model calls %d, want %d", r.ModelCalls, len(tt.steps))
			}
			for _, req := range m.Requests() {
				if req.Temperature == nil || *req.Temperature != 0 || req.Seed == nil || *req.Seed != 42 {
					t.Fatalf("request sent temperature %v seed %v, want 0 and 42", req.Temperature, req.Seed)
				}
			}
		})
	}
}

func deref(b *bool) any {
	if b == nil {
		return nil
	}
	return *b
}

// The record of a question holds the calls with their results, the
// expected result, the answer with and without the Sources line, and the
// token counts of every model call.
func TestAnswersRecordsTheTrace(t *testing.T) {
	set := demoTools(t)
	run, _ := runOne(t, set, canada, llmtest.Calls(llmtest.Call("c1", "contract_search", `{"party_country":"CA","limit":2}`)), countAnswer(t))
	r := run.Results[0]
	if len(r.Calls) != 1 || r.Calls[0].Tool != "contract_search" || string(r.Calls[0].Args) != `{"party_country":"CA","limit":2}` {
		t.Fatalf("calls %+v", r.Calls)
	}
	c := r.Calls[0]
	if c.Matches == nil || !*c.Matches || !strings.Contains(string(c.Result), `"total_count":260`) || c.ResultBytes != len(c.Result) {
		t.Errorf("call record %+v", c)
	}
	if r.ExpectedResult == nil || !strings.Contains(string(r.ExpectedResult.Result), `"total_count":260`) {
		t.Errorf("expected result %+v", r.ExpectedResult)
	}
	if !strings.Contains(r.RawAnswer, "Sources: ") || strings.Contains(r.Answer, "Sources:") || !strings.HasPrefix(r.Answer, "There are 260") {
		t.Errorf("answer %q, raw %q", r.Answer, r.RawAnswer)
	}
	if len(r.Citations) != 2 {
		t.Errorf("citations %+v, want the two examples", r.Citations)
	}
	if r.Usage != (llm.Usage{InputTokens: 50, OutputTokens: 17}) || run.Summary.Usage != r.Usage {
		t.Errorf("usage %+v, summary %+v", r.Usage, run.Summary.Usage)
	}
	if run.Summary.ToolCalls != 1 || run.Summary.ModelCalls != 2 || run.Seed != 42 || run.Temperature != 0 {
		t.Errorf("summary %+v", run.Summary)
	}
}

func TestAnswersStreamingModel(t *testing.T) {
	set := demoTools(t)
	m := llmtest.NewScripted(llmtest.Calls(llmtest.Call("c1", "contract_search", `{"party_country":"CA"}`)), countAnswer(t)).Streaming()
	ev := &Answers{Agent: &agent.Agent{Model: m, Tools: set}, Model: "streaming"}
	run, err := ev.Run(context.Background(), []Question{canada})
	if err != nil {
		t.Fatal(err)
	}
	r := run.Results[0]
	if !r.Pass || !strings.Contains(r.RawAnswer, "Sources:") {
		t.Errorf("streamed run: pass %v, raw answer %q, check %s", r.Pass, r.RawAnswer, r.ToolCheck)
	}
	if reqs := m.Requests(); *reqs[0].Seed != DefaultSeed {
		t.Errorf("seed %d, want the default %d", *reqs[0].Seed, DefaultSeed)
	}
}

// An unreachable model costs one attempt: the questions after it are
// recorded as not run, with the same one-sentence reason.
func TestAnswersUnreachableModel(t *testing.T) {
	set := demoTools(t)
	down := &llm.APIError{Provider: "openai", Kind: llm.ErrUnavailable, Err: errors.New("dial tcp 127.0.0.1:9: connection refused")}
	m := llmtest.NewScripted(llmtest.Fail(down))
	sentence := errors.New("cannot reach the openai server at http://127.0.0.1:9/v1: start it or set OPENAI_BASE_URL")
	var progress []string
	ev := &Answers{Agent: &agent.Agent{Model: m, Tools: set}, Model: "openai:local",
		Explain: func(err error) error {
			if errors.Is(err, llm.ErrUnavailable) {
				return sentence
			}
			return err
		},
		Progress: func(p Progress) {
			progress = append(progress, fmt.Sprintf("%d/%d %s %v", p.Index, p.Total, p.Question.ID, p.Done))
		}}
	q2 := canada
	q2.ID = "q2"
	qs := []Question{canada, q2, {ID: "q3", Question: "Who is Harbor Analytics?"}}
	run, err := ev.Run(context.Background(), qs)
	if err != nil {
		t.Fatal(err)
	}
	if run.ModelError != sentence.Error() {
		t.Errorf("model error %q", run.ModelError)
	}
	want := []string{sentence.Error(), "not run: " + sentence.Error(), "not run: " + sentence.Error()}
	var got []string
	for _, r := range run.Results {
		got = append(got, r.Error)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("errors (-want +got):\n%s", diff)
	}
	if run.Summary.Errors != 3 || run.Summary.Passed != 0 || run.Summary.WithExpected != 2 || run.Summary.ToolCorrect != 0 || len(m.Requests()) != 1 {
		t.Errorf("summary %+v after %d requests", run.Summary, len(m.Requests()))
	}
	wantProgress := []string{"1/3 demo05 false", "1/3 demo05 true", "2/3 q2 false", "2/3 q2 true", "3/3 q3 false", "3/3 q3 true"}
	if diff := cmp.Diff(wantProgress, progress); diff != "" {
		t.Errorf("progress (-want +got):\n%s", diff)
	}
}

// A failing question (here the step limit) is recorded and the next one
// still runs.
func TestAnswersGoesOnAfterAFailure(t *testing.T) {
	set := demoTools(t)
	loop := llmtest.Calls(llmtest.Call("c", "contract_search", `{"party_country":"CA"}`))
	m := llmtest.NewScripted(loop, loop, llmtest.Calls(llmtest.Call("c", "contract_search", `{"party_country":"CA"}`)), countAnswer(t))
	ev := &Answers{Agent: &agent.Agent{Model: m, Tools: set, MaxSteps: 2}, Model: "m"}
	second := canada
	second.ID = "again"
	run, err := ev.Run(context.Background(), []Question{canada, second})
	if err != nil {
		t.Fatal(err)
	}
	first := run.Results[0]
	if !strings.Contains(first.Error, "step limit") || first.Pass || first.ToolCorrect == nil || !*first.ToolCorrect {
		t.Errorf("first: error %q, pass %v, tool %v", first.Error, first.Pass, deref(first.ToolCorrect))
	}
	if !run.Results[1].Pass || run.Summary.Passed != 1 || run.Summary.Errors != 1 || run.Summary.Score != 0.5 {
		t.Errorf("second %+v, summary %+v", run.Results[1], run.Summary)
	}
}

func TestAnswersInterrupted(t *testing.T) {
	set := demoTools(t)
	ctx, cancel := context.WithCancel(context.Background())
	m := llmtest.NewScripted(llmtest.Step{Func: func(*llm.Request) (*llm.Response, error) {
		cancel()
		return nil, context.Canceled
	}})
	ev := &Answers{Agent: &agent.Agent{Model: m, Tools: set}, Model: "m"}
	run, err := ev.Run(ctx, []Question{canada, {ID: "q2", Question: "?"}})
	if !errors.Is(err, context.Canceled) || run == nil || !run.Interrupted || len(run.Results) != 1 {
		t.Fatalf("run %+v, err %v", run, err)
	}
}
