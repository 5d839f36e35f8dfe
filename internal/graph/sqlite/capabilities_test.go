package sqlite

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/contractgraph/contractgraph/internal/contract"
	"github.com/contractgraph/contractgraph/internal/graph"
)

func putAll(t *testing.T, s *Store, cs ...*contract.Contract) {
	t.Helper()
	out, err := s.PutContracts(context.Background(), cs)
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range out {
		if o.Status == graph.PutFailed {
			t.Fatalf("put %s: %v", o.ID, o.Err)
		}
	}
}

func TestSearchVectors(t *testing.T) {
	s := openTemp(t)
	text := "alpha beta gamma"
	putAll(t, s,
		&contract.Contract{ID: "a", Text: text, Chunks: []contract.Chunk{
			{Ord: 0, Text: "alpha", Start: 0, End: 5, Embedding: []float32{1, 0, 0}},
			{Ord: 1, Text: "beta", Start: 6, End: 10, Embedding: []float32{0.6, 0.8, 0}},
			{Ord: 2, Text: "gamma", Start: 11, End: 16}, // no embedding
		}},
		&contract.Contract{ID: "b", Text: text, Chunks: []contract.Chunk{
			{Ord: 0, Text: "alpha", Start: 0, End: 5, Embedding: []float32{0, 0, 1}},
			{Ord: 1, Text: "beta", Start: 6, End: 10, Embedding: []float32{1, 1}}, // other dimension
		}},
	)
	ctx := context.Background()
	hits, err := s.SearchVectors(ctx, graph.VectorQuery{Vector: []float32{2, 0, 0}, Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	type hit struct {
		ID    string
		Start int
		Score float64
	}
	var got []hit
	for _, h := range hits {
		got = append(got, hit{h.ContractID, h.Start, h.Score})
	}
	want := []hit{{"a", 0, 1}, {"a", 6, 0.6}, {"b", 0, 0}}
	if diff := cmp.Diff(want, got, cmp.Comparer(func(x, y float64) bool { return x-y < 1e-6 && y-x < 1e-6 })); diff != "" {
		t.Errorf("hits (-want +got):\n%s", diff)
	}
	hits, err = s.SearchVectors(ctx, graph.VectorQuery{Vector: []float32{0, 0, 1}, Filter: graph.Filter{ContractIDs: []string{"a"}}, Limit: 1})
	if err != nil || len(hits) != 1 || hits[0].ContractID != "a" || !hits[0].Verified {
		t.Errorf("restricted search = %+v, %v", hits, err)
	}
	if _, err := s.SearchVectors(ctx, graph.VectorQuery{Vector: []float32{0, 0}, Limit: 1}); err == nil {
		t.Error("zero vector accepted")
	}
}
