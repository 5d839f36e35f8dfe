// Package sqlite is the embedded graph.Store: the contract graph in one SQLite
// file (pure Go, modernc.org/sqlite), relational tables for the schema's
// nodes and relationships, and FTS5 indexes for BM25 text search.
//
// The database runs in WAL mode with one writer connection, through which
// every write is serialised, and a pool of read-only connections, so queries
// never wait for an import. The schema is created and upgraded by the
// numbered SQL files in migrations/, applied in order on Open and recorded in
// PRAGMA user_version. Optional capabilities added later (statutes,
// embeddings, entity resolution) bring their own higher-numbered files.
package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"path/filepath"
	"runtime"
	"sync"

	"github.com/contractgraph/contractgraph/internal/graph"
	_ "modernc.org/sqlite" // registers the "sqlite" database/sql driver
)

var _ graph.Store = (*Store)(nil)

// Store is the SQLite contract graph. It is safe for concurrent use.
type Store struct {
	path string
	// wdb has exactly one connection; wmu serialises the transactions on it so
	// that a batch import and a single put never interleave.
	wdb *sql.DB
	wmu sync.Mutex
	// rdb is the pool of read-only connections every query uses.
	rdb *sql.DB
	// baseQueries makes queries count from the base tables, never from the
	// maintained aggregates (migration 0105): tests compare both answers.
	baseQueries bool
	// rowTriggers makes every batch maintain the aggregates with their
	// triggers, row by row, never in bulk (bulk.go): tests compare both.
	rowTriggers bool
}

// Open opens (creating if needed) the store in the SQLite file at path and
// brings its schema up to date. It is OpenWith without options.
func Open(path string) (*Store, error) {
	return open(path, migrationFS, Options{})
}

// Options are the optional settings of OpenWith.
type Options struct {
	// Progress, when set, is told how far Open has got with upgrading a
	// store: the schema migrations it lacks (a few minutes at a million
	// contracts), and what it builds again: the passage index of a store
	// whose passages predate it (migration 0100) or were indexed by other
	// tokenizer rules (passageRules), which takes a minute at 100k
	// contracts, and the indexes an import killed midway left unbuilt
	// (StepIndexes). It is called when a step starts (Done 0), as it goes and
	// when it ends (Done == Total). Without it Open is silent.
	Progress func(Progress)
}

// Progress is how far a step of Open is.
type Progress struct {
	// Step is what Open is doing: StepMigrations or StepPassageIndex.
	Step string
	// Done of Total units (migrations, passages).
	Done, Total int64
}

// The steps of Open that Progress reports.
const (
	// StepMigrations applies the schema migrations a store lacks.
	StepMigrations = "applying schema migrations"
	// StepPassageIndex indexes every stored passage.
	StepPassageIndex = "indexing passages"
	// StepIndexes builds the indexes an import deferred and did not build
	// (it was killed first; see DeferIndexes), Done of Total indexes.
	StepIndexes = "building indexes"
)

// OpenWith is Open with options.
func OpenWith(path string, opts Options) (*Store, error) {
	return open(path, migrationFS, opts)
}

func open(path string, migrations fs.FS, opts Options) (*Store, error) {
	if path == "" {
		return nil, errors.New("open sqlite store: empty path")
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("open sqlite store: %w", err)
	}
	wdb, err := sql.Open("sqlite", dsn(abs, false, 0))
	if err != nil {
		return nil, fmt.Errorf("open sqlite store %s: %w", path, err)
	}
	wdb.SetMaxOpenConns(1)
	wdb.SetMaxIdleConns(1)
	wdb.SetConnMaxIdleTime(0)
	wdb.SetConnMaxLifetime(0)
	if err := wdb.Ping(); err != nil {
		wdb.Close()
		return nil, fmt.Errorf("open sqlite store %s: %w", path, err)
	}
	var before int
	if err := wdb.QueryRow("PRAGMA user_version").Scan(&before); err != nil {
		wdb.Close()
		return nil, fmt.Errorf("open sqlite store %s: read schema version: %w", path, err)
	}
	progress := opts.Progress
	if progress == nil {
		progress = func(Progress) {}
	}
	if err := migrate(wdb, migrations, progress); err != nil {
		wdb.Close()
		return nil, fmt.Errorf("open sqlite store %s: %w", path, err)
	}
	var after int
	if err := wdb.QueryRow("PRAGMA user_version").Scan(&after); err != nil {
		wdb.Close()
		return nil, fmt.Errorf("open sqlite store %s: read schema version: %w", path, err)
	}
	if before > 0 && before < unverifiedVersion && after >= unverifiedVersion {
		if err := backfillUnverified(wdb); err != nil {
			wdb.Close()
			return nil, fmt.Errorf("open sqlite store %s: %w", path, err)
		}
	}
	// An import killed before it built the indexes it deferred.
	if err := buildDeferredIndexes(context.Background(), wdb, progress); err != nil {
		wdb.Close()
		return nil, fmt.Errorf("open sqlite store %s: build deferred indexes: %w", path, err)
	}
	if err := buildPassageIndex(wdb, progress); err != nil {
		wdb.Close()
		return nil, fmt.Errorf("open sqlite store %s: %w", path, err)
	}
	size, err := storeBytes(wdb)
	if err != nil {
		wdb.Close()
		return nil, fmt.Errorf("open sqlite store %s: %w", path, err)
	}
	rdb, err := sql.Open("sqlite", dsn(abs, true, readerMmap(size)))
	if err != nil {
		wdb.Close()
		return nil, fmt.Errorf("open sqlite store %s: %w", path, err)
	}
	readers := max(4, runtime.GOMAXPROCS(0)*2)
	rdb.SetMaxOpenConns(readers)
	rdb.SetMaxIdleConns(readers)
	if err := rdb.Ping(); err != nil {
		wdb.Close()
		rdb.Close()
		return nil, fmt.Errorf("open sqlite store %s: %w", path, err)
	}
	return &Store{path: path, wdb: wdb, rdb: rdb}, nil
}

