package importer

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"golang.org/x/text/unicode/norm"

	"github.com/contractgraph/contractgraph/internal/contract"
	"github.com/contractgraph/contractgraph/internal/sharedtest"
)

func TestReadReferenceSharedFile(t *testing.T) {
	path := filepath.Join(sharedtest.Dir(t), "data", "legal-tech-chat", "contract_data.json")
	recs := readAll(t, path, Options{})
	if len(recs) != 510 {
		t.Fatalf("read %d records, want 510", len(recs))
	}
	var warnings, withClauses, withLaw int
	types := map[string]int{}
	ids := map[string]bool{}
	for _, r := range recs {
		if r.Err != nil {
			t.Errorf("record %d: %v", r.Index, r.Err)
			continue
		}
		c := r.Contract
		if ids[c.ID] {
			t.Errorf("duplicate id %q", c.ID)
		}
		ids[c.ID] = true
		warnings += len(r.Warnings)
		types[c.ContractType]++
		if len(c.Clauses) > 0 {
			withClauses++
		}
		if c.GoverningLaw != nil {
			withLaw++
		}
		for _, p := range c.Parties {
			if p.Location != nil && p.Location.Country != "" && len(p.Location.Country) != 2 {
				t.Errorf("%s: party %q country %q is not alpha-2", c.ID, p.Name, p.Location.Country)
			}
			if p.Location != nil && p.Location.Country == "US" && p.Location.State != "" && len(p.Location.State) != 2 {
				t.Errorf("%s: party %q state %q is not a USPS code", c.ID, p.Name, p.Location.State)
			}
		}
		for _, cl := range c.Clauses {
			if !contract.IsClauseGroup(cl.Type) || cl.Group != cl.Type {
				t.Errorf("%s: clause type %q group %q, want one of the five reference groups", c.ID, cl.Type, cl.Group)
			}
		}
	}
	// The 17 dropped values: 10 durations that are not ISO 8601 ("P", "PUN",
	// "P[*****]Y", free text...), 4 redacted or "N/A" party names and 3
	// postal codes given as a state.
	if warnings != 17 {
		t.Errorf("%d warnings, want 17", warnings)
	}
	if withClauses != 348 {
		t.Errorf("%d contracts with clauses, want 348", withClauses)
	}
	if withLaw != 388 { // 389 have governing_law, one of them only "[***]"
		t.Errorf("%d contracts with governing law, want 388", withLaw)
	}
	// The fused legacy values are split by the file name hint: 23
	// "Affiliate AgreementDevelopment" and 3 "Non Compete/SolicitOutsourcing".
	if got := types["Affiliate Agreement"] + types["Development"]; got != 23 {
		t.Errorf("Affiliate Agreement + Development = %d, want 23", got)
	}
	if got := types["Non Compete/Solicit"] + types["Outsourcing"]; got != 3 {
		t.Errorf("Non Compete/Solicit + Outsourcing = %d, want 3", got)
	}
	for _, id := range []string{"SPRINGBANKPHARMACEUTICALS,INC_04_08_2020-EX-99.A-JOINT FILING AGREEMENT"} {
		if !ids[id] {
			t.Errorf("id %q missing", id)
		}
	}
	// One file_id is written decomposed (E + combining accent); ids are NFC
	// so that it matches its CUAD text file name.
	leclanche := 0
	for id := range ids {
		if !norm.NFC.IsNormalString(id) {
			t.Errorf("id %q is not NFC", id)
		}
		if strings.Contains(id, "LECLANCHÉ") {
			leclanche++
		}
	}
	if leclanche != 1 {
		t.Errorf("%d LECLANCHÉ ids, want 1", leclanche)
	}
	first := recs[0].Contract
	want := &contract.Contract{
		ID:            "SPRINGBANKPHARMACEUTICALS,INC_04_08_2020-EX-99.A-JOINT FILING AGREEMENT",
		Title:         "Joint Filing Agreement",
		ContractType:  "Joint Venture",
		EffectiveDate: "2020-04-07",
		Scope:         "Joint filing agreement regarding common stock of Spring Bank Pharmaceuticals, Inc.",
		SourcePath:    path, ExtractedBy: contract.ReferenceSource,
		Parties: []contract.PartyRole{
			{Name: "UBS ONCOLOGY IMPACT FUND L.P.", Role: "Party", Location: &contract.Location{Country: "US"}},
			{Name: "ONCOLOGY IMPACT FUND (CAYMAN) MANAGEMENT L.P.", Role: "Party", Location: &contract.Location{Country: "KY"}},
			{Name: "MPM ONCOLOGY IMPACT MANAGEMENT LP", Role: "Party", Location: &contract.Location{Country: "US"}},
			{Name: "MPM ONCOLOGY IMPACT MANAGEMENT GP LLC", Role: "Party", Location: &contract.Location{Country: "US"}},
		},
	}
	if diff := cmp.Diff(want, first, cmpIgnoreSummary); diff != "" {
		t.Errorf("first contract (-want +got):\n%s", diff)
	}
}

