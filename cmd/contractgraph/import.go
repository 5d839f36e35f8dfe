package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"runtime/debug"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/spf13/cobra"
	"golang.org/x/sync/errgroup"

	"github.com/contractgraph/contractgraph/internal/contract"
	"github.com/contractgraph/contractgraph/internal/family"
	"github.com/contractgraph/contractgraph/internal/graph"
	"github.com/contractgraph/contractgraph/internal/graph/sqlite"
	"github.com/contractgraph/contractgraph/internal/importer"
	"github.com/contractgraph/contractgraph/internal/llm"
	"github.com/contractgraph/contractgraph/internal/resolve"
	"github.com/contractgraph/contractgraph/internal/retrieve"
)

// importBatch is how many contracts are written per PutContracts call: the
// SQLite store's own transaction size, measured fastest for large imports
// (5,000 costs about 11% less CPU than 1,000: fewer commits rewrite the
// same index pages, and the passage index merges each term's tail block
// once per batch). Tests lower it to see more than one batch.
var importBatch = 5000

// importBatchBytes bounds a batch by the text it carries as well as by
// count: 5,000 synthetic contracts of a few KiB each are ~15 MiB, but as
// many full-length agreements (CUAD's average ~50 KiB, some over 300 KiB)
// would be gigabytes, with up to four batches alive at once. Tests lower
// it.
var importBatchBytes = 32 << 20

// textBytes estimates what a contract holds in memory: its texts.
func textBytes(c *contract.Contract) int {
	n := len(c.Text) + len(c.Summary)
	for i := range c.Clauses {
		n += len(c.Clauses[i].Text) + len(c.Clauses[i].Summary)
	}
	for i := range c.Chunks {
		n += len(c.Chunks[i].Text)
	}
	return n
}

// importGCPercent and importMemoryLimit are the garbage collector's
// settings while an import reads and writes (see runImport).
const (
	importGCPercent   = 300
	importMemoryLimit = 256 << 20
)

// afterImportMemoryLimit is the garbage collector's memory limit while
// entity resolution and family detection run after an import. Each holds
// every party or contract of the store at once (at a million contracts,
// 200-300 MB live); without a limit the heap grows to twice that before a
// collection, which made them the peak of the whole import.
const afterImportMemoryLimit = 512 << 20

// memoryReleaser is a store that can give back the memory a bulk write
// left in its caches (the SQLite store's writer page cache).
type memoryReleaser interface {
	ReleaseMemory(ctx context.Context) error
}

// boundAfterImport prepares for what follows an import: the store's write
// caches are released, and unless GOGC or GOMEMLIMIT is set, the garbage
// collector's memory limit is afterImportMemoryLimit until restore is
// called.
func boundAfterImport(ctx context.Context, store graph.Store) (restore func(), err error) {
	if r, ok := store.(memoryReleaser); ok {
		if err := r.ReleaseMemory(ctx); err != nil {
			return nil, fmt.Errorf("import: %w", err)
		}
	}
	if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		return func() {}, nil
	}
	old := debug.SetMemoryLimit(afterImportMemoryLimit)
	return func() { debug.SetMemoryLimit(old) }, nil
}

// indexDeferrer is a store whose secondary indexes a bulk import can build
// once at its end instead of keeping them up to date row by row (the SQLite
// store; see sqlite.Store.DeferIndexes).
type indexDeferrer interface {
	DeferIndexes(ctx context.Context) (bool, error)
	BuildIndexes(ctx context.Context, progress func(sqlite.Progress)) error
}

// deferIndexes defers the indexes of store when it can and is empty, and
// returns it then; nil means the import maintains every index as it goes.
func deferIndexes(ctx context.Context, store graph.Store) (indexDeferrer, error) {
	d, ok := store.(indexDeferrer)
	if !ok {
		return nil, nil
	}
	deferred, err := d.DeferIndexes(ctx)
	if err != nil || !deferred {
		return nil, err
	}
	return d, nil
}

