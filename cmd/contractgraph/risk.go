package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/contractgraph/contractgraph/internal/contract"
	"github.com/contractgraph/contractgraph/internal/graph"
	"github.com/contractgraph/contractgraph/internal/ingest"
	"github.com/contractgraph/contractgraph/internal/llm"
	"github.com/contractgraph/contractgraph/internal/risk"
)

// riskFormats maps --format values (and -o extensions) to writers.
var riskFormats = map[string]func(io.Writer, *risk.Report, risk.HTMLOptions) error{
	"json": func(w io.Writer, r *risk.Report, _ risk.HTMLOptions) error { return risk.WriteJSON(w, r) },
	"md":   func(w io.Writer, r *risk.Report, _ risk.HTMLOptions) error { return risk.WriteMarkdown(w, r) },
	"html": risk.WriteHTMLWith,
}

type riskFlags struct {
	jurisdiction  string
	format        string
	output        string
	batch         bool
	maxIterations int
	concurrency   int
	viewerURL     string
}

func newRiskCmd(a *app) *cobra.Command {
	var f riskFlags
	cmd := &cobra.Command{
		Use:   "risk CONTRACT_ID|FILE...",
		Short: "Review a contract's risks and write a report whose legal citations are validated",
		Long: "Run the risk review on a stored contract (by id) or a document file (txt, md, html, pdf, docx):\n" +
			"a rule generator, a risk analyst that searches statutes and the contract's clauses, a senior\n" +
			"reviewer (at most --max-iterations rounds) and an executive summariser. Every statute citation\n" +
			"must come from a statute_search made during the run and its quote must appear in the statute's\n" +
			"text; anything else is removed and listed. Import statutes first with `contractgraph statutes import`.\n\n" +
			"--batch analyses relevant passages concurrently without the review loop, for many contracts at\n" +
			"once; with several contracts, -o names a directory that receives one report per contract.\n" +
			"A partial report (model errors, no convergence) is still written; the exit code is then 1.",
		Example: `  contractgraph risk "MyDistributionAgreement" --jurisdiction us --format html -o report.html
  contractgraph risk ./contract.pdf --format md
  contractgraph risk id1 id2 id3 --batch -o reports/ --format json`,
		Args:              usageArgs(cobra.MinimumNArgs(1)),
		ValidArgsFunction: a.completeRiskArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.runRisk(cmd.Context(), args, f)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.jurisdiction, "jurisdiction", "", "cite statutes of this jurisdiction only, e.g. us or tw")
	fl.StringVar(&f.format, "format", "", "report format: json, md or html (default: from -o's extension, else md; --json means json)")
	fl.StringVarP(&f.output, "output", "o", "", "write the report to this file (a directory with several contracts) instead of stdout")
	fl.BoolVar(&f.batch, "batch", false, "per-passage concurrent analysis without the review loop")
	fl.IntVar(&f.maxIterations, "max-iterations", risk.DefaultMaxIterations, "senior review rounds")
	fl.IntVar(&f.concurrency, "concurrency", risk.DefaultConcurrency, "passages analysed at once in --batch mode")
	fl.StringVar(&f.viewerURL, "viewer-url", "", "base URL of `contractgraph serve` (e.g. http://localhost:8080): HTML reports on stored contracts link each clause to it")
	return cmd
}

func (a *app) runRisk(ctx context.Context, args []string, f riskFlags) error {
	format, err := riskFormat(f, a.cfg.JSON, len(args) > 1)
	if err != nil {
		return usageError(err)
	}
	if len(args) > 1 && f.output == "" {
		return usageError(errors.New("several contracts need -o DIR to receive one report each"))
	}
	if f.maxIterations < 1 || f.concurrency < 1 {
		return usageError(errors.New("--max-iterations and --concurrency must be at least 1"))
	}
	model, err := a.openModel(ctx)
	if err != nil {
		return err
	}
	// The store is optional for files: without one there are no statutes,
	// and the report says that no citation could be checked.
	var store graph.Store
	if a.checkDBExists() == nil {
		if store, err = a.openStore(ctx); err != nil {
			return err
		}
		defer store.Close()
	}
	deps, err := a.riskDeps(ctx, model, store)
	if err != nil {
		return err
	}
	partial, failed := 0, 0
	for _, arg := range args {
		in, err := a.riskInput(ctx, store, arg)
		if err != nil {
			if len(args) == 1 {
				return err
			}
			// One bad argument does not stop a batch of contracts.
			fmt.Fprintf(a.stderr, "risk %s: %v\n", arg, err)
			failed++
			continue
		}
		in.Jurisdiction, in.Batch = f.jurisdiction, f.batch
		in.MaxIterations, in.Concurrency = f.maxIterations, f.concurrency
		rep, err := risk.Run(ctx, deps, in, func(p risk.Progress) {
			a.log.Info("risk review", "contract", in.Contract.ID, "stage", p.Stage, "message", p.Message)
			if !a.cfg.JSON {
				fmt.Fprintf(a.stderr, "risk %s: %s\n", in.Contract.ID, p.Message)
			}
		})
		if rep == nil {
			return err
		}
		out := f.output
		if len(args) > 1 {
			out = filepath.Join(f.output, safeFileName(in.Contract.ID)+"."+format)
		}
		var html risk.HTMLOptions
		if f.viewerURL != "" && in.Stored {
			base := strings.TrimRight(f.viewerURL, "/") + "/contracts/" + url.PathEscape(in.Contract.ID)
			html.SpanURL = func(start, end int) string { return fmt.Sprintf("%s?span=%d-%d#cited", base, start, end) }
		}
		if werr := writeReport(a.stdout, out, format, rep, html); werr != nil {
			return werr
		}
		if err != nil {
			return err
		}
		if rep.Partial {
			partial++
			for _, n := range rep.Notices {
				fmt.Fprintf(a.stderr, "risk %s: %s\n", in.Contract.ID, n)
			}
		}
	}
	if partial > 0 || failed > 0 {
		return silentExit(1)
	}
	return nil
}

