package retrieve_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/contractgraph/contractgraph/internal/contract"
	"github.com/contractgraph/contractgraph/internal/graph"
	"github.com/contractgraph/contractgraph/internal/graph/sqlite"
	"github.com/contractgraph/contractgraph/internal/llm/llmtest"
	"github.com/contractgraph/contractgraph/internal/retrieve"
)

func TestSearcherHybrid(t *testing.T) {
	ctx := context.Background()
	store, err := sqlite.Open(filepath.Join(t.TempDir(), "g.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	emb := &llmtest.Embedder{Dim: 256}
	text := "1. Confidentiality. Each party shall keep the other's secrets confidential.\n\n" +
		"2. Termination. Either party may terminate on thirty days notice.\n\n" +
		"3. Payment. Customer pays invoices within sixty days."
	c := &contract.Contract{ID: "k1", Text: text, Chunks: retrieve.Chunk(text, retrieve.ChunkOptions{Max: 90, Min: 10})}
	if len(c.Chunks) != 3 {
		t.Fatalf("chunks = %+v", c.Chunks)
	}
	var texts []string
	for _, ch := range c.Chunks {
		texts = append(texts, ch.Text)
	}
	vecs, _, _ := emb.Embed(ctx, texts)
	for i := range c.Chunks {
		c.Chunks[i].Embedding = vecs[i]
	}
	if _, err := store.PutContracts(ctx, []*contract.Contract{c}); err != nil {
		t.Fatal(err)
	}

	q := graph.ClauseQuery{Query: "terminate notice", Filter: graph.Filter{ContractIDs: []string{"k1"}}, Limit: 2}
	bm25 := retrieve.NewSearcher(store, nil, nil)
	if bm25.Hybrid() {
		t.Fatal("BM25-only searcher claims hybrid")
	}
	hybrid := retrieve.NewSearcher(store, emb, nil)
	if !hybrid.Hybrid() {
		t.Fatal("searcher with an embedder over sqlite is not hybrid")
	}
	for name, s := range map[string]*retrieve.Searcher{"bm25": bm25, "hybrid": hybrid} {
		hits, err := s.Search(ctx, q)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if len(hits) == 0 || len(hits) > 2 || hits[0].Start != c.Chunks[1].Start {
			t.Errorf("%s: top hit %+v, want the termination chunk", name, hits)
		}
	}
	calls, _ := emb.Calls()
	if _, err := hybrid.Search(ctx, graph.ClauseQuery{Query: "terminate", ClauseTypes: []string{"Anti-Assignment"}, Limit: 2}); err != nil {
		t.Fatal(err)
	}
	if after, _ := emb.Calls(); after != calls {
		t.Error("a clause-type restricted search embedded the query; it must use BM25 alone")
	}
}
