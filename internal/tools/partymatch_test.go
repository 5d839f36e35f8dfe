package tools_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/contractgraph/contractgraph/internal/graph"
	"github.com/contractgraph/contractgraph/internal/graph/graphtest"
	"github.com/contractgraph/contractgraph/internal/graph/sqlite"
	"github.com/contractgraph/contractgraph/internal/tools"
)

// partyToolSet is the tool set over an embedded store holding
// graphtest.Fixture, with opts.
func partyToolSet(t *testing.T, opts tools.Options) *tools.Set {
	t.Helper()
	store, err := sqlite.Open(filepath.Join(t.TempDir(), "fixture.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	if _, err := store.PutContracts(context.Background(), graphtest.Fixture()); err != nil {
		t.Fatal(err)
	}
	return tools.New(store, opts)
}

// TestPartyTypos checks that a misspelt party finds the party through every
// tool that takes one, saying what it was taken for, and that
// ExactParties turns that off.
func TestPartyTypos(t *testing.T) {
	ctx := context.Background()
	lambda := []graph.PartyMatch{{Entry: "Lamda Sports", Parties: []string{"Lambda Sports"}, Edits: 1}}
	type result struct {
		TotalCount   int                `json:"total_count"`
		TotalGroups  int                `json:"total_groups"`
		Groups       []graph.Group      `json:"groups"`
		Examples     []json.RawMessage  `json:"examples"`
		PartyMatches []graph.PartyMatch `json:"party_matches"`
	}
	cases := []struct {
		tool, args string
		exact      bool
		total      int // total_count, or the count of the one group
		matches    []graph.PartyMatch
	}{
		{tools.NameContractSearch, `{"parties":["Lamda Sports"]}`, false, 1, lambda},
		{tools.NameContractSearch, `{"parties":["Lamda Sports"]}`, true, 0, nil},
		{tools.NameContractAggregate, `{"parties":["Lamda Sports"]}`, false, 1, lambda},
		{tools.NamePartySearch, `{"name":"Lamda Sports"}`, false, 1, lambda},
		{tools.NamePartySearch, `{"name":"Lamda Sports"}`, true, 0, nil},
		// The name is there; the country excludes it: no typo is guessed.
		{tools.NamePartySearch, `{"name":"lambda","country":"CA"}`, false, 0, nil},
		{tools.NameContractSearch, `{"parties":["gamma","lambda"],"parties_match":"any"}`, false, 3, nil},
		{tools.NameContractSearch, `{"parties":["gamma","lambda"]}`, false, 0, nil},
		{tools.NameContractSearch, `{"parties":["Gama","Lamda Sports"],"parties_match":"any"}`, false, 3,
			[]graph.PartyMatch{{Entry: "Gama", Parties: []string{"Gamma Limited"}, Edits: 1}, lambda[0]}},
		{tools.NameContractSearch, `{"parties":["Qwertyuiop"]}`, false, 0, []graph.PartyMatch{{Entry: "Qwertyuiop", Parties: []string{}}}},
	}
	for _, c := range cases {
		set := partyToolSet(t, tools.Options{ExactParties: c.exact})
		out, err := set.Call(ctx, c.tool, json.RawMessage(c.args))
		if err != nil {
			t.Fatalf("%s %s: %v", c.tool, c.args, err)
		}
		var r result
		if err := json.Unmarshal(out, &r); err != nil {
			t.Fatal(err)
		}
		total := r.TotalCount
		if c.tool == tools.NameContractAggregate {
			total = r.Groups[0].Count
		}
		if total != c.total {
			t.Errorf("%s %s (exact %v): %d, want %d", c.tool, c.args, c.exact, total, c.total)
		}
		if diff := cmp.Diff(c.matches, r.PartyMatches); diff != "" {
			t.Errorf("%s %s (exact %v): party_matches (-want +got):\n%s", c.tool, c.args, c.exact, diff)
		}
		if len(c.matches) == 0 {
			continue
		}
		var text bytes.Buffer
		if err := tools.WriteText(&text, c.tool, json.RawMessage(c.args), out, tools.TextOptions{}); err != nil {
			t.Fatal(err)
		}
		m := c.matches[0]
		want := m.Entry + " → " + strings.Join(m.Parties, ", ")
		if len(m.Parties) == 0 {
			want = "no party name contains"
		}
		if !strings.Contains(text.String(), want) {
			t.Errorf("%s %s: text lacks %q:\n%s", c.tool, c.args, want, text.String())
		}
	}

	set := partyToolSet(t, tools.Options{})
	_, err := set.Call(ctx, tools.NameContractSearch, json.RawMessage(`{"parties":["acme"],"parties_match":"either"}`))
	var ae *tools.ArgError
	if !errors.As(err, &ae) || ae.Field != "parties_match" {
		t.Errorf("parties_match either: %v, want an argument error naming parties_match", err)
	}
}
