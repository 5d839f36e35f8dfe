package contract

import (
	"reflect"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestSourcePrecedence(t *testing.T) {
	// From the highest precedence down; each precedes every later one.
	order := []string{"cuad-v1", "openai:gpt-4o-mini", ReferenceSource, "", "synth"}
	for i, a := range order {
		for j, b := range order {
			if got, want := Precedes(a, b), i < j; got != want && SourceKey(a) != SourceKey(b) {
				t.Errorf("Precedes(%q, %q) = %v, want %v", a, b, got, want)
			}
		}
	}
	for _, same := range [][2]string{{"cuad-v1", "CUAD-v2"}, {"openai:gpt-4o", "ollama:qwen2.5:7b"}} {
		if SourceKey(same[0]) != SourceKey(same[1]) {
			t.Errorf("%q and %q are not one source", same[0], same[1])
		}
	}
	if SourceKey("synth") == SourceKey("") {
		t.Error("two unranked labels are one source")
	}
}

func ptr[T any](v T) *T { return &v }

// mergePair is a reference-like and an expert-like record of one contract.
func mergePair() (ref, exp *Contract) {
	ref = &Contract{ID: "x", ExtractedBy: ReferenceSource, Summary: "S", EndDate: "2020-01-01",
		TotalAmount: ptr(10.0), Currency: "EUR", GoverningLaw: &Location{Country: "US", State: "NY", City: "New York"},
		Parties: []PartyRole{
			{Name: "General Electric Capital Corporation together with its successors", Role: "Lender", Location: &Location{Country: "US"}},
			{Name: "Alco Stores, Inc.", Role: "Borrower"},
			{Name: "Only In Reference LLC"},
		},
		Clauses: []Clause{{Type: "Insurance", Summary: "insured"}},
	}
	exp = &Contract{ID: "x", ExtractedBy: "cuad-v1", EffectiveDate: "2019-01-01", TotalAmount: ptr(12.0), Currency: "USD",
		GoverningLaw: &Location{Country: "US", State: "NY"},
		Parties: []PartyRole{
			{Name: "Alco Stores (Borrower)", Role: "Borrower", Location: &Location{Country: "US", State: "KS"}},
			{Name: "General Electric Capital Corporation"},
		},
		Clauses: []Clause{{Type: "Insurance", Text: "shall insure"}},
	}
	return ref, exp
}

func TestMergeOrderAndIdempotence(t *testing.T) {
	ref, exp := mergePair()
	a, repA := Merge(ref, exp)
	ref, exp = mergePair()
	b, repB := Merge(exp, ref)
	if diff := cmp.Diff(a, b); diff != "" {
		t.Fatalf("Merge depends on the order (-ref first +expert first):\n%s", diff)
	}
	if len(repA.Conflicts) != 1 || len(repB.Conflicts) != 1 || repA.Conflicts[0].Field != "total_amount" || repA.Conflicts[0].Kept != "12 USD" || repA.Conflicts[0].Other != "10 EUR" {
		t.Errorf("conflicts = %+v / %+v, want the amount, USD kept over EUR", repA.Conflicts, repB.Conflicts)
	}
	var names []string
	for _, p := range a.Parties {
		names = append(names, p.Name+"|"+p.Role+"|"+p.Location.String())
	}
	want := []string{"Alco Stores (Borrower)|Borrower|KS, US", "General Electric Capital Corporation|Lender|US", "Only In Reference LLC||"}
	if diff := cmp.Diff(want, names); diff != "" {
		t.Errorf("parties (-want +got):\n%s", diff)
	}
	if got := a.GoverningLaw.String(); got != "New York, NY, US" {
		t.Errorf("governing law %q, want the union of both", got)
	}
	if a.Summary != "S" || a.EffectiveDate != "2019-01-01" || len(a.Clauses) != 2 {
		t.Errorf("merged = %+v", a)
	}
	// Merging either record again changes nothing.
	for _, rec := range []*Contract{ref, exp, a} {
		again, rep := Merge(a, rec)
		if diff := cmp.Diff(a, again); diff != "" {
			t.Errorf("merging %q again changed the contract:\n%s", rec.ExtractedBy, diff)
		}
		if rec == a && rep.Merged() {
			t.Errorf("merging the contract with itself reports %+v", rep)
		}
	}
}

func TestMergeRelocatesSpans(t *testing.T) {
	old := &Contract{ID: "x", ExtractedBy: "openai:gpt-4o", Text: "abc PAY NOW def",
		Clauses: []Clause{{Type: "Payment", Text: "PAY NOW", Start: 4, End: 11, Verified: true}, {Type: "Audit Rights", Text: "audit", Start: 0, End: 3}}}
	inc := &Contract{ID: "x", ExtractedBy: "cuad-v1", Text: "xx PAY NOW"}
	got, rep := Merge(old, inc)
	if got.Text != inc.Text || len(rep.Conflicts) != 1 || rep.Conflicts[0].Field != "text" {
		t.Fatalf("text %q, report %+v", got.Text, rep)
	}
	want := []Clause{{Type: "Payment", Text: "PAY NOW", Start: 3, End: 10, Verified: true}, {Type: "Audit Rights", Text: "audit"}}
	if diff := cmp.Diff(want, got.Clauses); diff != "" {
		t.Errorf("clauses (-want +got):\n%s", diff)
	}
}

// TestMergeCoversEveryField fails for a Contract field that Merge does not
// know, which it would silently drop; and checks that each scalar field
// survives a merge with a record that lacks it.
func TestMergeCoversEveryField(t *testing.T) {
	typ := reflect.TypeOf(Contract{})
	for i := range typ.NumField() {
		name, _, _ := strings.Cut(typ.Field(i).Tag.Get("json"), ",")
		if _, ok := mergedFields[name]; !ok {
			t.Errorf("Contract.%s (%q) has no place in mergedFields: say how Merge combines it", typ.Field(i).Name, name)
		}
	}
	full := &Contract{ID: "x", ExtractedBy: ReferenceSource, Title: "T", Summary: "S", ContractType: "Service",
		EffectiveDate: "2020-01-01", EndDate: "2021-01-01", Duration: "P1Y", DurationDays: ptr(366),
		RenewalTerm: "P1Y", NoticePeriod: "P30D", TotalAmount: ptr(5.0), Currency: "CAD", Scope: "Sc",
		RenewalKind: "automatic", RenewalCount: 3, TerminationNotice: "P60D", SourcePath: "f.json",
		GoverningLaw: &Location{Country: "CA", State: "ON"}}
	got, _ := Merge(full, &Contract{ID: "x", ExtractedBy: "cuad-v1"})
	want := *full
	want.ExtractedBy = "cuad-v1"
	want.Provenance = got.Provenance
	if diff := cmp.Diff(&want, got); diff != "" {
		t.Errorf("values lost merging with an empty record of another source (-want +got):\n%s", diff)
	}
	if len(got.Provenance) != len(scalarGroups)+1 { // and governing_law
		t.Errorf("provenance %v: want every group from %s", got.Provenance, ReferenceSource)
	}
}
