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
	return highlight(text, spans, layout{})
}

// layout is how a text is shown: tags inserted at byte offsets and ranges
// of the source (markup such as "## " or "**") that are not shown. Tags are
// in the order of their offsets; hidden ranges are sorted and disjoint.
type layout struct {
	tags   []tag
	hidden [][2]int
}

// tag is trusted HTML (an element the renderer wrote, never text of the
// document) inserted before the byte at pos.
type tag struct {
	pos  int
	html string
}

// highlight renders text with the layout's tags, without its hidden
// ranges, and with the valid spans marked. Marks never cross a tag: the
// text is cut at every tag and span boundary and each visible piece is
// marked on its own, so the elements always nest. A span's ID goes on its
// first visible piece; a span that shows nothing (it covers only markup)
// is reported invalid, as it has nothing to link to.
func highlight(text string, spans []Span, lay layout) (template.HTML, []bool) {
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
	for _, t := range lay.tags {
		cuts = append(cuts, t.pos)
	}
	for _, h := range lay.hidden {
		cuts = append(cuts, h[0], h[1])
	}
	slices.Sort(cuts)
	cuts = slices.Compact(cuts)

	shown := make([]bool, len(spans))
	var b strings.Builder
	b.Grow(len(text) + len(text)/8)
	nextTag, nextHidden := 0, 0
	for k := 0; k+1 < len(cuts); k++ {
		from, to := cuts[k], cuts[k+1]
		for nextTag < len(lay.tags) && lay.tags[nextTag].pos <= from {
			b.WriteString(lay.tags[nextTag].html)
			nextTag++
		}
		for nextHidden < len(lay.hidden) && lay.hidden[nextHidden][1] <= from {
			nextHidden++
		}
		if nextHidden < len(lay.hidden) && lay.hidden[nextHidden][0] <= from {
			continue
		}
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
			if shown[i] {
				continue
			}
			shown[i] = true
			if spans[i].ID == "" {
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
	for ; nextTag < len(lay.tags); nextTag++ {
		b.WriteString(lay.tags[nextTag].html)
	}
	for i := range ok {
		ok[i] = ok[i] && shown[i]
	}
	return template.HTML(b.String()), ok
}
