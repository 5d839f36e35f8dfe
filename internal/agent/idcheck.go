package agent

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
)

// The answer text is checked as well as its Sources line: a contract id the
// prose mentions that no tool returned during the run is reported in
// Answer.Unverified (it stays in the text, which is the model's). Ids are
// recognised by shape, since an invented id is by definition not in the
// store:
//
//   - the EDGAR file names CUAD's contracts are keyed by
//     (COMPANY_MM_DD_YYYY-EX-10.1-TITLE, Company_YYYYMMDD_8-K_EX-2.4_..._Title);
//   - the synthetic generator's gen-SEED-NNNNNNN;
//   - the shapes of the ids the tools did return in this run, with their
//     digit runs generalised (c03 makes c99 an id; a store of
//     acme-2024-001 ids makes acme-2023-017 one);
//   - on the Sources line, which the model is told holds only ids, also
//     any single token with a letter and a digit, '-', '_' or '.' in it.
//
// Mentions of returned ids, and fragments of them (a truncated title), are
// not reported.

var staticIDShapes = []*regexp.Regexp{
	regexp.MustCompile(`[A-Za-z0-9][A-Za-z0-9.,&'()-]*_(?:\d{2}_\d{2}_\d{4}|\d{8})[-_]\S*(?: +[A-Z0-9#(][^\s]*)*`),
	regexp.MustCompile(`(?i)gen-\d+-\d+`),
}

// maxLearnedShapes bounds the patterns learned from one run's ids.
const maxLearnedShapes = 64

var digitRun = regexp.MustCompile(`[0-9]+`)

// idShapes returns the patterns that recognise ids: the static ones and
// those learned from the ids seen in this run.
func (s *seen) idShapes() []*regexp.Regexp {
	out := slices.Clone(staticIDShapes)
	done := map[string]bool{}
	for _, id := range s.order {
		if len(done) >= maxLearnedShapes {
			break
		}
		if len(id) > 200 || !strings.ContainsAny(id, "0123456789") || !strings.ContainsFunc(id, isASCIILetter) {
			continue
		}
		var p strings.Builder
		p.WriteString("(?i)")
		last := 0
		for _, loc := range digitRun.FindAllStringIndex(id, -1) {
			p.WriteString(regexp.QuoteMeta(id[last:loc[0]]))
			p.WriteString(`[0-9]+`)
			last = loc[1]
		}
		p.WriteString(regexp.QuoteMeta(id[last:]))
		if done[p.String()] {
			continue
		}
		done[p.String()] = true
		if re, err := regexp.Compile(p.String()); err == nil {
			out = append(out, re)
		}
	}
	return out
}

func isASCIILetter(r rune) bool { return 'a' <= r|0x20 && r|0x20 <= 'z' }

// maskSeen blanks every whole-token mention of a seen id in text, keeping
// byte offsets, so shape patterns only see the rest.
func (s *seen) maskSeen(text string) string {
	b := []byte(text)
	lower := asciiLower(text)
	ids := slices.Clone(s.order)
	slices.SortStableFunc(ids, func(a, b string) int { return len(b) - len(a) })
	for _, id := range ids {
		lid := asciiLower(id)
		if lid == "" {
			continue
		}
		for from := 0; from+len(lid) <= len(lower); {
			i := strings.Index(lower[from:], lid)
			if i < 0 {
				break
			}
			i += from
			from = i + 1
			if !tokenBoundary(lower, i, i+len(lid)) {
				continue
			}
			for j := i; j < i+len(lid); j++ {
				b[j] = ' '
			}
		}
	}
	return string(b)
}

// partOfSeen reports whether cand is (case-insensitively) part of an id a
// tool returned, so a shortened mention is not called unverified.
func (s *seen) partOfSeen(cand string) bool {
	lc := strings.ToLower(cand)
	for _, id := range s.order {
		if strings.Contains(strings.ToLower(id), lc) {
			return true
		}
	}
	return false
}

