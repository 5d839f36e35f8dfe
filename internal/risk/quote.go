package risk

import (
	"github.com/contractgraph/contractgraph/internal/textmatch"
)

// findQuote finds a clause or statute quote in t (textmatch's matching,
// the occurrence nearest hint) unless the quote is too short to stand for
// anything (textmatch.QuoteTooShort).
func findQuote(t *textmatch.Text, quote string, hint int) (textmatch.Span, bool) {
	if textmatch.QuoteTooShort(quote) {
		return textmatch.Span{}, false
	}
	return t.FindNear(quote, hint)
}
