package main

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/contractgraph/contractgraph/internal/contract"
	"github.com/contractgraph/contractgraph/internal/graph/neo4j/neo4jtest"
)

// limeEnergy is the contract the issue found losing values to a CUAD import.
const limeEnergy = "LIMEENERGYCO_09_09_1999-EX-10-DISTRIBUTOR AGREEMENT"

// mergeSubset writes, under dir, the reference records and the CUAD rows
// (with their texts) of the first n CUAD contracts and LIMEENERGYCO, so that
// the merge test imports both sources of the same contracts in seconds.
func mergeSubset(t *testing.T, dir string, n int) (ref, cuadCSV, texts string) {
	t.Helper()
	shared := sharedData(t)
	f, err := os.Open(filepath.Join(shared, "data", "cuad", "master_clauses.csv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	keep := [][]string{rows[0]}
	for i, r := range rows[1:] {
		if i < n || strings.HasPrefix(r[0], "LIMEENERGYCO") {
			keep = append(keep, r)
		}
	}
	cuadCSV = filepath.Join(dir, "master_clauses.csv")
	out, err := os.Create(cuadCSV)
	if err != nil {
		t.Fatal(err)
	}
	w := csv.NewWriter(out)
	if err := w.WriteAll(keep); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
	// The texts: every file is linked (the importer matches them by name).
	texts = filepath.Join(dir, "full_contract_txt")
	if err := os.Mkdir(texts, 0o755); err != nil {
		t.Fatal(err)
	}
	src := filepath.Join(shared, "data", "cuad", "full_contract_txt")
	entries, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	stems := map[string]bool{}
	for _, e := range entries {
		if err := os.Symlink(filepath.Join(src, e.Name()), filepath.Join(texts, e.Name())); err != nil {
			t.Fatal(err)
		}
		stems[strings.TrimSuffix(e.Name(), ".txt")] = true
	}
	// The reference records of every CUAD contract kept, and a few others.
	b, err := os.ReadFile(filepath.Join(shared, "data", "legal-tech-chat", "contract_data.json"))
	if err != nil {
		t.Fatal(err)
	}
	var records []map[string]any
	if err := json.Unmarshal(b, &records); err != nil {
		t.Fatal(err)
	}
	var wanted []map[string]any
	others := 0
	for _, r := range records {
		id, _ := r["file_id"].(string)
		inCSV := false
		for _, row := range keep[1:] {
			if strings.HasPrefix(row[0], id) || strings.HasPrefix(id, strings.TrimSuffix(row[0], ".pdf")) {
				inCSV = true
			}
		}
		if inCSV || (!stems[id] && others < 3) {
			if !inCSV {
				others++
			}
			wanted = append(wanted, r)
		}
	}
	ref = filepath.Join(dir, "contract_data.json")
	b, err = json.Marshal(wanted)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(ref, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return ref, cuadCSV, texts
}

// TestImportMergesSources imports the reference extraction and CUAD's
// annotations of the same contracts in both orders, on SQLite and (with
// NEO4J_URI) on Neo4j: LIMEENERGYCO keeps every value of the reference
// that CUAD lacks, takes CUAD's where both have one, the summary reports
// the merge and its conflicts, a repeated import changes nothing, and the
// exports of both orders and both backends are the same bytes.
func TestImportMergesSources(t *testing.T) {
	dir := t.TempDir()
	ref, cuadCSV, texts := mergeSubset(t, dir, 8)
	importJSON := func(t *testing.T, store []string, args ...string) importSummary {
		t.Helper()
		out, errOut, code := runContractgraph(t, "", append(append(store, "--json", "import"), args...)...)
		var sum importSummary
		if err := json.Unmarshal([]byte(out), &sum); err != nil || code != 0 {
			t.Fatalf("import %v: %v, code %d, stdout %q, stderr %q", args, err, code, out, errOut)
		}
		return sum
	}
	cuadArgs := []string{cuadCSV, "--texts", texts}
	export := func(t *testing.T, store []string, name string) string {
		t.Helper()
		path := filepath.Join(dir, name)
		if _, errOut, code := runContractgraph(t, "", append(store, "export", "-o", path)...); code != 0 {
			t.Fatalf("export: code %d, %s", code, errOut)
		}
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	lime := func(t *testing.T, export string) *contract.Contract {
		t.Helper()
		for _, line := range strings.Split(export, "\n") {
			var c contract.Contract
			if json.Unmarshal([]byte(line), &c) == nil && c.ID == limeEnergy {
				return &c
			}
		}
		t.Fatalf("%s is not in the export", limeEnergy)
		return nil
	}

	run := func(t *testing.T, newStore func(t *testing.T, name string) []string) (string, string) {
		// Reference first, then CUAD, as the README's Usage block does.
		a := newStore(t, "ref-first")
		first := importJSON(t, a, ref)
		second := importJSON(t, a, cuadArgs...)
		if first.Imported == 0 || second.Merged == 0 || second.Imported != 0 || second.Kept == 0 || len(second.Conflicts) == 0 {
			t.Fatalf("summaries: reference %+v; CUAD merged %d, kept %d, %d conflicts, imported %d",
				first, second.Merged, second.Kept, len(second.Conflicts), second.Imported)
		}
		var limeConflicts []string
		for _, c := range second.Conflicts {
			if c.ContractID == limeEnergy {
				limeConflicts = append(limeConflicts, c.Field+"="+c.Kept+"/"+c.KeptSource+" over "+c.Other+"/"+c.OtherSource)
			}
		}
		if !slices.Contains(limeConflicts, "effective_date=1999-07-07/cuad-v1 over 1999-09-07/legal-tech-chat") {
			t.Errorf("LIMEENERGYCO conflicts = %q, want CUAD's effective date kept over the reference's", limeConflicts)
		}
		if again := importJSON(t, a, cuadArgs...); again.Merged != 0 || again.Updated != 0 || again.Unchanged != second.Merged+second.Updated+second.Unchanged {
			t.Errorf("CUAD again: %+v, want all unchanged", again)
		}
		if again := importJSON(t, a, ref); again.Merged != 0 || again.Updated != 0 || again.Imported != 0 {
			t.Errorf("reference again: %+v, want all unchanged", again)
		}
		refFirst := export(t, a, "ref-first.jsonl")

		c := lime(t, refFirst)
		for _, f := range []struct{ name, got, want string }{
			{"summary", c.Summary, "Agreement between Electric City Corp. and Electric City of Illinois LLC"},
			{"scope", c.Scope, "Distribution of energy efficiency devices"},
			{"end_date", c.EndDate, "2009-09-07"},
			{"duration", c.Duration, "P10Y"},
			{"effective_date", c.EffectiveDate, "1999-07-07"},
			{"extracted_by", c.ExtractedBy, "cuad-v1"},
		} {
			if !strings.HasPrefix(f.got, f.want) {
				t.Errorf("%s %s = %q, want %q", limeEnergy, f.name, f.got, f.want)
			}
		}
		if c.Text == "" || len(c.Clauses) < 10 {
			t.Errorf("%s lost CUAD's text or clauses: %d bytes, %d clauses", limeEnergy, len(c.Text), len(c.Clauses))
		}
		located := 0
		for _, p := range c.Parties {
			if p.Location != nil && p.Location.City != "" {
				located++
			}
		}
		if located != 2 {
			t.Errorf("%s parties = %+v, want both with the reference's locations", limeEnergy, c.Parties)
		}
		if c.Provenance["summary"] != contract.ReferenceSource || c.Provenance["end_date"] != contract.ReferenceSource {
			t.Errorf("%s provenance = %v, want the summary and end date from %s", limeEnergy, c.Provenance, contract.ReferenceSource)
		}

		// CUAD first, then the reference: the same store.
		b := newStore(t, "cuad-first")
		importJSON(t, b, cuadArgs...)
		if sum := importJSON(t, b, ref); sum.Merged != second.Merged || len(sum.Conflicts) != len(second.Conflicts) {
			t.Errorf("reference after CUAD: merged %d with %d conflicts, want %d with %d", sum.Merged, len(sum.Conflicts), second.Merged, len(second.Conflicts))
		}
		cuadFirst := export(t, b, "cuad-first.jsonl")
		if refFirst != cuadFirst {
			t.Errorf("the exports of the two orders differ:\n%s", firstDifference(refFirst, cuadFirst))
		}
		return refFirst, cuadFirst
	}

	lite, _ := run(t, func(t *testing.T, name string) []string {
		return []string{"--db", filepath.Join(dir, name+".db")}
	})
	t.Run("neo4j", func(t *testing.T) {
		neo4jtest.Open(t) // skips without NEO4J_URI; locks and empties the database
		cfg := neo4jtest.Config(t)
		neo, _ := run(t, func(t *testing.T, name string) []string {
			// Empty for each order; the lock is held already.
			if err := neo4jtest.Wipe(context.Background(), cfg); err != nil {
				t.Fatal(err)
			}
			return []string{"--store", "neo4j"}
		})
		if neo != lite {
			t.Errorf("the Neo4j export differs from SQLite's:\n%s", firstDifference(lite, neo))
		}
	})
}

// firstDifference shows the first line where a and b differ.
func firstDifference(a, b string) string {
	la, lb := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := 0; i < len(la) && i < len(lb); i++ {
		if la[i] != lb[i] {
			x, y := la[i], lb[i]
			j := 0
			for j < len(x) && j < len(y) && x[j] == y[j] {
				j++
			}
			from := max(0, j-200)
			return "line " + strconv.Itoa(i+1) + ":\n- ..." + x[from:min(len(x), j+300)] + "\n+ ..." + y[from:min(len(y), j+300)]
		}
	}
	return "line counts " + strconv.Itoa(len(la)) + " and " + strconv.Itoa(len(lb))
}
