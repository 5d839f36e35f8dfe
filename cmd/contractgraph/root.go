package main

import (
	"fmt"
	"io"
	"log/slog"
	"math"
	"os"
	"strconv"
	"strings"

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

	// ExactParties turns typo-tolerant party matching off (--exact-parties,
	// CONTRACTGRAPH_EXACT_PARTIES=1): a party name that no stored name
	// contains then matches nothing.
	ExactParties bool
	// Retrieval stages of clause_search and statute_search (stages.go):
	// --rerank off|lexical|model, --expand off|thesaurus|model, --dedup,
	// --sections (CONTRACTGRAPH_RERANK, _EXPAND, _DEDUP, _SECTIONS).
	Rerank, Expand  string
	Dedup, Sections bool
	// SummaryMeaning makes summary_search hybrid when an embedding model
	// is configured and the store keeps summary vectors.
	SummaryMeaning bool

	// Temperature is the agent's sampling temperature (--temperature,
	// CONTRACTGRAPH_TEMPERATURE); negative leaves it to the provider.
	Temperature float64

	// CPUProfile and MemProfile are files to write a pprof CPU profile of
	// the whole command to, and its heap profile at the end
	// (--cpuprofile, CONTRACTGRAPH_CPUPROFILE; --memprofile,
	// CONTRACTGRAPH_MEMPROFILE); see profile.go.
	CPUProfile, MemProfile string
}

// agentTemperature is the temperature the agent passes to every model
// call: nil, the provider's default, when --temperature is negative.
func (a *app) agentTemperature() *float64 {
	if a.cfg.Temperature < 0 {
		return nil
	}
	t := a.cfg.Temperature
	return &t
}

// temperatureDefault reads CONTRACTGRAPH_TEMPERATURE for the flag's
// default; a value that is not a number is reported when a command runs.
func temperatureDefault() (float64, error) {
	v := strings.TrimSpace(os.Getenv("CONTRACTGRAPH_TEMPERATURE"))
	if v == "" {
		return 0, nil
	}
	t, err := strconv.ParseFloat(v, 64)
	if err != nil || math.IsNaN(t) || math.IsInf(t, 0) {
		return 0, fmt.Errorf("CONTRACTGRAPH_TEMPERATURE=%q is not a number; want e.g. 0 or 0.7, or -1 for the provider's default", v)
	}
	return t, nil
}

// app holds what every subcommand shares; subcommands are built from it.
type app struct {
	cfg    config
	stdin  io.Reader
	stdout io.Writer
	stderr io.Writer
	log    *slog.Logger
	prof   *profiling // --cpuprofile, --memprofile; nil when not started

	// terminal reports whether a writer is a terminal and its width
	// (isTerminal); tests replace it.
	terminal func(io.Writer) (ok bool, width int)
}

func newApp(stdin io.Reader, stdout, stderr io.Writer) *app {
	return &app{stdin: stdin, stdout: stdout, stderr: stderr, terminal: isTerminal}
}

func envOr(name, def string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return def
}

// envTrue reports whether the environment variable name is set to a true
// value (1, true, yes, on), for a boolean flag's default.
func envTrue(name string) bool {
	switch strings.ToLower(strings.TrimSpace(os.Getenv(name))) {
	case "1", "true", "yes", "on":
		return true
	}
	return false
}

// envBool reads a boolean environment variable for a flag's default: 1,
// true, yes or on, and 0, false, no or off; anything else keeps def.
func envBool(name string, def bool) bool {
	switch strings.ToLower(strings.TrimSpace(os.Getenv(name))) {
	case "1", "true", "yes", "on":
		return true
	case "0", "false", "no", "off":
		return false
	}
	return def
}

