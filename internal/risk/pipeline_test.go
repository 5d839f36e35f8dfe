package risk

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/contractgraph/contractgraph/internal/contract"
	"github.com/contractgraph/contractgraph/internal/graph"
	"github.com/contractgraph/contractgraph/internal/graph/sqlite"
	"github.com/contractgraph/contractgraph/internal/llm"
	"github.com/contractgraph/contractgraph/internal/llm/llmtest"
	"github.com/contractgraph/contractgraph/internal/textmatch"
)

// testContract is a small distribution agreement; its clauses are quoted
// by the scripted analyst.
const testContract = `DISTRIBUTION AGREEMENT

This Distribution Agreement is made between Acme Corp ("Supplier") and Beta LLC ("Distributor").

1. Term. This Agreement shall continue for two years and renew automatically for successive one-year terms unless either party gives notice.

2. Liability. In no event shall Supplier be liable for any damages whatsoever, including direct damages, arising out of this Agreement.

3. Disputes. Any dispute arising out of this Agreement shall be settled by binding arbitration in New York, and the award shall be final.

IN WITNESS WHEREOF, the parties have executed this Agreement.
By: ____ Name: Jane Roe Title: CEO`

const (
	quoteArbitration = "Any dispute arising out of this Agreement shall be settled by binding arbitration in New York"
	quoteLiability   = "In no event shall Supplier be liable for any damages whatsoever, including direct damages"
	statuteArb       = "/xx/test/s2"
	statuteLiab      = "/xx/test/s7"
	statuteQuoteArb  = "a written agreement to settle a dispute by arbitration shall be valid and enforceable"
	statuteQuoteLiab = "a clause excluding liability for direct damages caused by gross negligence is void"
)

// testStatutes is a made-up statute book in jurisdiction "xx".
var testStatutes = []contract.Statute{
	{ID: statuteArb, Jurisdiction: "xx", Code: "Test Code", Number: "2", Heading: "Arbitration agreements",
		Text: "(a) In general, " + statuteQuoteArb + ", save upon grounds for the revocation of any contract.", URL: "https://law.example/test/2"},
	{ID: statuteLiab, Jurisdiction: "xx", Code: "Test Code", Number: "7", Heading: "Exclusion of liability",
		Text: "(a) Notwithstanding any agreement, " + statuteQuoteLiab + ".\n(b) Other exclusions are valid.", URL: "https://law.example/test/7"},
	{ID: "/xx/test/s9", Jurisdiction: "xx", Code: "Test Code", Number: "9", Heading: "Automatic renewal",
		Text: "A term that renews a contract automatically binds a consumer only if notice of renewal is given.", URL: "https://law.example/test/9"},
}

