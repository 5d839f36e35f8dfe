package tools_test

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/contractgraph/contractgraph/internal/contract"
	"github.com/contractgraph/contractgraph/internal/graph"
	"github.com/contractgraph/contractgraph/internal/graph/neo4j/neo4jtest"
	"github.com/contractgraph/contractgraph/internal/graph/sqlite"
	"github.com/contractgraph/contractgraph/internal/llm"
	"github.com/contractgraph/contractgraph/internal/llm/llmtest"
	"github.com/contractgraph/contractgraph/internal/tools"
)

// cypherFixture is a small graph: Acme signs with two partners, one in China.
func cypherFixture() []*contract.Contract {
	amount := 5e6
	return []*contract.Contract{
		{ID: "k1", Title: "Acme distribution", ContractType: "Distributor", EffectiveDate: "2019-03-01", EndDate: "2024-03-01",
			TotalAmount: &amount, Currency: "USD", GoverningLaw: &contract.Location{Country: "US", State: "DE"},
			Parties: []contract.PartyRole{
				{Name: "Acme, Inc.", Role: "Supplier", Location: &contract.Location{Country: "US", State: "CA"}},
				{Name: "Shenzhen Widgets Co., Ltd.", Role: "Distributor", Location: &contract.Location{Country: "CN"}},
			},
			Clauses: []contract.Clause{{Type: "Non-Compete", Summary: "No competing products."}}},
		{ID: "k2", Title: "Acme services", ContractType: "Service", EffectiveDate: "2020-05-01",
			Parties: []contract.PartyRole{
				{Name: "ACME Inc", Role: "Customer"},
				{Name: "Globex Corporation", Role: "Provider", Location: &contract.Location{Country: "US", State: "NY"}},
			}},
	}
}

// cypherStore is the Neo4j test store loaded with cypherFixture.
func cypherStore(t *testing.T) graph.Store {
	t.Helper()
	s := neo4jtest.Open(t)
	out, err := s.PutContracts(context.Background(), cypherFixture())
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range out {
		if o.Status != graph.PutCreated {
			t.Fatalf("put %s: %s %v", o.ID, o.Status, o.Err)
		}
	}
	return s
}

func newText2Cypher(t *testing.T, s graph.Store, model llm.Model) *tools.Set {
	t.Helper()
	set := tools.New(s, tools.Options{})
	ok, err := tools.AddText2Cypher(set, s, tools.Text2CypherOptions{
		Model:   func(context.Context) (llm.Model, error) { return model, nil },
		MaxRows: 10, Timeout: 10 * time.Second,
	})
	if err != nil || !ok {
		t.Fatalf("AddText2Cypher = %v, %v; want the tool added on Neo4j", ok, err)
	}
	return set
}

func callText2Cypher(set *tools.Set, q string) (tools.Text2CypherResult, error) {
	args, _ := json.Marshal(map[string]string{"question": q})
	raw, err := set.Call(context.Background(), tools.NameText2Cypher, args)
	var res tools.Text2CypherResult
	if err == nil {
		err = json.Unmarshal(raw, &res)
	}
	return res, err
}

