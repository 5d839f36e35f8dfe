package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/contractgraph/contractgraph/internal/contract"
	"github.com/contractgraph/contractgraph/internal/eval"
	"github.com/contractgraph/contractgraph/internal/graph"
	"github.com/contractgraph/contractgraph/internal/ingest"
	"github.com/contractgraph/contractgraph/internal/risk"
)

type evalRiskFlags struct {
	contracts     int
	texts         string
	jurisdiction  string
	batch         bool
	maxIterations int
	output        string
}

func newEvalRiskCmd(a *app) *cobra.Command {
	var f evalRiskFlags
	cmd := &cobra.Command{
		Use:   "risk --contracts N [--texts DIR]",
		Short: "Run the risk review on N contracts and count the citations proposed, kept and removed",
		Long: "Run the risk review (as `contractgraph risk` does) on the N smallest contracts, read from --texts\n" +
			"DIR (e.g. CUAD's full_contract_txt) or, without it, from the store, and report: citations\n" +
			"proposed, kept, removed during the review and removed by the final gate (by reason), risk items\n" +
			"kept and removed, clause quotes verified at their offsets, and partial reports. Statutes come from\n" +
			"the store (--db); import them first with `contractgraph statutes import`.",
		Example: `  contractgraph --db statutes.db eval risk --contracts 5 --texts ../shared/data/cuad/full_contract_txt --jurisdiction us -o eval-out`,
		Args:    usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			return a.runEvalRisk(cmd.Context(), f)
		},
	}
	fl := cmd.Flags()
	fl.IntVar(&f.contracts, "contracts", 3, "how many contracts to review (the smallest)")
	fl.StringVar(&f.texts, "texts", "", "directory of contract documents to review (default: the stored contracts)")
	fl.StringVar(&f.jurisdiction, "jurisdiction", "", "cite statutes of this jurisdiction only, e.g. us or tw")
	fl.BoolVar(&f.batch, "batch", false, "per-passage concurrent analysis without the review loop")
	fl.IntVar(&f.maxIterations, "max-iterations", risk.DefaultMaxIterations, "senior review rounds")
	fl.StringVarP(&f.output, "output", "o", "", "also write risk.json, .md and .html into this directory")
	return cmd
}

func (a *app) runEvalRisk(ctx context.Context, f evalRiskFlags) error {
	switch {
	case f.contracts < 1:
		return usageError(fmt.Errorf("--contracts %d: must be at least 1", f.contracts))
	case f.maxIterations < 1:
		return usageError(errors.New("--max-iterations must be at least 1"))
	}
	if f.texts != "" {
		if fi, err := os.Stat(f.texts); err != nil || !fi.IsDir() {
			return usageError(fmt.Errorf("--texts %s: not a directory", f.texts))
		}
	}
	model, err := a.openModel(ctx)
	if err != nil {
		return usageError(err)
	}
	prog := newEvalProgress(a.stderr, "eval risk")
	var store graph.Store
	if a.checkDBExists() == nil {
		if store, err = a.openStore(ctx); err != nil {
			return err
		}
		defer store.Close()
	} else if f.texts == "" {
		return usageError(fmt.Errorf("nothing to review: pass --texts DIR, or point --db at a store with contracts (no database at %s)", a.cfg.DB))
	}
	deps, err := a.riskDeps(ctx, model, store)
	if err != nil {
		return err
	}
	if store == nil {
		prog.printf("no database at %s: no statutes, so no citation can be checked or kept", a.cfg.DB)
	}

	var inputs []risk.Input
	if f.texts != "" {
		inputs, err = riskTexts(ctx, f.texts, f.contracts)
	} else {
		inputs, err = riskStored(ctx, store, f.contracts)
	}
	if err != nil {
		return err
	}
	for i := range inputs {
		inputs[i].Jurisdiction, inputs[i].Batch, inputs[i].MaxIterations = f.jurisdiction, f.batch, f.maxIterations
	}
	prog.printf("reviewing %d contracts with %s", len(inputs), a.cfg.Model)
	rep, err := eval.RiskEval(ctx, deps, inputs, func(p eval.RiskProgress) {
		prog.printf("[%d/%d] %s: %s", p.Index, p.Total, p.Contract, p.Message)
	})
	if err != nil {
		return err
	}
	rep.Model = a.cfg.Model
	return a.writeEvalOutput(prog, f.output, "risk", rep,
		func(w io.Writer) error { return eval.WriteRiskText(w, rep) },
		func(w io.Writer) error { return eval.WriteRiskMarkdown(w, rep) },
		func(w io.Writer) error { return eval.WriteRiskHTML(w, rep) })
}

// riskTexts loads the n smallest supported documents of dir.
func riskTexts(ctx context.Context, dir string, n int) ([]risk.Input, error) {
	files, _, err := ingest.Walk([]string{dir})
	if err != nil {
		return nil, usageError(err)
	}
	type sized struct {
		path string
		size int64
	}
	var all []sized
	for _, p := range files {
		if fi, err := os.Stat(p); err == nil {
			all = append(all, sized{p, fi.Size()})
		}
	}
	if len(all) == 0 {
		return nil, usageError(fmt.Errorf("--texts %s holds no document (txt, md, html, pdf, docx)", dir))
	}
	slices.SortStableFunc(all, func(x, y sized) int {
		if x.size != y.size {
			return int(x.size - y.size)
		}
		return strings.Compare(filepath.Base(x.path), filepath.Base(y.path))
	})
	loader := ingest.NewLoader(loaderOptions())
	var out []risk.Input
	for _, s := range all[:min(n, len(all))] {
		doc, err := loader.Load(ctx, s.path)
		if err != nil {
			return nil, usageError(err)
		}
		out = append(out, risk.Input{Contract: &contract.Contract{ID: doc.ID, Title: doc.ID, Text: doc.Text, SourcePath: s.path, SHA256: doc.SHA256}})
	}
	return out, nil
}

// riskStored picks the n stored contracts with the shortest texts.
func riskStored(ctx context.Context, store graph.Store, n int) ([]risk.Input, error) {
	var all []*contract.Contract
	err := store.Contracts(ctx, func(c *contract.Contract) error {
		if strings.TrimSpace(c.Text) != "" {
			all = append(all, c)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("read stored contracts: %w", err)
	}
	if len(all) == 0 {
		return nil, usageError(errors.New("the store holds no contract with a text to review: pass --texts DIR, or import or ingest contracts first"))
	}
	slices.SortStableFunc(all, func(x, y *contract.Contract) int {
		if d := len(x.Text) - len(y.Text); d != 0 {
			return d
		}
		return strings.Compare(x.ID, y.ID)
	})
	var out []risk.Input
	for _, c := range all[:min(n, len(all))] {
		out = append(out, risk.Input{Contract: c, Stored: true})
	}
	return out, nil
}
