package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/contractgraph/contractgraph/internal/contract"
	"github.com/contractgraph/contractgraph/internal/graph"
	"github.com/contractgraph/contractgraph/internal/graph/graphtest"
	"github.com/contractgraph/contractgraph/internal/synth"
)

// aggregateTables dumps every maintained aggregate, zero rows and the
// storage class of each value included, for comparing two stores.
func aggregateTables(t *testing.T, s *Store) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	for _, q := range []struct{ name, sql string }{
		{"party_stats", `SELECT party_pk, contracts, verified_contracts FROM party_stats ORDER BY 1`},
		{"party_facets", `SELECT party_pk, kind, value, roles FROM party_facets ORDER BY 1, 2, 3`},
		{"country_stats", `SELECT country, contracts, verified_contracts FROM country_stats ORDER BY 1`},
		{"period_counts", `SELECT field, period, contracts, verified_contracts FROM period_counts ORDER BY 1, 2`},
		{"date_counts", `SELECT field, day, contracts, verified_contracts FROM date_counts ORDER BY 1, 2`},
		{"law_counts", `SELECT location_pk, contracts, verified_contracts FROM law_counts ORDER BY 1`},
		{"clause_counts", `SELECT bit, contracts FROM clause_counts ORDER BY 1`},
		{"type_amounts", `SELECT contract_type, currency, flags, contracts, amounts, int_sum, typeof(int_sum), abs_sum, typeof(abs_sum), inexact
			FROM type_amounts ORDER BY 1, 2, 3`},
		{"triggers", `SELECT name, tbl_name, sql FROM sqlite_master WHERE type = 'trigger' ORDER BY name`},
	} {
		out[q.name] = queryStrings(t, s.wdb, q.sql)
	}
	return out
}

// bulkSteps are batches that exercise the bulk path and its way out:
// new contracts only, new contracts mixed with replacements and with an id
// twice, and a batch where a contract fails mid-write (retried with a
// savepoint per contract) around a replacement.
var bulkSteps = []struct {
	name string
	cs   func() []*contract.Contract
}{
	{"new", func() []*contract.Contract {
		var cs []*contract.Contract
		if err := synth.Generate(7, 60, func(c *contract.Contract) error { cs = append(cs, c); return nil }); err != nil {
			panic(err)
		}
		cs = append(cs, graphtest.Fixture()...)
		return append(cs, graphtest.UnverifiedContract(), multiRole("m1", "2001-02-03"), multiRole("m2", "2001-02-28"))
	}},
	{"mixed", func() []*contract.Contract {
		var cs []*contract.Contract
		if err := synth.Generate(8, 20, func(c *contract.Contract) error { cs = append(cs, c); return nil }); err != nil {
			panic(err)
		}
		m1 := multiRole("m1", "2003-07-01")
		m1.Parties = append(m1.Parties, contract.PartyRole{Name: "Gamma Widgets Ltd", Role: "Guarantor", Location: &contract.Location{Country: "DE"}})
		m1.Currency, m1.TotalAmount = "EUR", new(120.0)
		again := multiRole("m3", "2005-05-05")
		again.EndDate = "2006-06-06"
		// New ones, a replacement, new ones, an id of this batch again.
		return append(append(cs[:10:10], multiRole("m3", "2004-04-04"), m1), append(cs[10:], again)...)
	}},
	{"failure", func() []*contract.Contract {
		var cs []*contract.Contract
		if err := synth.Generate(9, 12, func(c *contract.Contract) error { cs = append(cs, c); return nil }); err != nil {
			panic(err)
		}
		boom := multiRole("boom", "2007-07-07")
		boom.Clauses = []contract.Clause{{Type: "Boom", Summary: "fails"}}
		m2 := multiRole("m2", "2008-08-08")
		m2.ContractType = "License"
		return append(append(cs[:5:5], boom), append(cs[5:], m2, multiRole("m4", "2009-09-09"))...)
	}},
}

