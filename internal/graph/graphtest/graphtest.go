// Package graphtest is the conformance suite every graph.Store backend runs.
// It uses only the graph.Store interface, a hand-written fixture (Fixture)
// and expectations worked out by hand from it, so that two backends passing
// it give the same answers to the same tool calls.
package graphtest

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sort"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/contractgraph/contractgraph/internal/contract"
	"github.com/contractgraph/contractgraph/internal/graph"
)

// Run runs the suite. open must return a new, empty store each time it is
// called; Run closes the stores it opens. Every query the suite makes sets
// its Limit, so backends need not agree on defaults.
func Run(t *testing.T, open func(t *testing.T) graph.Store) {
	load := func(t *testing.T) graph.Store {
		t.Helper()
		s := open(t)
		t.Cleanup(func() { s.Close() })
		out, err := s.PutContracts(context.Background(), Fixture())
		if err != nil {
			t.Fatalf("put fixture: %v", err)
		}
		for _, o := range out {
			if o.Status != graph.PutCreated {
				t.Fatalf("put fixture: %s: %s (%v), want created", o.ID, o.Status, o.Err)
			}
		}
		return s
	}

	// Read-only checks share one loaded store.
	t.Run("read", func(t *testing.T) {
		s := load(t)
		t.Run("GetContract", func(t *testing.T) { testGetContract(t, s) })
		t.Run("Contracts", func(t *testing.T) { testContracts(t, s) })
		t.Run("SearchFilters", func(t *testing.T) { testSearchFilters(t, s) })
		t.Run("SearchOrder", func(t *testing.T) { testSearchOrder(t, s) })
		t.Run("SearchOffset", func(t *testing.T) { testSearchOffset(t, s) })
		t.Run("SearchExamples", func(t *testing.T) { testSearchExamples(t, s) })
		t.Run("Aggregate", func(t *testing.T) { testAggregate(t, s) })
		t.Run("Parties", func(t *testing.T) { testParties(t, s) })
		t.Run("PartyTypos", func(t *testing.T) { testPartyTypos(t, s) })
		t.Run("Clauses", func(t *testing.T) { testClauses(t, s) })
		t.Run("Stats", func(t *testing.T) { testStats(t, s) })
		t.Run("InvalidQueries", func(t *testing.T) { testInvalidQueries(t, s) })
		t.Run("QueryEnums", func(t *testing.T) { testQueryEnums(t, s) })
		t.Run("Deadlines", func(t *testing.T) { testDeadlines(t, s) })
	})
	t.Run("FilterCoverage", func(t *testing.T) {
		s := open(t)
		defer s.Close()
		testFilterCoverage(t, s)
	})
	t.Run("Unverified", func(t *testing.T) { testUnverified(t, open) })
	t.Run("PartyNamesOrderIndependent", func(t *testing.T) { testPartyNameOrder(t, open) })
	t.Run("Idempotent", func(t *testing.T) { testIdempotent(t, load(t)) })
	t.Run("Update", func(t *testing.T) { testUpdate(t, load(t)) })
	t.Run("SourceMerge", func(t *testing.T) { testSourceMerge(t, open) })
	t.Run("Delete", func(t *testing.T) { testDelete(t, load(t)) })
	t.Run("Links", func(t *testing.T) { testLinks(t, load(t)) })
	t.Run("PartyNamesVersion", func(t *testing.T) { testPartyNamesVersion(t, load(t)) })
	t.Run("AtomicFailure", func(t *testing.T) { testAtomicFailure(t, load(t)) })
	t.Run("Cancelled", func(t *testing.T) { testCancelled(t, load(t)) })
	t.Run("Concurrent", func(t *testing.T) { testConcurrent(t, load(t)) })
	t.Run("ChunkBackfill", func(t *testing.T) { testChunkBackfill(t, load(t)) })
	t.Run("EmbeddingBackfill", func(t *testing.T) { testEmbeddingBackfill(t, load(t)) })
	t.Run("Empty", func(t *testing.T) {
		s := open(t)
		defer s.Close()
		testEmpty(t, s)
	})
}

func ids(r graph.ContractResult) []string {
	out := []string{}
	for _, e := range r.Examples {
		out = append(out, e.ContractID)
	}
	return out
}

func search(t *testing.T, s graph.Store, q graph.ContractQuery) graph.ContractResult {
	t.Helper()
	if q.Limit == 0 {
		q.Limit = 50
	}
	r, err := s.SearchContracts(context.Background(), q)
	if err != nil {
		t.Fatalf("SearchContracts(%+v): %v", q, err)
	}
	return r
}

func boolp(b bool) *bool { return &b }

func testGetContract(t *testing.T, s graph.Store) {
	ctx := context.Background()
	want := Fixture()[0]
	got, err := s.GetContract(ctx, "c01")
	if err != nil {
		t.Fatal(err)
	}
	// The store resolves party ids; everything else comes back as written,
	// with clause groups from the taxonomy.
	for i, p := range got.Parties {
		if p.PartyID == "" {
			t.Errorf("parties[%d] %q has no party id", i, p.Name)
		}
	}
	opts := cmp.Options{
		cmp.FilterPath(func(p cmp.Path) bool {
			sf, ok := p.Last().(cmp.StructField)
			return ok && (sf.Name() == "PartyID" || sf.Name() == "ID")
		}, cmp.Ignore()),
	}
	want.Clauses[0].Group = contract.GroupRenewalTermination
	want.Clauses[1].Group = contract.GroupLiability
	if diff := cmp.Diff(want, got, opts); diff != "" {
		t.Errorf("GetContract(c01) (-want +got):\n%s", diff)
	}
	if got.ID != "c01" {
		t.Errorf("id = %q", got.ID)
	}
	for i, cl := range got.Clauses {
		if cl.ID == "" {
			t.Errorf("clauses[%d] has no id", i)
		}
		if cl.Verified && got.Text[cl.Start:cl.End] != cl.Text {
			t.Errorf("clauses[%d] claims a verified span that does not slice the text", i)
		}
	}
	// Acme is one party under three spellings.
	acme := got.Parties[0].PartyID
	for _, ref := range []struct {
		id  string
		idx int
	}{{"c02", 0}, {"c03", 1}, {"c08", 0}, {"c11", 1}} {
		c, err := s.GetContract(ctx, ref.id)
		if err != nil {
			t.Fatal(err)
		}
		if c.Parties[ref.idx].PartyID != acme {
			t.Errorf("%s party %q has id %q, want Acme's %q", ref.id, c.Parties[ref.idx].Name, c.Parties[ref.idx].PartyID, acme)
		}
	}
	// Hostile names are plain data.
	c05, err := s.GetContract(ctx, "c05")
	if err != nil {
		t.Fatal(err)
	}
	if c05.Parties[0].Name != sqlInjection {
		t.Errorf("c05 party name = %q, want %q", c05.Parties[0].Name, sqlInjection)
	}
	c07, err := s.GetContract(ctx, "c07")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{unicodeName, backslashQuotes}, []string{c07.Parties[0].Name, c07.Parties[1].Name}); diff != "" {
		t.Errorf("c07 party names (-want +got):\n%s", diff)
	}
	c10, err := s.GetContract(ctx, "c10")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(&contract.Contract{ID: "c10", ContractType: "License Agreement"}, c10); diff != "" {
		t.Errorf("GetContract(c10) (-want +got):\n%s", diff)
	}
	if _, err := s.GetContract(ctx, "no-such-contract"); !errors.Is(err, graph.ErrNotFound) {
		t.Errorf("GetContract(missing): err = %v, want ErrNotFound", err)
	}
	if _, err := s.GetContract(ctx, "' OR '1'='1"); !errors.Is(err, graph.ErrNotFound) {
		t.Errorf("GetContract(injection): err = %v, want ErrNotFound", err)
	}
}

