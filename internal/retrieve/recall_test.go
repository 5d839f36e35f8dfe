package retrieve_test

import (
	"context"
	"flag"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/contractgraph/contractgraph/internal/eval"
	"github.com/contractgraph/contractgraph/internal/graph/sqlite"
	"github.com/contractgraph/contractgraph/internal/retrieve"
	"github.com/contractgraph/contractgraph/internal/sharedtest"
)

var (
	cuadAll   = flag.Bool("cuad-recall", false, "measure clause-search recall@5 on all shared CUAD contracts (slow)")
	cuadChunk = flag.Int("cuad-chunk", retrieve.DefaultMaxChunkBytes, "max chunk bytes for the CUAD recall measurement")
)

// TestCUADClauseSearchRecall measures recall@5 of BM25 clause search with
// eval.Retrieval (the measurement `contractgraph eval retrieval` runs):
// for each CUAD contract and each category annotated in it, the query
// built from the category's description, restricted to that contract, must
// return among its first five passages one that overlaps an annotated span
// of that category. The contracts are stored with text and chunks only (no
// clauses), as raw ingested documents are. By default a sample of 8
// contracts is measured (3 under -race); -cuad-recall measures all of
// them.
func TestCUADClauseSearchRecall(t *testing.T) {
	set, err := eval.ReadRetrievalSet(filepath.Join(sharedtest.Dir(t), "data", "cuad"))
	if err != nil {
		t.Fatal(err)
	}
	if len(set.Queries) != 41 {
		t.Fatalf("%d category descriptions, want 41", len(set.Queries))
	}
	files := make([]string, 0, len(set.Spans))
	for f := range set.Spans {
		files = append(files, f)
	}
	slices.Sort(files)
	sample := 8
	if raceEnabled {
		sample = 3
	}
	if !*cuadAll && len(files) > sample {
		files = files[:sample]
	}
	store, err := sqlite.Open(filepath.Join(t.TempDir(), "cuad.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	rep, err := eval.Retrieval(context.Background(), store, set, eval.RetrievalOptions{Files: files, K: 5, Chunk: retrieve.ChunkOptions{Max: *cuadChunk}})
	if err != nil {
		t.Fatal(err)
	}
	var table strings.Builder
	if err := eval.WriteRetrievalMarkdown(&table, rep); err != nil {
		t.Fatal(err)
	}
	t.Logf("\n%s", table.String())
	if rep.Contracts != len(files) || rep.Queries == 0 {
		t.Fatalf("measured %d contracts and %d queries, want %d contracts", rep.Contracts, rep.Queries, len(files))
	}
	if recall := rep.Overall[0].Recall; recall < 0.5 {
		t.Errorf("recall@5 = %.3f, below 0.5", recall)
	}
}
