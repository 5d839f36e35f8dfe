package statute

import (
	"os"
	"path/filepath"
	"testing"
)

// sharedStatutes returns ../shared/data/statutes relative to the module
// root, skipping the test when the shared data is not there.
func sharedStatutes(t testing.TB) string {
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
	p := filepath.Join(dir, "..", "shared", "data", "statutes")
	if _, err := os.Stat(p); err != nil {
		t.Skipf("shared statute data not available: %v", err)
	}
	return p
}
