package playbook

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/contractgraph/contractgraph/internal/contract"
	"github.com/contractgraph/contractgraph/internal/llm/llmtest"
)

func TestParseExample(t *testing.T) {
	pb, err := ParseExample()
	if err != nil {
		t.Fatal(err)
	}
	if pb.Name == "" || len(pb.Entries) < 8 {
		t.Fatalf("example playbook: %q with %d entries", pb.Name, len(pb.Entries))
	}
	seen := map[string]bool{}
	for _, e := range pb.Entries {
		seen[string(e.Requirement)] = true
		if e.line == 0 {
			t.Errorf("entry %s has no line", e.ID)
		}
	}
	if !seen["required"] || !seen["forbidden"] {
		t.Errorf("example should show both requirements")
	}
	// The same playbook as JSON reads the same.
	js := `{"name":"J","entries":[{"id":"law","clause_type":"governing law","requirement":"required","standard":"governed by the laws of New York"}]}`
	jp, err := Parse([]byte(js), "p.json")
	if err != nil {
		t.Fatal(err)
	}
	if jp.Entries[0].ClauseType != "Governing Law" || jp.Entries[0].Standard.Text == "" {
		t.Errorf("JSON playbook: %+v", jp.Entries[0])
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct {
		name, src string
		want      []string
	}{
		{"empty", "", []string{"p.yaml is empty"}},
		{"syntax", "name: [x\n", []string{"p.yaml"}},
		{"unknown field", "name: X\nentries:\n  - id: a\n    clause_typ: Governing Law\n", []string{"p.yaml", "line 4", "clause_typ"}},
		{"no name, no entries", "description: x\n", []string{"p.yaml: name: missing", "p.yaml: entries: no entries"}},
		{"bad entry fields", `name: X
entries:
  - id: cap
    clause_type: Liability Cap
    requirement: required
    standard: x
  - id: cap
    clause_type: Exclusivity
    requirement: forbidden
    standard: no exclusivity
  - id: tfc
    clause_type: Termination For Convenience
    requirement: maybe
  - id: n
    clause_type: Notice Period To Terminate Renewal
    requirement: required
    standard: notice
    terms:
      - kind: notice
        unit: months
        max: 3
      - kind: cap
        min: 12
      - kind: percent
        min: 10
        max: 5
`, []string{
			`p.yaml:4: entry 1 ("cap"): clause_type: "Liability Cap" is not a CUAD clause category`,
			`p.yaml:7: entry 2 ("cap"): id: "cap" is also the id of entry 1`,
			`p.yaml:9: entry 2 ("cap"): requirement: a forbidden clause has no standard`,
			`p.yaml:13: entry 3 ("tfc"): requirement: "maybe": want required or forbidden`,
			`p.yaml:19: entry 4 ("n"): terms[0]: unit "months": notice terms are in days`,
			`p.yaml:22: entry 4 ("n"): terms[1]: unit missing; a cap is in months_fees`,
			`p.yaml:24: entry 4 ("n"): terms[2]: min 10 is above max 5`,
		}},
		{"group is no category", "name: X\nentries:\n  - id: g\n    clause_type: General\n    requirement: forbidden\n", []string{`clause_type: "General" is not a CUAD clause category`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse([]byte(tt.src), "p.yaml")
			if err == nil {
				t.Fatal("no error")
			}
			if !errors.Is(err, ErrInvalid) {
				t.Errorf("error %v does not wrap ErrInvalid", err)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error lacks %q:\n%v", w, err)
				}
			}
		})
	}
}

