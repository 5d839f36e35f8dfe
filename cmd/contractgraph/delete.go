package main

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/contractgraph/contractgraph/internal/graph"
)

// deleteResult is what delete did (--json prints it as is).
type deleteResult struct {
	Deleted  []string `json:"deleted"`
	NotFound []string `json:"not_found"`
}

func newDeleteCmd(a *app) *cobra.Command {
	return &cobra.Command{
		Use:   "delete ID...",
		Short: "Delete contracts with their clauses, chunks and roles, and the parties and locations only they used",
		Long: "Delete the contracts with the given ids (as `tools call contract_search` or `export` show them)\n" +
			"with their clauses, chunks, evidence, text and party roles; parties and locations that no\n" +
			"remaining contract uses go too. All of it is one transaction: on a failure nothing is deleted.\n" +
			"Ids that are not stored are reported and make the exit code 2; the others are deleted.",
		Args: usageArgs(cobra.MinimumNArgs(1)),
		RunE: func(cmd *cobra.Command, ids []string) error {
			for i, id := range ids {
				if strings.TrimSpace(id) == "" {
					return usageError(fmt.Errorf("argument %d: an empty contract id", i+1))
				}
			}
			store, err := a.openExistingStore(cmd.Context())
			if err != nil {
				return err
			}
			defer store.Close()
			d, ok := store.(graph.ContractDeleter)
			if !ok {
				return fmt.Errorf("delete: the %s store cannot delete contracts", a.backendName())
			}
			deleted, err := d.DeleteContracts(cmd.Context(), ids)
			if err != nil {
				return err
			}
			res := deleteResult{Deleted: deleted, NotFound: []string{}}
			for _, id := range ids {
				if !slices.Contains(deleted, id) && !slices.Contains(res.NotFound, id) {
					res.NotFound = append(res.NotFound, id)
				}
			}
			if a.cfg.JSON {
				enc := json.NewEncoder(a.stdout)
				enc.SetIndent("", "  ")
				if err := enc.Encode(res); err != nil {
					return err
				}
			} else {
				fmt.Fprintf(a.stdout, "deleted %s\n", plural(len(deleted), "contract"))
				for _, id := range deleted {
					fmt.Fprintf(a.stdout, "  %s\n", id)
				}
			}
			if len(res.NotFound) > 0 {
				return usageError(fmt.Errorf("no contract with id %s", quoteList(res.NotFound)))
			}
			return nil
		},
	}
}

// quoteList writes ids quoted and comma-separated.
func quoteList(ids []string) string {
	q := make([]string, len(ids))
	for i, id := range ids {
		q[i] = fmt.Sprintf("%q", id)
	}
	return strings.Join(q, ", ")
}
