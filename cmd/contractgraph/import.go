package main

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/contractgraph/contractgraph/internal/contract"
	"github.com/contractgraph/contractgraph/internal/graph"
	"github.com/contractgraph/contractgraph/internal/importer"
)

// importBatch is how many contracts are written per PutContracts call.
const importBatch = 500

// importSummary is what an import did, printed at the end (--json prints it
// as is).
type importSummary struct {
	Imported  int      `json:"imported"`
	Updated   int      `json:"updated"`
	Unchanged int      `json:"unchanged"`
	Failed    int      `json:"failed"`
	Warnings  int      `json:"warnings"`
	Failures  []string `json:"failures"`
	Seconds   float64  `json:"seconds"`
}

func newImportCmd(a *app) *cobra.Command {
	var textsDir string
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
			"(listed with -v).",
		Args: usageArgs(cobra.MinimumNArgs(1)),
		RunE: func(cmd *cobra.Command, paths []string) error {
			ctx := cmd.Context()
			store, err := a.openStore(ctx)
			if err != nil {
				return err
			}
			defer store.Close()
			bar := newProgressBar(a.stderr, a.cfg.JSON)
			sum, err := runImport(ctx, store, paths, textsDir, bar, func(warning error) {
				if a.cfg.Verbose {
					bar.clear()
					fmt.Fprintf(a.stderr, "warning: %v\n", warning)
				}
			})
			bar.clear()
			if err != nil {
				return err
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
				fmt.Fprintf(a.stdout, "imported %d, updated %d, unchanged %d, failed %d", sum.Imported, sum.Updated, sum.Unchanged, sum.Failed)
				if sum.Warnings > 0 {
					fmt.Fprintf(a.stdout, "; %d values dropped with warnings", sum.Warnings)
					if !a.cfg.Verbose {
						fmt.Fprint(a.stdout, " (-v lists them)")
					}
				}
				fmt.Fprintf(a.stdout, " in %.2fs\n", sum.Seconds)
			}
			if sum.Failed > 0 {
				return silentExit(1)
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&textsDir, "texts", "", "directory of CUAD full_contract_txt files (default: full_contract_txt next to the CSV)")
	return cmd
}

// pending is a contract waiting in a batch, with where it came from.
type pending struct {
	c     *contract.Contract
	where string
}

// runImport imports every path into store in batches. Failures (bad records,
// unreadable files, contracts the store rejected) are counted and described
// in the summary; the returned error is only for the store itself failing
// or the context ending.
func runImport(ctx context.Context, store graph.Store, paths []string, textsDir string, bar *progressBar, warn func(error)) (importSummary, error) {
	started := time.Now()
	sum := importSummary{Failures: []string{}}
	var batch []pending
	fail := func(msg string) {
		sum.Failed++
		sum.Failures = append(sum.Failures, msg)
	}
	flush := func() error {
		if len(batch) == 0 {
			return nil
		}
		cs := make([]*contract.Contract, len(batch))
		for i, p := range batch {
			cs[i] = p.c
		}
		out, err := store.PutContracts(ctx, cs)
		if err != nil {
			return fmt.Errorf("import: %w", err)
		}
		for i, o := range out {
			switch o.Status {
			case graph.PutCreated:
				sum.Imported++
			case graph.PutUpdated:
				sum.Updated++
			case graph.PutUnchanged:
				sum.Unchanged++
			default:
				fail(fmt.Sprintf("%s: store rejected the contract: %v", batch[i].where, o.Err))
			}
		}
		batch = batch[:0]
		return nil
	}
	for _, path := range paths {
		bar.start(path)
		var storeErr error
		opts := importer.Options{TextsDir: textsDir, Progress: func(read, total int64) { bar.update(read, total, sum.Imported+sum.Updated+sum.Unchanged+len(batch)) }}
		err := importer.Read(ctx, path, opts, func(r importer.Record) error {
			for _, w := range r.Warnings {
				sum.Warnings++
				warn(w)
			}
			if r.Err != nil {
				fail(r.Err.Error())
				return nil
			}
			batch = append(batch, pending{c: r.Contract, where: fmt.Sprintf("%s: record %d (id %q)", path, r.Index, r.Contract.ID)})
			if len(batch) >= importBatch {
				storeErr = flush()
				return storeErr
			}
			return nil
		})
		switch {
		case storeErr != nil:
			return sum, storeErr
		case ctx.Err() != nil:
			return sum, ctx.Err()
		case err != nil:
			// The input ended early (unreadable, unknown format, malformed).
			fail(err.Error())
		}
		if err := flush(); err != nil {
			return sum, err
		}
	}
	sum.Seconds = time.Since(started).Seconds()
	return sum, nil
}
