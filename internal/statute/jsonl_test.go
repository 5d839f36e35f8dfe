package statute

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/contractgraph/contractgraph/internal/contract"
	"github.com/google/go-cmp/cmp"
)

func TestParseJSONL(t *testing.T) {
	in := "\xEF\xBB\xBF" + `{"id":"/uk/ukpga/1996/23/s9","jurisdiction":"UK","code":"Arbitration Act 1996","number":"9","heading":"Stay of legal proceedings","text":"A party to an arbitration agreement\r\nmay apply.","url":"https://www.legislation.gov.uk/ukpga/1996/23/section/9"}

{"id":"x/1","jurisdiction":"xx","text":"Only the required fields."}
`
	got, err := ParseJSONL("laws.jsonl", strings.NewReader(in), nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []contract.Statute{
		{ID: "/uk/ukpga/1996/23/s9", Jurisdiction: "uk", Code: "Arbitration Act 1996", Number: "9", Heading: "Stay of legal proceedings",
			Text: "A party to an arbitration agreement\nmay apply.", URL: "https://www.legislation.gov.uk/ukpga/1996/23/section/9"},
		{ID: "x/1", Jurisdiction: "xx", Text: "Only the required fields."},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("ParseJSONL (-want +got):\n%s", diff)
	}
}

func TestParseJSONLErrors(t *testing.T) {
	ok := `{"id":"a","jurisdiction":"us","text":"t"}` + "\n"
	tests := []struct {
		name, in, record, field, msg string
	}{
		{"missing id", ok + `{"jurisdiction":"us","text":"t"}`, "line 2", "id", "missing"},
		{"space in id", `{"id":"a b","jurisdiction":"us","text":"t"}`, "line 1", "id", "white space"},
		{"long id", `{"id":"` + strings.Repeat("x", 201) + `","jurisdiction":"us","text":"t"}`, "line 1", "id", "longer than 200 bytes"},
		{"missing jurisdiction", `{"id":"a","text":"t"}`, "line 1", "jurisdiction", "missing"},
		{"space in jurisdiction", `{"id":"a","jurisdiction":"u s","text":"t"}`, "line 1", "jurisdiction", "white space"},
		{"missing text", `{"id":"a","jurisdiction":"us","text":"  "}`, "line 1", "text", "missing"},
		{"bad url", `{"id":"a","jurisdiction":"us","text":"t","url":"javascript:alert(1)"}`, "line 1", "url", "not an absolute http(s) URL"},
		{"relative url", `{"id":"a","jurisdiction":"us","text":"t","url":"/x"}`, "line 1", "url", "not an absolute"},
		{"unknown field", `{"id":"a","jurisdiction":"us","text":"t","txet":"t"}`, "line 1", "txet", "unknown field"},
		{"wrong type", `{"id":7,"jurisdiction":"us","text":"t"}`, "line 1", "id", "expected a string"},
		{"malformed", ok + `{"id":"c","jurisdiction":"us","text":"t"}` + "\n" + `{"id":"b",`, "line 3", "", "malformed JSON"},
		{"two values", `{"id":"a","jurisdiction":"us","text":"t"} {}`, "line 1", "", "more than one JSON value"},
		{"duplicate", ok + ok, "line 2", "id", "duplicate id \"a\" (first on line 1)"},
		{"empty", "\n\n", "", "", "no statute records"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseJSONL("bad.jsonl", strings.NewReader(tt.in), nil)
			var pe *ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("got %v, want a *ParseError", err)
			}
			if pe.File != "bad.jsonl" || pe.Record != tt.record || pe.Field != tt.field || !strings.Contains(err.Error(), tt.msg) {
				t.Errorf("got %q (record %q field %q), want record %q field %q and %q", err, pe.Record, pe.Field, tt.record, tt.field, tt.msg)
			}
		})
	}
}

func FuzzParseJSONL(f *testing.F) {
	f.Add(`{"id":"a","jurisdiction":"us","text":"t","url":"https://x.y/z"}`)
	f.Add(`{"id":"a","jurisdiction":"us","text":"t"}` + "\n" + `{"id":"a"}`)
	f.Fuzz(func(t *testing.T, in string) {
		got, err := ParseJSONL("fuzz.jsonl", strings.NewReader(in), nil)
		if err != nil {
			var pe *ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("error %v is not a *ParseError", err)
			}
			return
		}
		seen := map[string]bool{}
		for i := range got {
			if err := Validate(&got[i]); err != nil {
				t.Fatalf("parsed statute %+v is invalid: %v", got[i], err)
			}
			if seen[got[i].ID] {
				t.Fatalf("duplicate id %q accepted", got[i].ID)
			}
			seen[got[i].ID] = true
		}
	})
}

func TestDetect(t *testing.T) {
	tests := []struct {
		in   string
		want Format
		err  string
	}{
		{"\xEF\xBB\xBF  <?xml version=\"1.0\"?><uscDoc/>", FormatUSLM, ""},
		{`{"LawName":"x","LawArticles":[]}`, FormatMOJ, ""},
		{`{"EngLawArticles":[]}`, FormatMOJ, ""},
		{`{"UpdateDate":"x","Laws":[]}`, FormatMOJ, ""},
		{"{\"id\":\"a\"}\n{\"id\":\"b\"}", FormatJSONL, ""},
		{"", "", "empty file"},
		{"id,text\na,b", "", "unrecognised"},
		{"{oops", "", "malformed JSON"},
		// From the first bytes only: a MOJ law written over many lines, and
		// JSON Lines whose first line is broken.
		{"{\n  \"LawLevel\": \"法律\",\n  \"LawName\": \"民法\",\n  \"LawArticles\": [", FormatMOJ, ""},
		{"{\"id\":\n{\"id\":\"b\",\"jurisdiction\":\"us\",\"text\":\"t\"}\n{\"id\":\"c", FormatJSONL, ""},
	}
	for _, tt := range tests {
		got, err := Detect([]byte(tt.in))
		if got != tt.want || (tt.err == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), tt.err)) {
			t.Errorf("Detect(%.30q) = %q, %v; want %q, %q", tt.in, got, err, tt.want, tt.err)
		}
	}
}

