package main

import (
	"encoding/csv"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/contractgraph/contractgraph/internal/eval"
	"github.com/contractgraph/contractgraph/internal/extract"
	"github.com/contractgraph/contractgraph/internal/extract/extracttest"
)

// evalCUADFiles are three CUAD contracts the extraction tests score: a
// services agreement governed by Colorado law, a hosting agreement and a
// strategic alliance agreement.
var evalCUADFiles = []string{
	"TRANSMONTAIGNEPARTNERSLLC_03_13_2020-EX-10.9-SERVICES AGREEMENT",
	"BANGIINC_05_25_2005-EX-10-Premium Managed Hosting Agreement",
	"XLITECHNOLOGIES,INC_12_02_2015-EX-10.02-STRATEGIC ALLIANCE AGREEMENT",
}

// goldSubset writes the header and the rows of files (text names without
// extension) of the shared master_clauses.csv into a temporary CSV and
// returns its path and the shared texts directory.
func goldSubset(t *testing.T, files []string) (gold, texts string) {
	t.Helper()
	cuad := filepath.Join(sharedData(t), "data", "cuad")
	f, err := os.Open(filepath.Join(cuad, "master_clauses.csv"))
	if err != nil {
		t.Skip(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]bool{}
	for _, n := range files {
		want[eval.ContractKey(n)] = true
	}
	out := [][]string{rows[0]}
	for _, r := range rows[1:] {
		if want[eval.ContractKey(r[0])] {
			out = append(out, r)
		}
	}
	if len(out) != len(files)+1 {
		t.Fatalf("found %d of %d gold rows", len(out)-1, len(files))
	}
	gold = filepath.Join(t.TempDir(), "master_clauses.csv")
	g, err := os.Create(gold)
	if err != nil {
		t.Fatal(err)
	}
	w := csv.NewWriter(g)
	w.WriteAll(out)
	if err := g.Close(); err != nil {
		t.Fatal(err)
	}
	return gold, filepath.Join(cuad, "full_contract_txt")
}

func decodeExtraction(t *testing.T, out string) *eval.ExtractionReport {
	t.Helper()
	var rep eval.ExtractionReport
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("%v in %s", err, out)
	}
	return &rep
}

func fieldScore(rep *eval.ExtractionReport, field string) eval.FieldScore {
	for _, f := range rep.Fields {
		if f.Field == field {
			return f
		}
	}
	return eval.FieldScore{}
}

