package sqlite

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strconv"
	"testing"

	"github.com/contractgraph/contractgraph/internal/contract"
	"github.com/contractgraph/contractgraph/internal/synth"
)

// rssAnon is the process's resident anonymous memory in bytes, from
// /proc/self/status.
func rssAnon(t *testing.T) int64 {
	t.Helper()
	raw, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Skipf("no /proc/self/status: %v", err)
	}
	for line := range bytes.Lines(raw) {
		if rest, ok := bytes.CutPrefix(line, []byte("RssAnon:")); ok {
			kib, err := strconv.ParseInt(string(bytes.Fields(rest)[0]), 10, 64)
			if err != nil {
				t.Fatalf("RssAnon %q: %v", rest, err)
			}
			return kib << 10
		}
	}
	t.Skip("no RssAnon in /proc/self/status")
	return 0
}

// TestReleaseMemory checks that ReleaseMemory gives the pages a bulk write
// left in the writer's cache back to the operating system, as the import
// command does before entity resolution and family detection, and that
// the store still works afterwards.
func TestReleaseMemory(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("reads /proc/self/status")
	}
	if testing.Short() {
		t.Skip("writes 4,000 contracts")
	}
	s, err := Open(filepath.Join(t.TempDir(), "s.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	var cs []*contract.Contract
	write := func() {
		if _, err := s.PutContracts(ctx, cs); err != nil {
			t.Fatal(err)
		}
		cs = cs[:0]
	}
	err = synth.Generate(3, 4000, func(c *contract.Contract) error {
		if cs = append(cs, c); len(cs) == 1000 {
			write()
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	size, err := storeBytes(s.wdb)
	if err != nil {
		t.Fatal(err)
	}
	runtime.GC()
	debug.FreeOSMemory()
	before := rssAnon(t)
	if err := s.ReleaseMemory(ctx); err != nil {
		t.Fatal(err)
	}
	after := rssAnon(t)
	// The cache holds about the whole store, at more than its size.
	if freed := before - after; freed < size/2 {
		t.Errorf("ReleaseMemory freed %d KiB of a %d KiB store's writer cache (RssAnon %d -> %d KiB), want at least half the store",
			freed>>10, size>>10, before>>10, after>>10)
	} else {
		t.Logf("freed %d KiB; store %d KiB", freed>>10, size>>10)
	}
	if err := synth.Generate(4, 10, func(c *contract.Contract) error { cs = append(cs, c); return nil }); err != nil {
		t.Fatal(err)
	}
	write()
	var n int
	if err := s.rdb.QueryRow(`SELECT count(*) FROM contracts`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != 4010 {
		t.Errorf("%d contracts after a write that followed ReleaseMemory, want 4010", n)
	}
}
