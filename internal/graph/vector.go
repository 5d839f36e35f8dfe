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