func openStore(t *testing.T, statutes []contract.Statute) *sqlite.Store {
	t.Helper()
	s, err := sqlite.Open(filepath.Join(t.TempDir(), "graph.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	if len(statutes) > 0 {
		if _, err := s.PutStatutes(context.Background(), statutes); err != nil {
			t.Fatal(err)
		}
	}
	return s
}

// reply is a scripted structured answer with fixed token usage.
func reply(t *testing.T, v any) llmtest.Step {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return llmtest.Step{Response: &llm.Response{
		Message: llm.Message{Role: llm.RoleAssistant, Content: string(b)},
		Usage:   llm.Usage{InputTokens: 100, OutputTokens: 10},
	}}
}

// search is a scripted statute_search call.
func search(query string) llmtest.Step {
	s := llmtest.Calls(llmtest.Call("call-1", "statute_search", fmt.Sprintf(`{"query":%q}`, query)))
	s.Response.Usage = llm.Usage{InputTokens: 100, OutputTokens: 10}
	return s
}

var testRules = RuleSet{ContractType: "Distributor", Rules: []Rule{
	{ID: "R1", Title: "Forced arbitration", Severity: "High", Description: "Disputes go to arbitration.", Keywords: []string{"arbitration", "dispute"}},
	{ID: "R2", Title: "Liability exclusion", Severity: "high", Description: "Supplier excludes liability.", Keywords: []string{"liable", "damages"}},
}}

func arbItem(statuteID, quote string) Item {
	it := Item{RuleID: "R1", ClauseQuote: quoteArbitration, RiskLevel: "High", Reasoning: "Disputes cannot go to court.",
		AffectedParty: "Distributor", Recommendation: "Negotiate a court option for injunctions."}
	if statuteID != "" {
		it.Citations = []Citation{{StatuteID: statuteID, Quote: quote}}
	}
	return it
}

func approve() ReviewDecision {
	return ReviewDecision{Decision: "approve", Problems: []string{}, Items: []Item{}}
}

func summary() Summary {
	return Summary{CoreIssues: []string{"Arbitration is mandatory."}, Conclusion: "Negotiate before signing."}
}

func runReview(t *testing.T, model llm.Model, statutes graph.StatuteStore, mutate func(*Input)) (*Report, []Progress) {
	t.Helper()
	in := Input{Contract: &contract.Contract{ID: "dist-1", Title: "Distribution Agreement", Text: testContract}, Jurisdiction: "XX"}
	if mutate != nil {
		mutate(&in)
	}
	var progress []Progress
	var mu sync.Mutex
	rep, err := Run(context.Background(), Deps{Model: model, Statutes: statutes, Now: fixedNow}, in, func(p Progress) {
		mu.Lock()
		progress = append(progress, p)
		mu.Unlock()
	})
	if err != nil {
		t.Fatal(err)
	}
	return rep, progress
}

func fixedNow() time.Time { return time.Date(2026, 11, 30, 6, 0, 0, 0, time.UTC) }

// checkCitations asserts the report's invariant: every kept citation is a
// stored statute whose text holds the quote.
func checkCitations(t *testing.T, rep *Report, store graph.StatuteStore) {
	t.Helper()
	for _, it := range rep.Items {
		for _, c := range it.Citations {
			st, err := store.GetStatute(context.Background(), c.StatuteID)
			if err != nil {
				t.Errorf("item %d cites %s: %v", it.Number, c.StatuteID, err)
				continue
			}
			if _, ok := findQuote(textmatch.New(st.Text), c.Quote, 0); !ok {
				t.Errorf("item %d: quote %q is not in %s", it.Number, c.Quote, c.StatuteID)
			}
			if c.URL != st.URL || c.URL == "" {
				t.Errorf("item %d: citation url %q, statute url %q", it.Number, c.URL, st.URL)
			}
		}
		if got := testContract[it.ClauseStart:it.ClauseEnd]; !textmatch.Equal(got, it.ClauseQuote) {
			t.Errorf("item %d: span %d..%d holds %q, not the clause quote", it.Number, it.ClauseStart, it.ClauseEnd, got)
		}
	}
}

func TestHallucinatedStatuteCaughtAndRevisionApproved(t *testing.T) {
	store := openStore(t, testStatutes)
	model := llmtest.NewScripted(
		reply(t, testRules),
		search("arbitration agreement enforceable"),
		reply(t, Analysis{Items: []Item{arbItem("/xx/test/s999", statuteQuoteArb)}}),
		reply(t, approve()), // a lenient reviewer: the automated check overrules it
		search("arbitration agreement valid"),
		reply(t, Analysis{Items: []Item{arbItem(statuteArb, statuteQuoteArb)}}),
		reply(t, approve()),
		reply(t, summary()),
	)
	rep, progress := runReview(t, model, store, nil)

	if model.Remaining() != 0 {
		t.Errorf("%d scripted steps unused", model.Remaining())
	}
	if rep.Partial || !rep.CitationsChecked {
		t.Errorf("partial=%v citations_checked=%v notices=%v", rep.Partial, rep.CitationsChecked, rep.Notices)
	}
	if len(rep.ReviewTrail) != 2 || rep.ReviewTrail[0].Decision != "feedback" || rep.ReviewTrail[1].Decision != "approve" {
		t.Fatalf("review trail = %+v", rep.ReviewTrail)
	}
	wantProblem := `item 1 (rule R1): citation /xx/test/s999 "` + statuteQuoteArb + `": statute not found`
	if !contains(rep.ReviewTrail[0].Problems, wantProblem) {
		t.Errorf("round 1 problems %q lack %q", rep.ReviewTrail[0].Problems, wantProblem)
	}
	if want := "rule R1 item changed: citations [/xx/test/s999] → [/xx/test/s2]"; !contains(rep.ReviewTrail[0].Changes, want) {
		t.Errorf("round 1 changes %q lack %q", rep.ReviewTrail[0].Changes, want)
	}
	// The analyst's revision request names the exact failing citation.
	reqs := model.Requests()
	if revision := reqs[4].Messages[1].Content; !strings.Contains(revision, wantProblem) {
		t.Errorf("revision prompt lacks the failing citation:\n%s", revision)
	}
	want := []ReportItem{{
		Number: 1, RuleID: "R1", RuleTitle: "Forced arbitration", ClauseQuote: quoteArbitration,
		ClauseStart: strings.Index(testContract, quoteArbitration), ClauseEnd: strings.Index(testContract, quoteArbitration) + len(quoteArbitration),
		RiskLevel: "High", Reasoning: "Disputes cannot go to court.", AffectedParty: "Distributor",
		Citations: []ReportCitation{{StatuteID: statuteArb, Citation: "Test Code 2", Heading: "Arbitration agreements",
			URL: "https://law.example/test/2", Quote: statuteQuoteArb}},
		Recommendation: "Negotiate a court option for injunctions.",
	}}
	if diff := cmp.Diff(want, rep.Items); diff != "" {
		t.Errorf("items (-want +got):\n%s", diff)
	}
	if len(rep.RemovedCitations) != 0 {
		t.Errorf("removed citations = %+v, want none", rep.RemovedCitations)
	}
	// The first draft's invented statute and the revision's real one: the
	// review dropped one before the gate.
	if rep.CitationsProposed != 2 {
		t.Errorf("citations proposed = %d, want 2", rep.CitationsProposed)
	}
	if rep.Rules[1].Severity != "High" {
		t.Errorf("rule severity not canonicalised: %q", rep.Rules[1].Severity)
	}
	if want := (llm.Usage{InputTokens: 800, OutputTokens: 80}); rep.Usage != want {
		t.Errorf("usage = %+v, want %+v", rep.Usage, want)
	}
	checkCitations(t, rep, store)
	var stages []string
	for _, p := range progress {
		stages = append(stages, p.Stage)
	}
	if diff := cmp.Diff([]string{"rules", "analysis", "review", "revision", "review", "gate", "summary", "done"}, stages); diff != "" {
		t.Errorf("progress stages (-want +got):\n%s", diff)
	}
}

func TestFinalGateRemovesCitationALenientReviewerKept(t *testing.T) {
	store := openStore(t, testStatutes)
	liab := Item{RuleID: "R2", ClauseQuote: quoteLiability, RiskLevel: "Medium", Reasoning: "Distributor bears all losses.",
		Recommendation: "Cap rather than exclude liability.",
		// The statute exists and holds the quote, but no statute_search of
		// this run returned it: the analyst cited it from memory.
		Citations: []Citation{{StatuteID: statuteLiab, Quote: statuteQuoteLiab}}}
	model := llmtest.NewScripted(
		reply(t, testRules),
		search("arbitration"),
		reply(t, Analysis{Items: []Item{arbItem(statuteArb, statuteQuoteArb), liab}}),
		reply(t, approve()),
		reply(t, summary()),
	)
	rep, _ := runReview(t, model, store, nil)
	if len(rep.ReviewTrail) != 1 || rep.ReviewTrail[0].Decision != "approve" || len(rep.ReviewTrail[0].Problems) != 0 {
		t.Fatalf("the reviewer should have approved with no problems: %+v", rep.ReviewTrail)
	}
	want := []RemovedCitation{{ItemNumber: 2, RuleID: "R2", StatuteID: statuteLiab, Citation: "Test Code 7", Quote: statuteQuoteLiab,
		Reason: "statute was not returned by statute_search during this review"}}
	if diff := cmp.Diff(want, rep.RemovedCitations); diff != "" {
		t.Errorf("removed citations (-want +got):\n%s", diff)
	}
	if len(rep.Items) != 2 || len(rep.Items[0].Citations) != 1 || len(rep.Items[1].Citations) != 0 {
		t.Fatalf("items = %+v", rep.Items)
	}
	if rep.Items[1].LegalBasis == "" {
		t.Error("the item that lost its citation does not say it has no validated legal basis")
	}
	checkCitations(t, rep, store)
}

func TestWrongClauseQuoteRejected(t *testing.T) {
	store := openStore(t, testStatutes)
	wrong := arbItem(statuteArb, statuteQuoteArb)
	wrong.ClauseQuote = "All disputes shall be resolved exclusively by arbitration in London"
	fixed := arbItem(statuteArb, statuteQuoteArb)
	fixed.ClauseQuote = "shall be settled by binding\n arbitration in New York" // whitespace differs from the text
	fixed.ClauseStart, fixed.ClauseEnd = 3, 9                                   // and the offsets are wrong
	model := llmtest.NewScripted(
		reply(t, testRules),
		search("arbitration"),
		reply(t, Analysis{Items: []Item{wrong}}),
		reply(t, ReviewDecision{Decision: "feedback", Problems: []string{"check the quote"}}),
		reply(t, Analysis{Items: []Item{fixed}}),
		reply(t, approve()),
		reply(t, summary()),
	)
	rep, _ := runReview(t, model, store, nil)
	wantProblem := `item 1 (rule R1): clause quote does not appear in the contract text: "All disputes shall be resolved exclusively by arbitration in London"`
	if len(rep.ReviewTrail) != 2 || !contains(rep.ReviewTrail[0].Problems, wantProblem) || !contains(rep.ReviewTrail[0].Problems, "check the quote") {
		t.Fatalf("review trail = %+v", rep.ReviewTrail)
	}
	if len(rep.Items) != 1 {
		t.Fatalf("items = %+v", rep.Items)
	}
	it := rep.Items[0]
	if want := strings.Index(testContract, "shall be settled by binding"); it.ClauseStart != want {
		t.Errorf("clause offsets %d..%d not fixed (want start %d)", it.ClauseStart, it.ClauseEnd, want)
	}
	checkCitations(t, rep, store)
}

func TestNoStatuteStore(t *testing.T) {
	for _, tt := range []struct {
		name  string
		store graph.StatuteStore
		want  string
	}{
		{"none configured", nil, "No statute store is configured: no legal citations could be checked"},
		{"empty store", openStore(t, nil), "The statute store holds no statutes for jurisdiction xx: no legal citations could be checked"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			model := llmtest.NewScripted(
				reply(t, testRules),
				reply(t, Analysis{Items: []Item{arbItem(statuteArb, statuteQuoteArb)}}),
				reply(t, approve()),
				reply(t, summary()),
			)
			rep, _ := runReview(t, model, tt.store, nil)
			if rep.CitationsChecked || len(rep.Notices) != 1 || !strings.Contains(rep.Notices[0], tt.want) {
				t.Errorf("citations_checked=%v notices=%q, want %q", rep.CitationsChecked, rep.Notices, tt.want)
			}
			if len(rep.Items) != 1 || len(rep.Items[0].Citations) != 0 {
				t.Errorf("items = %+v, want one item without citations", rep.Items)
			}
			if len(rep.RemovedCitations) != 1 || rep.RemovedCitations[0].Reason != reasonNoStore {
				t.Errorf("removed citations = %+v", rep.RemovedCitations)
			}
			// The analyst was not offered statute_search and was told why.
			analyst := model.Requests()[1]
			for _, tool := range analyst.Tools {
				if tool.Name == "statute_search" {
					t.Error("statute_search offered without a statute store")
				}
			}
			if !strings.Contains(analyst.Messages[0].Content, "No statute knowledge base is available") {
				t.Error("analyst prompt does not say there is no statute knowledge base")
			}
			var md strings.Builder
			if err := WriteMarkdown(&md, rep); err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(md.String(), "no legal citations could be checked") {
				t.Error("Markdown report does not say no citations could be checked")
			}
		})
	}
}

