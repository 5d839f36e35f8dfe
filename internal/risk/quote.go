package risk

import (
	"strings"
	"unicode"

	"github.com/contractgraph/contractgraph/internal/textmatch"
)

// findQuote finds a clause or statute quote in t (textmatch's matching,
// the occurrence nearest hint) unless the quote is too short to stand for
// anything: fewer than three words, unless it holds four Han characters.
func findQuote(t *textmatch.Text, quote string, hint int) (textmatch.Span, bool) {
	if quoteTooShort(textmatch.Fold(quote)) {
		return textmatch.Span{}, false
	}
	return t.FindNear(quote, hint)
}

// quoteTooShort reports whether a folded quote is too short to locate.
func quoteTooShort(q string) bool {
	if len(strings.Fields(q)) >= 3 {
		return false
	}
	han := 0
	for _, r := range q {
		if unicode.Is(unicode.Han, r) {
			han++
		}
	}
	return han < 4
}
