package graphtest

import (
	"context"
	"fmt"

	"github.com/contractgraph/contractgraph/internal/contract"
	"github.com/contractgraph/contractgraph/internal/graph"
)

// PutAll stores every contract gen yields in s, in batches of 1,000, and
// fails on the first contract the store refuses. Benchmarks use it to load
// a synthetic corpus: synth.Generate(seed, n, yield) is such a gen.
func PutAll(ctx context.Context, s graph.Store, gen func(yield func(*contract.Contract) error) error) error {
	batch := make([]*contract.Contract, 0, 1000)
	flush := func() error {
		outs, err := s.PutContracts(ctx, batch)
		if err != nil {
			return err
		}
		for _, o := range outs {
			if o.Status == graph.PutFailed {
				return fmt.Errorf("put %s: %w", o.ID, o.Err)
			}
		}
		batch = batch[:0]
		return nil
	}
	err := gen(func(c *contract.Contract) error {
		batch = append(batch, c)
		if len(batch) == cap(batch) {
			return flush()
		}
		return nil
	})
	if err != nil {
		return err
	}
	return flush()
}
