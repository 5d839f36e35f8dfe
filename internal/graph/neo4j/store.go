// Package neo4j is the scale-out graph.Store: the contract graph in a Neo4j
// server, cluster or Aura database, through the official Go driver.
//
// The graph is design.md's schema: (Party)-[:PARTY_TO {role}]->(Contract),
// (Party)-[:HAS_LOCATION]->(Location), (Contract)-[:HAS_GOVERNING_LAW]->(Location),
// (Contract)-[:HAS_CLAUSE]->(Clause) and (Contract)-[:HAS_CHUNK]->(Chunk). A
// few extra properties make it answer exactly like the embedded store:
// PARTY_TO also carries the party's name as written in the contract, its
// position (ord), its location id and country; Party carries match_keys,
// the containment keys of its name and aliases; Contract carries the full
// text, the evidence (as JSON), party_count and a content_hash that makes an
// identical re-import a no-op.
//
// Every query is compiled from the typed graph queries into Cypher whose
// values are parameters and whose labels, relationship types and property
// names come only from constants in this package (see cypher.go).
package neo4j

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/neo4j/neo4j-go-driver/v5/neo4j"

	"github.com/contractgraph/contractgraph/internal/graph"
)

var _ graph.Store = (*Store)(nil)

// Config says how to reach the database; the fields mirror the standard
// NEO4J_URI, NEO4J_USERNAME, NEO4J_PASSWORD and NEO4J_DATABASE variables,
// which cmd reads.
type Config struct {
	URI      string // e.g. neo4j://host:7687, bolt://127.0.0.1:7687, neo4j+s://x.databases.neo4j.io
	Username string
	Password string
	Database string // "" = the server's default database
	// ReadOnlyUsername and ReadOnlyPassword name a user with read-only
	// privileges (scripts/neo4j-readonly-user.cypher). When set, the
	// statements a model wrote (Explain and RunRead, for text2cypher) run
	// as this user over a connection of their own; all else runs as Username.
	ReadOnlyUsername string
	ReadOnlyPassword string
	// QueryTimeout bounds every transaction the store runs; 0 means 2 minutes.
	QueryTimeout time.Duration
	// Logger receives setup and retry diagnostics; nil discards them.
	Logger *slog.Logger
}

// Store is the Neo4j contract graph. It is safe for concurrent use.
type Store struct {
	driver  neo4j.DriverWithContext
	reader  neo4j.DriverWithContext // runs model-written statements; driver unless a read-only user is configured
	db      string
	timeout time.Duration
	log     *slog.Logger

	// chunkVectors and statuteVectors are the vector indexes of chunk and
	// of statute embeddings.
	chunkVectors, statuteVectors *vectorIndex

	// schemaRuns counts the schema statements Open ran, for tests.
	schemaRuns atomic.Int64
}

// vectorIndex is one vector index, which the store creates the first time
// vectors are stored, with their dimension.
type vectorIndex struct {
	create func(dims int) statement // creates it
	await  string                   // waits until it is online
	lookup string                   // returns its dimension as dims, if it exists

	mu   sync.Mutex
	dims int // 0 = not created yet
}

// has reports whether the index exists for dims-dimensional vectors.
func (ix *vectorIndex) has(dims int) bool {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	return ix.dims == dims
}