const idTrim = " \t\r\n*_`'\"()[]<>.,;:!?"

// cleanCandidate trims punctuation around a match and cuts the title part
// of an EDGAR-style id after a word that ends a sentence.
func cleanCandidate(m string) string {
	words := strings.Split(m, " ")
	for i, w := range words {
		if i > 0 && w != "" && strings.ContainsAny(w[len(w)-1:], ".,;:!?") && i < len(words)-1 {
			words = words[:i+1]
			break
		}
	}
	return strings.Trim(strings.Join(words, " "), idTrim)
}

// unverified returns the id-like mentions in body and sources (the
// content of the Sources line) that no tool returned, in order of first
// mention, without duplicates. toolNames are never ids.
func (s *seen) unverified(body, sources string, toolNames []string) []string {
	shapes := s.idShapes()
	var out []string
	have := map[string]bool{}
	add := func(c string) {
		c = strings.TrimSpace(c)
		k := strings.ToLower(c)
		if c == "" || have[k] || s.partOfSeen(c) || slices.Contains(toolNames, c) {
			return
		}
		have[k] = true
		out = append(out, c)
	}
	// findShapes reports shaped mentions in text and returns text with
	// them blanked.
	findShapes := func(text string) string {
		b := []byte(text)
		type hit struct{ start, end int }
		var hits []hit
		for _, re := range shapes {
			for _, loc := range re.FindAllStringIndex(text, -1) {
				if tokenBoundary(text, loc[0], loc[1]) && strings.TrimSpace(text[loc[0]:loc[1]]) != "" {
					hits = append(hits, hit{loc[0], loc[1]})
				}
			}
		}
		slices.SortStableFunc(hits, func(a, b hit) int { return a.start - b.start })
		end := 0
		for _, h := range hits {
			if h.start < end {
				continue // overlaps an earlier, longer-or-equal mention
			}
			add(cleanCandidate(text[h.start:h.end]))
			for j := h.start; j < h.end; j++ {
				b[j] = ' '
			}
			end = h.end
		}
		return string(b)
	}
	findShapes(s.maskSeen(body))
	rest := findShapes(s.maskSeen(sources))
	for _, item := range splitSourceItems(rest) {
		item = strings.Trim(item, idTrim+"-•")
		if item == "" || strings.ContainsAny(item, " \t") || notAnID[strings.ToLower(item)] || SchemaWord(item) {
			continue
		}
		if strings.ContainsAny(item, "0123456789-_.") && strings.ContainsFunc(item, isASCIILetter) {
			add(item)
		}
	}
	return out
}

var schemaWord = regexp.MustCompile(`^[a-z]+(?:_[a-z]+)+$`)

// SchemaWord reports a lower-case snake_case word without digits
// ("party_id", "contract_search_result"): a small model writes field and
// tool names on its Sources line, and no store's ids look like that.
func SchemaWord(s string) bool { return schemaWord.MatchString(s) }

// notAnID are words models put on a Sources line that are not ids.
var notAnID = map[string]bool{
	"none": true, "n/a": true, "na": true, "nil": true, "null": true, "-": true,
	"contract_id": true, "contract_ids": true, "id": true, "ids": true,
}

var sourceSep = regexp.MustCompile(`[,;\n]|\s+and\s+`)

func splitSourceItems(s string) []string { return sourceSep.Split(s, -1) }

// unverifiedNote is the reader's warning about ids no tool returned.
func unverifiedNote(ids []string) string {
	quoted := make([]string, len(ids))
	for i, id := range ids {
		quoted[i] = fmt.Sprintf("%q", id)
	}
	list := strings.Join(quoted, ", ")
	if len(ids) == 1 {
		return fmt.Sprintf("The answer mentions %s, which no tool returned in this run; check it before relying on it.", list)
	}
	return fmt.Sprintf("The answer mentions %s, which no tool returned in this run; check them before relying on them.", list)
}
