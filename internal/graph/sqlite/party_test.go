package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"maps"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/contractgraph/contractgraph/internal/contract"
	"github.com/contractgraph/contractgraph/internal/graph"
)

// partyNames returns the party matching name with its aliases.
func partyNames(t *testing.T, s *Store, name string) (string, []string) {
	t.Helper()
	r, err := s.SearchParties(context.Background(), graph.PartyQuery{Name: name, Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Examples) != 1 {
		t.Fatalf("parties matching %q: %+v, want one", name, r.Examples)
	}
	return r.Examples[0].Name, r.Examples[0].Aliases
}

func withParty(id, name string, clauseTypes ...string) *contract.Contract {
	c := &contract.Contract{ID: id, Parties: []contract.PartyRole{{Name: name, Role: "Party"}}}
	for _, typ := range clauseTypes {
		c.Clauses = append(c.Clauses, contract.Clause{Type: typ, Summary: "clause of " + id})
	}
	return c
}

func put(t *testing.T, s *Store, cs ...*contract.Contract) []graph.PutOutcome {
	t.Helper()
	out, err := s.PutContracts(context.Background(), cs)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// A store written when the first spelling named a party converges on the
// preferred name as soon as the party gains a spelling.
func TestPartyNameLegacyStoreConverges(t *testing.T) {
	s := openTemp(t)
	put(t, s, withParty("a", "franchisee"), withParty("b", "Franchisee"))
	if name, _ := partyNames(t, s, "franchisee"); name != "Franchisee" {
		t.Fatalf("name = %q, want Franchisee", name)
	}
	// Rewrite the party as the first-spelling rule used to leave it.
	for _, q := range []string{
		`UPDATE parties SET name = 'franchisee' WHERE name = 'Franchisee'`,
		`UPDATE party_aliases SET alias = 'Franchisee' WHERE alias = 'franchisee'`,
	} {
		if _, err := s.wdb.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	put(t, s, withParty("c", "FRANCHISEE"))
	name, aliases := partyNames(t, s, "franchisee")
	if name != "Franchisee" || !cmp.Equal(aliases, []string{"FRANCHISEE", "franchisee"}) {
		t.Errorf("party = %q aliases %q, want Franchisee with FRANCHISEE, franchisee", name, aliases)
	}
}

// When a contract fails mid-write the batch is written again with a
// savepoint per contract; a spelling only the failed contract brought must
// neither rename the party nor stay as an alias.
func TestPartyNameWithFailedContract(t *testing.T) {
	s := openTemp(t)
	if _, err := s.wdb.Exec(`CREATE TRIGGER boom BEFORE INSERT ON clauses WHEN NEW.type = 'Boom'
		BEGIN SELECT RAISE(ABORT, 'boom clause'); END`); err != nil {
		t.Fatal(err)
	}
	out := put(t, s,
		withParty("a", "acme"),
		withParty("b", "Acme Corporation, Inc.", "Boom"),
		withParty("c", "ACME"),
	)
	if out[1].Status != graph.PutFailed || out[0].Status != graph.PutCreated || out[2].Status != graph.PutCreated {
		t.Fatalf("outcomes = %+v, want b failed and a, c created", out)
	}
	name, aliases := partyNames(t, s, "acme")
	if name != "ACME" || !cmp.Equal(aliases, []string{"acme"}) {
		t.Errorf("party = %q aliases %q, want ACME with alias acme", name, aliases)
	}
}

// TestPartiesListsAsJoined checks that Parties, which reads roles by
// contract id without joins, lists what the joined query of GetParty
// (partyInfos) lists: contracts stored out of id order, a party twice in
// one contract under two roles, locations, roles without one, and aliases
// left by a merge.
func TestPartiesListsAsJoined(t *testing.T) {
	ctx := context.Background()
	s := openTemp(t)
	us := &contract.Location{Country: "US", State: "NY", City: "New York"}
	de := &contract.Location{Country: "DE"}
	put(t, s,
		&contract.Contract{ID: "c-3", Parties: []contract.PartyRole{
			{Name: "Acme Corp.", Role: "Supplier", Location: us}, {Name: "Beta GmbH", Role: "Buyer", Location: de}}},
		&contract.Contract{ID: "c-1", Parties: []contract.PartyRole{
			{Name: "Beta GmbH", Role: "Licensee"}, {Name: "Acme Corp.", Role: "Licensor", Location: de},
			{Name: "Acme Corp.", Role: "Guarantor", Location: us}}},
		&contract.Contract{ID: "c-2", Parties: []contract.PartyRole{{Name: "Acme Corps Inc.", Role: "Supplier", Location: us}, {Name: "Gamma LLC"}}},
	)
	byName := map[string]string{}
	all, err := s.Parties(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range all {
		byName[p.Name] = p.ID
	}
	if err := s.MergeParties(ctx, byName["Acme Corp."], []string{byName["Acme Corps Inc."]}); err != nil {
		t.Fatal(err)
	}
	got, err := s.Parties(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var want []graph.PartyInfo
	err = s.readTx(ctx, func(tx *sql.Tx) error {
		var err error
		want, err = partyInfos(ctx, tx, "", nil)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Parties differs from the joined query (-joined +Parties):\n%s", diff)
	}
	if len(got) != 3 || len(got[0].ContractIDs)+len(got[1].ContractIDs)+len(got[2].ContractIDs) != 6 {
		t.Errorf("parties %+v: want 3 with 6 contracts among them", got)
	}
	for _, p := range got {
		if p.ID == byName["Acme Corp."] && (len(p.ContractIDs) != 3 || len(p.Roles) != 3 || len(p.Locations) != 2 || len(p.Aliases) != 1) {
			t.Errorf("merged party %+v: want 3 contracts, 3 roles, 2 locations and an alias", p)
		}
	}
}

// TestSetResolutionMarksBatches records more marks than one statement
// takes, the stored parties' last in id order, so that they are in the
// second statement.
func TestSetResolutionMarksBatches(t *testing.T) {
	ctx := context.Background()
	s := openTemp(t)
	put(t, s, withParty("c-1", "Zeta Widgets Inc."), withParty("c-2", "Zulu Foods LLC"))
	all, err := s.Parties(ctx)
	if err != nil {
		t.Fatal(err)
	}
	marks := map[string]string{}
	for i := range marksPerStatement + 10 {
		marks[fmt.Sprintf("a-no-such-party-%05d", i)] = "x"
	}
	want := map[string]string{}
	for i, p := range all {
		marks[p.ID] = fmt.Sprintf("mark-%d", i)
		want[p.ID] = marks[p.ID]
	}
	if len(want) != 2 || slices.Sorted(maps.Keys(marks))[marksPerStatement] >= all[0].ID {
		t.Fatalf("parties %+v: want two, sorted after the first statement's marks", all)
	}
	if err := s.SetResolutionMarks(ctx, marks); err != nil {
		t.Fatal(err)
	}
	got, err := s.ResolutionMarks(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("marks (-want +got):\n%s", diff)
	}
}
