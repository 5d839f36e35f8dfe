package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/contractgraph/contractgraph/internal/graph"
	"github.com/contractgraph/contractgraph/internal/resolve"
)

func newResolveCmd(a *app) *cobra.Command {
	var dryRun, all bool
	var threshold float64
	cmd := &cobra.Command{
		Use:   "resolve",
		Short: "Merge parties that are the same entity under different spellings",
		Long: `Resolve scores pairs of parties with similar names (Jaro-Winkler and
Levenshtein on normalised names, shared locations and counterparties) and
merges those at or above --threshold into one canonical party, keeping the
other spellings as aliases. Role words such as "Franchisee", parties of one
contract and different legal forms (LLC and L.P.) are never merged.
--dry-run prints the proposed merges with their scores and changes nothing.

Resolution is incremental: it compares only the parties that are new or
changed since its last run (against all the others), and it runs after every
import, so an interrupted run (Ctrl-C) keeps the merges it made and the next
import or resolve finishes the rest. --all compares every party again.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if threshold <= 0 || threshold > 1 {
				return usageError(fmt.Errorf("--threshold %g: must be in (0, 1]", threshold))
			}
			store, err := a.openExistingStore(cmd.Context())
			if err != nil {
				return err
			}
			defer store.Close()
			bar := newProgressBar(a.stderr, a.cfg.JSON)
			rep, err := a.runResolve(cmd.Context(), store, resolve.Options{Threshold: threshold, DryRun: dryRun, All: all}, bar)
			if errors.Is(err, resolve.ErrUnsupported) {
				return usageError(fmt.Errorf("--store %s: %w", a.cfg.Store, err))
			}
			if err != nil {
				return err
			}
			if a.cfg.JSON {
				enc := json.NewEncoder(a.stdout)
				enc.SetIndent("", "  ")
				return enc.Encode(rep)
			}
			verb := "merged"
			if dryRun {
				verb = "would merge"
			}
			n := 0
			for _, m := range rep.Merges {
				fmt.Fprintf(a.stdout, "%s\n", m.CanonicalName)
				for _, o := range m.Others {
					n++
					fmt.Fprintf(a.stdout, "  <- %s  (score %.3f: %s)\n", o.Name, o.Score.Value, o.Score.Reason)
				}
			}
			fmt.Fprintf(a.stdout, "%s %d parties into %d (%d parties, %d compared, %d candidate pairs scored, threshold %.2f)\n",
				verb, n, len(rep.Merges), rep.Parties, rep.Compared, rep.Pairs, threshold)
			return nil
		},
	}
	cmd.Flags().BoolVar(&dryRun, "dry-run", false, "print the proposed merges without making them")
	cmd.Flags().Float64Var(&threshold, "threshold", resolve.DefaultThreshold, "minimum score to merge, in (0, 1]")
	cmd.Flags().BoolVar(&all, "all", false, "compare every party again, not only those new or changed since the last run")
	return cmd
}

// runResolve runs entity resolution on store with a progress bar (opts'
// Progress and Logger are set here). When it is interrupted it says on
// stderr what was kept before returning the error.
func (a *app) runResolve(ctx context.Context, store graph.Store, opts resolve.Options, bar *progressBar) (*resolve.Report, error) {
	opts.Logger = a.log
	opts.Progress = func(p resolve.Progress) {
		if p.Done == 0 {
			unit := map[string]string{resolve.PhaseRead: "parties", resolve.PhaseCompare: "pairs", resolve.PhaseMerge: "merges"}[p.Phase]
			bar.startUnit("entity resolution: "+p.Phase, unit)
		}
		bar.update(int64(p.Done), int64(p.Total), p.Done)
	}
	rep, err := resolve.Run(ctx, store, opts)
	bar.clear()
	switch {
	case err == nil || ctx.Err() == nil || opts.DryRun:
	case rep == nil || len(rep.Merges) == 0:
		fmt.Fprintln(a.stderr, "entity resolution interrupted before it merged anything; the next import or `contractgraph resolve` runs it again")
	default:
		fmt.Fprintf(a.stderr, "entity resolution interrupted: %d of %d merges made (%d parties merged into others) are kept; "+
			"the next import or `contractgraph resolve` compares the parties left\n", rep.Made, len(rep.Merges), rep.MergedParties())
	}
	return rep, err
}
