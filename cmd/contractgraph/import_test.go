package main

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestImportExportGenerate(t *testing.T) {
	shared := sharedData(t)
	dir := t.TempDir()
	db := filepath.Join(dir, "g.db")
	ref := filepath.Join(shared, "data", "legal-tech-chat", "contract_data.json")

	out, errOut, code := runContractgraph(t, "", "--db", db, "import", ref)
	if code != 0 || !strings.HasPrefix(out, "imported 510, updated 0, unchanged 0, failed 0; 17 values dropped with warnings (-v lists them) in ") {
		t.Fatalf("first import: code %d, stdout %q, stderr %q", code, out, errOut)
	}
	checkIndexesBuilt(t, db)
	out, _, code = runContractgraph(t, "", "--db", db, "--json", "import", ref)
	var sum importSummary
	if err := json.Unmarshal([]byte(out), &sum); err != nil || code != 0 {
		t.Fatalf("--json import: %v, code %d, %q", err, code, out)
	}
	sum.Seconds = 0
	if diff := cmp.Diff(importSummary{Unchanged: 510, Warnings: 17, Failures: []string{}, Conflicts: []importConflict{}}, sum); diff != "" {
		t.Errorf("re-import summary (-want +got):\n%s", diff)
	}

	export := filepath.Join(dir, "export.jsonl")
	if _, errOut, code := runContractgraph(t, "", "--db", db, "export", "-o", export); code != 0 || errOut != "exported 510 contracts to "+export+"\n" {
		t.Fatalf("export: code %d, %q", code, errOut)
	}
	db2 := filepath.Join(dir, "g2.db")
	out, errOut, code = runContractgraph(t, "", "--db", db2, "import", export)
	if code != 0 || !strings.HasPrefix(out, "imported 510, updated 0, unchanged 0, failed 0 in ") {
		t.Fatalf("import of export: code %d, %q, %q", code, out, errOut)
	}
	// Both databases answer a tool call alike.
	args := `{"contract_type":"Distributor","min_end_date":"2005-01-01","max_end_date":"2005-12-31"}`
	a, _, codeA := runContractgraph(t, "", "--db", db, "--json", "tools", "call", "contract_search", args)
	b, _, codeB := runContractgraph(t, "", "--db", db2, "--json", "tools", "call", "contract_search", args)
	if codeA != 0 || codeB != 0 || a != b || !strings.Contains(a, `"total_count"`) {
		t.Errorf("contract_search differs after round trip:\n%s\n%s", a, b)
	}

	gen := filepath.Join(dir, "gen.jsonl")
	if _, errOut, code := runContractgraph(t, "", "generate", "--contracts", "200", "--seed", "9", "-o", gen); code != 0 {
		t.Fatalf("generate: code %d, %s", code, errOut)
	}
	first, err := os.ReadFile(gen)
	if err != nil {
		t.Fatal(err)
	}
	stdout, _, _ := runContractgraph(t, "", "generate", "--contracts", "200", "--seed", "9", "-o", "-")
	if !bytes.Equal(first, []byte(stdout)) {
		t.Error("generate -o FILE and -o - differ for the same seed")
	}
	if fi, err := os.Stat(gen); err != nil || fi.Mode().Perm() != 0o644 {
		t.Errorf("generated file mode %v, %v", fi.Mode(), err)
	}
	out, errOut, code = runContractgraph(t, "", "--db", db, "import", gen)
	if code != 0 || !strings.HasPrefix(out, "imported 200, updated 0, unchanged 0, failed 0 in ") {
		t.Errorf("import generated: code %d, %q, %q", code, out, errOut)
	}
}

func TestImportFailures(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "f.db")
	bad := filepath.Join(dir, "bad.jsonl")
	content := `{"contractgraph_export":1}
{"id":"ok","contract_type":"Service"}
{"id":"x","effective_date":"2019-02-30"}
{"id":"y","colour":"red"}
`
	if err := os.WriteFile(bad, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(dir, "missing.json")
	out, errOut, code := runContractgraph(t, "", "--db", db, "import", bad, missing)
	if code != 1 {
		t.Errorf("exit code %d, want 1", code)
	}
	if !strings.HasPrefix(out, "imported 1, updated 0, unchanged 0, failed 3 in ") {
		t.Errorf("stdout %q", out)
	}
	wantErr := bad + `: line 3 (id "x"): field effective_date: invalid date "2019-02-30": day 30 does not exist in 2019-02` + "\n" +
		bad + `: line 4 (id "y"): field colour: unknown field` + "\n" +
		"open " + missing + ": no such file or directory\n"
	if errOut != wantErr {
		t.Errorf("stderr:\n%s\nwant:\n%s", errOut, wantErr)
	}
	if _, errOut, code := runContractgraph(t, "", "--db", db, "import"); code != 2 || !strings.Contains(errOut, "requires at least 1 arg") {
		t.Errorf("import without paths: code %d, %q", code, errOut)
	}
	if _, errOut, code := runContractgraph(t, "", "generate", "--contracts", "-1", "-o", "x"); code != 2 || !strings.Contains(errOut, "--contracts -1 out of range") {
		t.Errorf("generate -1: code %d, %q", code, errOut)
	}
	if _, errOut, code := runContractgraph(t, "", "--db", db, "export"); code != 2 || !strings.Contains(errOut, "-o FILE is required") {
		t.Errorf("export without -o: code %d, %q", code, errOut)
	}
}

