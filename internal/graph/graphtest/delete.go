package graphtest

import (
	"context"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/contractgraph/contractgraph/internal/contract"
	"github.com/contractgraph/contractgraph/internal/graph"
)

// testDelete deletes a contract of the fixture: it is gone from every
// query, its clauses, chunks and roles with it, and so are the parties and
// locations no other contract uses, while shared ones stay; putting it back
// restores the stats exactly; deleting everything leaves an empty graph.
func testDelete(t *testing.T, s graph.Store) {
	ctx := context.Background()
	d, ok := s.(graph.ContractDeleter)
	if !ok {
		t.Fatalf("%T is not a graph.ContractDeleter", s)
	}
	before, err := s.Stats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	fx := Fixture()
	// c11 has a party of its own (Lambda Sports) and Acme, whom others
	// share; c01 clauses, a text and Beta, whom c06 shares.
	victims := []*contract.Contract{fx[10], fx[0]}
	var storedClauses, storedChunks int
	for _, v := range victims {
		c, err := s.GetContract(ctx, v.ID)
		if err != nil {
			t.Fatal(err)
		}
		storedClauses += len(c.Clauses)
		storedChunks += len(c.Chunks)
	}
	if storedClauses == 0 {
		t.Fatal("the victims have no clauses: the test would not see them go")
	}
	got, err := d.DeleteContracts(ctx, []string{"c11", "no-such-contract", "c01", "c11"})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"c11", "c01"}, got); diff != "" {
		t.Errorf("deleted (-want +got):\n%s", diff)
	}
	for _, v := range victims {
		if _, err := s.GetContract(ctx, v.ID); !errors.Is(err, graph.ErrNotFound) {
			t.Errorf("GetContract(%s) after delete: %v, want ErrNotFound", v.ID, err)
		}
	}
	if h, err := s.SearchClauses(ctx, graph.ClauseQuery{Query: "widgets supply terminate", Filter: graph.Filter{ContractIDs: []string{"c01"}}, Limit: 5}); err != nil || len(h) != 0 {
		t.Errorf("clause search in the deleted contract = %+v, %v", h, err)
	}

	// What remains is exactly what the other contracts use.
	parties := map[string]bool{}
	locations := map[string]bool{}
	roles, clauses, chunks, laws := 0, 0, 0, 0
	err = s.Contracts(ctx, func(c *contract.Contract) error {
		for _, p := range c.Parties {
			parties[p.PartyID] = true
			if p.Location != nil {
				locations[graph.LocationID(p.Location)] = true
			}
		}
		if c.GoverningLaw != nil {
			locations[graph.LocationID(c.GoverningLaw)] = true
			laws++
		}
		roles += len(c.Parties)
		clauses += len(c.Clauses)
		chunks += len(c.Chunks)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	after, err := s.Stats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]int{"Contract": before.Nodes["Contract"] - 2, "Party": len(parties), "Location": len(locations),
		"Clause": before.Nodes["Clause"] - storedClauses, "Chunk": before.Nodes["Chunk"] - storedChunks}
	for label, n := range want {
		if after.Nodes[label] != n {
			t.Errorf("%s nodes after delete = %d, want %d", label, after.Nodes[label], n)
		}
	}
	if clauses != want["Clause"] || chunks != want["Chunk"] {
		t.Errorf("remaining contracts hold %d clauses, %d chunks; the stats say %d, %d", clauses, chunks, want["Clause"], want["Chunk"])
	}
	if after.Relationships["PARTY_TO"] != roles || after.Relationships["HAS_GOVERNING_LAW"] != laws {
		t.Errorf("relationships after delete = %v, want %d PARTY_TO, %d HAS_GOVERNING_LAW", after.Relationships, roles, laws)
	}
	if after.Nodes["Party"] >= before.Nodes["Party"] || after.Nodes["Party"] == 0 {
		t.Errorf("parties %d -> %d: the deleted contract's own party should go, shared ones stay", before.Nodes["Party"], after.Nodes["Party"])
	}
	if r, err := s.SearchParties(ctx, graph.PartyQuery{Name: "lambda", Limit: 5}); err != nil || r.TotalCount != 0 {
		t.Errorf("parties named lambda after deleting c11 = %+v, %v", r, err)
	}
	if r, err := s.SearchParties(ctx, graph.PartyQuery{Name: "beta", Limit: 5}); err != nil || r.TotalCount != 1 || r.Examples[0].ContractCount != 1 {
		t.Errorf("Beta, also party to c06, after deleting c01 = %+v, %v", r, err)
	}

	// Putting them back restores the graph.
	if out, err := s.PutContracts(ctx, victims); err != nil || statuses(out)[0] != "c11:created" || statuses(out)[1] != "c01:created" {
		t.Fatalf("put back: %+v, %v", out, err)
	}
	restored, err := s.Stats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(before, restored); diff != "" {
		t.Errorf("stats after putting the contract back (-before +after):\n%s", diff)
	}

	// Deleting everything leaves nothing behind.
	var all []string
	for _, c := range fx {
		all = append(all, c.ID)
	}
	if got, err := d.DeleteContracts(ctx, all); err != nil || len(got) != len(fx) {
		t.Fatalf("delete all: %d deleted, %v", len(got), err)
	}
	empty, err := s.Stats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for label, n := range empty.Nodes {
		if n != 0 && label != "Statute" {
			t.Errorf("%d %s nodes left after deleting every contract", n, label)
		}
	}
	for typ, n := range empty.Relationships {
		if n != 0 {
			t.Errorf("%d %s relationships left after deleting every contract", n, typ)
		}
	}
	if got, err := d.DeleteContracts(ctx, nil); err != nil || len(got) != 0 {
		t.Errorf("delete of nothing: %v, %v", got, err)
	}
}
