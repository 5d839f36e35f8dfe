package extract

import (
	"strings"
	"testing"
)

func TestQuoteStates(t *testing.T) {
	tests := []struct {
		field, value, quote string
		want                bool
	}{
		{"governing_law", "FL, US", "FLorida", true},
		{"governing_law", "NY, US", "governed by the laws of the State of New York", true},
		{"governing_law", "NY, US", "construed under NY law", true},
		{"governing_law", "DE, US", "Delaware", true},
		{"governing_law", "US", "the laws of the State of Delaware and the federal laws of the United States", true},
		{"governing_law", "US", "governed by the laws of the U.S.A.", true},
		{"governing_law", "CN", "This Termination Agreement shall be governed by the laws of the PRC", true},
		{"governing_law", "BC, CA", "the laws of the Province of British Columbia", true},
		{"governing_law", "GB", "the laws of England and Wales", true},
		{"governing_law", "none, CN", "governed by the laws of the PRC", true}, // stored before "none" was dropped
		// Located quotes that do not say it.
		{"governing_law", "CA, US", "Amendment Effective Date", false},
		{"governing_law", "IL, US", "Agreement", false},
		{"governing_law", "US", "In accordance with Rule 13d-1(k) under the Securities Exchange Act of 1934", false},
		{"governing_law", "IN, US", "in the event of a dispute", false}, // "in" is not Indiana
		{"governing_law", "OR, US", "this Agreement or any part of it", false},
		{"governing_law", "NY, US", "the laws of the State of California", false},
		{"effective_date", "2019-03-01", "made as of March 1, 2019", true},
		{"effective_date", "2019-01-07", "dated 1/7/19 by and between", true},
		{"effective_date", "2019-03-01", "Amendment Effective Date", false},
		{"effective_date", "2019-03-01", "on 3/1/195", false},
		{"end_date", "2024-01-07", "expires on January 7, 2024", true},
		{"renewal_term", "P1Y", "renew for successive one-year terms", true},
		{"renewal_term", "P1Y", "renews for 12 months", true},
		{"notice_period", "P30D", "upon written notice to the other party", false},
		{"notice_period", "P90D", "ninety (90) days' notice", true},
		{"total_amount", "1500000", "a fee of $1.5 million", true},
		{"total_amount", "1500000", "the fees set out below", false},
		{"contract_scope", "anything", "any words", true},
	}
	for _, tt := range tests {
		if got := QuoteStates(tt.field, tt.value, tt.quote); got != tt.want {
			t.Errorf("QuoteStates(%s, %q, %q) = %v, want %v", tt.field, tt.value, tt.quote, got, tt.want)
		}
	}
}

// TestLocatedQuoteThatDoesNotStateTheValue: the value is kept, its quote
// located (offsets stored), but it is not verified.
func TestLocatedQuoteThatDoesNotStateTheValue(t *testing.T) {
	text := "This Agreement is made on March 1, 2019. It is governed by the laws of the State of New York."
	x := &Extraction{
		EffectiveDate: Value{Value: "2019-03-01", Evidence: "made on March 1, 2019"},
		GoverningLaw:  GoverningLaw{Country: "US", State: "Illinois", Evidence: "This Agreement"},
		Parties:       []Party{},
		Clauses:       []ClauseValue{},
	}
	c, _ := build("k", text, NewLocator(text), x)
	got := map[string]bool{}
	for _, e := range c.Evidence {
		got[e.Field] = e.Verified
		if e.Field == "governing_law" && (e.Start != 0 || e.End != len("This Agreement")) {
			t.Errorf("governing_law evidence at %d:%d, want the located quote's offsets", e.Start, e.End)
		}
	}
	if !got["effective_date"] || got["governing_law"] {
		t.Errorf("verified = %v, want the date verified and the law not", got)
	}
	if c.GoverningLaw == nil || c.GoverningLaw.State != "IL" {
		t.Errorf("governing law %+v, want IL kept (unverified)", c.GoverningLaw)
	}
	// "none" as a state is no state.
	x.GoverningLaw = GoverningLaw{Country: "China", State: "none", Evidence: "laws of the State of New York"}
	if c, _ := build("k", text, NewLocator(text), x); c.GoverningLaw == nil || c.GoverningLaw.State != "" || c.GoverningLaw.Country != "CN" {
		t.Errorf("governing law %+v, want CN without a state", c.GoverningLaw)
	}
}

// TestPartialDatesKeptWithPrecision: a date the contract states only as a
// month or a year is neither dropped nor completed to a day: the date
// field stays empty and the evidence keeps the value with its precision,
// without a problem that would ask the model for a day in a repair round.
func TestPartialDatesKeptWithPrecision(t *testing.T) {
	text := "This Agreement is effective as of March 2019 and ends in 2024."
	x := &Extraction{
		EffectiveDate: Value{Value: "March 2019", Evidence: "effective as of March 2019"},
		EndDate:       Value{Value: "2024", Evidence: "ends in 2024"},
		Parties:       []Party{},
		Clauses:       []ClauseValue{},
	}
	c, problems := build("k", text, NewLocator(text), x)
	if c.EffectiveDate != "" || c.EndDate != "" {
		t.Errorf("dates %q, %q: a partial date must not become a day", c.EffectiveDate, c.EndDate)
	}
	for _, p := range problems {
		if strings.Contains(p, "date") {
			t.Errorf("problem %q for a partial date", p)
		}
	}
	got := map[string]string{}
	for _, e := range c.Evidence {
		got[e.Field] = e.Value
	}
	if got["effective_date"] != "2019-03 (month precision)" || got["end_date"] != "2024 (year precision)" {
		t.Errorf("evidence values %q, want the partial dates with their precision", got)
	}
}
