package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/contractgraph/contractgraph/internal/graph"
	"github.com/contractgraph/contractgraph/internal/llm"
	"github.com/contractgraph/contractgraph/internal/retrieve"
)

// reindexSummary is what a reindex did, printed at the end (--json prints
// it as is).
type reindexSummary struct {
	Chunks retrieve.ChunkReport `json:"chunks"`
	// Embeddings has one report per kind (chunks, statutes) with
	// --embeddings; nil without.
	Embeddings []retrieve.EmbedReport `json:"embeddings,omitempty"`
	// UpToDate is true when there was nothing to recompute.
	UpToDate bool    `json:"up_to_date"`
	Error    string  `json:"error,omitempty"`
	Seconds  float64 `json:"seconds"`
	// Hint says what a run with --embeddings would add, when an embedding
	// model is configured but --embeddings was not given.
	Hint string `json:"hint,omitempty"`
}

func newReindexCmd(a *app) *cobra.Command {
	var embeddings bool
	var batch int
	cmd := &cobra.Command{
		Use:   "reindex",
		Short: "Recompute derived data (chunks, embeddings) of stored contracts without re-extracting them",
		Long: "Recompute what is derived from the stored contracts, without calling a chat model:\n" +
			"  - chunks (the passages clause_search ranks) for every contract that has a text and none;\n" +
			"  - with --embeddings, the vector of every chunk, of every contract's title, summary and\n" +
			"    scope (so that summary_search also finds contracts by meaning), and of every statute\n" +
			"    when the store keeps statutes, that has none by the embedding model (--embed-model, env\n" +
			"    CONTRACTGRAPH_EMBED_MODEL): never embedded, changed since, or embedded by another model.\n" +
			"Every vector records the model that made it, so changing the model re-embeds.\n\n" +
			"Work is committed batch by batch: an interrupted run keeps what it did and the next run\n" +
			"continues from there. On an up-to-date store reindex only counts and says so.",
		Example: `  contractgraph reindex
  contractgraph --embed-model openai:text-embedding-3-small reindex --embeddings
  CONTRACTGRAPH_EMBED_MODEL=ollama:nomic-embed-text contractgraph reindex --embeddings --batch 16 --json`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx := cmd.Context()
			if batch < 1 || batch > graph.MaxEmbeddingPage {
				return usageError(fmt.Errorf("--batch %d: want 1..%d texts per embedding request", batch, graph.MaxEmbeddingPage))
			}
			model := strings.TrimSpace(a.cfg.EmbedModel)
			if embeddings && model == "" {
				return usageError(errors.New("--embeddings needs an embedding model: pass --embed-model provider:model or set CONTRACTGRAPH_EMBED_MODEL (e.g. openai:text-embedding-3-small, ollama:nomic-embed-text)"))
			}
			var emb llm.Embedder
			if embeddings {
				var err error
				if emb, err = a.openServerEmbedder(ctx); err != nil {
					return err
				}
			}
			store, err := a.openExistingStore(ctx)
			if err != nil {
				return err
			}
			defer store.Close()
			sum, runErr := a.reindex(ctx, store, emb, model, batch)
			if runErr != nil && !errors.Is(runErr, context.Canceled) && sum == nil {
				return runErr
			}
			if runErr != nil {
				sum.Error = runErr.Error()
			}
			if err := a.printReindex(sum); err != nil {
				return err
			}
			switch {
			case errors.Is(runErr, context.Canceled):
				fmt.Fprintln(a.stderr, "reindex interrupted: what was done is kept; run the same command again to continue")
				return runErr
			case runErr != nil:
				return runErr
			case len(sum.Chunks.Failures) > 0:
				return silentExit(1)
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&embeddings, "embeddings", false, "also embed every chunk and statute without a vector by --embed-model")
	cmd.Flags().IntVar(&batch, "batch", retrieve.DefaultEmbedBatch, fmt.Sprintf("texts per embedding request and store write (1-%d)", graph.MaxEmbeddingPage))
	return cmd
}

// reindex runs the backfills. It returns a nil summary only when nothing
// ran (the store cannot reindex); otherwise the summary of what was done,
// also with an error.
func (a *app) reindex(ctx context.Context, store graph.Store, emb llm.Embedder, model string, batch int) (*reindexSummary, error) {
	started := time.Now()
	cs, ok := store.(retrieve.ChunkStore)
	if !ok {
		return nil, fmt.Errorf("the %s store cannot reindex (it has no chunk backfill)", a.backendName())
	}
	sum := &reindexSummary{Chunks: retrieve.ChunkReport{Failures: []string{}}}
	defer func() { sum.Seconds = time.Since(started).Seconds() }()
	bar := newProgressBar(a.stderr, a.cfg.JSON)
	defer bar.clear()

	bar.start("chunking texts without chunks")
	rep, err := retrieve.ChunkMissing(ctx, cs, retrieve.ChunkOptions{}, func(done, total int) {
		bar.update(int64(done), int64(total), done)
	})
	bar.clear()
	sum.Chunks = rep
	if err != nil {
		return sum, fmt.Errorf("reindex chunks: %w", err)
	}

	eb, canEmbed := store.(graph.EmbeddingBackfiller)
	switch {
	case emb != nil && !canEmbed:
		return sum, fmt.Errorf("the %s store cannot record embeddings", a.backendName())
	case emb != nil:
		sum.Embeddings, err = retrieve.EmbedMissing(ctx, eb, emb, retrieve.EmbedOptions{
			Model: model, Kinds: embedKinds(store, true), Batch: batch, Progress: embedProgress(bar, model),
		})
		bar.clear()
		if err != nil {
			return sum, err
		}
	case model != "" && canEmbed:
		if c, err := eb.CountEmbeddings(ctx, graph.EmbedChunks, model); err == nil && c.Missing() > 0 {
			sum.Hint = fmt.Sprintf("%d of %d chunks have no vector by %s: `%s` adds them", c.Missing(), c.Total, model, a.reindexCommand())
		}
	}
	// A text of only white space has nothing to chunk and stays listed.
	sum.UpToDate = rep.Chunked == 0 && len(rep.Failures) == 0
	for _, r := range sum.Embeddings {
		sum.UpToDate = sum.UpToDate && r.Embedded == 0 && r.Missing() == 0
	}
	return sum, nil
}

// embedKinds are the kinds of text store keeps vectors of: chunks, the
// contracts' summaries when it can search them (graph.SummaryVectorStore)
// and, with statutes, its statutes when it keeps them.
func embedKinds(store any, statutes bool) []string {
	kinds := []string{graph.EmbedChunks}
	if _, ok := store.(graph.SummaryVectorStore); ok {
		kinds = append(kinds, graph.EmbedSummaries)
	}
	if _, ok := store.(graph.StatuteStore); ok && statutes {
		kinds = append(kinds, graph.EmbedStatutes)
	}
	return kinds
}

// embedProgress draws EmbedMissing's progress on bar, one bar per kind.
func embedProgress(bar *progressBar, model string) func(kind string, done, total int) {
	return func(kind string, done, total int) {
		if done == 0 {
			bar.startUnit("embedding "+kind+"s with "+model, kind+"s")
		}
		bar.update(int64(done), int64(total), done)
	}
}

func (a *app) printReindex(sum *reindexSummary) error {
	if a.cfg.JSON {
		enc := json.NewEncoder(a.stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(sum)
	}
	for _, f := range sum.Chunks.Failures {
		fmt.Fprintln(a.stderr, f)
	}
	if sum.Chunks.Contracts > 0 {
		fmt.Fprintf(a.stdout, "chunks: %d contracts had a text without chunks; %d chunked into %d chunks", sum.Chunks.Contracts, sum.Chunks.Chunked, sum.Chunks.Chunks)
		if skipped := sum.Chunks.Contracts - sum.Chunks.Chunked - len(sum.Chunks.Failures); skipped > 0 {
			fmt.Fprintf(a.stdout, " (%d with only white space)", skipped)
		}
		fmt.Fprintln(a.stdout)
	} else {
		fmt.Fprintln(a.stdout, "chunks: every contract with a text has chunks")
	}
	for _, r := range sum.Embeddings {
		fmt.Fprintf(a.stdout, "embeddings: %d of %d %ss have a vector by %s (%d added now", r.Before+r.Embedded, r.Total, r.Kind, r.Model, r.Embedded)
		if m := r.Missing(); m > 0 {
			fmt.Fprintf(a.stdout, ", %d still missing", m)
		}
		fmt.Fprintln(a.stdout, ")")
	}
	if sum.Hint != "" {
		fmt.Fprintln(a.stdout, sum.Hint)
	}
	if sum.UpToDate && sum.Error == "" {
		fmt.Fprintf(a.stdout, "up to date: nothing to recompute (%.2fs)\n", sum.Seconds)
	} else if sum.Error == "" {
		fmt.Fprintf(a.stdout, "reindexed in %.2fs\n", sum.Seconds)
	}
	return nil
}

// backendName is the configured backend's name for messages.
func (a *app) backendName() string {
	if a.cfg.Store == "" {
		return "sqlite"
	}
	return a.cfg.Store
}

// reindexCommand is the exact command that adds the vectors missing for the
// configured embedding model to the configured store.
func (a *app) reindexCommand() string {
	parts := []string{"contractgraph", "reindex", "--embeddings", "--embed-model", shellQuote(strings.TrimSpace(a.cfg.EmbedModel))}
	if a.backendName() == "sqlite" {
		parts = append(parts, "--db", shellQuote(a.cfg.DB))
	} else {
		parts = append(parts, "--store", shellQuote(a.cfg.Store))
	}
	return strings.Join(parts, " ")
}

var shellSafe = regexp.MustCompile(`^[A-Za-z0-9_./:@%+=,-]+$`)

// shellQuote quotes s for a POSIX shell when it needs quoting.
func shellQuote(s string) string {
	if shellSafe.MatchString(s) {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// openServerEmbedder opens the --embed-model embedder, whose failures name
// the server and the variable that points at it.
func (a *app) openServerEmbedder(ctx context.Context) (llm.Embedder, error) {
	emb, err := a.openEmbedder(ctx)
	if err != nil {
		return nil, err
	}
	n, err := llm.ParseModelName(a.cfg.EmbedModel)
	if err != nil {
		return nil, fmt.Errorf("--embed-model: %w", err)
	}
	ep := endpointFor(n, true)
	return serverEmbedder{Embedder: emb, model: strings.TrimSpace(a.cfg.EmbedModel), url: ep.url, envVar: ep.envVar}, nil
}

// serverEmbedder wraps an embedder's errors in an *embedServerError.
type serverEmbedder struct {
	llm.Embedder
	model, url, envVar string
}

func (e serverEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, llm.Usage, error) {
	v, u, err := e.Embedder.Embed(ctx, texts)
	if err != nil && ctx.Err() == nil {
		err = &embedServerError{model: e.model, url: e.url, envVar: e.envVar, err: err}
	}
	return v, u, err
}

// embedServerError is a failed embedding call, said with the server's
// address and how it is configured.
type embedServerError struct {
	model, url, envVar string
	err                error
}

func (e *embedServerError) Error() string {
	where := "embedding server"
	if e.url != "" {
		where += " at " + e.url
	}
	msg := fmt.Sprintf("%s failed: %v (embedding model %s", where, e.err, e.model)
	if e.envVar != "" {
		msg += "; the server is set by " + e.envVar
	}
	return msg + ")"
}

func (e *embedServerError) Unwrap() error { return e.err }
