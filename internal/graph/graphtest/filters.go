package graphtest

import (
	"context"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/contractgraph/contractgraph/internal/contract"
	"github.com/contractgraph/contractgraph/internal/graph"
)

// FilterCase is one shared filter set alone, with the Fixture contracts it
// matches, worked out by hand.
type FilterCase struct {
	Field  string // the graph.Filter field's JSON name (its Go name when it has none)
	Filter graph.Filter
	Want   []string // sorted contract ids of Fixture and UnverifiedContract; never empty, never every contract
}

// FilterCases has one case per field of graph.Filter. The suite fails when
// a field has none, so a new filter cannot reach the backends untested.
func FilterCases() []FilterCase {
	yes, no := true, false
	return []FilterCase{
		{"min_effective_date", graph.Filter{MinEffectiveDate: "2019-11-01"}, []string{"c04", "c08", "c09", "c12"}},
		{"max_effective_date", graph.Filter{MaxEffectiveDate: "2008-01-01"}, []string{"c03", "c11"}},
		{"min_end_date", graph.Filter{MinEndDate: "2021-01-01"}, []string{"c01", "c06", "c12"}},
		{"max_end_date", graph.Filter{MaxEndDate: "2009-12-31"}, []string{"c03", "c11"}},
		{"contract_type", graph.Filter{ContractType: "Sponsorship"}, []string{"c08", "c09"}},
		{"parties", graph.Filter{Parties: []string{"acme"}}, []string{"c01", "c02", "c03", "c08", "c11"}},
		// Any entry: Gamma's two contracts and Lambda's one (together
		// they are in none).
		{"parties_match", graph.Filter{Parties: []string{"gamma", "lambda"}, PartiesMatch: graph.PartiesAny}, []string{"c02", "c04", "c11"}},
		// Sets of party ids (typo tolerance resolves entries to them):
		// Delta's contracts or Lambda's, and Acme's.
		{"PartyIDSets", graph.Filter{PartyIDSets: [][]string{{"delta", "lambda-sports"}, {"acme"}}}, []string{"c03", "c11"}},
		{"party_country", graph.Filter{PartyCountry: "CA"}, []string{"c08", "c09"}},
		{"governing_law_country", graph.Filter{GoverningLawCountry: "GB"}, []string{"c04"}},
		{"governing_law_state", graph.Filter{GoverningLawState: "CA"}, []string{"c05", "c11"}},
		{"active", graph.Filter{Active: &yes, AsOf: "2020-06-01"}, []string{"c01", "c06", "c09", "c12"}},
		// Ended before as_of: a backend that took another reference date
		// (today, or none) would answer differently.
		{"as_of", graph.Filter{Active: &no, AsOf: "2020-06-01"}, []string{"c02", "c03", "c05", "c08", "c11"}},
		{"monetary_value", graph.Filter{Monetary: &graph.Monetary{Op: ">", Value: fp(1000000)}}, []string{"c04", "c06", "c07"}},
		{"currency", graph.Filter{Currency: "GBP"}, []string{"c04"}},
		{"clause_types", graph.Filter{ClauseTypes: []string{"Cap On Liability"}}, []string{"c01", "c09"}},
		// A group: c01 and c09 have a Cap On Liability, c03 and c06 a clause
		// typed with the group itself. c13 has no clauses (whose own
		// Verified the unverified-values rule does not read).
		{"without_clause_types", graph.Filter{WithoutClauseTypes: []string{"Liability & Indemnification"}}, []string{"c02", "c04", "c05", "c07", "c08", "c10", "c11", "c12", "c13"}},
		{"summary_search", graph.Filter{SummarySearch: "solar"}, []string{"c06", "c12"}},
		// Every word, where most words (two of three) also keep c07.
		{"summary_match", graph.Filter{SummarySearch: "joint venture solar", SummaryMatch: graph.SummaryAll}, []string{"c06"}},
		// Contracts found by meaning (summary embeddings) meet the search
		// besides those holding its words.
		{"SummaryIDs", graph.Filter{SummarySearch: "solar", SummaryIDs: []string{"c03"}}, []string{"c03", "c06", "c12"}},
		{"renewal_kind", graph.Filter{RenewalKind: contract.RenewalAutomatic}, []string{"c01", "c05"}},
		// Only rolling the automatic renewals forward reaches 2025: c01's
		// notice falls each 2025-09-14, c05's on 2029-11-04 (its third
		// renewal); c09's option notice (2020-09-20) is long past.
		{"min_notice_deadline", graph.Filter{MinNoticeDeadline: "2025-01-01"}, []string{"c01", "c05"}},
		// c05's first notice (2019-11-04) and c09's option (2020-09-20);
		// c01's first notice is 2021-09-14.
		{"max_notice_deadline", graph.Filter{MaxNoticeDeadline: "2020-12-31"}, []string{"c05", "c09"}},
		{"ContractIDs", graph.Filter{ContractIDs: []string{"c02", "c05"}}, []string{"c02", "c05"}},
		// Only c13 (UnverifiedContract) has an effective date this late,
		// unverified; every other case leaves c13 out by default.
		{"include_unverified", graph.Filter{IncludeUnverified: true, MinEffectiveDate: "2090-01-01"}, []string{"c13"}},
	}
}