func TestEvalExtractionWithModel(t *testing.T) {
	gold, texts := goldSubset(t, evalCUADFiles)
	// The heuristic model reads the first written date, the governing-law
	// sentence and a "between X, a ..., and Y, a ..." preamble, quoting the
	// text; the strategic alliance agreement's request fails.
	srv := extracttest.NewServer(t, func(n int, req extracttest.Request) extracttest.Reply {
		text := req.ContractText()
		if strings.Contains(text, "STRATEGIC ALLIANCE AGREEMENT") {
			return extracttest.Reply{Status: 400}
		}
		return extracttest.JSON(extracttest.Heuristic(text), extract.EstimateTokens(text), 100)
	})
	t.Setenv("OPENAI_BASE_URL", srv.URL)
	t.Setenv("OPENAI_API_KEY", "test")
	dir := filepath.Join(t.TempDir(), "report")

	out, errOut, code := runContractgraph(t, "", "--model", "openai:gpt-fake", "--json", "eval", "extraction", "--gold", gold, "--texts", texts, "--limit", "0", "-o", dir)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	rep := decodeExtraction(t, out)
	if rep.Mode != "model" || rep.Model != "openai:gpt-fake" || rep.Contracts != 3 || rep.Failed != 1 || rep.NotPredicted != 0 || len(rep.Unmatched) != 0 {
		t.Fatalf("report: mode %s model %s contracts %d failed %d not predicted %d unmatched %v", rep.Mode, rep.Model, rep.Contracts, rep.Failed, rep.NotPredicted, rep.Unmatched)
	}
	var failed []string
	for _, c := range rep.PerContract {
		if c.Error != "" {
			failed = append(failed, c.ID)
		}
	}
	if len(failed) != 1 || !strings.HasPrefix(failed[0], "XLITECHNOLOGIES") {
		t.Errorf("failed contracts %v, want the strategic alliance agreement", failed)
	}
	// TRANSMONTAIGNE is governed by Colorado law, which the heuristic finds.
	if law := fieldScore(rep, "governing_law"); law.TP < 1 || law.Precision < 0.5 {
		t.Errorf("governing_law = %+v, want the Colorado contract right", law)
	}
	// The failed contract's expert answers all count as missed.
	if p := fieldScore(rep, "parties"); p.FN < 2 {
		t.Errorf("parties = %+v, want the failed contract's parties missed", p)
	}
	// The heuristic quotes the text verbatim: every stored value is at its offsets.
	if e := rep.Evidence; e.Values == 0 || e.Verified != e.Values || e.Share != 1 {
		t.Errorf("evidence = %+v", e)
	}
	if rep.Usage.InputTokens == 0 {
		t.Errorf("usage = %+v", rep.Usage)
	}
	for _, want := range []string{"eval extraction: reading gold answers from " + gold, "eval extraction: extracting 3 contracts with openai:gpt-fake",
		"] failed XLITECHNOLOGIES", "] ok TRANSMONTAIGNE", "eval extraction: extracting TRANSMONTAIGNEPARTNERSLLC_03_13_2020-EX-10.9-SERVICES AGREEMENT: ", "eval extraction: scored 3 contracts", "eval extraction: wrote " + filepath.Join(dir, "extraction.md")} {
		if !strings.Contains(errOut, want) {
			t.Errorf("progress lacks %q:\n%s", want, errOut)
		}
	}
	md, err := os.ReadFile(filepath.Join(dir, "extraction.md"))
	if err != nil {
		t.Fatal(err)
	}
	js, err := os.ReadFile(filepath.Join(dir, "extraction.json"))
	if err != nil {
		t.Fatal(err)
	}
	page, err := os.ReadFile(filepath.Join(dir, "extraction.html"))
	if err != nil || !strings.Contains(string(page), "<td>governing_law</td>") || strings.Contains(string(page), "<script src") {
		t.Errorf("extraction.html: %v\n%s", err, page)
	}
	if !strings.Contains(string(md), "| governing_law |") || string(js) != out {
		t.Errorf("written reports differ from the run's: md %d bytes, json equal %v", len(md), string(js) == out)
	}

	// --limit picks the smallest texts; the readable output is a table.
	out, errOut, code = runContractgraph(t, "", "--model", "openai:gpt-fake", "eval", "extraction", "--gold", gold, "--texts", texts, "--limit", "1")
	if !strings.Contains(errOut, "[1/1] ok BANGIINC") {
		t.Errorf("--limit 1 did not take the smallest text:\n%s", errOut)
	}
	if code != 0 || !strings.Contains(out, "1 contracts scored") || !strings.Contains(out, "governing_law") || !strings.Contains(out, "Evidence:\n  Values: ") {
		t.Errorf("--limit 1: exit %d\n%s", code, out)
	}
}