var cmpIgnoreSummary = cmp.FilterPath(func(p cmp.Path) bool { return p.String() == "Summary" }, cmp.Ignore())

func TestReferenceRecordNormalisation(t *testing.T) {
	dir := t.TempDir()
	path := writeFile(t, dir, "one.json", `[{
		"summary": "  A   supply deal ",
		"contract_type": "Affiliate AgreementDevelopment",
		"parties": [
			{"name": " \"Acme  Corp.\" ", "role": " Licensor ", "location": {"address": null, "city": "Austin", "state": "Texas", "country": "United States"}},
			{"name": "[***]", "role": "Party", "location": null},
			{"name": "Beta GmbH", "role": "Licensee", "location": {"country": "[***]", "state": "Bavaria"}}
		],
		"effective_date": "2019-02-30",
		"contract_scope": "Scope",
		"duration": "P1Y6M",
		"end_date": "March 1, 2021",
		"total_amount": "$1,200.50",
		"governing_law": {"country": "US", "state": "New York"},
		"clauses": [{"summary": "s", "clause_type": "Liability & Indemnification"}, {"summary": "x", "clause_type": "Weird"}],
		"file_id": "ACME_2019-EX-10.1-DEVELOPMENT AGREEMENT"
	}]`)
	recs := readAll(t, path, Options{})
	if len(recs) != 1 || recs[0].Err != nil {
		t.Fatalf("records = %+v", recs)
	}
	amount, days := 1200.50, 545
	want := &contract.Contract{
		ID: "ACME_2019-EX-10.1-DEVELOPMENT AGREEMENT", Title: "Development Agreement",
		Summary: "A supply deal", ContractType: "Development", EndDate: "2021-03-01",
		Duration: "P1Y6M", DurationDays: &days, TotalAmount: &amount, Scope: "Scope", SourcePath: path, ExtractedBy: contract.ReferenceSource,
		GoverningLaw: &contract.Location{Country: "US", State: "NY"},
		Parties: []contract.PartyRole{
			{Name: "Acme Corp.", Role: "Licensor", Location: &contract.Location{Country: "US", State: "TX", City: "Austin"}},
			{Name: "Beta GmbH", Role: "Licensee", Location: &contract.Location{State: "Bavaria"}},
		},
		Clauses: []contract.Clause{{Type: "Liability & Indemnification", Group: "Liability & Indemnification", Summary: "s"}},
	}
	if diff := cmp.Diff(want, recs[0].Contract); diff != "" {
		t.Errorf("contract (-want +got):\n%s", diff)
	}
	var got []string
	for _, w := range recs[0].Warnings {
		got = append(got, w.Error())
	}
	label := path + `: record 1 (id "ACME_2019-EX-10.1-DEVELOPMENT AGREEMENT"): field `
	wantWarn := []string{
		label + `effective_date: invalid date "2019-02-30": day 30 does not exist in 2019-02; dropped`,
		label + `parties[1].name: party without a name "[***]" dropped`,
		label + `clauses[1].clause_type: unknown clause type "Weird"; clause dropped`,
	}
	if diff := cmp.Diff(wantWarn, got); diff != "" {
		t.Errorf("warnings (-want +got):\n%s", diff)
	}
}