func TestRenderBar(t *testing.T) {
	tests := []struct {
		width       int
		label       string
		done, total int64
		items       int
		unit        string
		want        string
	}{
		{60, "data.json", 50, 100, 12, "", "data.json [==========>         ]  50%  12 contracts"},
		{60, "data.json", 100, 100, 510, "", "data.json [====================] 100%  510 contracts"},
		{50, "/a/very/long/path/to/master_clauses.csv", 0, 0, 0, "", "…clauses.csv [>               ]   0%  0 contracts"},
		{64, "embedding chunks with ollama:nomic", 300, 1200, 300, "chunks", "…nks with ollama:nomic [=====>               ]  25%  300 chunks"},
	}
	for _, tt := range tests {
		if got := renderBar(tt.width, tt.label, tt.done, tt.total, tt.items, tt.unit); got != tt.want {
			t.Errorf("renderBar(%d, %q, %d, %d) = %q, want %q", tt.width, tt.label, tt.done, tt.total, got, tt.want)
		}
		if got := renderBar(tt.width, tt.label, tt.done, tt.total, tt.items, tt.unit); len([]rune(got)) >= tt.width {
			t.Errorf("bar %q wider than %d", got, tt.width)
		}
	}
}

func TestProgressBarQuietOffTerminal(t *testing.T) {
	var buf bytes.Buffer
	p := newProgressBar(&buf, false)
	p.start("x")
	p.update(1, 2, 3)
	p.clear()
	if buf.Len() != 0 {
		t.Errorf("progress bar wrote %q to a non-terminal", buf.String())
	}
}

// TestImportInterrupted interrupts an import once its first batch is
// stored and checks that it says how many contracts it kept, that this is
// what the store holds, and that running it again imports the rest.
func TestImportInterrupted(t *testing.T) {
	defer func(n int) { importBatch = n }(importBatch)
	importBatch = 1000 // four batches of the 4,000 contracts
	dir := t.TempDir()
	src, db := filepath.Join(dir, "gen.jsonl"), filepath.Join(dir, "cg.db")
	if _, stderr, code := runContractgraph(t, "", "generate", "--contracts", "4000", "--seed", "3", "-o", src); code != 0 {
		t.Fatalf("generate: %s", stderr)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		// Cancel as soon as a batch is committed: what Ctrl+C does.
		for ctx.Err() == nil {
			if n := storedContracts(t, db); n > 0 {
				cancel()
				return
			}
			time.Sleep(5 * time.Millisecond)
		}
	}()
	var out bytes.Buffer
	var errOut bytes.Buffer
	a := newApp(strings.NewReader(""), &out, &errOut)
	root := newRootCmd(a)
	root.SetArgs([]string{"--db", db, "import", "--no-resolve", src})
	code := a.exitCode(root.ExecuteContext(ctx), &errOut)
	stored, err := countContracts(db)
	if err != nil {
		t.Fatalf("count the contracts the interrupted import kept: %v", err)
	}
	if code == 0 {
		t.Skipf("the import finished before the interrupt (%d contracts)", stored)
	}
	m := regexp.MustCompile(`interrupted: kept (\d+) contracts \(imported (\d+), updated 0, unchanged 0; 0 failed\)`).FindStringSubmatch(errOut.String())
	if code != 130 || m == nil {
		t.Fatalf("exit %d, stderr %q: want 130 and how many contracts were kept", code, errOut.String())
	}
	if kept, _ := strconv.Atoi(m[1]); kept != stored || kept == 0 || kept >= 4000 {
		t.Errorf("says it kept %d contracts; the store holds %d of 4000", kept, stored)
	}
	// The import into the new store deferred its secondary indexes; even
	// interrupted, it built them before it exited.
	checkIndexesBuilt(t, db)
	stdout, stderr, code := runContractgraph(t, "", "--db", db, "import", "--no-resolve", src)
	if want := fmt.Sprintf("imported %d, updated 0, unchanged %d, failed 0", 4000-stored, stored); code != 0 || !strings.Contains(stdout, want) {
		t.Errorf("import again: exit %d, %q (%s); want %q", code, stdout, stderr, want)
	}
}

