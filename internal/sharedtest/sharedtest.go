// Package sharedtest locates the shared data set (../shared beside the
// repository: the reference extraction, CUAD, statutes and the dev question
// set) for tests and benchmarks, which read it in place and never copy it.
package sharedtest

import (
	"os"
	"path/filepath"
	"testing"
)

// Dir returns the path of ../shared next to the module root, or skips the
// test or benchmark with a message saying where it looked.
func Dir(tb testing.TB) string {
	tb.Helper()
	dir, err := os.Getwd()
	if err != nil {
		tb.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			break
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			tb.Skip("module root (go.mod) not found above the working directory")
		}
		dir = parent
	}
	shared := filepath.Join(dir, "..", "shared")
	if _, err := os.Stat(filepath.Join(shared, "data")); err != nil {
		tb.Skipf("shared data set not available at %s (put the shared directory beside the repository)", shared)
	}
	return shared
}