func newRootCmd(a *app) *cobra.Command {
	tempDefault, tempErr := temperatureDefault()
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
			if tempErr != nil && !cmd.Flags().Changed("temperature") {
				return usageError(tempErr)
			}
			if math.IsNaN(a.cfg.Temperature) || math.IsInf(a.cfg.Temperature, 0) {
				return usageError(fmt.Errorf("--temperature %v is not a number", a.cfg.Temperature))
			}
			return a.startProfiling(a.cfg.CPUProfile, a.cfg.MemProfile)
		},
	}
	root.Version = readBuildInfo().String()
	root.SetVersionTemplate("contractgraph {{.Version}}\n")
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
	pf.Float64Var(&a.cfg.Temperature, "temperature", tempDefault, "the agent's sampling temperature: 0 answers a question the same way each time; negative uses the provider's default, for models that accept no other (env CONTRACTGRAPH_TEMPERATURE)")
	pf.BoolVar(&a.cfg.ExactParties, "exact-parties", envTrue("CONTRACTGRAPH_EXACT_PARTIES"), "match party names only as written: no typo tolerance in parties filters and party_search (env CONTRACTGRAPH_EXACT_PARTIES=1)")
	pf.StringVar(&a.cfg.Rerank, "rerank", envOr("CONTRACTGRAPH_RERANK", defaultRerank), "second-stage ranking of clause_search and statute_search: off, lexical (phrase and proximity, no model) or model (--model ranks the top 20) (env CONTRACTGRAPH_RERANK)")
	pf.StringVar(&a.cfg.Expand, "expand", envOr("CONTRACTGRAPH_EXPAND", defaultExpand), "query expansion of clause_search and statute_search: off, thesaurus (the clause taxonomy and legal thesaurus) or model (the thesaurus and --model's phrases) (env CONTRACTGRAPH_EXPAND)")
	pf.BoolVar(&a.cfg.Dedup, "dedup", envBool("CONTRACTGRAPH_DEDUP", defaultDedup), "collapse near-duplicate passages of one contract in clause_search results (env CONTRACTGRAPH_DEDUP)")
	pf.BoolVar(&a.cfg.SummaryMeaning, "summary-by-meaning", envBool("CONTRACTGRAPH_SUMMARY_BY_MEANING", defaultSummaryMeaning), "with --embed-model, summary_search also takes the up to 10 contracts whose summaries are nearest the search in meaning (vectors from import or `reindex --embeddings`, embedded store) (env CONTRACTGRAPH_SUMMARY_BY_MEANING)")
	pf.BoolVar(&a.cfg.Sections, "sections", envBool("CONTRACTGRAPH_SECTIONS", defaultSections), "add each clause_search hit's enclosing section (heading and span) (env CONTRACTGRAPH_SECTIONS)")
	pf.StringVar(&a.cfg.CPUProfile, "cpuprofile", os.Getenv("CONTRACTGRAPH_CPUPROFILE"), "write a CPU profile of the command to this file, for `go tool pprof` (env CONTRACTGRAPH_CPUPROFILE)")
	pf.StringVar(&a.cfg.MemProfile, "memprofile", os.Getenv("CONTRACTGRAPH_MEMPROFILE"), "write a heap profile (in use at the end, and allocated) to this file when the command ends (env CONTRACTGRAPH_MEMPROFILE)")
	pf.BoolVar(&a.cfg.JSON, "json", false, "print JSON instead of readable text")
	pf.BoolVarP(&a.cfg.Verbose, "verbose", "v", false, "log debug details to stderr")

	// Subcommands: one file each. Keep this list sorted.
	root.AddCommand(newAskCmd(a), newChatCmd(a), newCompareCmd(a), newDeadlinesCmd(a), newDeleteCmd(a), newDemoCmd(a), newDiffCmd(a), newEvalCmd(a), newExportCmd(a), newFamiliesCmd(a), newGenerateCmd(a), newImportCmd(a), newIngestCmd(a), newMCPCmd(a), newPlaybookCmd(a), newReindexCmd(a), newResolveCmd(a), newRiskCmd(a), newServeCmd(a), newStatsCmd(a), newStatutesCmd(a), newToolsCmd(a), newVersionCmd(a))
	registerCompletions(root)
	return root
}