// checkIndexesBuilt fails unless the SQLite file at path has no index
// left to build (sqlite.Store.DeferIndexes) and has its type index, one of
// those an import into an empty store defers.
func checkIndexesBuilt(t *testing.T, path string) {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+path+"?mode=ro&_pragma=busy_timeout(10000)")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var pending, typeIndex int
	err = db.QueryRow(`SELECT (SELECT count(*) FROM deferred_indexes),
		(SELECT count(*) FROM sqlite_master WHERE type = 'index' AND name = 'contracts_type')`).Scan(&pending, &typeIndex)
	if err != nil {
		t.Fatal(err)
	}
	if pending != 0 || typeIndex != 1 {
		t.Errorf("%s: %d indexes left to build, type index present %d times; want 0 and 1", path, pending, typeIndex)
	}
}

// storedContracts counts the contracts in the SQLite file at path (0 when
// it holds none yet), reading it read-only so as not to disturb a writer.
func storedContracts(t *testing.T, path string) int {
	t.Helper()
	if _, err := os.Stat(path); err != nil {
		return 0
	}
	n, err := countContracts(path)
	if err != nil {
		return 0 // not created yet, or mid-migration
	}
	return n
}

// countContracts counts the contracts in the SQLite file at path, read-only,
// waiting for a writer's lock (a checkpoint on close) rather than failing.
func countContracts(path string) (int, error) {
	db, err := sql.Open("sqlite", "file:"+path+"?mode=ro&_pragma=busy_timeout(10000)")
	if err != nil {
		return 0, err
	}
	defer db.Close()
	var n int
	if err := db.QueryRow(`SELECT count(*) FROM contracts`).Scan(&n); err != nil {
		return 0, fmt.Errorf("%s: %w", path, err)
	}
	return n, nil
}

// TestImportBoundsErrors: a file of many bad records keeps only the first
// --max-errors failures (in the summary and on stderr), counts the rest,
// and writes every one to --errors FILE.
func TestImportBoundsErrors(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "e.db")
	var b strings.Builder
	b.WriteString(`{"id":"ok"}` + "\n")
	for i := range 2500 {
		fmt.Fprintf(&b, `{"id":"bad-%d","effective_date":"2019-02-30"}`+"\n", i)
	}
	in := filepath.Join(dir, "bad.jsonl")
	if err := os.WriteFile(in, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	all := filepath.Join(dir, "errors.txt")
	out, errOut, code := runContractgraph(t, "", "--db", db, "import", "--max-errors", "3", "--errors", all, in)
	if code != 1 || !strings.HasPrefix(out, "imported 1, updated 0, unchanged 0, failed 2500 in ") {
		t.Errorf("import: code %d, stdout %q", code, out)
	}
	lines := strings.Split(strings.TrimSpace(errOut), "\n")
	want := []string{
		in + `: line 2 (id "bad-0"): field effective_date: invalid date "2019-02-30": day 30 does not exist in 2019-02`,
		in + `: line 3 (id "bad-1"): field effective_date: invalid date "2019-02-30": day 30 does not exist in 2019-02`,
		in + `: line 4 (id "bad-2"): field effective_date: invalid date "2019-02-30": day 30 does not exist in 2019-02`,
		"… and 2497 more failures; all 2500 are in " + all,
	}
	if diff := cmp.Diff(want, lines); diff != "" {
		t.Errorf("stderr (-want +got):\n%s", diff)
	}
	written, err := os.ReadFile(all)
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(written), "\n"); n != 2500 || !strings.Contains(string(written), `line 2501 (id "bad-2499")`) {
		t.Errorf("--errors file has %d lines", n)
	}

	out, _, _ = runContractgraph(t, "", "--db", db, "--json", "import", "--max-errors", "2", in)
	var sum importSummary
	if err := json.Unmarshal([]byte(out), &sum); err != nil {
		t.Fatal(err)
	}
	if sum.Failed != 2500 || len(sum.Failures) != 2 || sum.FailuresOmitted != 2498 {
		t.Errorf("--json: failed %d, %d failures kept, %d omitted", sum.Failed, len(sum.Failures), sum.FailuresOmitted)
	}
	if _, errOut, code := runContractgraph(t, "", "--db", db, "import", "--max-errors", "-1", in); code != 2 || !strings.Contains(errOut, "--max-errors -1: must not be negative") {
		t.Errorf("--max-errors -1: code %d, %q", code, errOut)
	}
}