func TestModelErrorsEndWithPartialReport(t *testing.T) {
	store := openStore(t, testStatutes)
	unavailable := fmt.Errorf("openai: %w", llm.ErrUnavailable)
	tests := []struct {
		name      string
		steps     []llmtest.Step
		notice    string
		items     int
		trail     int
		noSummary bool
	}{
		{"rule generator fails", []llmtest.Step{llmtest.Fail(unavailable)}, "rule generation failed: openai: model unavailable", 0, 0, true},
		{"analyst fails", []llmtest.Step{reply(t, testRules), llmtest.Fail(unavailable)}, "the risk analyst failed", 0, 0, false},
		{"reviewer fails", []llmtest.Step{reply(t, testRules), search("arbitration"), reply(t, Analysis{Items: []Item{arbItem(statuteArb, statuteQuoteArb)}}),
			llmtest.Fail(unavailable), reply(t, summary())}, "the senior reviewer failed in round 1", 1, 1, false},
		{"summariser fails", []llmtest.Step{reply(t, testRules), search("arbitration"), reply(t, Analysis{Items: []Item{arbItem(statuteArb, statuteQuoteArb)}}),
			reply(t, approve()), llmtest.Fail(unavailable)}, "the executive summary could not be written", 1, 1, true},
		{"analyst never answers", []llmtest.Step{reply(t, testRules), search("a"), search("b"), search("c")}, "the risk analyst failed: analyst reached its step limit", 0, 0, false},
		{"malformed reply twice", []llmtest.Step{llmtest.Text("not json"), llmtest.Text("{still not")}, "rule generation failed: model reply does not match the schema", 0, 0, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			model := llmtest.NewScripted(tt.steps...)
			rep, _ := runReview(t, model, store, func(in *Input) { in.MaxSteps = 3 })
			if !rep.Partial || !containsSub(rep.Notices, "Partial report: "+tt.notice) {
				t.Errorf("partial=%v notices=%q, want %q", rep.Partial, rep.Notices, tt.notice)
			}
			if len(rep.Items) != tt.items || len(rep.ReviewTrail) != tt.trail || (rep.Summary == nil) != tt.noSummary {
				t.Errorf("items=%d trail=%d summary=%v", len(rep.Items), len(rep.ReviewTrail), rep.Summary != nil)
			}
			if model.Remaining() != 0 {
				t.Errorf("%d scripted steps unused", model.Remaining())
			}
			checkCitations(t, rep, store)
		})
	}
}

