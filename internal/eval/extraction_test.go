package eval

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/contractgraph/contractgraph/internal/contract"
	"github.com/contractgraph/contractgraph/internal/sharedtest"
)

func TestCompareDate(t *testing.T) {
	tests := []struct {
		gold, pred string
		want       Outcome
	}{
		{"2019-03-01", "2019-03-01", OutcomeCorrect},
		{"2019-03-01", "2019-03-02", OutcomeWrong},
		{"2019-03-01", "", OutcomeMissed},
		{"", "2019-03-01", OutcomeSpurious},
		{"", "", OutcomeAbsent},
	}
	for _, tt := range tests {
		if got := CompareDate(tt.gold, tt.pred); got != tt.want {
			t.Errorf("CompareDate(%q, %q) = %s, want %s", tt.gold, tt.pred, got, tt.want)
		}
	}
}

func TestCompareLaw(t *testing.T) {
	loc := func(country, state string) *contract.Location {
		return &contract.Location{Country: country, State: state}
	}
	tests := []struct {
		name       string
		gold, pred *contract.Location
		want       Outcome
	}{
		{"same state", loc("US", "NY"), loc("US", "NY"), OutcomeCorrect},
		{"US state decides", loc("US", "NY"), loc("US", "DE"), OutcomeWrong},
		{"US without state is wrong", loc("US", "NV"), loc("US", ""), OutcomeWrong},
		{"Canadian province decides", loc("CA", "ON"), loc("CA", "BC"), OutcomeWrong},
		{"elsewhere the country decides", loc("GB", ""), loc("GB", "ENG"), OutcomeCorrect},
		{"other country", loc("GB", ""), loc("IE", ""), OutcomeWrong},
		{"a city-only gold keeps its country", &contract.Location{Country: "CN", City: "Beijing"}, loc("CN", ""), OutcomeCorrect},
		{"missed", loc("US", "CA"), nil, OutcomeMissed},
		{"spurious", nil, loc("US", "CA"), OutcomeSpurious},
		{"a state without a country is no prediction", loc("US", "TX"), loc("", "TX"), OutcomeMissed},
		{"absent", nil, &contract.Location{}, OutcomeAbsent},
	}
	for _, tt := range tests {
		if got := CompareLaw(tt.gold, tt.pred); got != tt.want {
			t.Errorf("%s: CompareLaw = %s, want %s", tt.name, got, tt.want)
		}
	}
}

func TestCompareDuration(t *testing.T) {
	tests := []struct {
		gold, pred string
		want       Outcome
	}{
		{"P1Y", "P1Y", OutcomeCorrect},
		{"P1Y", "P12M", OutcomeCorrect},  // 365 vs 360 days: within 5%
		{"P1Y", "P13M", OutcomeWrong},    // 390 days: 25 apart, more than 18
		{"P90D", "P3M", OutcomeCorrect},  // 90 = 90
		{"P30D", "P1M", OutcomeCorrect},  // 30 = 30
		{"P30D", "P33D", OutcomeCorrect}, // 3 days: the floor of the tolerance
		{"P30D", "P34D", OutcomeWrong},   // 4 days
		{"P2Y", "P24M", OutcomeCorrect},  // 730 vs 720
		{"P60D", "P2W", OutcomeWrong},    // 60 vs 14
		{"P60D", "sixty days", OutcomeWrong},
		{"P60D", "", OutcomeMissed},
		{"", "P60D", OutcomeSpurious},
		{"perpetual", "P1Y", OutcomeSpurious}, // no duration on the gold side
	}
	for _, tt := range tests {
		if got := CompareDuration(tt.gold, tt.pred); got != tt.want {
			t.Errorf("CompareDuration(%q, %q) = %s, want %s", tt.gold, tt.pred, got, tt.want)
		}
	}
}

