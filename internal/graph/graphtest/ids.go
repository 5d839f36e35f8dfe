package graphtest

import (
	"context"
	"slices"
	"testing"

	"github.com/contractgraph/contractgraph/internal/contract"
	"github.com/contractgraph/contractgraph/internal/graph"
)

// RunContractIDs checks graph.ContractIDLister on the fixture plus two ids
// that share a prefix with non-ASCII letters: prefixes select exactly the
// ids that start with them, in byte order, bounded by the limit.
func RunContractIDs(t *testing.T, open func(t *testing.T) graph.Store) {
	ctx := context.Background()
	s := open(t)
	t.Cleanup(func() { s.Close() })
	lister, ok := s.(graph.ContractIDLister)
	if !ok {
		t.Fatalf("%T does not implement graph.ContractIDLister", s)
	}
	extra := []*contract.Contract{{ID: "Zürich-2"}, {ID: "Zürich-10"}, {ID: "Zz"}}
	if _, err := s.PutContracts(ctx, append(Fixture(), extra...)); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		prefix string
		limit  int
		want   []string
	}{
		{"c1", 0, []string{"c10", "c11", "c12"}},
		{"c0", 3, []string{"c01", "c02", "c03"}},
		{"Zü", 10, []string{"Zürich-10", "Zürich-2"}},
		{"Z", 10, []string{"Zz", "Zürich-10", "Zürich-2"}},
		{"x", 10, []string{}},
		{"", 2, []string{"Zz", "Zürich-10"}},
	}
	for _, tt := range tests {
		got, err := lister.ContractIDs(ctx, tt.prefix, tt.limit)
		if err != nil {
			t.Fatalf("ContractIDs(%q, %d): %v", tt.prefix, tt.limit, err)
		}
		if !slices.Equal(got, tt.want) {
			t.Errorf("ContractIDs(%q, %d) = %q, want %q", tt.prefix, tt.limit, got, tt.want)
		}
	}
}
