package graph_test

import (
	"testing"

	"github.com/contractgraph/contractgraph/internal/contract"
	"github.com/contractgraph/contractgraph/internal/graph"
	"github.com/contractgraph/contractgraph/internal/graph/graphtest"
	"github.com/contractgraph/contractgraph/internal/synth"
)

// The bounds from a prepared contract are the bounds of its contract, with
// and without unverified timeline values.
func TestPreparedDeadlineBounds(t *testing.T) {
	cs := append(graphtest.Fixture(), graphtest.UnverifiedContract())
	if err := synth.Generate(3, 200, func(c *contract.Contract) error { cs = append(cs, c); return nil }); err != nil {
		t.Fatal(err)
	}
	withUnverified := 0
	for _, c := range cs {
		p, err := graph.Prepare(c)
		if err != nil {
			t.Fatal(err)
		}
		if len(p.Unverified) > 0 {
			withUnverified++
		}
		f1, l1 := graph.DeadlineBounds(p.Contract)
		f2, l2 := p.DeadlineBounds()
		if f1 != f2 || l1 != l2 {
			t.Errorf("%s: Prepared.DeadlineBounds = %q, %q, want %q, %q", c.ID, f2, l2, f1, l1)
		}
	}
	if withUnverified == 0 {
		t.Error("no contract with unverified values")
	}
}
