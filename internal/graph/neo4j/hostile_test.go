package neo4j_test

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/contractgraph/contractgraph/internal/contract"
	"github.com/contractgraph/contractgraph/internal/graph"
	"github.com/contractgraph/contractgraph/internal/graph/neo4j/neo4jtest"
)

// TestHostileNamesAreData stores parties whose names are quotes,
// backslashes and Cypher, and finds them again by those names: every value
// reaches the database as a parameter, never as statement text.
func TestHostileNamesAreData(t *testing.T) {
	s := neo4jtest.Open(t)
	ctx := context.Background()
	names := []string{
		`O'Brien "The Builder" Ltd`,
		`Back\slash\\ Holdings \' Inc`,
		`x'}) DETACH DELETE n //`,
		"MATCH (n) DETACH DELETE n; CREATE (:Pwned)",
		"`Contract` RETURN 1 UNION MATCH (m) SET m.x = 1",
		`"]}); CALL dbms.killQueries([]) //`,
	}
	var cs []*contract.Contract
	for i, n := range names {
		cs = append(cs, &contract.Contract{
			ID: "hostile-" + string(rune('a'+i)), Title: n, ContractType: "Service",
			EffectiveDate: "2020-01-01",
			Parties: []contract.PartyRole{{Name: n, Role: "Vendor", Location: &contract.Location{Country: "US", City: n}},
				{Name: "Acme Corp", Role: "Customer"}},
		})
	}
	put(t, s, cs, graph.PutCreated)
	for i, n := range names {
		res, err := s.SearchContracts(ctx, graph.ContractQuery{Filter: graph.Filter{Parties: []string{n}}, Limit: 10})
		if err != nil {
			t.Fatalf("search %q: %v", n, err)
		}
		if res.TotalCount < 1 {
			t.Errorf("search by party %q: no match", n)
			continue
		}
		found := false
		for _, e := range res.Examples {
			if e.ContractID == cs[i].ID && e.Title == n && e.Parties[0].Name == n {
				found = true
			}
		}
		if !found {
			t.Errorf("search by party %q: %+v does not hold %s with the name intact", n, res.Examples, cs[i].ID)
		}
		ps, err := s.SearchParties(ctx, graph.PartyQuery{Name: n, Limit: 10})
		if err != nil {
			t.Fatalf("party search %q: %v", n, err)
		}
		if len(ps.Examples) == 0 || ps.Examples[0].Name != n {
			t.Errorf("party search %q = %+v", n, ps.Examples)
		}
		got, err := s.GetContract(ctx, cs[i].ID)
		if err != nil {
			t.Fatal(err)
		}
		if got.Parties[0].Name != n || got.Parties[0].Location.City != n {
			t.Errorf("get %s: party %+v, want name and city %q", cs[i].ID, got.Parties[0], n)
		}
	}
	st, err := s.Stats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]int{"Contract": 6, "Party": 7, "Location": 6, "Clause": 0, "Chunk": 0, "Statute": 0}
	if diff := cmp.Diff(want, st.Nodes); diff != "" {
		t.Errorf("nodes after hostile names (-want +got):\n%s", diff)
	}
}