func TestReferenceMalformed(t *testing.T) {
	dir := t.TempDir()
	good := `{"file_id": "a", "summary": "ok", "contract_type": "Service", "parties": [], "effective_date": "2020-01-01"}`
	tests := []struct {
		name      string
		content   string
		wantIDs   []string // contracts read
		wantRecs  []string // record errors, in order
		wantFatal string   // Read's error
	}{
		{
			name:      "broken mid-array",
			content:   "[" + good + `, {"file_id": "b", "summary": `,
			wantIDs:   []string{"a"},
			wantFatal: `F: record 2: malformed JSON at byte 139: the record starting at byte 111 is not closed`,
		},
		{
			name:     "wrong types",
			content:  "[" + good + `, {"file_id": "b", "summary": 5}, {"file_id": "c", "parties": [{"name": ["x"]}]}, {"file_id": 7}, ` + strings.Replace(good, `"a"`, `"d"`, 1) + "]",
			wantIDs:  []string{"a", "d"},
			wantRecs: []string{`F: record 2 (id "b"): field summary: expected a string, got JSON number`, `F: record 3 (id "c"): field parties.name: expected a string, got JSON array`, `F: record 4: field file_id: expected a string, got JSON number`},
		},
		{
			name:     "missing id",
			content:  `[{"summary": "no id"}]`,
			wantRecs: []string{`F: record 1: field file_id: missing`},
		},
		{
			name:      "not an array of objects",
			content:   `[1}`,
			wantRecs:  []string{`F: record 1: expected an object, got JSON number`},
			wantFatal: `F: record 2: malformed JSON at byte 2: expected , or ] between records, found '}'`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := writeFile(t, dir, "in.json", tt.content)
			var ids, recErrs []string
			err := Read(context.Background(), path, Options{}, func(r Record) error {
				if r.Err != nil {
					recErrs = append(recErrs, strings.ReplaceAll(r.Err.Error(), path, "F"))
					var re *RecordError
					if !errors.As(r.Err, &re) {
						t.Errorf("record error %T is not a *RecordError", r.Err)
					}
					return nil
				}
				ids = append(ids, r.Contract.ID)
				return nil
			})
			gotFatal := ""
			if err != nil {
				gotFatal = strings.ReplaceAll(err.Error(), path, "F")
			}
			if gotFatal != tt.wantFatal {
				t.Errorf("Read error = %q, want %q", gotFatal, tt.wantFatal)
			}
			if diff := cmp.Diff(tt.wantIDs, ids); diff != "" {
				t.Errorf("ids (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantRecs, recErrs); diff != "" {
				t.Errorf("record errors (-want +got):\n%s", diff)
			}
		})
	}
}

func TestReadStopsOnCallbackError(t *testing.T) {
	path := filepath.Join(sharedtest.Dir(t), "data", "legal-tech-chat", "contract_data.json")
	stop := errors.New("stop")
	n := 0
	err := Read(context.Background(), path, Options{}, func(Record) error {
		n++
		if n == 3 {
			return stop
		}
		return nil
	})
	if !errors.Is(err, stop) || n != 3 {
		t.Errorf("Read = %v after %d records, want stop after 3", err, n)
	}
}

