package graphtest

import (
	"context"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/contractgraph/contractgraph/internal/contract"
	"github.com/contractgraph/contractgraph/internal/graph"
)

// testDeadlines checks deadline_search on the Fixture's timelines (see
// Fixture) and grouping by renewal kind.
func testDeadlines(t *testing.T, s graph.Store) {
	ctx := context.Background()
	ds, ok := s.(graph.DeadlineSearcher)
	if !ok {
		t.Fatal("the store is no graph.DeadlineSearcher: deadline_search needs it on every backend")
	}
	type row struct{ ID, Kind, Date string }
	rows := func(r graph.DeadlineResult) []row {
		var out []row
		for _, d := range r.Deadlines {
			out = append(out, row{d.ContractID, d.Kind, d.Date})
		}
		return out
	}
	search := func(q graph.DeadlineQuery) graph.DeadlineResult {
		t.Helper()
		r, err := ds.SearchDeadlines(ctx, q)
		if err != nil {
			t.Fatalf("SearchDeadlines(%+v): %v", q, err)
		}
		return r
	}

	// 2020: c02 ends (renewal not stated), c05 renews automatically, c09's
	// option must be exercised by 2020-09-20 or it expires.
	r := search(graph.DeadlineQuery{From: "2020-01-01", To: "2020-12-31"})
	want := []row{{"c02", "expiration", "2020-02-29"}, {"c05", "renewal", "2020-05-04"}, {"c09", "notice", "2020-09-20"}, {"c09", "expiration", "2020-11-19"}}
	if diff := cmp.Diff(want, rows(r)); diff != "" || r.TotalCount != 4 {
		t.Errorf("2020 deadlines (-want +got), total %d:\n%s", r.TotalCount, diff)
	}

	// Acme's notice deadlines rolled forward, a page of two of three; each
	// cites its inputs with their evidence.
	r = search(graph.DeadlineQuery{Filter: graph.Filter{Parties: []string{"acme"}}, From: "2021-01-01", To: "2023-12-31",
		Kinds: []string{contract.DeadlineNotice}, Limit: 2})
	want = []row{{"c01", "notice", "2021-09-14"}, {"c01", "notice", "2022-09-14"}}
	if diff := cmp.Diff(want, rows(r)); diff != "" || r.TotalCount != 3 {
		t.Errorf("Acme notices (-want +got), total %d (want 3):\n%s", r.TotalCount, diff)
	}
	for _, d := range r.Deadlines {
		if d.Derivation == "" || d.Title != "Supply Agreement" || len(d.Parties) != 2 {
			t.Errorf("deadline %+v: want a derivation, the title and both parties", d)
		}
		var kind *contract.Fact
		for i := range d.From {
			if d.From[i].Field == contract.FieldRenewalKind {
				kind = &d.From[i]
			}
		}
		if kind == nil || kind.Evidence == nil || !kind.Evidence.Verified || kind.Evidence.Quote != "renews automatically for one year" {
			t.Errorf("deadline %s %s does not cite the renewal kind's evidence: %+v", d.Kind, d.Date, d.From)
		}
	}
	if r.Deadlines[1].Term != 1 {
		t.Errorf("2022-09-14 is the notice for term 1, got term %d", r.Deadlines[1].Term)
	}

	// Shared filters apply: only the option.
	r = search(graph.DeadlineQuery{Filter: graph.Filter{RenewalKind: contract.RenewalOption}, From: "2020-01-01", To: "2020-12-31"})
	if got := rows(r); len(got) != 2 || got[0].ID != "c09" || got[1].ID != "c09" {
		t.Errorf("option deadlines: %+v", got)
	}
	// A limited renewal ends: c05's third renewal term expires on 2035-05-04.
	r = search(graph.DeadlineQuery{Filter: graph.Filter{ContractIDs: []string{"c05"}}, From: "2030-01-01", To: "2036-12-31"})
	if got := rows(r); len(got) != 2 || got[0] != (row{"c05", "renewal", "2030-05-04"}) || got[1] != (row{"c05", "expiration", "2035-05-04"}) {
		t.Errorf("c05 after 2030: %+v, want its last renewal and its expiration", got)
	}

	for _, bad := range []graph.DeadlineQuery{
		{From: "2020-12-31", To: "2020-01-01"},
		{From: "2020-01-01", To: "2020-12-31", Kinds: []string{"birthday"}},
		{From: "2020-01-01", To: "2040-01-01"},
		{From: "2020-01-01", To: "2020-12-31", Limit: graph.DeadlineLimits.Max + 1},
		{From: "2020-1-1", To: "2020-12-31"},
	} {
		if _, err := ds.SearchDeadlines(ctx, bad); !errors.Is(err, graph.ErrInvalidQuery) {
			t.Errorf("SearchDeadlines(%+v) = %v, want ErrInvalidQuery", bad, err)
		}
	}

	agg, err := s.AggregateContracts(ctx, graph.AggregateQuery{GroupBy: graph.GroupRenewalKind, Metric: graph.MetricCount})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]int{}
	for _, g := range agg.Groups {
		got[g.Key] = g.Count
	}
	if diff := cmp.Diff(map[string]int{"automatic": 2, "option": 1, "none": 1}, got); diff != "" || agg.TotalGroups != 3 {
		t.Errorf("group by renewal_kind (-want +got), %d groups:\n%s", agg.TotalGroups, diff)
	}
}
