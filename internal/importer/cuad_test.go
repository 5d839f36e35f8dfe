package importer

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/contractgraph/contractgraph/internal/contract"
	"github.com/contractgraph/contractgraph/internal/sharedtest"
)

// derivedSpan is one line of cuad_spans_derived.jsonl.
type derivedSpan struct {
	File      string `json:"file"`
	Category  string `json:"category"`
	ByteStart int    `json:"byte_start"`
	ByteEnd   int    `json:"byte_end"`
	Text      string `json:"text"`
}

func TestReadCUADSharedFiles(t *testing.T) {
	cuad := filepath.Join(sharedtest.Dir(t), "data", "cuad")
	recs := readAll(t, filepath.Join(cuad, "master_clauses.csv"), Options{TextsDir: filepath.Join(cuad, "full_contract_txt")})
	if len(recs) != 306 {
		t.Fatalf("read %d rows, want 306", len(recs))
	}
	byID := map[string]*contract.Contract{}
	var spans, verified int
	for _, r := range recs {
		if r.Err != nil {
			t.Errorf("row %d: %v", r.Index, r.Err)
			continue
		}
		c := r.Contract
		if c.Text == "" || len(c.SHA256) != 64 {
			t.Errorf("%s: text not stored", c.ID)
		}
		byID[c.ID] = c
		for _, cl := range c.Clauses {
			spans++
			if cl.Verified {
				verified++
				if c.Text[cl.Start:cl.End] != cl.Text {
					t.Errorf("%s: clause %q verified but the text at [%d,%d) differs", c.ID, cl.Type, cl.Start, cl.End)
				}
			}
		}
	}
	if len(byID) != 306 {
		t.Errorf("%d distinct contracts, want 306", len(byID))
	}
	pct := 100 * float64(verified) / float64(spans)
	t.Logf("verified %d of %d clause spans (%.2f%%)", verified, spans, pct)
	if pct < 99 {
		t.Errorf("verified %.2f%% of spans, want >= 99%%", pct)
	}

	// Compare with the independently derived offsets: every derived span
	// must be one of our verified clauses with the same offsets.
	f, err := os.Open(filepath.Join(cuad, "cuad_spans_derived.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	type key struct {
		id, category string
		start, end   int
	}
	ours := map[key]string{}
	for id, c := range byID {
		for _, cl := range c.Clauses {
			if cl.Verified {
				ours[key{id, cl.Type, cl.Start, cl.End}] = cl.Text
			}
		}
	}
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<24)
	var derived, same int
	for sc.Scan() {
		var d derivedSpan
		if err := json.Unmarshal(sc.Bytes(), &d); err != nil {
			t.Fatal(err)
		}
		derived++
		typ, _, err := contract.ParseClauseType(d.Category)
		if err != nil {
			t.Fatal(err)
		}
		if text, ok := ours[key{strings.TrimSpace(strings.TrimSuffix(d.File, ".txt")), typ, d.ByteStart, d.ByteEnd}]; ok && text == d.Text {
			same++
		}
	}
	t.Logf("%d of %d derived spans found with identical offsets", same, derived)
	if derived != 8236 || float64(same) < 0.99*float64(derived) {
		t.Errorf("%d of %d derived spans matched, want >= 99%% of 8236", same, derived)
	}

	c := byID["CybergyHoldingsInc_20140520_10-Q_EX-10.27_8605784_EX-10.27_Affiliate Agreement"]
	if c == nil {
		t.Fatal("Cybergy contract missing")
	}
	got := *c
	got.Clauses, got.Text, got.Evidence, got.SHA256 = nil, "", nil, ""
	days := 237
	want := contract.Contract{
		ID:            "CybergyHoldingsInc_20140520_10-Q_EX-10.27_8605784_EX-10.27_Affiliate Agreement",
		Title:         "Marketing Affiliate Agreement",
		ContractType:  "Affiliate Agreement",
		EffectiveDate: "2014-05-08",
		EndDate:       "2014-12-31",
		DurationDays:  &days,
		RenewalTerm:   "P1Y",
		NoticePeriod:  "P30D",
		RenewalKind:   contract.RenewalAutomatic,
		SourcePath:    filepath.Join(cuad, "full_contract_txt", "CybergyHoldingsInc_20140520_10-Q_EX-10.27_8605784_EX-10.27_Affiliate Agreement.txt"),
		ExtractedBy:   "cuad-v1",
		GoverningLaw:  &contract.Location{Country: "US", State: "NV"},
		Parties: []contract.PartyRole{
			{Name: "Birch First Global Investments Inc.", Role: "Company"},
			{Name: "Mount Kowledge Holdings Inc.", Role: "Marketing Affiliate"},
		},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Cybergy contract (-want +got):\n%s", diff)
	}
	// Each timeline value cites the span it was read from.
	cited := map[string]string{}
	for _, e := range c.Evidence {
		cited[e.Field] = e.Value
		if e.Field == contract.FieldRenewalKind && !strings.Contains(e.Quote, "automatically renewed") {
			t.Errorf("renewal_kind evidence %q does not state the automatic renewal", e.Quote)
		}
	}
	for field, v := range map[string]string{"renewal_kind": "automatic", "renewal_term": "P1Y", "notice_period": "P30D"} {
		if cited[field] != v {
			t.Errorf("evidence for %s = %q, want %q", field, cited[field], v)
		}
	}
	// The name with a stray quote after ".PDF" still finds its text.
	if c := byID["KALLOINC_11_03_2011-EX-10.1-STRATEGIC ALLIANCE AGREEMENT"]; c == nil || c.Text == "" {
		t.Error("KALLO contract (CSV name ends in .PDF') has no text")
	}
}

