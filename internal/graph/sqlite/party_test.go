package sqlite

import (
	"context"
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
