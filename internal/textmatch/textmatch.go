// Package textmatch decides, one way for the whole program, whether a quote
// is in a text and where: the extractor's evidence, the risk review's clause
// quotes and its citation gate all ask it. It also holds the one list of
// words too common to search for (StopWord). It uses the standard library
// only and does no I/O.
//
// Both sides are folded the same way before they are compared:
//
//   - letters are case-folded (unicode.ToLower of unicode.ToUpper, so that
//     final and medial sigma, or the long s, fold together);
//   - typographic quotes (‘ ’ ‚ ‛ ′ ´ `) become ' and (“ ” „ ‟ ″ « ») become ";
//     hyphens, dashes and the minus sign become -; the ellipsis … becomes
//     ...; full-width ASCII forms (as Chinese texts write punctuation) become
//     ASCII, and the ligatures ﬀ ﬁ ﬂ ﬃ ﬄ ﬅ ﬆ their letters;
//   - soft hyphens, zero-width spaces and joiners, word joiners and byte
//     order marks are dropped;
//   - a hyphen or dash between two letters is dropped, together with the
//     white space after it when that holds a line break, so that a word
//     hyphenated at the end of a line ("termi-\nnation"), a compound broken
//     there ("non-\nexclusive") and the same words written whole
//     ("termination", "non-exclusive") all fold to one form;
//   - every run of white space (including no-break and ideographic spaces)
//     becomes one space, and white space at either end is dropped.
//
// A quote is then looked for in three steps, each taking the occurrence
// starting nearest a hint (the first, for Find): byte for byte in the
// original text; folded in the folded text; and last its core, the folded
// quote without the quote marks, ellipses and punctuation (. , ; :) models
// wrap quotes in, widened over as much of that wrapping as the text holds
// right beside it. Spans are always offsets into the original text, never
// splitting a character of valid UTF-8.
package textmatch

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Span is where a quote was found: Text[Start:End] holds the words. Exact
// is true when they are the quote byte for byte (white space around the
// quote aside); otherwise they differ only as the folding allows.
type Span struct {
	Start, End int
	Exact      bool
}

// Text is a text prepared for finding quotes: folded once, so that many
// quotes are found without folding it again. It is safe for concurrent use.
type Text struct {
	text   string
	folded string
	// start[i] and end[i] are the bounds in text of the character (or
	// white-space run) that produced folded[i].
	start, end []int
}

// New prepares text for Find and FindNear.
func New(text string) *Text {
	f := folder{track: true}
	f.fold(text)
	return &Text{text: text, folded: f.b.String(), start: f.start, end: f.end}
}

// Find returns the first occurrence of quote in the text; ok is false when
// the quote is blank or not there, even folded.
func (t *Text) Find(quote string) (Span, bool) {
	return t.FindNear(quote, 0)
}

// FindNear is Find, but among several occurrences of the same step it
// returns the one starting nearest hint, a byte offset into the text (a
// model's guess of where its quote starts); on a tie, the earlier.
func (t *Text) FindNear(quote string, hint int) (Span, bool) {
	q := strings.TrimSpace(quote)
	if q == "" {
		return Span{}, false
	}
	if i, ok := nearest(t.text, q, hint, identity); ok {
		return Span{Start: i, End: i + len(q), Exact: true}, true
	}
	fq := Fold(q)
	if fq == "" {
		return Span{}, false
	}
	if i, ok := nearest(t.folded, fq, hint, t.origin); ok {
		return t.span(i, i+len(fq)), true
	}
	core, before, after := unwrap(fq)
	if core == "" || len(core) == len(fq) {
		return Span{}, false
	}
	i, ok := nearest(t.folded, core, hint, t.origin)
	if !ok {
		return Span{}, false
	}
	j := i + len(core)
	for n := len(before); n > 0 && i > 0 && before[n-1] != ' ' && t.folded[i-1] == before[n-1]; n-- {
		i--
	}
	for n := 0; n < len(after) && j < len(t.folded) && after[n] != ' ' && t.folded[j] == after[n]; n++ {
		j++
	}
	return t.span(i, j), true
}

// span maps the folded bytes [i, j) back to the original text. It is never
// exact: the first step would have found an exact occurrence.
func (t *Text) span(i, j int) Span {
	return Span{Start: t.start[i], End: t.end[j-1]}
}

func (t *Text) origin(i int) int { return t.start[i] }

func identity(i int) int { return i }

// nearest returns the offset in s of the occurrence of sub whose origin is
// nearest hint, the earlier on a tie.
func nearest(s, sub string, hint int, origin func(int) int) (int, bool) {
	best, bestDist := -1, 0
	for from := 0; from <= len(s)-len(sub); {
		k := strings.Index(s[from:], sub)
		if k < 0 {
			break
		}
		k += from
		d := origin(k) - hint
		if d < 0 {
			d = -d
		}
		if best < 0 || d < bestDist {
			best, bestDist = k, d
		}
		if origin(k) >= hint {
			break // later occurrences are farther still
		}
		from = k + 1
	}
	return best, best >= 0
}