// Batches written in bulk leave every aggregate as the triggers leave it,
// row by row, and equal to its recount; the triggers are back, as stored.
func TestBulkAggregatesMatchTriggers(t *testing.T) {
	bulk, rows := openTemp(t), openTemp(t)
	rows.rowTriggers = true
	for _, s := range []*Store{bulk, rows} {
		if _, err := s.wdb.Exec(`CREATE TRIGGER boom BEFORE INSERT ON clauses WHEN NEW.type = 'Boom'
			BEGIN SELECT RAISE(ABORT, 'boom clause'); END`); err != nil {
			t.Fatal(err)
		}
	}
	before := aggregateTables(t, bulk)["triggers"]
	for _, st := range bulkSteps {
		outBulk, outRows := put(t, bulk, st.cs()...), put(t, rows, st.cs()...)
		if diff := cmp.Diff(outcomeStatuses(outRows), outcomeStatuses(outBulk)); diff != "" {
			t.Fatalf("after %s: outcomes (-rows +bulk):\n%s", st.name, diff)
		}
		if d := aggregateDiff(t, bulk); d != "" {
			t.Fatalf("after %s:\n%s", st.name, d)
		}
		if diff := cmp.Diff(aggregateTables(t, rows), aggregateTables(t, bulk)); diff != "" {
			t.Fatalf("after %s (-rows +bulk):\n%s", st.name, diff)
		}
	}
	if diff := cmp.Diff(before, aggregateTables(t, bulk)["triggers"]); diff != "" {
		t.Errorf("triggers (-before +after):\n%s", diff)
	}
}

func outcomeStatuses(out []graph.PutOutcome) []string {
	var s []string
	for _, o := range out {
		s = append(s, o.ID+" "+string(o.Status))
	}
	return s
}

// Each delta counts: with any one of them wrong, a bulk batch leaves some
// aggregate unequal to its recount.
func TestBulkAggregatesRecountCatchesWrongDelta(t *testing.T) {
	for i, d := range aggregateDeltas {
		t.Run(d.trigger, func(t *testing.T) {
			saved := aggregateDeltas[i].sql
			t.Cleanup(func() { aggregateDeltas[i].sql = saved })
			aggregateDeltas[i].sql = `SELECT ?1`
			s := openTemp(t)
			put(t, s, bulkSteps[0].cs()...)
			if aggregateDiff(t, s) == "" {
				t.Errorf("without the delta of %s every aggregate still equals its recount", d.trigger)
			}
		})
	}
}

// Integral amounts whose sum passes 2^63 within one batch turn the sums
// REAL where they do row by row, as the trigger leaves them.
func TestBulkTypeAmountsOverflow(t *testing.T) {
	bulk, rows := openTemp(t), openTemp(t)
	rows.rowTriggers = true
	var cs []*contract.Contract
	for i := range 1100 {
		cs = append(cs, &contract.Contract{ID: fmt.Sprintf("big-%d", i), ContractType: "Loan", Currency: "USD",
			TotalAmount: new(float64(1<<53 - 1 - i))})
	}
	put(t, bulk, cs...)
	put(t, rows, cs...)
	got, want := aggregateTables(t, bulk)["type_amounts"], aggregateTables(t, rows)["type_amounts"]
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("type_amounts (-rows +bulk):\n%s", diff)
	}
	if len(want) != 1 || !strings.Contains(want[0], "|real|") {
		t.Errorf("type_amounts = %q, want one row with REAL sums", want)
	}
}

// A bulk batch that rolls back leaves the triggers, and while it is open
// other connections see them.
func TestBulkRollbackKeepsTriggers(t *testing.T) {
	s := openTemp(t)
	before := aggregateTables(t, s)["triggers"]
	ctx := context.Background()
	err := s.withWriteTx(ctx, func(tx *sql.Tx) error {
		b, err := beginBulk(ctx, tx)
		if err != nil || b == nil {
			t.Fatalf("beginBulk = %v, %v", b, err)
		}
		var n int
		if err := tx.QueryRow(`SELECT count(*) FROM sqlite_master WHERE type = 'trigger' AND name = ?`, aggregateDeltas[0].trigger).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n != 0 {
			t.Errorf("%s inside the batch: %d, want it dropped", aggregateDeltas[0].trigger, n)
		}
		if got := queryStrings(t, s.rdb, `SELECT name, tbl_name, sql FROM sqlite_master WHERE type = 'trigger' ORDER BY name`); !cmp.Equal(got, before) {
			t.Errorf("another connection sees triggers %q, want %q", got, before)
		}
		return fmt.Errorf("roll back")
	})
	if err == nil {
		t.Fatal("no error from the rolled back batch")
	}
	if diff := cmp.Diff(before, aggregateTables(t, s)["triggers"]); diff != "" {
		t.Errorf("triggers (-before +after):\n%s", diff)
	}
}
