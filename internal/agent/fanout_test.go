package agent_test

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/contractgraph/contractgraph/internal/agent"
	"github.com/contractgraph/contractgraph/internal/llm"
	"github.com/contractgraph/contractgraph/internal/llm/llmtest"
)

// countingTools counts the calls that reach the toolbox.
type countingTools struct {
	agent.Toolbox
	n atomic.Int32
}

func (c *countingTools) Call(ctx context.Context, name string, args json.RawMessage) (json.RawMessage, error) {
	c.n.Add(1)
	return c.Toolbox.Call(ctx, name, args)
}

// TestOneTurnRunsAtMostMaxCallsPerStep: a model told by an injected
// instruction to fetch contracts one by one makes 25 calls in one turn;
// ten run, the rest are answered "not run" without reaching the tools,
// and the next request carries all 25 answers within the turn's budget.
func TestOneTurnRunsAtMostMaxCallsPerStep(t *testing.T) {
	tb := &countingTools{Toolbox: toolSet(t)}
	var calls []llm.ToolCall
	for i := range 25 {
		calls = append(calls, llmtest.Call(fmt.Sprintf("c%d", i), "contract_search", `{"contract_type":"Distributor"}`))
	}
	m := llmtest.NewScripted(llmtest.Calls(calls...), llmtest.Text("There is one distributor agreement, c03.\nSources: c03"))
	a := newAgent(m, tb)
	a.MaxStepResultBytes = 2000
	var rec recorder
	if _, err := a.Run(context.Background(), nil, "How many distributor agreements?", rec.emit); err != nil {
		t.Fatal(err)
	}
	if n := tb.n.Load(); n != agent.DefaultMaxCallsPerStep {
		t.Errorf("%d calls reached the tools, want %d", n, agent.DefaultMaxCallsPerStep)
	}
	results := rec.ofType(agent.EventToolResult)
	if len(results) != 25 || results[9].ToolResult.Error != "" || !strings.Contains(results[10].ToolResult.Error, "not run: at most 10 tool calls") {
		t.Fatalf("%d results; 10th error %q, 11th error %q", len(results), results[9].ToolResult.Error, results[10].ToolResult.Error)
	}
	msgs := m.Requests()[1].Messages
	total, cut := 0, 0
	for _, msg := range msgs {
		if msg.Role == llm.RoleTool {
			total += len(msg.Content)
			if strings.Contains(msg.Content, "this turn's tool results reached their limit") {
				cut++
			}
		}
	}
	if total > 2000+25*250 || cut == 0 {
		t.Errorf("tool results sent back: %d bytes, %d cut; want them within the 2,000-byte turn budget (plus notes)", total, cut)
	}
}

// TestFiguresNoToolResultHolds: the answer's numbers are checked against
// the run's tool results; a figure the model made up is listed and noted,
// rounded and returned ones are not, nor list numbers or the question's.
func TestFiguresNoToolResultHolds(t *testing.T) {
	tests := []struct {
		answer string
		want   []string
	}{
		{"There is 1 Distributor contract, c03.\nSources: c03", nil},
		{"The total value is $1,000,000 across 1 contract.\nSources: c03", []string{"1,000,000"}},
		{"1. c03, which ended in 2005.\n2. Nothing else.\nSources: c03", nil},
		{"Of the 7 contracts, 1 is a distributor agreement.", []string{"7"}},
	}
	for _, tt := range tests {
		set := toolSet(t)
		m := llmtest.NewScripted(
			llmtest.Calls(llmtest.Call("call_1", "contract_search", `{"contract_type":"Distributor"}`)),
			llmtest.Text(tt.answer),
		)
		ans, err := newAgent(m, set).Run(context.Background(), nil, "How many distributor agreements ended in 2005?", nil)
		if err != nil {
			t.Fatal(err)
		}
		checkFigures(t, ans, tt.answer, tt.want, "no tool result of this run contains")
	}
}

