package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// familyJSONL is a master, its amendment and an unrelated contract, as
// ContractGraph JSONL.
const familyJSONL = `{"contractgraph_export":1,"generator":"test"}
{"id":"dist","title":"Distribution Agreement","effective_date":"1999-03-01","parties":[{"name":"Acme, Inc."},{"name":"Beta LLC"}],"text":"DISTRIBUTION AGREEMENT\n1. Term\nThe term is two years.\n2. Price\nTen dollars per unit.\n","clauses":[{"type":"Expiration Date","text":"The term is two years.","start":31,"end":53,"verified":true}]}
{"id":"dist-a2","title":"Amendment No. 2","effective_date":"2001-06-05","parties":[{"name":"Acme, Inc."},{"name":"Beta LLC"}],"text":"AMENDMENT NO. 2 TO THE DISTRIBUTION AGREEMENT dated as of March 1, 1999\n1. Term\nThe term is three years.\n","clauses":[{"type":"Expiration Date","text":"The term is three years.","start":80,"end":104,"verified":true}]}
{"id":"lic-a1","title":"First Amendment to License Agreement","effective_date":"2010-01-01","parties":[{"name":"Gamma Corp."}],"text":"FIRST AMENDMENT TO LICENSE AGREEMENT dated May 5, 2005"}
`

func TestFamiliesCommands(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "f.db")
	in := filepath.Join(dir, "in.jsonl")
	if err := os.WriteFile(in, []byte(familyJSONL), 0o644); err != nil {
		t.Fatal(err)
	}
	out, errOut, code := runContractgraph(t, "", "--db", db, "import", in)
	if code != 0 || !strings.Contains(out, "families: 2 contracts refer to a master agreement, 1 linked, 1 unresolved") {
		t.Fatalf("import: code %d\n%s\n%s", code, out, errOut)
	}
	out, errOut, code = runContractgraph(t, "", "--db", db, "families", "list", "--json")
	if code != 0 {
		t.Fatalf("families list: %d %s", code, errOut)
	}
	var fams []familyJSON
	if err := json.Unmarshal([]byte(out), &fams); err != nil {
		t.Fatal(err)
	}
	if len(fams) != 1 || fams[0].Master.ID != "dist" || len(fams[0].Members) != 1 || fams[0].Members[0].ID != "dist-a2" ||
		fams[0].Members[0].Kind != "AMENDS" || fams[0].Members[0].Quote != "AMENDMENT NO. 2 TO THE DISTRIBUTION AGREEMENT dated as of March 1, 1999" {
		t.Errorf("families: %+v", fams)
	}
	out, _, code = runContractgraph(t, "", "--db", db, "families", "detect", "--dry-run")
	if code != 0 || !strings.Contains(out, "First Amendment to License Agreement [lic-a1]") || !strings.Contains(out, "refers to an agreement not in the store") {
		t.Errorf("detect --dry-run: %d\n%s", code, out)
	}

	out, errOut, code = runContractgraph(t, "", "--db", db, "diff", "dist", "dist-a2")
	if code != 0 || !strings.Contains(out, "~~two~~ **three**") {
		t.Errorf("diff md: %d\n%s\n%s", code, out, errOut)
	}
	html := filepath.Join(dir, "d.html")
	if _, errOut, code = runContractgraph(t, "", "--db", db, "diff", "dist", "dist-a2", "-o", html); code != 0 {
		t.Fatalf("diff html: %d %s", code, errOut)
	}
	if b, err := os.ReadFile(html); err != nil || !strings.Contains(string(b), "<del>two</del> <ins>three</ins>") {
		t.Errorf("diff html: %v\n%s", err, b)
	}
	if _, errOut, code = runContractgraph(t, "", "--db", db, "diff", "dist", "no-such"); code == 0 || !strings.Contains(errOut, "no-such") {
		t.Errorf("diff of a missing contract: %d %s", code, errOut)
	}
	if _, errOut, code = runContractgraph(t, "", "--db", db, "diff", "dist", "dist-a2", "--format", "pdf"); code != 2 {
		t.Errorf("diff --format pdf: %d %s", code, errOut)
	}
}