// testContract has a governing-law clause (Delaware), a termination for
// convenience on 120 days' notice, a liability cap of six months' fees and
// an exclusivity clause.
func testContract() *contract.Contract {
	law := "This Agreement shall be governed by and construed in accordance with the laws of the State of Delaware, without regard to its conflicts of law provisions."
	tfc := "Either party may terminate this Agreement for convenience at any time upon one hundred twenty (120) days' prior written notice to the other party."
	cap := "In no event shall either party's aggregate liability arising out of this Agreement exceed the total fees paid under this Agreement in the six (6) months preceding the claim."
	excl := "Distributor shall not sell any competing products in the Territory during the Term."
	text := "1. Law. " + law + "\n2. Term. " + tfc + "\n3. Liability. " + cap + "\n4. Exclusivity. " + excl + "\n"
	c := &contract.Contract{ID: "test-1", Title: "Test Agreement", Text: text}
	for _, cl := range []struct{ typ, s string }{{"Governing Law", law}, {"Termination For Convenience", tfc}, {"Cap On Liability", cap}, {"Exclusivity", excl}} {
		i := strings.Index(text, cl.s)
		c.Clauses = append(c.Clauses, contract.Clause{Type: cl.typ, Text: cl.s, Start: i, End: i + len(cl.s), Verified: true})
	}
	return c
}

func resultOf(t *testing.T, rep *Report, id string) *Result {
	t.Helper()
	for i := range rep.Results {
		if rep.Results[i].EntryID == id {
			return &rep.Results[i]
		}
	}
	t.Fatalf("no result for %s", id)
	return nil
}

func TestCheckVerdicts(t *testing.T) {
	pb, err := ParseExample()
	if err != nil {
		t.Fatal(err)
	}
	c := testContract()
	rep := Check(pb, c, time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC))
	tests := []struct {
		id      string
		status  Status
		verdict Verdict
		reason  string
	}{
		{"governing-law", Present, AcceptableFallback, "reads like fallback 1"},
		{"termination-for-convenience", Present, Deviation, `Numeric term not met: notice "one hundred twenty (120) days" (120 days) found; want at most 90 days.`},
		{"liability-cap", Present, RedFlagged, "A red-line term is not met."},
		{"no-exclusivity", ForbiddenPresent, RedFlagged, "which the playbook forbids"},
		{"no-non-compete", Missing, MeetsStandard, "no Non-Compete clause"},
		{"insurance", Missing, RedFlagged, "no Insurance clause, which the playbook requires"},
	}
	for _, tt := range tests {
		r := resultOf(t, rep, tt.id)
		if r.Status != tt.status || r.Verdict != tt.verdict {
			t.Errorf("%s: %s/%s, want %s/%s; reasons %q", tt.id, r.Status, r.Verdict, tt.status, tt.verdict, r.Reasons)
		}
		if !strings.Contains(strings.Join(r.Reasons, "\n"), tt.reason) {
			t.Errorf("%s: reasons %q lack %q", tt.id, r.Reasons, tt.reason)
		}
		if r.Clause != nil && c.Text[r.Clause.Start:r.Clause.End] != r.Clause.Text {
			t.Errorf("%s: clause span does not hold the clause", tt.id)
		}
	}
	law := resultOf(t, rep, "governing-law")
	if law.Matches[0].Position != "standard" || len(law.Matches[0].Missing) != 1 || law.Matches[0].Missing[0] != "New York" {
		t.Errorf("governing law standard should not apply without New York: %+v", law.Matches[0])
	}
	cap := resultOf(t, rep, "liability-cap")
	if len(cap.Terms) != 1 || cap.Terms[0].Status != TermNotMet || cap.Terms[0].Found[0].Value != 6 {
		t.Errorf("cap terms = %+v", cap.Terms)
	}
	if want := (Counts{MeetsStandard: 2, AcceptableFallback: 1, Deviation: 1, RedFlag: len(pb.Entries) - 4}); rep.Counts != want {
		t.Errorf("counts = %+v, want %+v", rep.Counts, want)
	}
}

