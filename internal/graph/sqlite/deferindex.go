package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
)

// A bulk import into an empty store need not keep every index up to date
// row by row: inserting each row into eleven b-trees in random key order is
// most of what grows the cost of a contract as the store grows, and an index
// built once from the finished table is written in key order. DeferIndexes
// drops the deferrable indexes of an empty store and records their
// definitions in deferred_indexes, in one transaction; BuildIndexes creates
// them again from those very statements and deletes the records, in one
// transaction. A store with records is correct without the indexes, only
// slower: no statement names them (INDEXED BY), and the write path, the
// triggers and every query plan stand without them (TestConformanceDeferred
// runs the conformance suite on such a store). Open builds the indexes of
// any records it finds, so an import that was killed before it built them
// leaves a store that the next Open repairs.

// deferrableIndexes are the indexes a bulk import may defer: the secondary
// indexes of contracts, roles, clauses and timelines that only queries read.
// The indexes that statements or triggers name (INDEXED BY: the roles' party
// and country indexes, contracts_amount, the orderings' indexes of
// examplesByScan) and the unique ones the write path looks rows up by stay.
var deferrableIndexes = []string{
	"contracts_type",
	"contracts_type_effective",
	"contracts_governing_law",
	"contract_parties_location",
	"clauses_type",
	"contract_timelines_kind",
	"contract_timelines_first",
}

// DeferIndexes drops the deferrable indexes when the store holds no
// contract, recording them to be built by BuildIndexes, and reports whether
// it did. A store with contracts, or whose indexes are already deferred,
// is left as it is (false).
func (s *Store) DeferIndexes(ctx context.Context) (bool, error) {
	deferred := false
	err := s.withWriteTx(ctx, func(tx *sql.Tx) error {
		var contracts, pending int64
		if err := tx.QueryRowContext(ctx, `SELECT (SELECT count(*) FROM (SELECT 1 FROM contracts LIMIT 1)),
			(SELECT count(*) FROM deferred_indexes)`).Scan(&contracts, &pending); err != nil {
			return err
		}
		if contracts > 0 || pending > 0 {
			return nil
		}
		for _, name := range deferrableIndexes {
			var q string
			err := tx.QueryRowContext(ctx, `SELECT sql FROM sqlite_master WHERE type = 'index' AND name = ?`, name).Scan(&q)
			if errors.Is(err, sql.ErrNoRows) {
				continue // an index a later migration dropped
			}
			if err != nil {
				return fmt.Errorf("read index %s: %w", name, err)
			}
			if _, err := tx.ExecContext(ctx, `INSERT INTO deferred_indexes(name, sql) VALUES (?, ?)`, name, q); err != nil {
				return fmt.Errorf("record index %s: %w", name, err)
			}
			if _, err := tx.ExecContext(ctx, `DROP INDEX "`+name+`"`); err != nil {
				return fmt.Errorf("drop index %s: %w", name, err)
			}
			deferred = true
		}
		return nil
	})
	if err != nil {
		return false, fmt.Errorf("defer indexes: %w", err)
	}
	return deferred, nil
}

// BuildIndexes builds every index DeferIndexes (of this or another process)
// recorded, in one transaction, telling progress (when not nil) of Done of
// Total indexes (StepIndexes) before each and at the end. It does nothing
// when none is recorded.
func (s *Store) BuildIndexes(ctx context.Context, progress func(Progress)) error {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	if err := buildDeferredIndexes(ctx, s.wdb, progress); err != nil {
		return fmt.Errorf("build indexes: %w", err)
	}
	return nil
}

// buildCacheKiB is the writer's page cache while it builds indexes; it also
// bounds each in-memory run of CREATE INDEX's sort.
const buildCacheKiB = 16 << 10

// buildDeferredIndexes is BuildIndexes on the writer connection db. The
// sorts of CREATE INDEX spill to temporary files rather than to memory
// (temp_store), in runs of at most the page cache's size, which is
// buildCacheKiB meanwhile, so that building the indexes of a million
// contracts costs little memory (the writer's own 128 MiB cache would let
// each run take as much, and the import's peak held it through entity
// resolution: 1.2 GiB at a million contracts, against 530 MiB with the
// indexes maintained).
func buildDeferredIndexes(ctx context.Context, db *sql.DB, progress func(Progress)) error {
	if progress == nil {
		progress = func(Progress) {}
	}
	var pending int64
	if err := db.QueryRowContext(ctx, `SELECT count(*) FROM deferred_indexes`).Scan(&pending); err != nil {
		return err
	}
	if pending == 0 {
		return nil
	}
	conn, err := db.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	var cacheSize int64
	if err := conn.QueryRowContext(ctx, `PRAGMA cache_size`).Scan(&cacheSize); err != nil {
		return err
	}
	if _, err := conn.ExecContext(ctx, fmt.Sprintf(`PRAGMA temp_store = FILE; PRAGMA cache_size = -%d`, buildCacheKiB)); err != nil {
		return err
	}
	defer conn.ExecContext(context.WithoutCancel(ctx), fmt.Sprintf(`PRAGMA temp_store = MEMORY; PRAGMA cache_size = %d; PRAGMA shrink_memory`, cacheSize))
	tx, err := conn.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	type index struct{ name, sql string }
	var idx []index
	rows, err := tx.QueryContext(ctx, `SELECT name, sql FROM deferred_indexes ORDER BY name`)
	if err != nil {
		return err
	}
	for rows.Next() {
		var i index
		if err := rows.Scan(&i.name, &i.sql); err != nil {
			rows.Close()
			return err
		}
		idx = append(idx, i)
	}
	if err := errors.Join(rows.Err(), rows.Close()); err != nil {
		return err
	}
	if len(idx) == 0 {
		return nil // another connection built them meanwhile
	}
	total := int64(len(idx))
	for k, i := range idx {
		progress(Progress{Step: StepIndexes, Done: int64(k), Total: total})
		if !strings.HasPrefix(strings.ToUpper(i.sql), "CREATE INDEX ") {
			return fmt.Errorf("deferred index %s: not an index definition: %.60q", i.name, i.sql)
		}
		if _, err := tx.ExecContext(ctx, i.sql); err != nil {
			return fmt.Errorf("index %s: %w", i.name, err)
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM deferred_indexes WHERE name = ?`, i.name); err != nil {
			return fmt.Errorf("index %s: %w", i.name, err)
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("commit: %w", err)
	}
	progress(Progress{Step: StepIndexes, Done: total, Total: total})
	return nil
}
