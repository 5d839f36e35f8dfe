package ingest

import (
	"sort"
	"strings"
	"unicode/utf8"
)

// OffsetMap maps byte offsets in normalised text back to byte offsets in the
// decoded source text it was made from. It is a list of anchors: from
// anchor i's Norm offset on, source offsets advance in step with normalised
// ones until the next anchor.
type OffsetMap struct {
	anchors []anchor
}

type anchor struct{ norm, src int }

// Source returns the source byte offset of normalised offset off.
func (m OffsetMap) Source(off int) int {
	i := sort.Search(len(m.anchors), func(i int) bool { return m.anchors[i].norm > off }) - 1
	src := off
	if i >= 0 {
		src = m.anchors[i].src + off - m.anchors[i].norm
	}
	// Inside a character that normalisation made longer (U+FFFD for one
	// invalid byte), stay at or before the next anchor.
	if i+1 < len(m.anchors) && src > m.anchors[i+1].src {
		src = m.anchors[i+1].src
	}
	return src
}

// Normalize returns s with line endings turned into "\n" (CRLF and lone CR),
// form feeds into "\n", non-breaking and other Unicode spaces into " ",
// zero-width characters and the byte-order mark removed, other control
// characters (except tab and newline) removed and invalid UTF-8 replaced by
// U+FFFD. The map turns offsets in the result into offsets in s.
func Normalize(s string) (string, OffsetMap) {
	var b strings.Builder
	b.Grow(len(s))
	var m OffsetMap
	delta := 0 // src - norm at the current position
	mark := func(src int) {
		if d := src - b.Len(); d != delta {
			delta = d
			m.anchors = append(m.anchors, anchor{norm: b.Len(), src: src})
		}
	}
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		mark(i)
		switch {
		case r == '\r':
			b.WriteByte('\n')
			if i+1 < len(s) && s[i+1] == '\n' {
				size = 2
			}
		case r == '\f' || r == '\v' || r == '\u2028' || r == '\u2029':
			b.WriteByte('\n')
		case r == '\n' || r == '\t':
			b.WriteRune(r)
		case r == '\u00a0' || r == '\u202f' || r == '\u205f' || r == '\u3000' || (r >= '\u2000' && r <= '\u200a'):
			b.WriteByte(' ')
		case r == '\u200b' || r == '\u200c' || r == '\u200d' || r == '\u2060' || r == '\ufeff' || r == '\u00ad':
			// zero-width characters and soft hyphens carry no text
		case r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0):
			// control characters
		case r == utf8.RuneError && size == 1:
			b.WriteRune(utf8.RuneError)
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	mark(len(s))
	return b.String(), m
}

// Norm returns the normalised byte offset of source offset off, the
// inverse of Source: an offset inside characters that normalisation
// removed or shortened maps to where they were.
func (m OffsetMap) Norm(off int) int {
	i := sort.Search(len(m.anchors), func(i int) bool { return m.anchors[i].src > off }) - 1
	norm := off
	if i >= 0 {
		norm = m.anchors[i].norm + off - m.anchors[i].src
	}
	if i+1 < len(m.anchors) && norm > m.anchors[i+1].norm {
		norm = m.anchors[i+1].norm
	}
	return norm
}
