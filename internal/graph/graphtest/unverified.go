package graphtest

import (
	"context"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/contractgraph/contractgraph/internal/contract"
	"github.com/contractgraph/contractgraph/internal/graph"
)

// textC13 is the text of c13, the contract of invented values: none of its
// evidence quotes but Nu's name are in it.
const textC13 = "SPONSORSHIP NOTE. Nu Sponsorship Partners records a sponsorship discussion."

// unverifiedEvidence is evidence whose quote is not in the text.
func unverifiedEvidence(field, value, quote string) contract.Evidence {
	return contract.Evidence{Field: field, Value: value, Quote: quote}
}

// UnverifiedContract returns c13, a contract whose values an extraction
// invented (every evidence quote but Nu's name is missing from its text):
// contract type, effective date (2099-03-03), duration, the end date
// worked out from them (2100-03-03, without evidence of its own), amount
// with currency, governing law, renewal kind and the party Acme Phantom
// Holdings (located in Canada) are unverified; Nu Sponsorship Partners
// (New Zealand) is verified, and the renewal term and notice period, which
// have no evidence, are not flagged. Every FilterCases case but
// include_unverified would keep it if it read unverified values.
func UnverifiedContract() *contract.Contract {
	nu, nuEnd := span(textC13, "Nu Sponsorship Partners")
	return &contract.Contract{
		ID: "c13", Title: "Sponsorship Note", ContractType: "Sponsorship", Summary: "Phantom sponsorship note.",
		EffectiveDate: "2099-03-03", EndDate: "2100-03-03", Duration: "P1Y", DurationDays: intp(365),
		TotalAmount: floatp(9000000000), Currency: "GBP", GoverningLaw: law("US", "CA"),
		RenewalKind: contract.RenewalAutomatic, RenewalTerm: "P1Y", NoticePeriod: "P30D",
		Parties: []contract.PartyRole{
			role("Acme Phantom Holdings", "Sponsor", "CA"),
			role("Nu Sponsorship Partners", "Organizer", "NZ"),
		},
		Evidence: []contract.Evidence{
			unverifiedEvidence("contract_type", "Sponsorship", "a sponsorship agreement"),
			unverifiedEvidence("effective_date", "2099-03-03", "effective as of March 3, 2099"),
			unverifiedEvidence("duration", "P1Y", "for a term of one year"),
			unverifiedEvidence("total_amount", "9000000000", "nine billion pounds"),
			unverifiedEvidence("currency", "GBP", "pounds sterling"),
			unverifiedEvidence("governing_law", "CA, US", "the laws of California"),
			unverifiedEvidence("renewal_kind", contract.RenewalAutomatic, "renews automatically"),
			unverifiedEvidence("parties[0].name", "Acme Phantom Holdings", "Acme Phantom Holdings"),
			{Field: "parties[1].name", Value: "Nu Sponsorship Partners", Quote: "Nu Sponsorship Partners", Start: nu, End: nuEnd, Verified: true},
		},
		Text: textC13,
	}
}

// verifiedTwin is c13's values as facts: v13, imported without evidence
// (as contract_data.json is), so none is flagged.
func verifiedTwin() *contract.Contract {
	return &contract.Contract{
		ID: "v13", ContractType: "Sponsorship", Summary: "Sponsorship twin.",
		EffectiveDate: "2099-03-03", EndDate: "2100-03-03", Duration: "P1Y", DurationDays: intp(365),
		TotalAmount: floatp(1000), Currency: "GBP", GoverningLaw: law("US", "CA"),
		RenewalKind: contract.RenewalAutomatic, RenewalTerm: "P1Y", NoticePeriod: "P30D",
		Parties: []contract.PartyRole{role("Xi Verified Corp", "Sponsor", "US")},
	}
}

