package importer

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

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
