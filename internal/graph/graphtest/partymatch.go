package graphtest

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/contractgraph/contractgraph/internal/contract"
	"github.com/contractgraph/contractgraph/internal/graph"
)

// testPartyTypos checks the party names a store lists for typo-tolerant
// matching, and that entries resolved from them filter contracts and
// parties alike on every backend.
func testPartyTypos(t *testing.T, s graph.Store) {
	ctx := context.Background()
	lister, ok := s.(graph.PartyNameLister)
	if !ok {
		t.Skip("store has no graph.PartyNameLister")
	}
	names, err := lister.PartyNames(ctx)
	if err != nil {
		t.Fatal(err)
	}
	all, err := s.SearchParties(ctx, graph.PartyQuery{Limit: 50})
	if err != nil {
		t.Fatal(err)
	}
	if len(names) != all.TotalCount {
		t.Errorf("PartyNames lists %d parties, party search counts %d", len(names), all.TotalCount)
	}
	if !slices.IsSortedFunc(names, func(a, b graph.PartyName) int { return strings.Compare(a.ID, b.ID) }) {
		t.Errorf("PartyNames not sorted by id")
	}
	i := slices.IndexFunc(names, func(n graph.PartyName) bool { return n.ID == "acme" })
	if i < 0 {
		t.Fatalf("PartyNames has no acme: %+v", names)
	}
	// Acme signs under three spellings.
	if want := []string{"acme corp", "acme corporation", "acme inc"}; !slices.Equal(names[i].Keys, want) {
		t.Errorf("acme: keys %q, want %q", names[i].Keys, want)
	}
	version, err := lister.PartyNamesVersion(ctx)
	if err != nil || version == "" {
		t.Errorf("PartyNamesVersion: %q, %v", version, err)
	}
	resolver := graph.NewPartyResolver(s)

	cases := []struct {
		name    string
		filter  graph.Filter
		want    []string // contracts
		matches []graph.PartyMatch
	}{
		{"one typo", graph.Filter{Parties: []string{"Lamda Sports"}}, []string{"c11"},
			[]graph.PartyMatch{{Entry: "Lamda Sports", Parties: []string{"Lambda Sports"}, Edits: 1}}},
		{"a word of the name", graph.Filter{Parties: []string{"Gama"}}, []string{"c02", "c04"},
			[]graph.PartyMatch{{Entry: "Gama", Parties: []string{"Gamma Limited"}, Edits: 1}}},
		{"transposed, with an exact entry", graph.Filter{Parties: []string{"acme", "Ioat Events"}}, []string{"c08"},
			[]graph.PartyMatch{{Entry: "Ioat Events", Parties: []string{"Iota Events"}, Edits: 1}}},
		{"any", graph.Filter{Parties: []string{"Gama", "Lamda"}, PartiesMatch: graph.PartiesAny}, []string{"c02", "c04", "c11"},
			[]graph.PartyMatch{{Entry: "Gama", Parties: []string{"Gamma Limited"}, Edits: 1}, {Entry: "Lamda", Parties: []string{"Lambda Sports"}, Edits: 1}}},
		{"exact", graph.Filter{Parties: []string{"gamma"}}, []string{"c02", "c04"}, nil},
		{"nothing near", graph.Filter{Parties: []string{"Qwertyuiop"}}, nil,
			[]graph.PartyMatch{{Entry: "Qwertyuiop", Parties: []string{}}}},
		// Three letters allow no typo: "Bta" is not Beta.
		{"too short", graph.Filter{Parties: []string{"Bta"}}, nil, []graph.PartyMatch{{Entry: "Bta", Parties: []string{}}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f, err := c.filter.Normalize("2024-01-01")
			if err != nil {
				t.Fatal(err)
			}
			g, matches, err := resolver.Resolve(ctx, f)
			if err != nil {
				t.Fatal(err)
			}
			if !equalMatches(matches, c.matches) {
				t.Errorf("matches %+v, want %+v", matches, c.matches)
			}
			got := search(t, s, graph.ContractQuery{Filter: g, Limit: 50})
			if ids := sortedCopy(ids(got)); !slices.Equal(ids, c.want) {
				t.Errorf("contracts %v, want %v", ids, c.want)
			}
		})
	}

	res, err := s.SearchParties(ctx, graph.PartyQuery{IDs: []string{"gamma", "lambda-sports", "nobody"}, Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, p := range res.Examples {
		got = append(got, p.PartyID)
	}
	slices.Sort(got)
	if !slices.Equal(got, []string{"gamma", "lambda-sports"}) || res.TotalCount != 2 {
		t.Errorf("party search by ids: %d %v, want gamma and lambda-sports", res.TotalCount, got)
	}
}

func equalMatches(a, b []graph.PartyMatch) bool {
	return slices.EqualFunc(a, b, func(x, y graph.PartyMatch) bool {
		return x.Entry == y.Entry && slices.Equal(x.Parties, y.Parties) && x.Edits == y.Edits && x.More == y.More
	})
}

// testPartyNamesVersion checks that the party names version changes with
// every write that adds or removes a party, so that a PartyResolver sees
// new parties at once and forgets deleted ones.
func testPartyNamesVersion(t *testing.T, s graph.Store) {
	ctx := context.Background()
	lister, ok := s.(graph.PartyNameLister)
	if !ok {
		t.Skip("store has no graph.PartyNameLister")
	}
	resolver := graph.NewPartyResolver(s)
	match := func(want int) string {
		t.Helper()
		m, err := resolver.Match(ctx, "Omicrn Widgets")
		if err != nil {
			t.Fatal(err)
		}
		if len(m.Parties) != want {
			t.Errorf("Omicrn Widgets matched %+v, want %d parties", m.Parties, want)
		}
		v, err := lister.PartyNamesVersion(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	v0 := match(0)
	c := Fixture()[0]
	c.ID, c.Parties = "c99", append(c.Parties, role("Omicron Widgets", "Agent", "US"))
	if out, err := s.PutContracts(ctx, []*contract.Contract{c}); err != nil || out[0].Status == graph.PutFailed {
		t.Fatalf("put: %v %+v", err, out)
	}
	v1 := match(1)
	if v1 == v0 {
		t.Errorf("version %q unchanged by a new party", v1)
	}
	d, ok := s.(graph.ContractDeleter)
	if !ok {
		return
	}
	if _, err := d.DeleteContracts(ctx, []string{"c99"}); err != nil {
		t.Fatal(err)
	}
	if v2 := match(0); v2 == v1 {
		t.Errorf("version %q unchanged by deleting a party", v2)
	}
}
