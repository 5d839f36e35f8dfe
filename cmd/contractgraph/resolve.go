package main

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/contractgraph/contractgraph/internal/resolve"
)

func newResolveCmd(a *app) *cobra.Command {
	var dryRun bool
	var threshold float64
	cmd := &cobra.Command{
		Use:   "resolve",
		Short: "Merge parties that are the same entity under different spellings",
		Long: `Resolve scores pairs of parties with similar names (Jaro-Winkler and
Levenshtein on normalised names, shared locations and counterparties) and
merges those at or above --threshold into one canonical party, keeping the
other spellings as aliases. Role words such as "Franchisee", parties of one
contract and different legal forms (LLC and L.P.) are never merged.
--dry-run prints the proposed merges with their scores and changes nothing.`,
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
			rep, err := resolve.Run(cmd.Context(), store, resolve.Options{Threshold: threshold, DryRun: dryRun, Logger: a.log})
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
			fmt.Fprintf(a.stdout, "%s %d parties into %d (%d parties, %d candidate pairs scored, threshold %.2f)\n",
				verb, n, len(rep.Merges), rep.Parties, rep.Pairs, threshold)
			return nil
		},
	}
	cmd.Flags().BoolVar(&dryRun, "dry-run", false, "print the proposed merges without making them")
	cmd.Flags().Float64Var(&threshold, "threshold", resolve.DefaultThreshold, "minimum score to merge, in (0, 1]")
	return cmd
}
