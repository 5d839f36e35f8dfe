package sqlite

import (
	"context"
	"path/filepath"
	"reflect"
	"slices"
	"testing"

	"github.com/contractgraph/contractgraph/internal/contract"
	"github.com/contractgraph/contractgraph/internal/graph"
	"github.com/contractgraph/contractgraph/internal/graph/graphtest"
	"github.com/contractgraph/contractgraph/internal/synth"
)

// TestConformanceDeferred runs the conformance suite on stores whose
// deferrable indexes are dropped (as during a bulk import into an empty
// store): every write and query must stand without them. It fails when a
// statement or trigger names one of them (INDEXED BY).
func TestConformanceDeferred(t *testing.T) {
	graphtest.Run(t, func(t *testing.T) graph.Store {
		s := openConformance(t).(*Store)
		deferred, err := s.DeferIndexes(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if !deferred {
			t.Fatal("DeferIndexes on an empty store deferred nothing")
		}
		return s
	})
}

// indexDefs are the store's index definitions by name.
func indexDefs(t *testing.T, s *Store) map[string]string {
	t.Helper()
	rows, err := s.wdb.Query(`SELECT name, sql FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	defs := map[string]string{}
	for rows.Next() {
		var name, q string
		if err := rows.Scan(&name, &q); err != nil {
			t.Fatal(err)
		}
		defs[name] = q
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return defs
}

func pendingIndexes(t *testing.T, s *Store) int {
	t.Helper()
	var n int
	if err := s.wdb.QueryRow(`SELECT count(*) FROM deferred_indexes`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// TestDeferIndexes checks that DeferIndexes drops exactly the deferrable
// indexes of an empty store, that BuildIndexes makes them again as the
// migrations defined them, with progress from the first to the last, and
// that the indexes are used again: the store answers as one that kept them
// all along. A store with contracts, or already deferred, is left alone.
func TestDeferIndexes(t *testing.T) {
	ctx := context.Background()
	var cs []*contract.Contract
	if err := synth.Generate(5, 80, func(c *contract.Contract) error { cs = append(cs, c); return nil }); err != nil {
		t.Fatal(err)
	}
	kept := openTemp(t)
	want := indexDefs(t, kept)
	putAll(t, kept, cs...)

	s := openTemp(t)
	deferred, err := s.DeferIndexes(ctx)
	if err != nil || !deferred {
		t.Fatalf("DeferIndexes = %v, %v; want true", deferred, err)
	}
	defs := indexDefs(t, s)
	for name := range want {
		if _, has := defs[name]; has == slices.Contains(deferrableIndexes, name) {
			t.Errorf("index %s: present %v after DeferIndexes", name, has)
		}
	}
	if again, err := s.DeferIndexes(ctx); err != nil || again {
		t.Errorf("DeferIndexes again = %v, %v; want false", again, err)
	}
	putAll(t, s, cs...)
	var seen []Progress
	if err := s.BuildIndexes(ctx, func(p Progress) { seen = append(seen, p) }); err != nil {
		t.Fatal(err)
	}
	if got := indexDefs(t, s); !mapsEqual(got, want) {
		t.Errorf("indexes after BuildIndexes:\n%v\nwant\n%v", got, want)
	}
	n := int64(len(deferrableIndexes))
	if int64(len(seen)) != n+1 || seen[0] != (Progress{Step: StepIndexes, Total: n}) || seen[n] != (Progress{Step: StepIndexes, Done: n, Total: n}) {
		t.Errorf("progress %+v; want 0 to %d of %d", seen, n, n)
	}
	if pendingIndexes(t, s) != 0 {
		t.Error("indexes still recorded as deferred after BuildIndexes")
	}
	if err := s.BuildIndexes(ctx, func(p Progress) { t.Errorf("BuildIndexes with nothing to build reported %+v", p) }); err != nil {
		t.Fatal(err)
	}
	for _, q := range []graph.ContractQuery{
		{Filter: graph.Filter{ContractType: "Service"}, Limit: 50},
		{Filter: graph.Filter{GoverningLawState: "DE"}, Limit: 50},
	} {
		a, err := kept.SearchContracts(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		b, err := s.SearchContracts(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		if a.TotalCount == 0 || !reflect.DeepEqual(a, b) {
			t.Errorf("%+v: %d contracts with the indexes built at the end, %d kept all along (or other examples)", q.Filter, b.TotalCount, a.TotalCount)
		}
	}
	if again, err := kept.DeferIndexes(ctx); err != nil || again {
		t.Errorf("DeferIndexes on a store with contracts = %v, %v; want false", again, err)
	}
	if got := indexDefs(t, kept); !mapsEqual(got, want) {
		t.Error("DeferIndexes on a store with contracts changed its indexes")
	}
}

// TestOpenBuildsDeferredIndexes checks that a store left with deferred
// indexes (an import killed before it built them) gets them on the next
// Open, which says so through Progress.
func TestOpenBuildsDeferredIndexes(t *testing.T) {
	path := filepath.Join(t.TempDir(), "graph.db")
	s, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	want := indexDefs(t, s)
	if _, err := s.DeferIndexes(context.Background()); err != nil {
		t.Fatal(err)
	}
	putAll(t, s, indexTestContracts(t, 3, 12)...)
	s.Close()

	s, seen := openWatched(t, path)
	defer s.Close()
	if got := indexDefs(t, s); !mapsEqual(got, want) {
		t.Errorf("indexes after Open:\n%v\nwant\n%v", got, want)
	}
	if pendingIndexes(t, s) != 0 {
		t.Error("indexes still recorded as deferred after Open")
	}
	n := int64(len(deferrableIndexes))
	if len(seen) == 0 || seen[0] != (Progress{Step: StepIndexes, Total: n}) || seen[len(seen)-1] != (Progress{Step: StepIndexes, Done: n, Total: n}) {
		t.Errorf("progress %+v; want building indexes from 0 to %d", seen, n)
	}
}

func mapsEqual(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}
