package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/contractgraph/contractgraph/internal/graph"
)

// TestDelete deletes imported contracts with the CLI: readable and --json
// output, exit code 2 for an id not stored (the others still deleted), and
// the stats without them.
func TestDelete(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "g.db")
	gen := filepath.Join(dir, "gen.jsonl")
	if _, errOut, code := runContractgraph(t, "", "generate", "--contracts", "20", "--seed", "3", "-o", gen); code != 0 {
		t.Fatalf("generate: %d %s", code, errOut)
	}
	if out, errOut, code := runContractgraph(t, "", "--db", db, "import", "--no-resolve", gen); code != 0 {
		t.Fatalf("import: %d %s %s", code, out, errOut)
	}
	var exp struct {
		Examples []struct {
			ID string `json:"contract_id"`
		} `json:"examples"`
	}
	out, _, _ := runContractgraph(t, "", "--db", db, "--json", "tools", "call", "contract_search", `{"order_by":"effective_date","limit":3}`)
	if err := json.Unmarshal([]byte(out), &exp); err != nil || len(exp.Examples) != 3 {
		t.Fatalf("contract_search: %v %s", err, out)
	}
	a, b, c := exp.Examples[0].ID, exp.Examples[1].ID, exp.Examples[2].ID

	out, errOut, code := runContractgraph(t, "", "--db", db, "delete", a)
	if code != 0 || out != "deleted 1 contract\n  "+a+"\n" || errOut != "" {
		t.Errorf("delete %s: code %d, %q, %q", a, code, out, errOut)
	}
	out, errOut, code = runContractgraph(t, "", "--db", db, "--json", "delete", b, "no-such-id", a, c)
	var res deleteResult
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("--json: %v %q", err, out)
	}
	if diff := cmp.Diff(deleteResult{Deleted: []string{b, c}, NotFound: []string{"no-such-id", a}}, res); diff != "" || code != 2 ||
		!strings.Contains(errOut, "no contract with id") || !strings.Contains(errOut, "no-such-id") || !strings.Contains(errOut, a) {
		t.Errorf("delete with unknown ids: code %d, stderr %q, result (-want +got):\n%s", code, errOut, diff)
	}
	out, _, _ = runContractgraph(t, "", "--db", db, "--json", "stats")
	var st graph.Stats
	if err := json.Unmarshal([]byte(out), &st); err != nil || st.Nodes["Contract"] != 17 {
		t.Errorf("stats after deleting 3 of 20: %v %s", err, out)
	}
	if _, errOut, code := runContractgraph(t, "", "--db", db, "delete"); code != 2 || errOut == "" {
		t.Errorf("delete without ids: code %d, %q", code, errOut)
	}
}
