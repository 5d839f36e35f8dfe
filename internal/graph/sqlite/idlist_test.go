package sqlite

import (
	"context"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/contractgraph/contractgraph/internal/graph"
	"github.com/contractgraph/contractgraph/internal/graph/graphtest"
)

// Lists of ids longer than SQLite's limit on parameters (32,766): a party
// of a store of a million contracts has more contracts than that, and the
// party page asks for them by id. Padded with ids that match nothing, each
// list answers as its matching ids alone do.
func TestLongIDLists(t *testing.T) {
	s := openTemp(t)
	ctx := context.Background()
	cs := graphtest.Fixture()
	if _, err := s.PutContracts(ctx, cs); err != nil {
		t.Fatal(err)
	}
	pad := func(ids []string) []string {
		out := append([]string{}, ids...)
		for i := range 40000 {
			out = append(out, fmt.Sprintf("no-such-%05d", i))
		}
		return out
	}
	ids := []string{cs[0].ID, cs[2].ID, cs[4].ID}
	same := func(name string, short, long func() (any, error)) {
		t.Helper()
		want, err := short()
		if err != nil {
			t.Fatalf("%s, short list: %v", name, err)
		}
		got, err := long()
		if err != nil {
			t.Fatalf("%s, 40,000 more ids: %v", name, err)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s: 40,000 more ids that match nothing change the answer (-short +long):\n%s", name, diff)
		}
	}
	search := func(f graph.Filter) func() (any, error) {
		return func() (any, error) { return s.SearchContracts(ctx, graph.ContractQuery{Filter: f, Limit: 10}) }
	}
	same("contract ids", search(graph.Filter{ContractIDs: ids}), search(graph.Filter{ContractIDs: pad(ids)}))
	aggregate := func(f graph.Filter) func() (any, error) {
		return func() (any, error) {
			return s.AggregateContracts(ctx, graph.AggregateQuery{Filter: f, GroupBy: graph.GroupContractType, Limit: 10})
		}
	}
	same("aggregate over contract ids", aggregate(graph.Filter{ContractIDs: ids}), aggregate(graph.Filter{ContractIDs: pad(ids)}))

	parties, err := s.SearchParties(ctx, graph.PartyQuery{Limit: 3})
	if err != nil || len(parties.Examples) < 2 {
		t.Fatalf("parties: %+v, %v", parties, err)
	}
	pids := []string{parties.Examples[0].PartyID, parties.Examples[1].PartyID}
	same("party ids sets", search(graph.Filter{PartyIDSets: [][]string{pids}}), search(graph.Filter{PartyIDSets: [][]string{pad(pids)}}))
	partySearch := func(ids []string) func() (any, error) {
		return func() (any, error) { return s.SearchParties(ctx, graph.PartyQuery{IDs: ids, Limit: 10}) }
	}
	same("party search by ids", partySearch(pids), partySearch(pad(pids)))
	same("summary ids", search(graph.Filter{SummarySearch: "supply", SummaryIDs: ids}),
		search(graph.Filter{SummarySearch: "supply", SummaryIDs: pad(ids)}))
}
