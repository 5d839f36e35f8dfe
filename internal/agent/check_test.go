package agent_test

import (
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/contractgraph/contractgraph/internal/agent"
	"github.com/contractgraph/contractgraph/internal/llm"
	"github.com/contractgraph/contractgraph/internal/llm/llmtest"
)

func lastMessage(req *llm.Request) llm.Message { return req.Messages[len(req.Messages)-1] }

// TestRewriteAlone: rewriting without the critic rewrites, shows the
// rewritten question as an event and asks it, with no critic call.
func TestRewriteAlone(t *testing.T) {
	m := llmtest.NewScripted(
		llmtest.Text(`{"question":"How many franchise agreements are there?"}`),
		llmtest.Calls(llmtest.Call("a", "contract_search", `{"contract_type":"Franchise"}`)),
		llmtest.Text("One: c05.\nSources: c05"),
	)
	a := newAgent(m, toolSet(t))
	a.Rewrite = true
	var rec recorder
	ans, err := a.Run(context.Background(), nil, "franchises?", rec.emit)
	if err != nil {
		t.Fatal(err)
	}
	if m.Remaining() != 0 || len(m.Requests()) != 3 || ans.Text != "One: c05." {
		t.Fatalf("answer %q after %d model calls, %d scripted replies left", ans.Text, len(m.Requests()), m.Remaining())
	}
	if got := lastMessage(m.Requests()[1]).Content; got != "How many franchise agreements are there?" {
		t.Errorf("the tool loop was asked %q, want the rewritten question", got)
	}
	ev := rec.ofType(agent.EventRewrite)
	want := []agent.Event{{Type: agent.EventRewrite, Rewrite: &agent.RewriteEvent{Original: "franchises?", Question: "How many franchise agreements are there?"}}}
	if diff := cmp.Diff(want, ev); diff != "" {
		t.Errorf("rewrite events (-want +got):\n%s", diff)
	}
	if types := rec.types(); types[0] != agent.EventRewrite || len(rec.ofType(agent.EventCritique)) != 0 {
		t.Errorf("events %v: want the rewrite first and no critique", types)
	}
}

// TestRewriteAddingFiguresIsSetAside: a rewrite that states figures the
// user never gave is not asked; the question is, and the event shows the
// rewrite and why it was set aside.
func TestRewriteAddingFiguresIsSetAside(t *testing.T) {
	m := llmtest.NewScripted(
		llmtest.Text(`{"question":"How many franchise agreements were signed between January 1, 2025, and December 31, 2026?"}`),
		llmtest.Calls(llmtest.Call("a", "contract_search", `{"contract_type":"Franchise"}`)),
		llmtest.Text("One: c05.\nSources: c05"),
	)
	a := newAgent(m, toolSet(t))
	a.Rewrite = true
	var rec recorder
	if _, err := a.Run(context.Background(), nil, "How many franchise agreements are there?", rec.emit); err != nil {
		t.Fatal(err)
	}
	if got := lastMessage(m.Requests()[1]).Content; got != "How many franchise agreements are there?" {
		t.Errorf("the tool loop was asked %q, want the question as asked", got)
	}
	ev := rec.ofType(agent.EventRewrite)
	if len(ev) != 1 {
		t.Fatalf("%d rewrite events, want 1", len(ev))
	}
	r := ev[0].Rewrite
	if r.Question != "How many franchise agreements are there?" || !strings.Contains(r.SetAside, "January 1, 2025") ||
		!strings.Contains(r.Error, "added 1, 2025, 31, 2026") {
		t.Errorf("rewrite event = %+v", r)
	}
}

