package neo4j_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	driver "github.com/neo4j/neo4j-go-driver/v5/neo4j"

	"github.com/contractgraph/contractgraph/internal/contract"
	"github.com/contractgraph/contractgraph/internal/graph"
	"github.com/contractgraph/contractgraph/internal/graph/graphtest"
	"github.com/contractgraph/contractgraph/internal/graph/neo4j"
	"github.com/contractgraph/contractgraph/internal/graph/neo4j/neo4jtest"
	"github.com/contractgraph/contractgraph/internal/synth"
)

// multiRole is a contract where Alpha holds two roles and Beta one; Alpha
// is in the US but for its guarantor role in m1, in Canada.
func multiRole(id, date string) *contract.Contract {
	guarantor := "US"
	if id == "m1" {
		guarantor = "CA"
	}
	amount := 50.0
	return &contract.Contract{
		ID: id, ContractType: "Service", EffectiveDate: date, EndDate: "2010-12-31", Currency: "USD", TotalAmount: &amount,
		Parties: []contract.PartyRole{
			{Name: "Alpha Holdings Inc", Role: "Provider", Location: &contract.Location{Country: "US"}},
			{Name: "Beta Trading Corp", Role: "Customer", Location: &contract.Location{Country: "US"}},
			{Name: "Alpha Holdings Inc", Role: "Guarantor", Location: &contract.Location{Country: guarantor}},
		},
	}
}

// amountQueries are the aggregates the amount and duration sums answer
// (amounts.go, with the amount index for the largest and smallest), and the counts by governing law and other counted
// groupings.
var amountQueries = func() []graph.AggregateQuery {
	var qs []graph.AggregateQuery
	for _, m := range []string{graph.MetricSumAmount, graph.MetricAvgAmount} {
		for _, include := range []bool{false, true} {
			for _, asc := range []bool{false, true} {
				f := graph.Filter{IncludeUnverified: include}
				qs = append(qs, graph.AggregateQuery{GroupBy: graph.GroupContractType, Metric: m, Asc: asc, Limit: 50, Filter: f})
				for _, typ := range []string{"Service", "Sponsorship", "Supply", "No Such Type"} {
					f.ContractType = typ
					qs = append(qs, graph.AggregateQuery{Metric: m, Asc: asc, Limit: 50, Filter: f})
					if m == graph.MetricAvgAmount {
						qs = append(qs, graph.AggregateQuery{Metric: graph.MetricAvgDurationDays, Asc: asc, Limit: 50, Filter: f})
						// The largest and smallest amounts (compileExtremeAggregate).
						for _, x := range []string{graph.MetricMaxAmount, graph.MetricMinAmount} {
							qs = append(qs, graph.AggregateQuery{Metric: x, Asc: asc, Limit: 50, Filter: f},
								graph.AggregateQuery{Metric: x, Asc: asc, Limit: 1, Filter: f})
						}
					}
				}
			}
		}
	}
	// The counts by governing law (aggregates.go), under a filter on it.
	for _, include := range []bool{false, true} {
		for _, f := range []graph.Filter{{}, {GoverningLawCountry: "US"}, {GoverningLawState: "NY"},
			{GoverningLawCountry: "US", GoverningLawState: "CA"}, {GoverningLawCountry: "ZZ"}} {
			f.IncludeUnverified = include
			for _, by := range []string{graph.GroupGoverningLawCountry, graph.GroupGoverningLawState} {
				qs = append(qs, graph.AggregateQuery{GroupBy: by, Limit: 3, Filter: f}, graph.AggregateQuery{GroupBy: by, Limit: 50, Asc: true, Filter: f})
			}
		}
	}
	// The other counted groupings.
	for _, by := range []string{graph.GroupEffectiveYear, graph.GroupEffectiveQuarter, graph.GroupEndYear, graph.GroupPartyCountry} {
		qs = append(qs, graph.AggregateQuery{GroupBy: by, Limit: 50})
	}
	return qs
}()

// countedSearches are the contract searches whose count the maintained
// counts answer: by a clause kind under a governing law (d17).
var countedSearches = func() []graph.Filter {
	var fs []graph.Filter
	for _, include := range []bool{false, true} {
		for _, kind := range []string{"Liability & Indemnification", "Cap On Liability", "Governing Law", "No Such Kind"} {
			for _, law := range []graph.Filter{{GoverningLawState: "NY"}, {GoverningLawState: "DE"}, {GoverningLawCountry: "US"},
				{GoverningLawCountry: "US", GoverningLawState: "CA"}, {GoverningLawState: "ZZ"}} {
				law.ClauseTypes, law.IncludeUnverified = []string{kind}, include
				fs = append(fs, law)
			}
		}
	}
	return fs
}()

