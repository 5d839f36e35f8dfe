package demo

import (
	"context"
	"errors"
	"fmt"

	"github.com/contractgraph/contractgraph/internal/contract"
	"github.com/contractgraph/contractgraph/internal/graph"
	"github.com/contractgraph/contractgraph/internal/synth"
)

// Options size the demo corpus.
type Options struct {
	Contracts int   // generated contracts besides the samples; DefaultContracts when 0, none when negative
	Seed      int64 // generator seed; the same seed gives the same corpus
	// Progress, when set, is called after each batch is stored with the
	// number of contracts stored so far and the number Build will store.
	Progress func(done, total int)
}

// DefaultContracts is the size of the generated part of the demo corpus.
const DefaultContracts = 2000

// DefaultSeed is the generator seed of the demo corpus.
const DefaultSeed = 7

// Summary says what Build stored.
type Summary struct {
	Samples   int `json:"samples"`
	Generated int `json:"generated"`
}

// batchSize is the number of contracts written per PutContracts call.
const batchSize = 500

// Build writes the sample contracts and a generated corpus into store.
func Build(ctx context.Context, store graph.Store, opts Options) (Summary, error) {
	var sum Summary
	samples, err := Samples()
	if err != nil {
		return sum, err
	}
	n := opts.Contracts
	if n == 0 {
		n = DefaultContracts
	}
	total := len(samples) + max(n, 0)
	progress := func() {
		if opts.Progress != nil {
			opts.Progress(sum.Samples+sum.Generated, total)
		}
	}
	if err := put(ctx, store, samples); err != nil {
		return sum, err
	}
	sum.Samples = len(samples)
	progress()
	if n < 0 {
		return sum, nil
	}
	seed := opts.Seed
	if seed == 0 {
		seed = DefaultSeed
	}
	batch := make([]*contract.Contract, 0, batchSize)
	flush := func() error {
		if err := put(ctx, store, batch); err != nil {
			return err
		}
		sum.Generated += len(batch)
		batch = batch[:0]
		progress()
		return nil
	}
	err = synth.Generate(seed, n, func(c *contract.Contract) error {
		batch = append(batch, c)
		if len(batch) == batchSize {
			return flush()
		}
		return nil
	})
	if err != nil {
		return sum, fmt.Errorf("generate demo corpus: %w", err)
	}
	if err := flush(); err != nil {
		return sum, err
	}
	return sum, nil
}

// put writes contracts and turns any per-contract failure into an error:
// the demo data is ours, so a failure is a bug to report, not to skip.
func put(ctx context.Context, store graph.Store, cs []*contract.Contract) error {
	if len(cs) == 0 {
		return nil
	}
	outs, err := store.PutContracts(ctx, cs)
	if err != nil {
		return fmt.Errorf("store demo contracts: %w", err)
	}
	var errs []error
	for _, o := range outs {
		if o.Status == graph.PutFailed {
			errs = append(errs, fmt.Errorf("store demo contract %s: %w", o.ID, o.Err))
		}
	}
	return errors.Join(errs...)
}
