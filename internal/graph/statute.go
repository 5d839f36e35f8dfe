package graph

import (
	"context"

	"github.com/contractgraph/contractgraph/internal/contract"
)

// StatuteStore is an optional capability of a Store: the statute knowledge
// base that risk reviews cite. Callers check for it with a type assertion;
// a store without it cannot check legal citations.
type StatuteStore interface {
	// PutStatutes writes the statutes in one transaction (all or none),
	// replacing stored statutes with the same id. A statute identical to the
	// stored one is counted as unchanged and not rewritten. An invalid
	// statute (empty id, jurisdiction or text) fails the whole call with an
	// error naming it.
	PutStatutes(ctx context.Context, sts []contract.Statute) (StatuteCounts, error)

	// GetStatute returns the statute with this id, or an error wrapping
	// ErrNotFound.
	GetStatute(ctx context.Context, id string) (*contract.Statute, error)

	// SearchStatutes ranks statutes by full-text relevance (BM25 over
	// heading and text) to q.Query, best first, ties by id. A query with no
	// searchable words returns no hits and no error.
	SearchStatutes(ctx context.Context, q StatuteQuery) ([]StatuteHit, error)

	// CountStatutes counts the stored statutes of a jurisdiction ("" = all).
	CountStatutes(ctx context.Context, jurisdiction string) (int, error)
}

// StatuteCounts says what PutStatutes did.
type StatuteCounts struct {
	Created   int `json:"created"`
	Updated   int `json:"updated"`
	Unchanged int `json:"unchanged"`
}

// StatuteQuery is a statute_search call.
type StatuteQuery struct {
	Query        string
	Jurisdiction string // "" = every jurisdiction; else lower-case, e.g. "us", "tw"
	Limit        int    // 1..50
}

// StatuteHit is one ranked statute. Higher Score is better.
type StatuteHit struct {
	Statute contract.Statute `json:"statute"`
	Score   float64          `json:"score"`
}

// StatuteVectorStore is an optional capability of a StatuteStore that keeps
// one embedding per statute, so statute_search can fuse vector similarity
// with BM25. A statute whose content changes loses its embedding.
type StatuteVectorStore interface {
	// StatutesWithoutEmbedding returns up to limit statutes that have no
	// embedding (new, or changed since they were embedded), in id order.
	StatutesWithoutEmbedding(ctx context.Context, limit int) ([]contract.Statute, error)

	// PutStatuteEmbeddings stores vecs[i] as the embedding of ids[i], in one
	// transaction. An unknown id fails the call with an error wrapping
	// ErrNotFound; an empty vector is an error.
	PutStatuteEmbeddings(ctx context.Context, ids []string, vecs [][]float32) error

	// SearchStatuteVectors ranks the statutes whose embedding has the
	// dimension of vector by cosine similarity to it, best first (Score is
	// the similarity), within jurisdiction ("" = all); limit is 1..50.
	SearchStatuteVectors(ctx context.Context, vector []float32, jurisdiction string, limit int) ([]StatuteHit, error)
}