func TestCompareParties(t *testing.T) {
	parties := func(names ...string) []contract.PartyRole {
		var out []contract.PartyRole
		for _, n := range names {
			out = append(out, contract.PartyRole{Name: n})
		}
		return out
	}
	tests := []struct {
		name       string
		gold       []contract.PartyRole
		pred       []contract.PartyRole
		tp, fp, fn int
	}{
		{"suffix, case and punctuation ignored", parties("Birch First Global Investments Inc.", "Mount Knowledge Holdings Inc."),
			parties("BIRCH FIRST GLOBAL INVESTMENTS, INC", "Mount Knowledge Holdings"), 2, 0, 0},
		{"ampersand reads as and", parties("Johnson & Johnson"), parties("Johnson and Johnson"), 1, 0, 0},
		{"a role word is no party", parties("Acme Corp", "Beta LLC"), parties("Acme Corporation", "Distributor"), 1, 1, 1},
		{"duplicate spellings count once", parties("Acme Corp"), parties("Acme Corp.", "ACME CORP"), 1, 0, 0},
		{"nothing predicted", parties("Acme Corp", "Beta LLC"), nil, 0, 0, 2},
	}
	for _, tt := range tests {
		tp, fp, fn := CompareParties(tt.gold, tt.pred).counts()
		if tp != tt.tp || fp != tt.fp || fn != tt.fn {
			t.Errorf("%s: TP/FP/FN = %d/%d/%d, want %d/%d/%d", tt.name, tp, fp, fn, tt.tp, tt.fp, tt.fn)
		}
	}
}

func TestCheckEvidence(t *testing.T) {
	text := "This Agreement is governed by the laws of Nevada. Effective March 1, 2019."
	at := func(q string) (int, int) {
		i := strings.Index(text, q)
		return i, i + len(q)
	}
	law, lawEnd := at("governed by the laws of Nevada")
	date, dateEnd := at("March 1, 2019")
	c := &contract.Contract{Text: text, Evidence: []contract.Evidence{
		{Field: "governing_law", Value: "NV, US", Quote: "governed by the laws of Nevada", Start: law, End: lawEnd, Verified: true},
		{Field: "effective_date", Value: "2019-03-01", Quote: "March 1, 2019", Start: date, End: dateEnd, Verified: true},
		// At its offsets, but not stating the value (flagged by a store
		// written before that check).
		{Field: "governing_law", Value: "CA, US", Quote: "March 1, 2019", Start: date, End: dateEnd, Verified: true},
		{Field: "end_date", Quote: "March 1, 2019", Start: 0, End: 13, Verified: true},         // flagged, wrong offsets
		{Field: "renewal_term", Quote: "one year", Verified: false},                            // not located
		{Field: "notice_period", Quote: "ninety days", Start: 70, End: 900, Verified: true},    // offsets past the text
		{Field: "duration", Quote: "march 1, 2019", Start: date, End: dateEnd, Verified: true}, // case differs from the text
	}, Clauses: []contract.Clause{
		{Type: "Governing Law", Text: "This Agreement is governed by the laws of Nevada.", Start: 0, End: 49, Verified: true},
	}}
	values, clauses := CheckEvidence(c)
	want := EvidenceTally{Values: 7, Verified: 2, Unverified: 1, BadOffsets: 3, Unsupported: 1, Share: 2.0 / 7}
	if diff := cmp.Diff(want, values); diff != "" {
		t.Errorf("values (-want +got):\n%s", diff)
	}
	if clauses.Verified != 1 || clauses.Values != 1 {
		t.Errorf("clauses = %+v, want the one clause verified", clauses)
	}
}

func TestContractKey(t *testing.T) {
	// A master_clauses.csv file name, its text file and an ingested id
	// (the text file's stem) pair up.
	names := []string{
		"CybergyHoldingsInc_20140520_10-Q_EX-10.27_8605784_EX-10.27_Affiliate Agreement.pdf",
		"CybergyHoldingsInc_20140520_10-Q_EX-10.27_8605784_EX-10.27_Affiliate Agreement.txt",
		"CybergyHoldingsInc_20140520_10-Q_EX-10.27_8605784_EX-10.27_Affiliate Agreement",
		"CybergyHoldingsInc_20140520_10-Q_EX-10.27_8605784_EX-10.27_Affiliate Agreement.PDF'",
	}
	want := ContractKey(names[0])
	for _, n := range names[1:] {
		if got := ContractKey(n); got != want {
			t.Errorf("ContractKey(%q) = %q, want %q", n, got, want)
		}
	}
	if ContractKey("Acme-Distribution Agreement") == ContractKey("Acme-Supply Agreement") {
		t.Error("different contracts share a key")
	}
}