func TestMaxIterationsEndWithPartialReport(t *testing.T) {
	store := openStore(t, testStatutes)
	bad := arbItem("/xx/test/s404", "made up words of a statute that does not exist")
	model := llmtest.NewScripted(
		reply(t, testRules),
		reply(t, Analysis{Items: []Item{bad}}),
		reply(t, ReviewDecision{Decision: "feedback", Problems: []string{"cite a real statute"}}),
		reply(t, Analysis{Items: []Item{bad}}),
		reply(t, ReviewDecision{Decision: "feedback", Problems: []string{"still wrong"}}),
		reply(t, summary()),
	)
	rep, _ := runReview(t, model, store, nil)
	if !rep.Partial || !containsSub(rep.Notices, "did not approve the analysis within 2 iterations") {
		t.Errorf("partial=%v notices=%q", rep.Partial, rep.Notices)
	}
	if len(rep.ReviewTrail) != 2 || !contains(rep.ReviewTrail[1].Problems, "still wrong") {
		t.Errorf("trail = %+v", rep.ReviewTrail)
	}
	want := []RemovedCitation{{ItemNumber: 1, RuleID: "R1", StatuteID: "/xx/test/s404", Quote: bad.Citations[0].Quote, Reason: "statute not found"}}
	if diff := cmp.Diff(want, rep.RemovedCitations); diff != "" {
		t.Errorf("removed citations (-want +got):\n%s", diff)
	}
	var html strings.Builder
	if err := WriteHTML(&html, rep); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(html.String(), `href="/xx/test/s404"`) || !strings.Contains(html.String(), "statute not found") {
		t.Error("HTML shows an unresolvable statute as a link or without 'statute not found'")
	}
}

