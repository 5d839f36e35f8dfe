package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/spf13/cobra"

	"github.com/contractgraph/contractgraph/internal/contract"
	"github.com/contractgraph/contractgraph/internal/eval"
	"github.com/contractgraph/contractgraph/internal/extract"
	"github.com/contractgraph/contractgraph/internal/graph"
	"github.com/contractgraph/contractgraph/internal/graph/sqlite"
	"github.com/contractgraph/contractgraph/internal/ingest"
	"github.com/contractgraph/contractgraph/internal/retrieve"
)

type evalExtractionFlags struct {
	gold, texts string
	stored      bool
	limit       int
	output      string
	ingest      ingestFlags
}

func newEvalExtractionCmd(a *app) *cobra.Command {
	var f evalExtractionFlags
	cmd := &cobra.Command{
		Use:   "extraction --gold master_clauses.csv [--texts DIR] [--limit N] | --stored",
		Short: "Score extraction against CUAD's expert answers (per-field precision, recall, F1; verified evidence)",
		Long: "Compare extracted contracts with CUAD's expert answers (master_clauses.csv, read by the CUAD\n" +
			"importer): parties (by normalised name), effective date (CUAD's Effective Date, else its\n" +
			"Agreement Date), end date, governing law, renewal term and notice period, and clause presence\n" +
			"per CUAD category; and the share of stored values whose evidence quote is at its offsets.\n\n" +
			"By default the --limit smallest texts (all with --limit 0) are ingested with --model into a\n" +
			"temporary database (the one named by --db, when given, so that the run can be inspected or\n" +
			"resumed). --stored scores what an earlier ingest stored in --db instead, without model calls.\n" +
			"Scoring rules: docs/EVALUATION.md.",
		Example: `  contractgraph eval extraction --gold ../shared/data/cuad/master_clauses.csv --model openai:gpt-4o-mini --limit 20 -o eval-out
  contractgraph eval extraction --gold ../shared/data/cuad/master_clauses.csv --stored --db cuad-ingested.db --json`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			return a.runEvalExtraction(cmd, f)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.gold, "gold", "", "CUAD master_clauses.csv (or the directory holding it)")
	fl.StringVar(&f.texts, "texts", "", "directory of CUAD's contract texts (default: full_contract_txt beside the CSV)")
	fl.BoolVar(&f.stored, "stored", false, "score the contracts already in the store (--db) instead of ingesting with --model")
	fl.IntVar(&f.limit, "limit", 20, "ingest the N smallest texts that have gold answers (0: all)")
	fl.StringVarP(&f.output, "output", "o", "", "also write extraction.json, .md and .html into this directory")
	fl.IntVar(&f.ingest.concurrency, "concurrency", 1, "files extracted at once")
	fl.IntVar(&f.ingest.rpm, "rpm", 0, "model requests per minute (0: unlimited)")
	fl.IntVar(&f.ingest.tpm, "tpm", 0, "model tokens per minute, estimated (0: unlimited)")
	fl.IntVar(&f.ingest.contextTokens, "context-tokens", 0, "the model's context window; longer documents are extracted in parts (0: as ingest chooses for the model)")
	fl.StringVar(&f.ingest.clauseCalls, "clause-calls", "auto", "clauses in the facts call (one), in a call of their own (two), or auto, as ingest")
	fl.DurationVar(&f.ingest.docBudget, "doc-budget", defaultDocBudget, "time one document may take before its repair rounds and follow-up calls are skipped (0: none)")
	return cmd
}

func (a *app) runEvalExtraction(cmd *cobra.Command, f evalExtractionFlags) error {
	ctx := cmd.Context()
	switch {
	case f.gold == "":
		return usageError(errors.New("--gold is required: CUAD's master_clauses.csv, e.g. ../shared/data/cuad/master_clauses.csv"))
	case f.limit < 0:
		return usageError(fmt.Errorf("--limit %d: must not be negative", f.limit))
	case f.ingest.concurrency < 1 || f.ingest.concurrency > 64:
		return usageError(fmt.Errorf("--concurrency %d: must be between 1 and 64", f.ingest.concurrency))
	case f.ingest.rpm < 0 || f.ingest.tpm < 0:
		return usageError(errors.New("--rpm and --tpm must not be negative"))
	}
	prog := newEvalProgress(a.stderr, "eval extraction")
	prog.printf("reading gold answers from %s", f.gold)
	gold, err := eval.ReadGold(ctx, f.gold, f.texts)
	if err != nil {
		return usageError(err)
	}
	prog.printf("%d gold contracts (%d rows skipped), texts %s", len(gold.Contracts), len(gold.Skipped), orNone(gold.TextsDir))

	var rep *eval.ExtractionReport
	if f.stored {
		rep, err = a.evalStoredExtraction(ctx, gold, prog)
	} else {
		rep, err = a.evalModelExtraction(cmd, gold, f, prog)
	}
	if err != nil {
		return err
	}
	prog.printf("scored %d contracts", rep.Contracts)
	return a.writeEvalOutput(prog, f.output, "extraction", rep,
		func(w io.Writer) error { return eval.WriteExtractionText(w, rep) },
		func(w io.Writer) error { return eval.WriteExtractionMarkdown(w, rep) },
		func(w io.Writer) error { return eval.WriteExtractionHTML(w, rep) })
}

