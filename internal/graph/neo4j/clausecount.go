package neo4j

import (
	"context"
	"fmt"

	"github.com/neo4j/neo4j-go-driver/v5/neo4j"

	"github.com/contractgraph/contractgraph/internal/contract"
	"github.com/contractgraph/contractgraph/internal/graph"
)

var _ graph.ClauseCounter = (*Store)(nil)

// CountClauses counts the clauses of kind in the contracts f matches; see
// graph.ClauseCounter.
func (s *Store) CountClauses(ctx context.Context, f graph.Filter, kind string) (int, error) {
	f, err := s.resolveFilter(ctx, f)
	if err != nil {
		return 0, fmt.Errorf("count clauses: %w", err)
	}
	p := params{}
	cf, err := compileFilter(p, f, summaryAsSource)
	if err != nil {
		return 0, fmt.Errorf("count clauses: %w", err)
	}
	cond := "cl.type = " + p.add(kind)
	if contract.IsClauseGroup(kind) {
		k := p.add(kind)
		cond = "(cl.type = " + k + " OR cl.group = " + k + ")"
	}
	st := statement{Cypher: cf.match() + " MATCH (c)-[:HAS_CLAUSE]->(cl:Clause) WHERE " + cond + " RETURN count(cl) AS n", Params: p}
	var n int
	err = s.tx(ctx, neo4j.AccessModeRead, func(tx neo4j.ManagedTransaction) error {
		recs, err := collect(ctx, tx, st)
		if err != nil {
			return err
		}
		n = int(getInt(recs[0].AsMap(), "n"))
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("count clauses: %w", err)
	}
	return n, nil
}