// goldFixture is a two-row gold set: row 1 fully answered, row 2 with a
// perpetual renewal and a relative expiration date the importer dropped.
func goldFixture() *Gold {
	c1 := &contract.Contract{ID: "Acme_Supply", EffectiveDate: "2019-03-01", EndDate: "2021-03-01",
		GoverningLaw: &contract.Location{Country: "US", State: "NV"}, RenewalTerm: "P1Y", NoticePeriod: "P90D",
		Parties: []contract.PartyRole{{Name: "Acme Corp."}, {Name: "Beta LLC"}},
		Clauses: []contract.Clause{{Type: "Governing Law"}, {Type: "Anti-Assignment"}}}
	c2 := &contract.Contract{ID: "Gamma_License", EffectiveDate: "2010-01-01", RenewalTerm: "perpetual",
		Parties: []contract.PartyRole{{Name: "Gamma Inc."}}, Clauses: []contract.Clause{{Type: "License Grant"}}}
	return &Gold{Path: "master_clauses.csv", Contracts: []GoldContract{
		{Contract: c1, Row: 1},
		{Contract: c2, Row: 2, Excluded: map[string]string{FieldRenewalTerm: "perpetual", FieldEndDate: "Expiration Date-Answer: relative date"}},
	}}
}

func TestScoreExtraction(t *testing.T) {
	text := "Acme Corp. and Beta LLC agree. Governed by Nevada law."
	p1 := &contract.Contract{ID: "ACME_SUPPLY", Text: text, EffectiveDate: "2019-03-01", EndDate: "2020-03-01",
		GoverningLaw: &contract.Location{Country: "US", State: "NV"}, RenewalTerm: "P12M",
		Parties: []contract.PartyRole{{Name: "ACME CORP"}, {Name: "Licensee Co"}},
		Clauses: []contract.Clause{{Type: "Governing Law", Text: "Governed by Nevada law.", Start: 31, End: 54, Verified: true}, {Type: "Audit Rights", Text: "audits"}},
		Evidence: []contract.Evidence{
			{Field: "parties[0].name", Quote: "Acme Corp.", Start: 0, End: 10, Verified: true},
			{Field: "governing_law", Value: "NV, US", Quote: "Governed by Nevada law.", Start: 31, End: 54, Verified: true},
			{Field: "end_date", Quote: "March 1, 2020"},
		}}
	preds := map[string]Prediction{
		ContractKey(p1.ID):           {Contract: p1},
		ContractKey("Gamma_License"): {Err: "extract: model timed out"},
		ContractKey("Delta"):         {Contract: &contract.Contract{ID: "Delta"}},
	}
	rep := ScoreExtraction(goldFixture(), preds)

	if rep.Contracts != 2 || rep.Failed != 1 || rep.NotPredicted != 0 || !cmp.Equal(rep.Unmatched, []string{"Delta"}) {
		t.Errorf("contracts %d failed %d not predicted %d unmatched %v", rep.Contracts, rep.Failed, rep.NotPredicted, rep.Unmatched)
	}
	got := map[string]FieldScore{}
	for _, f := range rep.Fields {
		got[f.Field] = f
	}
	want := map[string][4]int{ // TP, FP, FN, excluded
		FieldParties:       {1, 1, 2}, // Acme matched; Licensee Co spurious; Beta and Gamma missed
		FieldEffectiveDate: {1, 0, 1}, // right for Acme; Gamma failed
		FieldEndDate:       {0, 1, 1, 1},
		FieldGoverningLaw:  {1, 0, 0},
		FieldRenewalTerm:   {1, 0, 0, 1}, // P12M within tolerance of P1Y; Gamma's perpetual renewal excluded
		FieldNoticePeriod:  {0, 0, 1},
	}
	for f, w := range want {
		g := got[f]
		if g.TP != w[0] || g.FP != w[1] || g.FN != w[2] || g.Excluded != w[3] {
			t.Errorf("%s: TP/FP/FN/excluded = %d/%d/%d/%d, want %v", f, g.TP, g.FP, g.FN, g.Excluded, w)
		}
	}
	// Predictions split by evidence: governing law located (right), the
	// end date's quote not located (wrong), the effective date without
	// evidence (right, unverified).
	split := map[string][2]PrecisionTally{
		FieldGoverningLaw:  {{1, 1}, {}},
		FieldEndDate:       {{}, {1, 0}},
		FieldEffectiveDate: {{}, {1, 1}},
	}
	for f, w := range split {
		if g := got[f]; g.Verified != w[0] || g.Unverified != w[1] {
			t.Errorf("%s: verified %+v unverified %+v, want %+v %+v", f, g.Verified, g.Unverified, w[0], w[1])
		}
	}
	if rep.ClausesVerified != (PrecisionTally{1, 1}) || rep.ClausesUnverified != (PrecisionTally{1, 0}) {
		t.Errorf("clauses verified %+v unverified %+v, want Governing Law right and verified, Audit Rights wrong and unverified", rep.ClausesVerified, rep.ClausesUnverified)
	}
	if p := got[FieldParties]; p.Precision != 0.5 || p.Recall != 1.0/3 || p.F1 != 0.4 {
		t.Errorf("parties P/R/F1 = %v/%v/%v, want 0.5/0.333/0.4", p.Precision, p.Recall, p.F1)
	}
	// Clause presence: Governing Law TP, Audit Rights FP, Anti-Assignment
	// FN, License Grant FN (Gamma failed).
	if c := rep.Clauses; c.TP != 1 || c.FP != 1 || c.FN != 2 {
		t.Errorf("clauses = %+v", c)
	}
	for _, cs := range rep.Categories {
		if cs.Category == "Anti-Assignment" && (cs.FN != 1 || cs.Recall != 0) {
			t.Errorf("Anti-Assignment = %+v", cs)
		}
	}
	if e := rep.Evidence; e.Values != 3 || e.Verified != 2 || e.Unverified != 1 {
		t.Errorf("evidence = %+v", e)
	}
	if e := rep.ClauseEvidence; e.Values != 2 || e.Verified != 1 {
		t.Errorf("clause evidence = %+v", e)
	}
	if len(rep.PerContract) != 2 || rep.PerContract[1].Error != "extract: model timed out" {
		t.Fatalf("per contract = %+v", rep.PerContract)
	}

	var md, txt bytes.Buffer
	if err := WriteExtractionMarkdown(&md, rep); err != nil {
		t.Fatal(err)
	}
	if err := WriteExtractionText(&txt, rep); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"| parties | 1 | 1 | 2 | 0.500 | 0.333 | 0.400 | 0 |",
		"| end_date | 0 | 1 | 1 | 0.000 | 0.000 | 0.000 | 1 | – | 0/1 (0.000) |",
		"| governing_law | 1 | 0 | 0 | 1.000 | 1.000 | 1.000 | 0 | 1/1 (1.000) | – |",
		"| notice_period | 0 | 0 | 1 | – | 0.000 | 0.000 | 0 |", // nothing predicted: no precision
		"| Insurance | 0 | 0 | 0 | – | – | – |",
		"wrong: 2020-03-01, not 2021-03-01",
		"2 of 3 stored values verified at their offsets (66.7%)",
		"| Gamma_License | 2 | 0/1/0 |",
		"extract: model timed out |",
		"## Predictions without a gold row\n\n- Delta\n",
	} {
		if !strings.Contains(md.String(), want) {
			t.Errorf("Markdown lacks %q:\n%s", want, md.String())
		}
	}
	var page bytes.Buffer
	if err := WriteExtractionHTML(&page, rep); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"<title>Extraction against CUAD</title>", `<td>parties</td><td class="num">1</td>`, "<td>Gamma_License</td>", "<li>Delta</li>"} {
		if !strings.Contains(page.String(), want) {
			t.Errorf("HTML lacks %q:\n%s", want, page.String())
		}
	}
	for _, want := range []string{"2 contracts scored, 1 failed extraction", "Extraction failed (scored as empty):\n  Gamma_License: extract: model timed out"} {
		if !strings.Contains(txt.String(), want) {
			t.Errorf("text lacks %q:\n%s", want, txt.String())
		}
	}
}

