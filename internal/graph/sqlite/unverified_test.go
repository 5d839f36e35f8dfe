package sqlite

import (
	"context"
	"database/sql"
	"path/filepath"
	"testing"

	"github.com/contractgraph/contractgraph/internal/contract"
	"github.com/contractgraph/contractgraph/internal/graph"
	"github.com/contractgraph/contractgraph/internal/graph/graphtest"
)

// A database written before migration 0070 has its unverified values
// flagged, from the stored evidence, by the Open that migrates it.
func TestUnverifiedBackfill(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "graph.db")
	s, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.PutContracts(ctx, []*contract.Contract{graphtest.UnverifiedContract()}); err != nil {
		t.Fatal(err)
	}
	s.Close()
	// Back to schema version 60: without the flags and their indexes.
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	undoAggregates(t, db)
	for _, q := range []string{
		`DROP INDEX contracts_type`, `DROP INDEX contract_parties_party`, `DROP INDEX contract_parties_country`, `DROP INDEX contracts_effective_fact`,
		`CREATE INDEX contracts_type ON contracts(contract_type, effective_date, end_date, total_amount, duration_days, governing_law_pk, clause_bits)`,
		`CREATE INDEX contract_parties_party ON contract_parties(party_pk, contract_pk, country, contract_type)`,
		`CREATE INDEX contract_parties_country ON contract_parties(country, contract_pk, party_pk)`,
		`ALTER TABLE contracts DROP COLUMN unverified`, `ALTER TABLE contract_parties DROP COLUMN unverified`,
		`ALTER TABLE contract_details DROP COLUMN unverified`, `PRAGMA user_version = 60`,
	} {
		if _, err := db.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	db.Close()

	s, err = Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	r, err := s.SearchContracts(ctx, graph.ContractQuery{Filter: graph.Filter{MinEffectiveDate: "2090-01-01"}, Limit: 5})
	if err != nil {
		t.Fatal(err)
	}
	if r.TotalCount != 0 {
		t.Errorf("after the backfill, min_effective_date 2090 matches %d contracts, want 0 (c13's date is unverified)", r.TotalCount)
	}
	r, err = s.SearchContracts(ctx, graph.ContractQuery{Filter: graph.Filter{Parties: []string{"phantom"}, IncludeUnverified: true}, Limit: 5})
	if err != nil {
		t.Fatal(err)
	}
	if r.TotalCount != 1 || len(r.Examples[0].Unverified) != 8 {
		t.Errorf("with include_unverified: %+v, want c13 with its 8 marks", r)
	}
	r, err = s.SearchContracts(ctx, graph.ContractQuery{Filter: graph.Filter{Parties: []string{"phantom"}}, Limit: 5})
	if err != nil || r.TotalCount != 0 {
		t.Errorf("the unverified party matched: %d contracts (%v), want 0", r.TotalCount, err)
	}
}
