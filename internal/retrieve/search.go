package retrieve

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"sync"

	"github.com/contractgraph/contractgraph/internal/graph"
	"github.com/contractgraph/contractgraph/internal/llm"
)

// Searcher answers clause_search: BM25 from the store, fused with vector
// similarity when an embedder is configured and the store has the
// graph.VectorStore capability.
type Searcher struct {
	store    graph.Store
	embedder llm.Embedder // nil: BM25 only
	model    string
	log      *slog.Logger
	// depth is how many candidates the vector ranking contributes before
	// fusion; the lexical ranking takes up to graph.MaxClauseCandidates,
	// which covers every matching passage of all but the longest contracts.
	depth int

	checked sync.Once // the store's vectors for model, counted once
}

// Options configure a Searcher.
type Options struct {
	// Embedder embeds queries; nil means BM25 only.
	Embedder llm.Embedder
	// Model is the embedder's name as the store records it with each
	// vector (graph.EmbeddingBackfiller); the vector half then compares
	// only that model's vectors. "" compares every vector of the query's
	// dimension.
	Model string
	// Log receives the one-time warnings about missing vectors; nil
	// discards them.
	Log *slog.Logger
}

// New returns a Searcher over store.
func New(store graph.Store, opts Options) *Searcher {
	log := opts.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Searcher{store: store, embedder: opts.Embedder, model: strings.TrimSpace(opts.Model), log: log, depth: 50}
}

// NewSearcher returns a Searcher over store that compares vectors of any
// model. embedder may be nil.
func NewSearcher(store graph.Store, embedder llm.Embedder, log *slog.Logger) *Searcher {
	return New(store, Options{Embedder: embedder, Log: log})
}

// Hybrid reports whether searches fuse vector similarity with BM25.
func (s *Searcher) Hybrid() bool {
	_, ok := s.store.(graph.VectorStore)
	return ok && s.embedder != nil
}

// Search ranks passages for q. In hybrid mode the vector ranking covers
// chunks only, under the same contract filter as BM25 (the store compiles
// q.Filter for both); a clause-type restriction, which chunks do not have,
// leaves BM25 alone to answer.
// A failing embedding call is an error, never a silent BM25 answer. When the
// store cannot search vectors, or holds no vector by the configured model,
// the Searcher says so once in its log and BM25 carries the ranking.
func (s *Searcher) Search(ctx context.Context, q graph.ClauseQuery) ([]graph.ClauseHit, error) {
	limit, err := q.EffectiveLimit()
	if err != nil {
		return nil, err
	}
	if s.embedder == nil || len(q.ClauseTypes) > 0 {
		return s.store.SearchClauses(ctx, q)
	}
	vs, ok := s.store.(graph.VectorStore)
	if !ok {
		s.checked.Do(func() {
			s.log.Warn("clause_search ranks by BM25 alone: this store has no vector search", "store", fmt.Sprintf("%T", s.store))
		})
		return s.store.SearchClauses(ctx, q)
	}
	s.checked.Do(func() { s.checkVectors(ctx) })
	wide := q
	wide.Limit = graph.MaxClauseCandidates
	bm25, err := s.store.SearchClauses(ctx, wide)
	if err != nil {
		return nil, err
	}
	vecs, _, err := s.embedder.Embed(ctx, []string{q.Query})
	if err != nil {
		return nil, fmt.Errorf("embed the query for hybrid search: %w", err)
	}
	if len(vecs) != 1 || len(vecs[0]) == 0 {
		return nil, fmt.Errorf("embed the query for hybrid search: got %d vectors for 1 text", len(vecs))
	}
	near, err := vs.SearchVectors(ctx, graph.VectorQuery{
		Vector: vecs[0], Filter: q.Filter, Model: s.model, Limit: s.depth,
	})
	if err != nil {
		return nil, err
	}
	s.log.Debug("hybrid clause search", "bm25", len(bm25), "vector", len(near))
	// The lexical half is ranked here, over the candidates, so that both
	// backends fuse the same lists (see rankPool).
	near = stableRanks(near)
	fused := Fuse(DefaultRRFK, rankPool(q.Query, pool(bm25, near)), near)
	if len(fused) > limit {
		fused = fused[:limit]
	}
	return fused, nil
}

// checkVectors warns when the store holds no vector, or vectors for only
// some chunks, by the configured model.
func (s *Searcher) checkVectors(ctx context.Context) {
	eb, ok := s.store.(graph.EmbeddingBackfiller)
	if !ok || s.model == "" {
		return
	}
	c, err := eb.CountEmbeddings(ctx, graph.EmbedChunks, s.model)
	switch {
	case err != nil:
		s.log.Debug("count chunk vectors", "err", err)
	case c.Total > 0 && c.Embedded == 0:
		s.log.Warn("clause_search ranks by BM25 alone: no chunk has a vector by this embedding model; add them with `contractgraph reindex --embeddings`",
			"embed_model", s.model, "chunks", c.Total)
	case c.Missing() > 0:
		s.log.Warn("clause_search: some chunks have no vector by this embedding model and rank by BM25 alone; add them with `contractgraph reindex --embeddings`",
			"embed_model", s.model, "chunks", c.Total, "without_vector", c.Missing())
	}
}
