package graphtest

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/contractgraph/contractgraph/internal/contract"
	"github.com/contractgraph/contractgraph/internal/graph"
)

// resolver is what entity resolution and the party pages need of a store.
type resolver interface {
	graph.Store
	graph.PartyMerger
	graph.PartyGetter
}

// RunPartyMerger runs the entity-resolution suite: Parties, MergeParties
// and GetParty over the fixture, with expectations worked out by hand from
// it. open is as for Run, and its stores must implement graph.PartyMerger
// and graph.PartyGetter. Every subtest opens its own store, since merges
// change it.
func RunPartyMerger(t *testing.T, open func(t *testing.T) graph.Store) {
	load := func(t *testing.T, cs ...*contract.Contract) resolver {
		t.Helper()
		s := open(t)
		t.Cleanup(func() { s.Close() })
		r, ok := s.(resolver)
		if !ok {
			t.Fatalf("%T does not implement graph.PartyMerger and graph.PartyGetter", s)
		}
		putCreated(t, r, cs...)
		return r
	}
	t.Run("Parties", func(t *testing.T) { testPartyInfos(t, load(t, Fixture()...)) })
	t.Run("GetParty", func(t *testing.T) { testGetParty(t, load(t, Fixture()...)) })
	t.Run("Merge", func(t *testing.T) { testMerge(t, load(t, Fixture()...)) })
	t.Run("MergeRefused", func(t *testing.T) { testMergeRefused(t, load(t, Fixture()...)) })
	t.Run("MergeHostileNames", func(t *testing.T) { testMergeHostile(t, load(t, Fixture()...)) })
	t.Run("NameAfterMerge", func(t *testing.T) {
		testNameAfterMerge(t, load(t, withParty("a", "Globex"), withParty("b", "Globex Holdings")))
	})
	t.Run("ResolutionMarks", func(t *testing.T) {
		testResolutionMarks(t, load(t, withParty("a", "Globex"), withParty("b", "Globex Holdings"), withParty("c", "Initech")))
	})
}