func TestReviewerRewriteAccepted(t *testing.T) {
	store := openStore(t, testStatutes)
	rewritten := arbItem(statuteArb, statuteQuoteArb)
	rewritten.RiskLevel = "Medium"
	model := llmtest.NewScripted(
		reply(t, testRules),
		search("arbitration valid"),
		reply(t, Analysis{Items: []Item{arbItem(statuteArb, statuteQuoteArb)}}),
		reply(t, ReviewDecision{Decision: "rewrite", Problems: []string{"overstated"}, Items: []Item{rewritten}}),
		reply(t, summary()),
	)
	rep, _ := runReview(t, model, store, nil)
	if rep.Partial || len(rep.ReviewTrail) != 1 || rep.ReviewTrail[0].Decision != "rewrite" {
		t.Fatalf("partial=%v trail=%+v", rep.Partial, rep.ReviewTrail)
	}
	if want := "rule R1 item changed: risk level High → Medium"; !contains(rep.ReviewTrail[0].Changes, want) {
		t.Errorf("changes %q lack %q", rep.ReviewTrail[0].Changes, want)
	}
	if len(rep.Items) != 1 || rep.Items[0].RiskLevel != "Medium" || len(rep.Items[0].Citations) != 1 {
		t.Errorf("items = %+v", rep.Items)
	}
}