// buildIndexes builds the indexes the import deferred, with progress.
func buildIndexes(ctx context.Context, d indexDeferrer, bar *progressBar) error {
	err := d.BuildIndexes(ctx, func(p sqlite.Progress) {
		if p.Done == 0 {
			bar.startUnit(p.Step, "indexes")
		}
		bar.update(p.Done, p.Total, int(p.Done))
	})
	bar.clear()
	if err != nil {
		return fmt.Errorf("import: %w", err)
	}
	return nil
}

// importSummary is what an import did, printed at the end (--json prints it
// as is).
type importSummary struct {
	Imported  int `json:"imported"`
	Updated   int `json:"updated"`
	Unchanged int `json:"unchanged"`
	// Merged counts contracts combined with a stored version from another
	// source (contract.Merge); Kept the stored values that survived
	// because the new record lacked them; Conflicts the fields both gave
	// differently, each with the value kept by precedence and the other.
	Merged    int              `json:"merged"`
	Kept      int              `json:"kept_values"`
	Conflicts []importConflict `json:"conflicts"`
	Failed    int              `json:"failed"`
	Warnings  int              `json:"warnings"`
	Failures  []string         `json:"failures"` // the first --max-errors of them
	Seconds   float64          `json:"seconds"`
	// FailuresOmitted counts failures not in Failures; ErrorsFile names
	// the file that holds all of them (--errors).
	FailuresOmitted int    `json:"failures_omitted,omitempty"`
	ErrorsFile      string `json:"errors_file,omitempty"`
	// MergedParties counts parties entity resolution merged into others.
	MergedParties int `json:"merged_parties,omitempty"`
	// Families says what family detection found after the import; nil
	// when it did not run (--no-families, a store without links, or an
	// import that changed no contract and merged no party).
	Families *importFamilies `json:"families,omitempty"`
	// Embeddings says what was embedded with an embedding model
	// (--embed-model); nil without one.
	Embeddings *importEmbeddings `json:"embeddings,omitempty"`
}

// importFamilies is the family detection part of an import's summary.
type importFamilies struct {
	Documents  int `json:"documents"`
	Linked     int `json:"linked"`
	Unresolved int `json:"unresolved"`
}

// importConflict is one field two sources of a contract disagree on.
type importConflict struct {
	ContractID string `json:"contract_id"`
	contract.Conflict
}

// importEmbeddings is the embedding part of an import's summary.
type importEmbeddings struct {
	Model string `json:"model"`
	// Embedded chunks got a vector now; Missing still have none by Model.
	Embedded int `json:"embedded"`
	Missing  int `json:"missing"`
	// Summaries is how many contracts' summaries got a vector now, for
	// summary_search by meaning (graph.SummaryVectorStore).
	Summaries int `json:"summaries_embedded,omitempty"`
	// Error is why embedding stopped; Reindex the command that adds the
	// missing vectors to what was imported.
	Error   string `json:"error,omitempty"`
	Reindex string `json:"reindex,omitempty"`
}

