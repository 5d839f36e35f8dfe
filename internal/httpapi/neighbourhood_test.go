package httpapi

import (
	"context"
	"encoding/json"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/contractgraph/contractgraph/internal/contract"
	"github.com/contractgraph/contractgraph/internal/graph"
	"github.com/contractgraph/contractgraph/internal/web"
)

// partyEdges fetches the party graph of id and lists its PARTY_TO edges as
// "party -role-> contract".
func partyEdges(t *testing.T, s *Server, id string) []string {
	t.Helper()
	rec := do(t, s.Handler(), "GET", "/api/parties/"+url.PathEscape(id)+"/graph", "", nil)
	if rec.Code != 200 {
		t.Fatalf("party graph of %q: %d %s", id, rec.Code, rec.Body)
	}
	var g web.Graph
	if err := json.Unmarshal(rec.Body.Bytes(), &g); err != nil {
		t.Fatal(err)
	}
	label := map[string]string{}
	for _, n := range g.Nodes {
		label[n.ID] = n.Label
	}
	var edges []string
	for _, e := range g.Edges {
		edges = append(edges, label[e.Source]+" -"+e.Role+"-> "+label[e.Target])
	}
	slices.Sort(edges)
	return edges
}

// The party pages find the party by the id its contracts give it (one beyond
// ASCII too), draw its own contracts only, follow merges, and answer 404 for
// an id no party has.
func TestPartyGraphByID(t *testing.T) {
	s, _ := newTestServer(t, nil)
	ctx := context.Background()
	out, err := s.store.PutContracts(ctx, []*contract.Contract{
		{ID: "mueller-supply", Title: "Müller Supply", ContractType: "Supply", EffectiveDate: "2022-05-01", Parties: []contract.PartyRole{
			{Name: "Müller GmbH", Role: "Supplier", Location: &contract.Location{Country: "DE"}},
			{Name: "Acme Corp", Role: "Buyer"},
		}},
		// A name containing Acme's: not one of Acme's contracts.
		{ID: "holdings-lease", Title: "Holdings Lease", ContractType: "Lease", EffectiveDate: "2023-01-01", Parties: []contract.PartyRole{
			{Name: "Acme Corp Holdings", Role: "Tenant"}, {Name: "Umbrella Corporation", Role: "Landlord"},
		}},
	})
	if err != nil || out[0].Err != nil || out[1].Err != nil {
		t.Fatalf("put: %v %+v", err, out)
	}
	ids := map[string]string{}
	for _, cid := range []string{"mueller-supply", "holdings-lease"} {
		c, err := s.store.GetContract(ctx, cid)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range c.Parties {
			ids[p.Name] = p.PartyID
		}
	}

	want := []string{"Acme Corp -Buyer-> Müller Supply", "Müller GmbH -Supplier-> Müller Supply"}
	if diff := cmp.Diff(want, partyEdges(t, s, ids["Müller GmbH"])); diff != "" {
		t.Errorf("Müller's graph (-want +got):\n%s", diff)
	}
	rec := do(t, s.Handler(), "GET", web.PartyGraphURL(ids["Müller GmbH"]), "", nil)
	if rec.Code != 200 || !strings.Contains(rec.Body.String(), "Müller GmbH and its contracts") {
		t.Errorf("Müller's page: %d", rec.Code)
	}
	want = []string{
		"Acme Corp -Buyer-> Müller Supply",
		"Acme Corp -Distributor-> Acme Distribution Agreement",
		"Acme Corp -Licensee-> Initech Software License",
		"Globex Ltd -Supplier-> Acme Distribution Agreement",
		"Initech Inc. -Licensor-> Initech Software License",
		"Müller GmbH -Supplier-> Müller Supply",
	}
	if diff := cmp.Diff(want, partyEdges(t, s, ids["Acme Corp"])); diff != "" {
		t.Errorf("Acme's graph (-want +got):\n%s", diff)
	}

	// Merged into Acme, the holdings company's contract is Acme's, drawn
	// under the name the contract writes, and its old id is gone.
	if err := s.store.(graph.PartyMerger).MergeParties(ctx, ids["Acme Corp"], []string{ids["Acme Corp Holdings"]}); err != nil {
		t.Fatal(err)
	}
	want = append(want, "Acme Corp -Tenant-> Holdings Lease", "Umbrella Corporation -Landlord-> Holdings Lease")
	slices.Sort(want)
	if diff := cmp.Diff(want, partyEdges(t, s, ids["Acme Corp"])); diff != "" {
		t.Errorf("Acme's graph after the merge (-want +got):\n%s", diff)
	}
	for _, id := range []string{ids["Acme Corp Holdings"], "nobody-at-all", "acme-corp"} {
		rec := do(t, s.Handler(), "GET", "/api/parties/"+url.PathEscape(id)+"/graph", "", nil)
		if rec.Code != 404 || errorOf(t, rec.Body.Bytes()).Code != codeNotFound {
			t.Errorf("graph of unknown party %q: %d %s, want 404 not_found", id, rec.Code, rec.Body)
		}
		if rec := do(t, s.Handler(), "GET", web.PartyGraphURL(id), "", nil); rec.Code != 404 {
			t.Errorf("page of unknown party %q: %d, want 404", id, rec.Code)
		}
	}
}
