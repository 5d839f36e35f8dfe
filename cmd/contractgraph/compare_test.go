package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/contractgraph/contractgraph/internal/tools"
)

// `contractgraph compare` is clause_compare from the command line: the
// readable groups, the tool's JSON with --json, exit code 2 for a clause
// type that does not exist, and clause types completed.
func TestCompareCommand(t *testing.T) {
	db := fixtureDB(t)
	out, errOut, code := runContractgraph(t, "", "--db", db, "compare", "Liability & Indemnification", "--threshold", "0.15")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{"Liability & Indemnification: 4 clauses in 4 contracts", "2 groups and 0 outliers", "Group 1 · 2 clauses", "representative c01 · bytes 139-206"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	js, _, code := runContractgraph(t, "", "--db", db, "--json", "compare", "cap on liability", "--type", "Supply")
	var res tools.ClauseCompareResult
	if code != 0 || json.Unmarshal([]byte(js), &res) != nil {
		t.Fatalf("--json: exit %d: %s", code, js)
	}
	want := toolResult(t, db, tools.NameClauseCompare, `{"clause_type":"Cap On Liability","contract_type":"Supply"}`)
	var direct tools.ClauseCompareResult
	if err := json.Unmarshal(want, &direct); err != nil {
		t.Fatal(err)
	}
	// The fixture's Cap On Liability clauses are c01's (a supply agreement)
	// and c09's (a sponsorship): --type keeps one.
	if res.ClauseType != "Cap On Liability" || res.TotalClauses != 1 || res.TotalClauses != direct.TotalClauses || res.TotalContracts != direct.TotalContracts {
		t.Errorf("--json gives %+v, the tool %+v", res, direct)
	}
	_, errOut, code = runContractgraph(t, "", "--db", db, "compare", "Cap On Lunch")
	if code != 2 || !strings.Contains(errOut, `unknown clause type "Cap On Lunch"`) {
		t.Errorf("unknown clause type: exit %d: %s", code, errOut)
	}
	if got := complete(t, "--db", db, "compare", "Cap"); len(got) != 1 || got[0] != "Cap On Liability" {
		t.Errorf("completions %q, want Cap On Liability", got)
	}
}
