package retrieve

import (
	"context"
	"fmt"
	"log/slog"
	"math"
	"strings"
	"sync"

	"github.com/contractgraph/contractgraph/internal/graph"
	"github.com/contractgraph/contractgraph/internal/llm"
)

// Searcher answers clause_search: BM25 from the store, fused with vector
// similarity when an embedder is configured and the store has the
// graph.VectorStore capability; optionally with the query expanded, the
// candidates reranked, near-duplicates collapsed and each hit's enclosing
// section added (Options).
type Searcher struct {
	store    graph.Store
	embedder llm.Embedder // nil: BM25 only
	model    string
	log      *slog.Logger
	// vectorDepth is how many candidates the vector ranking contributes
	// before fusion; the lexical ranking takes up to
	// graph.MaxClauseCandidates, which covers every matching passage of
	// all but the longest contracts.
	vectorDepth int

	expander Expander
	unscoped bool
	reranker Reranker
	depth    int
	dedup    bool
	sections bool

	checked sync.Once // the store's vectors for model, counted once
}

// DefaultRerankDepth is how many first-stage candidates are reranked (and
// searched for near-duplicates) when Options.Depth is 0.
const DefaultRerankDepth = 50

// Options configure a Searcher.
type Options struct {
	// Embedder embeds queries; nil means BM25 only.
	Embedder llm.Embedder
	// Model is the embedder's name as the store records it with each
	// vector (graph.EmbeddingBackfiller); the vector half then compares
	// only that model's vectors. "" compares every vector of the query's
	// dimension.
	Model string
	// Log receives the one-time warnings about missing vectors and the
	// errors of the expansion and rerank stages; nil discards them.
	Log *slog.Logger

	// Expander widens the query (the full-text half searches its phrases
	// too, and a reranker weighs them less than the query's own words);
	// nil means no expansion. An expander's error is logged and the query
	// searched as given.
	Expander Expander
	// ExpandUnscoped expands queries over the whole store too. Without it
	// only queries scoped to listed contracts (Filter.ContractIDs) are
	// expanded: every added word makes the full-text index read its
	// postings over the whole store, which more than doubled clause_search
	// at 100,000 contracts (docs/EVALUATION.md), while within a contract it
	// costs little.
	ExpandUnscoped bool
	// Reranker orders the first Depth candidates again; nil keeps the
	// first stage's order. A reranker's error (a model failing) is logged
	// and the first stage's order kept.
	Reranker Reranker
	// Depth is how many first-stage candidates Reranker and Dedup see; 0
	// means DefaultRerankDepth, at most graph.MaxClauseCandidates.
	Depth int
	// Dedup collapses near-duplicate passages of one contract (Dedup).
	Dedup bool
	// Sections adds each hit's enclosing section (AddSections); it reads
	// each hit's contract once, and changes no ranking.
	Sections bool
}

