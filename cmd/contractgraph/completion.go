package main

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"regexp"
	"sort"
	"strings"

	"github.com/spf13/cobra"

	"github.com/contractgraph/contractgraph/internal/contract"
	"github.com/contractgraph/contractgraph/internal/graph"
	"github.com/contractgraph/contractgraph/internal/tools"
)

// Shell completion: cobra's `completion bash|zsh|fish|powershell` writes
// the script; these functions answer it. They complete tool names, the
// JSON arguments of `tools call` (argument names, contract types, contract
// ids), the contract ids of `risk`, and the closed values of flags. Ids
// come from the store of --db / --store; a store that cannot be opened
// completes nothing rather than printing an error into the shell.

// maxCompletions bounds the ids offered at once.
const maxCompletions = 200

// completionStore opens the store for completion, or returns nil.
func (a *app) completionStore(ctx context.Context) graph.Store {
	if a.log == nil {
		// PersistentPreRunE, which sets the logger, does not run for
		// completions.
		a.log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	if a.checkDBExists() != nil {
		return nil
	}
	s, err := a.openStore(ctx)
	if err != nil {
		return nil
	}
	return s
}

// contractIDs lists up to maxCompletions ids starting with prefix.
func (a *app) contractIDs(ctx context.Context, prefix string) []string {
	s := a.completionStore(ctx)
	if s == nil {
		return nil
	}
	defer s.Close()
	if l, ok := s.(graph.ContractIDLister); ok {
		ids, err := l.ContractIDs(ctx, prefix, maxCompletions)
		if err != nil {
			return nil
		}
		return ids
	}
	return nil
}

// completeRiskArgs completes contract ids, and file names since risk also
// reviews documents.
func (a *app) completeRiskArgs(cmd *cobra.Command, _ []string, toComplete string) ([]string, cobra.ShellCompDirective) {
	return a.contractIDs(cmd.Context(), toComplete), cobra.ShellCompDirectiveDefault
}

// completeToolCall completes `tools call NAME JSON`: the tool names, then
// the JSON arguments.
func (a *app) completeToolCall(cmd *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
	ctx := cmd.Context()
	set := a.completionToolSet(ctx)
	switch len(args) {
	case 0:
		var out []string
		for _, t := range set.Tools() {
			if strings.HasPrefix(t.Name, toComplete) {
				out = append(out, t.Name+"\t"+abbreviate(tools.FirstSentence(t.Description), 60))
			}
		}
		return out, cobra.ShellCompDirectiveNoFileComp
	case 1:
		return a.completeToolArgs(ctx, set, args[0], toComplete), cobra.ShellCompDirectiveNoFileComp | cobra.ShellCompDirectiveNoSpace
	}
	return nil, cobra.ShellCompDirectiveNoFileComp
}

// completionToolSet is the tool set of the store of --db, or the contract
// tools alone when there is none.
func (a *app) completionToolSet(ctx context.Context) *tools.Set {
	if s := a.completionStore(ctx); s != nil {
		defer s.Close()
		if set, err := a.newListedToolSet(ctx, s); err == nil {
			return set
		}
	}
	return tools.New(nil, tools.Options{})
}

var (
	// argValueRE matches JSON arguments cut inside the string value of
	// contract_id, contract_type, clause_type or an entry of clause_types.
	argValueRE = regexp.MustCompile(`^(.*"(contract_id|contract_type|clause_type|clause_types)"\s*:\s*(\[(?:\s*"[^"]*"\s*,)*)?\s*")([^"]*)$`)
	// argNameRE matches JSON arguments cut where an argument name starts.
	argNameRE = regexp.MustCompile(`^(\s*\{\s*|.*,\s*)"?([a-z_]*)$`)
)

// completeToolArgs completes a tool's JSON arguments: argument names where
// one starts, and the values of contract_id (from the store), contract_type,
// clause_type and clause_types (from the taxonomies), each closed so that
// the JSON is whole.
func (a *app) completeToolArgs(ctx context.Context, set *tools.Set, tool, toComplete string) []string {
	if toComplete == "" {
		return []string{"{", "{}"}
	}
	if m := argValueRE.FindStringSubmatch(toComplete); m != nil {
		head, field, list, prefix := m[1], m[2], m[3], m[4]
		closer := `"}`
		if list != "" || field == "clause_types" {
			closer = `"]}`
		}
		var values []string
		switch field {
		case "contract_id":
			values = a.contractIDs(ctx, prefix)
		case "contract_type":
			values = prefixed(contract.ContractTypes, prefix)
		case "clause_type", "clause_types":
			values = prefixed(contract.ClauseTypeNames(), prefix)
		}
		out := make([]string, len(values))
		for i, v := range values {
			out[i] = head + v + closer
		}
		return out
	}
	if m := argNameRE.FindStringSubmatch(toComplete); m != nil {
		var out []string
		for _, name := range toolArgNames(set, tool) {
			if strings.HasPrefix(name, m[2]) {
				out = append(out, m[1]+`"`+name+`":`)
			}
		}
		return out
	}
	return nil
}

// prefixed lists the values that start with prefix, ignoring case.
func prefixed(values []string, prefix string) []string {
	var out []string
	for _, v := range values {
		if strings.HasPrefix(strings.ToLower(v), strings.ToLower(prefix)) {
			out = append(out, v)
		}
	}
	return out
}

// toolArgNames lists the argument names of a tool's schema, sorted.
func toolArgNames(set *tools.Set, tool string) []string {
	for _, t := range set.Tools() {
		if t.Name != tool {
			continue
		}
		var schema struct {
			Properties map[string]json.RawMessage `json:"properties"`
		}
		if json.Unmarshal(t.InputSchema, &schema) != nil {
			return nil
		}
		names := make([]string, 0, len(schema.Properties))
		for n := range schema.Properties {
			names = append(names, n)
		}
		sort.Strings(names)
		return names
	}
	return nil
}

// fixedValues completes a flag with a closed set of values.
func fixedValues(values ...string) func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
	return func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		return values, cobra.ShellCompDirectiveNoFileComp
	}
}

// registerCompletions adds the completions of the root's flags.
func registerCompletions(root *cobra.Command) {
	_ = root.RegisterFlagCompletionFunc("store", fixedValues("sqlite", "neo4j"))
	_ = root.RegisterFlagCompletionFunc("tool-schemas", fixedValues(toolSchemasAuto, toolSchemasFull, toolSchemasCompact))
}
