package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/contractgraph/contractgraph/internal/importer"
)

func newExportCmd(a *app) *cobra.Command {
	var out string
	cmd := &cobra.Command{
		Use:   "export -o FILE.jsonl",
		Short: "Write every contract of the graph as ContractGraph JSONL",
		Long: "Write every contract (with its parties, clauses, chunks and full text) as ContractGraph JSONL:\n" +
			"a header line, then one contract per line in id order. `contractgraph import` reads it back;\n" +
			"importing an export into an empty database reproduces the same tool answers. With -o - the\n" +
			"export goes to standard output. A file is written completely or not at all.",
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if out == "" {
				return usageError(errors.New("-o FILE is required (use -o - for standard output)"))
			}
			store, err := a.openExistingStore(cmd.Context())
			if err != nil {
				return err
			}
			defer store.Close()
			if out == "-" {
				return importer.Export(cmd.Context(), store, a.stdout)
			}
			lines := &lineCounter{}
			err = writeAtomically(out, func(f *os.File) error {
				lines.w = f
				return importer.Export(cmd.Context(), store, lines)
			})
			if err != nil {
				return err
			}
			n := max(0, lines.n-1) // less the header line
			if a.cfg.JSON {
				return json.NewEncoder(a.stdout).Encode(struct {
					Exported int    `json:"exported"`
					Output   string `json:"output"`
				}{n, out})
			}
			fmt.Fprintf(a.stderr, "exported %d contracts to %s\n", n, out)
			return nil
		},
	}
	cmd.Flags().StringVarP(&out, "output", "o", "", "output file (- for standard output)")
	return cmd
}

// lineCounter counts the lines written through it.
type lineCounter struct {
	w io.Writer
	n int
}

func (c *lineCounter) Write(p []byte) (int, error) {
	c.n += bytes.Count(p, []byte{'\n'})
	return c.w.Write(p)
}

// writeAtomically writes path through a temporary file in the same
// directory that replaces path only once write has succeeded.
func writeAtomically(path string, write func(*os.File) error) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name()) // fails harmlessly after the rename
	if err := write(tmp); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	// CreateTemp makes the file private; give it a data file's usual mode.
	if err := os.Chmod(tmp.Name(), 0o644); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}
