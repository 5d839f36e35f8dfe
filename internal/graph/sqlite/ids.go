package sqlite

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/contractgraph/contractgraph/internal/graph"
)

var _ graph.ContractIDLister = (*Store)(nil)

// ContractIDs implements graph.ContractIDLister over the contracts' id
// index: ids compare byte for byte, and no UTF-8 byte is 0xFF, so
// [prefix, prefix+"\xff") holds exactly the ids that start with prefix.
func (s *Store) ContractIDs(ctx context.Context, prefix string, limit int) ([]string, error) {
	ids, err := queryIDs(ctx, s.rdb, `SELECT id FROM contracts WHERE id >= ? AND id < ? ORDER BY id LIMIT ?`,
		prefix, prefix+"\xff", graph.ContractIDLimit(limit))
	if err != nil {
		return nil, fmt.Errorf("list contract ids: %w", err)
	}
	return ids, nil
}

// queryIDs runs a query whose rows are one string each, such as ids, and
// returns them in order (an empty list, never nil, for none).
func queryIDs(ctx context.Context, q interface {
	QueryContext(context.Context, string, ...any) (*sql.Rows, error)
}, query string, args ...any) ([]string, error) {
	ids := []string{}
	err := eachRow(ctx, q, query, args, func(r *sql.Rows) error {
		var id string
		if err := r.Scan(&id); err != nil {
			return err
		}
		ids = append(ids, id)
		return nil
	})
	return ids, err
}
