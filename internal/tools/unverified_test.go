package tools_test

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/contractgraph/contractgraph/internal/contract"
	"github.com/contractgraph/contractgraph/internal/graph"
	"github.com/contractgraph/contractgraph/internal/graph/graphtest"
	"github.com/contractgraph/contractgraph/internal/graph/sqlite"
	"github.com/contractgraph/contractgraph/internal/tools"
)

// An invented effective date (c13's 2099-03-03, whose quote is not in the
// text) is no fact for contract_search or contract_aggregate unless the
// call includes unverified values, and every result that shows it marks
// it: the JSON, the readable text of contract_search and get_contract.
func TestUnverifiedValuesAreMarkedAndLeftOut(t *testing.T) {
	ctx := context.Background()
	store, err := sqlite.Open(filepath.Join(t.TempDir(), "unverified.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	if _, err := store.PutContracts(ctx, append(graphtest.Fixture(), graphtest.UnverifiedContract())); err != nil {
		t.Fatal(err)
	}
	set := tools.New(store, tools.Options{})
	call := func(tool, args string) json.RawMessage {
		t.Helper()
		out, err := set.Call(ctx, tool, json.RawMessage(args))
		if err != nil {
			t.Fatalf("%s %s: %v", tool, args, err)
		}
		return out
	}
	search := func(args string) graph.ContractResult {
		t.Helper()
		var r graph.ContractResult
		if err := json.Unmarshal(call(tools.NameContractSearch, args), &r); err != nil {
			t.Fatal(err)
		}
		return r
	}

	if r := search(`{"min_effective_date":"2090-01-01"}`); r.TotalCount != 0 {
		t.Errorf("min_effective_date 2090: %d contracts, want 0 (c13's date is unverified)", r.TotalCount)
	}
	args := `{"min_effective_date":"2090-01-01","include_unverified":true}`
	r := search(args)
	if r.TotalCount != 1 || r.Examples[0].ContractID != "c13" {
		t.Fatalf("with include_unverified: %+v, want c13", r)
	}
	if reason := contract.UnverifiedField(r.Examples[0].Unverified, "effective_date"); reason != contract.ReasonNotFound {
		t.Errorf("c13's effective_date mark = %q, want %q", reason, contract.ReasonNotFound)
	}
	var text bytes.Buffer
	if err := tools.WriteText(&text, tools.NameContractSearch, json.RawMessage(args), call(tools.NameContractSearch, args), tools.TextOptions{}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"2099-03-03 (unverified)", "2100-03-03 (unverified)", "GBP 9,000,000,000 (unverified)", "Acme Phantom Holdings (unverified)", "unless include_unverified is set"} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("contract_search text lacks %q:\n%s", want, text.String())
		}
	}

	// The year 2099 is no group of the default aggregate.
	var agg graph.AggregateResult
	if err := json.Unmarshal(call(tools.NameContractAggregate, `{"group_by":"effective_year","limit":100}`), &agg); err != nil {
		t.Fatal(err)
	}
	for _, g := range agg.Groups {
		if g.Key == "2099" {
			t.Errorf("effective_year groups hold 2099 (%d contracts) without include_unverified", g.Count)
		}
	}

	out := call(tools.NameGetContract, `{"contract_id":"c13"}`)
	var rec tools.ContractRecord
	if err := json.Unmarshal(out, &rec); err != nil {
		t.Fatal(err)
	}
	if len(rec.Unverified) != 8 || contract.UnverifiedParty(rec.Unverified, "Acme Phantom Holdings") == "" || contract.UnverifiedParty(rec.Unverified, "Nu Sponsorship Partners") != "" {
		t.Errorf("get_contract c13 unverified = %+v, want 8 marks, Acme Phantom Holdings among them and not Nu", rec.Unverified)
	}
	text.Reset()
	if err := tools.WriteText(&text, tools.NameGetContract, nil, out, tools.TextOptions{}); err != nil {
		t.Fatal(err)
	}
	flat := strings.Join(strings.Fields(text.String()), " ") // as wrapped
	for _, want := range []string{
		"2099-03-03 [unverified: " + contract.ReasonNotFound + "]",
		"2100-03-03 [unverified: worked out from an unverified effective_date]",
		"automatic P1Y [unverified: renewal_kind: " + contract.ReasonNotFound + "]",
		"Acme Phantom Holdings (Sponsor, CA) [unverified: " + contract.ReasonNotFound + "]",
	} {
		if !strings.Contains(flat, want) {
			t.Errorf("get_contract text lacks %q:\n%s", want, text.String())
		}
	}
	if strings.Contains(flat, "Nu Sponsorship Partners (Organizer, NZ) [unverified") {
		t.Errorf("get_contract text marks the verified party Nu:\n%s", text.String())
	}
}