// TestCriticAlone: the critic without rewriting asks the question as it
// was asked, and its follow-ups are an event before the second pass.
func TestCriticAlone(t *testing.T) {
	m := llmtest.NewScripted(
		llmtest.Calls(llmtest.Call("a", "contract_search", `{"contract_type":"Sponsorship"}`)),
		llmtest.Text("Sponsorships: c08 and c09.\nSources: c08, c09"),
		llmtest.Text(`{"complete":false,"follow_ups":["What is the title of c09?"]}`),
		llmtest.Calls(llmtest.Call("b", "get_contract", `{"contract_id":"c09"}`)),
		llmtest.Text("Sponsorships: c08 and c09 (Festival Deal).\nSources: c08, c09"),
	).Streaming()
	a := newAgent(m, toolSet(t))
	a.Critic = true
	var rec recorder
	ans, err := a.Run(context.Background(), nil, "sponsorship deals and their titles?", rec.emit)
	if err != nil {
		t.Fatal(err)
	}
	if got := lastMessage(m.Requests()[0]).Content; got != "sponsorship deals and their titles?" {
		t.Errorf("first request asked %q, want the question as asked", got)
	}
	if len(rec.ofType(agent.EventRewrite)) != 0 {
		t.Error("a rewrite event without rewriting")
	}
	want := []agent.Event{{Type: agent.EventCritique, Critique: &agent.CritiqueEvent{FollowUps: []string{"What is the title of c09?"}}}}
	if diff := cmp.Diff(want, rec.ofType(agent.EventCritique)); diff != "" {
		t.Errorf("critique events (-want +got):\n%s", diff)
	}
	// The critique comes after the first pass's tools and before the second's.
	var order []agent.EventType
	for _, e := range rec.events {
		if e.Type == agent.EventToolCall || e.Type == agent.EventCritique {
			order = append(order, e.Type)
		}
	}
	if diff := cmp.Diff([]agent.EventType{agent.EventToolCall, agent.EventCritique, agent.EventToolCall}, order); diff != "" {
		t.Errorf("order of calls and critique (-want +got):\n%s", diff)
	}
	if !strings.Contains(ans.Text, "Festival Deal") {
		t.Errorf("answer %q, want the second pass's", ans.Text)
	}
}

// TestCriticFailureIsShown: a critic that fails leaves the draft and says
// why in its event.
func TestCriticFailureIsShown(t *testing.T) {
	m := llmtest.NewScripted(
		llmtest.Text("No tools needed.\nSources: none"),
		llmtest.Text(`{"complete":"maybe"}`),
		llmtest.Text(`{"complete":"maybe"}`), // the repair round fails too
	)
	a := newAgent(m, toolSet(t))
	a.Critic = true
	var rec recorder
	ans, err := a.Run(context.Background(), nil, "hello?", rec.emit)
	if err != nil {
		t.Fatal(err)
	}
	ev := rec.ofType(agent.EventCritique)
	if len(ev) != 1 || ev[0].Critique.Complete || ev[0].Critique.Error == "" || ans.Text != "No tools needed." {
		t.Errorf("critique events %+v, answer %q: want one failed critique and the draft", ev, ans.Text)
	}
}

func checks(rec *recorder) []agent.CheckEvent {
	var out []agent.CheckEvent
	for _, e := range rec.ofType(agent.EventCheck) {
		out = append(out, *e.Check)
	}
	return out
}

// TestCheckRetriesWhenEveryCallFailed: every call failing sends the errors
// back for one more pass, whose correct call supports the answer.
func TestCheckRetriesWhenEveryCallFailed(t *testing.T) {
	m := llmtest.NewScripted(
		llmtest.Calls(llmtest.Call("a", "contract_search", `{"contract_type":"Spaceship"}`)),
		llmtest.Text("There are 3 such contracts.\nSources: none"),
		llmtest.Calls(llmtest.Call("b", "contract_search", `{"contract_type":"Franchise"}`)),
		llmtest.Text("There is one franchise agreement: c05.\nSources: c05"),
	).Streaming()
	a := newAgent(m, toolSet(t))
	a.Check = true
	var rec recorder
	ans, err := a.Run(context.Background(), nil, "How many franchise agreements are there?", rec.emit)
	if err != nil {
		t.Fatal(err)
	}
	if m.Remaining() != 0 {
		t.Fatalf("%d scripted replies left: the check's extra pass did not run", m.Remaining())
	}
	retry := lastMessage(m.Requests()[2])
	if retry.Role != llm.RoleUser || !strings.Contains(retry.Content, `contract_search {"contract_type":"Spaceship"} failed`) ||
		!strings.Contains(retry.Content, "How many franchise agreements are there?") {
		t.Errorf("the extra pass was asked %q, want the failed call and the question", retry.Content)
	}
	got := checks(&rec)
	if len(got) != 2 || got[0].Sufficient || !got[0].Retry || len(got[0].Gaps) != 1 || !got[1].Sufficient || got[1].Retry {
		t.Errorf("check events %+v: want insufficient with a retry, then sufficient", got)
	}
	if ans.Text != "There is one franchise agreement: c05." || len(ans.Missing) != 0 || len(ans.Notes) != 0 {
		t.Errorf("answer %+v", ans)
	}
	// The superseded draft ("3 such contracts") was never streamed.
	var tokens strings.Builder
	for _, e := range rec.ofType(agent.EventToken) {
		tokens.WriteString(e.Token)
	}
	if strings.Contains(tokens.String(), "3 such") || !strings.Contains(tokens.String(), "one franchise agreement") {
		t.Errorf("streamed %q: want only the answer after the check", tokens.String())
	}
}

