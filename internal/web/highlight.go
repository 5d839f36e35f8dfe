package web

import (
	"html/template"
	"slices"
	"strings"
	"unicode/utf8"
)

// Span is a byte range of a contract text to highlight.
type Span struct {
	Start, End int    // UTF-8 byte offsets, End exclusive
	ID         string // element id given to the span's first mark, "" for none
	Class      string // extra CSS class of its marks, e.g. "cited"
	Title      string // tooltip, e.g. the clause type
}

// Valid reports whether s is a non-empty range of text that starts and ends
// on character boundaries, so slicing text by it never splits a character.
func (s Span) Valid(text string) bool {
	if s.Start < 0 || s.End > len(text) || s.Start >= s.End {
		return false
	}
	return utf8.RuneStart(text[s.Start]) && (s.End == len(text) || utf8.RuneStart(text[s.End]))
}

// HighlightText returns text as escaped HTML in which every valid span is
// wrapped in <mark> elements, and reports which spans were valid. Spans may
// overlap or nest: the text is cut at every span boundary and each piece
// covered by any span becomes one mark carrying the classes and titles of all
// spans covering it. A span's ID goes on the first mark of the span; when
// several spans start at the same place, the others get an empty anchor
// element just before it, so every ID is a link target.
func HighlightText(text string, spans []Span) (template.HTML, []bool) {
	ok := make([]bool, len(spans))
	cuts := []int{0, len(text)}
	var live []int
	for i, s := range spans {
		if s.Valid(text) {
			ok[i] = true
			live = append(live, i)
			cuts = append(cuts, s.Start, s.End)
		}
	}
	slices.Sort(cuts)
	cuts = slices.Compact(cuts)

	var b strings.Builder
	b.Grow(len(text) + len(text)/8)
	for k := 0; k+1 < len(cuts); k++ {
		from, to := cuts[k], cuts[k+1]
		var cover []int
		for _, i := range live {
			if spans[i].Start <= from && spans[i].End >= to {
				cover = append(cover, i)
			}
		}
		piece := template.HTMLEscapeString(text[from:to])
		if len(cover) == 0 {
			b.WriteString(piece)
			continue
		}
		markID := ""
		for _, i := range cover {
			if spans[i].Start != from || spans[i].ID == "" {
				continue
			}
			if markID == "" {
				markID = spans[i].ID
				continue
			}
			b.WriteString(`<span class="anchor" id="`)
			b.WriteString(template.HTMLEscapeString(spans[i].ID))
			b.WriteString(`"></span>`)
		}
		classes := []string{"hl"}
		var titles []string
		for _, i := range cover {
			if c := spans[i].Class; c != "" && !slices.Contains(classes, c) {
				classes = append(classes, c)
			}
			if t := spans[i].Title; t != "" && !slices.Contains(titles, t) {
				titles = append(titles, t)
			}
		}
		b.WriteString(`<mark`)
		if markID != "" {
			b.WriteString(` id="`)
			b.WriteString(template.HTMLEscapeString(markID))
			b.WriteString(`"`)
		}
		b.WriteString(` class="`)
		b.WriteString(template.HTMLEscapeString(strings.Join(classes, " ")))
		b.WriteString(`"`)
		if len(titles) > 0 {
			b.WriteString(` title="`)
			b.WriteString(template.HTMLEscapeString(strings.Join(titles, ", ")))
			b.WriteString(`"`)
		}
		b.WriteString(`>`)
		b.WriteString(piece)
		b.WriteString(`</mark>`)
	}
	return template.HTML(b.String()), ok
}
