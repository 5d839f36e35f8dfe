package retrieve_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/contractgraph/contractgraph/internal/contract"
	"github.com/contractgraph/contractgraph/internal/graph"
	"github.com/contractgraph/contractgraph/internal/graph/sqlite"
	"github.com/contractgraph/contractgraph/internal/llm"
	"github.com/contractgraph/contractgraph/internal/llm/llmtest"
	"github.com/contractgraph/contractgraph/internal/retrieve"
)

func openStore(t *testing.T) *sqlite.Store {
	t.Helper()
	s, err := sqlite.Open(filepath.Join(t.TempDir(), "g.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// putChunked stores n contracts of three chunks each, without vectors.
func putChunked(t *testing.T, s graph.Store, n int) {
	t.Helper()
	var cs []*contract.Contract
	for i := range n {
		text := fmt.Sprintf("%d. Term. The term is %d years.\n\n2. Payment. Fees are due in %d days.\n\n3. Termination. Either party may end it on notice.", i, i+1, 30+i)
		cs = append(cs, &contract.Contract{ID: fmt.Sprintf("c%03d", i), Text: text, Chunks: retrieve.Chunk(text, retrieve.ChunkOptions{Max: 60, Min: 10})})
	}
	if _, err := s.PutContracts(context.Background(), cs); err != nil {
		t.Fatal(err)
	}
}

// failingEmbedder fails every call after the first ok calls.
type failingEmbedder struct {
	inner llm.Embedder
	ok    int
	mu    sync.Mutex
	calls int
}

func (f *failingEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, llm.Usage, error) {
	f.mu.Lock()
	f.calls++
	n := f.calls
	f.mu.Unlock()
	if n > f.ok {
		return nil, llm.Usage{}, errors.New("500 Internal Server Error")
	}
	return f.inner.Embed(ctx, texts)
}

func TestEmbedMissingResumesAndIsANoOpWhenDone(t *testing.T) {
	ctx := context.Background()
	s := openStore(t)
	putChunked(t, s, 10) // 30 chunks
	emb := &llmtest.Embedder{Dim: 32}

	// The server fails on the third request of 8 texts: 16 chunks stay
	// embedded and the error says which model failed.
	var progress [][2]int
	opts := retrieve.EmbedOptions{Model: "test:emb", Batch: 8, Progress: func(kind string, done, total int) {
		progress = append(progress, [2]int{done, total})
	}}
	reps, err := retrieve.EmbedMissing(ctx, s, &failingEmbedder{inner: emb, ok: 2}, opts)
	var ee *retrieve.EmbedError
	if !errors.As(err, &ee) || ee.Model != "test:emb" || !strings.Contains(err.Error(), "embed chunks with test:emb: 500 Internal Server Error") {
		t.Fatalf("error %v, want an EmbedError naming the model", err)
	}
	if len(reps) != 1 || reps[0].Embedded != 16 || reps[0].Missing() != 14 {
		t.Fatalf("reports %+v, want 16 embedded and 14 missing", reps)
	}
	if diff := cmp.Diff([][2]int{{0, 30}, {8, 30}, {16, 30}}, progress); diff != "" {
		t.Errorf("progress (-want +got):\n%s", diff)
	}

	// A second run embeds only the other 14, with progress to the end.
	progress = nil
	_, before := emb.Calls()
	reps, err = retrieve.EmbedMissing(ctx, s, emb, opts)
	if err != nil {
		t.Fatal(err)
	}
	if _, after := emb.Calls(); after-before != 14 {
		t.Errorf("the resumed run embedded %d texts, want 14", after-before)
	}
	want := []retrieve.EmbedReport{{Kind: graph.EmbedChunks, Model: "test:emb", Total: 30, Before: 16, Embedded: 14, Tokens: reps[0].Tokens}}
	if diff := cmp.Diff(want, reps); diff != "" {
		t.Errorf("resumed run (-want +got):\n%s", diff)
	}
	if got := progress[len(progress)-1]; got != [2]int{14, 14} {
		t.Errorf("last progress %v, want [14 14]", got)
	}

	// Up to date: no request at all.
	calls, _ := emb.Calls()
	reps, err = retrieve.EmbedMissing(ctx, s, emb, opts)
	if err != nil || reps[0].Embedded != 0 || reps[0].Before != 30 {
		t.Errorf("up-to-date run: %+v, %v", reps, err)
	}
	if after, _ := emb.Calls(); after != calls {
		t.Errorf("an up-to-date store made %d embedding calls", after-calls)
	}

	// Another model re-embeds everything, and the hybrid search of each
	// model sees its own vectors.
	reps, err = retrieve.EmbedMissing(ctx, s, emb, retrieve.EmbedOptions{Model: "test:other", Batch: 100})
	if err != nil || reps[0].Embedded != 30 {
		t.Fatalf("model change: %+v, %v", reps, err)
	}
	if c, _ := s.CountEmbeddings(ctx, graph.EmbedChunks, "test:emb"); c.Embedded != 0 {
		t.Errorf("after the model change %d chunks still count for the old model", c.Embedded)
	}
}

func TestEmbedMissingStatutes(t *testing.T) {
	ctx := context.Background()
	s := openStore(t)
	sts := []contract.Statute{
		{ID: "/us/usc/t9/s2", Jurisdiction: "us", Code: "9 U.S.C.", Number: "2", Heading: "Validity of arbitration agreements", Text: "A written provision to settle by arbitration shall be valid."},
		{ID: "/us/usc/t9/s3", Jurisdiction: "us", Code: "9 U.S.C.", Number: "3", Heading: "Stay of proceedings", Text: "The court shall stay the trial of the action."},
	}
	if _, err := s.PutStatutes(ctx, sts); err != nil {
		t.Fatal(err)
	}
	rec := &recordingEmbedder{}
	reps, err := retrieve.EmbedMissing(ctx, s, rec, retrieve.EmbedOptions{Model: "m", Kinds: []string{graph.EmbedChunks, graph.EmbedStatutes}})
	if err != nil {
		t.Fatal(err)
	}
	if len(reps) != 2 || reps[0].Total != 0 || reps[1].Embedded != 2 {
		t.Fatalf("reports %+v", reps)
	}
	// A statute is embedded with its citation and heading.
	if want := "9 U.S.C. § 2 Validity of arbitration agreements\nA written provision to settle by arbitration shall be valid."; !strings.Contains(strings.Join(rec.texts, "|"), want) {
		t.Errorf("embedded texts %q, want one to be %q", rec.texts, want)
	}
}

type recordingEmbedder struct {
	llmtest.Embedder
	texts []string
}

func (r *recordingEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, llm.Usage, error) {
	r.texts = append(r.texts, texts...)
	return r.Embedder.Embed(ctx, texts)
}

func TestChunkMissing(t *testing.T) {
	ctx := context.Background()
	s := openStore(t)
	cs := []*contract.Contract{
		{ID: "a", Text: "1. Term. Two years.\n\n2. Payment. Net thirty days."},
		{ID: "b", Text: "Already chunked.", Chunks: []contract.Chunk{{Ord: 0, Text: "Already chunked.", Start: 0, End: 16}}},
		{ID: "c"}, // no text: nothing to chunk
		{ID: "d", Text: "   \n  "},
	}
	if _, err := s.PutContracts(ctx, cs); err != nil {
		t.Fatal(err)
	}
	var last [2]int
	rep, err := retrieve.ChunkMissing(ctx, s, retrieve.ChunkOptions{Max: 30, Min: 5}, func(done, total int) { last = [2]int{done, total} })
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(retrieve.ChunkReport{Contracts: 2, Chunked: 1, Chunks: 2, Failures: []string{}}, rep); diff != "" {
		t.Errorf("report (-want +got):\n%s", diff)
	}
	if last != [2]int{2, 2} {
		t.Errorf("last progress %v", last)
	}
	got, err := s.GetContract(ctx, "a")
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Chunks) != 2 || got.Chunks[1].Text != "2. Payment. Net thirty days." {
		t.Errorf("chunks of a: %+v", got.Chunks)
	}
	// clause_search finds the new chunks.
	hits, err := s.SearchClauses(ctx, graph.ClauseQuery{Query: "payment", Limit: 5})
	if err != nil || len(hits) != 1 || hits[0].ContractID != "a" {
		t.Errorf("search after chunking: %+v, %v", hits, err)
	}
	// A second run finds only the blank text, which it skips again.
	rep, err = retrieve.ChunkMissing(ctx, s, retrieve.ChunkOptions{}, nil)
	if err != nil || rep.Contracts != 1 || rep.Chunked != 0 {
		t.Errorf("second run: %+v, %v", rep, err)
	}
}

func TestSearcherEmbeddingFailureIsAnError(t *testing.T) {
	ctx := context.Background()
	s := openStore(t)
	putChunked(t, s, 2)
	searcher := retrieve.New(s, retrieve.Options{Embedder: &failingEmbedder{inner: &llmtest.Embedder{}}, Model: "m"})
	hits, err := searcher.Search(ctx, graph.ClauseQuery{Query: "termination notice", Limit: 3})
	if err == nil || !strings.Contains(err.Error(), "500 Internal Server Error") {
		t.Fatalf("search with a failing embedder: %d hits, error %v; want the server's error", len(hits), err)
	}
}

func TestSearcherSaysOnceWhenTheModelHasNoVectors(t *testing.T) {
	ctx := context.Background()
	s := openStore(t)
	putChunked(t, s, 3)
	emb := &llmtest.Embedder{Dim: 32}
	var logs bytes.Buffer
	log := slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelWarn}))
	searcher := retrieve.New(s, retrieve.Options{Embedder: emb, Model: "m", Log: log})
	for range 3 {
		hits, err := searcher.Search(ctx, graph.ClauseQuery{Query: "termination notice", Limit: 3})
		if err != nil || len(hits) == 0 {
			t.Fatalf("search: %d hits, %v", len(hits), err)
		}
	}
	if n := strings.Count(logs.String(), "no chunk has a vector by this embedding model"); n != 1 {
		t.Errorf("warned %d times, want once:\n%s", n, logs.String())
	}
	if !strings.Contains(logs.String(), "reindex --embeddings") {
		t.Errorf("the warning does not say how to add the vectors:\n%s", logs.String())
	}

	// Once embedded with m, the hybrid ranking uses them and nothing is said.
	if _, err := retrieve.EmbedMissing(ctx, s, emb, retrieve.EmbedOptions{Model: "m"}); err != nil {
		t.Fatal(err)
	}
	logs.Reset()
	searcher = retrieve.New(s, retrieve.Options{Embedder: emb, Model: "m", Log: log})
	hits, err := searcher.Search(ctx, graph.ClauseQuery{Query: "termination notice", Limit: 3})
	if err != nil || len(hits) == 0 || logs.Len() != 0 {
		t.Errorf("search after embedding: %d hits, %v, log %q", len(hits), err, logs.String())
	}
	// Vectors of another model are not compared with this model's query.
	other := retrieve.New(s, retrieve.Options{Embedder: emb, Model: "other", Log: log})
	if _, err := other.Search(ctx, graph.ClauseQuery{Query: "termination notice", Limit: 3}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(logs.String(), "embed_model=other") {
		t.Errorf("searching with a model that has no vectors said nothing:\n%s", logs.String())
	}
}
