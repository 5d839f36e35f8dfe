package extract_test

import (
	"fmt"

	"github.com/contractgraph/contractgraph/internal/extract"
)

// A model's quote is located in the stored text even when its spacing,
// case and quote marks differ; the offsets select the document's own words.
func ExampleLocator_Locate() {
	text := "This Agreement shall be governed by\n  the laws of the State of \u201cNew York\u201d."
	l := extract.NewLocator(text)
	m, ok := l.Locate(`governed by the laws of the state of "New York"`)
	fmt.Println(ok, m.Exact)
	fmt.Printf("%q\n", text[m.Start:m.End])
	// Output:
	// true false
	// "governed by\n  the laws of the State of “New York”"
}
