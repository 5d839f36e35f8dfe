package tools

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/contractgraph/contractgraph/internal/graph"
)

// fusedSearcher stands in for the hybrid retriever: it records the query
// and answers with its own ranking.
type fusedSearcher struct {
	q    *graph.ClauseQuery
	hits []graph.ClauseHit
}

func (f *fusedSearcher) Search(_ context.Context, q graph.ClauseQuery) ([]graph.ClauseHit, error) {
	f.q = &q
	return f.hits, nil
}

// With Options.Clauses set, clause_search ranks through it (the hybrid
// BM25 + vector searcher in production) with the same validated query the
// store would have seen, and the store's own ranking is not consulted.
func TestClauseSearchUsesConfiguredSearcher(t *testing.T) {
	store := &recorder{}
	fused := &fusedSearcher{hits: []graph.ClauseHit{{ContractID: "c1", ClauseType: "Cap On Liability", Text: "liability shall not exceed", Start: 10, End: 36, Verified: true, Score: 0.03}}}
	set := New(store, Options{Now: fixedNow, Clauses: fused})

	out, err := set.Call(context.Background(), NameClauseSearch, json.RawMessage(`{"query":"limitation of liability","contract_id":"c1","clause_types":["cap on liability"],"limit":3}`))
	if err != nil {
		t.Fatal(err)
	}
	if store.clauseQ != nil {
		t.Errorf("store.SearchClauses was called with %+v; want the configured searcher only", *store.clauseQ)
	}
	if fused.q == nil {
		t.Fatal("configured searcher not called")
	}
	if fused.q.Query != "limitation of liability" || fused.q.Limit != 3 ||
		!cmp.Equal(fused.q.ClauseTypes, []string{"Cap On Liability"}) || !cmp.Equal(fused.q.Filter.ContractIDs, []string{"c1"}) {
		t.Errorf("searcher got %+v", *fused.q)
	}
	var res ClauseResult
	if err := json.Unmarshal(out, &res); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(fused.hits, res.Passages); diff != "" {
		t.Errorf("passages differ from the searcher's ranking (-want +got):\n%s", diff)
	}
}
