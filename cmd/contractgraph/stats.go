package main

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/contractgraph/contractgraph/internal/graph"
	"github.com/contractgraph/contractgraph/internal/tools"
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
			caps := storeCapabilities(store)
			if a.cfg.JSON {
				enc := json.NewEncoder(a.stdout)
				enc.SetIndent("", "  ")
				return enc.Encode(struct {
					graph.Stats
					Backend      string             `json:"backend"`
					Capabilities []graph.Capability `json:"capabilities"`
				}{st, a.cfg.Store, caps})
			}
			if err := writeStats(a.stdout, st); err != nil {
				return err
			}
			return writeCapabilities(a.stdout, a.cfg.Store, caps)
		},
	}
}

// storeCapabilities is graph.Capabilities plus the tools' own optional
// capability, text2cypher.
func storeCapabilities(s graph.Store) []graph.Capability {
	_, cypher := s.(tools.CypherStore)
	return append(graph.Capabilities(s), graph.Capability{Name: "text2cypher", Supported: cypher, Purpose: "the guarded text2cypher tool"})
}

// writeCapabilities prints which optional capabilities the backend has.
func writeCapabilities(w io.Writer, backend string, caps []graph.Capability) error {
	width := 0
	for _, c := range caps {
		width = max(width, len(c.Name))
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Capabilities (%s store)\n", backend)
	for _, c := range caps {
		mark := "yes"
		if !c.Supported {
			mark = "no "
		}
		fmt.Fprintf(&b, "  %-*s  %s  %s\n", width, c.Name, mark, c.Purpose)
	}
	_, err := io.WriteString(w, b.String())
	return err
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
