package neo4j_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/contractgraph/contractgraph/internal/contract"
	"github.com/contractgraph/contractgraph/internal/graph"
	"github.com/contractgraph/contractgraph/internal/graph/graphtest"
	"github.com/contractgraph/contractgraph/internal/graph/neo4j"
	"github.com/contractgraph/contractgraph/internal/graph/neo4j/neo4jtest"
	"github.com/contractgraph/contractgraph/internal/graph/sqlite"
	"github.com/contractgraph/contractgraph/internal/synth"
)

// Ordered by the duration, whose values tie by the dozen, every page
// (within the longest duration's ties, across their end and past them, up
// to the contracts without one, in both directions, with and without
// unverified values) lists the contracts SQLite lists: the ties' plan
// reads the first value's contracts from the composite index with the id
// and the others only when the page needs them (tieSearch).
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
	// ties is how many contracts share the first value of the order, as
	// SQLite lists them.
	ties := func(desc, include bool) int {
		t.Helper()
		r, err := lite.SearchContracts(ctx, graph.ContractQuery{OrderBy: graph.OrderDurationDays, Desc: desc, Limit: 50,
			Filter: graph.Filter{IncludeUnverified: include}})
		if err != nil || len(r.Examples) == 0 || r.Examples[0].DurationDays == nil {
			t.Fatalf("first page: %v, %d examples", err, len(r.Examples))
		}
		n := 0
		for _, e := range r.Examples {
			if e.DurationDays != nil && *e.DurationDays == *r.Examples[0].DurationDays {
				n++
			}
		}
		return n
	}
	checked := 0
	for _, desc := range []bool{true, false} {
		for _, include := range []bool{false, true} {
			// The pages within the first value's ties, across their end
			// (read on past them) and past them all (read as before).
			n := ties(desc, include)
			if n < 1 || n >= 50 {
				t.Errorf("desc=%v include=%v: %d contracts share the first value, want 1 to 49 for pages across them", desc, include, n)
			}
			t.Logf("desc=%v include=%v: %d contracts share the first value", desc, include, n)
			for _, offset := range []int{0, 1, 5, n - 1, n, 30, 200, 395} {
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
	// On this smaller store too, the first page's plan reads the longest
	// duration's contracts up to the page, not all of them.
	sts, err := neo4j.CallStatements(ctx, neo, "contract_search", json.RawMessage(`{"order_by":"duration_days","order":"desc","limit":1}`), fixedNow)
	if err != nil {
		t.Fatal(err)
	}
	for _, st := range sts {
		plan, err := neo.Profile(ctx, st)
		if err != nil {
			t.Fatal(err)
		}
		if st.Name == "examples" && pageRows(plan) > tiePlanRows {
			var b strings.Builder
			writePlan(&b, plan, 1)
			t.Errorf("%s reads %d rows at one operator before its projection, want at most %d:\n%s", st.Name, pageRows(plan), tiePlanRows, b.String())
		}
	}
}
