package eval

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/contractgraph/contractgraph/internal/contract"
	"github.com/contractgraph/contractgraph/internal/graph/sqlite"
	"github.com/contractgraph/contractgraph/internal/llm"
	"github.com/contractgraph/contractgraph/internal/llm/llmtest"
	"github.com/contractgraph/contractgraph/internal/risk"
)

func TestTallyRisk(t *testing.T) {
	text := "1. Disputes. All disputes shall be settled by binding ARBITRATION in Geneva.\n2. Liability. Supplier is not liable for anything."
	quote := "All disputes shall be settled by binding arbitration in Geneva." // the model lower-cased a word
	start := strings.Index(text, "All disputes")
	rep := &risk.Report{
		ContractText:      text,
		CitationsProposed: 5,
		Items: []risk.ReportItem{
			{Number: 1, ClauseQuote: quote, ClauseStart: start, ClauseEnd: start + len(quote), Citations: []risk.ReportCitation{{StatuteID: "/us/usc/t9/s2"}}},
			{Number: 2, ClauseQuote: "Supplier is not liable for anything.", ClauseStart: 0, ClauseEnd: 10}, // offsets do not hold it
		},
		RemovedCitations: []risk.RemovedCitation{
			{StatuteID: "/us/usc/t9/s999", Reason: "statute not found"},
			{StatuteID: "/us/usc/t9/s3", Reason: "quote does not appear in the statute text"},
			{StatuteID: "/us/usc/t9/s998", Reason: "statute not found"},
		},
		RemovedItems: []risk.RemovedItem{{Reason: "clause quote does not appear in the contract text"}},
	}
	got := TallyRisk(rep)
	want := RiskTally{
		Proposed: 5, Kept: 1, RemovedInReview: 1, RemovedAtGate: 3,
		GateReasons: []ReasonCount{{"statute not found", 2}, {"quote does not appear in the statute text", 1}},
		ItemsKept:   2, ItemsRemoved: 1,
		ItemReasons:    []ReasonCount{{"clause quote does not appear in the contract text", 1}},
		QuotesVerified: 1, QuoteShare: 1.0 / 3,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("tally (-want +got):\n%s", diff)
	}
	// A report with fewer proposals than outcomes (one from before the
	// count existed) never shows negative review removals.
	rep.CitationsProposed = 0
	if got := TallyRisk(rep); got.RemovedInReview != 0 {
		t.Errorf("removed in review = %d, want 0", got.RemovedInReview)
	}
}

// TestQuoteAt checks that a clause quote counts as verified when the
// contract holds it at its offsets as the risk gate's matcher (textmatch)
// finds it, curly quotes and line-end hyphenation included.
func TestQuoteAt(t *testing.T) {
	text := "5. Term. The \u201cTerm\u201d ends on termi-\nnation of the Licensor\u2019s rights.\n6. Notices."
	span := func(words string) (int, int) {
		i := strings.Index(text, words)
		if i < 0 {
			t.Fatalf("%q is not in the text", words)
		}
		return i, i + len(words)
	}
	start, end := span("The \u201cTerm\u201d ends on termi-\nnation of the Licensor\u2019s rights.")
	for _, tc := range []struct {
		name       string
		quote      string
		start, end int
		want       bool
	}{
		{"verbatim", "The \u201cTerm\u201d ends on termi-\nnation of the Licensor\u2019s rights.", start, end, true},
		{"straight quotes, hyphenation undone", `The "Term" ends on termination of the Licensor's rights.`, start, end, true},
		{"case and white space", "the \"term\"  ENDS on termination\nof the licensor's rights.", start, end, true},
		{"other words", `The "Term" ends on expiry of the Licensor's rights.`, start, end, false},
		{"offsets elsewhere", `The "Term" ends on termination of the Licensor's rights.`, 0, 8, false},
		{"offsets past the text", "Notices.", len(text) - 8, len(text) + 1, false},
		{"empty span", "", start, start, false},
	} {
		if got := quoteAt(text, tc.quote, tc.start, tc.end); got != tc.want {
			t.Errorf("%s: quoteAt(%q, %d, %d) = %v, want %v", tc.name, tc.quote, tc.start, tc.end, got, tc.want)
		}
	}
}

