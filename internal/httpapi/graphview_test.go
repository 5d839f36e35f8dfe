package httpapi

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"path/filepath"
	"strings"
	"testing"

	"github.com/contractgraph/contractgraph/internal/contract"
	"github.com/contractgraph/contractgraph/internal/graph"
	"github.com/contractgraph/contractgraph/internal/importer"
	"github.com/contractgraph/contractgraph/internal/sharedtest"
	"github.com/contractgraph/contractgraph/internal/web"
)

// northwindContracts are 50 contracts of Northwind Traders, of six types
// over eight years, with counterparties of which some recur; Contoso is
// written "Contoso Ltd", "Contoso Limited" (one party: the names differ
// only by the legal form) and, misspelt, "Kontoso Ltd".
func northwindContracts() []*contract.Contract {
	types := []string{"Supply", "Distributor", "License Agreement", "Service", "Joint Venture", "Consulting"}
	var cs []*contract.Contract
	for i := range 50 {
		other := fmt.Sprintf("Customer %02d GmbH", i%20)
		switch {
		case i%7 == 0:
			other = "Contoso Ltd"
		case i%7 == 3:
			other = "Contoso Limited"
		case i%7 == 5:
			other = "Kontoso Ltd"
		}
		cs = append(cs, &contract.Contract{
			ID: fmt.Sprintf("northwind-%02d", i), Title: types[i%len(types)] + " Agreement", ContractType: types[i%len(types)],
			EffectiveDate: fmt.Sprintf("%d-%02d-01", 2016+i%8, 1+i%12),
			Parties: []contract.PartyRole{
				{Name: "Northwind Traders", Role: "Supplier", Location: &contract.Location{Country: "US", State: "WA"}},
				{Name: other, Role: "Customer", Location: &contract.Location{Country: "DE"}},
			},
		})
	}
	return cs
}