// filterFieldName is a graph.Filter field's JSON name, or its Go name when
// it is not a JSON argument.
func filterFieldName(f reflect.StructField) string {
	name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
	if name == "" || name == "-" {
		return f.Name
	}
	return name
}

// coveragePassage is the sentence the coverage fixture adds to every
// contract's text, as one embedded chunk.
func coveragePassage(id string) string { return "Liability passage of contract " + id + "." }

// coverageFixture is Fixture and UnverifiedContract with one embedded
// chunk per contract, so that clause search and vector search can reach
// every contract. The passage is appended to the text, which keeps the
// existing spans valid.
func coverageFixture() []*contract.Contract {
	cs := append(Fixture(), UnverifiedContract())
	for _, c := range cs {
		p := coveragePassage(c.ID)
		if c.Text != "" {
			c.Text += " "
		}
		start := len(c.Text)
		c.Text += p
		c.Chunks = append(c.Chunks, contract.Chunk{Ord: len(c.Chunks), Text: p, Start: start, End: start + len(p), Embedding: testVector(p)})
	}
	return cs
}

// testFilterCoverage checks every field of graph.Filter, alone, on every
// query that takes a filter: contract search, aggregates, clause search
// and (when the store has it) vector search must all keep exactly the
// contracts the field's case expects.
func testFilterCoverage(t *testing.T, s graph.Store) {
	ctx := context.Background()
	out, err := s.PutContracts(ctx, coverageFixture())
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range out {
		if o.Status == graph.PutFailed {
			t.Fatalf("put %s: %v", o.ID, o.Err)
		}
	}
	cases := map[string]FilterCase{}
	for _, c := range FilterCases() {
		cases[c.Field] = c
	}
	all := len(coverageFixture())
	for f := range reflect.TypeFor[graph.Filter]().Fields() {
		name := filterFieldName(f)
		c, ok := cases[name]
		if !ok {
			t.Errorf("graph.Filter.%s has no case in graphtest.FilterCases: add one (the filter, alone, and the Fixture contracts it keeps)", f.Name)
			continue
		}
		if len(c.Want) == 0 || len(c.Want) == all {
			t.Errorf("FilterCases %s: want must be some but not all contracts, so that ignoring the filter shows", name)
		}
		t.Run(name, func(t *testing.T) {
			got := search(t, s, graph.ContractQuery{Filter: c.Filter, OrderBy: graph.OrderEffectiveDate, Limit: 50})
			if g := sortedCopy(ids(got)); !slices.Equal(g, c.Want) || got.TotalCount != len(c.Want) {
				t.Errorf("contract search: %d contracts %v, want %v", got.TotalCount, g, c.Want)
			}
			agg, err := s.AggregateContracts(ctx, graph.AggregateQuery{Filter: c.Filter, Metric: graph.MetricCount, Limit: 1})
			if err != nil {
				t.Fatalf("aggregate: %v", err)
			}
			if len(agg.Groups) != 1 || agg.Groups[0].Count != len(c.Want) {
				t.Errorf("aggregate: %+v, want one group of %d", agg.Groups, len(c.Want))
			}
			hits, err := s.SearchClauses(ctx, graph.ClauseQuery{Query: "liability passage", Filter: c.Filter, Limit: 50})
			if err != nil {
				t.Fatalf("clause search: %v", err)
			}
			if g := hitContracts(hits); !slices.Equal(g, c.Want) {
				t.Errorf("clause search: passages of %v, want %v", g, c.Want)
			}
			vs, ok := s.(graph.VectorStore)
			if !ok {
				return
			}
			near, err := vs.SearchVectors(ctx, graph.VectorQuery{Vector: testVector(coveragePassage("c01")), Filter: c.Filter, Limit: 50})
			if err != nil {
				t.Fatalf("vector search: %v", err)
			}
			if g := hitContracts(near); !slices.Equal(g, c.Want) {
				t.Errorf("vector search: chunks of %v, want %v", g, c.Want)
			}
		})
	}
}

// hitContracts is the sorted set of contracts the hits come from.
func hitContracts(hits []graph.ClauseHit) []string {
	var out []string
	for _, h := range hits {
		if !slices.Contains(out, h.ContractID) {
			out = append(out, h.ContractID)
		}
	}
	slices.Sort(out)
	return out
}

// testQueryEnums runs every ordering, grouping and metric graph declares:
// a backend that does not know one fails here rather than in a user's query.
func testQueryEnums(t *testing.T, s graph.Store) {
	ctx := context.Background()
	for _, o := range graph.ContractOrders {
		for _, desc := range []bool{false, true} {
			res, err := s.SearchContracts(ctx, graph.ContractQuery{OrderBy: o, Desc: desc, Limit: 50})
			if err != nil || res.TotalCount != len(Fixture()) {
				t.Errorf("order_by %s (desc %v): %d contracts, %v", o, desc, res.TotalCount, err)
			}
		}
	}
	for _, g := range append([]string{""}, graph.Groupings...) {
		for _, m := range graph.Metrics {
			res, err := s.AggregateContracts(ctx, graph.AggregateQuery{GroupBy: g, Metric: m, Limit: 100})
			if err != nil || res.TotalGroups == 0 {
				t.Errorf("group_by %q metric %s: %d groups, %v", g, m, res.TotalGroups, err)
			}
		}
	}
}
