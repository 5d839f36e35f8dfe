package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/contractgraph/contractgraph/internal/demo"
	"github.com/contractgraph/contractgraph/internal/graph/sqlite"
	"github.com/contractgraph/contractgraph/internal/playbook"
)

// defaultDemoDB is where the demo puts its database unless --out says otherwise.
const defaultDemoDB = "contractgraph-demo.db"

func newDemoCmd(a *app) *cobra.Command {
	var (
		out       string
		contracts int
		seed      int64
		serve     bool
	)
	cmd := &cobra.Command{
		Use:   "demo",
		Short: "Build a demo graph from shipped data and take a guided tour",
		Long: "Build an embedded graph from data ContractGraph ships (six hand-written sample contracts with\n" +
			"full text and a generated corpus), then answer a few plain-language questions with the typed\n" +
			"tools, showing each tool call and its result. Needs nothing configured and no network.\n\n" +
			"The demo writes its own database (--out), replacing an earlier demo database there; it never\n" +
			"touches the database of --db. It ends with the commands to explore that database; with --serve\n" +
			"it then serves the web app on a free loopback port, printing the URL, until Ctrl+C.",
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx := cmd.Context()
			if contracts < 0 {
				return usageError(fmt.Errorf("--contracts %d is negative", contracts))
			}
			if err := replaceDemoDB(ctx, out); err != nil {
				return err
			}
			started := time.Now()
			store, err := sqlite.Open(out)
			if err != nil {
				return err
			}
			defer store.Close()
			n := contracts
			if n == 0 {
				n = -1 // demo.Options: negative means no generated contracts
			}
			if !a.cfg.JSON {
				fmt.Fprintf(a.stderr, "Building the demo graph in %s: the hand-written sample contracts and %d generated ones...\n", out, contracts)
			}
			bar := newProgressBar(a.stderr, a.cfg.JSON)
			bar.start("storing contracts")
			sum, err := demo.Build(ctx, store, demo.Options{Contracts: n, Seed: seed, Progress: func(done, total int) {
				bar.update(int64(done), int64(total), done)
			}})
			bar.clear()
			if err != nil {
				return err
			}
			set, err := a.newToolSet(ctx, store)
			if err != nil {
				return err
			}
			answers, err := demo.RunTour(ctx, set)
			if err != nil {
				return err
			}
			check, err := demo.CheckPlaybook(ctx, store, time.Now())
			if err != nil {
				return err
			}
			abs, err := filepath.Abs(out)
			if err != nil {
				abs = out
			}
			if a.cfg.JSON {
				enc := json.NewEncoder(a.stdout)
				enc.SetIndent("", "  ")
				return enc.Encode(struct {
					Database  string           `json:"database"`
					Samples   int              `json:"samples"`
					Generated int              `json:"generated"`
					Tour      []demo.Answer    `json:"tour"`
					Playbook  *playbook.Report `json:"playbook"`
				}{abs, sum.Samples, sum.Generated, answers, check})
			}
			fmt.Fprintf(a.stdout, "Built a demo graph of %d contracts (%d sample contracts with full text, %d generated) in %.1fs:\n  %s\n\n",
				sum.Samples+sum.Generated, sum.Samples, sum.Generated, time.Since(started).Seconds(), abs)
			fmt.Fprintf(a.stdout, "A short tour. Each question is answered by one typed tool call, the same tools the agent uses;\nthe last by a playbook check, which needs no model.\n\n")
			if err := demo.Render(a.stdout, answers, "contractgraph --db "+shellArg(out), a.textOptions(a.stdout)); err != nil {
				return err
			}
			if err := demo.RenderPlaybook(a.stdout, len(answers)+1, check, "contractgraph --db "+shellArg(out)); err != nil {
				return err
			}
			fmt.Fprintf(a.stdout, `Next steps (run them in this directory)
  Explore the demo graph:   contractgraph --db %[1]s stats
                            contractgraph --db %[1]s tools list
                            contractgraph --db %[1]s tools call contract_search '{"contract_type":"Distributor"}'
  Ask in plain language:    contractgraph --db %[1]s --model openai:gpt-4o-mini ask "Which contracts with Cascade Instruments expire in 2026?"
                            (needs OPENAI_API_KEY; for a local model use --model ollama:qwen2.5:7b with Ollama running)
  Check against a playbook: contractgraph --db %[1]s playbook check demo-saas-kestrel --format html -o check.html
                            (contractgraph playbook example prints the playbook to adapt)
  Browse it in the web app: contractgraph --db %[1]s serve
                            (serves http://127.0.0.1:8080/ until Ctrl+C; --addr 127.0.0.1:PORT picks another port)
`, shellArg(out))
			if serve {
				return a.serveDemo(ctx, store)
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVarP(&out, "out", "o", defaultDemoDB, "demo database file to (re)create")
	f.IntVar(&contracts, "contracts", demo.DefaultContracts, "number of generated contracts besides the samples")
	f.Int64Var(&seed, "seed", demo.DefaultSeed, "generator seed")
	f.BoolVar(&serve, "serve", false, "then serve the web app on a free loopback port, printing its URL, until Ctrl+C")
	return cmd
}

// replaceDemoDB deletes an earlier demo database and its WAL files so the
// demo starts from scratch. A file there that is not a demo database is
// left alone and reported: the demo must never delete someone's data.
func replaceDemoDB(ctx context.Context, path string) error {
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if !isDemoDB(ctx, path) {
		return usageError(fmt.Errorf("%s exists and is not a demo database; choose another --out or remove the file", path))
	}
	for _, p := range []string{path, path + "-wal", path + "-shm"} {
		if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("replace demo database: %w", err)
		}
	}
	return nil
}

// isDemoDB reports whether the SQLite file at path holds the demo's
// sample contracts.
func isDemoDB(ctx context.Context, path string) bool {
	store, err := sqlite.Open(path)
	if err != nil {
		return false
	}
	defer store.Close()
	c, err := store.GetContract(ctx, demo.MarkerID)
	return err == nil && c.ExtractedBy == demo.SampleSource
}

// shellArg quotes a path for the shell only when it needs it.
func shellArg(s string) string {
	for _, r := range s {
		if !(r == '/' || r == '.' || r == '-' || r == '_' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') {
			return "'" + s + "'"
		}
	}
	return s
}