// putNorthwind stores northwindContracts, merges the misspelt Kontoso into
// Contoso as entity resolution does, and returns the party ids of
// Northwind and Contoso.
func putNorthwind(t testing.TB, store graph.Store) (northwind, contoso string) {
	t.Helper()
	ctx := context.Background()
	out, err := store.PutContracts(ctx, northwindContracts())
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range out {
		if o.Err != nil {
			t.Fatalf("put %s: %v", o.ID, o.Err)
		}
	}
	ids := map[string]string{}
	for _, id := range []string{"northwind-00", "northwind-03", "northwind-05"} {
		c, err := store.GetContract(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range c.Parties {
			ids[p.Name] = p.PartyID
		}
	}
	if ids["Contoso Ltd"] != ids["Contoso Limited"] || ids["Contoso Ltd"] == ids["Kontoso Ltd"] {
		t.Fatalf("fixture: party ids %v", ids)
	}
	if err := store.(graph.PartyMerger).MergeParties(ctx, ids["Contoso Ltd"], []string{ids["Kontoso Ltd"]}); err != nil {
		t.Fatal(err)
	}
	return ids["Northwind Traders"], ids["Contoso Ltd"]
}

func getGraph(t *testing.T, s *Server, target string) web.Graph {
	t.Helper()
	rec := do(t, s.Handler(), "GET", target, "", nil)
	if rec.Code != 200 {
		t.Fatalf("GET %s: %d %s", target, rec.Code, rec.Body)
	}
	var g web.Graph
	if err := json.Unmarshal(rec.Body.Bytes(), &g); err != nil {
		t.Fatal(err)
	}
	return g
}

// A party with 50 contracts is drawn as clusters by type (or by year) with
// their counts over all its contracts, plus the parties it shares most
// contracts with; a party resolved from two spellings is one node.
func TestPartyGraphClusters(t *testing.T) {
	s, _ := newTestServer(t, nil)
	northwind, contoso := putNorthwind(t, s.store)

	for _, by := range []string{"", "year"} {
		g := getGraph(t, s, "/api/parties/"+url.PathEscape(northwind)+"/graph?by="+by)
		if len(g.Nodes) > 1+maxClusters+maxCounterparties {
			t.Errorf("by %q: %d nodes, want at most %d", by, len(g.Nodes), 1+maxClusters+maxCounterparties)
		}
		total, clusters, contosos := 0, 0, 0
		for _, n := range g.Nodes {
			switch {
			case n.Kind == web.KindContracts:
				clusters++
				total += n.Count
				if !strings.HasPrefix(n.Href, "/contracts?") || !strings.Contains(n.Href, "parties=Northwind+Traders") {
					t.Errorf("cluster %q opens %q, want its contracts list", n.Label, n.Href)
				}
			case n.Kind == web.KindContract:
				t.Errorf("by %q: contract %q drawn one by one", by, n.Label)
			case strings.Contains(n.Label, "ontoso"):
				contosos++
				if n.ID != "party:"+contoso || n.Href != web.PartyGraphURL(contoso) || n.Detail != "shares 22 contracts" {
					t.Errorf("Contoso node %+v, want party:%s opening its own graph, sharing 22 contracts", n, contoso)
				}
			}
		}
		wantClusters := map[string]int{"": 6, "year": 8}[by]
		if clusters != wantClusters || total != 50 {
			t.Errorf("by %q: %d clusters of %d contracts, want %d of 50", by, clusters, total, wantClusters)
		}
		if contosos != 1 {
			t.Errorf("by %q: Contoso drawn %d times, want once", by, contosos)
		}
	}

	// The same party in a contract's graph, and from its own graph page.
	c := getGraph(t, s, "/api/contracts/northwind-05/graph")
	for _, n := range c.Nodes {
		if n.Kind == web.KindParty && strings.Contains(n.Label, "ontoso") && n.ID != "party:"+contoso {
			t.Errorf("Contoso Limited drawn as %q, want the merged party:%s", n.ID, contoso)
		}
	}
	rec := do(t, s.Handler(), "GET", web.PartyGraphURL(northwind), "", nil)
	body := rec.Body.String()
	for _, want := range []string{"Its 50 contracts are grouped by type", `href="/parties/` + url.PathEscape(northwind) + `/graph?by=year">year</a>`, `<script type="application/json" id="graph-data">`} {
		if rec.Code != 200 || !strings.Contains(body, want) {
			t.Errorf("party graph page (%d) lacks %q", rec.Code, want)
		}
	}
}

// limeID is the CUAD contract with 46 annotated clauses of 19 types.
const limeID = "LIMEENERGYCO_09_09_1999-EX-10-DISTRIBUTOR AGREEMENT"

// putCUADContract imports one contract of the shared CUAD set into store.
func putCUADContract(t testing.TB, store graph.Store, id string) *contract.Contract {
	t.Helper()
	shared := sharedtest.Dir(t)
	var found *contract.Contract
	err := importer.Read(context.Background(), filepath.Join(shared, "data", "cuad", "master_clauses.csv"), importer.Options{}, func(r importer.Record) error {
		if r.Err == nil && r.Contract.ID == id {
			found = r.Contract
			return errEnough
		}
		return nil
	})
	if err != nil && !errors.Is(err, errEnough) {
		t.Fatal(err)
	}
	if found == nil {
		t.Fatalf("CUAD has no contract %q", id)
	}
	if _, err := store.PutContracts(context.Background(), []*contract.Contract{found}); err != nil {
		t.Fatal(err)
	}
	return found
}

// A CUAD contract's 46 clauses are drawn as one node per clause type with
// its count, each opening its first clause in the text.
func TestContractGraphGroupsClauses(t *testing.T) {
	s, _ := newTestServer(t, nil)
	c := putCUADContract(t, s.store, limeID)
	if len(c.Clauses) != 46 {
		t.Fatalf("%s has %d clauses, want 46", limeID, len(c.Clauses))
	}
	types := map[string]int{}
	for _, cl := range c.Clauses {
		types[cl.Type]++
	}
	g := getGraph(t, s, "/api/contracts/"+url.PathEscape(limeID)+"/graph")
	got := map[string]int{}
	for _, n := range g.Nodes {
		if n.Kind != web.KindClause {
			continue
		}
		got[n.Label] = n.Count
		if !strings.HasPrefix(n.Href, web.ContractURL(limeID)+"#clause-") {
			t.Errorf("clause node %q opens %q", n.Label, n.Href)
		}
	}
	if len(got) != len(types) || len(got) >= 46 {
		t.Errorf("%d clause nodes for %d clause types", len(got), len(types))
	}
	for typ, n := range types {
		if got[typ] != n {
			t.Errorf("clause type %q drawn with count %d, want %d", typ, got[typ], n)
		}
	}
}