// evalStoredExtraction scores the contracts of the configured store.
func (a *app) evalStoredExtraction(ctx context.Context, gold *eval.Gold, prog *evalProgress) (*eval.ExtractionReport, error) {
	store, err := a.openExistingStore(ctx)
	if err != nil {
		return nil, err
	}
	defer store.Close()
	preds := map[string]eval.Prediction{}
	err = store.Contracts(ctx, func(c *contract.Contract) error {
		preds[eval.ContractKey(c.ID)] = eval.Prediction{Contract: c}
		if n := len(preds); n%50 == 0 {
			prog.printf("read %d stored contracts", n)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("read stored contracts: %w", err)
	}
	prog.printf("read %d stored contracts", len(preds))
	if len(preds) == 0 {
		return nil, usageError(fmt.Errorf("the store %s holds no contracts: ingest the CUAD texts first, or drop --stored to ingest with --model", a.storeName()))
	}
	rep := eval.ScoreExtraction(gold, preds)
	rep.Mode, rep.Store = "store", a.storeName()
	if rep.Contracts == 0 {
		return nil, usageError(fmt.Errorf("none of the %d stored contracts matches a gold row of %s (contracts are matched by file name: ingest the CUAD texts themselves)", len(preds), gold.Path))
	}
	return rep, nil
}

// evalModelExtraction ingests the selected gold texts with the model, then
// scores what was stored.
func (a *app) evalModelExtraction(cmd *cobra.Command, gold *eval.Gold, f evalExtractionFlags, prog *evalProgress) (*eval.ExtractionReport, error) {
	ctx := cmd.Context()
	if gold.TextsDir == "" {
		return nil, usageError(fmt.Errorf("no contract texts for %s: pass --texts DIR (CUAD's full_contract_txt) to extract them", gold.Path))
	}
	selected := selectGold(gold.Contracts, f.limit)
	f.ingest.maxChunk = retrieve.DefaultMaxChunkBytes
	f.ingest.maxBytes = ingest.DefaultMaxBytes
	f.ingest.noResolve = true // score extraction, not entity resolution
	w, err := a.openIngestWiring(ctx, f.ingest)
	if err != nil {
		return nil, err
	}
	var store graph.Store
	dbFlag, storeFlag := cmd.Flag("db"), cmd.Flag("store")
	if (dbFlag != nil && dbFlag.Changed) || (storeFlag != nil && storeFlag.Changed) {
		store, err = a.openStore(ctx)
	} else {
		dir, derr := os.MkdirTemp("", "contractgraph-eval-")
		if derr != nil {
			return nil, derr
		}
		defer os.RemoveAll(dir)
		store, err = sqlite.Open(filepath.Join(dir, "eval.db"))
	}
	if err != nil {
		return nil, err
	}
	defer store.Close()

	paths := make([]string, len(selected))
	for i, g := range selected {
		paths[i] = g.Contract.SourcePath
	}
	prog.printf("extracting %d contracts with %s (concurrency %d)", len(paths), a.cfg.Model, f.ingest.concurrency)
	started := time.Now()
	// Within a document: a line when a step starts, and every 15 seconds
	// while a reply streams in, since a local model takes minutes.
	var mu sync.Mutex
	lastStep, lastAt := map[string]string{}, map[string]time.Time{}
	extracting := func(e extract.Progress) {
		mu.Lock()
		defer mu.Unlock()
		step := fmt.Sprintf("%s part %d/%d", e.Step, e.Part, e.Parts)
		if lastStep[e.ContractID] == step && time.Since(lastAt[e.ContractID]) < 15*time.Second {
			return
		}
		lastStep[e.ContractID], lastAt[e.ContractID] = step, time.Now()
		prog.printf("extracting %s: %s, %s of reply (%s elapsed)", e.ContractID, step, humanCount(e.Bytes)+" bytes", time.Since(started).Round(time.Second))
	}
	w.progress.Store(&extracting)
	p := a.newIngestPipeline(w, store, f.ingest, func(p ingest.Progress) {
		r := p.Last
		line := fmt.Sprintf("[%d/%d] %s %s (%d calls, tokens %s in, %s out; %s elapsed)", p.Done, p.Total, r.Status, r.ContractID,
			r.Calls, humanCount(r.Usage.InputTokens), humanCount(r.Usage.OutputTokens), time.Since(started).Round(time.Second))
		if r.Error != "" {
			line += ": " + r.Error
		}
		prog.printf("%s", line)
	})
	sum, err := p.Run(ctx, paths)
	if sum == nil || err != nil {
		if err == nil {
			err = errors.New("ingest returned no summary")
		}
		return nil, a.explainModelError(err)
	}
	preds := map[string]eval.Prediction{}
	for _, r := range sum.Files {
		key := eval.ContractKey(r.ContractID)
		if r.Status == ingest.StatusFailed || r.Status == ingest.StatusSkipped {
			preds[key] = eval.Prediction{Err: r.Error}
			continue
		}
		c, err := store.GetContract(ctx, r.ContractID)
		if err != nil {
			return nil, fmt.Errorf("read extracted contract %s: %w", r.ContractID, err)
		}
		preds[key] = eval.Prediction{Contract: c}
	}
	sub := *gold
	sub.Contracts = selected
	rep := eval.ScoreExtraction(&sub, preds)
	rep.Mode, rep.Model = "model", a.cfg.Model
	rep.Usage, rep.ElapsedSeconds = sum.Usage, sum.Elapsed.Seconds()
	if dbFlag != nil && dbFlag.Changed {
		rep.Store = a.storeName()
	}
	return rep, nil
}

// selectGold picks the limit smallest texts (by bytes, then id) that have
// text, in that order; limit 0 takes them all.
func selectGold(gs []eval.GoldContract, limit int) []eval.GoldContract {
	var out []eval.GoldContract
	for _, g := range gs {
		if g.Contract.Text != "" && g.Contract.SourcePath != "" {
			out = append(out, g)
		}
	}
	slices.SortStableFunc(out, func(x, y eval.GoldContract) int {
		if d := len(x.Contract.Text) - len(y.Contract.Text); d != 0 {
			return d
		}
		return strings.Compare(x.Contract.ID, y.Contract.ID)
	})
	if limit > 0 && len(out) > limit {
		out = out[:limit]
	}
	return out
}

// storeName names the configured store for reports.
func (a *app) storeName() string {
	if a.cfg.Store == "neo4j" {
		return "neo4j " + os.Getenv("NEO4J_URI")
	}
	return a.cfg.DB
}

func orNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}

// evalProgress prints progress lines on stderr, from the start of an
// evaluation to its end, so that a long run shows where it is whether or
// not stderr is a terminal. It is safe for concurrent use.
type evalProgress struct {
	mu     sync.Mutex
	w      io.Writer
	prefix string
}

func newEvalProgress(w io.Writer, prefix string) *evalProgress {
	return &evalProgress{w: w, prefix: prefix}
}

func (p *evalProgress) printf(format string, args ...any) {
	p.mu.Lock()
	defer p.mu.Unlock()
	fmt.Fprintf(p.w, "%s: %s\n", p.prefix, fmt.Sprintf(format, args...))
}

// writeEvalOutput prints an evaluation report on stdout (readable text, or
// JSON with --json) and, when dir is set, writes NAME.json, NAME.md and
// NAME.html into it, each atomically.
func (a *app) writeEvalOutput(prog *evalProgress, dir, name string, rep any, text, md, html func(io.Writer) error) error {
	var js bytes.Buffer
	enc := json.NewEncoder(&js)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(rep); err != nil {
		return fmt.Errorf("encode %s report: %w", name, err)
	}
	if dir != "" {
		var mdBuf, htmlBuf bytes.Buffer
		if err := md(&mdBuf); err != nil {
			return err
		}
		if err := html(&htmlBuf); err != nil {
			return err
		}
		for _, out := range []struct {
			file string
			data []byte
		}{{name + ".json", js.Bytes()}, {name + ".md", mdBuf.Bytes()}, {name + ".html", htmlBuf.Bytes()}} {
			path := filepath.Join(dir, out.file)
			if err := eval.WriteFile(path, out.data); err != nil {
				return err
			}
			prog.printf("wrote %s", path)
		}
	}
	if a.cfg.JSON {
		_, err := a.stdout.Write(js.Bytes())
		return err
	}
	return text(a.stdout)
}
