package agent_test

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/contractgraph/contractgraph/internal/agent"
	"github.com/contractgraph/contractgraph/internal/graph/graphtest"
	"github.com/contractgraph/contractgraph/internal/graph/sqlite"
	"github.com/contractgraph/contractgraph/internal/llm"
	"github.com/contractgraph/contractgraph/internal/llm/llmtest"
	"github.com/contractgraph/contractgraph/internal/tools"
	"github.com/google/go-cmp/cmp"
)

var today = time.Date(2026, 3, 14, 9, 0, 0, 0, time.UTC)

// toolSet returns the real tools over a real SQLite store holding the
// graph conformance fixture.
func toolSet(t *testing.T) *tools.Set {
	t.Helper()
	st, err := sqlite.Open(filepath.Join(t.TempDir(), "cg.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	if _, err := st.PutContracts(context.Background(), graphtest.Fixture()); err != nil {
		t.Fatal(err)
	}
	return tools.New(st, tools.Options{Now: func() time.Time { return today }})
}

type recorder struct {
	mu     sync.Mutex
	events []agent.Event
}

func (r *recorder) emit(e agent.Event) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.events = append(r.events, e)
}

func (r *recorder) types() []agent.EventType {
	var out []agent.EventType
	for _, e := range r.events {
		out = append(out, e.Type)
	}
	return out
}

func (r *recorder) ofType(t agent.EventType) []agent.Event {
	var out []agent.Event
	for _, e := range r.events {
		if e.Type == t {
			out = append(out, e)
		}
	}
	return out
}

func newAgent(m llm.Model, tb agent.Toolbox) *agent.Agent {
	return &agent.Agent{Model: m, Tools: tb, Now: func() time.Time { return today }}
}

func TestToolCallThenAnswer(t *testing.T) {
	set := toolSet(t)
	m := llmtest.NewScripted(
		llmtest.Calls(llmtest.Call("call_1", "contract_search", `{"contract_type":"Distributor"}`)),
		llmtest.Text("There is one distributor agreement, c03, which ended on 2005-12-31.\nSources: c03"),
	)
	var rec recorder
	ans, err := newAgent(m, set).Run(context.Background(), nil, "How many distributor agreements are there?", rec.emit)
	if err != nil {
		t.Fatal(err)
	}
	want := []agent.EventType{agent.EventToolCall, agent.EventToolResult, agent.EventAnswer, agent.EventDone}
	if diff := cmp.Diff(want, rec.types()); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
	if ans.Text != "There is one distributor agreement, c03, which ended on 2005-12-31." {
		t.Errorf("answer text %q: the Sources line should be replaced by citations", ans.Text)
	}
	if diff := cmp.Diff([]agent.Citation{{ContractID: "c03"}}, ans.Citations); diff != "" {
		t.Errorf("citations (-want +got):\n%s", diff)
	}
	if ans.Usage == nil || ans.Usage.InputTokens != 20 {
		t.Errorf("usage = %+v, want the sum of both calls", ans.Usage)
	}

	reqs := m.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d model calls, want 2", len(reqs))
	}
	var names []string
	for _, d := range reqs[0].Tools {
		names = append(names, d.Name)
		if !json.Valid(d.InputSchema) || !strings.Contains(string(d.InputSchema), `"properties"`) {
			t.Errorf("tool %s schema %s", d.Name, d.InputSchema)
		}
	}
	if diff := cmp.Diff(set.Names(), names); diff != "" {
		t.Errorf("tools offered (-want +got):\n%s", diff)
	}
	sys := reqs[0].Messages[0]
	if sys.Role != llm.RoleSystem || !strings.Contains(sys.Content, "2026-03-14") {
		t.Errorf("system prompt lacks today's date: %q", sys.Content)
	}
	toolMsg := reqs[1].Messages[3]
	realResult, err := set.Call(context.Background(), "contract_search", json.RawMessage(`{"contract_type":"Distributor"}`))
	if err != nil {
		t.Fatal(err)
	}
	if toolMsg.Role != llm.RoleTool || toolMsg.ToolCallID != "call_1" || toolMsg.Content != string(realResult) {
		t.Errorf("tool message = %+v, want the tool's real result %s", toolMsg, realResult)
	}
	res := rec.ofType(agent.EventToolResult)[0].ToolResult
	if string(res.Result) != string(realResult) || res.Error != "" {
		t.Errorf("tool_result event = %+v", res)
	}
	if got := rec.ofType(agent.EventAnswer)[0].Answer; got != ans {
		t.Errorf("answer event carries %+v, Run returned %+v", got, ans)
	}
}

