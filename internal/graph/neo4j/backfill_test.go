package neo4j_test

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/contractgraph/contractgraph/internal/contract"
	"github.com/contractgraph/contractgraph/internal/graph"
	"github.com/contractgraph/contractgraph/internal/graph/neo4j/neo4jtest"
)

// TestEmbeddingBackfillAcrossWindows: MissingEmbeddings reads contracts a
// window of 500 at a time; chunks lacking a vector are found in the first,
// a middle and the last window, and pages that end inside a contract
// continue in it.
func TestEmbeddingBackfillAcrossWindows(t *testing.T) {
	s := neo4jtest.Open(t)
	ctx := context.Background()
	lacking := map[int]bool{3: true, 700: true, 1199: true}
	// Five chunks lie 5 to 25 degrees from the query; every other vector is
	// far from it, so an approximate (HNSW) index and the exact
	// scan must return the same five in the same order. Near-ties would let
	// the index legitimately disagree with the scan.
	near := map[int]float64{100: 5, 400: 10, 650: 15, 900: 20, 1150: 25}
	// Far vectors are distinct (exact duplicates degrade an HNSW graph,
	// which real embeddings never have) and lean a little towards the
	// query, as real ones do, so that the graph leads to it: their cosine
	// with the query stays below about 0.4, the near five's above 0.9.
	rng := rand.New(rand.NewPCG(1, 2))
	far := func(int, int) []float32 {
		v := []float32{float32(0.3 * math.Abs(rng.NormFloat64())), 0, 0, 0, 0, 0, 0, 0}
		for d := 1; d < len(v); d++ {
			v[d] = float32(rng.NormFloat64())
		}
		return v
	}
	nearVec := func(deg float64) []float32 {
		r := deg * math.Pi / 180
		return []float32{float32(math.Cos(r)), float32(math.Sin(r)), 0, 0, 0, 0, 0, 0}
	}
	var cs []*contract.Contract
	var want []string
	for i := range 1200 {
		text := fmt.Sprintf("Contract %d. First part. Second part.", i)
		c := &contract.Contract{ID: fmt.Sprintf("k%04d", i), Text: text, Chunks: []contract.Chunk{
			{Ord: 0, Text: text[:len(text)-14], Start: 0, End: len(text) - 14},
			{Ord: 1, Text: text[len(text)-12:], Start: len(text) - 12, End: len(text)},
		}}
		for j := range c.Chunks {
			if lacking[i] {
				want = append(want, c.ID+": "+c.Chunks[j].Text)
				continue
			}
			c.Chunks[j].Embedding, c.Chunks[j].EmbeddingModel = far(i, j), "m1"
			if deg, ok := near[i]; ok && j == 0 {
				c.Chunks[j].Embedding = nearVec(deg)
			}
		}
		cs = append(cs, c)
	}
	if _, err := s.PutContracts(ctx, cs); err != nil {
		t.Fatal(err)
	}
	var got []string
	after := ""
	for pages := 0; ; pages++ {
		if pages > 10 {
			t.Fatal("the walk does not end")
		}
		page, err := s.MissingEmbeddings(ctx, graph.EmbeddingQuery{Kind: graph.EmbedChunks, Model: "m1", After: after, Limit: 4})
		if err != nil {
			t.Fatal(err)
		}
		if len(page.Items) == 0 {
			break
		}
		// Keys are "ord:contract id".
		for _, it := range page.Items {
			_, id, _ := cutKey(it.Key)
			got = append(got, id+": "+it.Text)
		}
		after = page.Next
	}
	if !slices.Equal(got, want) {
		t.Errorf("the walk found\n%q\nwant\n%q", got, want)
	}
	if c, err := s.CountEmbeddings(ctx, graph.EmbedChunks, "m1"); err != nil || c != (graph.EmbeddingCount{Total: 2400, Embedded: 2394}) {
		t.Errorf("count = %+v, %v", c, err)
	}

	// The vector index and the scan agree on the nearest chunks.
	q := graph.VectorQuery{Vector: []float32{1, 0, 0, 0, 0, 0, 0, 0}, Model: "m1", Limit: 5}
	viaIndex, err := s.SearchVectors(ctx, q)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cs {
		q.Filter.ContractIDs = append(q.Filter.ContractIDs, c.ID)
	}
	viaScan, err := s.SearchVectors(ctx, q)
	if err != nil {
		t.Fatal(err)
	}
	key := func(hs []graph.ClauseHit) []string {
		var out []string
		for _, h := range hs {
			out = append(out, fmt.Sprintf("%s@%d", h.ContractID, h.Start))
		}
		return out
	}
	wantNear := []string{"k0100@0", "k0400@0", "k0650@0", "k0900@0", "k1150@0"}
	if !slices.Equal(key(viaIndex), wantNear) || !slices.Equal(key(viaScan), wantNear) {
		t.Errorf("index search %v, scan %v, want %v", key(viaIndex), key(viaScan), wantNear)
	}
	if len(viaScan) == 0 || viaScan[0].Score > 1.000001 || viaScan[0].Score < 0.99 {
		t.Errorf("top score %v is not a cosine similarity near 1", viaScan[0].Score)
	}
}

func cutKey(key string) (string, string, bool) {
	for i := range len(key) {
		if key[i] == ':' {
			return key[:i], key[i+1:], true
		}
	}
	return "", "", false
}
