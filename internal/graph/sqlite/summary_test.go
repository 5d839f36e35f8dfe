package sqlite

import (
	"context"
	"slices"
	"testing"

	"github.com/contractgraph/contractgraph/internal/contract"
	"github.com/contractgraph/contractgraph/internal/graph"
)

// Summary vectors: backfilled like chunk vectors, searched among the
// contracts a filter matches, stale once the summary changes, and ORed
// with summary_search's words through Filter.SummaryIDs.
func TestSummaryVectors(t *testing.T) {
	ctx := context.Background()
	s := openTemp(t)
	mk := func(id, title, summary string) *contract.Contract {
		return &contract.Contract{ID: id, Title: title, Summary: summary, ContractType: "Service"}
	}
	cs := []*contract.Contract{
		mk("hosting", "Hosting Agreement", "Cloud hosting of the hospital's patient records."),
		mk("supply", "Supply Agreement", "Supply of surgical gloves to clinics."),
		mk("lease", "Equipment Lease", "Lease of forklifts."),
		mk("blank", "", ""),
	}
	cs[2].ContractType = "Supply"
	if _, err := s.PutContracts(ctx, cs); err != nil {
		t.Fatal(err)
	}
	const model = "test:e5"
	count := func() graph.EmbeddingCount {
		t.Helper()
		c, err := s.CountEmbeddings(ctx, graph.EmbedSummaries, model)
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	if c := count(); c.Total != 3 || c.Embedded != 0 {
		t.Fatalf("count before = %+v, want 3 texts (the blank contract has none), 0 embedded", c)
	}
	page, err := s.MissingEmbeddings(ctx, graph.EmbeddingQuery{Kind: graph.EmbedSummaries, Model: model, Limit: 2})
	if err != nil {
		t.Fatal(err)
	}
	if len(page.Items) != 2 || page.Items[0].Text != "Hosting Agreement\nCloud hosting of the hospital's patient records." {
		t.Fatalf("first page = %+v", page)
	}
	rest, err := s.MissingEmbeddings(ctx, graph.EmbeddingQuery{Kind: graph.EmbedSummaries, Model: model, After: page.Next, Limit: 2})
	if err != nil {
		t.Fatal(err)
	}
	if len(rest.Items) != 1 || rest.Items[0].Text != "Equipment Lease\nLease of forklifts." {
		t.Fatalf("second page = %+v", rest)
	}
	items := append(page.Items, rest.Items...)
	// Hosting is nearest the query [1 0], lease farthest.
	vecs := [][]float32{{1, 0.1}, {0.5, 0.5}, {0, 1}}
	if n, err := s.PutEmbeddings(ctx, graph.EmbedSummaries, model, items, vecs); err != nil || n != 3 {
		t.Fatalf("put = %d, %v; want 3", n, err)
	}
	if c := count(); c.Embedded != 3 {
		t.Fatalf("count after = %+v", c)
	}
	search := func(f graph.Filter) []string {
		t.Helper()
		hits, err := s.SearchSummaryVectors(ctx, graph.VectorQuery{Vector: []float32{1, 0}, Filter: f, Model: model, Limit: 10})
		if err != nil {
			t.Fatal(err)
		}
		var ids []string
		for i, h := range hits {
			if i > 0 && h.Score > hits[i-1].Score {
				t.Errorf("hits out of order: %+v", hits)
			}
			ids = append(ids, h.ContractID)
		}
		return ids
	}
	if got := search(graph.Filter{}); !slices.Equal(got, []string{"hosting", "supply", "lease"}) {
		t.Errorf("search = %v", got)
	}
	if got := search(graph.Filter{ContractType: "Supply"}); !slices.Equal(got, []string{"lease"}) {
		t.Errorf("search among leases = %v", got)
	}
	if _, err := s.SearchSummaryVectors(ctx, graph.VectorQuery{Vector: []float32{1, 0}, Model: "other:model", Limit: 10}); err != nil {
		t.Fatal(err)
	}
	// A changed summary makes its vector stale: missing again, and never
	// searched with the old meaning.
	cs[0].Summary = "Software development for banks."
	if _, err := s.PutContracts(ctx, cs[:1]); err != nil {
		t.Fatal(err)
	}
	if c := count(); c.Embedded != 2 {
		t.Errorf("count after a summary change = %+v, want 2 embedded", c)
	}
	if got := search(graph.Filter{}); slices.Contains(got, "hosting") {
		t.Errorf("search = %v: a stale vector was searched", got)
	}
	// A vector listed before its text changed is not written.
	if n, err := s.PutEmbeddings(ctx, graph.EmbedSummaries, model, items[:1], vecs[:1]); err != nil || n != 0 {
		t.Errorf("put of a stale text = %d, %v; want 0", n, err)
	}
	// By words or by meaning.
	res, err := s.SearchContracts(ctx, graph.ContractQuery{Filter: graph.Filter{SummarySearch: "gloves", SummaryIDs: []string{"lease"}}, Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range res.Examples {
		got = append(got, e.ContractID)
	}
	slices.Sort(got)
	if !slices.Equal(got, []string{"lease", "supply"}) || res.TotalCount != 2 {
		t.Errorf("summary_search with ids = %d %v, want lease and supply", res.TotalCount, got)
	}
	if _, err := s.DeleteContracts(ctx, []string{"lease"}); err != nil {
		t.Fatal(err)
	}
	if c := count(); c.Total != 2 || c.Embedded != 1 {
		t.Errorf("count after delete = %+v, want 2 texts, 1 embedded", c)
	}
}
