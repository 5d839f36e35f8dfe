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
