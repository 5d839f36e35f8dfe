package retrieve

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/contractgraph/contractgraph/internal/contract"
	"github.com/contractgraph/contractgraph/internal/graph"
	"github.com/contractgraph/contractgraph/internal/llm"
	"github.com/contractgraph/contractgraph/internal/statute"
)

// Embedding backfill defaults.
const (
	// DefaultEmbedBatch is how many texts go into one embedding request
	// and one store write.
	DefaultEmbedBatch = 64
	// MaxEmbedTextBytes bounds each text sent to the embedding model.
	MaxEmbedTextBytes = 8000
)

// EmbedOptions configure EmbedMissing.
type EmbedOptions struct {
	// Model names the embedding model as the store records it with each
	// vector (e.g. "openai:text-embedding-3-small"); required.
	Model string
	// Kinds are what to embed, in order: graph.EmbedChunks and/or
	// graph.EmbedStatutes. Empty means chunks only.
	Kinds []string
	// Batch is how many texts go into one request; 0 means
	// DefaultEmbedBatch, at most graph.MaxEmbeddingPage.
	Batch int
	// Progress, when set, is called with 0 before a kind's first request
	// and after every batch: done of total texts of kind that lacked a
	// vector by Model when the kind began.
	Progress func(kind string, done, total int)
}

// EmbedReport says what EmbedMissing did for one kind.
type EmbedReport struct {
	Kind  string `json:"kind"`
	Model string `json:"model"`
	// Total is how many texts of the kind the store holds; Before how many
	// had a vector by Model already; Embedded how many this run added.
	Total    int `json:"total"`
	Before   int `json:"already_embedded"`
	Embedded int `json:"embedded"`
	// Tokens is the embedding input the provider reported.
	Tokens int `json:"tokens,omitempty"`
}

// Missing is how many texts of the kind still lack a vector by the model.
func (r EmbedReport) Missing() int { return max(0, r.Total-r.Before-r.Embedded) }

// EmbedError is an embedding request that failed. Everything embedded
// before it is stored.
type EmbedError struct {
	Kind  string // graph.EmbedChunks or graph.EmbedStatutes
	Model string
	Err   error
}

// Error implements error.
func (e *EmbedError) Error() string {
	return fmt.Sprintf("embed %ss with %s: %v", e.Kind, e.Model, e.Err)
}

// Unwrap returns the embedder's error.
func (e *EmbedError) Unwrap() error { return e.Err }

// EmbedMissing embeds, batch by batch, every stored text of opts.Kinds that
// lacks a vector by opts.Model (never embedded, changed since, or embedded
// by another model) and stores the vectors with the model's name. Each
// batch is committed on its own, so an interrupted or failed run keeps
// what it did and the next run continues from there; on an up-to-date store
// it only counts. It returns one report per kind begun, also on error; an
// embedding failure is an *EmbedError.
func EmbedMissing(ctx context.Context, store graph.EmbeddingBackfiller, emb llm.Embedder, opts EmbedOptions) ([]EmbedReport, error) {
	model := strings.TrimSpace(opts.Model)
	if model == "" {
		return nil, errors.New("embed missing: no embedding model name")
	}
	if emb == nil {
		return nil, errors.New("embed missing: no embedder")
	}
	batch := opts.Batch
	if batch == 0 {
		batch = DefaultEmbedBatch
	}
	if batch < 1 || batch > graph.MaxEmbeddingPage {
		return nil, fmt.Errorf("embed missing: batch %d out of range 1..%d", batch, graph.MaxEmbeddingPage)
	}
	kinds := opts.Kinds
	if len(kinds) == 0 {
		kinds = []string{graph.EmbedChunks}
	}
	progress := opts.Progress
	if progress == nil {
		progress = func(string, int, int) {}
	}
	var reports []EmbedReport
	for _, kind := range kinds {
		count, err := store.CountEmbeddings(ctx, kind, model)
		if err != nil {
			return reports, err
		}
		reports = append(reports, EmbedReport{Kind: kind, Model: model, Total: count.Total, Before: count.Embedded})
		rep := &reports[len(reports)-1]
		if err := embedKind(ctx, store, emb, rep, batch, count.Missing(), progress); err != nil {
			return reports, err
		}
	}
	return reports, nil
}

