package contract

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestUnverifiedValues(t *testing.T) {
	amount := 1000.0
	located := func(field, value string) Evidence { // found in the text but not stating the value
		return Evidence{Field: field, Value: value, Quote: "the Effective Date", Start: 4, End: 22}
	}
	missing := func(field, value string) Evidence {
		return Evidence{Field: field, Value: value, Quote: "not in the text"}
	}
	verified := func(field, value string) Evidence {
		return Evidence{Field: field, Value: value, Quote: "q", Start: 0, End: 1, Verified: true}
	}
	for _, tc := range []struct {
		name string
		c    Contract
		want []Unverified
	}{
		{"no evidence: the reference import keeps its facts", Contract{EffectiveDate: "2099-03-03", TotalAmount: &amount, Currency: "USD",
			Parties: []PartyRole{{Name: "Acme"}}}, nil},
		{"unverified evidence", Contract{EffectiveDate: "2099-03-03", Evidence: []Evidence{missing("effective_date", "2099-03-03")}},
			[]Unverified{{Field: "effective_date", Reason: ReasonNotFound}}},
		{"located but not stating it", Contract{EffectiveDate: "2099-03-03", Evidence: []Evidence{located("effective_date", "2099-03-03")}},
			[]Unverified{{Field: "effective_date", Reason: ReasonNotStated}}},
		{"no quote", Contract{ContractType: "Supply", Evidence: []Evidence{{Field: "contract_type", Value: "Supply"}}},
			[]Unverified{{Field: "contract_type", Reason: ReasonNoQuote}}},
		{"one verified record is enough", Contract{EffectiveDate: "2020-01-01",
			Evidence: []Evidence{missing("effective_date", "2020-01-01"), verified("effective_date", "2020-01-01")}}, nil},
		{"evidence of an empty field judges nothing", Contract{Evidence: []Evidence{missing("end_date", "2099-01-01")}}, nil},
		{"an unverified currency flags the amount", Contract{TotalAmount: &amount, Currency: "USD",
			Evidence: []Evidence{verified("total_amount", "1000"), missing("currency", "USD")}},
			[]Unverified{{Field: "total_amount", Reason: ReasonNotFound}}},
		{"a derived end date inherits", Contract{EffectiveDate: "2099-03-03", Duration: "P1Y", EndDate: "2100-03-03",
			Evidence: []Evidence{missing("effective_date", "2099-03-03"), verified("duration", "P1Y")}},
			[]Unverified{{Field: "effective_date", Reason: ReasonNotFound}, {Field: "end_date", Reason: "worked out from an unverified effective_date"}}},
		{"an end date of its own does not inherit", Contract{EffectiveDate: "2099-03-03", Duration: "P1Y", EndDate: "2100-03-03",
			Evidence: []Evidence{missing("effective_date", "2099-03-03"), verified("end_date", "2100-03-03")}},
			[]Unverified{{Field: "effective_date", Reason: ReasonNotFound}}},
		{"parties by name", Contract{Parties: []PartyRole{{Name: "Acme Corp."}, {Name: "Phantom LLC"}},
			Evidence: []Evidence{verified("parties[0].name", "Acme Corp."), missing("parties[3].name", "Phantom LLC")}},
			[]Unverified{{Field: "parties", Value: "Phantom LLC", Reason: ReasonNotFound}}},
		// Merged: CUAD's effective date won over the extraction's, whose
		// unverified evidence says nothing about it; the extraction's
		// own (kept) amount is judged by its own evidence.
		{"only the value's own source counts", Contract{ExtractedBy: "cuad-v1", EffectiveDate: "2019-01-01", TotalAmount: &amount,
			Provenance: map[string]string{"total_amount": "openai:gpt-4o", "evidence[0]": "openai:gpt-4o", "evidence[1]": "openai:gpt-4o"},
			Evidence:   []Evidence{missing("effective_date", "2099-03-03"), missing("total_amount", "1000")}},
			[]Unverified{{Field: "total_amount", Reason: ReasonNotFound}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := UnverifiedValues(&tc.c)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			// Without them, nothing is unverified and the rest is kept.
			w := WithoutUnverified(&tc.c, got)
			if again := UnverifiedValues(w); len(again) != 0 {
				t.Errorf("WithoutUnverified left %+v", again)
			}
			if len(w.Parties)+countParties(got) != len(tc.c.Parties) {
				t.Errorf("WithoutUnverified kept %d of %d parties with %d unverified", len(w.Parties), len(tc.c.Parties), countParties(got))
			}
		})
	}
}

func countParties(list []Unverified) int {
	n := 0
	for _, u := range list {
		if u.Field == FieldParties {
			n++
		}
	}
	return n
}
