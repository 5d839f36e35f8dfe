package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/contractgraph/contractgraph/internal/eval"
	"github.com/contractgraph/contractgraph/internal/graph/sqlite"
	"github.com/contractgraph/contractgraph/internal/llm"
	"github.com/contractgraph/contractgraph/internal/retrieve"
)

type evalRetrievalFlags struct {
	cuad     string
	k        int
	limit    int
	maxChunk int
	output   string
	variants []string
	lexical  retrieve.Lexical
}

func newEvalRetrievalCmd(a *app) *cobra.Command {
	var f evalRetrievalFlags
	cmd := &cobra.Command{
		Use:   "retrieval --cuad DIR [--k 5] [--limit N]",
		Short: "Measure clause_search recall@k and MRR on CUAD's annotated spans (BM25, and hybrid with --embed-model)",
		Long: "Store CUAD's contract texts as raw ingested documents (text and chunks, no clauses) in a\n" +
			"temporary database, then, for each contract and each CUAD category annotated in it, search the\n" +
			"contract with the category's name and description as the query. A query is a hit when one of\n" +
			"the first k passages overlaps an annotated span; MRR averages 1/rank of the first such passage.\n\n" +
			"BM25 is always measured; with --embed-model every chunk is embedded and the hybrid ranking that\n" +
			"clause_search uses (BM25 fused with vector similarity) is measured beside it. An embedding\n" +
			"failure ends the run with an error.",
		Example: `  contractgraph eval retrieval --cuad ../shared/data/cuad
  contractgraph eval retrieval --cuad ../shared/data/cuad --limit 20 --embed-model openai:multilingual-e5-small -o eval-out`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			return a.runEvalRetrieval(cmd, f)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.cuad, "cuad", "", "CUAD directory holding cuad_spans_derived.jsonl, category_descriptions.csv and full_contract_txt/")
	fl.IntVar(&f.k, "k", 5, "rank cut-off: passages per query")
	fl.IntVar(&f.limit, "limit", 0, "measure the first N contracts by file name (0: all)")
	fl.IntVar(&f.maxChunk, "max-chunk", retrieve.DefaultMaxChunkBytes, "largest chunk, in bytes")
	fl.StringVarP(&f.output, "output", "o", "", "also write retrieval.json, .md and .html into this directory")
	fl.StringSliceVar(&f.variants, "variants", nil, "further methods to measure, each stages joined by +: expand, expand-model, rerank, rerank-fuse (the lexical order fused with the first stage's), rerank-model, dedup, sections,\n"+
		"hybrid (needs --embed-model; the -model stages need --model), e.g. --variants expand,rerank,expand+rerank,hybrid+expand+rerank")
	fl.Float64Var(&f.lexical.ExpansionWeight, "rerank-expansion-weight", 0, "the deterministic reranker's weight of expansion words (0: its default)")
	fl.Float64Var(&f.lexical.Phrase, "rerank-phrase", 0, "the deterministic reranker's phrase bonus weight (0: its default, negative: off)")
	fl.Float64Var(&f.lexical.Proximity, "rerank-proximity", 0, "the deterministic reranker's proximity bonus weight (0: its default, negative: off)")
	return cmd
}

