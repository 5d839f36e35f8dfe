package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/contractgraph/contractgraph/internal/graph"
	"github.com/contractgraph/contractgraph/internal/graph/neo4j"
	"github.com/contractgraph/contractgraph/internal/graph/sqlite"
)

// storeNames lists the valid values of --store, for error messages.
const storeNames = "sqlite, neo4j"

// openStore opens the storage backend named by --store, creating an empty
// embedded database if there is none yet. The caller closes it.
func (a *app) openStore(ctx context.Context) (graph.Store, error) {
	switch a.cfg.Store {
	case "sqlite", "":
		if a.cfg.DB == "" {
			return nil, usageError(errors.New("--db is empty: name the SQLite database file"))
		}
		return sqlite.OpenWith(a.cfg.DB, sqlite.Options{Progress: a.upgradeProgress()})
	case "neo4j":
		// Connection settings come from the standard Neo4j variables; the
		// optional read-only user runs text2cypher's model-written queries.
		cfg := neo4j.Config{URI: os.Getenv("NEO4J_URI"), Username: os.Getenv("NEO4J_USERNAME"),
			Password: os.Getenv("NEO4J_PASSWORD"), Database: os.Getenv("NEO4J_DATABASE"), Logger: a.log,
			ReadOnlyUsername: os.Getenv("NEO4J_READONLY_USERNAME"), ReadOnlyPassword: os.Getenv("NEO4J_READONLY_PASSWORD")}
		if cfg.URI == "" {
			return nil, usageError(errors.New("--store neo4j needs NEO4J_URI (and NEO4J_USERNAME, NEO4J_PASSWORD, optionally NEO4J_DATABASE)"))
		}
		return neo4j.Open(ctx, cfg)
	default:
		return nil, usageError(fmt.Errorf("unknown --store %q; valid values: %s", a.cfg.Store, storeNames))
	}
}

// upgradeProgress reports on stderr what opening an upgraded SQLite store
// builds again (its passage index, a minute at 100k contracts), so that
// the first command after an upgrade does not look stuck: a line when a
// step starts, and a bar on a terminal.
func (a *app) upgradeProgress() func(sqlite.Progress) {
	bar := newProgressBar(a.stderr, a.cfg.JSON)
	return func(p sqlite.Progress) {
		if p.Total == 0 {
			return
		}
		if p.Done == 0 {
			fmt.Fprintf(a.stderr, "upgrading %s: %s (%d), once for this version\n", a.cfg.DB, p.Step, p.Total)
			unit := "passages"
			if p.Step == sqlite.StepMigrations {
				unit = "migrations"
			}
			bar.startUnit("upgrading the store: "+p.Step, unit)
		}
		bar.update(p.Done, p.Total, int(p.Done))
		if p.Done == p.Total {
			bar.clear()
		}
	}
}

// openExistingStore is openStore for commands that only read: with the
// embedded backend, a database file that does not exist is an error that
// says how to make one, instead of a silently created empty store.
func (a *app) openExistingStore(ctx context.Context) (graph.Store, error) {
	if err := a.checkDBExists(); err != nil {
		return nil, err
	}
	return a.openStore(ctx)
}

// checkDBExists reports a missing embedded database file.
func (a *app) checkDBExists() error {
	if a.cfg.Store != "sqlite" && a.cfg.Store != "" {
		return nil
	}
	if _, err := os.Stat(a.cfg.DB); errors.Is(err, fs.ErrNotExist) {
		return usageError(noDatabaseError{path: a.cfg.DB})
	}
	return nil
}

// noDatabaseError is a missing embedded database file. It matches
// graph.ErrNotFound, so that --json reports it as not_found.
type noDatabaseError struct {
	path string
	also string // another way out, for the command at hand
}

func (e noDatabaseError) Error() string {
	msg := fmt.Sprintf("no database at %s: run `contractgraph demo` or `contractgraph import FILE` first, or point --db (env CONTRACTGRAPH_DB) at one", e.path)
	if e.also != "" {
		msg += ", or " + e.also
	}
	return msg
}

func (e noDatabaseError) Is(target error) bool { return target == graph.ErrNotFound }