func TestCUADDirectoryDefaultsTexts(t *testing.T) {
	cuad := filepath.Join(sharedtest.Dir(t), "data", "cuad")
	n := 0
	err := Read(context.Background(), cuad, Options{}, func(r Record) error {
		if r.Err == nil && r.Contract.Text != "" {
			n++
		}
		return nil
	})
	if err != nil || n != 306 {
		t.Errorf("Read(dir) = %v with %d texts, want 306", err, n)
	}
}

const cuadHeader = "Filename,Document Name,Document Name-Answer,Parties,Parties-Answer,Governing Law,Governing Law-Answer,Expiration Date,Expiration Date-Answer,Renewal Term,Renewal Term-Answer\n"

func TestCUADMalformed(t *testing.T) {
	dir := t.TempDir()
	texts := filepath.Join(dir, "txt")
	if err := os.Mkdir(texts, 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, texts, "Acme_Co-Branding Agreement.txt", "CO-BRANDING AGREEMENT between Acme Corp. and Beta LLC. This Agreement is governed by the laws of England and Wales. The term is perpetual.")
	good := `"Acme_Co-Branding Agreement.pdf","['CO-BRANDING AGREEMENT']",CO-BRANDING AGREEMENT,"['Acme Corp.', ""Beta LLC""]","Acme Corp. (""Acme""); Beta LLC (the “Licensee”)","['This Agreement is governed by the laws of <omitted> England and Wales.']",England and Wales,"['The term is perpetual.']",Perpetual,[],`
	tests := []struct {
		name      string
		csv       string
		textsDir  string
		wantIDs   []string
		wantRecs  []string
		wantWarn  []string
		wantFatal string
	}{
		{
			name:     "good row",
			csv:      cuadHeader + good + "\n",
			textsDir: texts,
			wantIDs:  []string{"Acme_Co-Branding Agreement"},
		},
		{
			name:    "no texts",
			csv:     cuadHeader + strings.Replace(good, ".pdf", ".PDF'", 1) + "\n",
			wantIDs: []string{"Acme_Co-Branding Agreement"},
		},
		{
			name:      "missing texts dir",
			csv:       cuadHeader + good + "\n",
			textsDir:  filepath.Join(dir, "nope"),
			wantFatal: "F: texts dir: open " + filepath.Join(dir, "nope") + ": no such file or directory",
		},
		{
			name:      "unknown column",
			csv:       strings.Replace(cuadHeader, "Renewal Term-Answer", "Renewal Terms-Answer", 1) + good + "\n",
			textsDir:  texts,
			wantFatal: `F: row 0 (header): field column 11 "Renewal Terms-Answer": unknown column; want Filename and CUAD's 41 categories, each with its -Answer column`,
		},
		{
			name:     "bad rows continue",
			csv:      cuadHeader + `"Missing.pdf",[],,[],,[],,[],,[],` + "\n" + `"Acme_Co-Branding Agreement.pdf",[],,[],,[],,[],,[]` + "\n" + strings.Replace(good, "[],", "['broken],", 1) + "\n" + strings.Replace(good, "Perpetual", "2019-02-30", 1) + "\n",
			textsDir: texts,
			// Row 4 names the text of row 3 again: a duplicate id in one
			// file is an error naming both rows, and the first is kept.
			wantIDs: []string{"Acme_Co-Branding Agreement"},
			wantRecs: []string{
				`F: row 1 (file "Missing.pdf"): field Filename: no text file in ` + texts + ` matches "Missing.pdf"`,
				`F: row 2: has 10 columns, the header has 11`,
				`F: row 4 (id "Acme_Co-Branding Agreement"): field id: duplicate id "Acme_Co-Branding Agreement": row 3 of this file has it too, and that one is kept`,
			},
			wantWarn: []string{
				`F: row 3 (file "Acme_Co-Branding Agreement.pdf"): field Renewal Term: python list literal at byte 1: unterminated string; clauses of this category dropped`,
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := writeFile(t, dir, "master_clauses.csv", tt.csv)
			var ids, recErrs, warns []string
			var contracts []*contract.Contract
			err := Read(context.Background(), path, Options{TextsDir: tt.textsDir}, func(r Record) error {
				for _, w := range r.Warnings {
					warns = append(warns, strings.ReplaceAll(w.Error(), path, "F"))
				}
				if r.Err != nil {
					recErrs = append(recErrs, strings.ReplaceAll(r.Err.Error(), path, "F"))
					return nil
				}
				ids = append(ids, r.Contract.ID)
				contracts = append(contracts, r.Contract)
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
			if diff := cmp.Diff(tt.wantWarn, warns); diff != "" {
				t.Errorf("warnings (-want +got):\n%s", diff)
			}
			if tt.name == "no texts" {
				c := contracts[0]
				if c.Text != "" || len(c.Clauses) != 6 || c.Clauses[0].Verified || c.Clauses[0].End != 0 {
					t.Errorf("without texts: text %q, clauses %+v", c.Text, c.Clauses)
				}
				return
			}
			if tt.name != "good row" {
				return
			}
			c := contracts[0]
			if c.ContractType != "Co-Branding" || c.Title != "Co-Branding Agreement" || c.EndDate != "" {
				t.Errorf("type %q title %q end %q", c.ContractType, c.Title, c.EndDate)
			}
			if diff := cmp.Diff(&contract.Location{Country: "GB"}, c.GoverningLaw); diff != "" {
				t.Errorf("governing law (-want +got):\n%s", diff)
			}
			wantParties := []contract.PartyRole{{Name: "Acme Corp."}, {Name: "Beta LLC", Role: "Licensee"}}
			if diff := cmp.Diff(wantParties, c.Parties); diff != "" {
				t.Errorf("parties (-want +got):\n%s", diff)
			}
			// The span with <omitted> becomes two clauses, each found after the one before.
			var law []contract.Clause
			for _, cl := range c.Clauses {
				if cl.Type == "Governing Law" {
					law = append(law, cl)
				}
			}
			wantLaw := []contract.Clause{
				{Type: "Governing Law", Group: contract.GroupGeneral, Text: "This Agreement is governed by the laws of", Start: 55, End: 96, Verified: true},
				{Type: "Governing Law", Group: contract.GroupGeneral, Text: "England and Wales.", Start: 97, End: 115, Verified: true},
			}
			if diff := cmp.Diff(wantLaw, law); diff != "" {
				t.Errorf("governing law clauses (-want +got):\n%s", diff)
			}
		})
	}
}

func TestCUADParties(t *testing.T) {
	tests := []struct {
		in   string
		want []contract.PartyRole
	}{
		{`Birch First Global Investments Inc. ("Company"); Mount Kowledge Holdings Inc. ("Marketing Affiliate", "MA")`,
			[]contract.PartyRole{{Name: "Birch First Global Investments Inc.", Role: "Company"}, {Name: "Mount Kowledge Holdings Inc.", Role: "Marketing Affiliate"}}},
		{`INTEGRITY INCORPORATED ("Integrity"); TIME LIFE, INC. d/b/a Time Life Music ("TL")`,
			[]contract.PartyRole{{Name: "INTEGRITY INCORPORATED"}, {Name: "TIME LIFE, INC."}}},
		{`International Business Machines Corporation ("IBM”); The Quantum Group Inc. ("Customer")`,
			[]contract.PartyRole{{Name: "International Business Machines Corporation"}, {Name: "The Quantum Group Inc.", Role: "Customer"}}},
		{`WATER NOW, INC.; ("Water Now"); HOF Village, LLC ("Media"); HOF Village, LLC ("HOFV")`,
			[]contract.PartyRole{{Name: "WATER NOW, INC."}, {Name: "HOF Village, LLC", Role: "Media"}}},
		{`Signature Orthopaedics Pty Ltd; CPM Medical Consultants, LLC`,
			[]contract.PartyRole{{Name: "Signature Orthopaedics Pty Ltd"}, {Name: "CPM Medical Consultants, LLC"}}},
		{`(Dragon Systems, Inc. ("Dragon Systems"); Modus Media International ("MMI")`,
			[]contract.PartyRole{{Name: "Dragon Systems, Inc."}, {Name: "Modus Media International"}}},
		{`(BANK OF SOUTH PACIFIC LIMITED ("BSP"); DATEC (PNG) LIMITED ("Datec"))`,
			[]contract.PartyRole{{Name: "BANK OF SOUTH PACIFIC LIMITED"}, {Name: "DATEC (PNG) LIMITED"}}},
		{`Airsopure International Group, Inc. ("AIRSOPURE" or "we" or "us"); [] ("You" or "Franchisee")`,
			[]contract.PartyRole{{Name: "Airsopure International Group, Inc."}}},
		{``, nil},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, parseCUADParties(tt.in)); diff != "" {
			t.Errorf("parseCUADParties(%q) (-want +got):\n%s", tt.in, diff)
		}
	}
}

func TestGoverningLaw(t *testing.T) {
	tests := []struct {
		in   string
		want *contract.Location
	}{
		{"Nevada", &contract.Location{Country: "US", State: "NV"}},
		{"New York", &contract.Location{Country: "US", State: "NY"}},
		{"England and Wales", &contract.Location{Country: "GB"}},
		{"England", &contract.Location{Country: "GB"}},
		{"Ontario, Canada", &contract.Location{Country: "CA", State: "ON"}},
		{"British Columbia, Canada", &contract.Location{Country: "CA", State: "BC"}},
		{"People's Republic of China", &contract.Location{Country: "CN"}},
		{"Texas; Singapore; Belgium", &contract.Location{Country: "US", State: "TX"}},
		{"Virginia, Texas", &contract.Location{Country: "US", State: "VA"}},
		{"Republic of South Africa", &contract.Location{Country: "ZA"}},
		{"Beijing", &contract.Location{Country: "CN", City: "Beijing"}},
		{"United States", &contract.Location{Country: "US"}},
	}
	for _, tt := range tests {
		got, ok := governingLaw(tt.in)
		if !ok {
			t.Errorf("governingLaw(%q) failed", tt.in)
			continue
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("governingLaw(%q) (-want +got):\n%s", tt.in, diff)
		}
	}
	if got, ok := governingLaw("THE STATE IN WHICH THE FRANCHISED RESTAURANT IS LOCATED"); ok {
		t.Errorf("governingLaw(prose) = %+v, want none", got)
	}
}

func TestTypeFromTitle(t *testing.T) {
	tests := []struct{ in, want string }{
		{"Distributor Agreement", "Distributor"}, {"License and Hosting Agreement", "Hosting"},
		{"Content License Agreement", "License Agreement"}, {"Joint Filing Agreement", "Joint Venture"},
		{"Intellectual Property Agreement", "IP"}, {"Cooperation Agreement", "Collaboration"},
		{"Transportation Services Agreement", "Transportation"}, {"Stock Purchase Agreement", "Other"},
		{"Non-Competition Agreement", "Non Compete/Solicit"}, {"Servicing Agreement", "Service"},
	}
	for _, tt := range tests {
		if got := typeFromTitle(tt.in); got != tt.want {
			t.Errorf("typeFromTitle(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
