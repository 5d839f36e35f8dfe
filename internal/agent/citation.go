package agent

import (
	"encoding/json"
	"regexp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Citations work in two halves so that an answer can never cite a contract
// the tools did not return:
//
//  1. While the agent runs, every successful tool result is scanned and
//     each contract it names is recorded (an object with a "contract_id",
//     or get_contract's top-level "id"), together with clause spans
//     (objects with a clause type and start/end offsets).
//  2. The system prompt asks the model to end with "Sources: id, id, …".
//     The final answer cites the recorded contracts whose id appears in
//     that line or anywhere in the answer text (case-insensitive, as a
//     whole token). Ids the model wrote that no tool returned are dropped,
//     and the Sources line itself is removed from the answer text (the
//     citations replace it). Clause spans are attached to a cited contract
//     when clause_search returned them, or when the answer names the
//     clause type.

// seen records what tool results returned during one run.
type seen struct {
	order     []string // contract ids in first-seen order
	contracts map[string]*seenContract
}

type seenContract struct {
	title string
	spans []seenSpan
}

type seenSpan struct {
	clauseType string
	start, end int
	searched   bool // returned by a passage search rather than a full record
}

func newSeen() *seen { return &seen{contracts: map[string]*seenContract{}} }

func (s *seen) contract(id string) *seenContract {
	c, ok := s.contracts[id]
	if !ok {
		c = &seenContract{}
		s.contracts[id] = c
		s.order = append(s.order, id)
	}
	return c
}

// add scans one tool result.
func (s *seen) add(tool string, result json.RawMessage) {
	var v any
	if err := json.Unmarshal(result, &v); err != nil {
		return
	}
	if obj, ok := v.(map[string]any); ok && tool == "get_contract" {
		if id, ok := obj["id"].(string); ok && id != "" {
			c := s.contract(id)
			if t, ok := obj["title"].(string); ok && c.title == "" {
				c.title = t
			}
			if clauses, ok := obj["clauses"].([]any); ok {
				for _, cl := range clauses {
					if m, ok := cl.(map[string]any); ok {
						s.span(c, m, "type", false)
					}
				}
			}
		}
	}
	s.walk(v)
}

func (s *seen) walk(v any) {
	switch v := v.(type) {
	case map[string]any:
		if id, ok := v["contract_id"].(string); ok && id != "" {
			c := s.contract(id)
			if t, ok := v["title"].(string); ok && c.title == "" {
				c.title = t
			}
			s.span(c, v, "clause_type", true)
		}
		for _, x := range v {
			s.walk(x)
		}
	case []any:
		for _, x := range v {
			s.walk(x)
		}
	}
}

func (s *seen) span(c *seenContract, m map[string]any, typeKey string, searched bool) {
	start, ok1 := m["start"].(float64)
	end, ok2 := m["end"].(float64)
	typ, _ := m[typeKey].(string)
	if !ok1 || !ok2 || end <= start || typ == "" {
		return
	}
	sp := seenSpan{clauseType: typ, start: int(start), end: int(end), searched: searched}
	for i, o := range c.spans {
		if o.clauseType == sp.clauseType && o.start == sp.start && o.end == sp.end {
			c.spans[i].searched = o.searched || searched
			return
		}
	}
	c.spans = append(c.spans, sp)
}

var sourcesLine = regexp.MustCompile(`(?im)^[ \t>*_#-]*sources?[ \t]*[:*_]+[*_]*[ \t]*(.*)$`)

// splitSources removes the last "Sources:" line from text and returns the
// remaining text and the line's content ("" when there is none).
func splitSources(text string) (body, sources string, found bool) {
	locs := sourcesLine.FindAllStringSubmatchIndex(text, -1)
	if len(locs) == 0 {
		return text, "", false
	}
	last := locs[len(locs)-1]
	sources = text[last[2]:last[3]]
	// A Sources line may continue as a bulleted list on the next lines.
	rest := text[last[1]:]
	consumed := 0
	for _, line := range strings.SplitAfter(rest, "\n") {
		t := strings.TrimSpace(line)
		if t == "" && consumed == 0 {
			consumed += len(line)
			continue
		}
		if strings.HasPrefix(t, "-") || strings.HasPrefix(t, "*") || strings.HasPrefix(t, "•") {
			sources += "\n" + t
			consumed += len(line)
			continue
		}
		break
	}
	body = strings.TrimRight(text[:last[0]]+rest[consumed:], " \t\n")
	return body, sources, true
}

// cite returns the answer text without its Sources line and the citations.
func (s *seen) cite(text string) (string, []Citation) {
	body, sources, _ := splitSources(text)
	ids := slices.Clone(s.order)
	// Longer ids first, so an id that is a prefix of another does not
	// claim the other's mention.
	slices.SortStableFunc(ids, func(a, b string) int { return len(b) - len(a) })
	pos := map[string]int{}
	find := func(hay string, base int) {
		lower := asciiLower(hay)
		taken := make([]bool, len(hay))
		for _, id := range ids {
			lid := asciiLower(id)
			for from := 0; from+len(lid) <= len(lower); {
				i := strings.Index(lower[from:], lid)
				if i < 0 {
					break
				}
				i += from
				from = i + 1
				if !tokenBoundary(lower, i, i+len(lid)) || slices.Contains(taken[i:i+len(lid)], true) {
					continue
				}
				for j := i; j < i+len(lid); j++ {
					taken[j] = true
				}
				if _, ok := pos[id]; !ok {
					pos[id] = base + i
				}
				break
			}
		}
	}
	find(sources, 0)
	find(body, len(sources)+1)
	cited := make([]string, 0, len(pos))
	for id := range pos {
		cited = append(cited, id)
	}
	slices.SortFunc(cited, func(a, b string) int { return pos[a] - pos[b] })

	lowerBody := strings.ToLower(body)
	out := []Citation{}
	for _, id := range cited {
		c := s.contracts[id]
		out = append(out, Citation{ContractID: id, Title: c.title})
		for _, sp := range c.spans {
			if sp.searched || strings.Contains(lowerBody, strings.ToLower(sp.clauseType)) {
				start, end := sp.start, sp.end
				out = append(out, Citation{ContractID: id, Title: c.title, ClauseType: sp.clauseType, Start: &start, End: &end})
			}
		}
	}
	return body, out
}

// tokenBoundary reports whether s[i:j] is not glued to letters or digits
// on either side.
func tokenBoundary(s string, i, j int) bool {
	if i > 0 {
		r, _ := utf8.DecodeLastRuneInString(s[:i])
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			return false
		}
	}
	if j < len(s) {
		r, _ := utf8.DecodeRuneInString(s[j:])
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			return false
		}
	}
	return true
}

// asciiLower lower-cases ASCII letters only, so byte offsets in the result
// are offsets in s (strings.ToLower may change the length of non-ASCII text).
func asciiLower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}
