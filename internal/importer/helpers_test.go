package importer

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

// sharedDir returns ../shared of the module root, skipping the test when the
// shared data is not there.
func sharedDir(t testing.TB) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			break
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Skip("module root not found")
		}
		dir = parent
	}
	shared := filepath.Join(dir, "..", "shared")
	if _, err := os.Stat(filepath.Join(shared, "data")); err != nil {
		t.Skipf("shared data not available at %s", shared)
	}
	return shared
}

// readAll reads path and returns its records; it fails the test on a
// file-level error.
func readAll(t testing.TB, path string, opts Options) []Record {
	t.Helper()
	var recs []Record
	if err := Read(context.Background(), path, opts, func(r Record) error {
		recs = append(recs, r)
		return nil
	}); err != nil {
		t.Fatalf("Read(%s): %v", path, err)
	}
	return recs
}

func writeFile(t testing.TB, dir, name, content string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}
