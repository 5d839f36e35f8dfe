package neo4j_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	driver "github.com/neo4j/neo4j-go-driver/v5/neo4j"

	"github.com/contractgraph/contractgraph/internal/contract"
	"github.com/contractgraph/contractgraph/internal/graph/neo4j"
	"github.com/contractgraph/contractgraph/internal/graph/neo4j/neo4jtest"
)

// TestSchemaSetUpOncePerDatabase: the first Open of an empty database runs
// every schema statement and records the schema version; a later Open runs
// none; a database without this version's marker (a changed statement
// list) makes Open set up again, keeping the markers of other binaries;
// and the marker is no node, so neither a model's MATCH (n) nor the schema
// a language model is shown sees it (the maintained counts are one node,
// which the schema leaves out). A marker node of an earlier binary is
// removed by the set-up.
func TestSchemaSetUpOncePerDatabase(t *testing.T) {
	ctx := context.Background()
	cfg := neo4jtest.Config(t)
	neo4jtest.Lock(t, cfg.URI)
	open := func() *neo4j.Store {
		t.Helper()
		s, err := neo4j.Open(ctx, cfg)
		if err != nil {
			t.Fatalf("open: %v", err)
		}
		t.Cleanup(func() { s.Close() })
		return s
	}
	d, err := driver.NewDriverWithContext(cfg.URI, driver.BasicAuth(cfg.Username, cfg.Password, ""))
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close(ctx)
	query := func(cypher string, params map[string]any) []*driver.Record {
		t.Helper()
		res, err := driver.ExecuteQuery(ctx, d, cypher, params, driver.EagerResultTransformer,
			driver.ExecuteQueryWithDatabase(cfg.Database))
		if err != nil {
			t.Fatalf("%s: %v", cypher, err)
		}
		return res.Records
	}
	markers := func() []string {
		t.Helper()
		var out []string
		for _, r := range query("SHOW INDEXES YIELD name WHERE name STARTS WITH 'contractgraph_schema_' RETURN name ORDER BY name", nil) {
			v, _ := r.Get("name")
			out = append(out, v.(string))
		}
		return out
	}
	version := neo4j.SchemaVersion()
	mine := "contractgraph_schema_" + version
	// Start from a database without markers, holding an earlier binary's
	// marker node and one contract.
	if err := neo4jtest.Wipe(ctx, cfg); err != nil {
		t.Fatal(err)
	}
	for _, name := range markers() {
		query("DROP INDEX "+name, nil)
	}
	query("CREATE (:ContractGraphSchema {id: 'schema', applied: ['old']}), (:Contract {id: 'c1'})", nil)

	if n := open().SchemaStatementsRun(); n != int64(neo4j.SchemaStatementCount()) {
		t.Errorf("first Open ran %d schema statements, want all %d", n, neo4j.SchemaStatementCount())
	}
	if got := markers(); !slices.Equal(got, []string{mine}) {
		t.Errorf("markers after the first Open: %q, want [%q]", got, mine)
	}
	s := open()
	if n := s.SchemaStatementsRun(); n != 0 {
		t.Errorf("second Open ran %d schema statements, want 0", n)
	}
	// Deleting every node keeps the indexes and so the marker.
	if err := neo4jtest.Wipe(ctx, cfg); err != nil {
		t.Fatal(err)
	}
	query("CREATE (:Contract {id: 'c1'})", nil)
	if n := open().SchemaStatementsRun(); n != 0 {
		t.Errorf("Open after deleting every node ran %d schema statements, want 0", n)
	}

	// Another binary's schema: this one's marker is missing, so Open sets
	// up again and adds it, keeping the other's.
	query("DROP INDEX "+mine, nil)
	other := "contractgraph_schema_0000000000000000"
	query("CREATE RANGE INDEX "+other+" FOR (m:ContractGraphSchema) ON (m.schema_0000000000000000)", nil)
	if n := open().SchemaStatementsRun(); n != int64(neo4j.SchemaStatementCount()) {
		t.Errorf("Open with another version's marker ran %d schema statements, want %d", n, neo4j.SchemaStatementCount())
	}
	if got := markers(); !slices.Equal(got, []string{other, mine}) {
		t.Errorf("markers: %q, want [%q %q]", got, other, mine)
	}
	if n := open().SchemaStatementsRun(); n != 0 {
		t.Errorf("Open after the re-set-up ran %d schema statements, want 0", n)
	}
	query("DROP INDEX "+other, nil)

	// The one contract is all a model's MATCH (n) finds.
	recs := query("MATCH (n) RETURN count(n) AS n, collect(DISTINCT labels(n)) AS labels", nil)
	if n, _ := recs[0].Get("n"); n != int64(1) {
		labels, _ := recs[0].Get("labels")
		t.Errorf("MATCH (n) counts %v nodes (labels %v), want the 1 contract", n, labels)
	}
	// A contract with a date is counted on the one count node (see
	// aggregates.go): MATCH (n) sees that node besides the data, the
	// schema text shows neither it nor the marker.
	if _, err := s.PutContracts(ctx, []*contract.Contract{{ID: "c2", EffectiveDate: "2020-01-01"}}); err != nil {
		t.Fatal(err)
	}
	recs = query("MATCH (n) WHERE NOT n:Contract RETURN collect(labels(n)) AS labels", nil)
	if labels, _ := recs[0].Get("labels"); fmt.Sprint(labels) != "[[ContractGraphCount]]" {
		t.Errorf("MATCH (n) finds besides contracts %v, want the one count node", labels)
	}
	text, err := s.SchemaText(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(text, "ContractGraphSchema") || strings.Contains(text, "schema_") || strings.Contains(text, "ContractGraphCount") {
		t.Errorf("the schema text shows the schema marker or the count node:\n%s", text)
	}
}
