package sqlite

import (
	"context"
	"database/sql"
	"testing"
)

// TestScanTxUnmaps checks that a scan reads without the memory map and
// that its connection has the map back when it returns to the pool.
func TestScanTxUnmaps(t *testing.T) {
	s := openTemp(t)
	ctx := context.Background()
	s.rdb.SetMaxOpenConns(1) // the scan's connection is the one read after
	mmap := func(q interface {
		QueryRowContext(context.Context, string, ...any) *sql.Row
	}) int64 {
		t.Helper()
		var n int64
		if err := q.QueryRowContext(ctx, "PRAGMA mmap_size").Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	before := mmap(s.rdb)
	if before <= 0 {
		t.Fatalf("readers map %d bytes; the test needs a mapped store", before)
	}
	err := s.scanTx(ctx, func(tx *sql.Tx) error {
		if n := mmap(tx); n != 0 {
			t.Errorf("inside the scan the connection maps %d bytes, want 0", n)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if after := mmap(s.rdb); after != before {
		t.Errorf("after the scan the connection maps %d bytes, want %d again", after, before)
	}
}
