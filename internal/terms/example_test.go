package terms_test

import (
	"fmt"

	"github.com/contractgraph/contractgraph/internal/terms"
)

func ExampleExtract() {
	clause := "Either party may terminate on thirty (30) days prior written notice. " +
		"Supplier's aggregate liability shall not exceed the fees paid in the twelve (12) months preceding the claim."
	for _, t := range terms.Extract(clause) {
		fmt.Printf("%s %g %s: %q\n", t.Kind, t.Value, t.Unit, t.Text)
	}
	// Output:
	// notice 30 days: "thirty (30) days"
	// cap 12 months_fees: "fees paid in the twelve (12) months preceding"
	// duration 360 days: "twelve (12) months"
}
