package neo4j

import (
	"context"
	"fmt"

	"github.com/neo4j/neo4j-go-driver/v5/neo4j"

	"github.com/contractgraph/contractgraph/internal/graph"
)

var _ graph.ContractIDLister = (*Store)(nil)

// compileContractIDs lists contract ids by prefix through the Contract.id
// uniqueness constraint's index.
func compileContractIDs(prefix string, limit int) statement {
	return statement{
		Cypher: "MATCH (c:Contract) WHERE c.id STARTS WITH $prefix RETURN c.id AS id ORDER BY id LIMIT $limit",
		Params: map[string]any{"prefix": prefix, "limit": graph.ContractIDLimit(limit)},
	}
}

// ContractIDs implements graph.ContractIDLister.
func (s *Store) ContractIDs(ctx context.Context, prefix string, limit int) ([]string, error) {
	recs, err := s.run(ctx, neo4j.AccessModeRead, compileContractIDs(prefix, limit))
	if err != nil {
		return nil, fmt.Errorf("list contract ids: %w", err)
	}
	ids := make([]string, 0, len(recs))
	for _, r := range recs {
		ids = append(ids, getString(r.AsMap(), "id"))
	}
	return ids, nil
}
