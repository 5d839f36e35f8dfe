package resolve_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/contractgraph/contractgraph/internal/contract"
	"github.com/contractgraph/contractgraph/internal/graph"
	"github.com/contractgraph/contractgraph/internal/graph/sqlite"
	"github.com/contractgraph/contractgraph/internal/resolve"
)

func TestScoreRules(t *testing.T) {
	tests := []struct {
		a, b       resolve.Entity
		merge      bool
		reasonPart string
	}{
		{resolve.Entity{Name: "A.B. Watley, Inc."}, resolve.Entity{Name: "AB Wately, Inc."}, true, "typo"},
		{resolve.Entity{Name: "Bank of America, N. A"}, resolve.Entity{Name: "Bank of America, N.A."}, true, "spacing"},
		{resolve.Entity{Name: "Ingram Micro"}, resolve.Entity{Name: "INGRAM MICRO INC."}, true, "same normalised name"},
		{resolve.Entity{Name: "Franchisee"}, resolve.Entity{Name: "franchisee"}, false, "role word"},
		{resolve.Entity{Name: "[•]"}, resolve.Entity{Name: "[●]"}, false, "placeholder"},
		{resolve.Entity{Name: "BIA GP L.L.C."}, resolve.Entity{Name: "BIA GP L.P."}, false, "legal forms"},
		{resolve.Entity{Name: "Blackstone Holdings II L.P."}, resolve.Entity{Name: "Blackstone Holdings III L.P."}, false, "numerals"},
		{resolve.Entity{Name: "Mezzanine Partners Offshore LP"}, resolve.Entity{Name: "Mezzanine Partners Onshore LP"}, false, "differ"},
		{resolve.Entity{Name: "Acme Widgets Inc", ContractIDs: []string{"k"}}, resolve.Entity{Name: "ACME WIDGETS, INC.", ContractIDs: []string{"k"}}, false, "same contract"},
		{resolve.Entity{Name: "Acme Widgets Inc", Countries: []string{"US"}}, resolve.Entity{Name: "Acme Wigdets Inc", Countries: []string{"DE"}}, false, "different countries"},
		{resolve.Entity{Name: "Cargill, Incorporated"}, resolve.Entity{Name: "Cargill, Incorporated through its Bio Technology Development Center"}, true, "same"},
	}
	for _, tt := range tests {
		s := resolve.ScorePair(&tt.a, &tt.b, nil)
		if (s.Value >= resolve.DefaultThreshold) != tt.merge || !strings.Contains(s.Reason, tt.reasonPart) {
			t.Errorf("%q / %q: score %.3f (%s), want merge=%v with reason containing %q", tt.a.Name, tt.b.Name, s.Value, s.Reason, tt.merge, tt.reasonPart)
		}
	}
}

func TestPlanNeverChainsAcrossAVeto(t *testing.T) {
	// "Acme Holdings LLC" ~ "Acme Holdings" ~ "Acme Holdings L.P." by name, but
	// an LLC and an L.P. are two entities: the cluster must not join them.
	ents := []*resolve.Entity{
		{ID: "p1", Name: "Acme Holdings LLC", ContractIDs: []string{"a", "b"}},
		{ID: "p2", Name: "Acme Holdings", ContractIDs: []string{"c"}},
		{ID: "p3", Name: "Acme Holdings L.P.", ContractIDs: []string{"d"}},
	}
	merges, _ := resolve.Plan(ents, resolve.DefaultThreshold)
	if len(merges) != 1 || merges[0].CanonicalID != "p1" || len(merges[0].Others) != 1 || merges[0].Others[0].ID != "p2" {
		t.Fatalf("merges = %+v", merges)
	}
}

func TestRunOnSQLite(t *testing.T) {
	ctx := context.Background()
	store, err := sqlite.Open(filepath.Join(t.TempDir(), "g.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	cs := []*contract.Contract{
		{ID: "c1", Parties: []contract.PartyRole{{Name: "A.B. Watley, Inc.", Role: "Licensee"}, {Name: "Franchisee"}}},
		{ID: "c2", Parties: []contract.PartyRole{{Name: "AB Wately, Inc.", Role: "Licensee"}, {Name: "franchisee"}}},
		{ID: "c3", Parties: []contract.PartyRole{{Name: "A.B. Watley, Inc."}, {Name: "Omega Partners L.P."}}},
		{ID: "c4", Parties: []contract.PartyRole{{Name: "Omega Partners LLC"}}},
	}
	if _, err := store.PutContracts(ctx, cs); err != nil {
		t.Fatal(err)
	}
	dry, err := resolve.Run(ctx, store, resolve.Options{DryRun: true})
	if err != nil {
		t.Fatal(err)
	}
	type merge struct{ Canonical, Other string }
	var got []merge
	for _, m := range dry.Merges {
		for _, o := range m.Others {
			got = append(got, merge{m.CanonicalName, o.Name})
		}
	}
	if diff := cmp.Diff([]merge{{"A.B. Watley, Inc.", "AB Wately, Inc."}}, got); diff != "" {
		t.Fatalf("proposed merges (-want +got):\n%s", diff)
	}
	if dry.Applied {
		t.Error("dry run applied")
	}
	before, _ := store.Stats(ctx)
	rep, err := resolve.Run(ctx, store, resolve.Options{})
	if err != nil || !rep.Applied {
		t.Fatalf("run: %v %+v", err, rep)
	}
	after, _ := store.Stats(ctx)
	if after.Nodes["Party"] != before.Nodes["Party"]-1 {
		t.Errorf("parties %d -> %d, want one fewer", before.Nodes["Party"], after.Nodes["Party"])
	}
	res, _ := store.SearchParties(ctx, graph.PartyQuery{Name: "Watley", Limit: 5})
	if res.TotalCount != 1 || res.Examples[0].ContractCount != 3 {
		t.Errorf("after resolution: %+v", res)
	}
	// Running again finds nothing more to do.
	again, err := resolve.Run(ctx, store, resolve.Options{})
	if err != nil || len(again.Merges) != 0 {
		t.Errorf("second run: %v %+v", err, again)
	}
}