func TestBatchMode(t *testing.T) {
	store := openStore(t, testStatutes)
	var inFlight, maxInFlight atomic.Int32
	var passages sync.Map
	router := func(req *llm.Request) (*llm.Response, error) {
		user := req.Messages[len(req.Messages)-1].Content
		var v any
		switch req.ResponseFormat.Name {
		case "RuleSet":
			v = testRules
		case "Summary":
			v = summary()
		case "Analysis":
			n := inFlight.Add(1)
			defer inFlight.Add(-1)
			for {
				m := maxInFlight.Load()
				if n <= m || maxInFlight.CompareAndSwap(m, n) {
					break
				}
			}
			time.Sleep(20 * time.Millisecond)
			a := Analysis{Items: []Item{}}
			passage := user[strings.Index(user, "<passage>"):strings.Index(user, "</passage>")]
			if strings.Contains(passage, quoteArbitration) {
				a.Items = append(a.Items, arbItem(statuteArb, statuteQuoteArb))
			}
			if strings.Contains(passage, quoteLiability) {
				a.Items = append(a.Items, Item{RuleID: "R2", ClauseQuote: quoteLiability, RiskLevel: "high", Reasoning: "r", Recommendation: "c",
					Citations: []Citation{{StatuteID: "/xx/test/s555", Quote: "invented words of a statute"}}})
			}
			if len(a.Items) == 0 {
				passages.Store("other", user)
			}
			v = a
		default:
			return nil, fmt.Errorf("unexpected response format %q", req.ResponseFormat.Name)
		}
		b, _ := json.Marshal(v)
		return &llm.Response{Message: llm.Message{Role: llm.RoleAssistant, Content: string(b)}, Usage: llm.Usage{InputTokens: 1, OutputTokens: 1}}, nil
	}
	steps := make([]llmtest.Step, 10)
	for i := range steps {
		steps[i] = llmtest.Step{Func: router}
	}
	model := llmtest.NewScripted(steps...)
	// Pad the contract with irrelevant passages so there is something to fan out and skip.
	text := testContract + strings.Repeat("\n\nThe Distributor shall keep records of arbitration-free sales and damages reports for audit purposes each quarter.", 3)
	rep, progress := runReview(t, model, store, func(in *Input) {
		in.Batch = true
		in.Concurrency = 2
		in.Contract.Text = text
	})
	if rep.Mode != "batch" || rep.Partial {
		t.Fatalf("mode=%s partial=%v notices=%q", rep.Mode, rep.Partial, rep.Notices)
	}
	if m := maxInFlight.Load(); m > 2 || m < 1 {
		t.Errorf("max concurrent passage analyses = %d, want 1..2", m)
	}
	if _, ok := passages.Load("other"); !ok {
		t.Error("the padding passages were not analysed")
	}
	for _, req := range model.Requests() {
		if strings.Contains(req.Messages[len(req.Messages)-1].Content, "IN WITNESS WHEREOF") && req.ResponseFormat.Name == "Analysis" {
			t.Error("the signature block was sent for analysis instead of being skipped")
		}
	}
	if len(rep.Items) != 2 || len(rep.Items[0].Citations) != 1 || len(rep.Items[1].Citations) != 0 {
		t.Fatalf("items = %+v", rep.Items)
	}
	if len(rep.RemovedCitations) != 1 || rep.RemovedCitations[0].Reason != "statute not found" {
		t.Errorf("removed = %+v", rep.RemovedCitations)
	}
	if rep.CitationsProposed != 2 {
		t.Errorf("citations proposed = %d, want the 2 the passages cited", rep.CitationsProposed)
	}
	if last := progress[len(progress)-2]; last.Stage != "summary" {
		t.Errorf("progress ends with %+v", progress[len(progress)-2:])
	}
	checkCitations(t, rep, store)
}

func TestStatuteSearchLockedToReviewJurisdiction(t *testing.T) {
	store := openStore(t, append(testStatutes, contract.Statute{ID: "/us/x/s1", Jurisdiction: "us", Text: "arbitration agreements are enforceable in the us"}))
	otherJurisdiction := llmtest.Calls(llmtest.Call("c1", "statute_search", `{"query":"arbitration","jurisdiction":"us"}`))
	model := llmtest.NewScripted(
		reply(t, testRules),
		otherJurisdiction,
		search("arbitration"),
		reply(t, Analysis{Items: []Item{arbItem(statuteArb, statuteQuoteArb)}}),
		reply(t, approve()),
		reply(t, summary()),
	)
	rep, _ := runReview(t, model, store, nil)
	reqs := model.Requests()
	refused := reqs[2].Messages[len(reqs[2].Messages)-1]
	if refused.Role != llm.RoleTool || !strings.Contains(refused.Content, `this review is limited to jurisdiction \"xx\"`) {
		t.Errorf("tool answer to a us search in an xx review = %q", refused.Content)
	}
	found := reqs[3].Messages[len(reqs[3].Messages)-1].Content
	if !strings.Contains(found, statuteArb) || strings.Contains(found, "/us/x/s1") {
		t.Errorf("default search was not limited to xx: %s", found)
	}
	if len(rep.Items) != 1 || len(rep.Items[0].Citations) != 1 || rep.Partial {
		t.Errorf("items = %+v, partial %v", rep.Items, rep.Partial)
	}
}

