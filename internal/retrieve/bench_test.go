package retrieve_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/contractgraph/contractgraph/internal/contract"
	"github.com/contractgraph/contractgraph/internal/graph"
	"github.com/contractgraph/contractgraph/internal/graph/graphtest"
	"github.com/contractgraph/contractgraph/internal/graph/sqlite"
	"github.com/contractgraph/contractgraph/internal/retrieve"
	"github.com/contractgraph/contractgraph/internal/synth"
)

// benchQueries are issue 12's five clause_search queries and the
// repository's x-clause.
var benchQueries = []string{
	"terminate for convenience",
	"limitation of liability consequential damages",
	"exclusive distributor territory",
	"governing law New York",
	"non-solicitation employees",
	"termination for convenience written notice",
}

var bench100k struct {
	once  sync.Once
	dir   string
	store *sqlite.Store
	err   error
}

func TestMain(m *testing.M) {
	code := m.Run()
	if bench100k.store != nil {
		bench100k.store.Close()
	}
	if bench100k.dir != "" {
		os.RemoveAll(bench100k.dir)
	}
	os.Exit(code)
}

// store100k is a 100,000-contract synthetic store (synth seed 1), built
// once per process in a temporary directory.
func store100k(b *testing.B) *sqlite.Store {
	b.Helper()
	if testing.Short() {
		b.Skip("100k benchmark skipped in -short mode")
	}
	bench100k.once.Do(func() {
		dir, err := os.MkdirTemp("", "contractgraph-bench-")
		bench100k.dir = dir
		if err != nil {
			bench100k.err = err
			return
		}
		s, err := sqlite.Open(filepath.Join(dir, "synth.db"))
		if err != nil {
			bench100k.err = err
			return
		}
		err = graphtest.PutAll(context.Background(), s, func(yield func(*contract.Contract) error) error {
			return synth.Generate(1, 100_000, yield)
		})
		bench100k.store, bench100k.err = s, err
	})
	if bench100k.err != nil {
		b.Fatal(bench100k.err)
	}
	return bench100k.store
}

// BenchmarkClauseSearchStages100k measures clause_search's default path
// before this stage work (the store's BM25 alone) and with each retrieval
// stage, on the 100k synthetic store, interleaving the variants query by
// query so that a busy machine slows them alike. It reports the p50 and
// p95 latency of each variant over all queries and rounds.
//
//	go test ./internal/retrieve -run '^$' -bench ClauseSearchStages100k -benchtime 5x -timeout 60m
func BenchmarkClauseSearchStages100k(b *testing.B) {
	store := store100k(b)
	ctx := context.Background()
	type variant struct {
		name   string
		search func(context.Context, graph.ClauseQuery) ([]graph.ClauseHit, error)
	}
	th := retrieve.DefaultThesaurus()
	variants := []variant{
		{"bm25", store.SearchClauses},
		{"expand", retrieve.New(store, retrieve.Options{Expander: th, ExpandUnscoped: true}).Search},
		{"rerank", retrieve.New(store, retrieve.Options{Reranker: retrieve.Lexical{}}).Search},
		{"expand+rerank+dedup", retrieve.New(store, retrieve.Options{Expander: th, ExpandUnscoped: true, Reranker: retrieve.Lexical{}, Dedup: true}).Search},
		// The default (cmd/contractgraph/stages.go): unscoped queries are
		// not expanded, so this is the depth-50 search and Dedup.
		{"default", retrieve.New(store, retrieve.Options{Expander: th, Dedup: true}).Search},
		{"rerank+dedup", retrieve.New(store, retrieve.Options{Reranker: retrieve.Lexical{}, Dedup: true}).Search},
		{"rerank+dedup+sections", retrieve.New(store, retrieve.Options{Reranker: retrieve.Lexical{}, Dedup: true, Sections: true}).Search},
	}
	lat := make([][]time.Duration, len(variants))
	for b.Loop() {
		for _, q := range benchQueries {
			for i, v := range variants {
				start := time.Now()
				if _, err := v.search(ctx, graph.ClauseQuery{Query: q, Limit: 5}); err != nil {
					b.Fatalf("%s %q: %v", v.name, q, err)
				}
				lat[i] = append(lat[i], time.Since(start))
			}
		}
	}
	for i, v := range variants {
		slices.Sort(lat[i])
		p := func(q float64) float64 {
			return float64(lat[i][int(q*float64(len(lat[i])-1))]) / float64(time.Millisecond)
		}
		b.ReportMetric(p(0.50), v.name+"-p50-ms")
		b.ReportMetric(p(0.95), v.name+"-p95-ms")
	}
	b.ReportMetric(0, "ns/op")
}
