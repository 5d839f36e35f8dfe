package neo4j

import (
	"context"
	"fmt"

	"github.com/neo4j/neo4j-go-driver/v5/neo4j"

	"github.com/contractgraph/contractgraph/internal/graph"
)

var _ graph.ContractDeleter = (*Store)(nil)

// DeleteContracts removes contracts with their clauses, chunks and roles,
// and the parties and locations left unused, in one write transaction; see
// graph.ContractDeleter.
func (s *Store) DeleteContracts(ctx context.Context, ids []string) ([]string, error) {
	if len(ids) == 0 {
		return []string{}, nil
	}
	var deleted []string
	err := s.tx(ctx, neo4j.AccessModeWrite, func(tx neo4j.ManagedTransaction) error {
		deleted = []string{}
		params := make([]any, len(ids))
		for i, id := range ids {
			params[i] = id
		}
		recs, err := collect(ctx, tx, statement{Cypher: lookupHashesCypher, Params: map[string]any{"ids": params}})
		if err != nil {
			return fmt.Errorf("look up contracts: %w", err)
		}
		stored := map[string]bool{}
		for _, r := range recs {
			stored[getString(r.AsMap(), "id")] = true
		}
		var remove []any
		for _, id := range ids {
			if stored[id] {
				deleted = append(deleted, id)
				remove = append(remove, id)
				delete(stored, id) // a repeated id is deleted once
			}
		}
		if len(remove) == 0 {
			return nil
		}
		// The aggregates lose what the contracts counted, and parties may
		// go with them (aggregates.go).
		err = bracket(ctx, tx, remove, func() error {
			recs, err := collect(ctx, tx, statement{Cypher: deleteContractsCypher, Params: map[string]any{"ids": remove}})
			if err != nil {
				return fmt.Errorf("delete contracts: %w", err)
			}
			var parties, locations []any
			for _, r := range recs {
				m := r.AsMap()
				parties = append(parties, asSlice(m["pids"])...)
				locations = append(locations, asSlice(m["lids"])...)
			}
			return dropOrphans(ctx, tx, parties, locations)
		})
		if err != nil {
			return err
		}
		return bumpNames(ctx, tx)
	})
	if err != nil {
		return nil, fmt.Errorf("delete contracts: %w", err)
	}
	return deleted, nil
}

// dropOrphans removes what deleted contracts left unsupported: party
// locations no remaining role names, parties without contracts and
// locations nothing points at; and recounts the remaining parties'
// contracts.
func dropOrphans(ctx context.Context, tx neo4j.ManagedTransaction, parties, locations []any) error {
	for _, st := range []struct {
		what, cypher string
		list         []any
	}{
		{"stale party locations", staleLocationsCypher, parties},
		{"unused parties", orphanPartiesCypher, parties},
		{"unused locations", orphanLocationsCypher, locations},
		{"party contract counts", oldPartyCountsCypher, parties},
	} {
		if len(st.list) == 0 {
			continue
		}
		res, err := tx.Run(ctx, st.cypher, map[string]any{"ids": st.list})
		if err == nil {
			_, err = res.Consume(ctx)
		}
		if err != nil {
			return fmt.Errorf("%s: %w", st.what, err)
		}
	}
	return nil
}
