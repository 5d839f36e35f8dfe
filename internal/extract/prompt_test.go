package extract

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/contractgraph/contractgraph/internal/llm"
)

var update = flag.Bool("update", false, "rewrite golden files")

func TestPromptsGolden(t *testing.T) {
	whole := newPromptData("acme-supply", "SUPPLY AGREEMENT\n\n1. TERM. Two years.", 1, 1)
	part := newPromptData("acme-supply", "3. GOVERNING LAW. New York.", 2, 3)
	repair := whole
	repair.Problems = []string{`effective_date: invalid date "February 30, 2019"`, `parties[2].name: "Franchisee" is a role word`}
	facts, clauses := whole, whole
	facts.Task, clauses.Task = taskFacts, taskClauses
	tests := []struct {
		golden, tmpl string
		data         promptData
	}{
		{"system.golden", "system.tmpl", whole},
		{"system_part.golden", "system.tmpl", part},
		{"user.golden", "user.tmpl", whole},
		{"user_part.golden", "user.tmpl", part},
		{"user_facts.golden", "user.tmpl", facts},
		{"user_clauses.golden", "user.tmpl", clauses},
		{"repair.golden", "repair.tmpl", repair},
	}
	for _, tt := range tests {
		t.Run(tt.golden, func(t *testing.T) {
			got, err := render(tt.tmpl, tt.data)
			if err != nil {
				t.Fatal(err)
			}
			golden(t, tt.golden, got)
		})
	}
}

func TestSplitBudget(t *testing.T) {
	text := strings.Repeat("Para one is here.\n\n", 50) + strings.Repeat("x", 900) + "é" + strings.Repeat("y", 300)
	spans := splitBudget(text, 100) // 400 bytes each
	if len(spans) < 3 {
		t.Fatalf("spans = %v", spans)
	}
	pos := 0
	for i, s := range spans {
		if s.start != pos || s.end <= s.start || s.end-s.start > 400 {
			t.Fatalf("span %d = %+v at %d", i, s, pos)
		}
		if !isRuneStart(text[s.end%len(text)]) && s.end != len(text) {
			t.Fatalf("span %d cuts a character", i)
		}
		if i < 2 && !strings.HasSuffix(text[s.start:s.end], "\n\n") {
			t.Errorf("span %d does not end at a paragraph break: %q", i, text[s.end-10:s.end])
		}
		pos = s.end
	}
	if pos != len(text) {
		t.Fatalf("spans end at %d of %d", pos, len(text))
	}
	if got := EstimateTokens("abcdefgh"); got != 2 {
		t.Errorf("EstimateTokens = %d", got)
	}
}

// golden compares got with testdata/name, rewriting it with -update.
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create)", err)
	}
	if diff := cmp.Diff(string(want), got); diff != "" {
		t.Errorf("%s (-want +got):\n%s", name, diff)
	}
}

// The schemas' properties go out in a deliberate order, lists last and
// clauses at the very end, with the list caps; the golden files are the
// bytes sent as the response format.
func TestSchemasGolden(t *testing.T) {
	s, err := schemaFor()
	if err != nil {
		t.Fatal(err)
	}
	for name, sc := range map[string]*llm.Schema{"schema_full.golden.json": s.full, "schema_facts.golden.json": s.facts, "schema_clauses.golden.json": s.clauses} {
		t.Run(name, func(t *testing.T) {
			var b bytes.Buffer
			if err := json.Indent(&b, sc.Raw, "", "  "); err != nil {
				t.Fatal(err)
			}
			golden(t, name, b.String()+"\n")
		})
	}
	// The order of the full schema's top-level properties, as sent.
	var keys []string
	dec := json.NewDecoder(bytes.NewReader(s.full.Raw))
	depth, inProps := 0, false
	for {
		tok, err := dec.Token()
		if err != nil {
			break
		}
		switch v := tok.(type) {
		case json.Delim:
			if v == '{' || v == '[' {
				depth++
			} else {
				depth--
				if depth == 1 {
					inProps = false
				}
			}
		case string:
			if depth == 1 && v == "properties" {
				inProps = true
			} else if inProps && depth == 2 && dec.More() {
				keys = append(keys, v)
				// Skip the property's schema.
				var skip json.RawMessage
				if err := dec.Decode(&skip); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	if diff := cmp.Diff(propertyOrder, keys); diff != "" {
		t.Errorf("full schema property order (-want +got):\n%s", diff)
	}
	if keys[len(keys)-1] != "clauses" || keys[len(keys)-2] != "parties" {
		t.Errorf("lists are not last: %v", keys)
	}
}
