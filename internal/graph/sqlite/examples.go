package sqlite

import (
	"context"
	"database/sql"
	"strings"

	"github.com/contractgraph/contractgraph/internal/graph"
)

// orderIndexes are the indexes whose order is an ordering's (orderColumns
// filled by factsSQL), by ordering and IncludeUnverified.
var orderIndexes = map[bool]map[string]string{
	false: {graph.OrderEffectiveDate: "contracts_effective_fact", graph.OrderDurationDays: "contracts_duration_fact"},
	true:  {graph.OrderEffectiveDate: "contracts_effective"},
}

// maxScanExamples bounds how many index entries examplesByScan reads.
const maxScanExamples = 5000

// examplesByScan finds the pks of the examples of a search (skip then n,
// ordered by col, then c.id) by reading the first entries of the index in
// col's order and testing each against w, when the count of matching
// contracts says that a few entries hold enough of them. SQLite, not
// knowing how many contracts match a filter such as a party country,
// otherwise sorts every matching contract. ok is false when it did not
// answer: no such index, too few matches, or not enough of them among the
// entries read; the caller then runs the sorting query.
//
// It is exact: the entries read are the first ones in col's order, so
// every contract whose col comes strictly before the last one read's (b)
// is among them, and when at least skip+n of those match, they are the
// first skip+n of the answer, in the same order.
func examplesByScan(ctx context.Context, tx *sql.Tx, q graph.ContractQuery, orderBy, col string, desc bool, w *where, count, n int) (pks []int64, ok bool, err error) {
	index, has := orderIndexes[q.IncludeUnverified][orderBy]
	if !has || len(w.conds) == 0 || count == 0 {
		return nil, false, nil
	}
	var last int64
	if err := tx.QueryRowContext(ctx, `SELECT coalesce(max(pk), 0) FROM contracts`).Scan(&last); err != nil {
		return nil, false, err
	}
	// Matches spread evenly over the order would need this many entries
	// for skip+n of them; read four times that.
	budget := 4*int64(q.Offset+n)*last/int64(count) + 64
	if budget > maxScanExamples {
		return nil, false, nil
	}
	dir, edge, before := "DESC", "min", ">"
	nonNull := ""
	if !desc {
		// Ascending, missing values come last: the index has them first.
		dir, edge, before = "ASC", "max", "<"
		nonNull = " WHERE " + col + " IS NOT NULL"
	}
	// The few rows read are tested one at a time.
	cond := " AND " + strings.Join(w.rowConds(), " AND ")
	query := `WITH scan AS (SELECT c.pk AS pk, ` + col + ` AS e FROM contracts c INDEXED BY ` + index + nonNull + ` ORDER BY ` + col + ` ` + dir + ` LIMIT ?)
		SELECT c.pk FROM scan JOIN contracts c ON c.pk = scan.pk
		WHERE scan.e ` + before + ` (SELECT ` + edge + `(e) FROM scan)` + cond + `
		ORDER BY scan.e ` + dir + `, c.id ASC LIMIT ? OFFSET ?`
	args := append(append([]any{budget}, w.args...), n, q.Offset)
	err = eachRow(ctx, tx, query, args, func(r *sql.Rows) error {
		var pk int64
		if err := r.Scan(&pk); err != nil {
			return err
		}
		pks = append(pks, pk)
		return nil
	})
	if err != nil {
		return nil, false, err
	}
	if len(pks) < n {
		return nil, false, nil
	}
	return pks, true, nil
}
