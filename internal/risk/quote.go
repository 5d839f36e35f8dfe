package risk

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// folded is a text reduced for quote matching: white space runs become one
// space, soft hyphens vanish, typographic quotes and dashes become their
// ASCII forms. start and end map every byte of s back to the original text
// (the start and end of the original rune or run it came from).
type folded struct {
	s          string
	start, end []int
}

// fold reduces text for matching; see folded.
func fold(text string) folded {
	var b strings.Builder
	b.Grow(len(text))
	f := folded{start: make([]int, 0, len(text)), end: make([]int, 0, len(text))}
	inSpace := false
	for i, r := range text {
		size := utf8.RuneLen(r)
		if r == utf8.RuneError && size < 0 {
			size = 1
		}
		if unicode.IsSpace(r) {
			if inSpace {
				f.end[len(f.end)-1] = i + size
				continue
			}
			inSpace = true
			b.WriteByte(' ')
			f.start = append(f.start, i)
			f.end = append(f.end, i+size)
			continue
		}
		inSpace = false
		r = foldRune(r)
		if r < 0 {
			continue
		}
		n := utf8.RuneLen(r)
		if n < 0 {
			n = 1
		}
		b.WriteRune(r)
		for range n {
			f.start = append(f.start, i)
			f.end = append(f.end, i+size)
		}
	}
	f.s = b.String()
	return f
}

// foldRune maps typographic variants to one form; -1 drops the rune.
func foldRune(r rune) rune {
	switch r {
	case '\u00ad', '\u200b', '\ufeff':
		return -1
	case '‘', '’', '‚', '′':
		return '\''
	case '“', '”', '„', '″':
		return '"'
	case '–', '—', '‒', '−':
		return '-'
	case '\u00a0', '\u3000':
		return ' '
	}
	return r
}

// foldQuote folds a quote as fold does and trims what models wrap quotes
// in: outer white space, quotation marks and ellipses.
func foldQuote(q string) string {
	s := fold(q).s
	for {
		t := strings.TrimSpace(s)
		t = strings.TrimPrefix(t, "...")
		t = strings.TrimSuffix(t, "...")
		t = strings.TrimPrefix(t, "…")
		t = strings.TrimSuffix(t, "…")
		if len(t) >= 2 && t[0] == '"' && t[len(t)-1] == '"' {
			t = t[1 : len(t)-1]
		}
		if t == s {
			return s
		}
		s = t
	}
}

// quoteTooShort reports whether a folded quote is too short to locate
// anything: fewer than three words, unless it holds four Han characters.
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

// locate finds quote in the folded text and returns its byte span in the
// original text; among several occurrences it picks the one starting
// nearest to hint. ok is false when the quote is absent or too short.
func (f *folded) locate(quote string, hint int) (start, end int, ok bool) {
	q := foldQuote(quote)
	if q == "" || quoteTooShort(q) {
		return 0, 0, false
	}
	best := -1
	for from := 0; from <= len(f.s)-len(q); {
		i := strings.Index(f.s[from:], q)
		if i < 0 {
			break
		}
		i += from
		if best < 0 || abs(f.start[i]-hint) < abs(f.start[best]-hint) {
			best = i
		}
		from = i + 1
	}
	if best < 0 {
		return 0, 0, false
	}
	return f.start[best], f.end[best+len(q)-1], true
}

// contains reports whether the folded text holds quote.
func (f *folded) contains(quote string) bool {
	q := foldQuote(quote)
	return q != "" && !quoteTooShort(q) && strings.Contains(f.s, q)
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}