func nodeCount(t *testing.T, s graph.Store) int {
	t.Helper()
	st, err := s.Stats(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, v := range st.Nodes {
		n += v
	}
	return n
}

func TestText2CypherOnlyOnNeo4j(t *testing.T) {
	lite, err := sqlite.Open(filepath.Join(t.TempDir(), "g.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer lite.Close()
	set := tools.New(lite, tools.Options{})
	ok, err := tools.AddText2Cypher(set, lite, tools.Text2CypherOptions{
		Model: func(context.Context) (llm.Model, error) { return llmtest.NewScripted(), nil },
	})
	if err != nil || ok || slices.Contains(set.Names(), tools.NameText2Cypher) {
		t.Errorf("on SQLite: AddText2Cypher = %v, %v, tools %v; want no text2cypher", ok, err, set.Names())
	}
}

func TestText2CypherAnswers(t *testing.T) {
	s := cypherStore(t)
	model := llmtest.NewScripted(llmtest.Text("```cypher\n" +
		"MATCH (a:Party)-[:PARTY_TO]->(c:Contract)<-[:PARTY_TO]-(p:Party)\n" +
		"WHERE any(k IN a.match_keys WHERE k CONTAINS 'acme') AND p <> a\n" +
		"RETURN p.name AS party, c.id AS contract ORDER BY party;\n```"))
	res, err := callText2Cypher(newText2Cypher(t, s, model), "Who signed with Acme?")
	if err != nil {
		t.Fatal(err)
	}
	want := []map[string]any{
		{"party": "Globex Corporation", "contract": "k2"},
		{"party": "Shenzhen Widgets Co., Ltd.", "contract": "k1"},
	}
	if len(res.Rows) != 2 || res.Rows[0]["party"] != want[0]["party"] || res.Rows[1]["contract"] != want[1]["contract"] {
		t.Errorf("rows = %v, want %v", res.Rows, want)
	}
	if !slices.Equal(res.Columns, []string{"party", "contract"}) || res.Truncated || res.Repaired {
		t.Errorf("columns %v truncated %v repaired %v", res.Columns, res.Truncated, res.Repaired)
	}
	if !strings.HasPrefix(res.Cypher, "MATCH (a:Party)") || strings.Contains(res.Cypher, "```") || strings.HasSuffix(res.Cypher, ";") {
		t.Errorf("cypher = %q, want the statement without fences or semicolon", res.Cypher)
	}
	// The prompt carried the live schema, the terminology and the question.
	reqs := model.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d model calls, want 1", len(reqs))
	}
	prompt := reqs[0].Messages[len(reqs[0].Messages)-1].Content
	for _, want := range []string{"(:Party)-[:PARTY_TO]->(:Contract)", "(:Contract)-[:HAS_GOVERNING_LAW]->(:Location)",
		"match_keys", "## Terminology", "## Examples", "## Question\nWho signed with Acme?"} {
		if !strings.Contains(prompt, want) {
			t.Errorf("prompt lacks %q", want)
		}
	}
	if strings.Contains(prompt, "content_hash") {
		t.Error("prompt shows the bookkeeping property content_hash")
	}
}

func TestText2CypherRowCap(t *testing.T) {
	s := cypherStore(t)
	model := llmtest.NewScripted(llmtest.Text("UNWIND range(1, 100) AS n RETURN n"))
	res, err := callText2Cypher(newText2Cypher(t, s, model), "Count to a hundred")
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Rows) != 10 || !res.Truncated {
		t.Errorf("%d rows, truncated %v; want 10 and true", len(res.Rows), res.Truncated)
	}
}

func TestText2CypherRefusesWrites(t *testing.T) {
	s := cypherStore(t)
	before := nodeCount(t, s)
	tests := []struct{ name, cypher, want string }{
		// The keyword check refuses these before the database sees them.
		{"create", "CREATE (:Pwned {by: 'model'})", "CREATE"},
		{"detach delete", "match (n) detach delete n", "DETACH DELETE"},
		{"set", "MATCH (p:Party) SET p.name = 'x' RETURN p", "SET"},
		{"merge", "MERGE (p:Party {id: 'x'}) RETURN p", "MERGE"},
		{"load csv", "LOAD CSV FROM 'file:///etc/passwd' AS row RETURN row", "LOAD CSV"},
		{"apoc write", "CALL apoc.create.node(['Pwned'], {}) YIELD node RETURN node", "apoc.create.node"},
		// No keyword gives this one away: only the EXPLAIN check sees that
		// the procedure writes.
		{"writing procedure", "CALL db.createLabel('Pwned')", "plan writes"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			model := llmtest.NewScripted(llmtest.Text(tt.cypher))
			_, err := callText2Cypher(newText2Cypher(t, s, model), "Do something")
			if !errors.Is(err, tools.ErrCypherRefused) || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want a refusal mentioning %q", err, tt.want)
			}
			if n := len(model.Requests()); n != 1 {
				t.Errorf("%d model calls, want 1 (a refusal gets no repair round)", n)
			}
		})
	}
	if after := nodeCount(t, s); after != before {
		t.Errorf("nodes %d -> %d: a refused statement changed the graph", before, after)
	}
}

func TestText2CypherRepairsOnce(t *testing.T) {
	s := cypherStore(t)
	model := llmtest.NewScripted(
		llmtest.Text("MATCH (c:Contract) RETURN count(c AS n"), // syntax error
		llmtest.Text("MATCH (c:Contract) RETURN count(c) AS n"),
	)
	res, err := callText2Cypher(newText2Cypher(t, s, model), "How many contracts?")
	if err != nil {
		t.Fatal(err)
	}
	if !res.Repaired || len(res.Rows) != 1 || res.Rows[0]["n"] != float64(2) {
		t.Errorf("result %+v, want the repaired count 2", res)
	}
	reqs := model.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d model calls, want exactly 2", len(reqs))
	}
	last := reqs[1].Messages[len(reqs[1].Messages)-1].Content
	if !strings.Contains(last, "rejected") || !strings.Contains(last, "SyntaxError") {
		t.Errorf("repair request %q does not carry the database error", last)
	}

	// A second failure ends it: no third call.
	bad := llmtest.NewScripted(
		llmtest.Text("MATCH (c:Contract RETURN c"),
		llmtest.Text("MATCH (c:Contract) RETURN c.id AS id ORDER BY nosuchvariable"),
	)
	if _, err := callText2Cypher(newText2Cypher(t, s, bad), "List contracts"); err == nil || !strings.Contains(err.Error(), "corrected statement failed") {
		t.Errorf("err = %v, want the corrected statement's failure", err)
	}
	if n := len(bad.Requests()); n != 2 {
		t.Errorf("%d model calls, want 2", n)
	}
}

// TestText2CypherExamplesRun plans and runs every curated few-shot example
// against the real schema: each must be read-only and valid.
func TestText2CypherExamplesRun(t *testing.T) {
	s := cypherStore(t)
	cs := s.(tools.CypherStore)
	for _, ex := range tools.Text2CypherExamples() {
		ro, err := cs.Explain(context.Background(), ex.Cypher)
		if err != nil || !ro {
			t.Errorf("example %q: read-only %v, %v", ex.Question, ro, err)
			continue
		}
		if _, _, _, err := cs.RunRead(context.Background(), ex.Cypher, nil, 50, 10*time.Second); err != nil {
			t.Errorf("example %q: %v", ex.Question, err)
		}
	}
}
