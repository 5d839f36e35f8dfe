package importer

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// outcome is what a Read delivered: the ids of the contracts, the record
// errors and the warnings, with the file's path written F.
type outcome struct {
	ids, errs, warns []string
	fatal            string
}

func readOutcome(t *testing.T, path string, opts Options) outcome {
	t.Helper()
	var o outcome
	err := Read(context.Background(), path, opts, func(r Record) error {
		for _, w := range r.Warnings {
			o.warns = append(o.warns, strings.ReplaceAll(w.Error(), path, "F"))
		}
		if r.Err != nil {
			o.errs = append(o.errs, strings.ReplaceAll(r.Err.Error(), path, "F"))
			return nil
		}
		o.ids = append(o.ids, r.Contract.ID)
		return nil
	})
	if err != nil {
		o.fatal = strings.ReplaceAll(err.Error(), path, "F")
	}
	return o
}

// TestRecordBytesLimit: a record over the byte limit fails alone in every
// format, and the records after it are read.
func TestRecordBytesLimit(t *testing.T) {
	dir := t.TempDir()
	big := strings.Repeat("x", 5000)
	lim := Options{Limits: Limits{RecordBytes: 1024}}

	ref := writeFile(t, dir, "ref.json", `[{"file_id":"a","summary":"ok"}, {"file_id":"b","summary":"`+big+`"} ,{"file_id":"c","summary":"ok"}]`)
	got := readOutcome(t, ref, lim)
	want := outcome{ids: []string{"a", "c"},
		errs: []string{"F: record 2 (at byte 33): the record is 4.9 KiB, over the limit of 1 KiB per record (--max-record-bytes raises it); skipped"}}
	if diff := cmp.Diff(want, got, cmp.AllowUnexported(outcome{})); diff != "" {
		t.Errorf("reference (-want +got):\n%s", diff)
	}

	jl := writeFile(t, dir, "in.jsonl", `{"id":"a"}`+"\n"+`{"id":"b","summary":"`+big+`"}`+"\n"+`{"id":"c"}`+"\n")
	got = readOutcome(t, jl, lim)
	want = outcome{ids: []string{"a", "c"},
		errs: []string{"F: line 2: the record is 4.9 KiB, over the limit of 1 KiB per record (--max-record-bytes raises it); skipped"}}
	if diff := cmp.Diff(want, got, cmp.AllowUnexported(outcome{})); diff != "" {
		t.Errorf("JSONL (-want +got):\n%s", diff)
	}

	// A CUAD text file over the limit fails its row; a row over the limit
	// ends the file (CSV cannot be resynchronised), saying so.
	texts := filepath.Join(dir, "texts")
	if err := os.Mkdir(texts, 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, texts, "Big.txt", big)
	writeFile(t, texts, "Small.txt", "The parties agree.")
	row := func(file string) string { return `"` + file + `",[],,[],,[],,[],,[],` + "\n" }
	csvPath := writeFile(t, dir, "master_clauses.csv", cuadHeader+row("Big.pdf")+row("Small.pdf")+`"Huge.pdf","['`+big+`']",,[],,[],,[],,[],`+"\n"+row("Small2.pdf"))
	got = readOutcome(t, csvPath, Options{TextsDir: texts, Limits: Limits{RecordBytes: 1024}})
	want = outcome{ids: []string{"Small"},
		errs:  []string{`F: row 1 (file "Big.pdf"): field Filename: text file Big.txt is 4.9 KiB, over the limit of 1 KiB per record (--max-record-bytes raises it)`},
		fatal: "F: row 3: the row is over the limit of 1 KiB per record (--max-record-bytes raises it); the rest of the file is not read"}
	if diff := cmp.Diff(want, got, cmp.AllowUnexported(outcome{})); diff != "" {
		t.Errorf("CUAD (-want +got):\n%s", diff)
	}
}

// TestContentLimits: names, summaries, clause texts and party lists over
// their limits fail the record, naming the field, the limit and its flag;
// the defaults let a 10,000-party contract through.
func TestContentLimits(t *testing.T) {
	dir := t.TempDir()
	parties := func(n int) string {
		ps := make([]string, n)
		for i := range ps {
			ps[i] = fmt.Sprintf(`{"name":"Party %d Inc."}`, i)
		}
		return strings.Join(ps, ",")
	}
	in := `[{"file_id":"name","parties":[{"name":"` + strings.Repeat("N", 5<<20) + `"}]},` +
		`{"file_id":"summary","summary":"` + strings.Repeat("é", DefaultSummaryChars+1) + `"},` +
		`{"file_id":"clause","clauses":[{"clause_type":"Insurance","summary":"` + strings.Repeat("s", DefaultSummaryChars+1) + `"}]},` +
		`{"file_id":"many","parties":[` + parties(DefaultParties+1) + `]},` +
		`{"file_id":"tenk","parties":[` + parties(DefaultParties) + `]},` +
		`{"file_id":"fits","summary":"` + strings.Repeat("é", DefaultSummaryChars) + `"}]`
	got := readOutcome(t, writeFile(t, dir, "in.json", in), Options{})
	want := outcome{ids: []string{"tenk", "fits"}, errs: []string{
		`F: record 1 (id "name"): field parties[0].name: 5242880 characters, over the limit of 1000 characters per name (--max-name-chars raises it)`,
		`F: record 2 (id "summary"): field summary: 20001 characters, over the limit of 20000 characters per summary (--max-summary-chars raises it)`,
		`F: record 3 (id "clause"): field clauses[0].summary: 20001 characters, over the limit of 20000 characters per summary (--max-summary-chars raises it)`,
		`F: record 4 (id "many"): field parties: 10001 parties, over the limit of 10000 per contract (--max-parties raises it)`,
	}}
	if diff := cmp.Diff(want, got, cmp.AllowUnexported(outcome{})); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}

	// A clause text over its limit, in JSONL; a raised limit lets it in.
	clause := `{"id":"x","clauses":[{"type":"Insurance","text":"` + strings.Repeat("c", 101) + `"}]}` + "\n"
	path := writeFile(t, dir, "c.jsonl", clause)
	got = readOutcome(t, path, Options{Limits: Limits{ClauseChars: 100}})
	if len(got.errs) != 1 || !strings.Contains(got.errs[0], "field clauses[0].text: 101 characters, over the limit of 100 characters per clause (--max-clause-chars raises it)") {
		t.Errorf("clause over 100 characters: %+v", got)
	}
	if got = readOutcome(t, path, Options{Limits: Limits{ClauseChars: 101}}); len(got.ids) != 1 {
		t.Errorf("clause of 101 characters with the limit at 101: %+v", got)
	}
}

