package main

import (
	"context"
	"fmt"

	"github.com/contractgraph/contractgraph/internal/graph"
	"github.com/contractgraph/contractgraph/internal/graph/sqlite"
)

// storeNames lists the valid values of --store, for error messages.
const storeNames = "sqlite, neo4j"

// openStore opens the storage backend named by --store. The caller closes it.
func (a *app) openStore(ctx context.Context) (graph.Store, error) {
	switch a.cfg.Store {
	case "sqlite", "":
		if a.cfg.DB == "" {
			return nil, usageError(fmt.Errorf("--db is empty: name the SQLite database file"))
		}
		s, err := sqlite.Open(a.cfg.DB)
		if err != nil {
			return nil, fmt.Errorf("open sqlite store %s: %w", a.cfg.DB, err)
		}
		return s, nil
	default:
		return nil, usageError(fmt.Errorf("unknown --store %q; valid values: %s", a.cfg.Store, storeNames))
	}
}
