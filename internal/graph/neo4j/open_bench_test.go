package neo4j_test

import (
	"context"
	"testing"

	"github.com/contractgraph/contractgraph/internal/graph/neo4j"
	"github.com/contractgraph/contractgraph/internal/graph/neo4j/neo4jtest"
)

// BenchmarkOpen measures Open and Close of a store on a database that is
// already set up, what every `contractgraph --store neo4j` process pays
// before its first query:
//
//	go test ./internal/graph/neo4j -run '^$' -bench '^BenchmarkOpen$' -benchtime 10x
func BenchmarkOpen(b *testing.B) {
	ctx := context.Background()
	cfg := neo4jtest.Config(b)
	neo4jtest.Open(b) // locks and empties the database, and sets it up
	b.ResetTimer()
	for b.Loop() {
		s, err := neo4j.Open(ctx, cfg)
		if err != nil {
			b.Fatal(err)
		}
		s.Close()
	}
}
