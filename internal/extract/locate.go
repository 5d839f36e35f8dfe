package extract

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Match is where a quote was found in a text: Text[Start:End] holds the
// words, which equal the quote exactly when Exact is true and otherwise
// differ only in case, whitespace, quote marks or dashes.
type Match struct {
	Start, End int
	Exact      bool
}

// Locator finds quotes in one text. Building it folds the text once, so a
// document's many quotes are located without refolding it.
type Locator struct {
	text   string
	folded string
	// src[i] is the offset in text of the character that produced folded[i].
	src []int
}

// NewLocator prepares text for Locate.
func NewLocator(text string) *Locator {
	folded, src := fold(text)
	return &Locator{text: text, folded: folded, src: src}
}

// Locate finds the first occurrence of quote: exactly, else after folding
// both sides (lower case, runs of whitespace as one space, curly quotes as
// straight ones, dashes as '-'). Surrounding whitespace and punctuation
// that models add around a quote (quote marks, a final period) are ignored
// in the folded match. ok is false when quote is blank or not found.
func (l *Locator) Locate(quote string) (m Match, ok bool) {
	if strings.TrimSpace(quote) == "" {
		return Match{}, false
	}
	if i := strings.Index(l.text, quote); i >= 0 {
		return Match{Start: i, End: i + len(quote), Exact: true}, true
	}
	fq, _ := fold(quote)
	i := strings.Index(l.folded, fq)
	if i < 0 {
		fq = strings.Trim(fq, " \"'.,;:")
		if fq == "" {
			return Match{}, false
		}
		if i = strings.Index(l.folded, fq); i < 0 {
			return Match{}, false
		}
	}
	start := l.src[i]
	last := l.src[i+len(fq)-1]
	_, size := utf8.DecodeRuneInString(l.text[last:])
	return Match{Start: start, End: last + size}, true
}

// fold returns the folded form of s and, for each of its bytes, the offset
// in s of the character it came from.
func fold(s string) (string, []int) {
	var b strings.Builder
	b.Grow(len(s))
	src := make([]int, 0, len(s))
	space := false
	for i, r := range s {
		if unicode.IsSpace(r) || r == '\u00a0' {
			if !space && b.Len() > 0 {
				space = true
				b.WriteByte(' ')
				src = append(src, i)
			}
			continue
		}
		space = false
		switch r {
		case '\u2018', '\u2019', '\u201a', '\u201b', '\u2032', '`':
			r = '\''
		case '\u201c', '\u201d', '\u201e', '\u201f', '\u2033', '«', '»':
			r = '"'
		case '\u2010', '\u2011', '\u2012', '\u2013', '\u2014', '\u2015', '\u2212':
			r = '-'
		default:
			r = unicode.ToLower(r)
		}
		n := b.Len()
		b.WriteRune(r)
		for range b.Len() - n {
			src = append(src, i)
		}
	}
	out := b.String()
	// A trailing space points past nothing useful; drop it.
	if strings.HasSuffix(out, " ") {
		out = out[:len(out)-1]
		src = src[:len(src)-1]
	}
	return out, src
}
