package sqlite

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/contractgraph/contractgraph/internal/contract"
	"github.com/contractgraph/contractgraph/internal/graph"
)

// TestContractHeads lists more than a page of contracts' heads and checks
// each against the whole contract as GetContract reads it (through
// Contracts): the same fields, parties with their resolved ids, and the
// text cut at the byte, also inside a multi-byte rune.
func TestContractHeads(t *testing.T) {
	s := openTemp(t)
	ctx := context.Background()
	var cs []*contract.Contract
	for i := range headsPage + 7 {
		c := &contract.Contract{ID: fmt.Sprintf("c-%05d", i), Title: fmt.Sprintf("Amendment No. %d", i),
			Parties: []contract.PartyRole{{Name: "Acme Corp."}, {Name: fmt.Sprintf("Büro %d GmbH", i%50), Role: "Supplier"}}}
		switch i % 3 {
		case 0:
			c.ContractType, c.EffectiveDate = "Service", "2020-01-02"
			c.Text = strings.Repeat("é", 6) + " this Amendment amends the Master Agreement"
		case 1:
			c.Text = "short text"
		}
		cs = append(cs, c)
	}
	for i := 0; i < len(cs); i += 1000 {
		putAll(t, s, cs[i:min(i+1000, len(cs))]...)
	}
	const cut = 5 // inside the third "é"
	var want []graph.ContractHead
	err := s.Contracts(ctx, func(c *contract.Contract) error {
		h := graph.ContractHead{ID: c.ID, Title: c.Title, ContractType: c.ContractType, EffectiveDate: c.EffectiveDate, Text: c.Text}
		if len(h.Text) > cut {
			h.Text = h.Text[:cut]
		}
		for _, p := range c.Parties {
			h.Parties = append(h.Parties, graph.HeadParty{ID: p.PartyID, Name: p.Name})
		}
		want = append(want, h)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	var got []graph.ContractHead
	if err := s.ContractHeads(ctx, cut, func(h graph.ContractHead) error { got = append(got, h); return nil }); err != nil {
		t.Fatal(err)
	}
	if len(want) != len(cs) {
		t.Fatalf("Contracts listed %d contracts, want %d", len(want), len(cs))
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("ContractHeads differs from the stored contracts (-want +got):\n%s", diff)
	}
	if got[0].Text != "éé\xc3" || len(got[0].Parties) != 2 || got[0].Parties[0].ID == "" {
		t.Errorf("first head %+v: want the text cut at byte %d and two parties with ids", got[0], cut)
	}

	stop := errors.New("stop")
	n := 0
	err = s.ContractHeads(ctx, cut, func(graph.ContractHead) error {
		if n++; n == 3 {
			return stop
		}
		return nil
	})
	if !errors.Is(err, stop) || n != 3 {
		t.Errorf("fn's error after %d heads: got %v, want the error itself after 3", n, err)
	}
	if err := s.ContractHeads(ctx, 0, func(graph.ContractHead) error { return nil }); err == nil {
		t.Error("text bytes 0: no error")
	}
}
