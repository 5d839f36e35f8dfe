package neo4j_test

import (
	"context"
	"testing"

	driver "github.com/neo4j/neo4j-go-driver/v5/neo4j"

	"github.com/contractgraph/contractgraph/internal/contract"
	"github.com/contractgraph/contractgraph/internal/graph"
	"github.com/contractgraph/contractgraph/internal/graph/graphtest"
	"github.com/contractgraph/contractgraph/internal/graph/neo4j"
	"github.com/contractgraph/contractgraph/internal/graph/neo4j/neo4jtest"
)

// A contract written before unverified values were stored (its node and
// PARTY_TO without the properties) is flagged by the next Open.
func TestUnverifiedBackfill(t *testing.T) {
	ctx := context.Background()
	s := neo4jtest.Open(t)
	if _, err := s.PutContracts(ctx, []*contract.Contract{graphtest.UnverifiedContract(), graphtest.Fixture()[0]}); err != nil {
		t.Fatal(err)
	}
	cfg := neo4jtest.Config(t)
	d, err := driver.NewDriverWithContext(cfg.URI, driver.BasicAuth(cfg.Username, cfg.Password, ""))
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close(ctx)
	for _, q := range []string{
		`MATCH (c:Contract) REMOVE c.unverified_fields, c.unverified_values, c.verified_party_countries`,
		`MATCH ()-[r:PARTY_TO]->() REMOVE r.unverified`,
	} {
		if _, err := driver.ExecuteQuery(ctx, d, q, nil, driver.EagerResultTransformer, driver.ExecuteQueryWithDatabase(cfg.Database)); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	search := func(s graph.Store, f graph.Filter) graph.ContractResult {
		t.Helper()
		r, err := s.SearchContracts(ctx, graph.ContractQuery{Filter: f, Limit: 5})
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	if r := search(s, graph.Filter{Parties: []string{"phantom"}}); r.TotalCount != 1 {
		t.Fatalf("without the flags the phantom party matches %d contracts, want 1 (the test removed them)", r.TotalCount)
	}

	// The database is now one an older binary wrote: its schema version
	// differs, so the set-up (and the aggregates' recount) runs again.
	if _, err := driver.ExecuteQuery(ctx, d, "DROP INDEX contractgraph_schema_"+neo4j.SchemaVersion(), nil, driver.EagerResultTransformer,
		driver.ExecuteQueryWithDatabase(cfg.Database)); err != nil {
		t.Fatal(err)
	}
	again, err := neo4j.Open(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer again.Close()
	for _, f := range []graph.Filter{{Parties: []string{"phantom"}}, {MinEffectiveDate: "2090-01-01"}, {PartyCountry: "CA"}} {
		if r := search(again, f); r.TotalCount != 0 {
			t.Errorf("after the backfill %+v matches %d contracts, want 0", f, r.TotalCount)
		}
	}
	r := search(again, graph.Filter{MinEffectiveDate: "2090-01-01", IncludeUnverified: true})
	if r.TotalCount != 1 || len(r.Examples[0].Unverified) != 8 {
		t.Errorf("with include_unverified: %+v, want c13 with 8 marks", r)
	}
	if r := search(again, graph.Filter{ContractIDs: []string{"c01"}}); r.TotalCount != 1 || r.Examples[0].Unverified != nil {
		t.Errorf("c01 (verified evidence) after the backfill: %+v", r)
	}
}