func TestRunRejectsBadInput(t *testing.T) {
	model := llmtest.NewScripted()
	if _, err := Run(context.Background(), Deps{}, Input{Contract: &contract.Contract{ID: "x", Text: "t"}}, nil); !errors.Is(err, llm.ErrNoModel) {
		t.Errorf("no model: got %v", err)
	}
	if _, err := Run(context.Background(), Deps{Model: model}, Input{Contract: &contract.Contract{ID: "x"}}, nil); err == nil {
		t.Error("empty contract text accepted")
	}
}

func TestCancelledRunReturnsPartialReport(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	model := llmtest.NewScripted(llmtest.Step{Func: func(*llm.Request) (*llm.Response, error) {
		cancel()
		return nil, context.Canceled
	}})
	rep, err := Run(ctx, Deps{Model: model}, Input{Contract: &contract.Contract{ID: "x", Text: testContract}}, nil)
	if !errors.Is(err, context.Canceled) || rep == nil || !rep.Partial {
		t.Errorf("got report %v, err %v; want a partial report and context.Canceled", rep != nil, err)
	}
}

func contains(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}

func containsSub(ss []string, sub string) bool {
	for _, x := range ss {
		if strings.Contains(x, sub) {
			return true
		}
	}
	return false
}

func TestLongContractAndScopedClauseSearch(t *testing.T) {
	ctx := context.Background()
	store := openStore(t, testStatutes)
	// Stored chunks are two halves of the text, unlike the in-memory
	// paragraphs, so the test can tell which search answered.
	chunked := func(id, text string) *contract.Contract {
		half := strings.Index(text, "\n3. Disputes")
		return &contract.Contract{ID: id, Title: id, Text: text, Chunks: []contract.Chunk{
			{ID: id + "-0", Ord: 0, Text: text[:half], Start: 0, End: half},
			{ID: id + "-1", Ord: 1, Text: text[half:], Start: half, End: len(text)},
		}}
	}
	this := &contract.Contract{ID: "dist-1", Title: "Distribution Agreement", Text: testContract}
	plain := &contract.Contract{ID: "dist-plain", Title: "Unindexed", Text: testContract}
	outcomes, err := store.PutContracts(ctx, []*contract.Contract{
		chunked("dist-1", testContract), chunked("other", strings.ReplaceAll(testContract, "New York", "Boston")), plain})
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range outcomes {
		if o.Err != nil {
			t.Fatal(o.Err)
		}
	}
	stored, err := store.GetContract(ctx, "dist-1")
	if err != nil {
		t.Fatal(err)
	}
	storedPlain, err := store.GetContract(ctx, "dist-plain")
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name   string
		in     Input
		deps   Deps
		source string
	}{
		{"stored contract searches the store", Input{Contract: stored, Stored: true}, Deps{Clauses: store}, "store"},
		{"file searches its own passages", Input{Contract: this}, Deps{}, "memory"},
		{"stored contract without chunks falls back to its text", Input{Contract: storedPlain, Stored: true}, Deps{Clauses: store}, "fallback"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			model := llmtest.NewScripted(
				reply(t, testRules),
				llmtest.Calls(llmtest.Call("c1", "clause_search", `{"query":"binding arbitration dispute","limit":5}`)),
				reply(t, Analysis{Items: []Item{arbItem("", "")}}),
				reply(t, approve()),
				reply(t, summary()),
			)
			in := tt.in
			in.Jurisdiction, in.MaxContextBytes = "xx", 300 // force passages instead of the full text
			deps := tt.deps
			deps.Model, deps.Statutes = model, store
			rep, err := Run(ctx, deps, in, nil)
			if err != nil {
				t.Fatal(err)
			}
			reqs := model.Requests()
			prompt := reqs[1].Messages[1].Content
			if !strings.Contains(prompt, "<passage start=") || strings.Contains(prompt, "<contract>") {
				t.Errorf("long contract not sent as passages:\n%s", prompt)
			}
			var res struct {
				Passages []graph.ClauseHit `json:"passages"`
			}
			toolMsg := reqs[2].Messages[len(reqs[2].Messages)-1]
			if err := json.Unmarshal([]byte(toolMsg.Content), &res); err != nil {
				t.Fatalf("%v: %s", err, toolMsg.Content)
			}
			if len(res.Passages) == 0 {
				t.Fatalf("clause_search (%s) found nothing", tt.source)
			}
			for _, p := range res.Passages {
				if p.ContractID != in.Contract.ID {
					t.Errorf("clause_search returned a passage of %s", p.ContractID)
				}
				if p.End > len(testContract) || testContract[p.Start:p.End] != p.Text {
					t.Errorf("passage %d..%d is not verbatim from the contract", p.Start, p.End)
				}
				fromStore := p.Start == 0 || p.End == len(testContract)
				if fromStore != (tt.source == "store") {
					t.Errorf("passage %d..%d came from the wrong search for %s", p.Start, p.End, tt.source)
				}
			}
			if len(rep.Items) != 1 || rep.Partial {
				t.Errorf("items=%d partial=%v notices=%q", len(rep.Items), rep.Partial, rep.Notices)
			}
		})
	}
}