func (a *app) runEvalRetrieval(cmd *cobra.Command, f evalRetrievalFlags) error {
	ctx := cmd.Context()
	switch {
	case f.cuad == "":
		return usageError(fmt.Errorf("--cuad is required: the CUAD directory, e.g. ../shared/data/cuad"))
	case f.k < 1 || f.k > 50:
		return usageError(fmt.Errorf("--k %d: must be between 1 and 50", f.k))
	case f.limit < 0:
		return usageError(fmt.Errorf("--limit %d: must not be negative", f.limit))
	case f.maxChunk < 100:
		return usageError(fmt.Errorf("--max-chunk %d: must be at least 100 bytes", f.maxChunk))
	}
	prog := newEvalProgress(a.stderr, "eval retrieval")
	prog.printf("reading the CUAD spans and category descriptions in %s", f.cuad)
	set, err := eval.ReadRetrievalSet(f.cuad)
	if err != nil {
		return usageError(err)
	}
	var embedder llm.Embedder
	if strings.TrimSpace(a.cfg.EmbedModel) != "" {
		if embedder, err = a.openEmbedder(ctx); err != nil {
			return usageError(err)
		}
	}
	variants := make([]eval.RetrievalVariant, 0, len(f.variants))
	for _, name := range f.variants {
		v, err := a.retrievalVariant(ctx, name, f.lexical, embedder != nil)
		if err != nil {
			return usageError(err)
		}
		variants = append(variants, v)
	}
	files := make([]string, 0, len(set.Spans))
	for name := range set.Spans {
		files = append(files, name)
	}
	slices.Sort(files)
	if f.limit > 0 && len(files) > f.limit {
		files = files[:f.limit]
	}
	dir, err := os.MkdirTemp("", "contractgraph-eval-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	store, err := sqlite.Open(filepath.Join(dir, "retrieval.db"))
	if err != nil {
		return err
	}
	defer store.Close()

	methods := "BM25"
	if embedder != nil {
		methods = "BM25 and hybrid with " + a.cfg.EmbedModel
	}
	for _, v := range variants {
		methods += ", " + v.Name
	}
	prog.printf("measuring %d contracts, k = %d, %s", len(files), f.k, methods)
	last, started := time.Time{}, time.Now()
	rep, err := eval.Retrieval(ctx, store, set, eval.RetrievalOptions{
		Files: files, K: f.k, Chunk: retrieve.ChunkOptions{Max: f.maxChunk},
		Embedder: embedder, EmbedModel: a.cfg.EmbedModel, Logger: a.log, Variants: variants,
		Progress: func(p eval.RetrievalProgress) {
			// A line every five seconds at most, and the last one of each stage.
			if p.Done < p.Total && time.Since(last) < 5*time.Second {
				return
			}
			last = time.Now()
			what := "contracts stored"
			if p.Stage == "query" {
				what = "queries run"
			}
			prog.printf("%d/%d %s (%s elapsed)", p.Done, p.Total, what, time.Since(started).Round(time.Second))
		},
	})
	if err != nil {
		return a.explainModelError(err)
	}
	return a.writeEvalOutput(prog, f.output, "retrieval", rep,
		func(w io.Writer) error { return eval.WriteRetrievalText(w, rep) },
		func(w io.Writer) error { return eval.WriteRetrievalMarkdown(w, rep) },
		func(w io.Writer) error { return eval.WriteRetrievalHTML(w, rep) })
}

// retrievalVariant reads one --variants name: stages joined by +.
func (a *app) retrievalVariant(ctx context.Context, name string, lex retrieve.Lexical, haveEmbedder bool) (eval.RetrievalVariant, error) {
	v := eval.RetrievalVariant{Name: strings.TrimSpace(name)}
	var exps retrieve.Expanders
	for st := range strings.SplitSeq(v.Name, "+") {
		switch strings.TrimSpace(st) {
		case "hybrid":
			if !haveEmbedder {
				return v, fmt.Errorf("--variants %s: hybrid needs --embed-model", name)
			}
			v.Hybrid = true
		case "expand":
			exps = append(exps, retrieve.DefaultThesaurus())
		case "expand-model", "rerank-model":
			m, err := a.openModel(ctx)
			if err != nil {
				return v, fmt.Errorf("--variants %s: %w", name, err)
			}
			if st == "expand-model" {
				exps = append(exps, retrieve.ModelExpander{Model: m, Temperature: new(0.0)})
			} else {
				v.Options.Reranker = retrieve.ModelReranker{Model: m, Temperature: new(0.0)}
			}
		case "rerank":
			v.Options.Reranker = lex
		case "rerank-fuse":
			// The lexical order fused with the first stage's by RRF.
			fused := lex
			fused.Fuse = true
			v.Options.Reranker = fused
		case "dedup":
			v.Options.Dedup = true
		case "sections":
			v.Options.Sections = true
		default:
			return v, fmt.Errorf("--variants %s: unknown stage %q; want hybrid, expand, expand-model, rerank, rerank-fuse, rerank-model, dedup or sections joined by +", name, st)
		}
	}
	if len(exps) == 1 {
		v.Options.Expander = exps[0]
	} else if len(exps) > 1 {
		v.Options.Expander = exps
	}
	return v, nil
}
