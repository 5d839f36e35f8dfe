package neo4j_test

import (
	"context"
	"path/filepath"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/contractgraph/contractgraph/internal/contract"
	"github.com/contractgraph/contractgraph/internal/graph"
	"github.com/contractgraph/contractgraph/internal/graph/graphtest"
	"github.com/contractgraph/contractgraph/internal/graph/neo4j/neo4jtest"
	"github.com/contractgraph/contractgraph/internal/graph/sqlite"
	"github.com/contractgraph/contractgraph/internal/synth"
)

// Ordered by the duration, whose values tie by the dozen, every page
// (past the longest duration's ties too, in both directions, with and
// without unverified values) lists the contracts SQLite lists: the ties'
// plan reads the first value's contracts from the composite index with
// the id and the others only when the page needs them.
func TestDurationOrderMatchesSQLite(t *testing.T) {
	ctx := context.Background()
	var cs []*contract.Contract
	if err := synth.Generate(3, 400, func(c *contract.Contract) error { cs = append(cs, c); return nil }); err != nil {
		t.Fatal(err)
	}
	// An unverified contract with the longest duration of all.
	u := graphtest.UnverifiedContract()
	days := 1 << 20
	u.DurationDays = &days
	cs = append(cs, u)
	lite, err := sqlite.Open(filepath.Join(t.TempDir(), "graph.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer lite.Close()
	neo := neo4jtest.Open(t)
	for _, s := range []graph.Store{lite, neo} {
		put(t, s, cs, graph.PutCreated)
	}
	ids := func(s graph.Store, q graph.ContractQuery) []string {
		t.Helper()
		r, err := s.SearchContracts(ctx, q)
		if err != nil {
			t.Fatalf("%+v: %v", q, err)
		}
		out := []string{}
		for _, e := range r.Examples {
			out = append(out, e.ContractID)
		}
		return out
	}
	checked := 0
	for _, desc := range []bool{true, false} {
		for _, include := range []bool{false, true} {
			for _, offset := range []int{0, 1, 5, 30, 200} {
				for _, limit := range []int{1, 7, 50} {
					q := graph.ContractQuery{OrderBy: graph.OrderDurationDays, Desc: desc, Offset: offset, Limit: limit,
						Filter: graph.Filter{IncludeUnverified: include}}
					want, got := ids(lite, q), ids(neo, q)
					if diff := cmp.Diff(want, got); diff != "" {
						t.Errorf("desc=%v include=%v offset=%d limit=%d (-sqlite +neo4j):\n%s", desc, include, offset, limit, diff)
					}
					if include && desc && offset == 0 && !slices.Contains(got, u.ID) {
						t.Errorf("include unverified: %v lacks %s, the longest", got, u.ID)
					}
					checked++
				}
			}
		}
	}
	t.Logf("%d pages compared", checked)
}
