package graph

import (
	"context"
	"fmt"
	"slices"
)

// VectorQuery asks for the chunks whose embeddings are most similar to
// Vector (cosine similarity).
type VectorQuery struct {
	Vector []float32
	// Filter restricts the search to the chunks of the contracts it
	// matches, exactly as it restricts contract_search.
	Filter Filter
	// Model, when set, keeps only vectors recorded as made by this model
	// (see EmbeddingBackfiller); "" compares every vector of the query's
	// dimension, whichever model made it.
	Model string
	Limit int // 1..50
}

// VectorStore is an optional capability of a Store that keeps chunk
// embeddings (contract.Chunk.Embedding, written by PutContracts, or by
// EmbeddingBackfiller.PutEmbeddings).
type VectorStore interface {
	// SearchVectors returns chunks ranked by cosine similarity to q.Vector,
	// best first, with Score the similarity. Chunks without an embedding, or
	// whose embedding has a different dimension, are skipped. An invalid
	// query (a limit out of range, an empty vector) matches ErrInvalidQuery.
	SearchVectors(ctx context.Context, q VectorQuery) ([]ClauseHit, error)
}

// CheckQueryVector checks a vector search's query vector: an error
// matching ErrInvalidQuery when it is empty or zero, which no similarity
// can be computed with.
func CheckQueryVector(v []float32) error {
	if !slices.ContainsFunc(v, func(f float32) bool { return f != 0 }) {
		return fmt.Errorf("%w: empty or zero query vector", ErrInvalidQuery)
	}
	return nil
}

// SummaryHit is a contract ranked by the similarity of its summary
// embedding (EmbedSummaries) to a query vector.
type SummaryHit struct {
	ContractID string  `json:"contract_id"`
	Score      float64 `json:"score"` // cosine similarity
}

// SummaryVectorStore is an optional capability of a Store that keeps an
// embedding of every contract's title, summary and scope (written by an
// EmbeddingBackfiller for EmbedSummaries), so that summary_search can find
// contracts by meaning as well as by words (Filter.SummaryIDs).
type SummaryVectorStore interface {
	// SearchSummaryVectors returns the contracts q.Filter matches, ranked by
	// the cosine similarity of their summary embedding to q.Vector, best
	// first. Contracts without one, with one of another dimension or model
	// (when q.Model is set), or whose title, summary or scope changed since
	// it was made are skipped. An invalid query matches ErrInvalidQuery.
	SearchSummaryVectors(ctx context.Context, q VectorQuery) ([]SummaryHit, error)
}
