package demo

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/contractgraph/contractgraph/internal/graph"
	"github.com/contractgraph/contractgraph/internal/playbook"
	"github.com/contractgraph/contractgraph/internal/tools"
)

// Step is one stop of the guided tour: a question in plain language and the
// tool call that answers it.
type Step struct {
	Question string          `json:"question"`
	Tool     string          `json:"tool"`
	Args     json.RawMessage `json:"args"`
}

// Tour returns the guided tour's steps. Every step's answer is fixed by the
// demo data (dates are explicit, never "today"), so the tour reads the same
// on every machine.
func Tour() []Step {
	return []Step{
		{
			Question: "What kinds of contracts are in the graph?",
			Tool:     tools.NameContractAggregate,
			Args:     json.RawMessage(`{"group_by":"contract_type","metric":"count","limit":5}`),
		},
		{
			Question: "Which of Cascade Instruments' contracts were still in force on 1 July 2025?",
			Tool:     tools.NameContractSearch,
			Args:     json.RawMessage(`{"parties":["cascade instruments"],"active":true,"as_of":"2025-07-01","order_by":"end_date","order":"asc"}`),
		},
		{
			Question: "Which US state's law governs the most contracts?",
			Tool:     tools.NameContractAggregate,
			Args:     json.RawMessage(`{"governing_law_country":"United States","group_by":"governing_law_state","limit":3}`),
		},
		{
			Question: "What does our SaaS agreement with Kestrel Health say about limiting liability?",
			Tool:     tools.NameClauseSearch,
			Args:     json.RawMessage(`{"query":"total liability","parties":["Kestrel Health"],"clause_types":["Liability & Indemnification"],"limit":2}`),
		},
		{
			Question: "Which counterparties are based in Germany, and how many contracts does each have?",
			Tool:     tools.NamePartySearch,
			Args:     json.RawMessage(`{"country":"Germany","limit":3}`),
		},
		{
			Question: "Show me the Nordlicht distribution agreement with its clauses.",
			Tool:     tools.NameGetContract,
			Args:     json.RawMessage(`{"contract_id":"demo-distribution-nordlicht"}`),
		},
	}
}

// Answer is a tour step with its tool result.
type Answer struct {
	Step
	Result json.RawMessage `json:"result"`
}

// RunTour answers every step of the tour with set.
func RunTour(ctx context.Context, set *tools.Set) ([]Answer, error) {
	var out []Answer
	for i, st := range Tour() {
		res, err := set.Call(ctx, st.Tool, st.Args)
		if err != nil {
			return nil, fmt.Errorf("tour step %d (%s): %w", i+1, st.Tool, err)
		}
		out = append(out, Answer{Step: st, Result: res})
	}
	return out, nil
}

// Render prints the answers for a person: each question, the command that
// asks it (command, e.g. "contractgraph --db demo.db", then "tools call"
// and the arguments, quoted for a POSIX shell), and the result as `tools
// call` shows it (tools.WriteText), indented under its question.
func Render(w io.Writer, answers []Answer, command string, opts tools.TextOptions) error {
	opts.Indent += "   "
	for i, a := range answers {
		if _, err := fmt.Fprintf(w, "%d. %s\n   $ %s tools call %s %s\n", i+1, a.Question, command, a.Tool, shellQuote(string(a.Args))); err != nil {
			return err
		}
		if err := tools.WriteText(w, a.Tool, a.Args, a.Result, opts); err != nil {
			return fmt.Errorf("render step %d: %w", i+1, err)
		}
		if _, err := io.WriteString(w, "\n"); err != nil {
			return err
		}
	}
	return nil
}

// shellQuote quotes s for a POSIX shell.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// PlaybookContract is the sample contract the tour checks against the
// example playbook: it meets some positions, deviates from others and
// lacks two required clauses.
const PlaybookContract = "demo-saas-kestrel"

// PlaybookQuestion is the tour's playbook stop.
const PlaybookQuestion = "Does our SaaS agreement with Kestrel Health meet the example playbook for commercial agreements?"

// CheckPlaybook checks PlaybookContract against the example playbook,
// without a model.
func CheckPlaybook(ctx context.Context, store graph.Store, now time.Time) (*playbook.Report, error) {
	pb, err := playbook.ParseExample()
	if err != nil {
		return nil, fmt.Errorf("example playbook: %w", err)
	}
	c, err := store.GetContract(ctx, PlaybookContract)
	if err != nil {
		return nil, fmt.Errorf("tour playbook check: %w", err)
	}
	return playbook.Check(pb, c, now), nil
}

// RenderPlaybook prints the playbook stop as step n of the tour: the
// question, the command that answers it and one line per entry (verdict,
// closest position, the decisive reason).
func RenderPlaybook(w io.Writer, n int, rep *playbook.Report, command string) error {
	var b strings.Builder
	fmt.Fprintf(&b, "%d. %s\n   $ %s playbook check %s\n", n, PlaybookQuestion, command, rep.ContractID)
	var counts []string
	for _, v := range playbook.Verdicts {
		counts = append(counts, fmt.Sprintf("%d %s", rep.Counts.Of(v), v.Label()))
	}
	fmt.Fprintf(&b, "   %s\n", strings.Join(counts, " · "))
	for _, r := range rep.Results {
		closest := ""
		if r.Closest != nil {
			closest = fmt.Sprintf("%s %.2f", r.Closest.Position, r.Closest.Similarity)
		}
		why := ""
		if len(r.Reasons) > 0 {
			why = r.Reasons[len(r.Reasons)-1]
		}
		fmt.Fprintf(&b, "   %-28s %-20s %-15s %s\n", r.Title, r.Verdict.Label(), closest, why)
	}
	b.WriteString("\n")
	_, err := io.WriteString(w, b.String())
	return err
}
