package main

import (
	"encoding/json"
	"errors"

	"github.com/spf13/cobra"

	"github.com/contractgraph/contractgraph/internal/compare"
	"github.com/contractgraph/contractgraph/internal/contract"
	"github.com/contractgraph/contractgraph/internal/tools"
)

func newCompareCmd(a *app) *cobra.Command {
	var (
		contractType, law string
		parties           []string
		in                tools.ClauseCompareInput
	)
	cmd := &cobra.Command{
		Use:   "compare CLAUSE_TYPE [--type T] [--party P] [--threshold 0.3]",
		Short: "Compare one clause type across contracts: groups by wording, key terms, outliers",
		Long: "Put the clauses of one type (e.g. \"Cap On Liability\") or group (\"Liability & Indemnification\")\n" +
			"side by side across the contracts matching the filters: grouped by how alike their wording\n" +
			"is, largest group first, each with its representative clause, its members most alike first\n" +
			"and its typical key terms (amounts, durations, notice periods, caps, percentages: median,\n" +
			"range, how many state them); then the outliers: clauses in no group, loosely held by theirs,\n" +
			"or with a key term more than 5 times from their group's median. Every clause is given with\n" +
			"its contract and byte span. It is the clause_compare tool; --json prints its result.\n\n" +
			"Example, on a CUAD import:\n" +
			"  contractgraph compare \"Cap On Liability\" --type Supply",
		Args: usageArgs(cobra.ExactArgs(1)),
		ValidArgsFunction: func(_ *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
			if len(args) > 0 {
				return nil, cobra.ShellCompDirectiveNoFileComp
			}
			return prefixed(contract.ClauseTypeNames(), toComplete), cobra.ShellCompDirectiveNoFileComp
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			in.ClauseType = args[0]
			in.Filters = tools.Filters{ContractType: contractType, Parties: parties, GoverningLawCountry: law}
			store, err := a.openExistingStore(cmd.Context())
			if err != nil {
				return err
			}
			defer store.Close()
			res, err := tools.New(store, tools.Options{}).ClauseCompare(cmd.Context(), in)
			var ae *tools.ArgError
			if errors.As(err, &ae) {
				return usageError(err)
			}
			if err != nil {
				return err
			}
			if a.cfg.JSON {
				enc := json.NewEncoder(a.stdout)
				enc.SetIndent("", "  ")
				return enc.Encode(res)
			}
			raw, err := json.Marshal(res)
			if err != nil {
				return err
			}
			return tools.WriteText(a.stdout, tools.NameClauseCompare, nil, raw, a.textOptions(a.stdout))
		},
	}
	f := cmd.Flags()
	f.StringVar(&contractType, "type", "", "only contracts of this type, e.g. Supply")
	f.StringSliceVar(&parties, "party", nil, "only contracts with a party whose name contains this (repeatable)")
	f.StringVar(&law, "law", "", "only contracts governed by the law of this country (ISO code or name)")
	f.Float64Var(&in.Threshold, "threshold", compare.DefaultThreshold, "how alike (0.05..1) clauses must be on average to share a group")
	f.IntVar(&in.Groups, "groups", tools.CompareGroupLimits.Default, "list at most this many groups")
	f.IntVar(&in.Examples, "examples", tools.CompareExampleLimits.Default, "members shown per group besides its representative")
	f.IntVar(&in.MaxClauses, "max-clauses", tools.CompareClauseLimits.Default, "compare at most this many clauses, newest contracts first")
	f.IntVar(&in.Outliers, "outliers", tools.CompareOutlierLimits.Default, "list at most this many outliers")
	f.IntVar(&in.TextChars, "text-chars", tools.CompareTextLimits.Default, "characters of each clause's text in --json")
	return cmd
}