// testUnverified checks that unverified values are marked in results and
// left out of every filter, ordering, grouping, metric and deadline unless
// the filter includes them.
func testUnverified(t *testing.T, open func(t *testing.T) graph.Store) {
	ctx := context.Background()
	s := open(t)
	defer s.Close()
	out, err := s.PutContracts(ctx, []*contract.Contract{UnverifiedContract(), verifiedTwin()})
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range out {
		if o.Status != graph.PutCreated {
			t.Fatalf("put %s: %s (%v)", o.ID, o.Status, o.Err)
		}
	}
	got, err := s.GetContract(ctx, "c13")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(UnverifiedContract().Evidence, got.Evidence); diff != "" {
		t.Errorf("c13 evidence (-want +got):\n%s", diff)
	}

	notFound, derived := contract.ReasonNotFound, "worked out from an unverified effective_date"
	wantMarks := []contract.Unverified{
		{Field: "contract_type", Reason: notFound}, {Field: "effective_date", Reason: notFound},
		{Field: "end_date", Reason: derived}, {Field: "duration", Reason: notFound},
		{Field: "total_amount", Reason: notFound}, {Field: "governing_law", Reason: notFound},
		{Field: "renewal_kind", Reason: notFound}, {Field: "parties", Value: "Acme Phantom Holdings", Reason: notFound},
	}
	if diff := cmp.Diff(wantMarks, contract.UnverifiedValues(got)); diff != "" {
		t.Errorf("unverified values of the stored c13 (-want +got):\n%s", diff)
	}

	// Ordering: an unverified date orders as a missing one; the summary
	// carries the marks either way, and shows the stored values.
	for _, include := range []bool{false, true} {
		want := []string{"v13", "c13"}
		if include {
			want = []string{"c13", "v13"} // equal dates: by id
		}
		r := search(t, s, graph.ContractQuery{Filter: graph.Filter{IncludeUnverified: include}, Limit: 50})
		if !slices.Equal(ids(r), want) {
			t.Errorf("effective_date order (include_unverified %v) = %v, want %v", include, ids(r), want)
			continue
		}
		for _, e := range r.Examples {
			var want []contract.Unverified
			if e.ContractID == "c13" {
				want = wantMarks
			}
			if diff := cmp.Diff(want, e.Unverified); diff != "" {
				t.Errorf("%s summary marks (-want +got):\n%s", e.ContractID, diff)
			}
			if e.EffectiveDate != "2099-03-03" {
				t.Errorf("%s summary effective_date = %q, want the stored 2099-03-03", e.ContractID, e.EffectiveDate)
			}
		}
		for _, o := range []string{graph.OrderEndDate, graph.OrderTotalAmount, graph.OrderDurationDays} {
			want := []string{"v13", "c13"}
			if include {
				want = []string{"c13", "v13"} // equal values but the amount, 9e9 > 1000: by id
			}
			r := search(t, s, graph.ContractQuery{Filter: graph.Filter{IncludeUnverified: include}, OrderBy: o, Desc: true, Limit: 50})
			if !slices.Equal(ids(r), want) {
				t.Errorf("order by %s desc (include_unverified %v) = %v, want %v", o, include, ids(r), want)
			}
		}
	}

	// Filters on parties: the unverified one matches only when included.
	for _, f := range []graph.Filter{{Parties: []string{"phantom"}}, {PartyCountry: "CA"}} {
		for _, include := range []bool{false, true} {
			f.IncludeUnverified = include
			want := []string{}
			if include {
				want = []string{"c13"}
			}
			if r := search(t, s, graph.ContractQuery{Filter: f, Limit: 50}); !slices.Equal(ids(r), want) {
				t.Errorf("filter %+v = %v, want %v", f, ids(r), want)
			}
		}
	}

	// Groupings and metrics.
	type groupCase struct {
		groupBy, metric string
		want, withAll   []graph.Group // default; with include_unverified
	}
	one := func(key string, n int) graph.Group { return graph.Group{Key: key, Count: n, Value: floatp(float64(n))} }
	money := func(key, cur string, v *float64, n int) graph.Group {
		return graph.Group{Key: key, Currency: &cur, Value: v, Count: n}
	}
	for _, gc := range []groupCase{
		{graph.GroupEffectiveYear, graph.MetricCount, []graph.Group{one("2099", 1)}, []graph.Group{one("2099", 2)}},
		{graph.GroupEndYear, graph.MetricCount, []graph.Group{one("2100", 1)}, []graph.Group{one("2100", 2)}},
		{graph.GroupContractType, graph.MetricCount, []graph.Group{one("Sponsorship", 1)}, []graph.Group{one("Sponsorship", 2)}},
		{graph.GroupGoverningLawState, graph.MetricCount, []graph.Group{one("CA", 1)}, []graph.Group{one("CA", 2)}},
		{graph.GroupRenewalKind, graph.MetricCount, []graph.Group{one("automatic", 1)}, []graph.Group{one("automatic", 2)}},
		{graph.GroupParty, graph.MetricCount, []graph.Group{one("Xi Verified Corp", 1), one("Nu Sponsorship Partners", 1)},
			[]graph.Group{one("Xi Verified Corp", 1), one("Nu Sponsorship Partners", 1), one("Acme Phantom Holdings", 1)}},
		{graph.GroupPartyCountry, graph.MetricCount, []graph.Group{one("US", 1), one("NZ", 1)},
			[]graph.Group{one("US", 1), one("NZ", 1), one("CA", 1)}},
		// c13's amount, unverified, has no currency either: it is in the
		// group of no currency, unmeasured.
		{"", graph.MetricSumAmount, []graph.Group{money("all", "GBP", floatp(1000), 1), money("all", "", nil, 1)},
			[]graph.Group{money("all", "GBP", floatp(9000001000), 2)}},
		// c13's contract type is unverified too: it is in no group.
		{graph.GroupContractType, graph.MetricMaxAmount, []graph.Group{money("Sponsorship", "GBP", floatp(1000), 1)},
			[]graph.Group{money("Sponsorship", "GBP", floatp(9000000000), 2)}},
		{"", graph.MetricMinDurationDays, []graph.Group{{Key: "all", Count: 2, Value: floatp(365)}}, []graph.Group{{Key: "all", Count: 2, Value: floatp(365)}}},
	} {
		for _, include := range []bool{false, true} {
			want := gc.want
			if include {
				want = gc.withAll
			}
			res, err := s.AggregateContracts(ctx, graph.AggregateQuery{Filter: graph.Filter{IncludeUnverified: include}, GroupBy: gc.groupBy, Metric: gc.metric, Limit: 100})
			if err != nil {
				t.Fatalf("aggregate %s %s: %v", gc.groupBy, gc.metric, err)
			}
			if diff := cmp.Diff(want, res.Groups); diff != "" {
				t.Errorf("aggregate by %q %s (include_unverified %v) (-want +got):\n%s", gc.groupBy, gc.metric, include, diff)
			}
		}
	}

	// Deadlines: c13's renewal kind and end date are unverified, so it has
	// none unless they are included.
	ds, ok := s.(graph.DeadlineSearcher)
	if !ok {
		t.Fatal("store is not a graph.DeadlineSearcher")
	}
	for _, include := range []bool{false, true} {
		res, err := ds.SearchDeadlines(ctx, graph.DeadlineQuery{Filter: graph.Filter{IncludeUnverified: include}, From: "2100-01-01", To: "2100-12-31", Limit: 50})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, d := range res.Deadlines {
			got = append(got, d.ContractID+" "+d.Kind+" "+d.Date)
		}
		want := []string{"v13 notice 2100-02-01", "v13 renewal 2100-03-03"}
		if include {
			want = []string{"c13 notice 2100-02-01", "v13 notice 2100-02-01", "c13 renewal 2100-03-03", "v13 renewal 2100-03-03"}
		}
		if !slices.Equal(got, want) || res.TotalCount != len(want) {
			t.Errorf("deadlines (include_unverified %v) = %v (total %d), want %v", include, got, res.TotalCount, want)
		}
		notice := graph.Filter{IncludeUnverified: include, MinNoticeDeadline: "2100-01-01", MaxNoticeDeadline: "2100-12-31"}
		wantIDs := []string{"v13"}
		if include {
			wantIDs = []string{"c13", "v13"}
		}
		if r := search(t, s, graph.ContractQuery{Filter: notice, Limit: 50}); !slices.Equal(sortedCopy(ids(r)), wantIDs) {
			t.Errorf("notice-deadline filter (include_unverified %v) = %v, want %v", include, ids(r), wantIDs)
		}
	}
}