func testContracts(t *testing.T, s graph.Store) {
	ctx := context.Background()
	var got []string
	err := s.Contracts(ctx, func(c *contract.Contract) error {
		got = append(got, c.ID)
		full, err := s.GetContract(ctx, c.ID)
		if err != nil {
			return err
		}
		if diff := cmp.Diff(full, c); diff != "" {
			t.Errorf("Contracts record %s differs from GetContract (-get +iter):\n%s", c.ID, diff)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"c01", "c02", "c03", "c04", "c05", "c06", "c07", "c08", "c09", "c10", "c11", "c12"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Contracts order (-want +got):\n%s", diff)
	}
	stop := errors.New("stop")
	n := 0
	err = s.Contracts(ctx, func(*contract.Contract) error {
		n++
		if n == 3 {
			return stop
		}
		return nil
	})
	if !errors.Is(err, stop) || n != 3 {
		t.Errorf("Contracts with a failing callback: err = %v after %d calls, want stop after 3", err, n)
	}
}

func testSearchFilters(t *testing.T, s graph.Store) {
	for _, tc := range []struct {
		name string
		f    graph.Filter
		want []string // ids in the default order: effective_date desc, nulls last, id
	}{
		{"all", graph.Filter{}, []string{"c12", "c04", "c08", "c09", "c01", "c02", "c07", "c06", "c05", "c11", "c03", "c10"}},
		{"type", graph.Filter{ContractType: "Joint Venture"}, []string{"c07", "c06"}},
		{"type none", graph.Filter{ContractType: "Hosting"}, []string{}},
		{"effective range inclusive", graph.Filter{MinEffectiveDate: "2019-10-15", MaxEffectiveDate: "2019-12-01"}, []string{"c04", "c08", "c09", "c01"}},
		{"end range", graph.Filter{MinEndDate: "2005-01-01", MaxEndDate: "2005-12-31"}, []string{"c03"}},
		{"type and end range", graph.Filter{ContractType: "Distributor", MinEndDate: "2005-01-01", MaxEndDate: "2005-12-31"}, []string{"c03"}},
		{"started 2018 ended by 2020", graph.Filter{MinEffectiveDate: "2018-01-01", MaxEffectiveDate: "2018-12-31", MaxEndDate: "2020-12-31"}, []string{"c02"}},
		{"max end excludes missing", graph.Filter{MaxEndDate: "2009-12-31"}, []string{"c11", "c03"}},
		{"party name", graph.Filter{Parties: []string{"acme"}}, []string{"c08", "c01", "c02", "c11", "c03"}},
		{"party alias", graph.Filter{Parties: []string{"ACME, INC"}}, []string{"c08", "c01", "c02", "c11", "c03"}},
		{"party alias of merged party", graph.Filter{Parties: []string{"gamma limited"}}, []string{"c04", "c02"}},
		{"parties ANDed", graph.Filter{Parties: []string{"Acme", "beta"}}, []string{"c01"}},
		{"party unknown", graph.Filter{Parties: []string{"nonexistent"}}, []string{}},
		{"party sql injection", graph.Filter{Parties: []string{sqlInjection}}, []string{"c05"}},
		{"party cypher injection", graph.Filter{Parties: []string{cypherInjection}}, []string{"c06"}},
		{"party unicode case", graph.Filter{Parties: []string{"THÉTA"}}, []string{"c07"}},
		{"party backslash quotes", graph.Filter{Parties: []string{`back\slash "quoted"`}}, []string{"c07"}},
		{"party country", graph.Filter{PartyCountry: "CN"}, []string{"c12", "c03"}},
		{"party country twice in one contract", graph.Filter{PartyCountry: "CA"}, []string{"c08", "c09"}},
		{"party country US", graph.Filter{PartyCountry: "US"}, []string{"c04", "c08", "c01", "c02", "c06", "c05", "c11", "c03"}},
		{"governing law country", graph.Filter{GoverningLawCountry: "US"}, []string{"c08", "c01", "c02", "c06", "c05", "c11", "c03"}},
		{"governing law state", graph.Filter{GoverningLawState: "NY"}, []string{"c08", "c01", "c06"}},
		{"governing law country and state", graph.Filter{GoverningLawCountry: "US", GoverningLawState: "CA"}, []string{"c05", "c11"}},
		{"active", graph.Filter{Active: boolp(true), AsOf: "2020-06-30"}, []string{"c12", "c09", "c01", "c06"}},
		{"inactive", graph.Filter{Active: boolp(false), AsOf: "2020-06-30"}, []string{"c08", "c02", "c05", "c11", "c03"}},
		{"active on the end date", graph.Filter{Active: boolp(true), AsOf: "2020-11-19"}, []string{"c12", "c09", "c01", "c06"}},
		{"active the day after", graph.Filter{Active: boolp(true), AsOf: "2020-11-20"}, []string{"c12", "c01", "c06"}},
		{"amount >", graph.Filter{Monetary: &graph.Monetary{Op: ">", Value: fp(10000000)}}, []string{"c06"}},
		{"amount >=", graph.Filter{Monetary: &graph.Monetary{Op: ">=", Value: fp(5000000)}}, []string{"c04", "c07", "c06"}},
		{"amount =", graph.Filter{Monetary: &graph.Monetary{Op: "=", Value: fp(5000000)}}, []string{"c04", "c07"}},
		{"amount <", graph.Filter{Monetary: &graph.Monetary{Op: "<", Value: fp(100000)}}, []string{"c05", "c11"}},
		{"amount <=", graph.Filter{Monetary: &graph.Monetary{Op: "<=", Value: fp(100000)}}, []string{"c08", "c05", "c11"}},
		{"clause group", graph.Filter{ClauseTypes: []string{"Confidentiality & Non-Disclosure"}}, []string{"c04", "c02"}},
		{"clause group covers its types", graph.Filter{ClauseTypes: []string{"Liability & Indemnification"}}, []string{"c09", "c01", "c06", "c03"}},
		{"clause type", graph.Filter{ClauseTypes: []string{"Cap On Liability"}}, []string{"c09", "c01"}},
		{"clause types ANDed", graph.Filter{ClauseTypes: []string{"Renewal & Termination", "Cap On Liability"}}, []string{"c01"}},
		{"state and clause group", graph.Filter{GoverningLawState: "DE", ClauseTypes: []string{"Liability & Indemnification"}}, []string{"c03"}},
		{"summary", graph.Filter{SummarySearch: "widgets"}, []string{"c01", "c02"}},
		{"summary all words", graph.Filter{SummarySearch: "joint venture solar", SummaryMatch: graph.SummaryAll}, []string{"c06"}},
		// Two of three words: c07 is a joint venture for wind energy.
		{"summary most words", graph.Filter{SummarySearch: "joint venture solar"}, []string{"c07", "c06"}},
		// Stemmed: "farm" finds "farms"; two of "solar farm hospitals".
		{"summary most words, stemmed", graph.Filter{SummarySearch: "solar farm for hospitals"}, []string{"c06"}},
		{"summary scope", graph.Filter{SummarySearch: "centre"}, []string{"c04"}},
		{"summary title", graph.Filter{SummarySearch: "Festival deal"}, []string{"c09"}},
		{"summary query syntax is text", graph.Filter{SummarySearch: `"solar" OR *`}, []string{"c12", "c06"}},
		{"summary injection", graph.Filter{SummarySearch: "'); DROP TABLE contracts;--"}, []string{}},
		{"ids", graph.Filter{ContractIDs: []string{"c01", "c12", "nope"}}, []string{"c12", "c01"}},
		{"party and type", graph.Filter{Parties: []string{"acme"}, ContractType: "Sponsorship"}, []string{"c08"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := search(t, s, graph.ContractQuery{Filter: tc.f})
			if diff := cmp.Diff(tc.want, ids(r)); diff != "" {
				t.Errorf("ids (-want +got):\n%s", diff)
			}
			if r.TotalCount != len(tc.want) {
				t.Errorf("total_count = %d, want %d", r.TotalCount, len(tc.want))
			}
		})
	}
	// The injection attempts above left every contract in place.
	if r := search(t, s, graph.ContractQuery{}); r.TotalCount != 12 {
		t.Errorf("after hostile queries total_count = %d, want 12", r.TotalCount)
	}
}

func testSearchOrder(t *testing.T, s graph.Store) {
	for _, tc := range []struct {
		order string
		desc  bool
		limit int
		want  []string
		total int
	}{
		{graph.OrderEffectiveDate, false, 50, []string{"c03", "c11", "c05", "c06", "c07", "c02", "c01", "c08", "c09", "c04", "c12", "c10"}, 12},
		{graph.OrderEffectiveDate, true, 50, []string{"c12", "c04", "c08", "c09", "c01", "c02", "c07", "c06", "c05", "c11", "c03", "c10"}, 12},
		{graph.OrderEndDate, true, 4, []string{"c06", "c12", "c01", "c09"}, 12},
		{graph.OrderEndDate, false, 50, []string{"c03", "c11", "c08", "c02", "c05", "c09", "c01", "c12", "c06", "c04", "c07", "c10"}, 12},
		{graph.OrderTotalAmount, true, 50, []string{"c06", "c04", "c07", "c01", "c09", "c02", "c08", "c11", "c05", "c03", "c10", "c12"}, 12},
		{graph.OrderTotalAmount, false, 50, []string{"c05", "c11", "c08", "c02", "c09", "c01", "c04", "c07", "c06", "c03", "c10", "c12"}, 12},
		{graph.OrderDurationDays, true, 50, []string{"c06", "c05", "c01", "c02", "c11", "c09", "c12", "c03", "c08", "c04", "c07", "c10"}, 12},
		{graph.OrderDurationDays, true, 1, []string{"c06"}, 12},
		{graph.OrderPartyCount, true, 50, []string{"c06", "c01", "c02", "c03", "c04", "c05", "c07", "c08", "c09", "c11", "c12", "c10"}, 12},
		{graph.OrderPartyCount, false, 3, []string{"c10", "c12", "c01"}, 12},
	} {
		t.Run(fmt.Sprintf("%s desc=%v limit=%d", tc.order, tc.desc, tc.limit), func(t *testing.T) {
			r := search(t, s, graph.ContractQuery{OrderBy: tc.order, Desc: tc.desc, Limit: tc.limit})
			if diff := cmp.Diff(tc.want, ids(r)); diff != "" {
				t.Errorf("ids (-want +got):\n%s", diff)
			}
			if r.TotalCount != tc.total {
				t.Errorf("total_count = %d, want %d", r.TotalCount, tc.total)
			}
		})
	}
	// Default order is effective_date descending whatever Desc says.
	r := search(t, s, graph.ContractQuery{Limit: 3})
	if diff := cmp.Diff([]string{"c12", "c04", "c08"}, ids(r)); diff != "" {
		t.Errorf("default order (-want +got):\n%s", diff)
	}
}

// testSearchOffset pages through orderings with many ties (party_count:
// eight contracts have two parties) and nulls, in pages of 3 and 5: the
// pages put together must be the whole ordered result, each row once.
func testSearchOffset(t *testing.T, s graph.Store) {
	for _, tc := range []struct {
		order string
		desc  bool
		f     graph.Filter
	}{
		{graph.OrderPartyCount, true, graph.Filter{}},
		{graph.OrderPartyCount, false, graph.Filter{}},
		{graph.OrderTotalAmount, false, graph.Filter{}},
		{graph.OrderEndDate, true, graph.Filter{}},
		{"", false, graph.Filter{GoverningLawCountry: "US"}},
	} {
		all := search(t, s, graph.ContractQuery{Filter: tc.f, OrderBy: tc.order, Desc: tc.desc, Limit: 50})
		for _, size := range []int{3, 5} {
			name := tc.order
			if name == "" {
				name = "default order, US law"
			}
			t.Run(fmt.Sprintf("%s desc=%v page=%d", name, tc.desc, size), func(t *testing.T) {
				var paged []string
				for off := 0; off < all.TotalCount+size; off += size {
					r := search(t, s, graph.ContractQuery{Filter: tc.f, OrderBy: tc.order, Desc: tc.desc, Limit: size, Offset: off})
					if r.TotalCount != all.TotalCount {
						t.Errorf("offset %d: total_count = %d, want %d whatever the offset", off, r.TotalCount, all.TotalCount)
					}
					wantLen := min(size, max(0, all.TotalCount-off))
					if len(r.Examples) != wantLen {
						t.Errorf("offset %d: %d examples, want %d", off, len(r.Examples), wantLen)
					}
					paged = append(paged, ids(r)...)
				}
				if diff := cmp.Diff(ids(all), paged); diff != "" {
					t.Errorf("pages put together (-one page +pages):\n%s", diff)
				}
			})
		}
	}
	// The examples past the offset are the same rows, whole.
	r := search(t, s, graph.ContractQuery{OrderBy: graph.OrderPartyCount, Desc: true, Limit: 2, Offset: 1})
	if diff := cmp.Diff([]string{"c01", "c02"}, ids(r)); diff != "" {
		t.Errorf("party_count desc, offset 1 (-want +got):\n%s", diff)
	}
	if len(r.Examples) == 2 && r.Examples[0].Title != "Supply Agreement" {
		t.Errorf("offset example c01 title = %q, want the full summary", r.Examples[0].Title)
	}
	r = search(t, s, graph.ContractQuery{Limit: 5, Offset: graph.MaxOffset})
	if r.TotalCount != 12 || len(r.Examples) != 0 || r.Examples == nil {
		t.Errorf("offset past the end = %+v, want total 12 and an empty, non-nil list", r)
	}
}

func testSearchExamples(t *testing.T, s graph.Store) {
	r := search(t, s, graph.ContractQuery{Filter: graph.Filter{ContractIDs: []string{"c01", "c09", "c10"}}, OrderBy: graph.OrderTotalAmount, Desc: true})
	want := graph.ContractResult{TotalCount: 3, Examples: []graph.ContractSummary{
		{
			ContractID: "c01", Title: "Supply Agreement", ContractType: "Supply",
			Summary: "Supply of industrial widgets to Beta.", Scope: "Industrial widgets",
			EffectiveDate: "2019-10-15", EndDate: "2021-10-14", Duration: "P2Y", DurationDays: intp(730),
			TotalAmount: floatp(1000000), Currency: "USD", GoverningLaw: law("US", "NY"),
			Parties:     []graph.PartyRef{{Name: "Acme Corp.", Role: "Supplier", Country: "US"}, {Name: "Beta GmbH", Role: "Buyer", Country: "DE"}},
			ClauseTypes: []string{"Cap On Liability", "Renewal & Termination"},
		},
		{
			ContractID: "c09", Title: "Festival Deal", ContractType: "Sponsorship",
			Summary: "Sponsorship of a music festival.", EffectiveDate: "2019-11-20", EndDate: "2020-11-19",
			DurationDays: intp(365), TotalAmount: floatp(300000), Currency: "CAD",
			Parties: []graph.PartyRef{
				{Name: "Iota Events", Role: "Organizer", Country: "CA"},
				{Name: "Kappa Pty Ltd", Role: "Sponsor", Country: "AU"},
				{Name: "IOTA EVENTS", Role: "Payee", Country: "CA"},
			},
			ClauseTypes: []string{"Cap On Liability"},
		},
		{ContractID: "c10", ContractType: "License Agreement", Parties: []graph.PartyRef{}, ClauseTypes: []string{}},
	}}
	if diff := cmp.Diff(want, r); diff != "" {
		t.Errorf("examples (-want +got):\n%s", diff)
	}
}

func fp(v float64) *float64 { return &v }

func g(key string, value *float64, count int) graph.Group {
	return graph.Group{Key: key, Value: value, Count: count}
}

// gc is a group of an amount metric, in one currency.
func gc(key, currency string, value *float64, count int) graph.Group {
	return graph.Group{Key: key, Currency: &currency, Value: value, Count: count}
}

func testAggregate(t *testing.T, s graph.Store) {
	ctx := context.Background()
	for _, tc := range []struct {
		name string
		q    graph.AggregateQuery
		want graph.AggregateResult
	}{
		{"type count", graph.AggregateQuery{GroupBy: graph.GroupContractType, Metric: graph.MetricCount, Limit: 100}, graph.AggregateResult{TotalGroups: 9, Groups: []graph.Group{
			g("Sponsorship", fp(2), 2), g("License Agreement", fp(2), 2), g("Joint Venture", fp(2), 2),
			g("Supply", fp(1), 1), g("Service", fp(1), 1), g("Other", fp(1), 1), g("Franchise", fp(1), 1), g("Endorsement", fp(1), 1), g("Distributor", fp(1), 1),
		}}},
		{"type count asc", graph.AggregateQuery{GroupBy: graph.GroupContractType, Metric: graph.MetricCount, Asc: true, Limit: 4}, graph.AggregateResult{TotalGroups: 9, Groups: []graph.Group{
			g("Distributor", fp(1), 1), g("Endorsement", fp(1), 1), g("Franchise", fp(1), 1), g("Other", fp(1), 1),
		}}},
		// Amounts are never averaged across currencies: a type whose
		// contracts are in USD and EUR has a group for each.
		{"type avg amount per currency, nulls last", graph.AggregateQuery{GroupBy: graph.GroupContractType, Metric: graph.MetricAvgAmount, Limit: 100}, graph.AggregateResult{TotalGroups: 12, Groups: []graph.Group{
			gc("Joint Venture", "USD", fp(20000000), 1), gc("Service", "GBP", fp(5000000), 1), gc("Joint Venture", "EUR", fp(5000000), 1),
			gc("Supply", "USD", fp(1000000), 1), gc("Sponsorship", "CAD", fp(300000), 1), gc("License Agreement", "USD", fp(250000), 1),
			gc("Sponsorship", "USD", fp(100000), 1), gc("Endorsement", "USD", fp(75000), 1), gc("Franchise", "USD", fp(50000), 1),
			gc("Other", "", nil, 1), gc("License Agreement", "", nil, 1), gc("Distributor", "", nil, 1),
		}}},
		{"type avg amount per currency asc, nulls last", graph.AggregateQuery{GroupBy: graph.GroupContractType, Metric: graph.MetricAvgAmount, Asc: true, Limit: 100}, graph.AggregateResult{TotalGroups: 12, Groups: []graph.Group{
			gc("Franchise", "USD", fp(50000), 1), gc("Endorsement", "USD", fp(75000), 1), gc("Sponsorship", "USD", fp(100000), 1),
			gc("License Agreement", "USD", fp(250000), 1), gc("Sponsorship", "CAD", fp(300000), 1), gc("Supply", "USD", fp(1000000), 1),
			gc("Joint Venture", "EUR", fp(5000000), 1), gc("Service", "GBP", fp(5000000), 1), gc("Joint Venture", "USD", fp(20000000), 1),
			gc("Distributor", "", nil, 1), gc("License Agreement", "", nil, 1), gc("Other", "", nil, 1),
		}}},
		{"US state", graph.AggregateQuery{Filter: graph.Filter{GoverningLawCountry: "US"}, GroupBy: graph.GroupGoverningLawState, Metric: graph.MetricCount, Limit: 3}, graph.AggregateResult{TotalGroups: 3, Groups: []graph.Group{
			g("NY", fp(3), 3), g("DE", fp(2), 2), g("CA", fp(2), 2),
		}}},
		{"state leaves out stateless", graph.AggregateQuery{GroupBy: graph.GroupGoverningLawState, Metric: graph.MetricCount, Limit: 10}, graph.AggregateResult{TotalGroups: 3, Groups: []graph.Group{
			g("NY", fp(3), 3), g("DE", fp(2), 2), g("CA", fp(2), 2),
		}}},
		{"law country", graph.AggregateQuery{GroupBy: graph.GroupGoverningLawCountry, Metric: graph.MetricCount, Limit: 10}, graph.AggregateResult{TotalGroups: 3, Groups: []graph.Group{
			g("US", fp(7), 7), g("GB", fp(1), 1), g("CN", fp(1), 1),
		}}},
		{"party counts distinct contracts", graph.AggregateQuery{GroupBy: graph.GroupParty, Metric: graph.MetricCount, Limit: 3}, graph.AggregateResult{TotalGroups: 13, Groups: []graph.Group{
			g("ACME Corporation", fp(5), 5), g("Iota Events", fp(2), 2), g("Gamma Limited", fp(2), 2),
		}}},
		{"party sum over distinct contracts, per currency", graph.AggregateQuery{Filter: graph.Filter{Parties: []string{"iota"}}, GroupBy: graph.GroupParty, Metric: graph.MetricSumAmount, Limit: 10}, graph.AggregateResult{TotalGroups: 4, Groups: []graph.Group{
			gc("Kappa Pty Ltd", "CAD", fp(300000), 1), gc("Iota Events", "CAD", fp(300000), 1), gc("Iota Events", "USD", fp(100000), 1), gc("ACME Corporation", "USD", fp(100000), 1),
		}}},
		{"party sum in one currency", graph.AggregateQuery{Filter: graph.Filter{Parties: []string{"iota"}, Currency: "CAD"}, GroupBy: graph.GroupParty, Metric: graph.MetricSumAmount, Limit: 10}, graph.AggregateResult{TotalGroups: 2, Groups: []graph.Group{
			gc("Kappa Pty Ltd", "CAD", fp(300000), 1), gc("Iota Events", "CAD", fp(300000), 1),
		}}},
		{"party country", graph.AggregateQuery{GroupBy: graph.GroupPartyCountry, Metric: graph.MetricCount, Limit: 10}, graph.AggregateResult{TotalGroups: 7, Groups: []graph.Group{
			g("US", fp(8), 8), g("GB", fp(2), 2), g("DE", fp(2), 2), g("CN", fp(2), 2), g("CA", fp(2), 2), g("FR", fp(1), 1), g("AU", fp(1), 1),
		}}},
		{"clause type", graph.AggregateQuery{GroupBy: graph.GroupClauseType, Metric: graph.MetricCount, Limit: 10}, graph.AggregateResult{TotalGroups: 5, Groups: []graph.Group{
			g("Renewal & Termination", fp(2), 2), g("Liability & Indemnification", fp(2), 2), g("Confidentiality & Non-Disclosure", fp(2), 2),
			g("Cap On Liability", fp(2), 2), g("Non-Compete & Exclusivity", fp(1), 1),
		}}},
		{"effective year", graph.AggregateQuery{GroupBy: graph.GroupEffectiveYear, Metric: graph.MetricCount, Limit: 3}, graph.AggregateResult{TotalGroups: 8, Groups: []graph.Group{
			g("2019", fp(4), 4), g("2021", fp(1), 1), g("2018", fp(1), 1),
		}}},
		{"effective quarter", graph.AggregateQuery{GroupBy: graph.GroupEffectiveQuarter, Metric: graph.MetricCount, Limit: 3}, graph.AggregateResult{TotalGroups: 8, Groups: []graph.Group{
			g("2019-Q4", fp(4), 4), g("2021-Q1", fp(1), 1), g("2018-Q1", fp(1), 1),
		}}},
		{"effective quarter asc", graph.AggregateQuery{GroupBy: graph.GroupEffectiveQuarter, Metric: graph.MetricCount, Asc: true, Limit: 5}, graph.AggregateResult{TotalGroups: 8, Groups: []graph.Group{
			g("2005-Q1", fp(1), 1), g("2008-Q1", fp(1), 1), g("2010-Q2", fp(1), 1), g("2015-Q3", fp(1), 1), g("2016-Q1", fp(1), 1),
		}}},
		{"effective month", graph.AggregateQuery{GroupBy: graph.GroupEffectiveMonth, Metric: graph.MetricCount, Limit: 2}, graph.AggregateResult{TotalGroups: 10, Groups: []graph.Group{
			g("2019-11", fp(2), 2), g("2021-02", fp(1), 1),
		}}},
		{"end year", graph.AggregateQuery{GroupBy: graph.GroupEndYear, Metric: graph.MetricCount, Limit: 2}, graph.AggregateResult{TotalGroups: 7, Groups: []graph.Group{
			g("2020", fp(3), 3), g("2030", fp(1), 1),
		}}},
		// CAD 300,000 and USD 100,000 are not 400,000 of anything.
		{"sum one type: one value per currency", graph.AggregateQuery{Filter: graph.Filter{ContractType: "Sponsorship"}, Metric: graph.MetricSumAmount}, graph.AggregateResult{TotalGroups: 2, Groups: []graph.Group{
			gc("all", "CAD", fp(300000), 1), gc("all", "USD", fp(100000), 1),
		}}},
		{"sum all: one value per currency; contracts without an amount in no currency", graph.AggregateQuery{Metric: graph.MetricSumAmount, Limit: 10}, graph.AggregateResult{TotalGroups: 5, Groups: []graph.Group{
			gc("all", "USD", fp(21475000), 6), gc("all", "EUR", fp(5000000), 1), gc("all", "GBP", fp(5000000), 1), gc("all", "CAD", fp(300000), 1), gc("all", "", nil, 3),
		}}},
		{"sum all, limited", graph.AggregateQuery{Metric: graph.MetricSumAmount, Limit: 1}, graph.AggregateResult{TotalGroups: 5, Groups: []graph.Group{
			gc("all", "USD", fp(21475000), 6),
		}}},
		{"sum in one currency", graph.AggregateQuery{Filter: graph.Filter{Currency: "EUR"}, Metric: graph.MetricSumAmount}, graph.AggregateResult{TotalGroups: 1, Groups: []graph.Group{
			gc("all", "EUR", fp(5000000), 1),
		}}},
		{"min amount per currency", graph.AggregateQuery{Metric: graph.MetricMinAmount}, graph.AggregateResult{TotalGroups: 5, Groups: []graph.Group{
			gc("all", "EUR", fp(5000000), 1), gc("all", "GBP", fp(5000000), 1), gc("all", "CAD", fp(300000), 1), gc("all", "USD", fp(50000), 6), gc("all", "", nil, 3),
		}}},
		{"max amount", graph.AggregateQuery{Filter: graph.Filter{ContractType: "Service"}, Metric: graph.MetricMaxAmount}, graph.AggregateResult{TotalGroups: 1, Groups: []graph.Group{gc("all", "GBP", fp(5000000), 1)}}},
		{"avg days", graph.AggregateQuery{Filter: graph.Filter{ContractType: "Franchise"}, Metric: graph.MetricAvgDurationDays}, graph.AggregateResult{TotalGroups: 1, Groups: []graph.Group{g("all", fp(3652), 1)}}},
		{"avg days all", graph.AggregateQuery{Metric: graph.MetricAvgDurationDays}, graph.AggregateResult{TotalGroups: 1, Groups: []graph.Group{g("all", fp(12445.0/9), 12)}}},
		{"min days", graph.AggregateQuery{Metric: graph.MetricMinDurationDays}, graph.AggregateResult{TotalGroups: 1, Groups: []graph.Group{g("all", fp(41), 12)}}},
		{"max days", graph.AggregateQuery{Metric: graph.MetricMaxDurationDays}, graph.AggregateResult{TotalGroups: 1, Groups: []graph.Group{g("all", fp(5478), 12)}}},
		{"no match counts zero", graph.AggregateQuery{Filter: graph.Filter{ContractType: "Hosting"}, Metric: graph.MetricCount}, graph.AggregateResult{TotalGroups: 1, Groups: []graph.Group{g("all", fp(0), 0)}}},
		{"no match has no sum", graph.AggregateQuery{Filter: graph.Filter{ContractType: "Hosting"}, Metric: graph.MetricSumAmount}, graph.AggregateResult{TotalGroups: 1, Groups: []graph.Group{gc("all", "", nil, 0)}}},
		{"no match no groups", graph.AggregateQuery{Filter: graph.Filter{ContractType: "Hosting"}, GroupBy: graph.GroupParty, Metric: graph.MetricCount}, graph.AggregateResult{TotalGroups: 0, Groups: []graph.Group{}}},
		{"excite-style party filter by type", graph.AggregateQuery{Filter: graph.Filter{Parties: []string{"Acme"}}, GroupBy: graph.GroupContractType, Metric: graph.MetricCount, Limit: 100}, graph.AggregateResult{TotalGroups: 5, Groups: []graph.Group{
			g("Supply", fp(1), 1), g("Sponsorship", fp(1), 1), g("License Agreement", fp(1), 1), g("Endorsement", fp(1), 1), g("Distributor", fp(1), 1),
		}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.q.Limit == 0 {
				tc.q.Limit = 10
			}
			got, err := s.AggregateContracts(ctx, tc.q)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got, cmp.Comparer(approxEqual)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func approxEqual(a, b float64) bool {
	return a == b || math.Abs(a-b) <= 1e-9*math.Max(math.Abs(a), math.Abs(b))
}

func testParties(t *testing.T, s graph.Store) {
	ctx := context.Background()
	names := func(r graph.PartyResult) []string {
		out := []string{}
		for _, p := range r.Examples {
			out = append(out, p.Name)
		}
		return out
	}
	for _, tc := range []struct {
		name  string
		q     graph.PartyQuery
		want  []string
		total int
	}{
		{"by name", graph.PartyQuery{Name: "ACME"}, []string{"ACME Corporation"}, 1},
		{"by alias", graph.PartyQuery{Name: "acme inc"}, []string{"ACME Corporation"}, 1},
		{"by displaced first spelling", graph.PartyQuery{Name: "Gamma Ltd"}, []string{"Gamma Limited"}, 1},
		{"sql injection", graph.PartyQuery{Name: "'); DROP TABLE"}, []string{sqlInjection}, 1},
		{"cypher injection", graph.PartyQuery{Name: "detach delete"}, []string{cypherInjection}, 1},
		{"unicode", graph.PartyQuery{Name: "société"}, []string{unicodeName}, 1},
		{"country", graph.PartyQuery{Country: "CA"}, []string{"Iota Events"}, 1},
		{"country US", graph.PartyQuery{Country: "US", Limit: 50}, []string{"ACME Corporation", "Epsilon LLC", sqlInjection, "Lambda Sports", cypherInjection, "Zeta Franchising Co."}, 6},
		{"min contracts", graph.PartyQuery{MinContracts: 2, Limit: 20}, []string{"ACME Corporation", "Beta GmbH", "Delta Inc.", "Epsilon LLC", "Gamma Limited", "Iota Events"}, 6},
		{"min contracts limit", graph.PartyQuery{MinContracts: 2, Limit: 2}, []string{"ACME Corporation", "Beta GmbH"}, 6},
		{"contract type", graph.PartyQuery{ContractType: "Sponsorship"}, []string{"ACME Corporation", "Iota Events", "Kappa Pty Ltd"}, 3},
		{"by name order", graph.PartyQuery{OrderBy: "name", Limit: 3}, []string{sqlInjection, "ACME Corporation", backslashQuotes}, 13},
		{"by name desc", graph.PartyQuery{OrderBy: "name", Desc: true, Limit: 2}, []string{"Zeta Franchising Co.", unicodeName}, 13},
		{"none", graph.PartyQuery{Name: "nobody at all"}, []string{}, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.q.Limit == 0 {
				tc.q.Limit = 10
			}
			r, err := s.SearchParties(ctx, tc.q)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, names(r)); diff != "" {
				t.Errorf("names (-want +got):\n%s", diff)
			}
			if r.TotalCount != tc.total {
				t.Errorf("total_count = %d, want %d", r.TotalCount, tc.total)
			}
		})
	}
	r, err := s.SearchParties(ctx, graph.PartyQuery{Name: "acme", Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	c01, err := s.GetContract(ctx, "c01")
	if err != nil {
		t.Fatal(err)
	}
	want := []graph.PartySummary{{
		PartyID: c01.Parties[0].PartyID, Name: "ACME Corporation", Aliases: []string{"Acme Corp.", "Acme, Inc."},
		Country: "US", ContractCount: 5,
		ContractTypes: []string{"Distributor", "Endorsement", "License Agreement", "Sponsorship", "Supply"},
	}}
	if diff := cmp.Diff(want, r.Examples); diff != "" {
		t.Errorf("Acme summary (-want +got):\n%s", diff)
	}
	r, err = s.SearchParties(ctx, graph.PartyQuery{Name: "iota", Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Examples) != 1 || r.Examples[0].ContractCount != 2 || !cmp.Equal(r.Examples[0].Aliases, []string{"IOTA EVENTS"}) {
		t.Errorf("Iota summary = %+v, want 2 contracts and alias IOTA EVENTS", r.Examples)
	}
}

func testClauses(t *testing.T, s graph.Store) {
	ctx := context.Background()
	hits := func(q graph.ClauseQuery) []graph.ClauseHit {
		t.Helper()
		if q.Limit == 0 {
			q.Limit = 50
		}
		h, err := s.SearchClauses(ctx, q)
		if err != nil {
			t.Fatalf("SearchClauses(%+v): %v", q, err)
		}
		for i := 1; i < len(h); i++ {
			if h[i].Score > h[i-1].Score {
				t.Errorf("hit %d scores %v above hit %d's %v", i, h[i].Score, i-1, h[i-1].Score)
			}
		}
		for i, x := range h {
			if x.Score <= 0 {
				t.Errorf("hit %d has score %v, want > 0", i, x.Score)
			}
		}
		return h
	}
	type key struct{ contract, typ, text string }
	keys := func(h []graph.ClauseHit) []key {
		out := []key{}
		for _, x := range h {
			out = append(out, key{x.ContractID, x.ClauseType, x.Passage()})
		}
		return out
	}
	sorted := func(ks []key) []key {
		sort.Slice(ks, func(i, j int) bool {
			if ks[i].contract != ks[j].contract {
				return ks[i].contract < ks[j].contract
			}
			return ks[i].text < ks[j].text
		})
		return ks
	}
	c02Clause := "Each party shall keep the other party's confidential information secret for five years."

	// Both words beat one word.
	h := hits(graph.ClauseQuery{Query: "confidential information"})
	start, end := span(textC02, c02Clause)
	if len(h) != 2 {
		t.Fatalf("confidential information: %d hits %+v, want 2", len(h), h)
	}
	if diff := cmp.Diff(graph.ClauseHit{ContractID: "c02", ClauseType: "Confidentiality & Non-Disclosure", Text: c02Clause, Start: start, End: end, Verified: true},
		h[0], cmp.FilterPath(func(p cmp.Path) bool {
			sf, ok := p.Last().(cmp.StructField)
			return ok && (sf.Name() == "Score" || sf.Name() == "ClauseID")
		}, cmp.Ignore())); diff != "" {
		t.Errorf("first hit (-want +got):\n%s", diff)
	}
	if h[0].ClauseID == "" {
		t.Error("clause hit has no clause id")
	}
	if diff := cmp.Diff(key{"c04", "Confidentiality & Non-Disclosure", "Provider keeps customer data confidential."}, keys(h)[1], cmp.AllowUnexported(key{})); diff != "" {
		t.Errorf("second hit, a summary-only clause (-want +got):\n%s", diff)
	}
	if h[1].Verified || h[1].Start != 0 || h[1].End != 0 || h[1].Text != "" || !h[1].SummaryOnly() {
		t.Errorf("summary-only clause hit has text or a span, or is not marked as a summary: %+v", h[1])
	}

	liability := []key{
		{"c01", "", "2. Liability. The total liability of the Supplier shall not exceed the fees paid."},
		{"c01", "Cap On Liability", "The total liability of the Supplier shall not exceed the fees paid."},
		{"c03", "Liability & Indemnification", "Supplier indemnifies distributor against product liability claims."},
		{"c06", "Liability & Indemnification", "Each partner indemnifies the other for liability from its own negligence."},
		{"c09", "Cap On Liability", "Sponsor liability is capped at the sponsorship fee."},
	}
	for _, tc := range []struct {
		name string
		q    graph.ClauseQuery
		want []key
	}{
		{"clauses and chunks", graph.ClauseQuery{Query: "liability"}, liability},
		{"FTS syntax is text", graph.ClauseQuery{Query: "NEAR(liability"}, liability},
		{"clause group", graph.ClauseQuery{Query: "liability", ClauseTypes: []string{"Liability & Indemnification"}}, liability[1:]},
		{"clause type", graph.ClauseQuery{Query: "liability", ClauseTypes: []string{"Cap On Liability"}}, []key{liability[1], liability[4]}},
		{"one contract", graph.ClauseQuery{Query: "liability", Filter: graph.Filter{ContractIDs: []string{"c01"}}}, liability[:2]},
		{"contract filter", graph.ClauseQuery{Query: "liability", Filter: graph.Filter{ContractType: "Sponsorship"}}, liability[4:]},
		{"injection", graph.ClauseQuery{Query: "'); DROP TABLE clauses; --"}, []key{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := sorted(keys(hits(tc.q)))
			if diff := cmp.Diff(tc.want, got, cmp.AllowUnexported(key{})); diff != "" {
				t.Errorf("hits (-want +got):\n%s", diff)
			}
		})
	}
	// A chunk hit: the chunk holding the title ranks first.
	h = hits(graph.ClauseQuery{Query: "supply agreement", Limit: 1})
	chunk0 := Fixture()[0].Chunks[0]
	if len(h) != 1 || h[0].ContractID != "c01" || h[0].Text != chunk0.Text || h[0].Start != chunk0.Start || h[0].End != chunk0.End || !h[0].Verified || h[0].ClauseType != "" {
		t.Errorf("supply agreement: %+v, want c01's first chunk, verified", h)
	}
	if _, err := s.SearchClauses(ctx, graph.ClauseQuery{Query: "  !!! ", Limit: 5}); err == nil {
		t.Error("a query without words was accepted")
	}
}

func testStats(t *testing.T, s graph.Store) {
	got, err := s.Stats(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	want := graph.Stats{
		Nodes: map[string]int{"Contract": 12, "Party": 13, "Location": 11, "Clause": 9, "Chunk": 2, "Statute": 0},
		Relationships: map[string]int{
			"PARTY_TO": 23, "HAS_LOCATION": 13, "HAS_GOVERNING_LAW": 9, "HAS_CLAUSE": 9, "HAS_CHUNK": 2,
		},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Stats (-want +got):\n%s", diff)
	}
}

func testInvalidQueries(t *testing.T, s graph.Store) {
	ctx := context.Background()
	active := true
	bad := []struct {
		name string
		run  func() error
	}{
		{"unknown order_by", func() error {
			_, err := s.SearchContracts(ctx, graph.ContractQuery{OrderBy: "title; DROP TABLE contracts", Limit: 5})
			return err
		}},
		{"unknown monetary operator", func() error {
			_, err := s.SearchContracts(ctx, graph.ContractQuery{Filter: graph.Filter{Monetary: &graph.Monetary{Op: "!=", Value: fp(1)}}, Limit: 5})
			return err
		}},
		{"monetary value missing", func() error {
			_, err := s.SearchContracts(ctx, graph.ContractQuery{Filter: graph.Filter{Monetary: &graph.Monetary{Op: "="}}, Limit: 5})
			return err
		}},
		{"active without as_of", func() error {
			_, err := s.SearchContracts(ctx, graph.ContractQuery{Filter: graph.Filter{Active: &active}, Limit: 5})
			return err
		}},
		{"summary search without words", func() error {
			_, err := s.SearchContracts(ctx, graph.ContractQuery{Filter: graph.Filter{SummarySearch: "?!"}, Limit: 5})
			return err
		}},
		{"unknown group_by", func() error {
			_, err := s.AggregateContracts(ctx, graph.AggregateQuery{GroupBy: "id", Metric: graph.MetricCount, Limit: 5})
			return err
		}},
		{"unknown metric", func() error {
			_, err := s.AggregateContracts(ctx, graph.AggregateQuery{Metric: "sum(total_amount)", Limit: 5})
			return err
		}},
		{"aggregate limit 101", func() error {
			_, err := s.AggregateContracts(ctx, graph.AggregateQuery{Limit: graph.AggregateLimits.Max + 1})
			return err
		}},
		{"unknown party order", func() error {
			_, err := s.SearchParties(ctx, graph.PartyQuery{OrderBy: "pk", Limit: 5})
			return err
		}},
		{"party limit 51", func() error {
			_, err := s.SearchParties(ctx, graph.PartyQuery{Limit: graph.PartyLimits.Max + 1})
			return err
		}},
		{"contract limit 51", func() error {
			_, err := s.SearchContracts(ctx, graph.ContractQuery{Limit: graph.ContractLimits.Max + 1})
			return err
		}},
		{"offset -1", func() error {
			_, err := s.SearchContracts(ctx, graph.ContractQuery{Limit: 5, Offset: -1})
			return err
		}},
		{"offset past the maximum", func() error {
			_, err := s.SearchContracts(ctx, graph.ContractQuery{Limit: 5, Offset: graph.MaxOffset + 1})
			return err
		}},
		{"clause search without words", func() error {
			_, err := s.SearchClauses(ctx, graph.ClauseQuery{Query: "...", Limit: 5})
			return err
		}},
		{"clause limit past the candidates", func() error {
			_, err := s.SearchClauses(ctx, graph.ClauseQuery{Query: "liability", Limit: graph.MaxClauseCandidates + 1})
			return err
		}},
	}
	if vs, ok := s.(graph.VectorStore); ok {
		bad = append(bad, struct {
			name string
			run  func() error
		}{"zero query vector", func() error {
			_, err := vs.SearchVectors(ctx, graph.VectorQuery{Vector: make([]float32, 3), Limit: 5})
			return err
		}})
	}
	for _, b := range bad {
		err := b.run()
		switch {
		case err == nil:
			t.Errorf("%s: accepted", b.name)
		case !errors.Is(err, graph.ErrInvalidQuery):
			t.Errorf("%s: %v does not match graph.ErrInvalidQuery, so the edges would report it as an internal error", b.name, err)
		}
	}
}

func statuses(out []graph.PutOutcome) []string {
	var s []string
	for _, o := range out {
		s = append(s, o.ID+":"+string(o.Status))
	}
	return s
}

// partyView is what the tools show of parties: party_search rows and
// contract_aggregate's group_by party keys.
type partyView struct {
	Parties []graph.PartySummary
	Groups  []graph.Group
}

// testPartyNameOrder puts the fixture into fresh stores in different orders
// (all at once, reversed, reversed one contract per call) and checks that
// every party is shown under the same name with the same aliases: a party's
// canonical name is contract.PreferredName of its spellings, whichever the
// store saw first. Each store lives in its own subtest, since some backends
// allow one open test store at a time.
func testPartyNameOrder(t *testing.T, open func(t *testing.T) graph.Store) {
	view := func(t *testing.T, batches [][]*contract.Contract) partyView {
		t.Helper()
		ctx := context.Background()
		s := open(t)
		t.Cleanup(func() { s.Close() })
		for _, b := range batches {
			out, err := s.PutContracts(ctx, b)
			if err != nil {
				t.Fatalf("put: %v", err)
			}
			for _, o := range out {
				if o.Status != graph.PutCreated {
					t.Fatalf("put %s: %s (%v), want created", o.ID, o.Status, o.Err)
				}
			}
		}
		ps, err := s.SearchParties(ctx, graph.PartyQuery{OrderBy: "name", Limit: 50})
		if err != nil {
			t.Fatal(err)
		}
		ag, err := s.AggregateContracts(ctx, graph.AggregateQuery{GroupBy: graph.GroupParty, Metric: graph.MetricCount, Limit: 100})
		if err != nil {
			t.Fatal(err)
		}
		return partyView{Parties: ps.Examples, Groups: ag.Groups}
	}
	reversed := func() []*contract.Contract {
		cs := Fixture()
		for i, j := 0, len(cs)-1; i < j; i, j = i+1, j-1 {
			cs[i], cs[j] = cs[j], cs[i]
		}
		return cs
	}
	orders := []struct {
		name    string
		batches func() [][]*contract.Contract
	}{
		{"fixture order", func() [][]*contract.Contract { return [][]*contract.Contract{Fixture()} }},
		{"reversed", func() [][]*contract.Contract { return [][]*contract.Contract{reversed()} }},
		{"reversed one by one", func() [][]*contract.Contract {
			var bs [][]*contract.Contract
			for _, c := range reversed() {
				bs = append(bs, []*contract.Contract{c})
			}
			return bs
		}},
	}
	views := make([]partyView, len(orders))
	for i, o := range orders {
		got := false
		if !t.Run(o.name, func(t *testing.T) { views[i], got = view(t, o.batches()), true }) {
			return
		}
		if !got { // open skipped the subtest
			t.Skip("no store to compare")
		}
	}
	// The names PreferredName picks for the merged parties, in any order.
	want := map[string][]string{
		"ACME Corporation": {"Acme Corp.", "Acme, Inc."},
		"Gamma Limited":    {"Gamma Ltd"},
		"Delta Inc.":       {"Delta Inc"},
		"Iota Events":      {"IOTA EVENTS"},
	}
	got := map[string][]string{}
	for _, p := range views[0].Parties {
		if _, ok := want[p.Name]; ok {
			got[p.Name] = p.Aliases
		}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("merged parties' names and aliases (-want +got):\n%s", diff)
	}
	for i := 1; i < len(views); i++ {
		if diff := cmp.Diff(views[0], views[i]); diff != "" {
			t.Errorf("parties after putting the fixture %s differ from %s (-%s +%s):\n%s",
				orders[i].name, orders[0].name, orders[0].name, orders[i].name, diff)
		}
	}
}

func testIdempotent(t *testing.T, s graph.Store) {
	ctx := context.Background()
	before, err := s.Stats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	out, err := s.PutContracts(ctx, Fixture())
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range out {
		if o.Status != graph.PutUnchanged {
			t.Errorf("re-put %s: %s (%v), want unchanged", o.ID, o.Status, o.Err)
		}
	}
	// Putting back what GetContract returns is also a no-op.
	c, err := s.GetContract(ctx, "c09")
	if err != nil {
		t.Fatal(err)
	}
	out, err = s.PutContracts(ctx, []*contract.Contract{c})
	if err != nil {
		t.Fatal(err)
	}
	if out[0].Status != graph.PutUnchanged {
		t.Errorf("re-put of GetContract(c09): %s (%v), want unchanged", out[0].Status, out[0].Err)
	}
	after, err := s.Stats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(before, after); diff != "" {
		t.Errorf("re-put changed the stats (-before +after):\n%s", diff)
	}
}

func testUpdate(t *testing.T, s graph.Store) {
	ctx := context.Background()
	fx := Fixture()
	c08 := fx[7]
	c08.TotalAmount = floatp(150000)
	c08.Parties = []contract.PartyRole{role("Omega Ltd", "Sponsor", "US"), role("Iota Events", "Event", "CA")}
	c08.Clauses = []contract.Clause{summaryClause("Insurance", "Sponsor carries event insurance.")}
	c11 := fx[10]
	c11.Parties = []contract.PartyRole{role("Lambda Athletics", "Endorser", "US"), role("Acme Corp.", "Company", "US")}
	out, err := s.PutContracts(ctx, []*contract.Contract{fx[0], c08, c11})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"c01:unchanged", "c08:updated", "c11:updated"}, statuses(out)); diff != "" {
		t.Fatalf("outcomes (-want +got):\n%s", diff)
	}
	got, err := s.GetContract(ctx, "c08")
	if err != nil {
		t.Fatal(err)
	}
	if *got.TotalAmount != 150000 || len(got.Parties) != 2 || got.Parties[0].Name != "Omega Ltd" ||
		len(got.Clauses) != 1 || got.Clauses[0].Type != "Insurance" || got.Clauses[0].Group != contract.GroupLiability {
		t.Errorf("updated c08 = %+v", got)
	}
	// The old version's roles and clauses are gone.
	if r := search(t, s, graph.ContractQuery{Filter: graph.Filter{Parties: []string{"acme"}}}); !cmp.Equal(ids(r), []string{"c01", "c02", "c11", "c03"}) {
		t.Errorf("acme contracts after update = %v", ids(r))
	}
	if r := search(t, s, graph.ContractQuery{Filter: graph.Filter{ClauseTypes: []string{"Insurance"}}}); !cmp.Equal(ids(r), []string{"c08"}) {
		t.Errorf("insurance contracts after update = %v", ids(r))
	}
	// A party left without contracts is gone; its replacement is there.
	r, err := s.SearchParties(ctx, graph.PartyQuery{Name: "lambda", Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Examples) != 1 || r.Examples[0].Name != "Lambda Athletics" || r.TotalCount != 1 {
		t.Errorf("lambda parties after update = %+v", r)
	}
	st, err := s.Stats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	// Party: 13 - Lambda Sports + Lambda Athletics + Omega. Clause: 9 + 1.
	if st.Nodes["Party"] != 14 || st.Nodes["Clause"] != 10 || st.Nodes["Contract"] != 12 || st.Relationships["PARTY_TO"] != 23 {
		t.Errorf("stats after update = %+v", st)
	}
	if h, err := s.SearchClauses(ctx, graph.ClauseQuery{Query: "insurance", Limit: 5}); err != nil || len(h) != 1 || h[0].ContractID != "c08" {
		t.Errorf("clause search for the new clause = %+v, %v", h, err)
	}
}

func testAtomicFailure(t *testing.T, s graph.Store) {
	ctx := context.Background()
	before, err := s.Stats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	good1 := &contract.Contract{ID: "n1", ContractType: "Service", Parties: []contract.PartyRole{role("Nu Services", "Provider", "US")}}
	badSpan := &contract.Contract{ID: "n2", ContractType: "Service", Text: "short",
		Parties: []contract.PartyRole{role("Xi Unique Holdings", "Customer", "NZ")},
		Clauses: []contract.Clause{{Type: "Insurance", Text: "beyond", Start: 2, End: 40}}}
	noID := &contract.Contract{ContractType: "Service", Parties: []contract.PartyRole{role("Omicron Nameless", "Provider", "US")}}
	badDate := &contract.Contract{ID: "n4", EffectiveDate: "2019-02-30", Parties: []contract.PartyRole{role("Pi Dated", "Provider", "US")}}
	good2 := &contract.Contract{ID: "n5", ContractType: "Service", Parties: []contract.PartyRole{role("Nu Services Inc.", "Provider", "US")}}
	// An update that fails leaves the stored version as it was.
	badUpdate := Fixture()[0]
	badUpdate.Title = "Changed"
	badUpdate.Clauses[0].Start = -1
	out, err := s.PutContracts(ctx, []*contract.Contract{good1, badSpan, noID, badDate, good2, badUpdate})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"n1:created", "n2:failed", ":failed", "n4:failed", "n5:created", "c01:failed"}, statuses(out)); diff != "" {
		t.Fatalf("outcomes (-want +got):\n%s", diff)
	}
	for i, o := range out {
		if (o.Status == graph.PutFailed) != (o.Err != nil) {
			t.Errorf("outcome %d: status %s with err %v", i, o.Status, o.Err)
		}
	}
	for _, id := range []string{"n2", "n4"} {
		if _, err := s.GetContract(ctx, id); !errors.Is(err, graph.ErrNotFound) {
			t.Errorf("failed contract %s: GetContract err = %v, want ErrNotFound", id, err)
		}
	}
	for _, name := range []string{"xi unique", "omicron", "pi dated"} {
		if r, err := s.SearchParties(ctx, graph.PartyQuery{Name: name, Limit: 10}); err != nil || r.TotalCount != 0 {
			t.Errorf("party %q of a failed contract: %+v, %v", name, r, err)
		}
	}
	c01, err := s.GetContract(ctx, "c01")
	if err != nil {
		t.Fatal(err)
	}
	if c01.Title != "Supply Agreement" || c01.Clauses[0].Start != Fixture()[0].Clauses[0].Start {
		t.Errorf("c01 changed by a failed update: %+v", c01)
	}
	after, err := s.Stats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	// Only n1 and n5 were added: two contracts, one party (Nu Services), its
	// two roles, and no new location (US exists).
	before.Nodes["Contract"] += 2
	before.Nodes["Party"]++
	before.Relationships["PARTY_TO"] += 2
	before.Relationships["HAS_LOCATION"]++
	if diff := cmp.Diff(before, after); diff != "" {
		t.Errorf("stats (-want +got):\n%s", diff)
	}
}

func testCancelled(t *testing.T, s graph.Store) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := s.PutContracts(ctx, []*contract.Contract{{ID: "late", ContractType: "Other"}})
	if err == nil {
		t.Fatal("PutContracts with a cancelled context returned no error")
	}
	if _, err := s.GetContract(context.Background(), "late"); !errors.Is(err, graph.ErrNotFound) {
		t.Errorf("contract put under a cancelled context exists (err = %v)", err)
	}
}

func testConcurrent(t *testing.T, s graph.Store) {
	ctx := context.Background()
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := range 20 {
			c := &contract.Contract{ID: fmt.Sprintf("z%02d", i), ContractType: "Supply",
				Parties: []contract.PartyRole{role("Acme Corp.", "Supplier", "US")}}
			if _, err := s.PutContracts(ctx, []*contract.Contract{c}); err != nil {
				errs <- err
				return
			}
		}
	}()
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			prev := 0
			for range 20 {
				r, err := s.SearchContracts(ctx, graph.ContractQuery{Filter: graph.Filter{ContractType: "Supply"}, Limit: 5})
				if err != nil {
					errs <- err
					return
				}
				if r.TotalCount < prev || r.TotalCount < 1 || r.TotalCount > 21 {
					errs <- fmt.Errorf("supply count went from %d to %d", prev, r.TotalCount)
					return
				}
				prev = r.TotalCount
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if r := search(t, s, graph.ContractQuery{Filter: graph.Filter{ContractType: "Supply"}}); r.TotalCount != 21 {
		t.Errorf("supply contracts after concurrent puts = %d, want 21", r.TotalCount)
	}
}

func testEmpty(t *testing.T, s graph.Store) {
	ctx := context.Background()
	r := search(t, s, graph.ContractQuery{})
	if r.TotalCount != 0 || r.Examples == nil || len(r.Examples) != 0 {
		t.Errorf("empty store search = %+v, want zero with an empty (non-nil) list", r)
	}
	st, err := s.Stats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range st.Nodes {
		if v != 0 {
			t.Errorf("empty store has %d %s nodes", v, k)
		}
	}
	n := 0
	if err := s.Contracts(ctx, func(*contract.Contract) error { n++; return nil }); err != nil || n != 0 {
		t.Errorf("Contracts on an empty store: %d calls, err %v", n, err)
	}
	h, err := s.SearchClauses(ctx, graph.ClauseQuery{Query: "anything", Limit: 5})
	if err != nil || len(h) != 0 {
		t.Errorf("SearchClauses on an empty store = %v, %v", h, err)
	}
}