// riskFormat picks the report format from the flags; with many contracts
// -o names a directory, whose name says nothing of the format.
func riskFormat(f riskFlags, jsonFlag, many bool) (string, error) {
	output := f.output
	if many {
		output = ""
	}
	return reportFormat(f.format, output, jsonFlag, riskFormats)
}

// reportFormat picks a report's format: --format, else the extension of the
// -o file when it names one of valid, else json with --json, else md.
func reportFormat[V any](flag, output string, jsonFlag bool, valid map[string]V) (string, error) {
	format := strings.ToLower(flag)
	if format == "" && output != "" {
		format = strings.TrimPrefix(strings.ToLower(filepath.Ext(output)), ".")
		if format == "markdown" {
			format = "md"
		}
		if _, ok := valid[format]; !ok {
			format = ""
		}
	}
	if format == "" && jsonFlag {
		format = "json"
	}
	if format == "" {
		format = "md"
	}
	if _, ok := valid[format]; !ok {
		return "", fmt.Errorf("unknown --format %q; valid values: json, md, html", flag)
	}
	return format, nil
}

// riskInput resolves an argument: an existing file is loaded as a
// document, anything else is a stored contract's id.
func (a *app) riskInput(ctx context.Context, store graph.Store, arg string) (risk.Input, error) {
	if st, err := os.Stat(arg); err == nil && !st.IsDir() {
		doc, err := ingest.NewLoader(loaderOptions()).Load(ctx, arg)
		if err != nil {
			return risk.Input{}, usageError(err)
		}
		return risk.Input{Contract: &contract.Contract{ID: doc.ID, Text: doc.Text, SourcePath: arg, SHA256: doc.SHA256}}, nil
	}
	if store == nil {
		return risk.Input{}, usageError(fmt.Errorf("%q is neither a file nor, without a database at %s, a stored contract id", arg, a.cfg.DB))
	}
	c, err := store.GetContract(ctx, arg)
	if errors.Is(err, graph.ErrNotFound) {
		return risk.Input{}, usageError(fmt.Errorf("%q is neither a file nor a stored contract id; list contracts with `contractgraph tools call contract_search`", arg))
	}
	if err != nil {
		return risk.Input{}, err
	}
	if strings.TrimSpace(c.Text) == "" {
		return risk.Input{}, usageError(fmt.Errorf("contract %q has no stored text to review; import its document instead", arg))
	}
	return risk.Input{Contract: c, Stored: true}, nil
}

// writeReport renders the report and writes it to stdout, or atomically to
// the file out (creating its directory).
func writeReport(stdout io.Writer, out, format string, rep *risk.Report, html risk.HTMLOptions) error {
	var buf bytes.Buffer
	if err := riskFormats[format](&buf, rep, html); err != nil {
		return err
	}
	return writeOutput(stdout, out, buf.Bytes())
}

// writeOutput writes a rendered report to stdout, or atomically to the
// file out (creating its directory).
func writeOutput(stdout io.Writer, out string, b []byte) error {
	if out == "" {
		_, err := stdout.Write(b)
		return err
	}
	if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
		return fmt.Errorf("write report: %w", err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(out), ".report-*")
	if err != nil {
		return fmt.Errorf("write report: %w", err)
	}
	if _, err := tmp.Write(b); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return fmt.Errorf("write report %s: %w", out, err)
	}
	if err := tmp.Close(); err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("write report %s: %w", out, err)
	}
	if err := os.Rename(tmp.Name(), out); err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("write report %s: %w", out, err)
	}
	return nil
}

// safeFileName turns a contract id into a file name.
func safeFileName(id string) string {
	return strings.Map(func(r rune) rune {
		if r == '/' || r == '\\' || r == ':' || r < ' ' {
			return '_'
		}
		return r
	}, id)
}

// riskDeps is what every risk review (risk, eval risk, serve) runs with:
// the model, described with the tool schemas chosen for it, the embedder
// when one is configured (hybrid statute search), and the store's clauses
// and statutes when there is a store.
func (a *app) riskDeps(ctx context.Context, model llm.Model, store graph.Store) (risk.Deps, error) {
	schemas, err := a.toolSchemasFor(a.cfg.Model)
	if err != nil {
		return risk.Deps{}, usageError(err)
	}
	st, err := a.stages(ctx)
	if err != nil {
		return risk.Deps{}, err
	}
	deps := risk.Deps{Model: model, Log: a.log, Schemas: schemas, StatuteExpander: st.expander, StatuteReranker: st.reranker}
	if strings.TrimSpace(a.cfg.EmbedModel) != "" {
		if deps.Embedder, err = a.openEmbedder(ctx); err != nil {
			return risk.Deps{}, usageError(err)
		}
	}
	if store != nil {
		// The analyst's clause_search runs the stages the agent's does.
		deps.Clauses = a.clauseSearcher(st, store, deps.Embedder)
		if ss, ok := store.(graph.StatuteStore); ok {
			deps.Statutes = ss
		}
	}
	return deps, nil
}
