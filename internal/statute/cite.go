package statute

import (
	"slices"
	"strings"
	"unicode"

	"github.com/contractgraph/contractgraph/internal/contract"
)

// Cite is a statute's human-readable citation: "9 U.S.C. § 2" for the US
// Code, "民法 (Civil Code) art. 184" for a Taiwan law, else its code and
// number, and its id when it has neither.
func Cite(st *contract.Statute) string {
	switch {
	case st.Code == "" && st.Number == "":
		return st.ID
	case st.Code == "":
		return st.Number
	case st.Number == "":
		return st.Code
	case st.Jurisdiction == "us":
		return st.Code + " § " + st.Number
	case st.Jurisdiction == "tw":
		return st.Code + " art. " + st.Number
	}
	return st.Code + " " + st.Number
}

// Excerpt returns text when it fits in maxBytes, else the lines that share
// the most words with query, kept in their original order and joined with
// "\n…\n", within maxBytes; truncated reports whether anything was left
// out. Every returned line is verbatim from text, so quotes taken from the
// excerpt are found in the full text.
func Excerpt(text, query string, maxBytes int) (excerpt string, truncated bool) {
	if len(text) <= maxBytes {
		return text, false
	}
	lines := strings.Split(text, "\n")
	terms := queryTerms(query)
	type scored struct{ idx, score int }
	ranked := make([]scored, len(lines))
	for i, l := range lines {
		ll := strings.ToLower(l)
		n := 0
		for _, t := range terms {
			if strings.Contains(ll, t) {
				n++
			}
		}
		ranked[i] = scored{i, n}
	}
	// Stable by position among equal scores: earlier lines first.
	order := make([]int, len(lines))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return ranked[b].score - ranked[a].score })
	keep := make([]bool, len(lines))
	used := 0
	for _, i := range order {
		cost := len(lines[i]) + len("\n…\n")
		if used+cost > maxBytes {
			continue
		}
		keep[i] = true
		used += cost
	}
	var parts []string
	prev := -1
	for i, l := range lines {
		if !keep[i] {
			continue
		}
		if prev >= 0 && prev != i-1 {
			parts = append(parts, "…")
		}
		parts = append(parts, l)
		prev = i
	}
	if len(parts) == 0 {
		// A single line longer than the budget: cut it at a rune boundary.
		cut := maxBytes
		for cut > 0 && !isRuneStart(text[cut]) {
			cut--
		}
		return text[:cut], true
	}
	return strings.Join(parts, "\n"), true
}

func isRuneStart(b byte) bool { return b&0xC0 != 0x80 }

// queryTerms are the lower-cased word stems of a query (their first five
// letters, so "enforceable" matches "enforcement"), and each Han character.
func queryTerms(q string) []string {
	var terms []string
	for w := range strings.FieldsFuncSeq(strings.ToLower(q), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
		var latin []rune
		for _, r := range w {
			if unicode.Is(unicode.Han, r) {
				terms = append(terms, string(r))
				continue
			}
			latin = append(latin, r)
		}
		if len(latin) >= 3 {
			terms = append(terms, string(latin[:min(5, len(latin))]))
		}
	}
	return terms
}
