package graph

import (
	"context"

	"github.com/contractgraph/contractgraph/internal/contract"
)

// What an EmbeddingBackfiller embeds.
const (
	EmbedChunks   = "chunk"   // contract text chunks (contract.Chunk)
	EmbedStatutes = "statute" // statutes of the StatuteStore
	// EmbedSummaries are contracts' titles, summaries and scopes (what
	// summary_search reads), one text per contract, for a
	// SummaryVectorStore.
	EmbedSummaries = "summary"
)

// MaxEmbeddingPage bounds EmbeddingQuery.Limit.
const MaxEmbeddingPage = 1000

// ChunkBackfiller is an optional capability of a Store: it finds contracts
// stored with a text but without chunks (imported before chunking existed,
// or from a file that carried none), so that they can be chunked without
// re-extracting them.
type ChunkBackfiller interface {
	// ContractsWithoutChunks returns the ids, in id order, of every
	// contract that has a non-empty text and no chunk.
	ContractsWithoutChunks(ctx context.Context) ([]string, error)
}

// EmbeddingQuery asks an EmbeddingBackfiller for one page of stored texts
// that lack an embedding made by Model.
type EmbeddingQuery struct {
	Kind  string // EmbedChunks, EmbedStatutes or EmbedSummaries
	Model string // the embedding model's name, as recorded with each vector; required
	// After is the Next of the previous page ("" for the first page).
	After string
	Limit int // 1..MaxEmbeddingPage
}

// EmbeddingItem is one stored text to embed.
type EmbeddingItem struct {
	// Key identifies the item to PutEmbeddings; it is the store's own and
	// means nothing to the caller.
	Key string
	// Text is the chunk text (EmbedChunks) or the contract's title,
	// summary and scope on lines of their own (EmbedSummaries); for
	// statutes it is empty and
	// Statute holds the statute, whose embedded text the caller composes.
	Text    string
	Statute *contract.Statute
}

// EmbeddingPage is one page of MissingEmbeddings.
type EmbeddingPage struct {
	Items []EmbeddingItem
	Next  string // pass as EmbeddingQuery.After to continue
}

// EmbeddingCount says how many texts of a kind a store holds and how many of
// them have an embedding recorded for one model.
type EmbeddingCount struct {
	Total    int `json:"total"`
	Embedded int `json:"embedded"`
}

// Missing is how many texts lack an embedding for the model.
func (c EmbeddingCount) Missing() int { return c.Total - c.Embedded }

// EmbeddingBackfiller is an optional capability of a Store that records,
// with every chunk (and statute) vector, the name of the model that made
// it, so that embeddings can be added after an import and redone when the
// model changes. Vectors written without a model name (by PutContracts with
// an empty contract.Chunk.EmbeddingModel, or by a store written before
// models were recorded) count as missing for every model.
type EmbeddingBackfiller interface {
	// CountEmbeddings counts the texts of kind and those embedded by model.
	CountEmbeddings(ctx context.Context, kind, model string) (EmbeddingCount, error)

	// MissingEmbeddings returns a page of texts of q.Kind that have no
	// embedding by q.Model: none, or one by another or an unknown model.
	// Calling it again with After set to the previous page's Next, after
	// writing that page's embeddings, continues; an empty page means every
	// text lacking an embedding when the walk began has been returned
	// (texts written since may or may not be). Since written texts leave
	// the set, a walk interrupted at any point and started again from ""
	// continues where the first one stopped.
	MissingEmbeddings(ctx context.Context, q EmbeddingQuery) (EmbeddingPage, error)

	// PutEmbeddings stores vecs[i] as items[i]'s embedding by model, in one
	// transaction, replacing any other, and returns how many it wrote. An
	// item whose text changed or that was deleted since MissingEmbeddings
	// listed it is skipped, so that no vector describes another text. A
	// length mismatch, an empty vector or an empty model is an error and
	// writes nothing.
	PutEmbeddings(ctx context.Context, kind, model string, items []EmbeddingItem, vecs [][]float32) (int, error)
}
