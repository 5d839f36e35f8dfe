package main

import (
	"database/sql"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestUpgradeReportsPassageIndex checks that the first command on a
// store whose passage index must be built again (here: one whose
// passages predate it) says so on stderr, and the next one does not.
func TestUpgradeReportsPassageIndex(t *testing.T) {
	dir := t.TempDir()
	src, db := filepath.Join(dir, "c.jsonl"), filepath.Join(dir, "g.db")
	if _, stderr, code := runContractgraph(t, "", "generate", "--contracts", "20", "-o", src); code != 0 {
		t.Fatalf("generate: code %d, %s", code, stderr)
	}
	if _, stderr, code := runContractgraph(t, "", "--db", db, "import", "--no-resolve", "--no-families", src); code != 0 {
		t.Fatalf("import: code %d, %s", code, stderr)
	}
	raw, err := sql.Open("sqlite", db)
	if err != nil {
		t.Fatal(err)
	}
	_, err = raw.Exec(`DELETE FROM passage_terms; DELETE FROM passage_postings; UPDATE passage_stats SET passages = 0, tokens = 0, built = 0`)
	raw.Close()
	if err != nil {
		t.Fatal(err)
	}
	_, stderr, code := runContractgraph(t, "", "--db", db, "stats")
	line := regexp.MustCompile(`(?m)^upgrading .*g\.db: indexing passages \(([1-9][0-9]*)\), once for this version$`)
	if code != 0 || !line.MatchString(stderr) {
		t.Errorf("first command after the upgrade: code %d, stderr %q; want a line saying what it indexes", code, stderr)
	}
	_, stderr, code = runContractgraph(t, "", "--db", db, "stats")
	if code != 0 || strings.Contains(stderr, "upgrading") {
		t.Errorf("second command: code %d, stderr %q; want nothing of an upgrade", code, stderr)
	}
}