// embedKind walks the texts of rep.Kind lacking a vector by rep.Model.
func embedKind(ctx context.Context, store graph.EmbeddingBackfiller, emb llm.Embedder, rep *EmbedReport, batch, missing int, progress func(string, int, int)) error {
	progress(rep.Kind, 0, missing)
	if missing == 0 {
		return nil
	}
	done := 0
	after := ""
	var prev map[string]bool // keys of the previous page
	for {
		page, err := store.MissingEmbeddings(ctx, graph.EmbeddingQuery{Kind: rep.Kind, Model: rep.Model, After: after, Limit: batch})
		if err != nil {
			return err
		}
		if len(page.Items) == 0 {
			return nil
		}
		if prev != nil && allSeen(page.Items, prev) {
			return fmt.Errorf("embed %ss: the store listed the same %d texts again after storing their vectors", rep.Kind, len(page.Items))
		}
		texts := make([]string, len(page.Items))
		for i, it := range page.Items {
			texts[i] = EmbeddingText(it)
		}
		vecs, usage, err := emb.Embed(ctx, texts)
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			return &EmbedError{Kind: rep.Kind, Model: rep.Model, Err: err}
		}
		if len(vecs) != len(texts) {
			return &EmbedError{Kind: rep.Kind, Model: rep.Model, Err: fmt.Errorf("the model returned %d vectors for %d texts", len(vecs), len(texts))}
		}
		for i, v := range vecs {
			if len(v) == 0 {
				return &EmbedError{Kind: rep.Kind, Model: rep.Model, Err: fmt.Errorf("the model returned an empty vector for text %d of the batch", i+1)}
			}
		}
		rep.Tokens += usage.InputTokens
		n, err := store.PutEmbeddings(ctx, rep.Kind, rep.Model, page.Items, vecs)
		if err != nil {
			return err
		}
		rep.Embedded += n
		done += len(page.Items)
		progress(rep.Kind, done, max(done, missing))
		prev = make(map[string]bool, len(page.Items))
		for _, it := range page.Items {
			prev[it.Key] = true
		}
		after = page.Next
	}
}

func allSeen(items []graph.EmbeddingItem, seen map[string]bool) bool {
	for _, it := range items {
		if !seen[it.Key] {
			return false
		}
	}
	return true
}

// EmbeddingText is the text embedded for a backfill item: a chunk's text,
// or a statute's citation, heading and text; at most MaxEmbedTextBytes.
func EmbeddingText(it graph.EmbeddingItem) string {
	if it.Statute != nil {
		return StatuteText(it.Statute)
	}
	return clip(it.Text, MaxEmbedTextBytes)
}

// StatuteText is what is embedded of a statute: its citation, heading and
// text, at most MaxEmbedTextBytes.
func StatuteText(st *contract.Statute) string {
	return clip(statute.Cite(st)+" "+st.Heading+"\n"+st.Text, MaxEmbedTextBytes)
}

// clip cuts s to at most n bytes at a rune boundary.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n]
}

// ChunkStore is a store that can list the contracts it holds without chunks.
type ChunkStore interface {
	graph.Store
	graph.ChunkBackfiller
}

// ChunkReport says what ChunkMissing did.
type ChunkReport struct {
	// Contracts counts the contracts found with a text and no chunks;
	// Chunked those written back with chunks, and Chunks their chunks.
	Contracts int `json:"contracts"`
	Chunked   int `json:"chunked"`
	Chunks    int `json:"chunks"`
	// Failures describe contracts that could not be chunked or written.
	Failures []string `json:"failures"`
}

// chunkWriteBatch is how many contracts ChunkMissing writes per call.
const chunkWriteBatch = 100

// ChunkMissing chunks (with opts) the text of every stored contract that
// has a text and no chunks, and writes each contract back with its chunks,
// without re-extracting anything. progress, when set, is called with done
// of total contracts. A contract that cannot be read or written is
// reported in Failures and the others go on; the returned error is the
// store's own failure or the context's end. A text with nothing to chunk
// (only white space) is skipped.
func ChunkMissing(ctx context.Context, store ChunkStore, opts ChunkOptions, progress func(done, total int)) (ChunkReport, error) {
	rep := ChunkReport{Failures: []string{}}
	if progress == nil {
		progress = func(int, int) {}
	}
	ids, err := store.ContractsWithoutChunks(ctx)
	if err != nil {
		return rep, err
	}
	rep.Contracts = len(ids)
	progress(0, len(ids))
	var batch []*contract.Contract
	done := 0
	flush := func() error {
		if len(batch) == 0 {
			return nil
		}
		out, err := store.PutContracts(ctx, batch)
		if err != nil {
			return err
		}
		for i, o := range out {
			if o.Status == graph.PutFailed {
				rep.Failures = append(rep.Failures, fmt.Sprintf("contract %q: write with chunks: %v", o.ID, o.Err))
				continue
			}
			rep.Chunked++
			rep.Chunks += len(batch[i].Chunks)
		}
		done += len(batch)
		progress(done, len(ids))
		batch = batch[:0]
		return nil
	}
	for _, id := range ids {
		c, err := store.GetContract(ctx, id)
		if err != nil {
			if ctx.Err() != nil {
				return rep, ctx.Err()
			}
			rep.Failures = append(rep.Failures, fmt.Sprintf("contract %q: read: %v", id, err))
			done++
			continue
		}
		c.Chunks = Chunk(c.Text, opts)
		if len(c.Chunks) == 0 {
			done++
			continue
		}
		if batch = append(batch, c); len(batch) == chunkWriteBatch {
			if err := flush(); err != nil {
				return rep, err
			}
		}
	}
	if err := flush(); err != nil {
		return rep, err
	}
	progress(len(ids), len(ids))
	return rep, nil
}