// failingStatutes is a statute store whose reads fail after the count.
type failingStatutes struct{ graph.StatuteStore }

func (failingStatutes) GetStatute(ctx context.Context, id string) (*contract.Statute, error) {
	return nil, errors.New("disk I/O error")
}

func TestFailingStatuteStoreEndsWithPartialReport(t *testing.T) {
	store := openStore(t, testStatutes)
	model := llmtest.NewScripted(
		reply(t, testRules),
		search("arbitration"),
		reply(t, Analysis{Items: []Item{arbItem(statuteArb, statuteQuoteArb)}}),
		reply(t, summary()),
	)
	rep, _ := runReview(t, model, failingStatutes{store}, nil)
	if !rep.Partial || !containsSub(rep.Notices, "citations could not be checked in review round 1: disk I/O error") ||
		!containsSub(rep.Notices, "citations could not be validated") {
		t.Errorf("partial=%v notices=%q", rep.Partial, rep.Notices)
	}
	if len(rep.Items) != 1 || len(rep.Items[0].Citations) != 0 || len(rep.RemovedCitations) != 1 {
		t.Errorf("items=%+v removed=%+v; want the citation removed and listed", rep.Items, rep.RemovedCitations)
	}
}

func TestAnalystProseAnswerIsRetriedWithTheSchema(t *testing.T) {
	store := openStore(t, testStatutes)
	model := llmtest.NewScripted(
		reply(t, testRules),
		search("arbitration"),
		llmtest.Text("I found one risk: the arbitration clause."),
		reply(t, Analysis{Items: []Item{arbItem(statuteArb, statuteQuoteArb)}}),
		reply(t, approve()),
		reply(t, summary()),
	)
	rep, _ := runReview(t, model, store, nil)
	if rep.Partial || len(rep.Items) != 1 || len(rep.Items[0].Citations) != 1 {
		t.Fatalf("partial=%v items=%+v notices=%q", rep.Partial, rep.Items, rep.Notices)
	}
	reqs := model.Requests()
	for _, i := range []int{1, 2} { // the tool loop: the review's tools, no schema
		if reqs[i].ResponseFormat != nil || len(reqs[i].Tools) != len(reviewToolNames) {
			t.Errorf("analyst request %d: response format %v, %d tools; want none and %d", i, reqs[i].ResponseFormat, len(reqs[i].Tools), len(reviewToolNames))
		}
	}
	retry := reqs[3] // the schema-enforced retry: schema, no tools
	if retry.ResponseFormat == nil || retry.ResponseFormat.Name != "Analysis" || len(retry.Tools) != 0 {
		t.Errorf("retry request: response format %v, %d tools", retry.ResponseFormat, len(retry.Tools))
	}
	if last := retry.Messages[len(retry.Messages)-1]; last.Role != llm.RoleUser || !strings.Contains(last.Content, "not valid for the required JSON schema") {
		t.Errorf("retry does not say what was wrong: %+v", last)
	}
}
