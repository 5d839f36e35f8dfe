package retrieve

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/contractgraph/contractgraph/internal/graph"
	"github.com/contractgraph/contractgraph/internal/llm"
)

// Summary search by meaning: defaults of SummaryFinder.
const (
	// DefaultSummaryNearest is how many contracts at most summary_search
	// adds by meaning.
	DefaultSummaryNearest = 10
	// DefaultSummaryMargin keeps, of the nearest contracts, those whose
	// similarity is within this much of the best one's: what the query is
	// about rather than everything in the store ranked by closeness.
	DefaultSummaryMargin = 0.03
)

// SummaryFinder makes summary_search hybrid: besides the contracts whose
// title, summary or scope hold the search's words, a filter meets the
// search on the contracts whose summary embedding (graph.EmbedSummaries) is
// nearest the search text's, among those the rest of the filter matches.
// It is safe for concurrent use.
type SummaryFinder struct {
	store    graph.SummaryVectorStore
	embedder llm.Embedder
	model    string
	nearest  int
	margin   float64
	minScore float64
}

// SummaryOptions configure a SummaryFinder.
type SummaryOptions struct {
	// Model is the embedder's name as the store records it; "" compares
	// every vector of the query's dimension.
	Model string
	// Nearest is the most contracts added by meaning; 0 means
	// DefaultSummaryNearest, at most graph.ClauseLimits.Max.
	Nearest int
	// Margin keeps the nearest whose similarity is within Margin of the
	// best one's; 0 means DefaultSummaryMargin.
	Margin float64
	// MinScore is the least similarity a contract added by meaning needs.
	MinScore float64
}

// NewSummaryFinder returns a SummaryFinder over store's summary vectors,
// embedding search texts with embedder.
func NewSummaryFinder(store graph.SummaryVectorStore, embedder llm.Embedder, opts SummaryOptions) (*SummaryFinder, error) {
	if store == nil || embedder == nil {
		return nil, errors.New("summary finder: needs a store with summary embeddings and an embedder")
	}
	f := &SummaryFinder{store: store, embedder: embedder, model: strings.TrimSpace(opts.Model),
		nearest: opts.Nearest, margin: opts.Margin, minScore: opts.MinScore}
	if f.nearest == 0 {
		f.nearest = DefaultSummaryNearest
	}
	if f.nearest < 1 || f.nearest > graph.ClauseLimits.Max {
		return nil, fmt.Errorf("summary finder: nearest %d out of range 1..%d", f.nearest, graph.ClauseLimits.Max)
	}
	if f.margin == 0 {
		f.margin = DefaultSummaryMargin
	}
	if f.margin < 0 || f.margin > 2 || f.minScore < -1 || f.minScore > 1 {
		return nil, fmt.Errorf("summary finder: margin %v or min score %v out of range", f.margin, f.minScore)
	}
	return f, nil
}

// Find returns filter with SummaryIDs set to the contracts found for its
// SummarySearch by meaning, and those contracts with their similarity,
// best first. A filter without a summary search is returned unchanged.
// filter must be normalised (graph.Filter.Normalize).
func (f *SummaryFinder) Find(ctx context.Context, filter graph.Filter) (graph.Filter, []graph.SummaryHit, error) {
	if filter.SummarySearch == "" {
		return filter, nil, nil
	}
	vecs, _, err := f.embedder.Embed(ctx, []string{filter.SummarySearch})
	if err != nil {
		return filter, nil, fmt.Errorf("embed the summary search: %w", err)
	}
	if len(vecs) != 1 || len(vecs[0]) == 0 {
		return filter, nil, fmt.Errorf("embed the summary search: got %d vectors for 1 text", len(vecs))
	}
	// The nearest among what the rest of the filter matches.
	rest := filter
	rest.SummarySearch, rest.SummaryMatch, rest.SummaryIDs = "", "", nil
	hits, err := f.store.SearchSummaryVectors(ctx, graph.VectorQuery{Vector: vecs[0], Filter: rest, Model: f.model, Limit: f.nearest})
	if err != nil {
		return filter, nil, fmt.Errorf("summary search by meaning: %w", err)
	}
	hits = nearSummaries(hits, f.margin, f.minScore)
	if len(hits) == 0 {
		return filter, nil, nil
	}
	filter.SummaryIDs = make([]string, len(hits))
	for i, h := range hits {
		filter.SummaryIDs[i] = h.ContractID
	}
	return filter, hits, nil
}

// nearSummaries keeps, of hits (best first), those scoring at least
// minScore and within margin of the best.
func nearSummaries(hits []graph.SummaryHit, margin, minScore float64) []graph.SummaryHit {
	if len(hits) == 0 {
		return nil
	}
	floor := max(hits[0].Score-margin, minScore)
	n := 0
	for n < len(hits) && hits[n].Score >= floor {
		n++
	}
	return hits[:n:n]
}