// The maintained aggregates (aggregates.go) equal their recount from the
// base graph after puts, replacements, deletes, party merges, the
// unverified flags' backfill and the aggregates' own backfill on a schema
// version change, and the queries that read them answer as before.
func TestAggregatesMatchRecount(t *testing.T) {
	ctx := context.Background()
	s := neo4jtest.Open(t)
	cfg := neo4jtest.Config(t)
	d, err := driver.NewDriverWithContext(cfg.URI, driver.BasicAuth(cfg.Username, cfg.Password, ""))
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close(ctx)
	exec := func(q string) {
		t.Helper()
		if _, err := driver.ExecuteQuery(ctx, d, q, nil, driver.EagerResultTransformer, driver.ExecuteQueryWithDatabase(cfg.Database)); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	put := func(cs ...*contract.Contract) []graph.PutOutcome {
		t.Helper()
		out, err := s.PutContracts(ctx, cs)
		if err != nil {
			t.Fatal(err)
		}
		for _, o := range out {
			if o.Status == graph.PutFailed {
				t.Fatalf("put %s: %v", o.ID, o.Err)
			}
		}
		return out
	}
	// reopen opens the store as a binary of a new schema version would:
	// the set-up runs again, recounting the aggregates, and then flags
	// the unverified values of contracts written without them.
	reopen := func() {
		t.Helper()
		exec("DROP INDEX contractgraph_schema_" + neo4j.SchemaVersion())
		again, err := neo4j.Open(ctx, cfg)
		if err != nil {
			t.Fatal(err)
		}
		again.Close()
	}
	partyID := func(name string) string {
		t.Helper()
		r, err := s.SearchParties(ctx, graph.PartyQuery{Name: name, Limit: 5})
		if err != nil || len(r.Examples) != 1 {
			t.Fatalf("party %q: %+v, %v", name, r.Examples, err)
		}
		return r.Examples[0].PartyID
	}
	steps := []struct {
		name string
		run  func()
	}{
		{"put", func() {
			var cs []*contract.Contract
			if err := synth.Generate(7, 60, func(c *contract.Contract) error { cs = append(cs, c); return nil }); err != nil {
				t.Fatal(err)
			}
			cs = append(cs, graphtest.Fixture()...)
			cs = append(cs, graphtest.UnverifiedContract(), multiRole("m1", "2001-02-03"), multiRole("m2", "2001-02-28"))
			// An amount without a currency, and a contract of no type.
			nc := multiRole("nc1", "2002-05-05")
			nc.Currency = ""
			untyped := multiRole("nt1", "2002-06-06")
			untyped.ContractType = ""
			put(append(cs, nc, untyped)...)
		}},
		{"inexact amount", func() {
			c := multiRole("x1", "2005-05-05")
			c.TotalAmount = new(float64)
			*c.TotalAmount = 12.5
			put(c)
			if ok, err := s.AmountsUsable(ctx, graph.AggregateQuery{GroupBy: graph.GroupContractType, Metric: graph.MetricAvgAmount}); err != nil || ok {
				t.Fatalf("amount sums usable with an amount of 12.5: %v, %v", ok, err)
			}
		}},
		{"inexact amount deleted", func() {
			if _, err := s.DeleteContracts(ctx, []string{"x1"}); err != nil {
				t.Fatal(err)
			}
			if ok, err := s.AmountsUsable(ctx, graph.AggregateQuery{GroupBy: graph.GroupContractType, Metric: graph.MetricAvgAmount}); err != nil || !ok {
				t.Fatalf("amount sums unusable after the inexact amount is gone: %v, %v", ok, err)
			}
		}},
		{"replace", func() {
			// A re-put with other values, parties and dates.
			c := multiRole("m1", "2003-07-01")
			c.Parties = append(c.Parties, contract.PartyRole{Name: "Gamma Widgets Ltd", Role: "Guarantor", Location: &contract.Location{Country: "DE"}})
			c.ContractType, c.EndDate = "Supply", "2004-01-31"
			if out := put(c); out[0].Status == graph.PutUnchanged {
				t.Fatalf("replace m1: %+v", out[0])
			}
		}},
		{"delete", func() {
			if _, err := s.DeleteContracts(ctx, []string{"m2", "c13", "gen-7-0000001", "gen-7-0000002", "gen-7-0000003"}); err != nil {
				t.Fatal(err)
			}
		}},
		{"merge", func() {
			// Alpha and Beta share m1: after the merge it counts once for Alpha.
			if err := s.MergeParties(ctx, partyID("Alpha Holdings Inc"), []string{partyID("Beta Trading Corp")}); err != nil {
				t.Fatal(err)
			}
			r, err := s.SearchParties(ctx, graph.PartyQuery{Limit: 4})
			if err != nil || len(r.Examples) < 4 {
				t.Fatalf("top parties: %+v, %v", r.Examples, err)
			}
			if err := s.MergeParties(ctx, r.Examples[0].PartyID, []string{r.Examples[2].PartyID, r.Examples[3].PartyID}); err != nil {
				t.Fatal(err)
			}
		}},
		{"unverified backfill", func() {
			// A contract written before unverified values were stored, in a
			// database an older binary set up.
			put(graphtest.UnverifiedContract())
			exec(`MATCH (c:Contract {id: 'c13'}) REMOVE c.unverified_fields, c.unverified_values, c.verified_party_countries`)
			exec(`MATCH ()-[r:PARTY_TO]->(:Contract {id: 'c13'}) REMOVE r.unverified`)
			reopen()
		}},
		{"aggregates backfill", func() {
			// An older binary's database: no aggregates at all.
			exec(`MATCH (n:ContractGraphCount) DELETE n`)
			exec(`MATCH (p:Party) REMOVE p.verified_contract_count, p.facet_keys, p.facet_roles`)
			reopen()
		}},
		{"delete all", func() {
			var ids []string
			if err := s.Contracts(ctx, func(c *contract.Contract) error { ids = append(ids, c.ID); return nil }); err != nil {
				t.Fatal(err)
			}
			if _, err := s.DeleteContracts(ctx, ids); err != nil {
				t.Fatal(err)
			}
		}},
	}
	for _, st := range steps {
		st.run()
		diff, err := s.AggregateDiff(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if diff != "" {
			t.Fatalf("after %s:\n%s", st.name, diff)
		}
		for _, q := range amountQueries {
			got, err := s.AggregateContracts(ctx, q)
			if err != nil {
				t.Fatal(err)
			}
			want, err := s.AggregateBase(ctx, q)
			if err != nil {
				t.Fatal(err)
			}
			// Neo4j's avg keeps a running mean, which may differ from the
			// exact sum's division (the embedded store's answer) in the
			// last bit.
			if diff := cmp.Diff(want, got, cmpopts.EquateApprox(1e-15, 0)); diff != "" {
				t.Errorf("after %s: %+v (-contracts +amount sums):\n%s", st.name, q, diff)
			}
		}
		for _, f := range countedSearches {
			got, err := s.SearchContracts(ctx, graph.ContractQuery{Filter: f, Limit: 1})
			if err != nil {
				t.Fatal(err)
			}
			want, err := s.SearchCountBase(ctx, f)
			if err != nil {
				t.Fatal(err)
			}
			if got.TotalCount != want {
				t.Errorf("after %s: %+v counts %d contracts, %d from the contracts", st.name, f, got.TotalCount, want)
			}
		}
	}
	// Nothing is left but the count node, which counts nothing (it keeps
	// the party names' version, PartyNamesVersion).
	recs, err := driver.ExecuteQuery(ctx, d, "MATCH (n) RETURN collect(labels(n)) AS labels, collect(n.count_keys) + collect(n.country_keys) AS keys", nil,
		driver.EagerResultTransformer, driver.ExecuteQueryWithDatabase(cfg.Database))
	if err != nil {
		t.Fatal(err)
	}
	labels, _ := recs.Records[0].Get("labels")
	keys, _ := recs.Records[0].Get("keys")
	if fmt.Sprint(labels) != "[[ContractGraphCount]]" || fmt.Sprint(keys) != "[]" {
		t.Errorf("after deleting every contract MATCH (n) finds %v (count keys %v), want the count node and no counts", labels, keys)
	}
}
