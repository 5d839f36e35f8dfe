package sqlite

import (
	"context"
	"errors"
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
	hits, err = s.SearchVectors(ctx, graph.VectorQuery{Vector: []float32{0, 0, 1}, ContractIDs: []string{"a"}, Limit: 1})
	if err != nil || len(hits) != 1 || hits[0].ContractID != "a" || !hits[0].Verified {
		t.Errorf("restricted search = %+v, %v", hits, err)
	}
	if _, err := s.SearchVectors(ctx, graph.VectorQuery{Vector: []float32{0, 0}, Limit: 1}); err == nil {
		t.Error("zero vector accepted")
	}
}

func TestMergeParties(t *testing.T) {
	s := openTemp(t)
	ctx := context.Background()
	putAll(t, s,
		&contract.Contract{ID: "c1", Parties: []contract.PartyRole{
			{Name: "A.B. Watley, Inc.", Role: "Licensee", Location: &contract.Location{Country: "US", State: "NY"}},
			{Name: "Omega Corp", Role: "Licensor"},
		}},
		&contract.Contract{ID: "c2", Parties: []contract.PartyRole{
			{Name: "AB Wately, Inc.", Role: "Customer"},
			{Name: "Omega Corp", Role: "Vendor"},
		}},
	)
	parties, err := s.Parties(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(parties) != 3 {
		t.Fatalf("parties = %+v", parties)
	}
	byName := map[string]graph.PartyInfo{}
	for _, p := range parties {
		byName[p.Name] = p
	}
	watley, wately, omega := byName["A.B. Watley, Inc."], byName["AB Wately, Inc."], byName["Omega Corp"]
	if diff := cmp.Diff([]string{"c1", "c2"}, omega.ContractIDs); diff != "" {
		t.Errorf("omega contracts (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]contract.Location{{Country: "US", State: "NY"}}, watley.Locations); diff != "" || len(watley.Roles) != 1 {
		t.Errorf("watley locations/roles: %s %v", diff, watley.Roles)
	}

	if err := s.MergeParties(ctx, watley.ID, []string{wately.ID, "no-such-party"}); !errors.Is(err, graph.ErrNotFound) {
		t.Fatalf("merge with a missing id: %v", err)
	}
	if after, _ := s.Parties(ctx); len(after) != 3 {
		t.Fatal("a failed merge changed the parties")
	}
	if err := s.MergeParties(ctx, watley.ID, []string{wately.ID}); err != nil {
		t.Fatal(err)
	}
	after, _ := s.Parties(ctx)
	if len(after) != 2 {
		t.Fatalf("parties after merge = %+v", after)
	}
	res, err := s.SearchParties(ctx, graph.PartyQuery{Name: "wately", Limit: 5})
	if err != nil || res.TotalCount != 1 || res.Examples[0].Name != "A.B. Watley, Inc." || res.Examples[0].ContractCount != 2 {
		t.Fatalf("party search after merge = %+v, %v", res, err)
	}
	if diff := cmp.Diff([]string{"AB Wately, Inc."}, res.Examples[0].Aliases); diff != "" {
		t.Errorf("aliases (-want +got):\n%s", diff)
	}
	// A later import of the merged spelling resolves to the canonical party.
	putAll(t, s, &contract.Contract{ID: "c3", Parties: []contract.PartyRole{{Name: "AB Wately, Inc."}}})
	if after, _ := s.Parties(ctx); len(after) != 2 {
		t.Errorf("re-import of an alias created a party: %+v", after)
	}
}
