package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/contractgraph/contractgraph/internal/contract"
	"github.com/contractgraph/contractgraph/internal/graph"
	"github.com/contractgraph/contractgraph/internal/graph/graphtest"
	"github.com/contractgraph/contractgraph/internal/synth"
)

// aggregateRecounts pairs each maintained aggregate (migrations 0105 and 0110) with
// its recount from the base tables; both list only non-zero counts.
var aggregateRecounts = []struct{ name, stored, recount string }{
	{"party_stats",
		`SELECT party_pk, contracts, verified_contracts FROM party_stats WHERE contracts <> 0 OR verified_contracts <> 0`,
		`SELECT party_pk, count(DISTINCT contract_pk), count(DISTINCT iif(unverified = 0, contract_pk, NULL)) FROM contract_parties GROUP BY party_pk`},
	{"period_counts",
		`SELECT field, period, contracts, verified_contracts FROM period_counts WHERE contracts <> 0 OR verified_contracts <> 0`,
		`SELECT 'effective', substr(effective_date, 1, 7), count(*), count(*) FILTER (WHERE (unverified & 2) = 0) FROM contracts WHERE effective_date IS NOT NULL GROUP BY 2
		 UNION ALL SELECT 'end', substr(end_date, 1, 7), count(*), count(*) FILTER (WHERE (unverified & 4) = 0) FROM contracts WHERE end_date IS NOT NULL GROUP BY 2`},
	{"party_facets",
		`SELECT party_pk, kind, value, roles FROM party_facets WHERE roles <> 0`,
		`SELECT party_pk, 'country', country, count(*) FROM contract_parties WHERE country IS NOT NULL AND country <> '' GROUP BY party_pk, country
		 UNION ALL SELECT party_pk, 'type', contract_type, count(*) FROM contract_parties WHERE contract_type IS NOT NULL GROUP BY party_pk, contract_type`},
	{"country_stats",
		`SELECT country, contracts, verified_contracts FROM country_stats WHERE contracts <> 0 OR verified_contracts <> 0`,
		`SELECT country, count(DISTINCT contract_pk), count(DISTINCT iif(unverified = 0, contract_pk, NULL)) FROM contract_parties
		 WHERE country IS NOT NULL AND country <> '' GROUP BY country`},
	{"date_counts",
		`SELECT field, day, contracts, verified_contracts FROM date_counts WHERE contracts <> 0 OR verified_contracts <> 0`,
		`SELECT 'effective', effective_date, count(*), count(*) FILTER (WHERE (unverified & 2) = 0) FROM contracts WHERE effective_date IS NOT NULL GROUP BY 2
		 UNION ALL SELECT 'end', end_date, count(*), count(*) FILTER (WHERE (unverified & 4) = 0) FROM contracts WHERE end_date IS NOT NULL GROUP BY 2`},
	{"law_counts",
		`SELECT location_pk, contracts, verified_contracts FROM law_counts WHERE contracts <> 0 OR verified_contracts <> 0`,
		`SELECT governing_law_pk, count(*), count(*) FILTER (WHERE (unverified & 32) = 0) FROM contracts WHERE governing_law_pk IS NOT NULL GROUP BY 1`},
	{"clause_counts",
		`SELECT bit, contracts FROM clause_counts WHERE contracts <> 0`,
		`SELECT k.bit, count(*) FROM clause_kinds k JOIN contracts c ON c.clause_bits & (1 << k.bit) <> 0 GROUP BY k.bit`},
	{"type_amounts",
		`SELECT contract_type, currency, flags, contracts, amounts, int_sum, abs_sum, inexact FROM type_amounts WHERE contracts <> 0`,
		`SELECT contract_type, coalesce(currency, ''), (unverified & 17) | iif(currency IS NULL, 256, 0), count(*), count(total_amount),
			sum(iif(x, CAST(total_amount AS INTEGER), 0)), sum(iif(x, abs(CAST(total_amount AS INTEGER)), 0)), sum(total_amount IS NOT NULL AND NOT x)
		 FROM (SELECT *, coalesce(abs(total_amount) < 9007199254740992.0 AND total_amount = round(total_amount), 0) AS x FROM contracts)
		 WHERE contract_type IS NOT NULL GROUP BY 1, 2, 3`},
	{"contracts.currency",
		`SELECT pk, currency FROM contracts WHERE currency IS NOT NULL`,
		`SELECT contract_pk, currency FROM contract_details WHERE currency IS NOT NULL`},
}