const (
	riskText = "DISTRIBUTION AGREEMENT\n\n1. Disputes. Any dispute arising under this Agreement shall be finally settled by binding arbitration in Geneva, and the parties waive any right to go to court.\n\n" +
		"2. Term. This Agreement runs for two years from the effective date and renews for one year unless a party gives notice.\n"
	riskQuote   = "Any dispute arising under this Agreement shall be finally settled by binding arbitration in Geneva"
	statuteID   = "/xx/test/s2"
	statuteText = "A written provision in any contract to settle by arbitration a controversy arising out of such contract shall be valid, irrevocable, and enforceable."
)

// riskModel plays every stage of a review: rules; an analyst that searches
// statutes, then cites the statute found and an invented one for a real
// clause, and the found statute for a clause the contract does not have;
// a lenient reviewer whose approvals the checks overrule; a revision that
// drops the invented statute but keeps the invented clause; a summary.
func riskModel(t *testing.T) *llmtest.Scripted {
	answer := func(v any) (*llm.Response, error) {
		b, err := json.Marshal(v)
		if err != nil {
			return nil, err
		}
		return &llm.Response{Message: llm.Message{Role: llm.RoleAssistant, Content: string(b)}, Usage: llm.Usage{InputTokens: 100, OutputTokens: 10}}, nil
	}
	found := risk.Citation{StatuteID: statuteID, Quote: "shall be valid, irrevocable, and enforceable"}
	router := func(req *llm.Request) (*llm.Response, error) {
		user := req.Messages[1].Content
		if len(req.Tools) > 0 { // the analyst's tool loop
			if req.Messages[len(req.Messages)-1].Role != llm.RoleTool && !strings.Contains(user, "Revise it") {
				s := llmtest.Calls(llmtest.Call("call-1", "statute_search", `{"query":"arbitration agreement valid enforceable"}`))
				return s.Response, nil
			}
			first := risk.Item{RuleID: "R1", ClauseQuote: riskQuote, RiskLevel: "High", Reasoning: "No court.", Recommendation: "Negotiate.",
				Citations: []risk.Citation{found, {StatuteID: "/xx/test/s999", Quote: "arbitration may be revoked at will"}}}
			if strings.Contains(user, "Revise it") {
				first.Citations = first.Citations[:1]
			}
			invented := risk.Item{RuleID: "R1", ClauseQuote: "The Distributor waives every claim against the Supplier.", RiskLevel: "Medium",
				Reasoning: "Waiver.", Recommendation: "Strike it.", Citations: []risk.Citation{found}}
			return answer(risk.Analysis{Items: []risk.Item{first, invented}})
		}
		if req.ResponseFormat == nil {
			return nil, fmt.Errorf("unexpected request without tools or schema: %q", user)
		}
		switch req.ResponseFormat.Name {
		case "RuleSet":
			return answer(risk.RuleSet{ContractType: "Distributor", Rules: []risk.Rule{{ID: "R1", Title: "Forced arbitration", Severity: "High", Description: "Disputes go to arbitration.", Keywords: []string{"arbitration"}}}})
		case "ReviewDecision":
			return answer(risk.ReviewDecision{Decision: "approve", Problems: []string{}, Items: []risk.Item{}})
		case "Summary":
			return answer(risk.Summary{CoreIssues: []string{"Arbitration."}, Conclusion: "Review the dispute clause."})
		}
		return nil, fmt.Errorf("unexpected response format %q", req.ResponseFormat.Name)
	}
	steps := make([]llmtest.Step, 12)
	for i := range steps {
		steps[i] = llmtest.Step{Func: router}
	}
	return llmtest.NewScripted(steps...)
}

