package extract

import (
	"github.com/contractgraph/contractgraph/internal/textmatch"
)

// Match is where a quote was found in a text: Text[Start:End] holds the
// words, which equal the quote exactly when Exact is true and otherwise
// differ only as textmatch's folding allows (case, white space, quote
// marks, dashes, line-end hyphenation, the punctuation around the quote).
type Match = textmatch.Span

// Locator finds quotes in one text with the program's one quote matcher
// (textmatch), which folds the text once for a document's many quotes.
type Locator struct{ text *textmatch.Text }

// NewLocator prepares text for Locate.
func NewLocator(text string) *Locator {
	return &Locator{text: textmatch.New(text)}
}

// Locate finds the first occurrence of quote (see textmatch.Text.Find).
// ok is false when quote is blank or not found.
func (l *Locator) Locate(quote string) (m Match, ok bool) {
	return l.text.Find(quote)
}