// Open connects to the database, checks that it answers and creates, if
// missing, the constraints and indexes the store relies on — once per
// database and schema version, which a marker node records (see setup).
func Open(ctx context.Context, cfg Config) (*Store, error) {
	if cfg.URI == "" {
		return nil, errors.New("open neo4j store: empty URI (set NEO4J_URI)")
	}
	driver, err := neo4j.NewDriverWithContext(cfg.URI, neo4j.BasicAuth(cfg.Username, cfg.Password, ""))
	if err != nil {
		return nil, fmt.Errorf("open neo4j store %s: %w", cfg.URI, err)
	}
	s := &Store{driver: driver, reader: driver, db: cfg.Database, timeout: cfg.QueryTimeout, log: cfg.Logger,
		chunkVectors:   &vectorIndex{create: vectorIndexStatement, await: awaitVectorIndexCypher, lookup: vectorIndexCypher},
		statuteVectors: &vectorIndex{create: statuteVectorIndexStatement, await: awaitStatuteVectorIndexCypher, lookup: statuteVectorIndexCypher}}
	if s.timeout <= 0 {
		s.timeout = 2 * time.Minute
	}
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	if err := driver.VerifyConnectivity(ctx); err != nil {
		driver.Close(context.WithoutCancel(ctx))
		return nil, fmt.Errorf("open neo4j store %s: %w", cfg.URI, err)
	}
	if err := s.setup(ctx); err != nil {
		driver.Close(context.WithoutCancel(ctx))
		return nil, fmt.Errorf("open neo4j store %s: %w", cfg.URI, err)
	}
	if cfg.ReadOnlyUsername != "" {
		reader, err := neo4j.NewDriverWithContext(cfg.URI, neo4j.BasicAuth(cfg.ReadOnlyUsername, cfg.ReadOnlyPassword, ""))
		if err == nil {
			if err = reader.VerifyConnectivity(ctx); err != nil {
				reader.Close(context.WithoutCancel(ctx))
			}
		}
		if err != nil {
			driver.Close(context.WithoutCancel(ctx))
			return nil, fmt.Errorf("open neo4j store %s: read-only user %s: %w", cfg.URI, cfg.ReadOnlyUsername, err)
		}
		s.reader = reader
	}
	return s, nil
}

// Close releases the drivers' connections.
func (s *Store) Close() error {
	err := s.driver.Close(context.Background())
	if s.reader != s.driver {
		err = errors.Join(err, s.reader.Close(context.Background()))
	}
	return err
}

// schemaVersion names the statement list of schemaStatements and the
// maintained aggregates' contribution statement: a hash of their text, so
// that changing any statement changes it and no version number can be
// forgotten.
var schemaVersion = sync.OnceValue(func() string {
	h := sha256.New()
	for _, st := range schemaStatements() {
		h.Write([]byte(st.Cypher))
		h.Write([]byte{0})
	}
	// A new maintained aggregate reads what its contribution statement
	// reads: the set-up recounts them (backfillAggregates) when it changes.
	h.Write([]byte(contributionCypher))
	// So does a new layout of the count node's lists, which readers of
	// the old one would not find.
	h.Write([]byte(writeCountsCypher))
	// So does a new kind of count key from what it reads.
	for _, k := range countKeyPrefixes {
		h.Write([]byte(k))
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil)[:8])
})

// setup creates the schema's constraints and indexes, once per database:
// the marker (schemaMarkerLabel) records the schema versions set up, and
// when it has this binary's version one cheap read replaces the ~25
// schema statements. Otherwise the statements run (they are idempotent, so
// two processes may run them at once), setup waits until the indexes are
// online, so that the first query already uses them, and only then adds
// the version to the marker: a set-up interrupted before that is redone.
//
// The marker keeps the versions of every binary that set the database up,
// so a database a newer binary set up is neither an error nor downgraded:
// this binary's statements only create what is missing, and the newer
// binary still finds its own version. A version that drops or redefines an
// index must therefore drop the other versions' marker indexes, and
// whatever drops the indexes must drop the marker's with them.
func (s *Store) setup(ctx context.Context) error {
	version := schemaVersion()
	recs, err := s.run(ctx, neo4j.AccessModeRead, statement{Cypher: schemaMarkerCypher,
		Params: map[string]any{"name": schemaMarkerPrefix + version}})
	if err != nil {
		return fmt.Errorf("read the schema marker: %w", err)
	}
	if len(recs) != 1 {
		return fmt.Errorf("read the schema marker: %d rows, want 1", len(recs))
	}
	if getInt(recs[0].AsMap(), "n") == 0 {
		if err := s.setupSchema(ctx, version); err != nil {
			return err
		}
	}
	for _, ix := range []*vectorIndex{s.chunkVectors, s.statuteVectors} {
		dims, err := s.existingVectorDims(ctx, ix)
		if err != nil {
			return err
		}
		ix.mu.Lock()
		ix.dims = dims
		ix.mu.Unlock()
	}
	return s.backfillUnverified(ctx)
}