// testResolutionMarks: marks are recorded, replaced, skipped for unknown
// parties and gone with a party merged away.
func testResolutionMarks(t *testing.T, s resolver) {
	ctx := context.Background()
	m, ok := s.(graph.ResolutionMarker)
	if !ok {
		t.Fatalf("%T does not implement graph.ResolutionMarker", s)
	}
	pid := partyIDs(t, s)
	got := func() map[string]string {
		t.Helper()
		marks, err := m.ResolutionMarks(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return marks
	}
	if marks := got(); len(marks) != 0 {
		t.Fatalf("marks of a new store: %v", marks)
	}
	set := map[string]string{pid["Globex"]: "m1", pid["Globex Holdings"]: "m2", pid["Initech"]: "m3", "no-such-party": "m4"}
	if err := m.SetResolutionMarks(ctx, set); err != nil {
		t.Fatal(err)
	}
	delete(set, "no-such-party")
	if diff := cmp.Diff(set, got()); diff != "" {
		t.Fatalf("marks (-set +read):\n%s", diff)
	}
	if err := m.SetResolutionMarks(ctx, map[string]string{pid["Initech"]: "m5"}); err != nil {
		t.Fatal(err)
	}
	if err := s.MergeParties(ctx, pid["Globex"], []string{pid["Globex Holdings"]}); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{pid["Globex"]: "m1", pid["Initech"]: "m5"}
	if diff := cmp.Diff(want, got()); diff != "" {
		t.Errorf("marks after a replacement and a merge (-want +got):\n%s", diff)
	}
	if err := m.SetResolutionMarks(ctx, nil); err != nil {
		t.Errorf("no marks: %v", err)
	}
}

// putCreated puts cs, each of which must be created.
func putCreated(t *testing.T, s graph.Store, cs ...*contract.Contract) {
	t.Helper()
	out, err := s.PutContracts(context.Background(), cs)
	if err != nil {
		t.Fatalf("put: %v", err)
	}
	for _, o := range out {
		if o.Status != graph.PutCreated {
			t.Fatalf("put %s: %s (%v), want created", o.ID, o.Status, o.Err)
		}
	}
}

func withParty(id, name string) *contract.Contract {
	return &contract.Contract{ID: id, Parties: []contract.PartyRole{{Name: name, Role: "Party"}}}
}

// partyIDs maps every party name as the contracts write it to the id the
// store gave the party.
func partyIDs(t *testing.T, s graph.Store) map[string]string {
	t.Helper()
	pid := map[string]string{}
	err := s.Contracts(context.Background(), func(c *contract.Contract) error {
		for _, p := range c.Parties {
			pid[p.Name] = p.PartyID
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return pid
}

// fixtureParties are the fixture's parties as Parties lists them, keyed by
// a name the contracts write, before any merge; ids are left to the store.
func fixtureParties() map[string]graph.PartyInfo {
	us, de, gb, ca := contract.Location{Country: "US"}, contract.Location{Country: "DE"}, contract.Location{Country: "GB"}, contract.Location{Country: "CA"}
	info := func(name string, aliases, contracts, roles []string, locs ...contract.Location) graph.PartyInfo {
		return graph.PartyInfo{Name: name, NormalizedName: contract.PartyKey(name), Aliases: aliases,
			ContractIDs: contracts, Roles: roles, Locations: locs}
	}
	return map[string]graph.PartyInfo{
		// Roles and locations in contract then position order, once each.
		"Acme Corp.": info("ACME Corporation", []string{"Acme Corp.", "Acme, Inc."},
			[]string{"c01", "c02", "c03", "c08", "c11"}, []string{"Supplier", "Licensor", "Sponsor", "Company"},
			contract.Location{Country: "US", State: "DE", City: "Wilmington"}, us),
		"Beta GmbH":            info("Beta GmbH", nil, []string{"c01", "c06"}, []string{"Buyer", "Partner"}, de),
		"Gamma Ltd":            info("Gamma Limited", []string{"Gamma Ltd"}, []string{"c02", "c04"}, []string{"Licensee", "Provider"}, gb),
		"Delta Inc":            info("Delta Inc.", []string{"Delta Inc"}, []string{"c03", "c12"}, []string{"Distributor", "Licensor"}, contract.Location{Country: "CN"}),
		"Epsilon LLC":          info("Epsilon LLC", nil, []string{"c04", "c06"}, []string{"Customer", "Partner"}, us),
		sqlInjection:           info(sqlInjection, nil, []string{"c05"}, []string{"Franchisee"}, us),
		"Zeta Franchising Co.": info("Zeta Franchising Co.", nil, []string{"c05"}, []string{"Franchisor"}, us),
		cypherInjection:        info(cypherInjection, nil, []string{"c06"}, []string{"Partner"}, us),
		unicodeName:            info(unicodeName, nil, []string{"c07"}, []string{"Partner"}, contract.Location{Country: "FR"}),
		backslashQuotes:        info(backslashQuotes, nil, []string{"c07"}, []string{"Partner"}),
		// c09 names Iota twice: one contract, two roles.
		"Iota Events":   info("Iota Events", []string{"IOTA EVENTS"}, []string{"c08", "c09"}, []string{"Event", "Organizer", "Payee"}, ca),
		"Kappa Pty Ltd": info("Kappa Pty Ltd", nil, []string{"c09"}, []string{"Sponsor"}, contract.Location{Country: "AU"}),
		"Lambda Sports": info("Lambda Sports", nil, []string{"c11"}, []string{"Endorser"}, us),
	}
}

// wantParties is infos with the store's ids, sorted by id.
func wantParties(pid map[string]string, infos map[string]graph.PartyInfo) []graph.PartyInfo {
	var out []graph.PartyInfo
	for name, p := range infos {
		p.ID = pid[name]
		out = append(out, p)
	}
	slices.SortFunc(out, func(a, b graph.PartyInfo) int { return strings.Compare(a.ID, b.ID) })
	return out
}

func parties(t *testing.T, s resolver) []graph.PartyInfo {
	t.Helper()
	ps, err := s.Parties(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return ps
}

func testPartyInfos(t *testing.T, s resolver) {
	pid := partyIDs(t, s)
	want := wantParties(pid, fixtureParties())
	if diff := cmp.Diff(want, parties(t, s)); diff != "" {
		t.Errorf("Parties (-want +got):\n%s", diff)
	}
	// The spellings of one party share its id.
	for _, pair := range [][2]string{{"Acme Corp.", "ACME Corporation"}, {"Acme Corp.", "Acme, Inc."}, {"Gamma Ltd", "Gamma Limited"}, {"Iota Events", "IOTA EVENTS"}} {
		if pid[pair[0]] != pid[pair[1]] {
			t.Errorf("%q has id %q, %q has %q; want one party", pair[0], pid[pair[0]], pair[1], pid[pair[1]])
		}
	}
}

func testGetParty(t *testing.T, s resolver) {
	ctx := context.Background()
	for _, want := range parties(t, s) {
		got, err := s.GetParty(ctx, want.ID)
		if err != nil {
			t.Errorf("GetParty(%q): %v", want.ID, err)
			continue
		}
		if diff := cmp.Diff(&want, got); diff != "" {
			t.Errorf("GetParty(%q) differs from its Parties entry (-Parties +GetParty):\n%s", want.ID, diff)
		}
	}
	for _, id := range []string{"no-such-party", "' OR '1'='1", "x'}) MATCH (n) DETACH DELETE n //", ""} {
		_, err := s.GetParty(ctx, id)
		if !errors.Is(err, graph.ErrNotFound) || !strings.Contains(err.Error(), id) {
			t.Errorf("GetParty(%q): err = %v, want ErrNotFound naming the id", id, err)
		}
	}
	// A name beyond ASCII: the id the contract gives the party finds it.
	putCreated(t, s, &contract.Contract{ID: "m-ü", ContractType: "Supply", Parties: []contract.PartyRole{
		{Name: "Müller GmbH", Role: "Supplier", Location: &contract.Location{Country: "DE", City: "München"}},
	}})
	id := partyIDs(t, s)["Müller GmbH"]
	if id == "" {
		t.Fatal("Müller GmbH has no party id")
	}
	got, err := s.GetParty(ctx, id)
	if err != nil {
		t.Fatalf("GetParty(%q): %v", id, err)
	}
	want := &graph.PartyInfo{ID: id, Name: "Müller GmbH", NormalizedName: contract.PartyKey("Müller GmbH"),
		ContractIDs: []string{"m-ü"}, Roles: []string{"Supplier"}, Locations: []contract.Location{{Country: "DE", City: "München"}}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("GetParty(%q) (-want +got):\n%s", id, diff)
	}
	if i := slices.IndexFunc(parties(t, s), func(p graph.PartyInfo) bool { return p.ID == id }); i < 0 {
		t.Errorf("Parties does not list %q", id)
	}
}

// mergeView is everything a merge must leave alone or change only as
// computed: contract summaries (parties as the contracts write them) and
// the counts.
type mergeView struct {
	Contracts graph.ContractResult
	Stats     graph.Stats
}

func viewOf(t *testing.T, s graph.Store) mergeView {
	t.Helper()
	st, err := s.Stats(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return mergeView{Contracts: search(t, s, graph.ContractQuery{OrderBy: graph.OrderEffectiveDate, Desc: true}), Stats: st}
}

// testMerge merges Epsilon (c04, c06) and Gamma (c02, c04; alias "Gamma
// Ltd") into Beta (c01, c06), naming Epsilon twice and Beta itself among the
// others, which count once and not at all.
func testMerge(t *testing.T, s resolver) {
	ctx := context.Background()
	pid := partyIDs(t, s)
	beta := pid["Beta GmbH"]
	before := viewOf(t, s)
	if err := s.MergeParties(ctx, beta, []string{pid["Epsilon LLC"], pid["Gamma Ltd"], pid["Epsilon LLC"], beta}); err != nil {
		t.Fatal(err)
	}

	infos := fixtureParties()
	delete(infos, "Epsilon LLC")
	delete(infos, "Gamma Ltd")
	infos["Beta GmbH"] = graph.PartyInfo{
		Name: "Beta GmbH", NormalizedName: contract.PartyKey("Beta GmbH"),
		Aliases:     []string{"Epsilon LLC", "Gamma Limited", "Gamma Ltd"},
		ContractIDs: []string{"c01", "c02", "c04", "c06"},
		// c01 Buyer; c02 Licensee; c04 Gamma's Provider, Epsilon's Customer; c06 Partner twice.
		Roles:     []string{"Buyer", "Licensee", "Provider", "Customer", "Partner"},
		Locations: []contract.Location{{Country: "DE"}, {Country: "GB"}, {Country: "US"}},
	}
	if diff := cmp.Diff(wantParties(pid, infos), parties(t, s)); diff != "" {
		t.Errorf("Parties after the merge (-want +got):\n%s", diff)
	}
	for _, name := range []string{"Epsilon LLC", "Gamma Ltd"} {
		if _, err := s.GetParty(ctx, pid[name]); !errors.Is(err, graph.ErrNotFound) {
			t.Errorf("GetParty of merged %s: err = %v, want ErrNotFound", name, err)
		}
	}
	c04, err := s.GetContract(ctx, "c04")
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range c04.Parties {
		if p.PartyID != beta {
			t.Errorf("c04 party %q has id %q, want Beta's %q", p.Name, p.PartyID, beta)
		}
	}

	// The contracts read as before (names as written, countries); only the
	// party count and what counts parties changed: Party 13 - 2; the
	// HAS_LOCATION pairs Gamma-GB and Epsilon-US became Beta's.
	after := viewOf(t, s)
	before.Stats.Nodes["Party"] -= 2
	if diff := cmp.Diff(before, after); diff != "" {
		t.Errorf("contracts and stats (-want +got):\n%s", diff)
	}
	for _, tc := range []struct {
		name string
		q    graph.ContractQuery
		want []string
	}{
		// c04 now has one party (twice), c06 two.
		{"party_count desc", graph.ContractQuery{OrderBy: graph.OrderPartyCount, Desc: true},
			[]string{"c01", "c02", "c03", "c05", "c06", "c07", "c08", "c09", "c11", "c04", "c12", "c10"}},
		{"by a merged name", graph.ContractQuery{Filter: graph.Filter{Parties: []string{"gamma limited"}}}, []string{"c04", "c01", "c02", "c06"}},
		{"by a merged alias", graph.ContractQuery{Filter: graph.Filter{Parties: []string{"Gamma Ltd"}}}, []string{"c04", "c01", "c02", "c06"}},
		{"by the canonical name", graph.ContractQuery{Filter: graph.Filter{Parties: []string{"beta"}}}, []string{"c04", "c01", "c02", "c06"}},
		{"parties ANDed", graph.ContractQuery{Filter: graph.Filter{Parties: []string{"epsilon", "acme"}}}, []string{"c01", "c02"}},
		{"party country unchanged", graph.ContractQuery{Filter: graph.Filter{PartyCountry: "GB"}}, []string{"c04", "c02"}},
	} {
		if got := ids(search(t, s, tc.q)); !cmp.Equal(tc.want, got) {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
	for _, name := range []string{"epsilon", "gamma ltd", "Beta"} {
		r, err := s.SearchParties(ctx, graph.PartyQuery{Name: name, Limit: 10})
		if err != nil {
			t.Fatal(err)
		}
		want := []graph.PartySummary{{
			PartyID: beta, Name: "Beta GmbH", Aliases: []string{"Epsilon LLC", "Gamma Limited", "Gamma Ltd"},
			// DE, GB and US twice each: the first by name.
			Country: "DE", ContractCount: 4,
			ContractTypes: []string{"Joint Venture", "License Agreement", "Service", "Supply"},
		}}
		if diff := cmp.Diff(want, r.Examples); diff != "" || r.TotalCount != 1 {
			t.Errorf("party_search %q: total %d (-want +got):\n%s", name, r.TotalCount, diff)
		}
	}
	r, err := s.SearchParties(ctx, graph.PartyQuery{Country: "US", Limit: 50})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"ACME Corporation", "Beta GmbH", sqlInjection, "Lambda Sports", cypherInjection, "Zeta Franchising Co."}; !cmp.Equal(want, partyNames(r)) || r.TotalCount != 6 {
		t.Errorf("party_search country US = %v (total %d), want %v", partyNames(r), r.TotalCount, want)
	}
	ag, err := s.AggregateContracts(ctx, graph.AggregateQuery{GroupBy: graph.GroupParty, Metric: graph.MetricCount, Limit: 3})
	if err != nil {
		t.Fatal(err)
	}
	wantAg := graph.AggregateResult{TotalGroups: 11, Groups: []graph.Group{g("ACME Corporation", fp(5), 5), g("Beta GmbH", fp(4), 4), g("Iota Events", fp(2), 2)}}
	if diff := cmp.Diff(wantAg, ag); diff != "" {
		t.Errorf("contract_aggregate by party (-want +got):\n%s", diff)
	}

	// Later puts of merged spellings resolve to Beta and never rename it:
	// the spellings are under other keys.
	putCreated(t, s,
		&contract.Contract{ID: "m1", ContractType: "Service", Parties: []contract.PartyRole{role("Epsilon LLC", "Customer", "US")}},
		&contract.Contract{ID: "m2", ContractType: "Service", Parties: []contract.PartyRole{role("GAMMA LTD", "Provider", "GB")}},
	)
	got, err := s.GetParty(ctx, beta)
	if err != nil {
		t.Fatal(err)
	}
	wantBeta := infos["Beta GmbH"]
	wantBeta.ID = beta
	wantBeta.Aliases = []string{"Epsilon LLC", "GAMMA LTD", "Gamma Limited", "Gamma Ltd"}
	wantBeta.ContractIDs = append(wantBeta.ContractIDs, "m1", "m2")
	if diff := cmp.Diff(&wantBeta, got); diff != "" {
		t.Errorf("Beta after puts of merged spellings (-want +got):\n%s", diff)
	}
	if n := len(parties(t, s)); n != 11 {
		t.Errorf("%d parties after puts of merged spellings, want 11", n)
	}
	if r := search(t, s, graph.ContractQuery{Filter: graph.Filter{Parties: []string{"gamma"}}, OrderBy: graph.OrderPartyCount}); r.TotalCount != 6 {
		t.Errorf("contracts of Beta by a merged spelling: %d, want 6", r.TotalCount)
	}
	r, err = s.SearchParties(ctx, graph.PartyQuery{Name: "gamma", Limit: 10})
	if err != nil || len(r.Examples) != 1 || r.Examples[0].ContractCount != 6 || r.Examples[0].Name != "Beta GmbH" {
		t.Errorf("party_search gamma after the puts = %+v, %v; want Beta GmbH with 6 contracts", r.Examples, err)
	}
}

// testMergeRefused checks that a merge naming an unknown party changes
// nothing and says which, and that merging nothing succeeds.
func testMergeRefused(t *testing.T, s resolver) {
	ctx := context.Background()
	pid := partyIDs(t, s)
	acme, gamma := pid["Acme Corp."], pid["Gamma Ltd"]
	before, beforeView := parties(t, s), viewOf(t, s)
	for _, tc := range []struct {
		canonical string
		others    []string
		missing   string
	}{
		{acme, []string{gamma, "no-such-party"}, "no-such-party"},
		{"no-such-canonical", []string{gamma}, "no-such-canonical"},
		{"' OR '1'='1", []string{gamma}, "' OR '1'='1"},
		{acme, []string{"x'}) MATCH (n) DETACH DELETE n //"}, "x'}) MATCH (n) DETACH DELETE n //"},
	} {
		err := s.MergeParties(ctx, tc.canonical, tc.others)
		if !errors.Is(err, graph.ErrNotFound) || !strings.Contains(err.Error(), tc.missing) {
			t.Errorf("MergeParties(%q, %q): err = %v, want ErrNotFound naming %q", tc.canonical, tc.others, err, tc.missing)
		}
	}
	for _, others := range [][]string{nil, {}, {acme}, {acme, acme}} {
		if err := s.MergeParties(ctx, acme, others); err != nil {
			t.Errorf("MergeParties(acme, %q) = %v, want nothing merged and no error", others, err)
		}
	}
	if diff := cmp.Diff(before, parties(t, s)); diff != "" {
		t.Errorf("parties changed by refused and empty merges (-before +after):\n%s", diff)
	}
	if diff := cmp.Diff(beforeView, viewOf(t, s)); diff != "" {
		t.Errorf("contracts changed by refused and empty merges (-before +after):\n%s", diff)
	}
}

// testMergeHostileNames merges parties named like injections: they stay
// plain data in aliases, filters and searches.
func testMergeHostile(t *testing.T, s resolver) {
	ctx := context.Background()
	pid := partyIDs(t, s)
	if err := s.MergeParties(ctx, pid[sqlInjection], []string{pid[cypherInjection]}); err != nil {
		t.Fatal(err)
	}
	// Both of c07's parties: one party, twice.
	if err := s.MergeParties(ctx, pid[unicodeName], []string{pid[backslashQuotes]}); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		query, name string
		aliases     []string
		contracts   int
	}{
		{"detach delete", sqlInjection, []string{cypherInjection}, 2},
		{`back\slash "quoted"`, unicodeName, []string{backslashQuotes}, 1},
	} {
		r, err := s.SearchParties(ctx, graph.PartyQuery{Name: tc.query, Limit: 10})
		if err != nil {
			t.Fatal(err)
		}
		if len(r.Examples) != 1 || r.Examples[0].Name != tc.name || !cmp.Equal(r.Examples[0].Aliases, tc.aliases) || r.Examples[0].ContractCount != tc.contracts {
			t.Errorf("party_search %q = %+v, want %q with aliases %q and %d contracts", tc.query, r.Examples, tc.name, tc.aliases, tc.contracts)
		}
	}
	if got := ids(search(t, s, graph.ContractQuery{Filter: graph.Filter{Parties: []string{cypherInjection}}})); !cmp.Equal(got, []string{"c06", "c05"}) {
		t.Errorf("contracts of the merged cypher name = %v, want [c06 c05]", got)
	}
	if r := search(t, s, graph.ContractQuery{OrderBy: graph.OrderPartyCount, Limit: 3}); !cmp.Equal(ids(r), []string{"c10", "c07", "c12"}) || r.TotalCount != 12 {
		t.Errorf("party_count asc after merging c07's parties = %v (total %d), want [c10 c07 c12] of 12", ids(r), r.TotalCount)
	}
}

// testNameAfterMerge: a spelling reaching a party through a merged party's
// key does not rename it (its name stays under its own key); a better
// spelling of its own key does.
func testNameAfterMerge(t *testing.T, s resolver) {
	ctx := context.Background()
	pid := partyIDs(t, s)
	if err := s.MergeParties(ctx, pid["Globex"], []string{pid["Globex Holdings"]}); err != nil {
		t.Fatal(err)
	}
	named := func(want string, aliases ...string) {
		t.Helper()
		r, err := s.SearchParties(ctx, graph.PartyQuery{Name: "globex", Limit: 10})
		if err != nil {
			t.Fatal(err)
		}
		if len(r.Examples) != 1 || r.Examples[0].Name != want || !cmp.Equal(r.Examples[0].Aliases, aliases) {
			t.Errorf("parties matching globex = %+v, want %q with aliases %q", r.Examples, want, aliases)
		}
	}
	putCreated(t, s, withParty("c", "Globex Holdings, Ltd."))
	named("Globex", "Globex Holdings", "Globex Holdings, Ltd.")
	putCreated(t, s, withParty("d", "Globex Corporation"))
	named("Globex Corporation", "Globex", "Globex Holdings", "Globex Holdings, Ltd.")
}

func partyNames(r graph.PartyResult) []string {
	out := []string{}
	for _, p := range r.Examples {
		out = append(out, p.Name)
	}
	return out
}
