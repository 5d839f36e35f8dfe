package main

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/contractgraph/contractgraph/internal/graph"
)

func newStatsCmd(a *app) *cobra.Command {
	return &cobra.Command{
		Use:   "stats",
		Short: "Count the graph's nodes by label and relationships by type",
		Long: "Count the graph's nodes by label (Contract, Party, Location, Clause, Chunk, Statute) and its\n" +
			"relationships by type (PARTY_TO, HAS_LOCATION, HAS_GOVERNING_LAW, HAS_CLAUSE, HAS_CHUNK).",
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			store, err := a.openExistingStore(cmd.Context())
			if err != nil {
				return err
			}
			defer store.Close()
			st, err := store.Stats(cmd.Context())
			if err != nil {
				return fmt.Errorf("stats: %w", err)
			}
			if a.cfg.JSON {
				enc := json.NewEncoder(a.stdout)
				enc.SetIndent("", "  ")
				return enc.Encode(st)
			}
			return writeStats(a.stdout, st)
		},
	}
}

// Schema order of labels and relationship types; others follow sorted.
var (
	nodeLabels = []string{"Contract", "Party", "Location", "Clause", "Chunk", "Statute"}
	relTypes   = []string{"PARTY_TO", "HAS_LOCATION", "HAS_GOVERNING_LAW", "HAS_CLAUSE", "HAS_CHUNK"}
)

// writeStats prints the counts as two aligned tables.
func writeStats(w io.Writer, st graph.Stats) error {
	nodes := orderedKeys(st.Nodes, nodeLabels)
	rels := orderedKeys(st.Relationships, relTypes)
	width, numWidth := 0, 1
	for _, k := range slices.Concat(nodes, rels) {
		width = max(width, len(k))
		numWidth = max(numWidth, len(fmt.Sprint(max(st.Nodes[k], st.Relationships[k]))))
	}
	var b strings.Builder
	b.WriteString("Nodes\n")
	for _, k := range nodes {
		fmt.Fprintf(&b, "  %-*s  %*d\n", width, k, numWidth, st.Nodes[k])
	}
	b.WriteString("Relationships\n")
	for _, k := range rels {
		fmt.Fprintf(&b, "  %-*s  %*d\n", width, k, numWidth, st.Relationships[k])
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// orderedKeys lists the keys of order first (all of them, present or not:
// a zero count is information), then any other keys of counts, sorted.
func orderedKeys(counts map[string]int, order []string) []string {
	keys := slices.Clone(order)
	var extra []string
	for k := range counts {
		if !slices.Contains(order, k) {
			extra = append(extra, k)
		}
	}
	slices.Sort(extra)
	return append(keys, extra...)
}