// TestDuplicateIDs: the second record of an id in one file is an error
// naming both places; the first is kept.
func TestDuplicateIDs(t *testing.T) {
	dir := t.TempDir()
	got := readOutcome(t, writeFile(t, dir, "in.json", `[{"file_id":"a","summary":"one"},{"file_id":"b"},{"file_id":"a","summary":"two"}]`), Options{})
	want := outcome{ids: []string{"a", "b"}, errs: []string{`F: record 3 (id "a"): field id: duplicate id "a": record 1 of this file has it too, and that one is kept`}}
	if diff := cmp.Diff(want, got, cmp.AllowUnexported(outcome{})); diff != "" {
		t.Errorf("reference (-want +got):\n%s", diff)
	}
	got = readOutcome(t, writeFile(t, dir, "in.jsonl", `{"id":"a"}`+"\n\n"+`{"id":"a"}`+"\n"), Options{})
	want = outcome{ids: []string{"a"}, errs: []string{`F: line 3 (id "a"): field id: duplicate id "a": line 1 of this file has it too, and that one is kept`}}
	if diff := cmp.Diff(want, got, cmp.AllowUnexported(outcome{})); diff != "" {
		t.Errorf("JSONL (-want +got):\n%s", diff)
	}
}

// TestInvalidUTF8OneWay: invalid UTF-8 becomes U+FFFD, one per bad byte,
// with a warning, in the reference JSON, JSONL and CUAD's CSV and texts
// alike, so that the same bytes are stored the same way whatever the
// format.
func TestInvalidUTF8OneWay(t *testing.T) {
	dir := t.TempDir()
	const bad = "Acme \xff\xfe GmbH"
	const want = "Acme \uFFFD\uFFFD GmbH"
	names := map[string]string{}
	warned := map[string]bool{}
	read := func(format, path string, opts Options) {
		t.Helper()
		err := Read(context.Background(), path, opts, func(r Record) error {
			if r.Err != nil {
				t.Errorf("%s: %v", format, r.Err)
				return nil
			}
			for _, w := range r.Warnings {
				if strings.Contains(w.Error(), "invalid UTF-8") && strings.Contains(w.Error(), "replaced by U+FFFD") {
					warned[format] = true
				}
			}
			if len(r.Contract.Parties) > 0 {
				names[format] = r.Contract.Parties[0].Name
			}
			if r.Contract.Text != "" {
				names[format+" text"] = r.Contract.Text
			}
			return nil
		})
		if err != nil {
			t.Fatalf("%s: %v", format, err)
		}
	}
	read("reference", writeFile(t, dir, "in.json", `[{"file_id":"a","parties":[{"name":"`+bad+`"}]}]`), Options{})
	read("jsonl", writeFile(t, dir, "in.jsonl", `{"id":"a","parties":[{"name":"`+bad+`"}]}`+"\n"), Options{})
	texts := filepath.Join(dir, "texts")
	if err := os.Mkdir(texts, 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, texts, "A.txt", bad)
	read("cuad", writeFile(t, dir, "master_clauses.csv", cuadHeader+`"A.pdf",[],,[],"`+bad+`",[],,[],,[],`+"\n"), Options{TextsDir: texts})
	wantNames := map[string]string{"reference": want, "jsonl": want, "cuad": want, "cuad text": want}
	if diff := cmp.Diff(wantNames, names); diff != "" {
		t.Errorf("stored names (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(map[string]bool{"reference": true, "jsonl": true, "cuad": true}, warned); diff != "" {
		t.Errorf("warned (-want +got):\n%s", diff)
	}
}

// TestTypeErrorsInJSONTerms: a value of the wrong type is described in
// JSON's words, never by a Go type.
func TestTypeErrorsInJSONTerms(t *testing.T) {
	dir := t.TempDir()
	got := readOutcome(t, writeFile(t, dir, "in.json", `[{"file_id":"a","parties":"Acme"},{"file_id":"b","governing_law":[1]}]`), Options{})
	want := []string{
		`F: record 1 (id "a"): field parties: expected an array, got JSON string`,
		`F: record 2 (id "b"): field governing_law: expected an object, got JSON array`,
	}
	if diff := cmp.Diff(want, got.errs); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	got = readOutcome(t, writeFile(t, dir, "in.jsonl", `{"id":"a","parties":{"name":"x"}}`+"\n"), Options{})
	if len(got.errs) != 1 || got.errs[0] != `F: line 1 (id "a"): field parties: expected an array, got JSON object` {
		t.Errorf("JSONL: %q", got.errs)
	}
}