func TestWrongArgumentCorrected(t *testing.T) {
	m := llmtest.NewScripted(
		llmtest.Calls(llmtest.Call("a", "contract_search", `{"contract_type":"Distributer"}`)),
		llmtest.Calls(llmtest.Call("b", "contract_search", `{"contract_type":"Distributor"}`)),
		llmtest.Text("One: c03.\nSources: c03"),
	)
	var rec recorder
	ans, err := newAgent(m, toolSet(t)).Run(context.Background(), nil, "distributors?", rec.emit)
	if err != nil {
		t.Fatal(err)
	}
	results := rec.ofType(agent.EventToolResult)
	if len(results) != 2 || results[0].ToolResult.Error == "" || results[1].ToolResult.Error != "" {
		t.Fatalf("tool results = %+v", results)
	}
	fed := m.Requests()[1].Messages[3]
	if fed.Role != llm.RoleTool || !strings.Contains(fed.Content, "contract_type") || !strings.Contains(fed.Content, "Distributor") {
		t.Errorf("the model did not get the tool's error naming the field and valid values: %q", fed.Content)
	}
	var e struct{ Error string }
	if err := json.Unmarshal([]byte(fed.Content), &e); err != nil || e.Error == "" {
		t.Errorf("tool error should reach the model as {\"error\": ...}: %q", fed.Content)
	}
	if len(ans.Citations) != 1 || ans.Citations[0].ContractID != "c03" {
		t.Errorf("citations = %+v", ans.Citations)
	}
}

func TestUnknownToolAndMalformedArguments(t *testing.T) {
	m := llmtest.NewScripted(
		llmtest.Calls(
			llmtest.Call("x", "cypher_query", `{"q":"MATCH (n) RETURN n"}`),
			llmtest.Call("y", "contract_search", `{"contract_type":`),
			llmtest.Call("z", "contract_search", `{"contract_type":"Franchise"}`),
		),
		llmtest.Text("c05 is the franchise.\nSources: c05"),
	)
	var rec recorder
	ans, err := newAgent(m, toolSet(t)).Run(context.Background(), nil, "franchise?", rec.emit)
	if err != nil {
		t.Fatal(err)
	}
	msgs := m.Requests()[1].Messages
	tail := msgs[len(msgs)-3:]
	var ids []string
	for _, msg := range tail {
		ids = append(ids, msg.ToolCallID)
	}
	if diff := cmp.Diff([]string{"x", "y", "z"}, ids); diff != "" {
		t.Errorf("tool messages out of call order (-want +got):\n%s", diff)
	}
	if !strings.Contains(tail[0].Content, "unknown tool") || !strings.Contains(tail[0].Content, "contract_search") {
		t.Errorf("unknown tool message %q should list the valid tools", tail[0].Content)
	}
	if !strings.Contains(tail[1].Content, "not valid JSON") {
		t.Errorf("malformed arguments message %q", tail[1].Content)
	}
	if !strings.Contains(tail[2].Content, `"c05"`) {
		t.Errorf("good call result %q", tail[2].Content)
	}
	call := rec.ofType(agent.EventToolCall)[1].ToolCall
	if !json.Valid(call.Arguments) {
		t.Errorf("tool_call event arguments must stay valid JSON for the event stream: %s", call.Arguments)
	}
	if diff := cmp.Diff([]agent.Citation{{ContractID: "c05"}}, ans.Citations); diff != "" {
		t.Errorf("citations (-want +got):\n%s", diff)
	}
}

