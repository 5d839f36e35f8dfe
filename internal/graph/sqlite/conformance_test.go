package sqlite

import (
	"path/filepath"
	"testing"

	"github.com/contractgraph/contractgraph/internal/graph"
	"github.com/contractgraph/contractgraph/internal/graph/graphtest"
)

func TestConformance(t *testing.T) {
	graphtest.Run(t, openConformance)
}

// TestConformanceTimelineScan runs the suite with every deadline search
// reading the timelines in order (timelineSource) rather than through the
// index of their first deadlines, which the small stores above use.
func TestConformanceTimelineScan(t *testing.T) {
	defer func(n int64) { minTimelineProbe = n }(minTimelineProbe)
	minTimelineProbe = 0
	graphtest.Run(t, openConformance)
}

func TestStatuteConformance(t *testing.T) {
	graphtest.RunStatutes(t, openConformance)
}

func TestSharedStatutes(t *testing.T) {
	graphtest.RunSharedStatutes(t, openConformance)
}

func TestPartyMergerConformance(t *testing.T) {
	graphtest.RunPartyMerger(t, openConformance)
}

func TestContractIDs(t *testing.T) {
	graphtest.RunContractIDs(t, openConformance)
}

func openConformance(t *testing.T) graph.Store {
	s, err := Open(filepath.Join(t.TempDir(), "graph.db"))
	if err != nil {
		t.Fatal(err)
	}
	return s
}