// aggregateDiff recounts every aggregate and describes how the stored ones
// differ ("" when none does). It also fails on a row of a party that no
// longer exists.
func aggregateDiff(t *testing.T, s *Store) string {
	t.Helper()
	var diffs []string
	for _, a := range aggregateRecounts {
		for _, dir := range []struct{ label, q string }{
			{"stored, not recounted", `SELECT * FROM (` + a.stored + `) EXCEPT SELECT * FROM (` + a.recount + `)`},
			{"recounted, not stored", `SELECT * FROM (` + a.recount + `) EXCEPT SELECT * FROM (` + a.stored + `)`},
		} {
			rows := queryStrings(t, s.wdb, dir.q)
			if len(rows) > 0 {
				diffs = append(diffs, fmt.Sprintf("%s: %s: %s", a.name, dir.label, strings.Join(rows, "; ")))
			}
		}
	}
	for _, table := range []string{"party_stats", "party_facets"} {
		if rows := queryStrings(t, s.wdb, `SELECT party_pk FROM `+table+` WHERE party_pk NOT IN (SELECT pk FROM parties)`); len(rows) > 0 {
			diffs = append(diffs, table+" of deleted parties: "+strings.Join(rows, "; "))
		}
	}
	if rows := queryStrings(t, s.wdb, `SELECT location_pk FROM law_counts WHERE location_pk NOT IN (SELECT pk FROM locations)`); len(rows) > 0 {
		diffs = append(diffs, "law_counts of deleted locations: "+strings.Join(rows, "; "))
	}
	return strings.Join(diffs, "\n")
}