// New returns a Searcher over store.
func New(store graph.Store, opts Options) *Searcher {
	log := opts.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	depth := opts.Depth
	if depth <= 0 {
		depth = DefaultRerankDepth
	}
	return &Searcher{
		store: store, embedder: opts.Embedder, model: strings.TrimSpace(opts.Model), log: log, vectorDepth: 50,
		expander: opts.Expander, unscoped: opts.ExpandUnscoped, reranker: opts.Reranker, depth: min(depth, graph.MaxClauseCandidates),
		dedup: opts.Dedup, sections: opts.Sections,
	}
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
// The expansion and rerank stages never fail a search: their errors are
// logged and the search goes on without them.
func (s *Searcher) Search(ctx context.Context, q graph.ClauseQuery) ([]graph.ClauseHit, error) {
	limit, err := q.EffectiveLimit()
	if err != nil {
		return nil, err
	}
	expander := s.expander
	if !s.unscoped && len(q.Filter.ContractIDs) == 0 {
		expander = nil
	}
	staged := expander != nil || s.reranker != nil || s.dedup
	depth := limit
	if staged {
		depth = max(limit, s.depth)
	}
	first := q
	var exps []string
	if expander != nil {
		ps, err := expander.Expand(ctx, q.Query)
		if err != nil {
			s.log.Warn("clause_search: query expansion failed; searching without it", "err", err)
		}
		if exps = cleanExpansions(q.Query, ps); len(exps) > 0 {
			first.Query = q.Query + " " + strings.Join(exps, " ")
			s.log.Debug("clause_search expansion", "query", q.Query, "phrases", exps)
		}
	}
	hits, err := s.firstStage(ctx, first, q.Query, depth)
	if err != nil {
		return nil, err
	}
	if s.reranker != nil && len(hits) > 1 {
		hits = s.rerank(ctx, RerankQuery{Text: q.Query, Expansions: exps}, hits)
	}
	if s.dedup {
		hits = Dedup(hits)
	}
	if len(hits) > limit {
		hits = hits[:limit]
	}
	if s.sections {
		if err := AddSections(ctx, s.store, hits); err != nil {
			return nil, fmt.Errorf("clause_search sections: %w", err)
		}
	}
	return hits, nil
}

// SearchClauses is Search, so that a Searcher serves wherever a store's
// clause search is asked for (the risk analyst's clause_search).
func (s *Searcher) SearchClauses(ctx context.Context, q graph.ClauseQuery) ([]graph.ClauseHit, error) {
	return s.Search(ctx, q)
}

// rerank orders hits by s.reranker, keeping the first stage's order when
// it fails.
func (s *Searcher) rerank(ctx context.Context, q RerankQuery, hits []graph.ClauseHit) []graph.ClauseHit {
	texts := make([]string, len(hits))
	for i, h := range hits {
		texts[i] = h.Passage()
	}
	order, scores, err := s.reranker.Rerank(ctx, q, texts)
	if err != nil {
		s.log.Warn("clause_search: reranking failed; keeping the first-stage order", "err", err)
		return hits
	}
	out, sc := ApplyOrder(hits, order, scores)
	for i := range out {
		if math.IsNaN(sc[i]) {
			sc[i] = 0
		}
		out[i].Score = sc[i]
	}
	return out
}

// firstStage is the full-text ranking of q (the expanded query), fused
// with the vector ranking of the caller's query when the search is hybrid;
// at most depth hits.
func (s *Searcher) firstStage(ctx context.Context, q graph.ClauseQuery, query string, depth int) ([]graph.ClauseHit, error) {
	if s.embedder == nil || len(q.ClauseTypes) > 0 {
		q.Limit = depth
		return s.store.SearchClauses(ctx, q)
	}
	vs, ok := s.store.(graph.VectorStore)
	if !ok {
		s.checked.Do(func() {
			s.log.Warn("clause_search ranks by BM25 alone: this store has no vector search", "store", fmt.Sprintf("%T", s.store))
		})
		q.Limit = depth
		return s.store.SearchClauses(ctx, q)
	}
	s.checked.Do(func() { s.checkVectors(ctx) })
	wide := q
	wide.Limit = graph.MaxClauseCandidates
	bm25, err := s.store.SearchClauses(ctx, wide)
	if err != nil {
		return nil, err
	}
	vecs, _, err := s.embedder.Embed(ctx, []string{query})
	if err != nil {
		return nil, fmt.Errorf("embed the query for hybrid search: %w", err)
	}
	if len(vecs) != 1 || len(vecs[0]) == 0 {
		return nil, fmt.Errorf("embed the query for hybrid search: got %d vectors for 1 text", len(vecs))
	}
	near, err := vs.SearchVectors(ctx, graph.VectorQuery{
		Vector: vecs[0], Filter: q.Filter, Model: s.model, Limit: s.vectorDepth,
	})
	if err != nil {
		return nil, err
	}
	s.log.Debug("hybrid clause search", "bm25", len(bm25), "vector", len(near))
	// The lexical half is ranked here, over the candidates, so that both
	// backends fuse the same lists (see rankPool).
	near = stableRanks(near)
	fused := Fuse(DefaultRRFK, rankPool(q.Query, pool(bm25, near)), near)
	if len(fused) > depth {
		fused = fused[:depth]
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