// wrapping is what models put around a quote (after folding): white space,
// quote marks, ellipses and sentence punctuation.
const wrapping = " \"'.,;:"

// unwrap splits a folded quote into its core and the wrapping before and
// after it.
func unwrap(fq string) (core, before, after string) {
	core = strings.TrimLeft(fq, wrapping)
	before = fq[:len(fq)-len(core)]
	trimmed := strings.TrimRight(core, wrapping)
	return trimmed, before, core[len(trimmed):]
}

// Fold returns s folded as the package documentation describes.
func Fold(s string) string {
	var f folder
	f.fold(s)
	return f.b.String()
}

// Equal reports whether a and b are the same words: equal once folded and
// stripped of the quote marks, ellipses and punctuation around them. It is
// how a quote is checked against the text at its offsets.
func Equal(a, b string) bool {
	ca, _, _ := unwrap(Fold(a))
	cb, _, _ := unwrap(Fold(b))
	return ca == cb
}

// folder builds a folded string and, when track is set, the original
// bounds of each of its bytes.
type folder struct {
	b          strings.Builder
	track      bool
	start, end []int
	lastLetter bool // the last character written is a letter
}

func (f *folder) put(s string, from, to int) {
	f.b.WriteString(s)
	if f.track {
		for range len(s) {
			f.start = append(f.start, from)
			f.end = append(f.end, to)
		}
	}
}

func (f *folder) fold(text string) {
	f.b.Grow(len(text))
	if f.track {
		f.start = make([]int, 0, len(text))
		f.end = make([]int, 0, len(text))
	}
	space := -1 // start of a white-space run not written yet
	spaceEnd := 0
	for i := 0; i < len(text); {
		r, size := utf8.DecodeRuneInString(text[i:])
		switch {
		case unicode.IsSpace(r):
			if space < 0 {
				space = i
			}
			i += size
			spaceEnd = i
			continue
		case ignorable(r):
			i += size
			continue
		}
		s := foldRune(r)
		if s == "-" && f.lastLetter && space < 0 {
			if next, ok := hyphenEnd(text, i+size); ok {
				i = next
				continue
			}
		}
		if space >= 0 {
			if f.b.Len() > 0 {
				f.put(" ", space, spaceEnd)
			}
			space = -1
		}
		f.put(s, i, i+size)
		f.lastLetter = unicode.IsLetter(r)
		i += size
	}
}

// hyphenEnd reports whether the hyphen ending just before offset i joins
// two parts of a word: a letter follows at once, or after white space that
// holds a line break. It returns where that letter starts.
func hyphenEnd(text string, i int) (int, bool) {
	j, lineBreak := i, false
	for j < len(text) {
		r, size := utf8.DecodeRuneInString(text[j:])
		if !unicode.IsSpace(r) && !ignorable(r) {
			break
		}
		lineBreak = lineBreak || r == '\n' || r == '\r' || r == '\u2028' || r == '\u2029' || r == '\u0085'
		j += size
	}
	r, _ := utf8.DecodeRuneInString(text[j:])
	if j == len(text) || !unicode.IsLetter(r) || (j > i && !lineBreak) {
		return 0, false
	}
	return j, true
}

// ignorable reports the invisible characters folding drops.
func ignorable(r rune) bool {
	switch r {
	case '\u00ad', '\u200b', '\u200c', '\u200d', '\u2060', '\ufeff':
		return true
	}
	return false
}

// foldRune returns the folded form of one character.
func foldRune(r rune) string {
	if r < utf8.RuneSelf {
		if 'A' <= r && r <= 'Z' {
			r += 'a' - 'A'
		} else if r == '`' {
			r = '\''
		}
		return string(r)
	}
	switch r {
	case '‘', '’', '‚', '‛', '′', '´':
		return "'"
	case '“', '”', '„', '‟', '″', '«', '»':
		return `"`
	case '\u2010', '\u2011', '\u2012', '\u2013', '\u2014', '\u2015', '\u2212', '\ufe58', '\ufe63':
		return "-"
	case '…':
		return "..."
	case 'ﬀ':
		return "ff"
	case 'ﬁ':
		return "fi"
	case 'ﬂ':
		return "fl"
	case 'ﬃ':
		return "ffi"
	case 'ﬄ':
		return "ffl"
	case 'ﬅ', 'ﬆ':
		return "st"
	}
	if '\uff01' <= r && r <= '\uff5e' { // full-width ASCII
		return foldRune(r - 0xfee0)
	}
	return string(unicode.ToLower(unicode.ToUpper(r)))
}
