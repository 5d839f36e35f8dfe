package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
)

// scanTx is readTx for a scan of whole tables (entity resolution's parties,
// family detection's contract heads): its connection reads through its
// bounded page cache instead of the memory map. Mapped pages a process
// touches count in its resident set, and the kernel maps the neighbours of
// each page it faults in, so a scan of tables whose pages are spread over
// the file (contracts lie between their clauses) made most of the file
// resident: resolve over a 100k store peaked at 420 MiB, ~250 MiB of it
// mapped store. Read with pread, the same pages stay in the OS page cache,
// shared and reclaimable, and the process holds only its page cache. The
// connection gets its map back before it returns to the pool.
func (s *Store) scanTx(ctx context.Context, fn func(tx *sql.Tx) error) (err error) {
	conn, err := s.rdb.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	var mmap int64
	if err := conn.QueryRowContext(ctx, "PRAGMA mmap_size").Scan(&mmap); err != nil {
		return fmt.Errorf("read mmap size: %w", err)
	}
	if _, err := conn.ExecContext(ctx, "PRAGMA mmap_size = 0"); err != nil {
		return fmt.Errorf("unmap for a scan: %w", err)
	}
	defer func() {
		// Restored also when ctx has ended: the connection goes back to the
		// pool either way.
		if _, rerr := conn.ExecContext(context.WithoutCancel(ctx), fmt.Sprintf("PRAGMA mmap_size = %d", mmap)); rerr != nil {
			err = errors.Join(err, fmt.Errorf("map again after a scan: %w", rerr))
		}
	}()
	tx, err := conn.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return err
	}
	defer tx.Rollback()
	return fn(tx)
}