// TestCheckSaysWhatIsMissing: results that stay empty after the one extra
// pass end there (no third pass), and the answer lists what is missing.
func TestCheckSaysWhatIsMissing(t *testing.T) {
	m := llmtest.NewScripted(
		llmtest.Calls(llmtest.Call("a", "contract_search", `{"contract_type":"Franchise","min_end_date":"2090-01-01"}`)),
		llmtest.Text("Two franchise agreements end after 2090.\nSources: none"),
		llmtest.Calls(llmtest.Call("b", "contract_search", `{"contract_type":"Franchise","min_end_date":"2090-01-01","max_end_date":"2099-12-31"}`)),
		llmtest.Text("No franchise agreement in the graph ends after 2090.\nSources: none"),
		llmtest.Text("never asked"),
	)
	a := newAgent(m, toolSet(t))
	a.Check = true
	var rec recorder
	ans, err := a.Run(context.Background(), nil, "Which franchise agreements end after 2090?", rec.emit)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(m.Requests()); n != 4 {
		t.Fatalf("%d model calls, want 4: one first pass of two, one extra pass of two", n)
	}
	got := checks(&rec)
	if len(got) != 2 || got[0].Sufficient || !got[0].Retry || got[1].Sufficient || got[1].Retry || len(got[1].Gaps) != 2 {
		t.Fatalf("check events %+v: want insufficient twice, one retry, two gaps at the end", got)
	}
	if ans.Text != "No franchise agreement in the graph ends after 2090." {
		t.Errorf("answer %q", ans.Text)
	}
	if len(ans.Missing) != 2 || !strings.Contains(ans.Missing[1], `"max_end_date":"2099-12-31"`) || !strings.Contains(ans.Missing[1], "returned no results") {
		t.Errorf("missing = %q", ans.Missing)
	}
	if len(ans.Notes) != 1 || !strings.HasPrefix(ans.Notes[0], "The tool results cannot support an answer: ") {
		t.Errorf("notes = %q", ans.Notes)
	}
}

// TestCheckWithoutAnyToolCall: an answer written without looking anything
// up is sent back once; the lookup then supports the answer.
func TestCheckWithoutAnyToolCall(t *testing.T) {
	m := llmtest.NewScripted(
		llmtest.Text("There are 12 sponsorship agreements.\nSources: none"),
		llmtest.Calls(llmtest.Call("a", "contract_search", `{"contract_type":"Sponsorship"}`)),
		llmtest.Text("There are two sponsorship agreements: c08 and c09.\nSources: c08, c09"),
	)
	a := newAgent(m, toolSet(t))
	a.Check = true
	var rec recorder
	ans, err := a.Run(context.Background(), nil, "How many sponsorship agreements are there?", rec.emit)
	if err != nil {
		t.Fatal(err)
	}
	if retry := lastMessage(m.Requests()[1]).Content; !strings.Contains(retry, "no tool was called") {
		t.Errorf("the extra pass was asked %q", retry)
	}
	if len(ans.Citations) != 2 || len(ans.Missing) != 0 || len(ans.UnsupportedFigures) != 0 {
		t.Errorf("answer %+v", ans)
	}
}

