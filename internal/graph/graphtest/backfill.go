package graphtest

import (
	"context"
	"slices"
	"sort"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/contractgraph/contractgraph/internal/contract"
	"github.com/contractgraph/contractgraph/internal/graph"
)

// testVector is a small deterministic embedding: letter counts of a few
// vowels plus the length, so that texts differ and none is zero.
func testVector(text string) []float32 {
	v := make([]float32, 6)
	for _, r := range text {
		switch r {
		case 'a':
			v[0]++
		case 'e':
			v[1]++
		case 'i':
			v[2]++
		case 'o':
			v[3]++
		case 'u':
			v[4]++
		}
	}
	v[5] = float32(len(text))
	return v
}

// walkMissing lists every text of kind lacking an embedding by model,
// page by page, writing each page's vectors before asking for the next
// (as the backfill does), and returns the texts embedded. stopAfter > 0
// ends the walk after that many pages, as an interrupt would.
func walkMissing(t *testing.T, s graph.EmbeddingBackfiller, kind, model string, limit, stopAfter int) []string {
	t.Helper()
	ctx := context.Background()
	var texts []string
	after := ""
	for pages := 0; stopAfter == 0 || pages < stopAfter; pages++ {
		page, err := s.MissingEmbeddings(ctx, graph.EmbeddingQuery{Kind: kind, Model: model, After: after, Limit: limit})
		if err != nil {
			t.Fatalf("MissingEmbeddings(%s, %s): %v", kind, model, err)
		}
		if len(page.Items) == 0 {
			break
		}
		if len(page.Items) > limit {
			t.Fatalf("MissingEmbeddings returned %d items for limit %d", len(page.Items), limit)
		}
		if pages > 20 {
			t.Fatalf("MissingEmbeddings(%s, %s) does not end: the pages keep coming", kind, model)
		}
		vecs := make([][]float32, len(page.Items))
		for i, it := range page.Items {
			text := it.Text
			if kind == graph.EmbedStatutes {
				if it.Statute == nil {
					t.Fatalf("statute item %q has no statute", it.Key)
				}
				text = it.Statute.ID + " " + it.Statute.Text
			}
			texts = append(texts, text)
			vecs[i] = testVector(text)
		}
		n, err := s.PutEmbeddings(ctx, kind, model, page.Items, vecs)
		if err != nil {
			t.Fatalf("PutEmbeddings: %v", err)
		}
		if n != len(page.Items) {
			t.Errorf("PutEmbeddings wrote %d of %d fresh items", n, len(page.Items))
		}
		after = page.Next
	}
	sort.Strings(texts)
	return texts
}

func countEmbeddings(t *testing.T, s graph.EmbeddingBackfiller, kind, model string) graph.EmbeddingCount {
	t.Helper()
	c, err := s.CountEmbeddings(context.Background(), kind, model)
	if err != nil {
		t.Fatalf("CountEmbeddings(%s, %s): %v", kind, model, err)
	}
	return c
}

// testChunkBackfill: the fixture's c02 has a text and no chunks.
func testChunkBackfill(t *testing.T, s graph.Store) {
	cb, ok := s.(graph.ChunkBackfiller)
	if !ok {
		t.Skipf("%T has no chunk backfill", s)
	}
	ctx := context.Background()
	ids, err := cb.ContractsWithoutChunks(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"c02"}, ids); diff != "" {
		t.Fatalf("contracts without chunks (-want +got):\n%s", diff)
	}
	c, err := s.GetContract(ctx, "c02")
	if err != nil {
		t.Fatal(err)
	}
	c.Chunks = []contract.Chunk{chunk(0, textC02, "LICENSE. Confidentiality.")}
	if out, err := s.PutContracts(ctx, []*contract.Contract{c}); err != nil || out[0].Status != graph.PutUpdated {
		t.Fatalf("put c02 with chunks: %v %+v", err, out)
	}
	if ids, err = cb.ContractsWithoutChunks(ctx); err != nil || len(ids) != 0 {
		t.Errorf("after chunking c02: contracts without chunks %v, %v; want none", ids, err)
	}
}

