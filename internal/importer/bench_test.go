package importer

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/contractgraph/contractgraph/internal/contract"
	"github.com/contractgraph/contractgraph/internal/graph/sqlite"
	"github.com/contractgraph/contractgraph/internal/sharedtest"
	"github.com/contractgraph/contractgraph/internal/synth"
)

// BenchmarkReadReference measures parsing and normalising the 510 reference
// contracts (no store).
func BenchmarkReadReference(b *testing.B) {
	path := filepath.Join(sharedtest.Dir(b), "data", "legal-tech-chat", "contract_data.json")
	for b.Loop() {
		n := 0
		if err := Read(context.Background(), path, Options{}, func(Record) error { n++; return nil }); err != nil || n != 510 {
			b.Fatal(err, n)
		}
	}
}

// BenchmarkReadCUAD measures reading master_clauses.csv with its 306 texts
// and locating every span.
func BenchmarkReadCUAD(b *testing.B) {
	dir := filepath.Join(sharedtest.Dir(b), "data", "cuad")
	for b.Loop() {
		n := 0
		if err := Read(context.Background(), dir, Options{}, func(Record) error { n++; return nil }); err != nil || n != 306 {
			b.Fatal(err, n)
		}
	}
}

// BenchmarkReadJSONL measures strict decoding and validation of a generated
// corpus, reporting contracts per second.
func BenchmarkReadJSONL(b *testing.B) {
	const n = 10000
	path := filepath.Join(b.TempDir(), "gen.jsonl")
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	if err := synth.WriteJSONL(f, 1, n); err != nil {
		b.Fatal(err)
	}
	f.Close()
	b.ResetTimer()
	for b.Loop() {
		got := 0
		if err := Read(context.Background(), path, Options{}, func(r Record) error {
			if r.Err != nil {
				return r.Err
			}
			got++
			return nil
		}); err != nil || got != n {
			b.Fatal(err, got)
		}
	}
	b.ReportMetric(float64(n*b.N)/b.Elapsed().Seconds(), "contracts/s")
}

// BenchmarkImportReference measures the whole import of the 510 reference
// contracts into a fresh SQLite store, in batches of 500 as the CLI does.
func BenchmarkImportReference(b *testing.B) {
	path := filepath.Join(sharedtest.Dir(b), "data", "legal-tech-chat", "contract_data.json")
	ctx := context.Background()
	for i := 0; b.Loop(); i++ {
		store, err := sqlite.Open(filepath.Join(b.TempDir(), fmt.Sprintf("bench%d.db", i)))
		if err != nil {
			b.Fatal(err)
		}
		var batch []*contract.Contract
		flush := func() error {
			out, err := store.PutContracts(ctx, batch)
			for _, o := range out {
				if o.Err != nil {
					return o.Err
				}
			}
			batch = batch[:0]
			return err
		}
		err = Read(ctx, path, Options{}, func(r Record) error {
			batch = append(batch, r.Contract)
			if len(batch) == 500 {
				return flush()
			}
			return nil
		})
		if err == nil {
			err = flush()
		}
		store.Close()
		if err != nil {
			b.Fatal(err)
		}
	}
}
