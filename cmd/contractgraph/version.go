package main

import (
	"encoding/json"
	"fmt"
	"runtime"
	"runtime/debug"

	"github.com/spf13/cobra"
)

// buildInfo is what `contractgraph version` reports, read from the binary
// itself (runtime/debug.ReadBuildInfo): the module version ("(devel)" for a
// build of a checkout without a version tag), the VCS commit and its time,
// whether the working tree had uncommitted changes, and the Go version.
type buildInfo struct {
	Version  string `json:"version"`
	Commit   string `json:"commit,omitempty"`
	Time     string `json:"commit_time,omitempty"`
	Modified bool   `json:"modified,omitempty"`
	Go       string `json:"go"`
}

func readBuildInfo() buildInfo {
	bi := buildInfo{Version: "(unknown)", Go: runtime.Version()}
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return bi
	}
	if v := info.Main.Version; v != "" {
		bi.Version = v
	}
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			bi.Commit = s.Value
		case "vcs.time":
			bi.Time = s.Value
		case "vcs.modified":
			bi.Modified = s.Value == "true"
		}
	}
	return bi
}

// String is the one-line form: "v1.2.0 (commit 0123abcd 2026-12-01T19:00:00Z, modified, go1.26.0)".
func (b buildInfo) String() string {
	s := b.Version + " ("
	if b.Commit != "" {
		s += "commit " + shortCommit(b.Commit)
		if b.Time != "" {
			s += " " + b.Time
		}
		if b.Modified {
			s += ", modified"
		}
		s += ", "
	} else {
		s += "no VCS information, "
	}
	return s + b.Go + ")"
}

func shortCommit(c string) string {
	if len(c) > 12 {
		return c[:12]
	}
	return c
}

func newVersionCmd(a *app) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the version, commit and Go version of this binary",
		Long: "Print the module version, the VCS commit it was built from (with its time, and whether the\n" +
			"working tree had changes) and the Go version, as recorded in the binary. --version prints the\n" +
			"same line.",
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			bi := readBuildInfo()
			if a.cfg.JSON {
				b, err := json.Marshal(bi)
				if err != nil {
					return err
				}
				_, err = fmt.Fprintf(a.stdout, "%s\n", b)
				return err
			}
			_, err := fmt.Fprintf(a.stdout, "contractgraph %s\n", bi)
			return err
		},
	}
}
