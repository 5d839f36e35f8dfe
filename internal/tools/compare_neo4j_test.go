package tools

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/contractgraph/contractgraph/internal/contract"
	"github.com/contractgraph/contractgraph/internal/graph"
	"github.com/contractgraph/contractgraph/internal/graph/neo4j/neo4jtest"
	"github.com/contractgraph/contractgraph/internal/graph/sqlite"
	"github.com/contractgraph/contractgraph/internal/importer"
	"github.com/contractgraph/contractgraph/internal/sharedtest"
)

// clause_compare composes contract search and GetContract, so both
// backends give the same comparison: the first 50 CUAD contracts with
// their texts in Neo4j and in SQLite, compared over Cap On Liability and
// over the whole liability group.
func TestClauseCompareNeo4jMatchesSQLite(t *testing.T) {
	neo := neo4jtest.Open(t)
	shared := sharedtest.Dir(t)
	ctx := context.Background()
	lite, err := sqlite.Open(filepath.Join(t.TempDir(), "cuad.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer lite.Close()
	var cs []*contract.Contract
	errEnough := errors.New("enough")
	err = importer.Read(ctx, filepath.Join(shared, "data", "cuad", "master_clauses.csv"), importer.Options{}, func(r importer.Record) error {
		if r.Err != nil {
			return r.Err
		}
		if cs = append(cs, r.Contract); len(cs) == 50 {
			return errEnough
		}
		return nil
	})
	if err != nil && !errors.Is(err, errEnough) {
		t.Fatal(err)
	}
	for _, s := range []graph.Store{lite, neo} {
		if _, err := s.PutContracts(ctx, cs); err != nil {
			t.Fatal(err)
		}
	}
	for _, args := range []string{
		`{"clause_type":"Cap On Liability","groups":50,"examples":20}`,
		`{"clause_type":"Liability & Indemnification","threshold":0.4,"min_effective_date":"2005-01-01"}`,
		// Fewer clauses compared than there are: both stores count the
		// rest (graph.ClauseCounter).
		`{"clause_type":"Governing Law","max_clauses":5}`,
		`{"clause_type":"Liability & Indemnification","max_clauses":9,"min_effective_date":"2000-01-01"}`,
	} {
		var got [2]ClauseCompareResult
		for i, s := range []graph.Store{lite, neo} {
			out, err := New(s, Options{Now: fixedNow}).Call(ctx, NameClauseCompare, json.RawMessage(args))
			if err != nil {
				t.Fatalf("%T %s: %v", s, args, err)
			}
			if err := json.Unmarshal(out, &got[i]); err != nil {
				t.Fatal(err)
			}
		}
		if got[0].TotalClauses == 0 || got[0].TotalGroups == 0 {
			t.Errorf("%s: SQLite compares %d clauses in %d groups", args, got[0].TotalClauses, got[0].TotalGroups)
		}
		if diff := cmp.Diff(got[0], got[1]); diff != "" {
			t.Errorf("%s: SQLite and Neo4j differ (-sqlite +neo4j):\n%s", args, diff)
		}
	}
}