func newImportCmd(a *app) *cobra.Command {
	var textsDir string
	var noResolve, noFamilies bool
	var limits importLimits
	cmd := &cobra.Command{
		Use:   "import PATH...",
		Short: "Import contracts from reference JSON, CUAD master_clauses.csv or ContractGraph JSONL",
		Long: "Import contracts into the graph. The format of each file is detected from its content:\n" +
			"  - a JSON array of reference extraction records (legal-tech-chat contract_data.json);\n" +
			"  - CUAD's master_clauses.csv, with --texts pointing at full_contract_txt/ (a CUAD directory\n" +
			"    holding master_clauses.csv and full_contract_txt/ may be given instead of the file);\n" +
			"  - ContractGraph JSONL, as written by `contractgraph export` and `contractgraph generate`.\n\n" +
			"Contracts are keyed by id: importing the same input again changes nothing. A bad record is\n" +
			"reported with its file, record and field, and the rest still imports; the exit code is 1 if\n" +
			"anything failed. Values that could not be normalised are dropped and counted as warnings\n" +
			"(listed with -v).\n\n" +
			"With an embedding model (--embed-model, env CONTRACTGRAPH_EMBED_MODEL) the import then embeds,\n" +
			"in batches, every chunk in the store that has no vector by that model, so that clause_search\n" +
			"fuses vector similarity with BM25. Should the embedding server fail, what was imported stays\n" +
			"imported, the summary says how many vectors are missing, and `contractgraph reindex\n" +
			"--embeddings` adds them later.",
		Args: usageArgs(cobra.MinimumNArgs(1)),
		RunE: func(cmd *cobra.Command, paths []string) error {
			ctx := cmd.Context()
			if err := limits.validate(); err != nil {
				return err
			}
			errs, err := newErrorLog(limits.maxErrors, limits.errorsFile)
			if err != nil {
				return err
			}
			defer errs.close()
			store, err := a.openStore(ctx)
			if err != nil {
				return err
			}
			defer store.Close()
			// The embedding model is opened (which calls no server) before
			// anything is imported, so that a misconfigured one stops here.
			var emb llm.Embedder
			var eb graph.EmbeddingBackfiller
			if strings.TrimSpace(a.cfg.EmbedModel) != "" {
				var ok bool
				if eb, ok = store.(graph.EmbeddingBackfiller); !ok {
					return fmt.Errorf("--embed-model: the %s store cannot record embeddings", a.backendName())
				}
				if emb, err = a.openServerEmbedder(ctx); err != nil {
					return err
				}
			}
			bar := newProgressBar(a.stderr, a.cfg.JSON)
			deferred, err := deferIndexes(ctx, store)
			if err != nil {
				return err
			}
			sum, err := runImport(ctx, store, paths, importer.Options{TextsDir: textsDir, Limits: limits.Limits}, errs, bar, func(warning error) {
				if a.cfg.Verbose {
					bar.clear()
					fmt.Fprintf(a.stderr, "warning: %v\n", warning)
				}
			})
			bar.clear()
			if deferred != nil {
				// Also when the import failed or was interrupted: what it
				// wrote is kept, and is slow to query without them.
				err = errors.Join(err, buildIndexes(context.WithoutCancel(ctx), deferred, bar))
			}
			if cerr := errs.close(); err == nil {
				err = cerr
			}
			if err != nil {
				if ctx.Err() != nil {
					a.reportInterruptedImport(sum)
				}
				return err
			}
			restore, err := boundAfterImport(ctx, store)
			if err != nil {
				return err
			}
			defer restore()
			if !noResolve {
				// Also when nothing changed: resolution is incremental, and
				// so finishes what an interrupted run left.
				rep, err := a.runResolve(ctx, store, resolve.Options{}, bar)
				switch {
				case errors.Is(err, resolve.ErrUnsupported):
					a.log.Info("entity resolution skipped", "reason", err)
				case err != nil:
					if ctx.Err() != nil {
						fmt.Fprintf(a.stderr, "the import itself is complete: imported %d, updated %d, unchanged %d, failed %d\n", sum.Imported, sum.Updated, sum.Unchanged, sum.Failed)
					}
					return err
				default:
					sum.MergedParties = rep.MergedParties()
				}
			}
			if changed := sum.Imported + sum.Updated + sum.Merged + sum.MergedParties; !noFamilies && changed > 0 {
				// Replaced contracts lost their links: detect them again.
				// An import that wrote nothing and merged no parties left
				// every link as it was.
				rep, err := a.runFamilies(ctx, store, family.Options{}, false, bar)
				switch {
				case errors.Is(err, errNoLinks):
					a.log.Info("family detection skipped", "reason", err)
				case err != nil:
					return err
				default:
					sum.Families = &importFamilies{Documents: rep.Documents, Linked: rep.Linked, Unresolved: len(rep.Unresolved)}
				}
			}
			var embedErr error
			if emb != nil {
				sum.Embeddings, embedErr = a.importEmbeddings(ctx, eb, emb, bar)
				bar.clear()
			}
			if a.cfg.JSON {
				enc := json.NewEncoder(a.stdout)
				enc.SetIndent("", "  ")
				if err := enc.Encode(sum); err != nil {
					return err
				}
			} else {
				for _, f := range sum.Failures {
					fmt.Fprintln(a.stderr, f)
				}
				if more := errs.more(); more != "" {
					fmt.Fprintln(a.stderr, more)
				}
				fmt.Fprintf(a.stdout, "imported %d, ", sum.Imported)
				if sum.Merged > 0 {
					fmt.Fprintf(a.stdout, "merged %d, ", sum.Merged)
				}
				fmt.Fprintf(a.stdout, "updated %d, unchanged %d, failed %d", sum.Updated, sum.Unchanged, sum.Failed)
				if sum.Warnings > 0 {
					fmt.Fprintf(a.stdout, "; %d values dropped with warnings", sum.Warnings)
					if !a.cfg.Verbose {
						fmt.Fprint(a.stdout, " (-v lists them)")
					}
				}
				fmt.Fprintf(a.stdout, " in %.2fs\n", sum.Seconds)
				if sum.Merged > 0 || len(sum.Conflicts) > 0 {
					printMerges(a, sum)
				}
				if sum.MergedParties > 0 {
					fmt.Fprintf(a.stdout, "entity resolution merged %d duplicate parties into others (--no-resolve skips it)\n", sum.MergedParties)
				}
				if f := sum.Families; f != nil && f.Documents > 0 {
					fmt.Fprintf(a.stdout, "families: %d contracts refer to a master agreement, %d linked, %d unresolved (`contractgraph families list`)\n",
						f.Documents, f.Linked, f.Unresolved)
				}
				if e := sum.Embeddings; e != nil {
					fmt.Fprintf(a.stdout, "embedded %d chunks", e.Embedded)
					if e.Summaries > 0 {
						fmt.Fprintf(a.stdout, " and %d summaries", e.Summaries)
					}
					fmt.Fprintf(a.stdout, " with %s", e.Model)
					if e.Missing > 0 {
						fmt.Fprintf(a.stdout, "; %d chunks have no vector", e.Missing)
					}
					fmt.Fprintln(a.stdout)
				}
			}
			if e := sum.Embeddings; e != nil && e.Error != "" {
				fmt.Fprintf(a.stderr, "embeddings missing: %d chunks have no vector by %s. The contracts are imported; add the vectors with:\n  %s\n", e.Missing, e.Model, e.Reindex)
				if errors.Is(embedErr, context.Canceled) {
					return embedErr
				}
				return fmt.Errorf("import: %w", embedErr)
			}
			if sum.Failed > 0 {
				return silentExit(1)
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&textsDir, "texts", "", "directory of CUAD full_contract_txt files (default: full_contract_txt next to the CSV)")
	cmd.Flags().BoolVar(&noResolve, "no-resolve", false, "skip entity resolution (merging duplicate parties) after the import")
	cmd.Flags().BoolVar(&noFamilies, "no-families", false, "skip family detection (linking amendments to their masters) after the import")
	limits.register(cmd.Flags())
	return cmd
}

// reportInterruptedImport says, on stderr, what an interrupted import
// kept: the contracts of the batches committed before Ctrl+C stay stored
// (the batch being written is rolled back), and running the same command
// again imports the rest, finding the kept ones unchanged.
func (a *app) reportInterruptedImport(sum importSummary) {
	kept := sum.Imported + sum.Updated + sum.Unchanged
	fmt.Fprintf(a.stderr, "interrupted: kept %s (imported %d, updated %d, unchanged %d; %d failed); "+
		"the batch being written was rolled back. Run the same command again to import the rest.\n",
		plural(kept, "contract"), sum.Imported, sum.Updated, sum.Unchanged, sum.Failed)
}

// importEmbeddings embeds every chunk of the store without a vector by the
// configured model, with a progress bar. On failure (the server, or an
// interrupt) the summary says how many vectors are missing and which
// command adds them; the error is returned too.
func (a *app) importEmbeddings(ctx context.Context, eb graph.EmbeddingBackfiller, emb llm.Embedder, bar *progressBar) (*importEmbeddings, error) {
	model := strings.TrimSpace(a.cfg.EmbedModel)
	out := &importEmbeddings{Model: model}
	reps, err := retrieve.EmbedMissing(ctx, eb, emb, retrieve.EmbedOptions{Model: model, Kinds: embedKinds(eb, false), Progress: embedProgress(bar, model)})
	for _, r := range reps {
		switch r.Kind {
		case graph.EmbedChunks:
			out.Embedded, out.Missing = r.Embedded, r.Missing()
		case graph.EmbedSummaries:
			out.Summaries = r.Embedded
		}
	}
	if err != nil {
		out.Error, out.Reindex = err.Error(), a.reindexCommand()
		if len(reps) == 0 {
			// Not even counted: count again, without the cancelled context.
			if c, cerr := eb.CountEmbeddings(context.WithoutCancel(ctx), graph.EmbedChunks, model); cerr == nil {
				out.Missing = c.Missing()
			}
		}
	}
	return out, err
}

// importEvent is one record's outcome, in input order: a contract to write,
// a failure, or a warning.
type importEvent struct {
	c       *contract.Contract
	p       *graph.Prepared // c prepared by the reader, or nil
	where   string          // for a contract: file, record and id
	failure string
	warning error
}

// eventBatch is what the reader hands the writer: events of one input file
// and how far into it the reader was when the batch ended, so that the bar
// shows what is written rather than what is read (at 1M the writer ends
// about a minute after the reader).
type eventBatch struct {
	events      []importEvent
	path        string
	done, total int64 // bytes of path read when the batch ended
	end         bool  // the last batch of path
}

// runImport imports every path into store, recording failures in errs.
// Reading and parsing run in one
// goroutine and writing in another, so that parsing the next batch overlaps
// writing this one; at most two batches wait in between. Failures (bad
// records, unreadable files, contracts the store rejected) are counted and
// described in the summary; the returned error is only for the store itself
// failing or the context ending. The bar follows the batches written, so
// that it reaches 100% when the last one is committed.
func runImport(ctx context.Context, store graph.Store, paths []string, opts importer.Options, errs *errorLog, bar *progressBar, warn func(error)) (importSummary, error) {
	started := time.Now()
	if os.Getenv("GOGC") == "" && os.Getenv("GOMEMLIMIT") == "" {
		// Reading and writing allocate fast and keep little (a few
		// batches): collecting garbage a third as often costs an import
		// about 10% less CPU. The memory limit bounds what that may cost
		// in memory; both are restored for what follows the import.
		defer debug.SetGCPercent(debug.SetGCPercent(importGCPercent))
		defer debug.SetMemoryLimit(debug.SetMemoryLimit(importMemoryLimit))
	}
	sum := importSummary{Failures: []string{}, Conflicts: []importConflict{}}
	// Unbuffered: the reader fills the next batch while the writer
	// writes one, and no more. Each batch held is ~25 MB of live heap at
	// 5,000 contracts, which the collector scans on every cycle and which
	// leaves it less room under importMemoryLimit; two more batches queued
	// cost an import of 300,000 contracts ~18% more CPU, and the writer,
	// the slower of the two from the first few thousand contracts on,
	// never needs them.
	batches := make(chan eventBatch)
	g, gctx := errgroup.WithContext(ctx)

	g.Go(func() error {
		defer close(batches)
		var batch []importEvent
		contracts, size := 0, 0
		var done, total atomic.Int64
		send := func(path string, end bool) error {
			b := eventBatch{events: batch, path: path, done: done.Load(), total: total.Load(), end: end}
			select {
			case batches <- b:
				batch, contracts, size = nil, 0, 0
				return nil
			case <-gctx.Done():
				return gctx.Err()
			}
		}
		for _, path := range paths {
			done.Store(0)
			total.Store(0)
			opts.Progress = func(d, t int64) { done.Store(d); total.Store(t) }
			err := importer.Read(gctx, path, opts, func(r importer.Record) error {
				for _, w := range r.Warnings {
					batch = append(batch, importEvent{warning: w})
				}
				if r.Err != nil {
					batch = append(batch, importEvent{failure: r.Err.Error()})
					if len(batch) >= importBatch {
						// Failures and warnings count too: a file of bad
						// records must not pile up in one batch.
						return send(path, false)
					}
					return nil
				}
				prep := r.Prepared
				if c := r.Contract; c.Text != "" && len(c.Chunks) == 0 {
					// Index the text for clause_search, as ingest does.
					c.Chunks = retrieve.Chunk(c.Text, retrieve.ChunkOptions{})
					prep = nil // prepared without the chunks
				}
				batch = append(batch, importEvent{c: r.Contract, p: prep, where: fmt.Sprintf("%s: record %d (id %q)", path, r.Index, r.Contract.ID)})
				size += textBytes(r.Contract)
				if contracts++; contracts >= importBatch || size >= importBatchBytes {
					return send(path, false)
				}
				return nil
			})
			if gctx.Err() != nil {
				return gctx.Err()
			}
			if err != nil {
				// The input ended early (unreadable, unknown format, malformed).
				batch = append(batch, importEvent{failure: err.Error()})
			}
			// Even empty, the last batch of a file takes its bar to the end.
			if err := send(path, true); err != nil {
				return err
			}
		}
		return nil
	})

	g.Go(func() error {
		written, label := 0, ""
		for b := range batches {
			if b.path != label {
				bar.start(b.path)
				label = b.path
			}
			var cs []*contract.Contract
			var preps []*graph.Prepared
			var where []string
			for _, e := range b.events {
				switch {
				case e.warning != nil:
					sum.Warnings++
					warn(e.warning)
				case e.failure != "":
					errs.add(e.failure)
				default:
					cs = append(cs, e.c)
					preps = append(preps, e.p)
					where = append(where, e.where)
				}
			}
			if len(cs) > 0 {
				// On an interrupt, out covers the contracts of the batches
				// that were committed: counted, they say what was kept.
				var out []graph.PutOutcome
				var err error
				if pp, ok := store.(graph.PreparedPutter); ok && !slices.Contains(preps, nil) {
					// The reader validated every contract with graph.Prepare:
					// the store need not prepare them again.
					out, err = pp.PutPrepared(gctx, preps)
				} else {
					out, err = store.PutContracts(gctx, cs)
				}
				countOutcomes(&sum, errs, out, where)
				if err != nil {
					return fmt.Errorf("import: %w", err)
				}
				written += len(cs)
			}
			switch {
			case b.end && b.total > 0:
				bar.update(b.total, b.total, written)
			case b.total > 0:
				// Bytes read run ahead of the records parsed (a buffer's
				// worth): only the end of the file is 100%.
				bar.update(min(b.done, b.total-1), b.total, written)
			}
		}
		return nil
	})

	err := g.Wait()
	sum.Failed, sum.Failures, sum.FailuresOmitted, sum.ErrorsFile = errs.count, errs.kept, errs.omitted(), errs.path
	if err != nil {
		if ctx.Err() != nil {
			return sum, ctx.Err()
		}
		return sum, err
	}
	sum.Seconds = time.Since(started).Seconds()
	return sum, nil
}

// countOutcomes adds the outcomes of one PutContracts call to sum and its
// failures to errs; where describes each contract written, in order.
func countOutcomes(sum *importSummary, errs *errorLog, out []graph.PutOutcome, where []string) {
	for i, o := range out {
		switch o.Status {
		case graph.PutCreated:
			sum.Imported++
		case graph.PutUpdated:
			sum.Updated++
		case graph.PutUnchanged:
			sum.Unchanged++
		case graph.PutMerged:
			sum.Merged++
		default:
			errs.add(fmt.Sprintf("%s: store rejected the contract: %v", where[i], o.Err))
		}
		if m := o.Merge; m != nil && o.Status != graph.PutFailed {
			sum.Kept += len(m.Kept)
			for _, c := range m.Conflicts {
				sum.Conflicts = append(sum.Conflicts, importConflict{ContractID: o.ID, Conflict: c})
			}
		}
	}
}

// printMerges says what merging kept and which fields conflicted (listed
// with -v).
func printMerges(a *app, sum importSummary) {
	fmt.Fprintf(a.stdout, "merged with stored versions from other sources: %d values kept that the new records lack, %d conflicting values resolved by precedence",
		sum.Kept, len(sum.Conflicts))
	if len(sum.Conflicts) > 0 && !a.cfg.Verbose {
		fmt.Fprint(a.stdout, " (-v lists them)")
	}
	fmt.Fprintln(a.stdout)
	if !a.cfg.Verbose {
		return
	}
	for _, c := range sum.Conflicts {
		fmt.Fprintf(a.stdout, "  %s: %s: kept %q (%s) over %q (%s)\n", c.ContractID, c.Field, c.Kept, c.KeptSource, c.Other, c.OtherSource)
	}
}