func TestReadGoldCUAD(t *testing.T) {
	cuad := filepath.Join(sharedtest.Dir(t), "data", "cuad")
	g, err := ReadGold(context.Background(), filepath.Join(cuad, "master_clauses.csv"), "")
	if err != nil {
		t.Fatal(err)
	}
	if g.TextsDir != filepath.Join(cuad, "full_contract_txt") || len(g.Contracts) < 300 {
		t.Fatalf("texts %s, %d contracts, %d skipped", g.TextsDir, len(g.Contracts), len(g.Skipped))
	}
	var first *GoldContract
	for i := range g.Contracts {
		if strings.HasPrefix(g.Contracts[i].Contract.ID, "CybergyHoldingsInc_20140520") {
			first = &g.Contracts[i]
		}
	}
	if first == nil {
		t.Fatal("CybergyHoldings contract not in the gold set")
	}
	c := first.Contract
	// Agreement Date 5/8/14 stands in for the missing Effective Date.
	if c.EffectiveDate != "2014-05-08" || c.EndDate != "2014-12-31" || c.RenewalTerm != "P1Y" || c.NoticePeriod != "P30D" ||
		lawText(c.GoverningLaw) != "US/NV" || len(c.Parties) != 2 || c.Text == "" {
		t.Errorf("gold = %+v", c)
	}
	excluded := 0
	for _, gc := range g.Contracts {
		excluded += len(gc.Excluded)
	}
	if excluded == 0 {
		t.Error("no gold answer was excluded; CUAD has perpetual renewals and relative dates")
	}
}

