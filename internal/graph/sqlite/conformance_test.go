package sqlite

import (
	"path/filepath"
	"testing"

	"github.com/contractgraph/contractgraph/internal/graph"
	"github.com/contractgraph/contractgraph/internal/graph/graphtest"
)

func TestConformance(t *testing.T) {
	graphtest.Run(t, func(t *testing.T) graph.Store {
		s, err := Open(filepath.Join(t.TempDir(), "graph.db"))
		if err != nil {
			t.Fatal(err)
		}
		return s
	})
}
