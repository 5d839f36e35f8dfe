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
// chat, serve, mcp, demo, eval) over store, described for the chat model
// --model: --tool-schemas, with auto resolved by toolSchemasFor. Tools
// beyond the five contract tools are added here when the store offers what
// they need: the statute tools with a statute knowledge base, text2cypher on
// Neo4j.
//
// With --embed-model, clause_search and statute_search fuse BM25 with vector
// similarity; without it they rank by BM25 alone. Either way --expand,
// --rerank, --dedup and --sections add their stages (stages.go).
func (a *app) newToolSet(ctx context.Context, store graph.Store) (*tools.Set, error) {
	mode, err := a.toolSchemasFor(a.cfg.Model)
	if err != nil {
		return nil, err
	}
	return a.buildToolSet(ctx, store, mode)
}

// newListedToolSet is newToolSet for callers that are not --model: people
// reading `tools list` and MCP clients, whose models are their own. For
// them auto means full schemas; --tool-schemas compact still applies.
func (a *app) newListedToolSet(ctx context.Context, store graph.Store) (*tools.Set, error) {
	mode, err := a.toolSchemasFor("")
	if err != nil {
		return nil, err
	}
	return a.buildToolSet(ctx, store, mode)
}

// servedToolsHelp names, for help texts, the tools newToolSet serves,
// derived from the registry so that a tool added there is listed: the
// tools of every store, the statute tools (both backends keep statutes),
// and text2cypher on Neo4j.
func servedToolsHelp() string {
	set := tools.New(nil, tools.Options{})
	if err := tools.NewStatuteTools(nil, tools.StatuteOptions{}).AddTo(set); err != nil {
		panic(err) // fixed definitions; every test that builds the CLI catches it
	}
	return strings.Join(set.Names(), ", ") + ", and " + tools.NameText2Cypher + " on Neo4j"
}

// Values of --tool-schemas (CONTRACTGRAPH_TOOL_SCHEMAS).
const (
	toolSchemasAuto    = "auto"
	toolSchemasFull    = "full"
	toolSchemasCompact = "compact"
)

// toolSchemasRule is the auto rule, for the help texts and errors.
const toolSchemasRule = "auto (the default) means\n" +
	"compact for a model on a local server (provider ollama, or an OpenAI-compatible server on\n" +
	"localhost or 127.0.0.1 through OPENAI_BASE_URL) and full otherwise"

// toolSchemasFor resolves --tool-schemas for the chat model named model
// (provider:model; "" for a caller that is not a configured model): full
// or compact as given; auto is compact for a model on a local server
// (isLocalModel), where a small model on a CPU would spend minutes reading
// the full schemas on every request, and full otherwise. A model that
// wants compact schemas elsewhere takes --tool-schemas compact.
func (a *app) toolSchemasFor(model string) (tools.Schemas, error) {
	switch v := strings.ToLower(strings.TrimSpace(a.cfg.ToolSchemas)); v {
	case toolSchemasFull:
		return tools.SchemasFull, nil
	case toolSchemasCompact:
		return tools.SchemasCompact, nil
	case "", toolSchemasAuto:
		if model != "" && isLocalModel(model) {
			return tools.SchemasCompact, nil
		}
		return tools.SchemasFull, nil
	default:
		return 0, usageError(fmt.Errorf("--tool-schemas (CONTRACTGRAPH_TOOL_SCHEMAS) %q: want %s, %s or %s", a.cfg.ToolSchemas, toolSchemasAuto, toolSchemasFull, toolSchemasCompact))
	}
}