func TestEvalExtractionStored(t *testing.T) {
	gold, texts := goldSubset(t, evalCUADFiles)
	db := filepath.Join(t.TempDir(), "g.db")
	// Importing the expert answers and scoring them against themselves is
	// perfect: the pairing and the comparisons agree with the importer.
	if _, errOut, code := runContractgraph(t, "", "--db", db, "import", gold, "--texts", texts); code != 0 {
		t.Fatalf("import: %d %s", code, errOut)
	}
	out, errOut, code := runContractgraph(t, "", "--db", db, "--json", "eval", "extraction", "--gold", gold, "--texts", texts, "--stored")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	rep := decodeExtraction(t, out)
	if rep.Mode != "store" || rep.Store != db || rep.Contracts != 3 || rep.Failed != 0 {
		t.Fatalf("report: %+v", rep)
	}
	for _, f := range rep.Fields {
		if f.FP != 0 || f.FN != 0 || (f.TP > 0 && f.F1 != 1) {
			t.Errorf("%s = %+v, want perfect", f.Field, f)
		}
	}
	// Every expert span is at its offsets; some state their value only
	// indirectly ("upon the date of its execution"), which the report
	// counts apart from the verified ones.
	ev := rep.Evidence
	if rep.Clauses.F1 != 1 || ev.Verified+ev.Unsupported != ev.Values || ev.Verified < ev.Values*2/3 || ev.Unverified+ev.BadOffsets != 0 || rep.ClauseEvidence.Share != 1 {
		t.Errorf("clauses %+v evidence %+v clause evidence %+v", rep.Clauses, rep.Evidence, rep.ClauseEvidence)
	}
	if !strings.Contains(errOut, "read 3 stored contracts") {
		t.Errorf("progress:\n%s", errOut)
	}

	// A store whose contracts are none of the gold rows.
	other, _ := goldSubset(t, evalCUADFiles[:1])
	db2 := filepath.Join(t.TempDir(), "other.db")
	otherGold, _ := goldSubset(t, evalCUADFiles[1:2])
	runContractgraph(t, "", "--db", db2, "import", other, "--texts", texts)
	if _, errOut, code := runContractgraph(t, "", "--db", db2, "eval", "extraction", "--gold", otherGold, "--texts", texts, "--stored"); code != 2 || !strings.Contains(errOut, "none of the 1 stored contracts matches a gold row") {
		t.Errorf("unmatched store: %d %s", code, errOut)
	}
	if _, errOut, code := runContractgraph(t, "", "--db", filepath.Join(t.TempDir(), "none.db"), "eval", "extraction", "--gold", gold, "--stored"); code != 2 || !strings.Contains(errOut, "no database at") {
		t.Errorf("missing store: %d %s", code, errOut)
	}
}

func TestEvalExtractionBadInput(t *testing.T) {
	dir := t.TempDir()
	jsonl := filepath.Join(dir, "export.jsonl")
	os.WriteFile(jsonl, []byte(`{"id":"a"}`+"\n"), 0o644)
	badRow := filepath.Join(dir, "master_clauses.csv")
	os.WriteFile(badRow, []byte("Filename,Parties,Parties-Answer,Governing Law,Governing Law-Answer,Colour\nx.pdf,,,,,\n"), 0o644)
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"no gold", []string{"eval", "extraction", "--stored"}, "--gold is required"},
		{"JSONL as gold", []string{"eval", "extraction", "--gold", jsonl, "--stored"}, "export.jsonl is jsonl input, not CUAD's master_clauses.csv"},
		{"unknown column", []string{"eval", "extraction", "--gold", badRow, "--stored"}, `master_clauses.csv: row 0 (header): field column 6 "Colour": unknown column`},
		{"missing gold", []string{"eval", "extraction", "--gold", filepath.Join(dir, "nope.csv")}, "nope.csv: no such file"},
		{"negative limit", []string{"eval", "extraction", "--gold", jsonl, "--limit", "-1"}, "--limit -1"},
		{"stray argument", []string{"eval", "extraction", "--gold", jsonl, "extra"}, "extra"},
	}
	for _, tt := range tests {
		_, errOut, code := runContractgraph(t, "", append([]string{"--db", filepath.Join(dir, "g.db")}, tt.args...)...)
		if code != 2 || !strings.Contains(errOut, tt.want) {
			t.Errorf("%s: exit %d, stderr %q; want 2 and %q", tt.name, code, errOut, tt.want)
		}
	}
	// Model mode without a model says how to configure one.
	gold, texts := goldSubset(t, evalCUADFiles[:1])
	t.Setenv("CONTRACTGRAPH_MODEL", "")
	if _, errOut, code := runContractgraph(t, "", "eval", "extraction", "--gold", gold, "--texts", texts); code != 2 || !strings.Contains(errOut, "--model") {
		t.Errorf("no model: %d %s", code, errOut)
	}
}
