package neo4j_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	driver "github.com/neo4j/neo4j-go-driver/v5/neo4j"

	"github.com/contractgraph/contractgraph/internal/graph/neo4j"
	"github.com/contractgraph/contractgraph/internal/graph/neo4j/neo4jtest"
)

// TestSchemaSetUpOncePerDatabase: the first Open of an empty database runs
// every schema statement and records the schema version; a later Open runs
// none; a marker without this version (a changed statement list) makes
// Open set up again, keeping the versions of other binaries; and the
// marker is not part of the schema a language model is shown.
func TestSchemaSetUpOncePerDatabase(t *testing.T) {
	ctx := context.Background()
	cfg := neo4jtest.Config(t)
	neo4jtest.Lock(t, cfg.URI)
	if err := neo4jtest.Wipe(ctx, cfg); err != nil { // deletes the marker too
		t.Fatal(err)
	}
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
	applied := func() []string {
		t.Helper()
		recs := query("MATCH (m:ContractGraphSchema) RETURN m.applied AS applied", nil)
		if len(recs) != 1 {
			t.Fatalf("%d schema markers, want 1", len(recs))
		}
		var out []string
		v, _ := recs[0].Get("applied")
		for _, x := range v.([]any) {
			out = append(out, x.(string))
		}
		return out
	}
	version := neo4j.SchemaVersion()

	if n := open().SchemaStatementsRun(); n != int64(neo4j.SchemaStatementCount()) {
		t.Errorf("first Open ran %d schema statements, want all %d", n, neo4j.SchemaStatementCount())
	}
	if got := applied(); !slices.Equal(got, []string{version}) {
		t.Errorf("marker after the first Open lists %q, want [%q]", got, version)
	}
	s := open()
	if n := s.SchemaStatementsRun(); n != 0 {
		t.Errorf("second Open ran %d schema statements, want 0", n)
	}

	// Another binary's schema: this one's version is missing, so Open sets
	// up again and adds it, keeping the other's.
	query("MATCH (m:ContractGraphSchema) SET m.applied = ['other']", nil)
	if n := open().SchemaStatementsRun(); n != int64(neo4j.SchemaStatementCount()) {
		t.Errorf("Open with another version's marker ran %d schema statements, want %d", n, neo4j.SchemaStatementCount())
	}
	if got := applied(); !slices.Equal(got, []string{"other", version}) {
		t.Errorf("marker lists %q, want [other %q]", got, version)
	}
	if n := open().SchemaStatementsRun(); n != 0 {
		t.Errorf("Open after the re-set-up ran %d schema statements, want 0", n)
	}

	text, err := s.SchemaText(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(text, "ContractGraphSchema") || strings.Contains(text, "applied") {
		t.Errorf("the schema text shows the schema marker:\n%s", text)
	}

	// Deleting every node deletes the marker: the next Open sets up again.
	if err := neo4jtest.Wipe(ctx, cfg); err != nil {
		t.Fatal(err)
	}
	if n := open().SchemaStatementsRun(); n != int64(neo4j.SchemaStatementCount()) {
		t.Errorf("Open after deleting everything ran %d schema statements, want %d", n, neo4j.SchemaStatementCount())
	}
}
