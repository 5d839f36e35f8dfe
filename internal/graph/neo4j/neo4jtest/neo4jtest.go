// Package neo4jtest gives tests a Neo4j graph store on the server named by
// the standard NEO4J_URI, NEO4J_USERNAME, NEO4J_PASSWORD and NEO4J_DATABASE
// variables, emptied for each test. Without NEO4J_URI the tests skip with a
// message saying how to start the throwaway test server.
//
// A Neo4j community server has one database, which the tests of several
// packages share while `go test ./...` runs them in parallel; a test holds
// an exclusive lock on the database (a file lock keyed by the URI) from Open
// until its cleanup, so tests never see each other's data.
package neo4jtest

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"testing"
	"time"

	driver "github.com/neo4j/neo4j-go-driver/v5/neo4j"

	"github.com/contractgraph/contractgraph/internal/graph/neo4j"
)

// SkipMessage says how to run the Neo4j tests.
const SkipMessage = "NEO4J_URI is not set: Neo4j tests skipped. To run them: " +
	"scripts/neo4j-test-server.sh start && eval \"$(scripts/neo4j-test-server.sh env)\" " +
	"(stop it with scripts/neo4j-test-server.sh stop)"

// Config returns the connection settings from the environment, or skips t.
func Config(t testing.TB) neo4j.Config {
	t.Helper()
	uri := os.Getenv("NEO4J_URI")
	if uri == "" {
		t.Skip(SkipMessage)
	}
	return neo4j.Config{
		URI:      uri,
		Username: os.Getenv("NEO4J_USERNAME"),
		Password: os.Getenv("NEO4J_PASSWORD"),
		Database: os.Getenv("NEO4J_DATABASE"),
	}
}

// Open locks the test database for t, deletes every node in it and opens a
// store on it, closed (and the lock released) when t ends.
func Open(t testing.TB) *neo4j.Store {
	t.Helper()
	cfg := Config(t)
	Lock(t, cfg.URI)
	ctx := context.Background()
	if err := Wipe(ctx, cfg); err != nil {
		t.Fatalf("empty the test database at %s: %v", cfg.URI, err)
	}
	s, err := neo4j.Open(ctx, cfg)
	if err != nil {
		t.Fatalf("open neo4j store: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// Lock takes the database's exclusive test lock until t's cleanup.
func Lock(t testing.TB, uri string) {
	t.Helper()
	sum := sha256.Sum256([]byte(uri))
	path := filepath.Join(os.TempDir(), "contractgraph-neo4j-"+hex.EncodeToString(sum[:8])+".lock")
	unlock, err := lockFile(path)
	if err != nil {
		t.Fatalf("lock the test database: %v", err)
	}
	t.Cleanup(unlock)
}

// Wipe deletes every node and relationship of the database in batches,
// keeping the constraints and indexes.
func Wipe(ctx context.Context, cfg neo4j.Config) error {
	d, err := driver.NewDriverWithContext(cfg.URI, driver.BasicAuth(cfg.Username, cfg.Password, ""))
	if err != nil {
		return err
	}
	defer d.Close(ctx)
	sess := d.NewSession(ctx, driver.SessionConfig{DatabaseName: cfg.Database, AccessMode: driver.AccessModeWrite})
	defer sess.Close(ctx)
	ctx, cancel := context.WithTimeout(ctx, 10*time.Minute)
	defer cancel()
	// Relationships first, then nodes, in small transactions: a party of
	// a large benchmark graph has tens of thousands of relationships, too
	// many to detach in one transaction of the test server's memory pool.
	// CALL ... IN TRANSACTIONS needs an auto-commit transaction.
	for _, q := range []string{
		"MATCH ()-[r]->() CALL (r) { DELETE r } IN TRANSACTIONS OF 5000 ROWS",
		"MATCH (n) CALL (n) { DELETE n } IN TRANSACTIONS OF 5000 ROWS",
	} {
		res, err := sess.Run(ctx, q, nil)
		if err != nil {
			return err
		}
		if _, err := res.Consume(ctx); err != nil {
			return err
		}
	}
	return nil
}
