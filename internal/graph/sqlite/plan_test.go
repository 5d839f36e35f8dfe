package sqlite

import (
	"context"
	"strings"
	"testing"

	"github.com/contractgraph/contractgraph/internal/graph"
)

// The filters compile to conditions SQLite answers from an index rather
// than by scanning a relationship table; EXPLAIN QUERY PLAN keeps it so.
func TestFilterPlansUseIndexes(t *testing.T) {
	s := openTemp(t)
	ctx := context.Background()
	plan := func(query string, args []any) string {
		t.Helper()
		rows, err := s.rdb.QueryContext(ctx, "EXPLAIN QUERY PLAN "+query, args...)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		var b strings.Builder
		for rows.Next() {
			var id, parent, unused int
			var detail string
			if err := rows.Scan(&id, &parent, &unused, &detail); err != nil {
				t.Fatal(err)
			}
			b.WriteString(detail + "\n")
		}
		return b.String()
	}
	for _, tc := range []struct {
		name   string
		f      graph.Filter
		want   []string
		refuse []string
	}{
		{"type and dates", graph.Filter{ContractType: "Service", MinEndDate: "2005-01-01"}, []string{"COVERING INDEX contracts_type"}, nil},
		{"effective range", graph.Filter{MinEffectiveDate: "2019-10-01", MaxEffectiveDate: "2019-12-31"}, []string{"contracts_effective"}, nil},
		{"party country", graph.Filter{PartyCountry: "CN"}, []string{"COVERING INDEX contract_parties_country"}, []string{"SCAN contract_parties"}},
		{"party name", graph.Filter{Parties: []string{"acme"}}, []string{"contract_parties_party"}, []string{"SCAN contract_parties"}},
		{"governing law", graph.Filter{GoverningLawState: "DE"}, []string{"contracts_governing_law", "locations_state"}, nil},
		{"summary", graph.Filter{SummarySearch: "software"}, []string{"VIRTUAL TABLE INDEX"}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w, err := compileFilter(ctx, s.rdb, tc.f)
			if err != nil {
				t.Fatal(err)
			}
			p := plan(`SELECT count(*) FROM contracts c`+w.sql(), w.args)
			for _, want := range tc.want {
				if !strings.Contains(p, want) {
					t.Errorf("plan lacks %q:\n%s", want, p)
				}
			}
			for _, bad := range tc.refuse {
				if strings.Contains(p, bad) {
					t.Errorf("plan has %q:\n%s", bad, p)
				}
			}
		})
	}
	// Party search counts per party from the party index alone.
	p := plan(`SELECT party_pk, count(DISTINCT contract_pk) AS n FROM contract_parties GROUP BY party_pk HAVING n >= 4`, nil)
	if !strings.Contains(p, "COVERING INDEX contract_parties_party") || strings.Contains(p, "TEMP B-TREE") {
		t.Errorf("party counting plan:\n%s", p)
	}
	// An amount by contract type and currency reads contracts_amount in
	// its order: no sort of every contract.
	for _, include := range []bool{false, true} {
		p = plan(typeMoneyQuery(typeMoneyGroups(factsSQL(include, metrics[graph.MetricAvgAmount]), include), "DESC"), []any{3})
		// The grouping g is read straight off the index: no temporary
		// b-tree between the scan and g.
		if !strings.Contains(p, "SCAN c USING COVERING INDEX contracts_amount\nSCAN g\n") {
			t.Errorf("amount by contract type plan (include_unverified %v):\n%s", include, p)
		}
	}
}
