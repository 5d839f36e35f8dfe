package graph

import "context"

// VectorQuery asks for the chunks whose embeddings are most similar to
// Vector (cosine similarity).
type VectorQuery struct {
	Vector []float32
	// ContractIDs restricts the search to these contracts when non-empty.
	ContractIDs []string
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
	// whose embedding has a different dimension, are skipped.
	SearchVectors(ctx context.Context, q VectorQuery) ([]ClauseHit, error)
}