func TestMaxSteps(t *testing.T) {
	call := llmtest.Calls(llmtest.Call("", "contract_search", `{}`))
	m := llmtest.NewScripted(call, call, call)
	a := newAgent(m, toolSet(t))
	a.MaxSteps = 2
	var rec recorder
	ans, err := a.Run(context.Background(), nil, "loop forever", rec.emit)
	if !errors.Is(err, agent.ErrMaxSteps) || ans != nil {
		t.Fatalf("Run = %v, %v; want ErrMaxSteps", ans, err)
	}
	if m.Remaining() != 1 {
		t.Errorf("model called %d times, want 2", 3-m.Remaining())
	}
	types := rec.types()
	if diff := cmp.Diff([]agent.EventType{agent.EventError, agent.EventDone}, types[len(types)-2:]); diff != "" {
		t.Errorf("last events (-want +got):\n%s", diff)
	}
}

func TestCitationsOnlyFromToolResults(t *testing.T) {
	m := llmtest.NewScripted(
		llmtest.Calls(llmtest.Call("a", "contract_search", `{"contract_type":"Sponsorship","order_by":"end_date"}`)),
		// c01 exists in the store but no tool returned it; c99 exists nowhere.
		llmtest.Text("The sponsorships are c08 and c09 (Festival Deal); compare c01.\nSources: c09, c08, c99, c01"),
	)
	ans, err := newAgent(m, toolSet(t)).Run(context.Background(), nil, "sponsorships?", nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []agent.Citation{{ContractID: "c09", Title: "Festival Deal"}, {ContractID: "c08"}}
	if diff := cmp.Diff(want, ans.Citations); diff != "" {
		t.Errorf("citations (-want +got):\n%s", diff)
	}
}

func TestClauseSpansCited(t *testing.T) {
	set := toolSet(t)
	res, err := set.Call(context.Background(), "clause_search", json.RawMessage(`{"query":"terminate"}`))
	if err != nil {
		t.Fatal(err)
	}
	var cr tools.ClauseResult
	if err := json.Unmarshal(res, &cr); err != nil || len(cr.Passages) == 0 {
		t.Fatalf("fixture has no passage for 'terminate': %s, %v", res, err)
	}
	var hit *struct{ id, typ string }
	for _, p := range cr.Passages {
		if p.ClauseType != "" {
			hit = &struct{ id, typ string }{p.ContractID, p.ClauseType}
			break
		}
	}
	if hit == nil {
		t.Fatalf("fixture passages for 'terminate' carry no clause types: %s", res)
	}
	m := llmtest.NewScripted(
		llmtest.Calls(llmtest.Call("a", "clause_search", `{"query":"terminate"}`)),
		llmtest.Text("See "+hit.id+".\nSources: "+hit.id),
	)
	ans, err := newAgent(m, set).Run(context.Background(), nil, "termination?", nil)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, c := range ans.Citations {
		if c.ContractID != hit.id {
			t.Errorf("citation of an uncited contract: %+v", c)
		}
		if c.ClauseType == hit.typ && c.Start != nil && c.End != nil && *c.End > *c.Start {
			found = true
		}
	}
	if !found {
		t.Errorf("citations %+v lack the %s span clause_search returned", ans.Citations, hit.typ)
	}
}

// barrierTools proves concurrency: each call waits until n calls are in
// flight at once (or fails after a timeout).
type barrierTools struct {
	*tools.Set
	n       int
	mu      sync.Mutex
	arrived int
	all     chan struct{}
}

func (b *barrierTools) Call(ctx context.Context, name string, args json.RawMessage) (json.RawMessage, error) {
	b.mu.Lock()
	b.arrived++
	if b.arrived == b.n {
		close(b.all)
	}
	b.mu.Unlock()
	select {
	case <-b.all:
	case <-time.After(5 * time.Second):
		return nil, errors.New("calls did not run concurrently")
	}
	return b.Set.Call(ctx, name, args)
}

func TestParallelToolCalls(t *testing.T) {
	tb := &barrierTools{Set: toolSet(t), n: 3, all: make(chan struct{})}
	m := llmtest.NewScripted(
		llmtest.Calls(
			llmtest.Call("1", "get_contract", `{"contract_id":"c01"}`),
			llmtest.Call("2", "get_contract", `{"contract_id":"c02"}`),
			llmtest.Call("3", "get_contract", `{"contract_id":"c03"}`),
		),
		llmtest.Text("Supply Agreement and Software License.\nSources: c01, c02"),
	)
	var rec recorder
	ans, err := newAgent(m, tb).Run(context.Background(), nil, "compare", rec.emit)
	if err != nil {
		t.Fatal(err)
	}
	for i, e := range rec.ofType(agent.EventToolResult) {
		if e.ToolResult.Error != "" {
			t.Fatalf("call %d: %s", i+1, e.ToolResult.Error)
		}
		if want := []string{`"c01"`, `"c02"`, `"c03"`}[i]; !strings.Contains(string(e.ToolResult.Result), want) {
			t.Errorf("result %d is not for %s: results must keep call order", i, want)
		}
	}
	want := []agent.Citation{{ContractID: "c01", Title: "Supply Agreement"}, {ContractID: "c02", Title: "Software License"}}
	if diff := cmp.Diff(want, ans.Citations, cmpNoSpans()); diff != "" {
		t.Errorf("citations (-want +got):\n%s", diff)
	}
}

// cmpNoSpans ignores clause-span citations; get_contract returns clauses
// whose types the answer may mention.
func cmpNoSpans() cmp.Option {
	return cmp.Transformer("contracts", func(cs []agent.Citation) []agent.Citation {
		var out []agent.Citation
		for _, c := range cs {
			if c.ClauseType == "" {
				out = append(out, c)
			}
		}
		return out
	})
}

func TestStreamingEmitsTokens(t *testing.T) {
	m := llmtest.NewScripted(
		llmtest.Calls(llmtest.Call("a", "contract_search", `{"contract_type":"Franchise"}`)),
		llmtest.Text("The franchise agreement is c05.\nSources: c05"),
	).Streaming()
	var rec recorder
	ans, err := newAgent(m, toolSet(t)).Run(context.Background(), nil, "franchise?", rec.emit)
	if err != nil {
		t.Fatal(err)
	}
	var streamed strings.Builder
	for _, e := range rec.ofType(agent.EventToken) {
		streamed.WriteString(e.Token)
	}
	if streamed.String() != "The franchise agreement is c05.\nSources: c05" {
		t.Errorf("tokens = %q", streamed.String())
	}
	if len(rec.ofType(agent.EventToken)) < 3 {
		t.Errorf("want several token events, got %d", len(rec.ofType(agent.EventToken)))
	}
	if ans.Text != "The franchise agreement is c05." || len(ans.Citations) != 1 {
		t.Errorf("answer %+v", ans)
	}
}

func TestHistoryPassedIn(t *testing.T) {
	m := llmtest.NewScripted(llmtest.Text("It ended on 2005-12-31 (c03).\nSources: none"))
	history := []llm.Message{
		{Role: llm.RoleSystem, Content: "old system prompt"},
		{Role: llm.RoleUser, Content: "Which distributor agreement do we have?"},
		{Role: llm.RoleAssistant, Content: "c03."},
	}
	ans, err := newAgent(m, toolSet(t)).Run(context.Background(), history, "When did it end?", nil)
	if err != nil {
		t.Fatal(err)
	}
	msgs := m.Requests()[0].Messages
	var roles []llm.Role
	for _, msg := range msgs {
		roles = append(roles, msg.Role)
	}
	if diff := cmp.Diff([]llm.Role{llm.RoleSystem, llm.RoleUser, llm.RoleAssistant, llm.RoleUser}, roles); diff != "" {
		t.Errorf("roles (-want +got):\n%s", diff)
	}
	if strings.Contains(msgs[0].Content, "old system prompt") || msgs[3].Content != "When did it end?" {
		t.Errorf("messages = %+v", msgs)
	}
	if len(ans.Citations) != 0 {
		t.Errorf("no tool ran, so no citation is possible: %+v", ans.Citations)
	}
}

func TestCriticSecondPass(t *testing.T) {
	m := llmtest.NewScripted(
		llmtest.Text(`{"question":"Which sponsorship agreements exist, and what is the notice period of each?"}`),
		llmtest.Calls(llmtest.Call("a", "contract_search", `{"contract_type":"Sponsorship"}`)),
		llmtest.Text("Sponsorships: c08 and c09.\nSources: c08, c09"),
		llmtest.Text(`{"complete":false,"follow_ups":["What is the notice period of c09?"]}`),
		llmtest.Calls(llmtest.Call("b", "get_contract", `{"contract_id":"c09"}`)),
		llmtest.Text("Sponsorships: c08 and c09 (Festival Deal); c09's record states no notice period.\nSources: c08, c09"),
	).Streaming()
	a := newAgent(m, toolSet(t))
	a.Rewrite, a.Critic = true, true
	history := []llm.Message{{Role: llm.RoleUser, Content: "List sponsorship deals."}, {Role: llm.RoleAssistant, Content: "c08, c09"}}
	var rec recorder
	ans, err := a.Run(context.Background(), history, "and their notice periods?", rec.emit)
	if err != nil {
		t.Fatal(err)
	}
	reqs := m.Requests()
	if len(reqs) != 6 {
		t.Fatalf("%d model calls, want 6", len(reqs))
	}
	if reqs[0].ResponseFormat == nil || !strings.Contains(reqs[0].Messages[0].Content, "List sponsorship deals.") {
		t.Errorf("rewrite call should be structured and see the conversation: %+v", reqs[0])
	}
	if last := reqs[1].Messages[len(reqs[1].Messages)-1]; last.Content != "Which sponsorship agreements exist, and what is the notice period of each?" {
		t.Errorf("first pass asked %q, want the rewritten question", last.Content)
	}
	critic := reqs[3]
	if critic.ResponseFormat == nil || !strings.Contains(critic.Messages[0].Content, "Sponsorships: c08 and c09.") ||
		!strings.Contains(critic.Messages[0].Content, `contract_search {"contract_type":"Sponsorship"}`) {
		t.Errorf("critic prompt lacks the draft or the calls: %q", critic.Messages[0].Content)
	}
	follow := reqs[4].Messages[len(reqs[4].Messages)-1]
	if follow.Role != llm.RoleUser || !strings.Contains(follow.Content, "What is the notice period of c09?") {
		t.Errorf("second pass prompt = %+v", follow)
	}
	var tokens strings.Builder
	for _, e := range rec.ofType(agent.EventToken) {
		tokens.WriteString(e.Token)
	}
	if strings.Contains(tokens.String(), "Sponsorships: c08 and c09.\n") || !strings.Contains(tokens.String(), "Festival Deal") {
		t.Errorf("only the final answer should stream, got %q", tokens.String())
	}
	want := []agent.Citation{{ContractID: "c08"}, {ContractID: "c09", Title: "Festival Deal"}}
	if diff := cmp.Diff(want, ans.Citations, cmpNoSpans()); diff != "" {
		t.Errorf("citations (-want +got):\n%s", diff)
	}
	if len(rec.ofType(agent.EventToolCall)) != 2 {
		t.Errorf("tool calls across both passes = %d, want 2", len(rec.ofType(agent.EventToolCall)))
	}
}

func TestCriticSatisfied(t *testing.T) {
	m := llmtest.NewScripted(
		llmtest.Text(`{"question":"How many franchise agreements are there?"}`),
		llmtest.Calls(llmtest.Call("a", "contract_search", `{"contract_type":"Franchise"}`)),
		llmtest.Text("One: c05.\nSources: c05"),
		llmtest.Text(`{"complete":true,"follow_ups":[]}`),
	)
	a := newAgent(m, toolSet(t))
	a.Rewrite, a.Critic = true, true
	var rec recorder
	ans, err := a.Run(context.Background(), nil, "how many franchise agreements?", rec.emit)
	if err != nil {
		t.Fatal(err)
	}
	if m.Remaining() != 0 || ans.Text != "One: c05." || len(ans.Citations) != 1 {
		t.Errorf("answer %+v, %d steps left", ans, m.Remaining())
	}
	if toks := rec.ofType(agent.EventToken); len(toks) != 1 || toks[0].Token != "One: c05.\nSources: c05" {
		t.Errorf("the accepted draft should be emitted once as tokens: %+v", toks)
	}
}

func TestCriticFailuresKeepGoing(t *testing.T) {
	m := llmtest.NewScripted(
		llmtest.Text(`not json`), // rewrite fails: keep the original question
		llmtest.Text("No tools needed.\nSources: none"),
		llmtest.Text(`{"complete":"maybe"}`), // critic fails: keep the draft
	)
	a := newAgent(m, toolSet(t))
	a.Rewrite, a.Critic = true, true
	ans, err := a.Run(context.Background(), nil, "hello?", nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := m.Requests()[1].Messages[1].Content; got != "hello?" {
		t.Errorf("asked %q, want the original question", got)
	}
	if ans.Text != "No tools needed." {
		t.Errorf("answer %q", ans.Text)
	}
}

func TestModelError(t *testing.T) {
	m := llmtest.NewScripted(llmtest.Fail(&llm.APIError{Provider: "openai", Kind: llm.ErrAuth, StatusCode: 401, Message: "bad key"}))
	var rec recorder
	_, err := newAgent(m, toolSet(t)).Run(context.Background(), nil, "q", rec.emit)
	if !errors.Is(err, llm.ErrAuth) {
		t.Fatalf("err = %v", err)
	}
	if errs := rec.ofType(agent.EventError); len(errs) != 1 || !strings.Contains(errs[0].Error, "bad key") {
		t.Errorf("error events = %+v", errs)
	}
}

func TestContextCancelledDuringTools(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	tb := &cancelTools{Set: toolSet(t), cancel: cancel}
	m := llmtest.NewScripted(llmtest.Calls(llmtest.Call("a", "contract_search", `{}`)), llmtest.Text("never"))
	_, err := newAgent(m, tb).Run(ctx, nil, "q", nil)
	if !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want context.Canceled", err)
	}
}

type cancelTools struct {
	*tools.Set
	cancel context.CancelFunc
}

func (c *cancelTools) Call(ctx context.Context, name string, args json.RawMessage) (json.RawMessage, error) {
	c.cancel()
	<-ctx.Done()
	return nil, ctx.Err()
}

func TestBadInput(t *testing.T) {
	if _, err := newAgent(llmtest.NewScripted(), toolSet(t)).Run(context.Background(), nil, "  ", nil); err == nil {
		t.Error("empty question accepted")
	}
	if _, err := (&agent.Agent{}).Run(context.Background(), nil, "q", nil); err == nil {
		t.Error("agent without model accepted")
	}
}

func TestNoStream(t *testing.T) {
	m := llmtest.NewScripted(llmtest.Text("Nothing to look up.\nSources: none")).Streaming()
	a := newAgent(m, toolSet(t))
	a.NoStream = true
	var rec recorder
	ans, err := a.Run(context.Background(), nil, "hi", rec.emit)
	if err != nil {
		t.Fatal(err)
	}
	if toks := rec.ofType(agent.EventToken); len(toks) != 0 {
		t.Errorf("NoStream still emitted %d token events", len(toks))
	}
	if ans.Text != "Nothing to look up." {
		t.Errorf("answer %q", ans.Text)
	}
}