func TestRiskEval(t *testing.T) {
	store, err := sqlite.Open(filepath.Join(t.TempDir(), "s.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	if _, err := store.PutStatutes(context.Background(), []contract.Statute{{ID: statuteID, Jurisdiction: "xx", Code: "Test Code", Number: "2",
		Heading: "Arbitration agreements", Text: statuteText}}); err != nil {
		t.Fatal(err)
	}
	model := riskModel(t)
	inputs := []risk.Input{
		{Contract: &contract.Contract{ID: "dist-1", Text: riskText}},
		{Contract: &contract.Contract{ID: "empty"}},
	}
	var stages []string
	rep, err := RiskEval(context.Background(), risk.Deps{Model: model, Statutes: store}, inputs, func(p RiskProgress) {
		if p.Index == 1 && p.Total == 2 && p.Contract == "dist-1" {
			stages = append(stages, p.Stage)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Contracts != 2 || rep.Failed != 1 || rep.Partial != 1 || rep.NoStatutes != 0 {
		t.Fatalf("contracts %d failed %d partial %d no statutes %d; per contract %+v", rep.Contracts, rep.Failed, rep.Partial, rep.NoStatutes, rep.PerContract)
	}
	if e := rep.PerContract[1].Error; !strings.Contains(e, "no text") {
		t.Errorf("empty contract error = %q", e)
	}
	// Proposed: the clause with the found and the invented statute, and the
	// invented clause with the found one. The revision dropped the invented
	// statute (removed in review); the gate removed the invented clause's
	// item and with it its citation.
	want := RiskTally{
		Proposed: 3, Kept: 1, RemovedInReview: 1, RemovedAtGate: 1,
		GateReasons: []ReasonCount{{"its risk item was removed: clause quote does not appear in the contract text", 1}},
		ItemsKept:   1, ItemsRemoved: 1,
		ItemReasons:    []ReasonCount{{"clause quote does not appear in the contract text", 1}},
		QuotesVerified: 1, QuoteShare: 0.5,
	}
	if diff := cmp.Diff(want, rep.RiskTally); diff != "" {
		t.Errorf("tally (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(want, rep.PerContract[0].RiskTally); diff != "" {
		t.Errorf("dist-1 tally (-want +got):\n%s", diff)
	}
	if rep.Usage.InputTokens == 0 || len(stages) == 0 || stages[len(stages)-1] != "done" {
		t.Errorf("usage %+v, progress stages %v", rep.Usage, stages)
	}

	var md, txt bytes.Buffer
	if err := WriteRiskMarkdown(&md, rep); err != nil {
		t.Fatal(err)
	}
	if err := WriteRiskText(&txt, rep); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"Citations: 3 proposed, 1 kept, 1 removed in review, 1 removed by the final gate",
		"| its risk item was removed: clause quote does not appear in the contract text | 1 |",
		"| empty | failed |",
	} {
		if !strings.Contains(md.String(), want) {
			t.Errorf("Markdown lacks %q:\n%s", want, md.String())
		}
	}
	var page bytes.Buffer
	if err := WriteRiskHTML(&page, rep); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(page.String(), "<td>its risk item was removed: clause quote does not appear in the contract text</td>") {
		t.Errorf("HTML:\n%s", page.String())
	}
	if !strings.Contains(txt.String(), "1 partial reports, 1 failed") || !strings.Contains(txt.String(), "clause quotes verified at their offsets: 1 (50.0% of the items judged)") {
		t.Errorf("text:\n%s", txt.String())
	}
}

func TestRiskEvalStopsWhenCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := RiskEval(ctx, risk.Deps{Model: riskModel(t)}, []risk.Input{{Contract: &contract.Contract{ID: "a", Text: riskText}}}, nil)
	if err == nil || !strings.Contains(err.Error(), "canceled") {
		t.Errorf("err = %v, want the cancellation", err)
	}
}
