package neo4j_test

import (
	"testing"

	"github.com/contractgraph/contractgraph/internal/graph"
	"github.com/contractgraph/contractgraph/internal/graph/graphtest"
	"github.com/contractgraph/contractgraph/internal/graph/neo4j/neo4jtest"
)

func TestConformance(t *testing.T) {
	graphtest.Run(t, func(t *testing.T) graph.Store { return neo4jtest.Open(t) })
}

func TestStatuteConformance(t *testing.T) {
	graphtest.RunStatutes(t, func(t *testing.T) graph.Store { return neo4jtest.Open(t) })
}

func TestSharedStatutes(t *testing.T) {
	graphtest.RunSharedStatutes(t, func(t *testing.T) graph.Store { return neo4jtest.Open(t) })
}

func TestPartyMergerConformance(t *testing.T) {
	graphtest.RunPartyMerger(t, func(t *testing.T) graph.Store { return neo4jtest.Open(t) })
}

func TestContractIDs(t *testing.T) {
	graphtest.RunContractIDs(t, func(t *testing.T) graph.Store { return neo4jtest.Open(t) })
}
