package textmatch_test

import (
	"fmt"

	"github.com/contractgraph/contractgraph/internal/textmatch"
)

// A model's quote is found in the document even when its spacing, case,
// quote marks and line-end hyphenation differ; the span selects the
// document's own words.
func ExampleText_Find() {
	text := "This Agreement shall be governed by\n  the laws of the State of \u201cNew York\u201d and is non-\nexclusive."
	s, ok := textmatch.New(text).Find(`governed by the laws of the state of "New York" and is non-exclusive`)
	fmt.Println(ok, s.Exact)
	fmt.Printf("%q\n", text[s.Start:s.End])
	// Output:
	// true false
	// "governed by\n  the laws of the State of “New York” and is non-\nexclusive"
}

func ExampleSimilarity() {
	a := "12.1 This Agreement shall be governed by the laws of the State of New York."
	b := "Section 9(a): this agreement is governed by the law of the state of New York"
	fmt.Printf("%.2f\n", textmatch.Similarity(a, b))
	// Output: 0.85
}
