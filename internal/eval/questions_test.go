package eval

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/contractgraph/contractgraph/internal/sharedtest"
)

func TestReadSharedDevQuestions(t *testing.T) {
	path := filepath.Join(sharedtest.Dir(t), "questions", "dev_questions.jsonl")
	qs, err := ReadQuestionFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(qs) != 22 {
		t.Fatalf("%d questions, want 22", len(qs))
	}
	d03 := qs[2]
	want := Question{ID: "d03", Question: "How many contracts involve a party located in China?",
		Expected:    &Expected{Tool: "contract_search", Args: json.RawMessage(`{"party_country":"CN"}`)},
		MustContain: []string{"31"}, Source: Position{path, 3}}
	if diff := cmp.Diff(want, d03); diff != "" {
		t.Errorf("d03 (-want +got):\n%s", diff)
	}
	for _, q := range qs {
		if q.Expected == nil || !json.Valid(q.Expected.Args) {
			t.Errorf("%s: expected call %+v", q.ID, q.Expected)
		}
	}
}

func TestParseJSONL(t *testing.T) {
	in := "\ufeff" + `{"id": "a", "question": " How many? ", "must_contain": ["1,234", 31]}

{"id": 7, "question": "Which?", "expected": {"tool": "party_search"}, "answer": "Acme."}
{"id": "c", "question": "And?", "expected": null, "must_contain": null}
`
	qs, err := ParseJSONL(strings.NewReader(in), "q.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	want := []Question{
		{ID: "a", Question: "How many?", MustContain: []string{"1,234", "31"}, Source: Position{"q.jsonl", 1}},
		{ID: "7", Question: "Which?", Expected: &Expected{Tool: "party_search", Args: json.RawMessage("{}")}, Answer: "Acme.", Source: Position{"q.jsonl", 3}},
		{ID: "c", Question: "And?", Source: Position{"q.jsonl", 4}},
	}
	if diff := cmp.Diff(want, qs); diff != "" {
		t.Errorf("questions (-want +got):\n%s", diff)
	}
}

func TestParseJSONLErrors(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"not JSON", `{"id":"a","question":"q"}` + "\n" + `{"id": "b", question}`, "q.jsonl: line 2: not a JSON object"},
		{"an array", `["a"]`, "q.jsonl: line 1: not a JSON object"},
		{"unknown field", `{"id":"a","question":"q","expect":{}}`, `q.jsonl: line 1 (id "a"): field expect: unknown field; valid fields: id, question, expected, answer, must_contain`},
		{"question not a string", `{"id":"a","question":["q"]}`, `line 1 (id "a"): field question: expected a string, got an array`},
		{"missing id", `{"question":"q"}`, "q.jsonl: line 1: field id: missing"},
		{"empty question", `{"id":"a","question":"  "}`, `line 1 (id "a"): field question: missing or empty`},
		{"duplicate id", `{"id":"a","question":"q"}` + "\n" + `{"id":"a","question":"r"}`, `q.jsonl: line 2 (id "a"): field id: duplicate id, first used at line 1`},
		{"expected not an object", `{"id":"a","question":"q","expected":"contract_search"}`, `field expected: expected an object {"tool": ..., "args": {...}}, got a string`},
		{"expected without tool", `{"id":"a","question":"q","expected":{"args":{}}}`, `field expected.tool: missing`},
		{"args not an object", `{"id":"a","question":"q","expected":{"tool":"t","args":[1]}}`, `field expected.args: expected a JSON object of tool arguments, got an array`},
		{"expected unknown key", `{"id":"a","question":"q","expected":{"tool":"t","arguments":{}}}`, `field expected.arguments: unknown field; valid fields: tool, args`},
		{"must_contain a string", `{"id":"a","question":"q","must_contain":"31"}`, `field must_contain: expected an array of strings, got a string`},
		{"must_contain empty item", `{"id":"a","question":"q","must_contain":["31",""]}`, `field must_contain: item 2 is empty`},
		{"empty file", "\n\n", "q.jsonl: no questions in the file"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseJSONL(strings.NewReader(tt.in), "q.jsonl")
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %v, want it to contain %q", err, tt.want)
			}
		})
	}
}

