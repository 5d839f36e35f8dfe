package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/contractgraph/contractgraph/internal/family"
)

// diffFormats maps --format values to writers.
var diffFormats = map[string]func(io.Writer, family.DiffReport) error{
	"json": family.WriteDiffJSON,
	"md":   family.WriteDiffMarkdown,
	"html": family.WriteDiffHTML,
}

func newDiffCmd(a *app) *cobra.Command {
	var format, output string
	cmd := &cobra.Command{
		Use:   "diff A B",
		Short: "Compare two stored contracts clause by clause (a master and its amendment, two versions)",
		Long: `Diff aligns the clauses of contracts A and B by CUAD clause type (or, when either has no
clauses, the numbered sections of their texts) and reports what B added, removed and
changed, with the changed words. Every part carries its byte span in its contract's text.`,
		Example: `  contractgraph diff MASTER-ID AMENDMENT-ID
  contractgraph diff MASTER-ID AMENDMENT-ID --format html -o diff.html`,
		Args: usageArgs(cobra.ExactArgs(2)),
		RunE: func(cmd *cobra.Command, args []string) error {
			f := strings.ToLower(format)
			if f == "" && output != "" {
				f = strings.TrimPrefix(strings.ToLower(filepath.Ext(output)), ".")
				if f == "markdown" {
					f = "md"
				}
			}
			if f == "" && a.cfg.JSON {
				f = "json"
			}
			if f == "" {
				f = "md"
			}
			write, ok := diffFormats[f]
			if !ok {
				return usageError(fmt.Errorf("--format %q: want json, md or html", format))
			}
			ctx := cmd.Context()
			store, err := a.openExistingStore(ctx)
			if err != nil {
				return err
			}
			defer store.Close()
			ca, err := store.GetContract(ctx, args[0])
			if err != nil {
				return err
			}
			cb, err := store.GetContract(ctx, args[1])
			if err != nil {
				return err
			}
			var buf bytes.Buffer
			if err := write(&buf, family.Diff(ca, cb)); err != nil {
				return err
			}
			if output == "" {
				_, err := a.stdout.Write(buf.Bytes())
				return err
			}
			return writeFileAtomic(output, buf.Bytes())
		},
	}
	cmd.Flags().StringVar(&format, "format", "", "json, md or html (default: from -o's extension, else md; --json means json)")
	cmd.Flags().StringVarP(&output, "output", "o", "", "write the report to this file instead of standard output")
	return cmd
}

// writeFileAtomic writes b to path whole or not at all.
func writeFileAtomic(path string, b []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), ".diff-*")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if _, err := tmp.Write(b); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := tmp.Close(); err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}
