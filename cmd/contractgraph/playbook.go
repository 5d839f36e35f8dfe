package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/contractgraph/contractgraph/internal/contract"
	"github.com/contractgraph/contractgraph/internal/graph"
	"github.com/contractgraph/contractgraph/internal/importer"
	"github.com/contractgraph/contractgraph/internal/playbook"
)

// playbookFormats maps --format values (and -o extensions) to writers.
var playbookFormats = map[string]func(io.Writer, *playbook.Report, playbook.HTMLOptions) error{
	"json": func(w io.Writer, r *playbook.Report, _ playbook.HTMLOptions) error { return playbook.WriteJSON(w, r) },
	"md":   playbook.WriteMarkdown,
	"html": playbook.WriteHTML,
}

type playbookFlags struct {
	playbook  string
	format    string
	output    string
	noModel   bool
	viewerURL string
}

func newPlaybookCmd(a *app) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "playbook",
		Short: "Check contracts against a legal team's playbook of standard positions",
		Long: "A playbook states, per CUAD clause type, whether the clause is required or forbidden, the\n" +
			"standard wording, the fallbacks the team accepts, its red flags and numeric terms (a minimum\n" +
			"liability cap, a maximum notice period). `playbook check` compares a contract with it;\n" +
			"`playbook example` prints the example playbook for commercial agreements, to start from.",
		Args: usageArgs(cobra.NoArgs),
	}
	cmd.AddCommand(newPlaybookCheckCmd(a), newPlaybookExampleCmd(a))
	return cmd
}

func newPlaybookExampleCmd(a *app) *cobra.Command {
	return &cobra.Command{
		Use:   "example",
		Short: "Print the example playbook for commercial agreements (YAML)",
		Long: "Print the example playbook for commercial agreements: YAML, with comments that document\n" +
			"the format. Save it, adapt it and pass it to `playbook check --playbook FILE`.",
		Example: `  contractgraph playbook example > commercial.yaml`,
		Args:    usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			_, err := a.stdout.Write(playbook.Example())
			return err
		},
	}
}

func newPlaybookCheckCmd(a *app) *cobra.Command {
	var f playbookFlags
	cmd := &cobra.Command{
		Use:   "check CONTRACT_ID|FILE [--playbook FILE] [--format json|md|html]",
		Short: "Report, per playbook entry, the contract's clause, the closest position and a verdict",
		Long: "Check a stored contract (by id) against a playbook. FILE is instead a contract record file as\n" +
			"`contractgraph export` writes it or `contractgraph import` reads it (JSON or JSONL) holding one\n" +
			"contract with its clauses; a plain document has no clauses yet: ingest it first and check it\n" +
			"by id. Without --playbook the example playbook for commercial agreements is used.\n\n" +
			"For each entry the report gives the status (present, missing, forbidden present), the\n" +
			"contract's clause with its span, the closest standard or fallback text and its similarity,\n" +
			"the numeric terms found against those required, and a verdict: meets standard, acceptable\n" +
			"fallback, deviation or red flag, with the reasons. This first pass needs no model. With a\n" +
			"model configured (--model), each deviation and red-flagged clause also gets a short\n" +
			"judgement whose quotes must occur in the clause and the playbook; a quote that does not is\n" +
			"removed and listed. --no-model skips the judgement.\n\n" +
			"Exit codes: 0 report written, 1 report written but some judgement failed, 2 usage error\n" +
			"(unknown contract, invalid playbook: its errors name the file, line, entry and field).",
		Example: `  contractgraph playbook check "MyDistributionAgreement" --playbook commercial.yaml
  contractgraph playbook check "MyDistributionAgreement" --format html -o check.html
  contractgraph playbook check contract.jsonl --playbook commercial.yaml --json`,
		Args:              usageArgs(cobra.ExactArgs(1)),
		ValidArgsFunction: a.completeRiskArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.runPlaybookCheck(cmd.Context(), args[0], f)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.playbook, "playbook", "", "playbook file, YAML or JSON (default: the example playbook for commercial agreements)")
	fl.StringVar(&f.format, "format", "", "report format: json, md or html (default: from -o's extension, else md; --json means json)")
	fl.StringVarP(&f.output, "output", "o", "", "write the report to this file instead of stdout")
	fl.BoolVar(&f.noModel, "no-model", false, "skip the model's judgement even when --model is set")
	fl.StringVar(&f.viewerURL, "viewer-url", "", "base URL of `contractgraph serve` (e.g. http://localhost:8080): reports on stored contracts link each clause to it")
	return cmd
}

