package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/contractgraph/contractgraph/internal/calendar"
	"github.com/contractgraph/contractgraph/internal/graph"
	"github.com/contractgraph/contractgraph/internal/tools"
)

// Values of deadlines --format.
const (
	formatTable = "table"
	formatJSON  = "json"
	formatICS   = "ics"
)

func newDeadlinesCmd(a *app) *cobra.Command {
	var (
		within, asOf, format, contractType, renewalKind string
		parties, kinds                                  []string
		limit                                           int
	)
	cmd := &cobra.Command{
		Use:   "deadlines [--within 90d] [--as-of DATE] [--format table|json|ics]",
		Short: "List the notice deadlines, renewals and expirations coming up",
		Long: "List what falls due from --as-of (default today) to --within after it (default 90d; also\n" +
			"12w, 6m, 1y): notice deadlines (the last day to give notice of non-renewal, or to exercise a\n" +
			"renewal option), automatic renewals and expirations, worked out from each contract's end\n" +
			"date, renewal kind, renewal term and notice period, automatic renewals rolled forward term\n" +
			"by term. Each line says how its date was derived; --format json adds the evidence quotes\n" +
			"and their offsets, --format ics writes an iCalendar feed (one event per deadline, with a\n" +
			"reminder) to import into a calendar. It is the deadline_search tool.\n\n" +
			"Example, on a CUAD import:\n" +
			"  contractgraph deadlines --within 365d --as-of 2019-01-01 --kind notice",
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if a.cfg.JSON && format == formatTable {
				format = formatJSON
			}
			switch format {
			case formatTable, formatJSON, formatICS:
			default:
				return usageError(fmt.Errorf("--format %q: want %s, %s or %s", format, formatTable, formatJSON, formatICS))
			}
			from := asOf
			if from == "" {
				from = time.Now().Format(graph.DateLayout)
			}
			to, err := tools.WindowEnd(from, within)
			if err != nil {
				return usageError(fmt.Errorf("--as-of/--within: %w", err))
			}
			store, err := a.openExistingStore(cmd.Context())
			if err != nil {
				return err
			}
			defer store.Close()
			set := tools.New(store, tools.Options{})
			in := tools.DeadlineSearchInput{From: from, To: to, Kinds: kinds, Limit: limit,
				Filters: tools.Filters{Parties: parties, ContractType: contractType, RenewalKind: renewalKind, AsOf: asOf}}
			res, err := set.DeadlineSearch(cmd.Context(), in)
			var ae *tools.ArgError
			if errors.As(err, &ae) {
				return usageError(err)
			}
			if err != nil {
				return err
			}
			switch format {
			case formatJSON:
				enc := json.NewEncoder(a.stdout)
				enc.SetIndent("", "  ")
				return enc.Encode(res)
			case formatICS:
				if res.TotalCount > len(res.Deadlines) {
					fmt.Fprintf(a.stderr, "%d of %d deadlines written; narrow --within or raise --limit (at most %d)\n", len(res.Deadlines), res.TotalCount, graph.DeadlineLimits.Max)
				}
				return calendar.Write(a.stdout, res.Deadlines, calendar.Options{Name: "Contract deadlines", Stamp: time.Now()})
			}
			raw, err := json.Marshal(res)
			if err != nil {
				return err
			}
			return tools.WriteText(a.stdout, tools.NameDeadlineSearch, nil, raw, a.textOptions(a.stdout))
		},
	}
	f := cmd.Flags()
	f.StringVar(&within, "within", "90d", "how far ahead of --as-of to look: Nd, Nw, Nm or Ny")
	f.StringVar(&asOf, "as-of", "", "first day to list (YYYY-MM-DD; default today)")
	f.StringVar(&format, "format", formatTable, "table, json or ics")
	f.StringSliceVar(&parties, "party", nil, "only contracts with a party whose name contains this (repeatable)")
	f.StringVar(&contractType, "type", "", "only contracts of this type")
	f.StringVar(&renewalKind, "renewal-kind", "", "only contracts that renew this way: automatic, option, evergreen or none")
	f.StringSliceVar(&kinds, "kind", nil, "only these kinds: notice, renewal, expiration (repeatable)")
	f.IntVar(&limit, "limit", graph.DeadlineLimits.Max, "list at most this many deadlines")
	return cmd
}
