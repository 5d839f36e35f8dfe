package importer

import (
	"bytes"
	"context"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/contractgraph/contractgraph/internal/contract"
	"github.com/contractgraph/contractgraph/internal/graph"
)

var update = flag.Bool("update", false, "rewrite golden files in testdata")

// listStore is a hand-written fake: a graph.Store whose Contracts lists a
// fixed slice. Export uses nothing else.
type listStore struct {
	graph.Store
	cs []*contract.Contract
}

func (s listStore) Contracts(ctx context.Context, fn func(*contract.Contract) error) error {
	for _, c := range s.cs {
		if err := fn(c); err != nil {
			return err
		}
	}
	return nil
}

func TestExportGolden(t *testing.T) {
	amount, days := 250000.0, 730
	cs := []*contract.Contract{
		{
			ID: "acme-beta-2019", Title: "Distribution Agreement", ContractType: "Distributor",
			EffectiveDate: "2019-03-01", EndDate: "2021-03-01", Duration: "P2Y", DurationDays: &days,
			TotalAmount: &amount, Currency: "USD", Summary: "Acme appoints Beta <exclusive> distributor & more.",
			GoverningLaw: &contract.Location{Country: "US", State: "NY"},
			Parties: []contract.PartyRole{
				{PartyID: "p-acme", Name: "Acme Corp.", Role: "Supplier", Location: &contract.Location{Country: "US", State: "DE"}},
				{PartyID: "p-beta", Name: "Beta GmbH", Role: "Distributor", Location: &contract.Location{Country: "DE", City: "Munich"}},
			},
			Text: "Acme appoints Beta. Governed by New York law.",
			Clauses: []contract.Clause{
				{ID: "c1", Type: "Governing Law", Group: contract.GroupGeneral, Text: "Governed by New York law.", Start: 20, End: 45, Verified: true},
			},
		},
		{ID: "bare"},
	}
	var buf bytes.Buffer
	if err := Export(context.Background(), listStore{cs: cs}, &buf); err != nil {
		t.Fatal(err)
	}
	golden := filepath.Join("testdata", "export.golden.jsonl")
	if *update {
		if err := os.WriteFile(golden, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if diff := cmp.Diff(string(want), buf.String()); diff != "" {
		t.Errorf("export differs from %s (-want +got):\n%s", golden, diff)
	}
	// The store's party ids are not exported, and the input is not changed.
	if bytes.Contains(buf.Bytes(), []byte("p-acme")) || cs[0].Parties[0].PartyID != "p-acme" {
		t.Error("party ids leaked into the export or were cleared in the store's contract")
	}
	// What was exported reads back as the same contracts, less party ids.
	path := filepath.Join(t.TempDir(), "x.jsonl")
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	var got []*contract.Contract
	for _, r := range readAll(t, path, Options{}) {
		if r.Err != nil {
			t.Fatal(r.Err)
		}
		got = append(got, r.Contract)
	}
	if diff := cmp.Diff(cs, got, cmpIgnorePartyIDs); diff != "" {
		t.Errorf("read back (-exported +read):\n%s", diff)
	}
}
