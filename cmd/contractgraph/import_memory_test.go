package main

import (
	"context"
	"runtime/debug"
	"testing"

	"github.com/contractgraph/contractgraph/internal/graph"
)

// releasingStore records ReleaseMemory calls and the memory limit each saw.
type releasingStore struct {
	graph.Store
	released int
}

func (s *releasingStore) ReleaseMemory(context.Context) error {
	s.released++
	return nil
}

// TestBoundAfterImport checks what an import sets up for entity resolution
// and family detection: the store's write caches released and a memory
// limit on the heap (their peak at 1M contracts was twice their live data
// without one), both restored afterwards, and the user's GOMEMLIMIT
// respected.
func TestBoundAfterImport(t *testing.T) {
	t.Setenv("GOGC", "")
	t.Setenv("GOMEMLIMIT", "")
	before := debug.SetMemoryLimit(-1)
	s := &releasingStore{}
	restore, err := boundAfterImport(context.Background(), s)
	if err != nil {
		t.Fatal(err)
	}
	if got := debug.SetMemoryLimit(-1); got != afterImportMemoryLimit {
		t.Errorf("memory limit after the import %d, want %d", got, afterImportMemoryLimit)
	}
	if s.released != 1 {
		t.Errorf("store released its memory %d times, want once", s.released)
	}
	restore()
	if got := debug.SetMemoryLimit(-1); got != before {
		t.Errorf("memory limit restored to %d, want %d", got, before)
	}

	t.Setenv("GOMEMLIMIT", "2GiB")
	restore, err = boundAfterImport(context.Background(), s)
	if err != nil {
		t.Fatal(err)
	}
	if got := debug.SetMemoryLimit(-1); got != before {
		t.Errorf("memory limit %d with GOMEMLIMIT set, want it left at %d", got, before)
	}
	restore()
}
