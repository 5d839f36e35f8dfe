package tools

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestCheckReadOnlyCypher(t *testing.T) {
	allowed := []string{
		"MATCH (c:Contract) RETURN count(c)",
		"MATCH (p:Party) WHERE p.name = 'Create Inc' RETURN p",                // keyword inside a string
		`MATCH (p:Party) WHERE p.name = "Set \"Merge\" Delete" RETURN p.name`, // escaped quotes
		"MATCH (p:Party) // we never DELETE here\nRETURN p",                   // line comment
		"MATCH (p:Party) /* CREATE (x) */ RETURN p",                           // block comment
		"MATCH (c:Contract) RETURN c.`set` AS x, c.start AS s",                // quoted and dotted names
		"CALL db.index.fulltext.queryNodes('contract_text', 'merge') YIELD node RETURN node.id",
		"MATCH (c:Contract) RETURN c.id;", // one statement, trailing semicolon
		"CALL db.createLabel('X')",        // a writing procedure EXPLAIN must catch
		"MATCH (cl:Clause) WHERE cl.type = 'Termination For Convenience' RETURN cl.start, cl.end",
	}
	for _, q := range allowed {
		if err := CheckReadOnlyCypher(q); err != nil {
			t.Errorf("CheckReadOnlyCypher(%q) = %v, want nil", q, err)
		}
	}
	refused := []struct{ q, want string }{
		{"CREATE (n:Pwned)", "CREATE"},
		{"match (n) detach delete n", "DETACH DELETE"},
		{"MATCH (n) Delete n", "DELETE"},
		{"MERGE (p:Party {id: 'x'})", "MERGE"},
		{"MATCH (p:Party) SET p.name = 'x' RETURN p", "SET"},
		{"MATCH (p:Party) REMOVE p.name", "REMOVE"},
		{"DROP INDEX contract_text", "DROP"},
		{"LOAD CSV FROM 'file:///x.csv' AS row RETURN row", "LOAD CSV"},
		{"MATCH (p:Party) WITH collect(p) AS ps FOREACH (x IN ps | SET x.n = 1)", "FOREACH"},
		{"CALL apoc.create.node(['X'], {}) YIELD node RETURN node", "apoc.create.node"},
		{"CALL apoc.cypher.runWrite('CREATE (n)', {}) YIELD value RETURN value", "apoc.cypher.runWrite"},
		{"CALL APOC.periodic.iterate('MATCH (n) RETURN n', 'DELETE n', {})", "APOC.periodic.iterate"},
		{"CALL dbms.killQueries(['x'])", "dbms.killQueries"},
		{"MATCH (n) RETURN n; MATCH (m) RETURN m", "more than one statement"},
		{"MATCH (n) /* unterminated RETURN n", "unterminated comment"},
		{"MATCH (n) WHERE n.x = 'open RETURN n", "unterminated quote"},
		{"ALTER USER neo4j SET PASSWORD 'x'", "ALTER"},
		{"GRANT ROLE admin TO bob", "GRANT"},
	}
	for _, c := range refused {
		err := CheckReadOnlyCypher(c.q)
		if !errors.Is(err, ErrCypherRefused) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("CheckReadOnlyCypher(%q) = %v, want a refusal naming %q", c.q, err, c.want)
		}
	}
}

func FuzzCheckReadOnlyCypher(f *testing.F) {
	for _, s := range []string{"MATCH (n) RETURN n", "CREATE (n)", "'unterminated", "/* x", "`a``b` RETURN 1", "CALL db.x()"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		err := CheckReadOnlyCypher(s)
		if err != nil && !errors.Is(err, ErrCypherRefused) {
			t.Fatalf("error %v does not wrap ErrCypherRefused", err)
		}
		// A statement with a writing clause outside strings and comments is
		// never accepted: prefixing code with CREATE must be refused.
		if err := CheckReadOnlyCypher("CREATE (x) " + s); err == nil && !strings.ContainsAny(s, "'\"`/") {
			t.Fatalf("CREATE prefix accepted for %q", s)
		}
	})
}

func TestExtractCypher(t *testing.T) {
	tests := []struct{ in, want string }{
		{"MATCH (n) RETURN n", "MATCH (n) RETURN n"},
		{"```cypher\nMATCH (n)\nRETURN n;\n```", "MATCH (n)\nRETURN n"},
		{"Here you go:\n```\nMATCH (n) RETURN n\n```\nThis counts nodes.", "MATCH (n) RETURN n"},
		{"  Cypher: MATCH (n) RETURN count(n);  ", "MATCH (n) RETURN count(n)"},
		{"```cypher\nMATCH (n) RETURN n", "MATCH (n) RETURN n"},
		{"", ""},
	}
	for _, tt := range tests {
		if got := ExtractCypher(tt.in); got != tt.want {
			t.Errorf("ExtractCypher(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// TestText2CypherPromptGolden pins the prompt: schema, terminology,
// examples and question sections. Refresh with go test -run Prompt -update.
func TestText2CypherPromptGolden(t *testing.T) {
	schema := "Node labels and their properties:\n- Contract {id: String}\nRelationship types and their properties:\n- PARTY_TO {role: String}\nRelationship patterns:\n- (:Party)-[:PARTY_TO]->(:Contract)\n"
	got, err := Text2CypherPrompt(schema, "Which parties signed with Acme?", 50)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"## Schema\nNode labels", "## Terminology", "## Examples", "## Question\nWhich parties signed with Acme?\n", "Distributor", "Non-Compete & Exclusivity", "at most 50 rows"} {
		if !strings.Contains(got, want) {
			t.Errorf("prompt lacks %q", want)
		}
	}
	path := filepath.Join("testdata", "text2cypher_prompt.golden")
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if diff := cmp.Diff(string(want), got); diff != "" {
		t.Errorf("prompt differs from %s (-want +got):\n%s", path, diff)
	}
}

// TestText2CypherExamplesAreReadOnly: every curated example passes the
// keyword check; the Neo4j test also plans and runs each one.
func TestText2CypherExamplesAreReadOnly(t *testing.T) {
	ex := Text2CypherExamples()
	if len(ex) < 5 {
		t.Fatalf("%d examples, want at least 5", len(ex))
	}
	for _, e := range ex {
		if e.Question == "" || e.Cypher == "" {
			t.Errorf("incomplete example %+v", e)
		}
		if err := CheckReadOnlyCypher(e.Cypher); err != nil {
			t.Errorf("example %q: %v", e.Question, err)
		}
	}
}