// setupSchema runs the schema statements, waits for the indexes and then
// marks version as set up.
func (s *Store) setupSchema(ctx context.Context, version string) error {
	start := time.Now()
	stmts := schemaStatements()
	for _, st := range stmts {
		s.schemaRuns.Add(1)
		if err := s.schemaWrite(ctx, st); err != nil {
			return err
		}
	}
	if _, err := s.run(ctx, neo4j.AccessModeRead, statement{Cypher: awaitIndexesCypher}); err != nil {
		return fmt.Errorf("await indexes: %w", err)
	}
	if err := s.backfillMatchText(ctx); err != nil {
		return err
	}
	// A new version may count what an older one did not: recount once.
	if err := s.backfillAggregates(ctx); err != nil {
		return err
	}
	for _, st := range []statement{{Cypher: dropMarkerNodeCypher}, {Cypher: dropMarkerConstraintCypher}} {
		if _, err := s.run(ctx, neo4j.AccessModeWrite, st); err != nil {
			return fmt.Errorf("remove the old schema marker: %w", err)
		}
	}
	if err := s.schemaWrite(ctx, markSchemaStatement(version)); err != nil {
		return fmt.Errorf("write the schema marker: %w", err)
	}
	s.log.Info("neo4j schema set up", "version", version, "statements", len(stmts), "took", time.Since(start))
	return nil
}

// backfillMatchText gives the parties of a database set up by an older
// schema version their match_text, which the party name filters read.
func (s *Store) backfillMatchText(ctx context.Context) error {
	for {
		recs, err := s.run(ctx, neo4j.AccessModeWrite, statement{Cypher: matchTextBackfillCypher,
			Params: map[string]any{"limit": int64(matchTextBatch)}})
		if err != nil {
			return fmt.Errorf("backfill party match_text: %w", err)
		}
		if len(recs) != 1 || getInt(recs[0].AsMap(), "n") < matchTextBatch {
			return nil
		}
	}
}

// schemaWrite runs one schema statement. Another process creating the same
// index at the same moment is not an error.
func (s *Store) schemaWrite(ctx context.Context, st statement) error {
	_, err := s.run(ctx, neo4j.AccessModeWrite, st)
	var ne *neo4j.Neo4jError
	if errors.As(err, &ne) && strings.Contains(ne.Code, "AlreadyExists") {
		return nil
	}
	if err != nil {
		return fmt.Errorf("schema %q: %w", firstLine(st.Cypher), err)
	}
	return nil
}

func (s *Store) existingVectorDims(ctx context.Context, ix *vectorIndex) (int, error) {
	recs, err := s.run(ctx, neo4j.AccessModeRead, statement{Cypher: ix.lookup})
	if err != nil {
		return 0, fmt.Errorf("list vector indexes: %w", err)
	}
	for _, r := range recs {
		if d, ok := r.AsMap()["dims"].(int64); ok {
			return int(d), nil
		}
	}
	return 0, nil
}

// ensureVectorIndex creates the chunk vector index for dims-dimensional
// embeddings the first time embeddings are stored.
func (s *Store) ensureVectorIndex(ctx context.Context, dims int) error {
	return s.createVectorIndex(ctx, s.chunkVectors, dims)
}

