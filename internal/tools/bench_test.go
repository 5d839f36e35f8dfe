package tools_test

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/contractgraph/contractgraph/internal/contract"
	"github.com/contractgraph/contractgraph/internal/graph"
	"github.com/contractgraph/contractgraph/internal/graph/sqlite"
	"github.com/contractgraph/contractgraph/internal/sharedtest"
	"github.com/contractgraph/contractgraph/internal/synth"
	"github.com/contractgraph/contractgraph/internal/tools"
)

// benchContracts is the size of the synthetic store the dev calls are
// measured on (the target: p95 <= 100 ms at 100,000 contracts).
const benchContracts = 100_000

// synthStore fills a fresh SQLite store with n generated contracts.
func synthStore(b *testing.B, n int) graph.Store {
	b.Helper()
	ctx := context.Background()
	store, err := sqlite.Open(filepath.Join(b.TempDir(), "synth.db"))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { store.Close() })
	start := time.Now()
	batch := make([]*contract.Contract, 0, 1000)
	flush := func() error {
		outs, err := store.PutContracts(ctx, batch)
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
	err = synth.Generate(1, n, func(c *contract.Contract) error {
		batch = append(batch, c)
		if len(batch) == cap(batch) {
			return flush()
		}
		return nil
	})
	if err == nil {
		err = flush()
	}
	if err != nil {
		b.Fatal(err)
	}
	b.Logf("loaded %d synthetic contracts in %s", n, time.Since(start).Round(time.Millisecond))
	return store
}

// BenchmarkDevCalls measures each of the 22 dev calls through tools.Set on
// a 100,000-contract synthetic store and reports its p50 and p95 latency,
// and the p95 of the CPU time a call takes (which, unlike wall time, does
// not grow when other processes keep the cores busy).
//
//	go test ./internal/tools -run '^$' -bench DevCalls
func BenchmarkDevCalls(b *testing.B) {
	shared := sharedtest.Dir(b)
	calls := readDevCalls(b, shared)
	store := synthStore(b, benchContracts)
	set := tools.New(store, tools.Options{Now: func() time.Time { return time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC) }})
	ctx := context.Background()
	for _, c := range calls {
		b.Run(c.ID+"_"+c.Tool, func(b *testing.B) {
			var lat, cpu []time.Duration
			for b.Loop() {
				start := time.Now()
				cpu0, cpuOK := processCPU()
				if _, err := set.Call(ctx, c.Tool, c.Args); err != nil {
					b.Fatalf("%s: %v", c.ID, err)
				}
				lat = append(lat, time.Since(start))
				if cpu1, ok := processCPU(); ok && cpuOK {
					cpu = append(cpu, cpu1-cpu0)
				}
			}
			slices.Sort(lat)
			b.ReportMetric(ms(percentile(lat, 50)), "p50-ms")
			b.ReportMetric(ms(percentile(lat, 95)), "p95-ms")
			if len(cpu) > 0 {
				slices.Sort(cpu)
				b.ReportMetric(ms(percentile(cpu, 95)), "cpu-p95-ms")
			}
			b.ReportMetric(0, "ns/op") // the percentiles say more than the mean
		})
	}
}

func percentile(sorted []time.Duration, p int) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	i := (len(sorted)*p + 99) / 100
	return sorted[min(max(i-1, 0), len(sorted)-1)]
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