func (a *app) runPlaybookCheck(ctx context.Context, arg string, f playbookFlags) error {
	format, err := playbookFormat(f, a.cfg.JSON)
	if err != nil {
		return usageError(err)
	}
	pb, err := loadPlaybook(f.playbook)
	if err != nil {
		return err
	}
	c, stored, err := a.playbookContract(ctx, arg)
	if err != nil {
		return err
	}
	rep := playbook.Check(pb, c, time.Now())
	if strings.TrimSpace(a.cfg.Model) != "" && !f.noModel {
		model, err := a.openModel(ctx)
		if err != nil {
			return err
		}
		deps := playbook.JudgeDeps{Model: model, ModelName: a.cfg.Model, Log: a.log, Progress: func(done, total int, entry string) {
			if !a.cfg.JSON {
				fmt.Fprintf(a.stderr, "playbook %s: judging %s (%d of %d)\n", c.ID, entry, done+1, total)
			}
		}}
		if err := playbook.Judge(ctx, deps, pb, rep); err != nil {
			return err
		}
	}
	var opts playbook.HTMLOptions
	if f.viewerURL != "" && stored {
		base := strings.TrimRight(f.viewerURL, "/") + "/contracts/" + url.PathEscape(c.ID)
		opts.SpanURL = func(start, end int) string { return fmt.Sprintf("%s?span=%d-%d#cited", base, start, end) }
	}
	var buf bytes.Buffer
	if err := playbookFormats[format](&buf, rep, opts); err != nil {
		return err
	}
	if err := writeOutput(a.stdout, f.output, buf.Bytes()); err != nil {
		return err
	}
	if f.output != "" && !a.cfg.JSON {
		cnt := rep.Counts
		fmt.Fprintf(a.stderr, "playbook %s: %d meets standard, %d acceptable fallback, %d deviation, %d red flag; report written to %s\n",
			c.ID, cnt.MeetsStandard, cnt.AcceptableFallback, cnt.Deviation, cnt.RedFlag, f.output)
	}
	if rep.Partial {
		for _, n := range rep.Notices {
			fmt.Fprintf(a.stderr, "playbook %s: %s\n", c.ID, n)
		}
		return silentExit(1)
	}
	return nil
}

// playbookFormat picks the report format from the flags.
func playbookFormat(f playbookFlags, jsonFlag bool) (string, error) {
	return reportFormat(f.format, f.output, jsonFlag, playbookFormats)
}

// loadPlaybook reads the playbook file, or the example when path is "".
func loadPlaybook(path string) (*playbook.Playbook, error) {
	if path == "" {
		return playbook.ParseExample()
	}
	fh, err := os.Open(path)
	if err != nil {
		return nil, usageError(fmt.Errorf("--playbook: %w", err))
	}
	defer fh.Close()
	pb, err := playbook.Read(fh, path)
	if errors.Is(err, playbook.ErrInvalid) {
		return nil, usageError(err)
	}
	return pb, err
}

// playbookContract resolves the argument: an existing file is a contract
// record file holding one contract, anything else a stored contract's id.
// stored is true for a stored contract.
func (a *app) playbookContract(ctx context.Context, arg string) (c *contract.Contract, stored bool, err error) {
	if st, err := os.Stat(arg); err == nil && !st.IsDir() {
		c, err := readOneContract(ctx, arg)
		return c, false, err
	}
	if err := a.checkDBExists(); err != nil {
		return nil, false, usageError(fmt.Errorf("%q is neither a file nor, without a database at %s, a stored contract id", arg, a.cfg.DB))
	}
	store, err := a.openStore(ctx)
	if err != nil {
		return nil, false, err
	}
	defer store.Close()
	c, err = store.GetContract(ctx, arg)
	if errors.Is(err, graph.ErrNotFound) {
		return nil, false, usageError(fmt.Errorf("%q is neither a file nor a stored contract id; list contracts with `contractgraph tools call contract_search`", arg))
	}
	if err != nil {
		return nil, false, err
	}
	return c, true, nil
}

// readOneContract reads a contract record file that holds one contract.
func readOneContract(ctx context.Context, path string) (*contract.Contract, error) {
	var (
		found []*contract.Contract
		bad   []error
	)
	err := importer.Read(ctx, path, importer.Options{}, func(r importer.Record) error {
		if r.Err != nil {
			bad = append(bad, r.Err)
			return nil
		}
		found = append(found, r.Contract)
		return nil
	})
	switch {
	case errors.Is(err, importer.ErrUnknownFormat):
		return nil, usageError(fmt.Errorf("%s is not a contract record file (JSON or JSONL, as `contractgraph export` writes); to check a document, ingest it first (`contractgraph ingest %s`) and check it by id", path, path))
	case err != nil:
		return nil, usageError(fmt.Errorf("read %s: %w", path, err))
	case len(bad) > 0:
		return nil, usageError(errors.Join(bad...))
	case len(found) == 0:
		return nil, usageError(fmt.Errorf("%s holds no contract", path))
	case len(found) > 1:
		return nil, usageError(fmt.Errorf("%s holds %d contracts; import it (`contractgraph import %s`) and check each by id", path, len(found), path))
	}
	return found[0], nil
}
