package graph

import (
	"errors"
	"testing"

	"github.com/contractgraph/contractgraph/internal/contract"
)

// A contract's currency is stored as its ISO 4217 code; what is not one is
// refused, naming the field.
func TestPrepareCurrency(t *testing.T) {
	amount := 10.0
	for in, want := range map[string]string{"USD": "USD", "eur": "EUR", "US dollars": "USD", "ZAR": "ZAR", "": ""} {
		p, err := Prepare(&contract.Contract{ID: "x", TotalAmount: &amount, Currency: in})
		if err != nil || p.Contract.Currency != want {
			t.Errorf("currency %q: %v, %v; want %q", in, p, err, want)
		}
	}
	for _, bad := range []string{"dollars and cents", "U$D", "EURO1"} {
		_, err := Prepare(&contract.Contract{ID: "x", TotalAmount: &amount, Currency: bad})
		var fe *FieldError
		if !errors.As(err, &fe) || fe.Field != "currency" {
			t.Errorf("currency %q: %v, want a currency field error", bad, err)
		}
	}
}
