package tools_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/contractgraph/contractgraph/internal/graph"
	"github.com/contractgraph/contractgraph/internal/graph/graphtest"
	"github.com/contractgraph/contractgraph/internal/graph/sqlite"
	"github.com/contractgraph/contractgraph/internal/tools"
)

// fixtureToolSet is the tool set over an embedded store holding
// graphtest.Fixture.
func fixtureToolSet(t *testing.T) *tools.Set {
	t.Helper()
	store, err := sqlite.Open(filepath.Join(t.TempDir(), "fixture.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	if _, err := store.PutContracts(context.Background(), graphtest.Fixture()); err != nil {
		t.Fatal(err)
	}
	return tools.New(store, tools.Options{})
}

// TestContractSearchPaging pages through contract_search on a real store
// with offset: the pages put together are the one-page answer, in order,
// each contract once, even where the ordering ties (party_count).
func TestContractSearchPaging(t *testing.T) {
	ctx := context.Background()
	set := fixtureToolSet(t)
	call := func(args string) graph.ContractResult {
		t.Helper()
		out, err := set.Call(ctx, tools.NameContractSearch, json.RawMessage(args))
		if err != nil {
			t.Fatalf("contract_search %s: %v", args, err)
		}
		var r graph.ContractResult
		if err := json.Unmarshal(out, &r); err != nil {
			t.Fatal(err)
		}
		return r
	}
	ids := func(r graph.ContractResult) []string {
		out := []string{}
		for _, e := range r.Examples {
			out = append(out, e.ContractID)
		}
		return out
	}
	all := call(`{"order_by":"party_count","limit":50}`)
	if all.TotalCount != 12 {
		t.Fatalf("total_count = %d, want the fixture's 12", all.TotalCount)
	}
	var paged []string
	for _, args := range []string{
		`{"order_by":"party_count","limit":5}`,
		`{"order_by":"party_count","limit":5,"offset":5}`,
		`{"order_by":"party_count","limit":5,"offset":10}`,
		`{"order_by":"party_count","limit":5,"offset":15}`,
	} {
		r := call(args)
		if r.TotalCount != all.TotalCount {
			t.Errorf("%s: total_count = %d, want %d", args, r.TotalCount, all.TotalCount)
		}
		paged = append(paged, ids(r)...)
	}
	if diff := cmp.Diff(ids(all), paged); diff != "" {
		t.Errorf("pages put together (-one page +pages):\n%s", diff)
	}
}