// createVectorIndex creates ix for dims-dimensional vectors unless it exists.
func (s *Store) createVectorIndex(ctx context.Context, ix *vectorIndex, dims int) error {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	if ix.dims != 0 {
		return nil
	}
	if err := s.schemaWrite(ctx, ix.create(dims)); err != nil {
		return err
	}
	// The index is created after the batch that first stored vectors, so
	// Neo4j fills it with those nodes in the background; wait, or a search
	// right after the import misses them.
	if _, err := s.run(ctx, neo4j.AccessModeRead, statement{Cypher: ix.await}); err != nil {
		return fmt.Errorf("wait for the vector index: %w", err)
	}
	ix.dims = dims
	return nil
}

func (s *Store) session(ctx context.Context, mode neo4j.AccessMode) neo4j.SessionWithContext {
	return s.driver.NewSession(ctx, neo4j.SessionConfig{DatabaseName: s.db, AccessMode: mode})
}

// run runs one statement in a managed transaction of the given mode and
// returns its records; a read runs as an auto-commit transaction instead
// (readOnce).
func (s *Store) run(ctx context.Context, mode neo4j.AccessMode, st statement) ([]*neo4j.Record, error) {
	if mode == neo4j.AccessModeRead {
		return s.readOnce(ctx, st)
	}
	var recs []*neo4j.Record
	err := s.tx(ctx, mode, func(tx neo4j.ManagedTransaction) error {
		var err error
		recs, err = collect(ctx, tx, st)
		return err
	})
	return recs, err
}

// Retries of readOnce: at most readAttempts, the first after readBackoff,
// each later one after twice the wait before it.
const (
	readAttempts = 5
	readBackoff  = 50 * time.Millisecond
)

// readOnce runs one read statement as an auto-commit transaction: a single
// statement needs no explicit transaction, and without one its result
// comes back in one round trip fewer (no COMMIT), which is a good part of
// a cheap query's time. Like a managed transaction it is retried on the
// errors the driver deems retryable.
func (s *Store) readOnce(ctx context.Context, st statement) ([]*neo4j.Record, error) {
	wait := readBackoff
	for attempt := 1; ; attempt++ {
		recs, err := s.readAutoCommit(ctx, st)
		if err == nil || attempt == readAttempts || !neo4j.IsRetryable(err) {
			return recs, err
		}
		select {
		case <-ctx.Done():
			return nil, errors.Join(err, ctx.Err())
		case <-time.After(wait):
		}
		wait *= 2
	}
}

func (s *Store) readAutoCommit(ctx context.Context, st statement) ([]*neo4j.Record, error) {
	sess := s.session(ctx, neo4j.AccessModeRead)
	defer sess.Close(context.WithoutCancel(ctx))
	res, err := sess.Run(ctx, st.Cypher, st.Params, neo4j.WithTxTimeout(s.timeout))
	if err != nil {
		return nil, err
	}
	return res.Collect(ctx)
}

// tx runs fn in a managed transaction: the driver retries it on transient
// failures (deadlocks, leader changes), so fn must be safe to run again.
func (s *Store) tx(ctx context.Context, mode neo4j.AccessMode, fn func(tx neo4j.ManagedTransaction) error) error {
	sess := s.session(ctx, mode)
	defer sess.Close(context.WithoutCancel(ctx))
	work := func(tx neo4j.ManagedTransaction) (any, error) { return nil, fn(tx) }
	var err error
	if mode == neo4j.AccessModeRead {
		_, err = sess.ExecuteRead(ctx, work, neo4j.WithTxTimeout(s.timeout))
	} else {
		_, err = sess.ExecuteWrite(ctx, work, neo4j.WithTxTimeout(s.timeout))
	}
	return err
}

// collect runs st in tx and returns every record.
func collect(ctx context.Context, tx neo4j.ManagedTransaction, st statement) ([]*neo4j.Record, error) {
	res, err := tx.Run(ctx, st.Cypher, st.Params)
	if err != nil {
		return nil, err
	}
	return res.Collect(ctx)
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	return s
}