func TestLoadMixedContinuesAfterBadFile(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	good := write("good.jsonl", `{"id":"g/1","jurisdiction":"us","text":"one"}`+"\n"+`{"id":"g/2","jurisdiction":"us","text":"two"}`)
	bad := write("bad.jsonl", `{"id":"b/1","jurisdiction":"us","text":"ok"}`+"\n"+`{"id":"b/2","jurisdiction":"us"}`)
	same := write("same.jsonl", `{"id":"g/1","jurisdiction":"us","text":"one"}`)
	clash := write("clash.jsonl", `{"id":"g/2","jurisdiction":"us","text":"changed"}`)
	csv := write("laws.csv", "id,text\n")
	missing := filepath.Join(dir, "missing.jsonl")
	zh := write("zh.json", mojZH)

	got, results := Load([]string{good, bad, same, clash, csv, missing, zh})
	var ids []string
	for _, st := range got {
		ids = append(ids, st.ID)
	}
	// bad.jsonl's second line fails alone: its first is imported.
	if diff := cmp.Diff([]string{"g/1", "g/2", "b/1", "/tw/Z0000001/a1", "/tw/Z0000001/a1-1", "/tw/Z0000001/a2"}, ids); diff != "" {
		t.Errorf("ids (-want +got):\n%s", diff)
	}
	type summary struct {
		Count int
		Bad   []string
		Err   string
	}
	var sums []summary
	for _, r := range results {
		s := summary{Count: r.Count}
		if r.Err != nil {
			s.Err = r.Err.Error()
		}
		for _, b := range r.Bad {
			s.Bad = append(s.Bad, b.Error())
		}
		if r.BadCount != len(r.Bad) {
			t.Errorf("%s: BadCount %d, %d kept", r.File, r.BadCount, len(r.Bad))
		}
		sums = append(sums, s)
	}
	want := []summary{
		{Count: 2},
		{Count: 1, Bad: []string{bad + `: line 2: field "text": missing`}},
		{Count: 0},
		{Err: clash + `: g/2: field "id": also in ` + good + ` with different content`},
		{Err: csv + ": " + ErrUnknownFormat.Error()},
		{Err: "open " + missing + ": no such file or directory"},
		{Count: 3},
	}
	want[5].Err = missing + ": " + want[5].Err
	if diff := cmp.Diff(want, sums); diff != "" {
		t.Errorf("results (-want +got):\n%s", diff)
	}
}

// TestLoadJSONLBadLinesAlone: in a statute JSON Lines file, each bad line
// (malformed, invalid, a NUL in its text, a duplicate id, over the record
// limit) fails alone and the good lines are imported; a file with no good
// line fails as a whole.
func TestLoadJSONLBadLinesAlone(t *testing.T) {
	dir := t.TempDir()
	good := func(id string) string { return `{"id":"` + id + `","jurisdiction":"us","text":"t"}` + "\n" }
	body := good("a") + `{"id":"b",` + "\n" + `{"id":"c","jurisdiction":"us","text":"x\u0000y"}` + "\n" + good("a") +
		`{"id":"d","jurisdiction":"us","text":"` + strings.Repeat("x", MaxRecordBytes) + `"}` + "\n" + good("e")
	p := filepath.Join(dir, "laws.jsonl")
	if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	allBad := filepath.Join(dir, "bad.jsonl")
	if err := os.WriteFile(allBad, []byte(`{"id":"b",`+"\n"+`{"id":"c"}`+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	sts, results := Load([]string{p, allBad})
	var ids []string
	for _, st := range sts {
		ids = append(ids, st.ID)
	}
	if diff := cmp.Diff([]string{"a", "e"}, ids); diff != "" {
		t.Errorf("ids (-want +got):\n%s", diff)
	}
	var bad []string
	for _, b := range results[0].Bad {
		bad = append(bad, strings.TrimPrefix(b.Error(), p+": "))
	}
	want := []string{
		"line 2: malformed JSON: unexpected EOF",
		`line 3: field "text": NUL character at byte 1`,
		`line 4: field "id": duplicate id "a" (first on line 1)`,
		"line 5: the record is 16777257 bytes, over the limit of 16 MiB per record; skipped",
	}
	if diff := cmp.Diff(want, bad); diff != "" || results[0].Err != nil || results[0].Count != 2 || results[0].BadCount != 4 {
		t.Errorf("bad lines (-want +got):\n%s\nerr %v, count %d, bad %d", diff, results[0].Err, results[0].Count, results[0].BadCount)
	}
	if err := results[1].Err; err == nil || err.Error() != allBad+": no valid statute records (2 bad)" || results[1].BadCount != 2 {
		t.Errorf("all lines bad: %v, %d bad", err, results[1].BadCount)
	}
}
