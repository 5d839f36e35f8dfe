package graphtest

import (
	"context"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/contractgraph/contractgraph/internal/contract"

	"github.com/contractgraph/contractgraph/internal/graph"
)

// testLinks writes AMENDS and SUPPLEMENTS links between contracts of the
// fixture and reads them back from either end; refuses invalid links and
// links to contracts that do not exist without changing anything; keeps a
// manual link over a detected one; and drops a contract's links when the
// contract is replaced or deleted.
func testLinks(t *testing.T, s graph.Store) {
	ctx := context.Background()
	ls, ok := s.(graph.LinkStore)
	if !ok {
		t.Fatalf("%T is not a graph.LinkStore", s)
	}
	if got, err := ls.ContractLinks(ctx, ""); err != nil || len(got) != 0 {
		t.Fatalf("links of a new store = %+v, %v", got, err)
	}
	detected := []graph.ContractLink{
		{From: "c03", To: "c01", Kind: graph.LinkSupplements, Confidence: 0.8, Quote: "Schedule A", Start: 0, End: 10, Source: graph.LinkDetected},
		{From: "c02", To: "c01", Kind: graph.LinkAmends, Confidence: 0.9, Quote: "Amendment No. 1 to the Supply Agreement", Start: 5, End: 44, Source: graph.LinkDetected},
		{From: "c05", To: "c04", Kind: graph.LinkAmends, Restates: true, Confidence: 0.75, Quote: "Amended and Restated", Source: graph.LinkDetected},
	}
	if err := ls.ReplaceLinks(ctx, graph.LinkDetected, detected); err != nil {
		t.Fatal(err)
	}
	all, err := ls.ContractLinks(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	want := []graph.ContractLink{detected[1], detected[0], detected[2]}
	if diff := cmp.Diff(want, all); diff != "" {
		t.Errorf("all links (-want +got):\n%s", diff)
	}
	for id, want := range map[string][]graph.ContractLink{
		"c01": {detected[1], detected[0]}, "c02": {detected[1]}, "c04": {detected[2]}, "c09": {}, "no-such": {},
	} {
		got, err := ls.ContractLinks(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("links of %s (-want +got):\n%s", id, diff)
		}
	}

	// Refused links change nothing.
	for _, bad := range []struct {
		links []graph.ContractLink
		want  error
	}{
		{[]graph.ContractLink{{From: "c01", To: "c01", Kind: graph.LinkAmends, Source: graph.LinkDetected}}, graph.ErrInvalidQuery},
		{[]graph.ContractLink{{From: "c01", To: "c02", Kind: "REPLACES", Source: graph.LinkDetected}}, graph.ErrInvalidQuery},
		{[]graph.ContractLink{{From: "c01", To: "c02", Kind: graph.LinkAmends, Source: graph.LinkManual}}, graph.ErrInvalidQuery},
		{[]graph.ContractLink{{From: "c01", To: "c02", Kind: graph.LinkAmends, Confidence: 2, Source: graph.LinkDetected}}, graph.ErrInvalidQuery},
		{[]graph.ContractLink{{From: "c06", To: "c07", Kind: graph.LinkAmends, Source: graph.LinkDetected},
			{From: "c06", To: "no-such-contract", Kind: graph.LinkAmends, Source: graph.LinkDetected}}, graph.ErrNotFound},
	} {
		err := ls.ReplaceLinks(ctx, graph.LinkDetected, bad.links)
		if !errors.Is(err, bad.want) {
			t.Errorf("ReplaceLinks(%+v) = %v, want %v", bad.links, err, bad.want)
		}
	}
	if got, _ := ls.ContractLinks(ctx, ""); !cmp.Equal(want, got) {
		t.Errorf("refused writes changed the links: %+v", got)
	}

	// A manual link outranks the detected one with its key, and stays
	// when detection runs again.
	manual := graph.ContractLink{From: "c02", To: "c01", Kind: graph.LinkAmends, Confidence: 1, Source: graph.LinkManual}
	if err := ls.ReplaceLinks(ctx, graph.LinkManual, []graph.ContractLink{manual}); err != nil {
		t.Fatal(err)
	}
	again := []graph.ContractLink{detected[1], detected[2]}
	if err := ls.ReplaceLinks(ctx, graph.LinkDetected, again); err != nil {
		t.Fatal(err)
	}
	got, err := ls.ContractLinks(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]graph.ContractLink{manual, detected[2]}, got); diff != "" {
		t.Errorf("after a manual link and detection again (-want +got):\n%s", diff)
	}

	// Replacing c05 drops its link; deleting c01 drops the manual one.
	fx := Fixture()
	c05 := fx[4]
	c05.Summary += " Revised."
	if out, err := s.PutContracts(ctx, []*contract.Contract{c05}); err != nil || out[0].Status != graph.PutUpdated {
		t.Fatalf("update c05: %+v, %v", out, err)
	}
	if got, _ := ls.ContractLinks(ctx, "c05"); len(got) != 0 {
		t.Errorf("links of a replaced contract: %+v", got)
	}
	d, ok := s.(graph.ContractDeleter)
	if !ok {
		t.Fatalf("%T is not a graph.ContractDeleter", s)
	}
	if _, err := d.DeleteContracts(ctx, []string{"c01"}); err != nil {
		t.Fatal(err)
	}
	if got, _ := ls.ContractLinks(ctx, ""); len(got) != 0 {
		t.Errorf("links after deleting their master: %+v", got)
	}
}