func TestReadGoldErrors(t *testing.T) {
	dir := t.TempDir()
	jsonl := filepath.Join(dir, "contracts.jsonl")
	os.WriteFile(jsonl, []byte(`{"id":"a"}`+"\n"), 0o644)
	if _, err := ReadGold(context.Background(), jsonl, ""); err == nil || !strings.Contains(err.Error(), "not CUAD's master_clauses.csv") {
		t.Errorf("JSONL as gold: %v", err)
	}
	if _, err := ReadGold(context.Background(), filepath.Join(dir, "missing.csv"), ""); err == nil || !strings.Contains(err.Error(), "missing.csv") {
		t.Errorf("missing file: %v", err)
	}
	bad := filepath.Join(dir, "master_clauses.csv")
	os.WriteFile(bad, []byte("Filename,Parties,Parties-Answer,Colour\nx.pdf,,,\n"), 0o644)
	if _, err := ReadGold(context.Background(), bad, ""); err == nil || !strings.Contains(err.Error(), `column 4 "Colour"`) {
		t.Errorf("unknown column: %v", err)
	}
	os.WriteFile(bad, []byte("Filename,Parties,Parties-Answer\nx.pdf,,Acme Inc.\n"), 0o644)
	if _, err := ReadGold(context.Background(), bad, filepath.Join(dir, "nope")); err == nil || !strings.Contains(err.Error(), "texts directory") {
		t.Errorf("missing texts dir: %v", err)
	}
	os.Mkdir(filepath.Join(dir, "texts"), 0o755)
	if _, err := ReadGold(context.Background(), bad, filepath.Join(dir, "texts")); err == nil || !strings.Contains(err.Error(), `row 1 (file "x.pdf"): field Filename: no text file`) {
		t.Errorf("row without text: %v", err)
	}
}
