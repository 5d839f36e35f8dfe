package main

import (
	"context"
	"testing"

	"github.com/contractgraph/contractgraph/internal/graph"
	"github.com/contractgraph/contractgraph/internal/graph/neo4j"
	"github.com/contractgraph/contractgraph/internal/graph/neo4j/neo4jtest"
)

// neo4jBackend runs the CLI with --store neo4j on the test server named by
// NEO4J_URI (and the other NEO4J_* variables, which the CLI reads as well),
// locked and emptied for the test; without NEO4J_URI the test skips.
var neo4jBackend = cliBackend{name: "neo4j", newStore: func(t *testing.T) ([]string, func() graph.Store) {
	cfg := neo4jtest.Config(t)
	neo4jtest.Open(t) // holds the database's test lock until t ends
	return []string{"--store", "neo4j"}, func() graph.Store {
		s, err := neo4j.Open(context.Background(), cfg)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
}}
