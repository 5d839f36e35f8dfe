package risk

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/contractgraph/contractgraph/internal/contract"
	"github.com/contractgraph/contractgraph/internal/textmatch"
)

// Passage sizing for chunked analysis and in-memory clause search.
const (
	minPassageBytes = 200
	maxPassageBytes = 4000
)

// paragraphs splits text at blank lines into passages with byte offsets,
// merging short paragraphs into the next and cutting long ones at line
// breaks, so each passage is roughly a clause.
func paragraphs(text string) []passage {
	var out []passage
	cur := -1 // start of the passage being built
	emit := func(end int) {
		out = append(out, splitLong(text, passage{Start: cur, End: end, Text: text[cur:end]})...)
		cur = -1
	}
	blockStart := -1
	for i := 0; i <= len(text); {
		lineEnd := len(text)
		if j := strings.IndexByte(text[i:], '\n'); j >= 0 {
			lineEnd = i + j
		}
		blank := strings.TrimSpace(text[i:lineEnd]) == ""
		if !blank && blockStart < 0 {
			blockStart = i + len(text[i:lineEnd]) - len(strings.TrimLeftFunc(text[i:lineEnd], unicode.IsSpace))
		}
		if (blank || lineEnd == len(text)) && blockStart >= 0 {
			end := trimRight(text, lineEnd)
			if cur < 0 {
				cur = blockStart
			}
			if end-cur >= minPassageBytes {
				emit(end)
			}
			blockStart = -1
		}
		i = lineEnd + 1
	}
	if cur >= 0 {
		emit(trimRight(text, len(text)))
	}
	return out
}

// trimRight moves end back over trailing white space.
func trimRight(text string, end int) int {
	return len(strings.TrimRightFunc(text[:end], unicode.IsSpace))
}

// splitLong cuts a passage longer than maxPassageBytes at line breaks (or,
// for one huge line, at spaces).
func splitLong(text string, p passage) []passage {
	if p.End-p.Start <= maxPassageBytes {
		return []passage{p}
	}
	var out []passage
	s := p.Start
	for p.End-s > maxPassageBytes {
		cut := strings.LastIndex(text[s:s+maxPassageBytes], "\n")
		if cut <= 0 {
			cut = strings.LastIndex(text[s:s+maxPassageBytes], " ")
		}
		if cut <= 0 {
			cut = maxPassageBytes
			for cut > 0 && text[s+cut]&0xC0 == 0x80 {
				cut--
			}
			if cut == 0 { // not UTF-8: any cut will do
				cut = maxPassageBytes
			}
		}
		e := trimRight(text, s+cut)
		if e > s {
			out = append(out, passage{Start: s, End: e, Text: text[s:e]})
		}
		s += cut
		for s < p.End && isASCIISpace(text[s]) {
			s++
		}
	}
	if s < p.End {
		out = append(out, passage{Start: s, End: p.End, Text: text[s:p.End]})
	}
	return out
}

func isASCIISpace(b byte) bool {
	return b == ' ' || b == '\t' || b == '\n' || b == '\r' || b == '\v' || b == '\f'
}

// passagesOf returns a contract's passages: its stored chunks when they
// have valid offsets, else its text split into paragraphs.
func passagesOf(c *contract.Contract) []passage {
	var out []passage
	for _, ch := range c.Chunks {
		if ch.Start < 0 || ch.End > len(c.Text) || ch.Start >= ch.End {
			return paragraphs(c.Text)
		}
		out = append(out, passage{Start: ch.Start, End: ch.End, Text: c.Text[ch.Start:ch.End]})
	}
	if len(out) == 0 {
		return paragraphs(c.Text)
	}
	slices.SortFunc(out, func(a, b passage) int { return a.Start - b.Start })
	return out
}

// terms are the search words (textmatch.SearchWords) of the given phrases
// that have three letters or more. Passages are scored by substring, so
// stop words are left out even when they are all there is.
func terms(phrases ...string) []string {
	var out []string
	for _, w := range textmatch.SearchWords(strings.Join(phrases, " ")) {
		if utf8.RuneCountInString(w) >= 3 && !textmatch.StopWord(w) {
			out = append(out, w)
		}
	}
	return out
}

// score counts how many of the terms occur in the passage (each once).
func score(p passage, ts []string) int {
	lower := strings.ToLower(p.Text)
	n := 0
	for _, t := range ts {
		if strings.Contains(lower, t) {
			n++
		}
	}
	return n
}

// rankPassages returns up to limit passages sharing terms with ts, best
// first, ties in text order.
func rankPassages(ps []passage, ts []string, limit int) []passage {
	type scored struct {
		p passage
		n int
	}
	var hits []scored
	for _, p := range ps {
		if n := score(p, ts); n > 0 {
			hits = append(hits, scored{p, n})
		}
	}
	slices.SortStableFunc(hits, func(a, b scored) int { return b.n - a.n })
	var out []passage
	for _, h := range hits {
		if len(out) == limit {
			break
		}
		out = append(out, h.p)
	}
	return out
}

// selectPassages picks the passages most relevant to the rules within a
// budget of bytes and returns them in text order.
func selectPassages(ps []passage, rules []Rule, budget int) []passage {
	var phrases []string
	for _, r := range rules {
		phrases = append(phrases, r.Keywords...)
		phrases = append(phrases, r.Title)
	}
	ranked := rankPassages(ps, terms(phrases...), len(ps))
	var out []passage
	used := 0
	for _, p := range ranked {
		if used+len(p.Text) > budget {
			continue
		}
		out = append(out, p)
		used += len(p.Text)
	}
	slices.SortFunc(out, func(a, b passage) int { return a.Start - b.Start })
	return out
}

// boilerplateMarkers start passages that carry no commercial risk of their
// own: signature blocks, counterparts, headings, tables of contents.
var boilerplateMarkers = []string{
	"in witness whereof", "counterparts", "headings", "table of contents", "signature page",
	"[signature", "exhibit", "schedule", "by:", "name:", "title:", "date:",
}

// isBoilerplate reports whether a passage can be skipped in batch triage:
// very short, or opening with a boilerplate marker.
func isBoilerplate(p passage) bool {
	t := strings.TrimSpace(p.Text)
	letters := 0
	for _, r := range t {
		if unicode.IsLetter(r) {
			letters++
		}
	}
	if letters < 60 {
		return true
	}
	head := strings.ToLower(t[:min(len(t), 120)])
	head = strings.TrimLeftFunc(head, func(r rune) bool { return !unicode.IsLetter(r) && r != '[' })
	for _, m := range boilerplateMarkers {
		if strings.HasPrefix(head, m) {
			return true
		}
	}
	return false
}
