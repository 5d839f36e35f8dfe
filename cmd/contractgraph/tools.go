package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/contractgraph/contractgraph/internal/graph"
	"github.com/contractgraph/contractgraph/internal/llm"
	"github.com/contractgraph/contractgraph/internal/retrieve"
	"github.com/contractgraph/contractgraph/internal/tools"
)

// newToolSet builds the one tool set every surface shares (tools call, ask,
// serve, mcp, demo) over store. Tools beyond the five contract tools are
// added here when the store offers what they need: the statute tools with a
// statute knowledge base, text2cypher on Neo4j.
//
// With --embed-model, clause_search and statute_search fuse BM25 with vector
// similarity; without it they rank by BM25 alone.
func (a *app) newToolSet(ctx context.Context, store graph.Store) (*tools.Set, error) {
	var (
		opts     tools.Options
		embedder llm.Embedder
	)
	if a.cfg.EmbedModel != "" {
		var err error
		if embedder, err = a.openServerEmbedder(ctx); err != nil {
			return nil, err
		}
		// The vector half compares only this model's vectors, and says once
		// when the store has none.
		opts.Clauses = retrieve.New(store, retrieve.Options{Embedder: embedder, Model: a.cfg.EmbedModel, Log: a.log})
	}
	set := tools.New(store, opts)
	if err := addStatuteTools(set, store, embedder); err != nil {
		return nil, fmt.Errorf("add statute tools: %w", err)
	}
	if _, err := tools.AddText2Cypher(set, store, tools.Text2CypherOptions{Model: a.openModel, Logger: a.log}); err != nil {
		return nil, fmt.Errorf("add text2cypher: %w", err)
	}
	return set, nil
}

func newToolsCmd(a *app) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "tools",
		Short: "List or call the typed query tools the agent, API and MCP server use",
		// Runnable, so that an unknown subcommand is a usage error rather
		// than a help page with exit code 0.
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error { return cmd.Help() },
	}
	cmd.AddCommand(newToolsListCmd(a), newToolsCallCmd(a))
	return cmd
}

func newToolsListCmd(a *app) *cobra.Command {
	return &cobra.Command{
		Use:   "list",
		Short: "Print the tools as a JSON array of {name, description, input_schema}",
		Args:  usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx := cmd.Context()
			// Listing needs no data, so it works on a fresh machine too:
			// without a database file the tools are those of an empty
			// store of the same backend, which is not kept.
			if err := a.checkDBExists(); err != nil {
				dir, err := os.MkdirTemp("", "contractgraph-tools")
				if err != nil {
					return err
				}
				defer os.RemoveAll(dir)
				cfg := a.cfg
				defer func() { a.cfg = cfg }()
				a.cfg.DB = filepath.Join(dir, "empty.db")
			}
			store, err := a.openStore(ctx)
			if err != nil {
				return err
			}
			defer store.Close()
			set, err := a.newToolSet(ctx, store)
			if err != nil {
				return err
			}
			out, err := json.MarshalIndent(set.Tools(), "", "  ")
			if err != nil {
				return fmt.Errorf("encode tools: %w", err)
			}
			_, err = fmt.Fprintf(a.stdout, "%s\n", out)
			return err
		},
	}
}

func newToolsCallCmd(a *app) *cobra.Command {
	return &cobra.Command{
		Use:   "call NAME [JSON-ARGS | -]",
		Short: "Call a tool and print its JSON result",
		Long: "Call a tool with JSON arguments (default {}; - reads them from stdin) and print exactly its\n" +
			"JSON result on stdout. Invalid arguments are reported on stderr with exit code 2.",
		Example: `  contractgraph tools call contract_search '{"contract_type":"Distributor","min_end_date":"2005-01-01"}'
  contractgraph tools call contract_aggregate '{"group_by":"governing_law_state","metric":"count","limit":3}'
  echo '{"contract_id":"demo-saas-kestrel"}' | contractgraph tools call get_contract -`,
		Args: usageArgs(cobra.RangeArgs(1, 2)),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			name := args[0]
			var raw []byte
			switch {
			case len(args) == 1:
				raw = []byte("{}")
			case args[1] == "-":
				b, err := io.ReadAll(io.LimitReader(a.stdin, tools.MaxArgsBytes+1))
				if err != nil {
					return fmt.Errorf("read arguments from stdin: %w", err)
				}
				raw = b
			default:
				raw = []byte(args[1])
			}
			if !json.Valid(raw) {
				return usageError(fmt.Errorf("%s: arguments are not valid JSON: %s", name, abbreviate(string(raw), 80)))
			}
			store, err := a.openExistingStore(ctx)
			if err != nil {
				return err
			}
			defer store.Close()
			set, err := a.newToolSet(ctx, store)
			if err != nil {
				return err
			}
			out, err := set.Call(ctx, name, raw)
			if err != nil {
				return toolCallError(name, err)
			}
			_, err = fmt.Fprintf(a.stdout, "%s\n", out)
			return err
		},
	}
}

// usageArgs makes a wrong number of arguments a usage error (exit 2).
func usageArgs(check cobra.PositionalArgs) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if err := check(cmd, args); err != nil {
			return usageError(err)
		}
		return nil
	}
}

// toolCallError maps a tool error to the CLI's exit codes: the caller's
// mistakes (bad arguments, unknown tool) exit 2, everything else 1.
func toolCallError(name string, err error) error {
	var ae *tools.ArgError
	switch {
	case errors.As(err, &ae):
		return usageError(fmt.Errorf("%s: invalid arguments: %w", name, err))
	case errors.Is(err, tools.ErrUnknownTool):
		return usageError(err)
	}
	return err
}

// abbreviate shortens s to at most n runes for a message.
func abbreviate(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}