// TestJudgeRemovesQuotes: the fake model's judgement quotes a sentence
// that is not in the clause and one that is not in the playbook; both are
// removed and listed, the true quotes are kept with their spans.
func TestJudgeRemovesQuotes(t *testing.T) {
	pb, err := ParseExample()
	if err != nil {
		t.Fatal(err)
	}
	c := testContract()
	rep := Check(pb, c, time.Now())
	judged := 0
	for i := range rep.Results {
		if Judged(&rep.Results[i]) {
			judged++
		}
	}
	// The termination deviation and the liability cap's red flag on its
	// clause; not the forbidden exclusivity clause nor missing clauses.
	if judged != 2 {
		t.Fatalf("%d results to judge, want 2", judged)
	}
	reply := `{"assessment":"The notice period is longer than the playbook allows.",
		"clause_quotes":["one hundred twenty (120) days' prior written notice","The Supplier may terminate immediately on insolvency."],
		"playbook_quotes":["upon thirty (30) days' prior written notice","notice of at least two weeks"],
		"recommendation":"Ask for thirty days."}`
	var steps []llmtest.Step
	for range judged {
		steps = append(steps, llmtest.Text(reply))
	}
	model := llmtest.NewScripted(steps...)
	if err := Judge(context.Background(), JudgeDeps{Model: model, ModelName: "fake:judge"}, pb, rep); err != nil {
		t.Fatal(err)
	}
	r := resultOf(t, rep, "termination-for-convenience")
	if r.Judgement == nil {
		t.Fatal("no judgement on the deviation")
	}
	if len(r.Judgement.ClauseQuotes) != 1 || r.Clause.Text[r.Judgement.ClauseQuotes[0].Start:r.Judgement.ClauseQuotes[0].End] != "one hundred twenty (120) days' prior written notice" {
		t.Errorf("clause quotes kept = %+v", r.Judgement.ClauseQuotes)
	}
	if len(r.Judgement.PlaybookQuotes) != 1 {
		t.Errorf("playbook quotes kept = %+v", r.Judgement.PlaybookQuotes)
	}
	var gotClause, gotPlaybook bool
	for _, q := range rep.RemovedQuotes {
		if q.EntryID != "termination-for-convenience" {
			continue
		}
		gotClause = gotClause || q.Source == SourceClause && q.Quote == "The Supplier may terminate immediately on insolvency." && q.Reason == reasonNotInClause
		gotPlaybook = gotPlaybook || q.Source == SourcePlaybook && q.Quote == "notice of at least two weeks" && q.Reason == reasonNotInPlaybook
	}
	if !gotClause || !gotPlaybook {
		t.Errorf("removed quotes = %+v", rep.RemovedQuotes)
	}
	// The prompt carries the clause and the playbook texts.
	req := model.Requests()[1]
	if user := req.Messages[1].Content; !strings.Contains(user, "<clause>\n"+r.Clause.Text+"\n</clause>") || !strings.Contains(user, "Standard: "+pb.Entries[3].Standard.Text) {
		t.Errorf("prompt lacks the clause or the playbook: %s", user)
	}
	if model.Remaining() != 0 {
		t.Errorf("%d scripted replies left", model.Remaining())
	}
	if req.ResponseFormat == nil || req.ResponseFormat.Name != "modelJudgement" {
		t.Errorf("response format = %+v", req.ResponseFormat)
	}
	if !rep.Judged || rep.Model != "fake:judge" {
		t.Errorf("report judged=%v model=%q", rep.Judged, rep.Model)
	}
}

func TestJudgeModelFailure(t *testing.T) {
	pb, _ := ParseExample()
	rep := Check(pb, testContract(), time.Now())
	model := llmtest.NewScripted(llmtest.Fail(errors.New("provider down")), llmtest.Fail(errors.New("provider down")), llmtest.Fail(errors.New("provider down")))
	if err := Judge(context.Background(), JudgeDeps{Model: model}, pb, rep); err != nil {
		t.Fatal(err)
	}
	if !rep.Partial || len(rep.Notices) == 0 || !strings.Contains(rep.Notices[0], "provider down") {
		t.Errorf("partial=%v notices=%q", rep.Partial, rep.Notices)
	}
}
