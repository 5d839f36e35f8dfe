package web_test

import (
	"fmt"

	"github.com/contractgraph/contractgraph/internal/web"
)

func ExampleHighlightText() {
	text := "This Agreement is governed by the laws of <New York>."
	html, valid := web.HighlightText(text, []web.Span{
		{Start: 42, End: 52, ID: "clause-0", Title: "Governing Law"},
		{Start: 5, End: 500, ID: "clause-1"}, // past the end of the text: skipped
	})
	fmt.Println(html)
	fmt.Println(valid)
	// Output:
	// This Agreement is governed by the laws of <mark id="clause-0" class="hl" title="Governing Law">&lt;New York&gt;</mark>.
	// [true false]
}