// The readers' memory for database pages. Each reader connection has its
// own page cache on the heap, so sizing that cache for the store would
// multiply it by the pool (max(4, 2·GOMAXPROCS) readers, each with its own
// copy of the hot indexes). Instead every reader memory-maps the store: mapped pages live
// once in the OS page cache, shared by all connections (and processes), are
// clean and reclaimable under memory pressure, and are read without a copy
// into SQLite's cache. The per-reader heap cache keeps today's 32 MiB for
// what the map does not cover (WAL frames, the file past the mapped length).
const (
	readerCacheKiB = 32 << 10 // per reader connection, on the heap
	// maxReaderMmap bounds the address space and the resident file pages a
	// store larger than it can cost. There is no floor: a new store (an
	// import into a new file) maps next to nothing, because mapped pages the
	// import's own reads touch count in its RSS (a 64 MiB floor cost a 20k
	// import 15 MiB of peak RSS).
	maxReaderMmap = 1 << 30
)

// storeBytes is the size of the main database file as SQLite sees it.
func storeBytes(db *sql.DB) (int64, error) {
	var pages, pageSize int64
	if err := db.QueryRow("PRAGMA page_count").Scan(&pages); err != nil {
		return 0, fmt.Errorf("read page count: %w", err)
	}
	if err := db.QueryRow("PRAGMA page_size").Scan(&pageSize); err != nil {
		return 0, fmt.Errorf("read page size: %w", err)
	}
	return pages * pageSize, nil
}

// readerMmap is the mmap_size for readers of a store of size bytes at Open:
// the whole file plus a quarter for growth, at most maxReaderMmap. Pages
// past the mapped length are read into the heap cache as before. A caveat
// SQLite documents: an I/O error on a mapped page is a signal, not an error
// code, so a failing disk crashes the process instead of failing a query.
func readerMmap(size int64) int64 {
	return min(size+size/4, maxReaderMmap)
}

// dsn builds the connection URI for the file at abs. Both kinds of
// connection wait for locks instead of failing, enforce foreign keys and keep
// temporary b-trees in memory; readers are additionally query-only and map
// mmap bytes of the file. The writer maps nothing: an import's RSS stays its
// bounded heap cache rather than growing with every page it touches.
func dsn(abs string, readOnly bool, mmap int64) string {
	q := url.Values{}
	q.Add("_busy_timeout", "10000")
	q.Add("_foreign_keys", "1")
	q.Add("_pragma", "temp_store(memory)")
	if readOnly {
		q.Add("_pragma", fmt.Sprintf("cache_size(-%d)", readerCacheKiB))
		q.Add("_pragma", fmt.Sprintf("mmap_size(%d)", mmap))
		q.Add("_query_only", "1")
	} else {
		// The writer's inserts land all over the indexes: give it more cache
		// (128 MiB, one connection).
		q.Add("_pragma", "cache_size(-131072)")
		// Checkpoint (and fsync) every 256 MiB of WAL rather than every 4 MiB:
		// a bulk import commits a few MiB per batch, and each checkpoint
		// rewrites the index pages every batch touches. journal_size_limit
		// truncates the WAL back to 64 MiB afterwards.
		q.Add("_pragma", "wal_autocheckpoint(65536)")
		q.Add("_pragma", "journal_size_limit(67108864)")
		q.Add("_journal_mode", "WAL")
		q.Add("_synchronous", "NORMAL")
		q.Add("_txlock", "immediate")
	}
	u := url.URL{Scheme: "file", Path: filepath.ToSlash(abs), RawQuery: q.Encode()}
	return u.String()
}

// Close releases both connection pools. It is safe to call more than once.
func (s *Store) Close() error {
	return errors.Join(s.rdb.Close(), s.wdb.Close())
}

// ReleaseMemory returns the writer connection's page cache to the
// operating system (PRAGMA shrink_memory). A bulk write fills that cache
// (128 MiB of pages, which cost about twice that in memory, since each
// page is allocated on its own with its header); what an import does next
// (entity resolution, family detection) mostly reads through the readers
// and would otherwise carry the full cache into its own peak. The cache
// fills again as the writer needs it.
func (s *Store) ReleaseMemory(ctx context.Context) error {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	if _, err := s.wdb.ExecContext(ctx, `PRAGMA shrink_memory`); err != nil {
		return fmt.Errorf("release sqlite memory: %w", err)
	}
	return nil
}

// withWriteTx runs fn in a transaction on the writer connection, committing
// when fn returns nil and rolling back otherwise. Writes are serialised.
func (s *Store) withWriteTx(ctx context.Context, fn func(tx *sql.Tx) error) error {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	tx, err := s.wdb.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("begin: %w", err)
	}
	if err := fn(tx); err != nil {
		return errors.Join(err, ignoreDone(tx.Rollback()))
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("commit: %w", err)
	}
	return nil
}

func ignoreDone(err error) error {
	if errors.Is(err, sql.ErrTxDone) {
		return nil
	}
	return err
}