// TestCheckPassesUsableResults: a non-empty result passes at once: no
// extra model call, the answer streams as without the check.
func TestCheckPassesUsableResults(t *testing.T) {
	m := llmtest.NewScripted(
		llmtest.Calls(llmtest.Call("a", "contract_search", `{"contract_type":"Franchise"}`)),
		llmtest.Text("One: c05.\nSources: c05"),
	).Streaming()
	a := newAgent(m, toolSet(t))
	a.Check = true
	var rec recorder
	if _, err := a.Run(context.Background(), nil, "How many franchise agreements?", rec.emit); err != nil {
		t.Fatal(err)
	}
	if n := len(m.Requests()); n != 2 {
		t.Errorf("%d model calls, want 2", n)
	}
	if diff := cmp.Diff([]agent.CheckEvent{{Sufficient: true}}, checks(&rec)); diff != "" {
		t.Errorf("check events (-want +got):\n%s", diff)
	}
	if toks := rec.ofType(agent.EventToken); len(toks) < 2 {
		t.Errorf("%d token events: the answer should stream token by token", len(toks))
	}
}

// TestCheckIsOff: without Check an empty result is answered from as it is.
func TestCheckIsOff(t *testing.T) {
	m := llmtest.NewScripted(
		llmtest.Calls(llmtest.Call("a", "contract_search", `{"contract_type":"Franchise","min_end_date":"2090-01-01"}`)),
		llmtest.Text("None.\nSources: none"),
	)
	var rec recorder
	ans, err := newAgent(m, toolSet(t)).Run(context.Background(), nil, "Which franchise agreements end after 2090?", rec.emit)
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Requests()) != 2 || len(rec.ofType(agent.EventCheck)) != 0 || ans.Missing != nil {
		t.Errorf("%d model calls, check events %v, missing %v", len(m.Requests()), rec.ofType(agent.EventCheck), ans.Missing)
	}
}

// TestRunWithOverridesOptions: one agent serves runs with other options.
func TestRunWithOverridesOptions(t *testing.T) {
	m := llmtest.NewScripted(
		llmtest.Text(`{"question":"How many franchise agreements are there?"}`),
		llmtest.Text("I need to look that up.\nSources: none"),
	)
	a := newAgent(m, toolSet(t))
	a.Critic = true // the agent's own default, overridden below
	var rec recorder
	if _, err := a.RunWith(context.Background(), nil, "franchises?", agent.Options{Rewrite: true}, rec.emit); err != nil {
		t.Fatal(err)
	}
	if m.Remaining() != 0 || len(rec.ofType(agent.EventRewrite)) != 1 || len(rec.ofType(agent.EventCritique)) != 0 {
		t.Errorf("events %v with %d replies left: want a rewrite and no critic", rec.types(), m.Remaining())
	}
}

// TestCheckEveryCallFailed: calls that still all fail after the extra
// pass leave no fact to state: the answer lists the failures, the model's
// invented reply is set aside in a note and never streamed.
func TestCheckEveryCallFailed(t *testing.T) {
	m := llmtest.NewScripted(
		llmtest.Calls(llmtest.Call("a", "contract_search", `{"contract_type":"Distributor","limit":-1}`)),
		llmtest.Text("There are no Distributor contracts.\nSources: none"),
		llmtest.Calls(llmtest.Call("b", "contract_search", `{"contract_type":"Distributor","limit":-2}`)),
		llmtest.Text("There are 7 Distributor contracts.\nSources: none"),
	).Streaming()
	a := newAgent(m, toolSet(t))
	a.Check = true
	var rec recorder
	ans, err := a.Run(context.Background(), nil, "How many Distributor contracts are there?", rec.emit)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(ans.Text, "I could not answer this from the contract graph: every tool call failed") ||
		!strings.Contains(ans.Text, `contract_search {"contract_type":"Distributor","limit":-2} failed: limit`) || strings.Contains(ans.Text, "7 Distributor") {
		t.Errorf("answer %q: want the failures and no fact", ans.Text)
	}
	if len(ans.Missing) != 2 || len(ans.Notes) != 2 || !strings.Contains(ans.Notes[1], "There are 7 Distributor contracts.") {
		t.Errorf("missing %q, notes %q: want both failures and the set-aside reply", ans.Missing, ans.Notes)
	}
	var tokens strings.Builder
	for _, e := range rec.ofType(agent.EventToken) {
		tokens.WriteString(e.Token)
	}
	if strings.Contains(tokens.String(), "Distributor contracts.") || !strings.Contains(tokens.String(), "every tool call failed") {
		t.Errorf("streamed %q: want only the failures", tokens.String())
	}
}