func TestTitleFromID(t *testing.T) {
	tests := []struct{ in, want string }{
		{"SPRINGBANKPHARMACEUTICALS,INC_04_08_2020-EX-99.A-JOINT FILING AGREEMENT", "Joint Filing Agreement"},
		{"CybergyHoldingsInc_20140520_10-Q_EX-10.27_8605784_EX-10.27_Affiliate Agreement", "Affiliate Agreement"},
		{"ACME-EX-10.1-INTELLECTUAL PROPERTY AGREEMENT", "Intellectual Property Agreement"},
		{"ACME-EX-10.1-LICENSE AND HOSTING AGREEMENT", "License and Hosting Agreement"},
		{"plain_name", "plain name"},
	}
	for _, tt := range tests {
		if got := TitleFromID(tt.in); got != tt.want {
			t.Errorf("TitleFromID(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestDetect(t *testing.T) {
	tests := []struct {
		in   string
		want Format
		err  string
	}{
		{"\ufeff  [ {}", FormatReference, ""},
		{"{\"contractgraph_export\":1}\n{}", FormatJSONL, ""},
		{"Filename,Document Name,Document Name-Answer,Parties,Parties-Answer\n", FormatCUAD, ""},
		{"id,name\n1,2\n", "", ErrUnknownFormat.Error()},
		{"{\n  \"id\": \"a\"\n}\n", "", ErrUnknownFormat.Error() + " (the first line is not a whole JSON object: JSONL holds one object per line)"},
		{`{"id":"a"}`, FormatJSONL, ""},
		{"", "", ErrUnknownFormat.Error() + " (the input is empty)"},
	}
	for _, tt := range tests {
		got, err := Detect(strings.NewReader(tt.in))
		gotErr := ""
		if err != nil {
			gotErr = err.Error()
		}
		if got != tt.want || gotErr != tt.err {
			t.Errorf("Detect(%q) = %q, %q; want %q, %q", tt.in, got, gotErr, tt.want, tt.err)
		}
	}
}

func TestParseAmount(t *testing.T) {
	for in, want := range map[string]float64{`12.5`: 12.5, `"$1,000"`: 1000, `"2500000 USD"`: 2500000} {
		got, err := parseAmount(json.RawMessage(in))
		if err != nil || got == nil || *got != want {
			t.Errorf("parseAmount(%s) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, in := range []string{`null`, `"[***]"`, `""`} {
		if got, err := parseAmount(json.RawMessage(in)); err != nil || got != nil {
			t.Errorf("parseAmount(%s) = %v, %v; want nil", in, got, err)
		}
	}
	if _, err := parseAmount(json.RawMessage(`"lots"`)); err == nil || err.Error() != `invalid amount "lots" dropped` {
		t.Errorf("parseAmount(lots) error = %v", err)
	}
	for _, in := range []string{`-5`, `"-$1,000"`} {
		if got, err := parseAmount(json.RawMessage(in)); err == nil || got != nil || !strings.Contains(err.Error(), "negative amount") {
			t.Errorf("parseAmount(%s) = %v, %v; want a negative amount dropped", in, got, err)
		}
	}
}

// TestReferenceNormalisationEffects pins down how normalisation changes
// what the raw reference data says, the differences explained in the
// project notes: governing-law states written as names and as codes become
// one code, so "New York" (24) joins "NY" (57), "California" (19) joins
// "CA" (27) and "Delaware" (21) joins "DE" (17); the "N/A" and "None"
// party countries are dropped.
func TestReferenceNormalisationEffects(t *testing.T) {
	path := filepath.Join(sharedtest.Dir(t), "data", "legal-tech-chat", "contract_data.json")
	states := map[string]int{}
	partyCountries := map[string]bool{}
	for _, r := range readAll(t, path, Options{}) {
		c := r.Contract
		if c.GoverningLaw != nil && c.GoverningLaw.Country == "US" {
			states[c.GoverningLaw.State]++
		}
		for _, p := range c.Parties {
			if p.Location != nil && p.Location.Country != "" {
				partyCountries[p.Location.Country] = true
			}
		}
	}
	for st, want := range map[string]int{"NY": 57 + 24, "CA": 27 + 19, "DE": 17 + 21, "TX": 16 + 8, "FL": 10 + 8 + 1} {
		if states[st] != want {
			t.Errorf("governing law %s: %d contracts, want %d", st, states[st], want)
		}
	}
	for st := range states {
		if len(st) > 2 {
			t.Errorf("governing law state %q is not a USPS code", st)
		}
	}
	// 46 raw values, less "N/A" and "None".
	if len(partyCountries) != 44 {
		t.Errorf("%d party countries, want 44", len(partyCountries))
	}
}