// checkFigures checks an answer's unsupported figures and that a note
// containing note is there exactly when some are.
func checkFigures(t *testing.T, ans *agent.Answer, answer string, want []string, note string) {
	t.Helper()
	if !slices.Equal(ans.UnsupportedFigures, want) {
		t.Errorf("%q: unsupported figures %q, want %q", answer, ans.UnsupportedFigures, want)
	}
	noted := slices.ContainsFunc(ans.Notes, func(n string) bool { return strings.Contains(n, note) })
	if noted != (len(want) > 0) {
		t.Errorf("%q: notes %q", answer, ans.Notes)
	}
}

// TestFiguresWithoutAnyToolCall: a model that writes an invented result
// instead of calling a tool gets every figure not in the question listed,
// with a note saying nothing came from the contracts; an answer without
// figures (a greeting) gets no note.
func TestFiguresWithoutAnyToolCall(t *testing.T) {
	tests := []struct {
		answer string
		want   []string
	}{
		{"The three most common types are Affiliate Agreement (464 contracts), Agency (65) and Collaboration (22).", []string{"464", "65", "22"}},
		{"Hello! Ask me about your contracts.", nil},
	}
	for _, tt := range tests {
		m := llmtest.NewScripted(llmtest.Text(tt.answer))
		ans, err := newAgent(m, toolSet(t)).Run(context.Background(), nil, "What are the three most common contract types?", nil)
		if err != nil {
			t.Fatal(err)
		}
		checkFigures(t, ans, tt.answer, tt.want, "no tool returned a result in this run")
	}
}

// TestReplyTokenLimit: every tool-loop request carries the reply token
// limit (the default, a set one, none when negative), and an answer that
// stopped at it is noted.
func TestReplyTokenLimit(t *testing.T) {
	for _, tt := range []struct{ set, want int }{{0, agent.DefaultMaxReplyTokens}, {200, 200}, {-1, 0}} {
		cut := llmtest.Text("There is one Distributor contract, c03, which")
		cut.Response.FinishReason = "length"
		m := llmtest.NewScripted(llmtest.Calls(llmtest.Call("call_1", "contract_search", `{"contract_type":"Distributor"}`)), cut)
		a := newAgent(m, toolSet(t))
		a.MaxReplyTokens = tt.set
		ans, err := a.Run(context.Background(), nil, "How many distributor agreements?", nil)
		if err != nil {
			t.Fatal(err)
		}
		for i, req := range m.Requests() {
			if req.MaxTokens != tt.want {
				t.Errorf("MaxReplyTokens %d: request %d has MaxTokens %d, want %d", tt.set, i+1, req.MaxTokens, tt.want)
			}
		}
		noted := slices.ContainsFunc(ans.Notes, func(n string) bool { return strings.Contains(n, "limit and was cut off there") })
		if !noted {
			t.Errorf("MaxReplyTokens %d: notes %q lack the cut", tt.set, ans.Notes)
		}
	}
}

// TestLoopingAnswerIsCut: a streamed answer that repeats itself is stopped
// at its first repetition and noted; the run still answers.
func TestLoopingAnswerIsCut(t *testing.T) {
	set := toolSet(t)
	loop := "There is one Distributor contract. " + strings.Repeat("It is c03, which ended on 2005-12-31. ", 80)
	s := llmtest.NewScripted(
		llmtest.Calls(llmtest.Call("call_1", "contract_search", `{"contract_type":"Distributor"}`)),
		llmtest.Text(loop),
	)
	ans, err := newAgent(s.Streaming(), set).Run(context.Background(), nil, "How many distributor agreements?", func(agent.Event) {})
	if err != nil {
		t.Fatal(err)
	}
	if len(ans.Text) > 200 || !strings.HasPrefix(ans.Text, "There is one Distributor contract.") || strings.Count(ans.Text, "c03") > 2 {
		t.Errorf("answer = %d bytes %q, want it cut at the first repetition", len(ans.Text), ans.Text)
	}
	if !slices.ContainsFunc(ans.Notes, func(n string) bool { return strings.Contains(n, "repeating itself") }) {
		t.Errorf("notes %q lack the cut", ans.Notes)
	}
}