// queryStrings returns the rows of q, each as its columns joined by "|".
func queryStrings(t *testing.T, db *sql.DB, q string) []string {
	t.Helper()
	rows, err := db.Query(q)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for rows.Next() {
		vals := make([]sql.NullString, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		parts := make([]string, len(vals))
		for i, v := range vals {
			parts[i] = v.String
		}
		out = append(out, strings.Join(parts, "|"))
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// aggregateSteps are the writes that change what the aggregates count, in
// order, on one store: after each the aggregates must equal their recount.
var aggregateSteps = []struct {
	name string
	run  func(t *testing.T, s *Store)
}{
	{"put", func(t *testing.T, s *Store) {
		var cs []*contract.Contract
		if err := synth.Generate(7, 60, func(c *contract.Contract) error { cs = append(cs, c); return nil }); err != nil {
			t.Fatal(err)
		}
		cs = append(cs, graphtest.Fixture()...)
		cs = append(cs, graphtest.UnverifiedContract(), multiRole("m1", "2001-02-03"), multiRole("m2", "2001-02-28"))
		// m2 alone is governed by the law of its location, which goes with it.
		cs[len(cs)-1].GoverningLaw = &contract.Location{Country: "ZZ", State: "Only M2"}
		put(t, s, cs...)
	}},
	{"replace", func(t *testing.T, s *Store) {
		// A re-put with other values, parties and dates rewrites the rows.
		c := multiRole("m1", "2003-07-01")
		c.Parties = append(c.Parties, contract.PartyRole{Name: "Gamma Widgets Ltd", Role: "Guarantor"})
		c.Currency, c.TotalAmount = "EUR", new(120.0)
		out := put(t, s, c)
		if out[0].Status == graph.PutUnchanged || out[0].Status == graph.PutFailed {
			t.Fatalf("replace m1: %+v", out[0])
		}
	}},
	{"delete", func(t *testing.T, s *Store) {
		ids := []string{"m2", "c13", "gen-7-0000001", "gen-7-0000002", "gen-7-0000003"}
		if _, err := s.DeleteContracts(context.Background(), ids); err != nil {
			t.Fatal(err)
		}
	}},
	{"merge", func(t *testing.T, s *Store) {
		// Alpha and Beta share m1: after the merge it counts once for Alpha.
		ctx := context.Background()
		var ids []string
		for _, name := range []string{"Alpha Holdings Inc", "Beta Trading Corp"} {
			r, err := s.SearchParties(ctx, graph.PartyQuery{Name: name, Limit: 5})
			if err != nil || len(r.Examples) != 1 {
				t.Fatalf("party %q: %+v, %v", name, r.Examples, err)
			}
			ids = append(ids, r.Examples[0].PartyID)
		}
		if err := s.MergeParties(ctx, ids[0], ids[1:]); err != nil {
			t.Fatal(err)
		}
		// And two synthetic parties with contracts of their own.
		r, err := s.SearchParties(ctx, graph.PartyQuery{Limit: 4})
		if err != nil || len(r.Examples) < 4 {
			t.Fatalf("top parties: %+v, %v", r.Examples, err)
		}
		if err := s.MergeParties(ctx, r.Examples[0].PartyID, []string{r.Examples[2].PartyID, r.Examples[3].PartyID}); err != nil {
			t.Fatal(err)
		}
	}},
	{"unverified", func(t *testing.T, s *Store) {
		// The flags as writeUnverified sets them, then one cleared again.
		ctx := context.Background()
		p, err := graph.Prepare(graphtest.UnverifiedContract())
		if err != nil {
			t.Fatal(err)
		}
		p.Contract.ID = "m1"
		err = s.withWriteTx(ctx, func(tx *sql.Tx) error {
			if err := writeUnverified(ctx, tx, "m1", p); err != nil {
				return err
			}
			if _, err := tx.ExecContext(ctx, `UPDATE contract_parties SET unverified = 1
				WHERE ord = 0 AND contract_pk = (SELECT pk FROM contracts WHERE id = 'gen-7-0000010')`); err != nil {
				return err
			}
			if _, err := tx.ExecContext(ctx, `UPDATE contract_parties SET unverified = 0
				WHERE contract_pk = (SELECT pk FROM contracts WHERE id = 'm1') AND ord = 1`); err != nil {
				return err
			}
			// No writer moves a role to another country or type today; the
			// triggers keep the counts if one does.
			_, err := tx.ExecContext(ctx, `UPDATE contract_parties SET country = 'ZZ', contract_type = 'Other'
				WHERE contract_pk IN (SELECT pk FROM contracts WHERE id IN ('m1', 'gen-7-0000011')) AND ord IN (0, 1)`)
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}},
	{"rewrite", func(t *testing.T, s *Store) {
		// No writer changes a stored contract's dates, governing law or
		// clause bits in place today; the triggers keep the counts if one does.
		_, err := s.wdb.Exec(`UPDATE contracts SET effective_date = '1999-09-09', end_date = NULL, clause_bits = (clause_bits | 3) - (clause_bits & 3),
			governing_law_pk = (SELECT max(pk) FROM locations), contract_type = 'Rewritten', currency = NULL, total_amount = 7.5
			WHERE id IN ('gen-7-0000012', 'gen-7-0000013', 'm1');
			UPDATE contract_details SET currency = NULL WHERE contract_pk IN (SELECT pk FROM contracts WHERE id IN ('gen-7-0000012', 'gen-7-0000013', 'm1'))`)
		if err != nil {
			t.Fatal(err)
		}
	}},
}

// multiRole is a contract where Alpha holds two roles and Beta one; Alpha
// is in the US but for its guarantor role in m1, in Canada.
func multiRole(id, date string) *contract.Contract {
	guarantor := "US"
	if id == "m1" {
		guarantor = "CA"
	}
	return &contract.Contract{
		ID: id, ContractType: "Service", EffectiveDate: date, EndDate: "2010-12-31", Currency: "USD", TotalAmount: new(50.0),
		Parties: []contract.PartyRole{
			{Name: "Alpha Holdings Inc", Role: "Provider", Location: &contract.Location{Country: "US"}},
			{Name: "Beta Trading Corp", Role: "Customer", Location: &contract.Location{Country: "US"}},
			{Name: "Alpha Holdings Inc", Role: "Guarantor", Location: &contract.Location{Country: guarantor}},
		},
	}
}

// The maintained aggregates equal their recount from the base tables
// after puts, replacements, deletes, party merges and unverified flags.
func TestAggregatesMatchRecount(t *testing.T) {
	s := openTemp(t)
	for _, st := range aggregateSteps {
		st.run(t, s)
		if d := aggregateDiff(t, s); d != "" {
			t.Fatalf("after %s:\n%s", st.name, d)
		}
	}
}

// The recount catches a missing trigger: each one dropped in turn leaves
// some aggregate wrong after the same writes.
func TestAggregatesRecountCatchesMissingTrigger(t *testing.T) {
	triggers := []string{"party_stats_insert", "party_stats_delete", "party_stats_update",
		"period_counts_insert", "period_counts_delete", "period_counts_update",
		"party_facets_insert", "party_facets_delete", "party_facets_update",
		"country_stats_insert", "country_stats_delete", "country_stats_update",
		"date_counts_insert", "date_counts_delete", "date_counts_update",
		"law_counts_insert", "law_counts_delete", "law_counts_update",
		"clause_counts_insert", "clause_counts_delete", "clause_counts_update",
		"type_amounts_insert", "type_amounts_delete", "type_amounts_update"}
	for _, tr := range triggers {
		t.Run(tr, func(t *testing.T) {
			s := openTemp(t)
			if _, err := s.wdb.Exec(`DROP TRIGGER ` + tr); err != nil {
				t.Fatal(err)
			}
			for _, st := range aggregateSteps {
				st.run(t, s)
				if aggregateDiff(t, s) != "" {
					return
				}
			}
			t.Errorf("without %s every aggregate still equals its recount", tr)
		})
	}
}

// A contract with 10,000 roles is put and deleted with its
// aggregates right: each role's trigger looks its party up through the
// party index, not by scanning the contract's roles.
func TestManyPartiesOnOneContract(t *testing.T) {
	s := openTemp(t)
	c := &contract.Contract{ID: "big", ContractType: "Service", EffectiveDate: "2020-01-01"}
	for i := range 10_000 {
		// 5,000 parties with two roles each.
		c.Parties = append(c.Parties, contract.PartyRole{Name: fmt.Sprintf("Party Number %d Corp", i%5000), Role: "Member"})
	}
	put(t, s, c)
	if d := aggregateDiff(t, s); d != "" {
		t.Fatalf("after put:\n%s", d)
	}
	var n int
	if err := s.rdb.QueryRow(`SELECT count(*) FROM party_stats WHERE contracts = 1`).Scan(&n); err != nil || n != 5000 {
		t.Fatalf("parties counting the contract once: %d (%v), want 5000", n, err)
	}
	if _, err := s.DeleteContracts(context.Background(), []string{"big"}); err != nil {
		t.Fatal(err)
	}
	if d := aggregateDiff(t, s); d != "" {
		t.Fatalf("after delete:\n%s", d)
	}
}

// Every query that reads the maintained aggregates answers as it does from
// the base tables, on a store with values and parties unverified here and
// there (including amounts unverified under a verified type, and missing
// currencies).
func TestAggregateQueriesMatchBase(t *testing.T) {
	s := openTemp(t)
	for _, st := range aggregateSteps[:2] {
		st.run(t, s)
	}
	for _, q := range []string{
		`UPDATE contracts SET unverified = unverified | 16 WHERE pk % 7 = 0`,
		`UPDATE contracts SET unverified = unverified | 1 WHERE pk % 11 = 0`,
		`UPDATE contracts SET unverified = unverified | 2 WHERE pk % 5 = 0`,
		`UPDATE contracts SET unverified = unverified | 4 WHERE pk % 3 = 0`,
		`UPDATE contracts SET unverified = unverified | 32 WHERE pk % 6 = 1`,
		`UPDATE contract_parties SET unverified = 1 WHERE (contract_pk + ord) % 4 = 0`,
		`UPDATE contracts SET currency = NULL WHERE pk % 13 = 0`,
		`UPDATE contract_details SET currency = NULL WHERE contract_pk % 13 = 0`,
	} {
		if _, err := s.wdb.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	if d := aggregateDiff(t, s); d != "" {
		t.Fatalf("after flagging:\n%s", d)
	}
	ctx := context.Background()
	both := func(name string, run func() (any, error)) {
		t.Helper()
		s.baseQueries = false
		got, err := run()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		s.baseQueries = true
		want, err := run()
		s.baseQueries = false
		if err != nil {
			t.Fatalf("%s from the base tables: %v", name, err)
		}
		if diff := cmp.Diff(want, got, cmpopts.EquateApprox(1e-12, 0)); diff != "" {
			t.Errorf("%s: aggregates answer differently from the base tables (-base +aggregates):\n%s", name, diff)
		}
	}
	for _, g := range graph.Groupings {
		for _, m := range graph.Metrics {
			for _, include := range []bool{false, true} {
				for _, asc := range []bool{false, true} {
					q := graph.AggregateQuery{Filter: graph.Filter{IncludeUnverified: include}, GroupBy: g, Metric: m, Asc: asc, Limit: 100}
					both(fmt.Sprintf("aggregate %s %s include=%v asc=%v", g, m, include, asc), func() (any, error) {
						return s.AggregateContracts(ctx, q)
					})
				}
			}
		}
	}
	for _, q := range []graph.PartyQuery{
		{Limit: 50}, {MinContracts: 2, Limit: 50}, {MinContracts: 4, Limit: 20}, {MinContracts: 1000, Limit: 5},
		{Country: "US", Limit: 50}, {ContractType: "Service", MinContracts: 2, Limit: 50},
		{Name: "alpha", Limit: 5}, {OrderBy: "name", Desc: true, Limit: 50},
	} {
		both(fmt.Sprintf("party search %+v", q), func() (any, error) { return s.SearchParties(ctx, q) })
	}
	yes, no := true, false
	filters := []graph.Filter{
		{MinEffectiveDate: "2005-01-01"}, {MaxEffectiveDate: "2012-06-30"}, {MinEffectiveDate: "2001-02-03", MaxEffectiveDate: "2015-12-31"},
		{MinEndDate: "2010-12-31"}, {MaxEndDate: "2010-12-31"}, {MinEndDate: "2005-01-01", MaxEndDate: "2020-12-31"},
		{Active: &yes, AsOf: "2015-06-30"}, {Active: &no, AsOf: "2010-12-31"}, {Active: &yes, AsOf: "2008-01-01", MaxEndDate: "2030-01-01"},
		{PartyCountry: "US"}, {PartyCountry: "CA"}, {PartyCountry: "ZZ"}, {PartyCountry: "NO-SUCH"},
		{GoverningLawCountry: "US"}, {GoverningLawState: "DE"}, {GoverningLawState: "CA"}, {GoverningLawCountry: "US", GoverningLawState: "NY"},
		{GoverningLawCountry: "NO-SUCH"},
		{ClauseTypes: []string{"Governing Law"}}, {ClauseTypes: []string{contract.GroupLiability}}, {ClauseTypes: []string{"No Such Kind"}},
		{ClauseTypes: []string{"Governing Law", contract.GroupLiability}},
		// Combinations the counts do not answer alone.
		{MinEffectiveDate: "2005-01-01", MaxEndDate: "2020-12-31"}, {PartyCountry: "US", ContractType: "Service"},
		{GoverningLawState: "DE", ClauseTypes: []string{contract.GroupLiability}}, {MinEndDate: "2005-01-01", ContractType: "Service"},
	}
	for i, f := range filters {
		for _, include := range []bool{false, true} {
			f.IncludeUnverified = include
			// The orderings and pages in turn, one per filter.
			q := []graph.ContractQuery{
				{Filter: f, Limit: 3}, {Filter: f, Limit: 2, Offset: 3},
				{Filter: f, OrderBy: graph.OrderDurationDays, Desc: true, Limit: 3},
				{Filter: f, OrderBy: graph.OrderDurationDays, Limit: 3, Offset: 1},
				{Filter: f, OrderBy: graph.OrderEffectiveDate, Limit: 4},
			}[i%5]
			both(fmt.Sprintf("contract search %+v", q), func() (any, error) { return s.SearchContracts(ctx, q) })
			if f.GoverningLawCountry == "" && f.GoverningLawState == "" && i%4 != 0 {
				continue
			}
			for _, g := range []string{graph.GroupGoverningLawCountry, graph.GroupGoverningLawState} {
				q := graph.AggregateQuery{Filter: f, GroupBy: g, Metric: graph.MetricCount, Asc: i%2 == 0, Limit: 2}
				both(fmt.Sprintf("aggregate %s %+v", g, q), func() (any, error) { return s.AggregateContracts(ctx, q) })
			}
		}
	}
}

// The searches the maintained counts answer find contracts at all: the
// comparison with the base tables is not between two empty answers.
func TestCountedSearchesFindContracts(t *testing.T) {
	s := openTemp(t)
	aggregateSteps[0].run(t, s)
	ctx := context.Background()
	yes := true
	for _, f := range []graph.Filter{
		{MinEffectiveDate: "2005-01-01"}, {Active: &yes, AsOf: "2005-06-30"}, {PartyCountry: "US"},
		{GoverningLawCountry: "US"}, {ClauseTypes: []string{"Governing Law"}},
	} {
		r, err := s.SearchContracts(ctx, graph.ContractQuery{Filter: f, Limit: 1})
		if err != nil {
			t.Fatal(err)
		}
		if r.TotalCount == 0 || len(r.Examples) == 0 {
			t.Errorf("%+v: %d contracts, want some", f, r.TotalCount)
		}
	}
}

// A store written before migration 0105 gets its aggregates counted by the
// migration, and the triggers keep them from then on.
func TestAggregatesBackfill(t *testing.T) {
	path := filepath.Join(t.TempDir(), "graph.db")
	s, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	aggregateSteps[0].run(t, s)
	s.Close()
	// Back to schema version 95: no aggregates, triggers, column or indexes.
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	undoAggregates(t, db)
	if _, err := db.Exec(`PRAGMA user_version = 95`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	s, err = Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var n int
	if err := s.rdb.QueryRow(`SELECT count(*) FROM party_stats`).Scan(&n); err != nil || n == 0 {
		t.Fatalf("party_stats after the migration: %d rows (%v), want the parties counted", n, err)
	}
	if d := aggregateDiff(t, s); d != "" {
		t.Fatalf("after the migration:\n%s", d)
	}
	for _, st := range aggregateSteps[1:] {
		st.run(t, s)
		if d := aggregateDiff(t, s); d != "" {
			t.Fatalf("after %s:\n%s", st.name, d)
		}
	}
}

// undoAggregates takes what migrations 0105 and 0110 added out of db, for
// tests that roll a store back to an earlier schema version.
func undoAggregates(t *testing.T, db *sql.DB) {
	t.Helper()
	undoQueryCounts(t, db)
	for _, q := range []string{
		`DROP TABLE party_stats`, `DROP TABLE period_counts`, `DROP TABLE party_facets`, `DROP TABLE country_stats`,
		`DROP TRIGGER party_stats_insert`, `DROP TRIGGER party_stats_delete`, `DROP TRIGGER party_stats_update`,
		`DROP TRIGGER period_counts_insert`, `DROP TRIGGER period_counts_delete`, `DROP TRIGGER period_counts_update`,
		`DROP TRIGGER party_facets_insert`, `DROP TRIGGER party_facets_delete`, `DROP TRIGGER party_facets_update`,
		`DROP TRIGGER country_stats_insert`, `DROP TRIGGER country_stats_delete`, `DROP TRIGGER country_stats_update`,
		`DROP INDEX contracts_amount`, `ALTER TABLE contracts DROP COLUMN currency`,
		`DROP INDEX contracts_governing_law`, `CREATE INDEX contracts_governing_law ON contracts(governing_law_pk)`,
	} {
		if _, err := db.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
}

// undoQueryCounts takes what migration 0110 added out of db, leaving the
// indexes as 0105 left them.
func undoQueryCounts(t *testing.T, db *sql.DB) {
	t.Helper()
	for _, q := range []string{
		`DROP TABLE date_counts`, `DROP TABLE law_counts`, `DROP TABLE clause_counts`, `DROP TABLE type_amounts`,
		`DROP TRIGGER type_amounts_insert`, `DROP TRIGGER type_amounts_delete`, `DROP TRIGGER type_amounts_update`,
		`DROP TRIGGER date_counts_insert`, `DROP TRIGGER date_counts_delete`, `DROP TRIGGER date_counts_update`,
		`DROP TRIGGER law_counts_insert`, `DROP TRIGGER law_counts_delete`, `DROP TRIGGER law_counts_update`,
		`DROP TRIGGER clause_counts_insert`, `DROP TRIGGER clause_counts_delete`, `DROP TRIGGER clause_counts_update`,
		`DROP INDEX contracts_type_effective`, `DROP INDEX contracts_duration_fact`,
		`DROP INDEX contracts_type`,
		`CREATE INDEX contracts_type ON contracts(contract_type, effective_date, end_date, total_amount, duration_days, governing_law_pk, clause_bits, unverified)`,
		`DROP INDEX contracts_effective`, `CREATE INDEX contracts_effective ON contracts(effective_date)`,
		`DROP INDEX contracts_governing_law`, `CREATE INDEX contracts_governing_law ON contracts(governing_law_pk, unverified)`,
	} {
		if _, err := db.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
}

// The sums and averages of amounts by contract type from type_amounts equal
// the base tables' exactly (not only within rounding) while every amount
// is an integer, and the query falls back to the base tables once one is
// not.
func TestTypeAmountsExact(t *testing.T) {
	s := openTemp(t)
	for _, st := range aggregateSteps[:2] {
		st.run(t, s)
	}
	if _, err := s.wdb.Exec(`UPDATE contracts SET unverified = unverified | 16 WHERE pk % 7 = 0;
		UPDATE contracts SET unverified = unverified | 1 WHERE pk % 11 = 0`); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	usable := func() bool {
		t.Helper()
		var ok bool
		if err := s.rdb.QueryRow(typeAmountsUsable).Scan(&ok); err != nil {
			t.Fatal(err)
		}
		return ok
	}
	compare := func(when string) {
		t.Helper()
		for _, m := range []string{graph.MetricSumAmount, graph.MetricAvgAmount} {
			for _, include := range []bool{false, true} {
				for _, asc := range []bool{false, true} {
					q := graph.AggregateQuery{Filter: graph.Filter{IncludeUnverified: include}, GroupBy: graph.GroupContractType, Metric: m, Asc: asc, Limit: 100}
					s.baseQueries = true
					want, err := s.AggregateContracts(ctx, q)
					s.baseQueries = false
					if err != nil {
						t.Fatal(err)
					}
					got, err := s.AggregateContracts(ctx, q)
					if err != nil {
						t.Fatal(err)
					}
					if len(want.Groups) < 2 {
						t.Fatalf("%s: %s: %d groups, want several", when, m, len(want.Groups))
					}
					if diff := cmp.Diff(want, got); diff != "" {
						t.Errorf("%s: %s include=%v asc=%v (-base +type_amounts):\n%s", when, m, include, asc, diff)
					}
				}
			}
		}
	}
	if !usable() {
		t.Fatal("type_amounts unusable with integral amounts")
	}
	compare("integral amounts")
	for _, amount := range []float64{0.1, 1e17} {
		c := multiRole("frac", "2004-04-04")
		c.TotalAmount = new(amount)
		put(t, s, c)
		if usable() {
			t.Errorf("type_amounts usable with an amount of %g", amount)
		}
		compare(fmt.Sprintf("an amount of %g", amount))
	}
	if _, err := s.DeleteContracts(ctx, []string{"frac"}); err != nil {
		t.Fatal(err)
	}
	if !usable() {
		t.Error("type_amounts unusable after the inexact amount is gone")
	}
	compare("after the delete")
}

// examplesByScan answers a search whose filter many contracts match from
// the first entries of the order's index, as the sorting query does; it
// declines a filter few contracts match.
func TestExamplesByScan(t *testing.T) {
	s := openTemp(t)
	aggregateSteps[0].run(t, s)
	ctx := context.Background()
	for _, tc := range []struct {
		q    graph.ContractQuery
		want bool
	}{
		{graph.ContractQuery{Filter: graph.Filter{PartyCountry: "US"}, Limit: 5}, true},
		{graph.ContractQuery{Filter: graph.Filter{MinEndDate: "2001-01-01"}, OrderBy: graph.OrderDurationDays, Limit: 5}, true},
		{graph.ContractQuery{Filter: graph.Filter{MinEndDate: "2001-01-01", IncludeUnverified: true}, Desc: true, OrderBy: graph.OrderEffectiveDate, Limit: 5, Offset: 2}, true},
		{graph.ContractQuery{Filter: graph.Filter{ContractIDs: []string{"m1"}}, Limit: 5}, false},
	} {
		orderBy, desc := tc.q.OrderBy, tc.q.Desc
		if orderBy == "" {
			orderBy, desc = graph.OrderEffectiveDate, true
		}
		col := factsSQL(tc.q.IncludeUnverified, orderColumns[orderBy])
		w, err := compileFilter(ctx, s.rdb, tc.q.Filter)
		if err != nil {
			t.Fatal(err)
		}
		s.baseQueries = true
		want, err := s.SearchContracts(ctx, tc.q)
		s.baseQueries = false
		if err != nil {
			t.Fatal(err)
		}
		tx, err := s.rdb.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
		if err != nil {
			t.Fatal(err)
		}
		pks, ok, err := examplesByScan(ctx, tx, tc.q, orderBy, col, desc, w, want.TotalCount, tc.q.Limit)
		var ids []string
		for _, pk := range pks {
			var id string
			if err := tx.QueryRow(`SELECT id FROM contracts WHERE pk = ?`, pk).Scan(&id); err != nil {
				t.Fatal(err)
			}
			ids = append(ids, id)
		}
		tx.Rollback()
		if err != nil {
			t.Fatalf("%+v: %v", tc.q, err)
		}
		if ok != tc.want {
			t.Fatalf("%+v: answered %v, want %v", tc.q, ok, tc.want)
		}
		if !ok {
			continue
		}
		var wantIDs []string
		for _, e := range want.Examples {
			wantIDs = append(wantIDs, e.ContractID)
		}
		if diff := cmp.Diff(wantIDs, ids); diff != "" {
			t.Errorf("%+v: (-sorting query +index scan):\n%s", tc.q, diff)
		}
	}
}

// Entries tied with the last one read may lie beyond it: examplesByScan
// then declines rather than pick among the ones it read.
func TestExamplesByScanTies(t *testing.T) {
	s := openTemp(t)
	var cs []*contract.Contract
	for i := range 300 {
		// In id order: the descending index scan reads equal dates in
		// descending pk order, the opposite of the tie order by id.
		cs = append(cs, multiRole(fmt.Sprintf("t%03d", i), "2001-01-01"))
	}
	put(t, s, cs...)
	ctx := context.Background()
	q := graph.ContractQuery{Filter: graph.Filter{PartyCountry: "US"}, Limit: 5}
	s.baseQueries = true
	want, err := s.SearchContracts(ctx, q)
	s.baseQueries = false
	if err != nil {
		t.Fatal(err)
	}
	got, err := s.SearchContracts(ctx, q)
	if err != nil {
		t.Fatal(err)
	}
	if want.Examples[0].ContractID != "t000" {
		t.Fatalf("first example %q, want t000", want.Examples[0].ContractID)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-sorting query +index scan):\n%s", diff)
	}
}

// A store at schema version 105 gets migration 0110's counts on its next
// Open, which tells Progress of the migration from start to end.
func TestQueryCountsUpgrade(t *testing.T) {
	path := filepath.Join(t.TempDir(), "graph.db")
	s, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	aggregateSteps[0].run(t, s)
	s.Close()
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	undoQueryCounts(t, db)
	if _, err := db.Exec(`PRAGMA user_version = 105`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	s, seen := openWatched(t, path)
	defer s.Close()
	// 0110, then 0115 (the roles' index with their locations) and 0120
	// (the table of deferred indexes, which this store already has).
	want := []Progress{{Step: StepMigrations, Total: 3}, {Step: StepMigrations, Done: 1, Total: 3},
		{Step: StepMigrations, Done: 2, Total: 3}, {Step: StepMigrations, Done: 3, Total: 3}}
	if diff := cmp.Diff(want, seen); diff != "" {
		t.Errorf("progress (-want +got):\n%s", diff)
	}
	var n int
	if err := s.rdb.QueryRow(`SELECT count(*) FROM date_counts`).Scan(&n); err != nil || n == 0 {
		t.Fatalf("date_counts after the migration: %d rows (%v), want the dates counted", n, err)
	}
	if d := aggregateDiff(t, s); d != "" {
		t.Fatalf("after the migration:\n%s", d)
	}
	for _, st := range aggregateSteps[1:] {
		st.run(t, s)
		if d := aggregateDiff(t, s); d != "" {
			t.Fatalf("after %s:\n%s", st.name, d)
		}
	}
}
