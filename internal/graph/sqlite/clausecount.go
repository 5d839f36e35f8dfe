package sqlite

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/contractgraph/contractgraph/internal/contract"
	"github.com/contractgraph/contractgraph/internal/graph"
)

var _ graph.ClauseCounter = (*Store)(nil)

// CountClauses counts the clauses of kind in the contracts f matches; see
// graph.ClauseCounter. A type's clauses are read through the index of the
// clauses by type.
func (s *Store) CountClauses(ctx context.Context, f graph.Filter, kind string) (int, error) {
	w, err := compileFilter(ctx, s.rdb, f)
	if err != nil {
		return 0, fmt.Errorf("count clauses: %w", err)
	}
	if contract.IsClauseGroup(kind) {
		w.add("(cl.type = ? OR cl.grp = ?)", kind, kind)
	} else {
		w.add("cl.type = ?", kind)
	}
	var n int
	err = s.readTx(ctx, func(tx *sql.Tx) error {
		return tx.QueryRowContext(ctx, `SELECT count(*) FROM clauses cl JOIN contracts c ON c.pk = cl.contract_pk`+w.sql(), w.args...).Scan(&n)
	})
	if err != nil {
		return 0, fmt.Errorf("count clauses: %w", err)
	}
	return n, nil
}