func (a *app) buildToolSet(ctx context.Context, store graph.Store, mode tools.Schemas) (*tools.Set, error) {
	opts := tools.Options{Schemas: mode, ExactParties: a.cfg.ExactParties}
	var embedder llm.Embedder
	if a.cfg.EmbedModel != "" {
		var err error
		if embedder, err = a.openServerEmbedder(ctx); err != nil {
			return nil, err
		}
	}
	st, err := a.stages(ctx)
	if err != nil {
		return nil, err
	}
	opts.Clauses = a.clauseSearcher(st, store, embedder)
	if sv, ok := store.(graph.SummaryVectorStore); ok && embedder != nil && a.cfg.SummaryMeaning {
		if opts.Summaries, err = retrieve.NewSummaryFinder(sv, embedder, retrieve.SummaryOptions{Model: strings.TrimSpace(a.cfg.EmbedModel)}); err != nil {
			return nil, err
		}
	}
	set := tools.New(store, opts)
	if err := addStatuteTools(set, store, tools.StatuteOptions{Embedder: embedder, Expander: st.expander, Reranker: st.reranker}); err != nil {
		return nil, fmt.Errorf("add statute tools: %w", err)
	}
	added, err := tools.AddText2Cypher(set, store, tools.Text2CypherOptions{Model: a.openModel, Logger: a.log})
	if err != nil {
		return nil, fmt.Errorf("add text2cypher: %w", err)
	}
	if added && os.Getenv("NEO4J_READONLY_USERNAME") == "" {
		a.log.Warn("text2cypher runs model-written queries as NEO4J_USERNAME; set NEO4J_READONLY_USERNAME and NEO4J_READONLY_PASSWORD to a read-only user (scripts/neo4j-readonly-user.cypher)")
	}
	return set, nil
}

func newToolsCmd(a *app) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "tools",
		Short: "List or call the typed query tools the agent, API and MCP server use",
		Long: "List or call the typed query tools the agent, the HTTP API and the MCP server use:\n" +
			servedToolsHelp() + ".",
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
		Short: "List the tools, one line each; with --json their full definitions",
		Long: "List the tools the agent, the API and the MCP server offer: one line per tool, its name and\n" +
			"the first sentence of its description. With --json, print them as a JSON array of {name,\n" +
			"description, input_schema}, with full schemas unless --tool-schemas compact asks for the\n" +
			"compact ones.\n\n" +
			"--tool-schemas (env CONTRACTGRAPH_TOOL_SCHEMAS) chooses how the tools are described to a model:\n" +
			"full gives every description, enum and format; compact gives the same tools with the same\n" +
			"arguments in about a quarter of the bytes (short descriptions, no long enums: an invalid\n" +
			"value's error lists the valid ones), for small models whose prompt processing is slow.\n" +
			"When ask, chat, serve and eval describe the tools to --model, " + toolSchemasRule + ".\n" +
			"tools list and mcp describe them to people and to MCP clients' own models: for them auto\n" +
			"means full.",
		Example: `  contractgraph tools list
  contractgraph --json tools list                           # names, descriptions and JSON Schemas
  contractgraph --json --tool-schemas compact tools list    # what a small local model is sent`,
		Args: usageArgs(cobra.NoArgs),
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
			set, err := a.newListedToolSet(ctx, store)
			if err != nil {
				return err
			}
			if !a.cfg.JSON {
				return tools.WriteToolList(a.stdout, set.Tools(), a.textOptions(a.stdout))
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
		Short: "Call a tool and print its result",
		Long: "Call a tool with JSON arguments (default {}; - reads them from stdin) and print its result\n" +
			"for a person: a table of groups or examples, the key facts of one contract, the passages\n" +
			"found. With --json, print exactly the tool's JSON result, as the API and the MCP server\n" +
			"return it. Invalid arguments are reported on stderr with exit code 2 (under --json as\n" +
			`{"error":{"code":"invalid_argument","message":…,"field":…,"valid":[…]}}).`,
		Example: `  contractgraph tools call contract_search '{"contract_type":"Distributor","min_end_date":"2005-01-01"}'
  contractgraph tools call contract_aggregate '{"group_by":"governing_law_state","metric":"count","limit":3}'
  echo '{"contract_id":"demo-saas-kestrel"}' | contractgraph tools call get_contract -`,
		Args:              usageArgs(cobra.RangeArgs(1, 2)),
		ValidArgsFunction: a.completeToolCall,
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
			if !a.cfg.JSON {
				return tools.WriteText(a.stdout, name, raw, out, a.textOptions(a.stdout))
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
// mistakes (bad arguments, a query the store refuses, unknown tool) exit 2,
// everything else 1.
func toolCallError(name string, err error) error {
	switch {
	case errors.Is(err, graph.ErrInvalidQuery):
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
