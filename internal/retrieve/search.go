package retrieve

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/contractgraph/contractgraph/internal/graph"
	"github.com/contractgraph/contractgraph/internal/llm"
)

// Searcher answers clause_search: BM25 from the store, fused with vector
// similarity when both an embedder and a store with the graph.VectorStore
// capability are present.
type Searcher struct {
	store    graph.Store
	embedder llm.Embedder // nil: BM25 only
	log      *slog.Logger
	// Depth is how many candidates each ranking contributes before fusion.
	depth int
}

// NewSearcher returns a Searcher over store. embedder may be nil.
func NewSearcher(store graph.Store, embedder llm.Embedder, log *slog.Logger) *Searcher {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Searcher{store: store, embedder: embedder, log: log, depth: 50}
}

// Hybrid reports whether searches fuse vector similarity with BM25.
func (s *Searcher) Hybrid() bool {
	_, ok := s.store.(graph.VectorStore)
	return ok && s.embedder != nil
}

// Search ranks passages for q. In hybrid mode the vector ranking covers
// chunks only, and only under the filters a vector scan can apply
// (contract ids, no clause-type restriction); otherwise BM25 alone answers.
func (s *Searcher) Search(ctx context.Context, q graph.ClauseQuery) ([]graph.ClauseHit, error) {
	limit := q.Limit
	if limit <= 0 {
		limit = 5
	}
	if !s.Hybrid() || len(q.ClauseTypes) > 0 || !onlyContractIDs(q.Filter) {
		return s.store.SearchClauses(ctx, q)
	}
	wide := q
	wide.Limit = s.depth
	bm25, err := s.store.SearchClauses(ctx, wide)
	if err != nil {
		return nil, err
	}
	vecs, _, err := s.embedder.Embed(ctx, []string{q.Query})
	if err != nil {
		return nil, fmt.Errorf("embed query: %w", err)
	}
	if len(vecs) != 1 {
		return nil, fmt.Errorf("embed query: got %d vectors for 1 text", len(vecs))
	}
	near, err := s.store.(graph.VectorStore).SearchVectors(ctx, graph.VectorQuery{
		Vector: vecs[0], ContractIDs: q.Filter.ContractIDs, Limit: s.depth,
	})
	if err != nil {
		return nil, err
	}
	s.log.Debug("hybrid clause search", "bm25", len(bm25), "vector", len(near))
	fused := Fuse(DefaultRRFK, bm25, near)
	if len(fused) > limit {
		fused = fused[:limit]
	}
	return fused, nil
}

// onlyContractIDs reports whether f sets no condition but ContractIDs (and
// AsOf, which only matters with Active).
func onlyContractIDs(f graph.Filter) bool {
	return f.MinEffectiveDate == "" && f.MaxEffectiveDate == "" && f.MinEndDate == "" && f.MaxEndDate == "" &&
		f.ContractType == "" && len(f.Parties) == 0 && f.PartyCountry == "" && f.GoverningLawCountry == "" &&
		f.GoverningLawState == "" && f.Active == nil && f.Monetary == nil && len(f.ClauseTypes) == 0 &&
		f.SummarySearch == ""
}
