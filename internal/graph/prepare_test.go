package graph

import (
	"errors"
	"strings"
	"testing"

	"github.com/contractgraph/contractgraph/internal/contract"
)

// TestPrepareRefuses covers what the one write validation refuses that a
// reader could let through: negative amounts, NUL characters and invalid
// UTF-8 anywhere in a contract, each named with its field and byte offset.
func TestPrepareRefuses(t *testing.T) {
	amount := func(v float64) *float64 { return &v }
	base := func() *contract.Contract {
		return &contract.Contract{ID: "c1", Title: "Supply", Text: "Acme sells widgets.",
			Parties:  []contract.PartyRole{{Name: "Acme Inc.", Role: "Seller", Location: &contract.Location{Country: "US", City: "Austin"}}},
			Clauses:  []contract.Clause{{Type: "Governing Law", Text: "Acme", Start: 0, End: 4, Verified: true}},
			Evidence: []contract.Evidence{{Field: "parties", Quote: "Acme", Start: 0, End: 4, Verified: true}}}
	}
	tests := []struct {
		name   string
		edit   func(*contract.Contract)
		field  string
		reason string
	}{
		{"negative amount", func(c *contract.Contract) { c.TotalAmount = amount(-5) }, "total_amount", "negative (-5)"},
		{"NUL in a party name", func(c *contract.Contract) { c.Parties[0].Name = "Acme\x00 Inc." }, "parties[0].name", "NUL character at byte 4"},
		{"NUL in a city", func(c *contract.Contract) { c.Parties[0].Location.City = "Aus\x00tin" }, "parties[0].location.city", "NUL character at byte 3"},
		{"NUL in the text", func(c *contract.Contract) { c.Text = "Acme sells\x00 widgets." }, "text", "NUL character at byte 10"},
		{"NUL in a clause summary", func(c *contract.Contract) { c.Clauses[0].Summary = "\x00" }, "clauses[0].summary", "NUL character at byte 0"},
		{"NUL in evidence", func(c *contract.Contract) { c.Evidence[0].Value = "x\x00" }, "evidence[0].value", "NUL character at byte 1"},
		{"NUL in the title", func(c *contract.Contract) { c.Title = "Sup\x00ply" }, "title", "NUL character at byte 3"},
		{"invalid UTF-8 in the summary", func(c *contract.Contract) { c.Summary = "ok \xff" }, "summary", "invalid UTF-8 at byte 3"},
		{"invalid UTF-8 in the id", func(c *contract.Contract) { c.ID = "c\xc3" }, "id", "invalid UTF-8 at byte 1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := base()
			tt.edit(c)
			_, err := Prepare(c)
			var fe *FieldError
			if !errors.As(err, &fe) {
				t.Fatalf("Prepare = %v, want a *FieldError on %s", err, tt.field)
			}
			if fe.Field != tt.field || !strings.Contains(fe.Reason, tt.reason) {
				t.Errorf("Prepare: field %q reason %q, want field %q reason containing %q", fe.Field, fe.Reason, tt.field, tt.reason)
			}
		})
	}
	ok := base()
	ok.TotalAmount = amount(0)
	if _, err := Prepare(ok); err != nil {
		t.Errorf("Prepare of a valid contract with amount 0: %v", err)
	}
}