func TestParseCSV(t *testing.T) {
	in := "ID,Question,expected,must_contain,answer\n" +
		`d01,How many Distributor contracts ended in 2005?,"{""tool"": ""contract_search"", ""args"": {""contract_type"": ""Distributor""}}","1;2,5",One.` + "\n" +
		`d02,"Which state, mostly?",,"[""NY"", ""57""]",` + "\n" +
		",,,,\n" +
		"d03,Plain?,,,\n"
	qs, err := ParseCSV(strings.NewReader(in), "q.csv")
	if err != nil {
		t.Fatal(err)
	}
	want := []Question{
		{ID: "d01", Question: "How many Distributor contracts ended in 2005?", Expected: &Expected{Tool: "contract_search", Args: json.RawMessage(`{"contract_type":"Distributor"}`)},
			MustContain: []string{"1", "2,5"}, Answer: "One.", Source: Position{"q.csv", 2}},
		{ID: "d02", Question: "Which state, mostly?", MustContain: []string{"NY", "57"}, Source: Position{"q.csv", 3}},
		{ID: "d03", Question: "Plain?", Source: Position{"q.csv", 5}},
	}
	if diff := cmp.Diff(want, qs); diff != "" {
		t.Errorf("questions (-want +got):\n%s", diff)
	}
}

func TestParseCSVErrors(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"unknown column", "id,question,tool\n", "q.csv: line 1: field tool: unknown column; valid columns: id, question, expected, answer, must_contain"},
		{"no question column", "id,answer\n", "q.csv: line 1: field question: missing column"},
		{"bad expected JSON", "id,question,expected\na,q,{tool: x}\n", `q.csv: line 2 (id "a"): field expected: not valid JSON`},
		{"expected args wrong", "id,question,expected\n" + `a,q,"{""tool"":""x"",""args"":3}"` + "\n", `q.csv: line 2 (id "a"): field expected.args: expected a JSON object`},
		{"must_contain bad array", "id,question,must_contain\na,q,[31\n", `q.csv: line 2 (id "a"): field must_contain: starts with "[" but is not a JSON array`},
		{"wrong number of fields", "id,question\na,q\nb\n", "q.csv: line 3: wrong number of fields"},
		{"missing question", "id,question\na,\n", `q.csv: line 2 (id "a"): field question: missing or empty`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseCSV(strings.NewReader(tt.in), "q.csv")
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %v, want it to contain %q", err, tt.want)
			}
		})
	}
}

func TestReadQuestionFileFormats(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"a.jsonl":     `{"id":"a","question":"q?"}`,
		"b.csv":       "id,question\nb,q?\n",
		"c.txt":       "  \n" + `{"id":"c","question":"q?"}`,
		"d.questions": "id,question\nd,q?\n",
	}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for name := range files {
		qs, err := ReadQuestionFile(filepath.Join(dir, name))
		if err != nil || len(qs) != 1 || qs[0].ID != name[:1] {
			t.Errorf("%s: %+v, %v", name, qs, err)
		}
	}
	if _, err := ReadQuestionFile(filepath.Join(dir, "missing.jsonl")); err == nil || !strings.Contains(err.Error(), "missing.jsonl") {
		t.Errorf("missing file: %v", err)
	}
}

func TestCheckExpected(t *testing.T) {
	set := demoTools(t)
	ok := Question{ID: "ok", Question: "?", Expected: &Expected{Tool: "party_search", Args: json.RawMessage(`{"country":"DE"}`)}, Source: Position{"q.jsonl", 1}}
	tests := []struct {
		name string
		q    Question
		want string
	}{
		{"unknown tool", Question{ID: "x", Question: "?", Expected: &Expected{Tool: "contract_count", Args: json.RawMessage(`{}`)}, Source: Position{"q.jsonl", 2}},
			`q.jsonl: line 2 (id "x"): field expected.tool: the expected call fails: unknown tool "contract_count"; valid tools: contract_search`},
		{"bad argument", Question{ID: "y", Question: "?", Expected: &Expected{Tool: "contract_search", Args: json.RawMessage(`{"contract_type":"Lease"}`)}, Source: Position{"q.jsonl", 3}},
			`q.jsonl: line 3 (id "y"): field expected.args: the expected call fails: contract_type: unknown contract type "Lease"`},
		{"missing contract", Question{ID: "z", Question: "?", Expected: &Expected{Tool: "get_contract", Args: json.RawMessage(`{"contract_id":"nope"}`)}, Source: Position{"q.jsonl", 4}},
			`(id "z"): field expected.args: the expected call fails: get_contract: contract "nope": not found`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := CheckExpected(context.Background(), set, []Question{ok, tt.q})
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %v, want it to contain %q", err, tt.want)
			}
		})
	}
	if err := CheckExpected(context.Background(), set, []Question{ok}); err != nil {
		t.Errorf("a good question: %v", err)
	}
}
