package main

import (
	"io"
	"log/slog"
	"os"

	"github.com/spf13/cobra"
)

// config is the whole configuration: flags > environment > defaults.
type config struct {
	DB         string // SQLite database path (--db, CONTRACTGRAPH_DB)
	Store      string // sqlite | neo4j (--store, CONTRACTGRAPH_STORE)
	Model      string // provider:model (--model, CONTRACTGRAPH_MODEL)
	EmbedModel string // provider:model (--embed-model, CONTRACTGRAPH_EMBED_MODEL)
	JSON       bool   // machine-readable output (--json)
	Verbose    bool

	// ToolSchemas is how the tools are described to a model: auto, full or
	// compact (--tool-schemas, CONTRACTGRAPH_TOOL_SCHEMAS); see toolSchemasFor.
	ToolSchemas string

	// ModelTimeout bounds model calls (--model-timeout,
	// CONTRACTGRAPH_MODEL_TIMEOUT): "10m", or per kind "chat=5m,extract=30m,embed=1m".
	ModelTimeout string
}

// app holds what every subcommand shares; subcommands are built from it.
type app struct {
	cfg    config
	stdin  io.Reader
	stdout io.Writer
	stderr io.Writer
	log    *slog.Logger
}

func newApp(stdin io.Reader, stdout, stderr io.Writer) *app {
	return &app{stdin: stdin, stdout: stdout, stderr: stderr}
}

func envOr(name, def string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return def
}

func newRootCmd(a *app) *cobra.Command {
	root := &cobra.Command{
		Use:           "contractgraph",
		Short:         "Turn commercial contracts into a knowledge graph and ask it questions",
		SilenceUsage:  true,
		SilenceErrors: true,
		PersistentPreRunE: func(cmd *cobra.Command, args []string) error {
			level := slog.LevelWarn
			if a.cfg.Verbose {
				level = slog.LevelDebug
			}
			a.log = slog.New(slog.NewTextHandler(a.stderr, &slog.HandlerOptions{Level: level}))
			return nil
		},
	}
	root.SetIn(a.stdin)
	root.SetOut(a.stdout)
	root.SetErr(a.stderr)
	root.SetFlagErrorFunc(func(cmd *cobra.Command, err error) error { return usageError(err) })
	pf := root.PersistentFlags()
	pf.StringVar(&a.cfg.DB, "db", envOr("CONTRACTGRAPH_DB", "contractgraph.db"), "SQLite database file (env CONTRACTGRAPH_DB)")
	pf.StringVar(&a.cfg.Store, "store", envOr("CONTRACTGRAPH_STORE", "sqlite"), "storage backend: sqlite or neo4j (env CONTRACTGRAPH_STORE)")
	pf.StringVar(&a.cfg.Model, "model", os.Getenv("CONTRACTGRAPH_MODEL"), "chat model as provider:model, e.g. openai:gpt-4o-mini, ollama:qwen2.5:7b (env CONTRACTGRAPH_MODEL)")
	pf.StringVar(&a.cfg.EmbedModel, "embed-model", os.Getenv("CONTRACTGRAPH_EMBED_MODEL"), "embedding model as provider:model (env CONTRACTGRAPH_EMBED_MODEL)")
	pf.StringVar(&a.cfg.ToolSchemas, "tool-schemas", envOr("CONTRACTGRAPH_TOOL_SCHEMAS", toolSchemasAuto), "how tools are described to the model: full, compact, or auto = compact for a local server (ollama, localhost) (env CONTRACTGRAPH_TOOL_SCHEMAS)")
	pf.StringVar(&a.cfg.ModelTimeout, "model-timeout", os.Getenv("CONTRACTGRAPH_MODEL_TIMEOUT"), "model call timeout, e.g. 10m, or per kind chat=5m,extract=30m,embed=1m (default 2m/5m/2m; 5m/10m/5m plus the prompt at 5 tokens/s for local servers) (env CONTRACTGRAPH_MODEL_TIMEOUT)")
	pf.BoolVar(&a.cfg.JSON, "json", false, "print JSON instead of readable text")
	pf.BoolVarP(&a.cfg.Verbose, "verbose", "v", false, "log debug details to stderr")

	// Subcommands: one file each. Keep this list sorted.
	root.AddCommand(newAskCmd(a), newChatCmd(a), newDemoCmd(a), newEvalCmd(a), newExportCmd(a), newGenerateCmd(a), newImportCmd(a), newIngestCmd(a), newMCPCmd(a), newReindexCmd(a), newResolveCmd(a), newRiskCmd(a), newServeCmd(a), newStatsCmd(a), newStatutesCmd(a), newToolsCmd(a))
	return root
}
