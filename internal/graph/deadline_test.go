package graph_test

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/contractgraph/contractgraph/internal/contract"
	"github.com/contractgraph/contractgraph/internal/graph"
	"github.com/contractgraph/contractgraph/internal/graph/graphtest"
	"github.com/contractgraph/contractgraph/internal/synth"
)

// The bounds from a prepared contract are the bounds of its contract, with
// and without unverified timeline values.
func TestPreparedDeadlineBounds(t *testing.T) {
	cs := append(graphtest.Fixture(), graphtest.UnverifiedContract())
	if err := synth.Generate(3, 200, func(c *contract.Contract) error { cs = append(cs, c); return nil }); err != nil {
		t.Fatal(err)
	}
	withUnverified := 0
	for _, c := range cs {
		p, err := graph.Prepare(c)
		if err != nil {
			t.Fatal(err)
		}
		if len(p.Unverified) > 0 {
			withUnverified++
		}
		f1, l1 := graph.DeadlineBounds(p.Contract)
		f2, l2 := p.DeadlineBounds()
		if f1 != f2 || l1 != l2 {
			t.Errorf("%s: Prepared.DeadlineBounds = %q, %q, want %q, %q", c.ID, f2, l2, f1, l1)
		}
	}
	if withUnverified == 0 {
		t.Error("no contract with unverified values")
	}
}

// CollectDeadlines keeps only the first limit deadlines while it counts
// them; the page must be the one a stable sort of every deadline gives:
// by date, kind, contract id and term. Copies of contracts under other
// ids make many deadlines tie on date and kind.
func TestCollectDeadlinesMatchesFullSort(t *testing.T) {
	var cands []*contract.Contract
	if err := synth.Generate(5, 400, func(c *contract.Contract) error { cands = append(cands, c); return nil }); err != nil {
		t.Fatal(err)
	}
	for i, c := range slices.Clone(cands[:100]) {
		cp := *c
		cp.ID = fmt.Sprintf("copy%d-%s", i%3, c.ID) // sorts before c, though found after it
		cands = append(cands, &cp)
	}
	rank := func(k string) int { return slices.Index(contract.DeadlineKinds, k) }
	type hit struct{ id, kind, date, term string }
	reference := func(q graph.DeadlineQuery, limit int) ([]hit, int) {
		type dated struct {
			c *contract.Contract
			d contract.DatedDeadline
		}
		var all []dated
		for _, c := range cands {
			ds, err := contract.TimelineOf(c).DeadlineDates(q.From, q.To)
			if err != nil {
				t.Fatal(err)
			}
			for _, d := range ds {
				if len(q.Kinds) == 0 || slices.Contains(q.Kinds, d.Kind) {
					all = append(all, dated{c, d})
				}
			}
		}
		slices.SortStableFunc(all, func(a, b dated) int {
			return cmp.Or(a.d.Date.Compare(b.d.Date), rank(a.d.Kind)-rank(b.d.Kind), strings.Compare(a.c.ID, b.c.ID))
		})
		var out []hit
		for _, x := range all[:min(limit, len(all))] {
			d := contract.TimelineOf(x.c).Describe(x.d)
			out = append(out, hit{x.c.ID, d.Kind, d.Date, fmt.Sprint(d.Term)})
		}
		return out, len(all)
	}
	for _, q := range []graph.DeadlineQuery{
		{From: "2020-01-01", To: "2020-03-31"},
		{From: "2015-01-01", To: "2024-12-31"},
		{From: "2010-01-01", To: "2030-12-31", Kinds: []string{contract.DeadlineNotice}},
		{From: "2021-06-01", To: "2021-06-30", Kinds: []string{contract.DeadlineRenewal, contract.DeadlineExpiration}},
	} {
		for _, limit := range []int{1, 7, 20, 500} {
			wantHits, wantTotal := reference(q, limit)
			var loaded []int
			res, err := graph.CollectDeadlines(cands, q, limit, func(page []int) error { loaded = page; return nil })
			if err != nil {
				t.Fatal(err)
			}
			var got []hit
			for _, d := range res.Deadlines {
				got = append(got, hit{d.ContractID, d.Kind, d.Date, fmt.Sprint(d.Term)})
			}
			if !slices.Equal(got, wantHits) || res.TotalCount != wantTotal {
				t.Errorf("%s..%s %v limit %d: total %d (want %d)\n got %v\nwant %v", q.From, q.To, q.Kinds, limit, res.TotalCount, wantTotal, got, wantHits)
			}
			// load gets each returned deadline's contract once, in order.
			var ids []string
			for _, i := range loaded {
				ids = append(ids, cands[i].ID)
			}
			var want []string
			for _, h := range wantHits {
				if !slices.Contains(want, h.id) {
					want = append(want, h.id)
				}
			}
			if !slices.Equal(ids, want) {
				t.Errorf("%s..%s limit %d: loaded %v, want %v", q.From, q.To, limit, ids, want)
			}
		}
	}
}

// HasNoticeDeadline tests the dated deadlines; it must decide as the
// first notice deadline on or after the range's start (Timeline.AsOf),
// which the deadline tools describe, does.
func TestHasNoticeDeadlineAsOf(t *testing.T) {
	cs := append(graphtest.Fixture(), graphtest.UnverifiedContract())
	if err := synth.Generate(11, 3000, func(c *contract.Contract) error { cs = append(cs, c); return nil }); err != nil {
		t.Fatal(err)
	}
	ranges := [][2]string{{"2024-01-01", "2024-03-31"}, {"2020-01-01", "2020-12-31"}, {"2000-02-29", "2000-03-01"},
		{"1990-01-01", "2050-12-31"}, {"2021-06-15", "2021-06-15"}, {"2010-01-31", "2010-02-28"}, {"2021-09-14", "2021-09-14"}}
	yes := 0
	for _, c := range cs {
		for _, r := range ranges {
			got := graph.HasNoticeDeadline(c, r[0], r[1])
			d, err := contract.TimelineOf(c).AsOf(r[0])
			want := err == nil && d.NoticeDeadline.Known() && d.NoticeDeadline.Date <= r[1]
			if got != want {
				t.Errorf("%s from %s to %s: HasNoticeDeadline = %v, AsOf gives %v (end %s, renewal %s %s, notice %s, count %d)",
					c.ID, r[0], r[1], got, want, c.EndDate, c.RenewalKind, c.RenewalTerm, c.NoticePeriod, c.RenewalCount)
			}
			if got {
				yes++
			}
		}
	}
	if yes < 400 {
		t.Errorf("only %d of %d cases have a notice deadline: the test tells little", yes, len(cs)*len(ranges))
	}
}