// testEmbeddingBackfill: vectors are recorded per model, listed until
// written, resumable, redone for another model, kept across an unchanged
// re-put and never written over a changed text.
func testEmbeddingBackfill(t *testing.T, s graph.Store) {
	eb, ok := s.(graph.EmbeddingBackfiller)
	if !ok {
		t.Skipf("%T has no embedding backfill", s)
	}
	ctx := context.Background()
	chunkTexts := []string{}
	for _, c := range Fixture() {
		for _, ch := range c.Chunks {
			chunkTexts = append(chunkTexts, ch.Text)
		}
	}
	sort.Strings(chunkTexts)
	if len(chunkTexts) != 2 {
		t.Fatalf("fixture has %d chunks, the suite expects 2", len(chunkTexts))
	}

	if got := countEmbeddings(t, eb, graph.EmbedChunks, "m1"); got != (graph.EmbeddingCount{Total: 2}) {
		t.Fatalf("before: %+v, want 2 chunks, none embedded", got)
	}
	// An interrupted walk (one page of one) and a new walk from the start
	// embed each chunk exactly once.
	first := walkMissing(t, eb, graph.EmbedChunks, "m1", 1, 1)
	if len(first) != 1 {
		t.Fatalf("first page: %d texts, want 1", len(first))
	}
	if got := countEmbeddings(t, eb, graph.EmbedChunks, "m1"); got != (graph.EmbeddingCount{Total: 2, Embedded: 1}) {
		t.Errorf("after the interrupted walk: %+v", got)
	}
	rest := walkMissing(t, eb, graph.EmbedChunks, "m1", 1, 0)
	if all := append(slices.Clone(first), rest...); len(rest) != 1 || !cmp.Equal(chunkTexts, sortedCopy(all)) {
		t.Errorf("resumed walk embedded %q after %q; want each of %q once", rest, first, chunkTexts)
	}
	if got := countEmbeddings(t, eb, graph.EmbedChunks, "m1"); got != (graph.EmbeddingCount{Total: 2, Embedded: 2}) {
		t.Errorf("after the walk: %+v", got)
	}
	if again := walkMissing(t, eb, graph.EmbedChunks, "m1", 2, 0); len(again) != 0 {
		t.Errorf("an up-to-date store listed %q", again)
	}

	// An identical re-put keeps the vectors.
	if _, err := s.PutContracts(ctx, Fixture()[:1]); err != nil {
		t.Fatal(err)
	}
	if got := countEmbeddings(t, eb, graph.EmbedChunks, "m1"); got.Embedded != 2 {
		t.Errorf("an unchanged re-put of c01 lost vectors: %+v", got)
	}

	// Vector search sees the vectors of its model only.
	if vs, ok := s.(graph.VectorStore); ok {
		q := graph.VectorQuery{Vector: testVector(chunkTexts[0]), Model: "m1", Limit: 5}
		hits, err := vs.SearchVectors(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		if len(hits) != 2 || hits[0].Text != chunkTexts[0] || hits[0].ContractID != "c01" {
			t.Errorf("SearchVectors(m1) = %+v, want the 2 chunks, %q first", hits, chunkTexts[0])
		}
		q.Model = "m2"
		if hits, err := vs.SearchVectors(ctx, q); err != nil || len(hits) != 0 {
			t.Errorf("SearchVectors(m2) before any m2 vector = %+v, %v; want none", hits, err)
		}
		q.Model, q.Filter = "", graph.Filter{ContractIDs: []string{"c02"}}
		if hits, err := vs.SearchVectors(ctx, q); err != nil || len(hits) != 0 {
			t.Errorf("SearchVectors restricted to c02 (no chunks) = %+v, %v", hits, err)
		}
	}

	// Another model redoes every chunk.
	if got := countEmbeddings(t, eb, graph.EmbedChunks, "m2"); got != (graph.EmbeddingCount{Total: 2}) {
		t.Errorf("m2 before: %+v", got)
	}
	page, err := eb.MissingEmbeddings(ctx, graph.EmbeddingQuery{Kind: graph.EmbedChunks, Model: "m2", Limit: 10})
	if err != nil || len(page.Items) != 2 {
		t.Fatalf("missing for m2: %d items, %v; want 2", len(page.Items), err)
	}
	// A text that changed since it was listed is not written.
	stale := slices.Clone(page.Items)
	stale[0].Text += " (changed)"
	vecs := [][]float32{testVector("x"), testVector("y")}
	if n, err := eb.PutEmbeddings(ctx, graph.EmbedChunks, "m2", stale[:1], vecs[:1]); err != nil || n != 0 {
		t.Errorf("PutEmbeddings over a changed text wrote %d, %v; want 0", n, err)
	}
	for name, call := range map[string]func() (int, error){
		"length mismatch": func() (int, error) { return eb.PutEmbeddings(ctx, graph.EmbedChunks, "m2", page.Items, vecs[:1]) },
		"empty vector": func() (int, error) {
			return eb.PutEmbeddings(ctx, graph.EmbedChunks, "m2", page.Items[:1], [][]float32{{}})
		},
		"empty model":  func() (int, error) { return eb.PutEmbeddings(ctx, graph.EmbedChunks, " ", page.Items, vecs) },
		"unknown kind": func() (int, error) { return eb.PutEmbeddings(ctx, "clause", "m2", page.Items, vecs) },
	} {
		if _, err := call(); err == nil {
			t.Errorf("PutEmbeddings with %s: no error", name)
		}
	}
	for name, q := range map[string]graph.EmbeddingQuery{
		"limit 0":      {Kind: graph.EmbedChunks, Model: "m2"},
		"limit 1001":   {Kind: graph.EmbedChunks, Model: "m2", Limit: graph.MaxEmbeddingPage + 1},
		"no model":     {Kind: graph.EmbedChunks, Limit: 5},
		"unknown kind": {Kind: "party", Model: "m2", Limit: 5},
	} {
		if _, err := eb.MissingEmbeddings(ctx, q); err == nil {
			t.Errorf("MissingEmbeddings with %s: no error", name)
		}
	}
	if got := countEmbeddings(t, eb, graph.EmbedChunks, "m1"); got.Embedded != 2 {
		t.Errorf("rejected writes changed the m1 vectors: %+v", got)
	}
	walkMissing(t, eb, graph.EmbedChunks, "m2", 10, 0)
	if got := countEmbeddings(t, eb, graph.EmbedChunks, "m1"); got.Embedded != 0 {
		t.Errorf("after re-embedding with m2, %d chunks still count as m1's", got.Embedded)
	}

	// PutContracts records the model of the vectors it is given.
	c := Fixture()[0]
	for i := range c.Chunks {
		c.Chunks[i].Embedding, c.Chunks[i].EmbeddingModel = testVector(c.Chunks[i].Text), "m3"
	}
	if _, err := s.PutContracts(ctx, []*contract.Contract{c}); err != nil {
		t.Fatal(err)
	}
	if got := countEmbeddings(t, eb, graph.EmbedChunks, "m3"); got != (graph.EmbeddingCount{Total: 2, Embedded: 2}) {
		t.Errorf("after PutContracts with m3 vectors: %+v", got)
	}

	ss, ok := s.(graph.StatuteStore)
	if !ok {
		return
	}
	sts := []contract.Statute{
		{ID: "/xx/1", Jurisdiction: "xx", Code: "Test Code", Number: "1", Text: "An agreement to arbitrate is valid."},
		{ID: "/xx/2", Jurisdiction: "xx", Code: "Test Code", Number: "2", Text: "A penalty clause is void."},
	}
	if _, err := ss.PutStatutes(ctx, sts); err != nil {
		t.Fatal(err)
	}
	if got := countEmbeddings(t, eb, graph.EmbedStatutes, "m1"); got != (graph.EmbeddingCount{Total: 2}) {
		t.Errorf("statutes before: %+v", got)
	}
	if got := walkMissing(t, eb, graph.EmbedStatutes, "m1", 1, 0); len(got) != 2 {
		t.Errorf("statute walk embedded %q, want both", got)
	}
	// A changed statute loses its vector and is listed with its new text.
	sts[1].Text = "A penalty clause may be reduced by the court."
	if _, err := ss.PutStatutes(ctx, sts); err != nil {
		t.Fatal(err)
	}
	if got := countEmbeddings(t, eb, graph.EmbedStatutes, "m1"); got != (graph.EmbeddingCount{Total: 2, Embedded: 1}) {
		t.Errorf("after changing /xx/2: %+v, want 1 of 2 embedded", got)
	}
	if got := walkMissing(t, eb, graph.EmbedStatutes, "m1", 5, 0); !cmp.Equal(got, []string{"/xx/2 " + sts[1].Text}) {
		t.Errorf("after changing /xx/2 the walk embedded %q", got)
	}
}

func sortedCopy(ss []string) []string {
	out := slices.Clone(ss)
	sort.Strings(out)
	return out
}
