package importer

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/contractgraph/contractgraph/internal/synth"
)

// BenchmarkReadReference measures parsing and normalising the 510 reference
// contracts (no store).
func BenchmarkReadReference(b *testing.B) {
	path := filepath.Join(sharedDir(b), "data", "legal-tech-chat", "contract_data.json")
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
	dir := filepath.Join(sharedDir(b), "data", "cuad")
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
