package retrieve

import (
	"bufio"
	"context"
	_ "embed"
	"fmt"
	"io"
	"strings"
	"sync"
	"unicode"

	"github.com/contractgraph/contractgraph/internal/contract"
	"github.com/contractgraph/contractgraph/internal/textmatch"
)

// MaxExpansions bounds the phrases one query is widened with, whoever
// proposes them (thesaurus or model), so that an expansion cannot make a
// query unboundedly wide.
const MaxExpansions = 12

// maxExpansionBytes bounds one expansion phrase.
const maxExpansionBytes = 80

// Expander widens a query with phrases that say what it asks for in other
// words.
type Expander interface {
	// Expand returns at most MaxExpansions phrases, none of them the query
	// itself. An error means no expansion: the Searcher then searches with
	// the query alone and logs the error.
	Expand(ctx context.Context, query string) ([]string, error)
}

//go:embed thesaurus.txt
var thesaurusText string

// synSet is one line of the thesaurus.
type synSet struct {
	category string     // CUAD category, "" for a "*" set
	phrases  []string   // as written
	stems    [][]string // each phrase's content-word stems
}

// Thesaurus expands queries from a hand-written legal thesaurus keyed by
// the CUAD clause taxonomy (thesaurus.txt, embedded): a query naming a
// clause category, or containing one phrase of a set, is widened with the
// set's other phrases.
type Thesaurus struct {
	sets       []synSet
	categories map[string][]string // category name → its name's content stems
}

var (
	defaultThesaurus     *Thesaurus
	defaultThesaurusOnce sync.Once
)

// DefaultThesaurus is the thesaurus shipped in the binary. Its text is
// checked by the tests, so a parse error here is a build mistake.
func DefaultThesaurus() *Thesaurus {
	defaultThesaurusOnce.Do(func() {
		t, err := ParseThesaurus(strings.NewReader(thesaurusText), "thesaurus.txt")
		if err != nil {
			panic(err)
		}
		defaultThesaurus = t
	})
	return defaultThesaurus
}

// ParseThesaurus reads a thesaurus in thesaurus.txt's format; name is the
// source's name for errors, which give its line.
func ParseThesaurus(r io.Reader, name string) (*Thesaurus, error) {
	t := &Thesaurus{categories: map[string][]string{}}
	for _, c := range contract.ClauseCategories {
		t.categories[c.Name] = contentStems(c.Name)
	}
	sc := bufio.NewScanner(r)
	line := 0
	for sc.Scan() {
		line++
		text := strings.TrimSpace(sc.Text())
		if text == "" || strings.HasPrefix(text, "#") {
			continue
		}
		key, rest, ok := strings.Cut(text, ":")
		if !ok {
			return nil, fmt.Errorf("%s:%d: want KEY: phrase | phrase, got %q", name, line, text)
		}
		set := synSet{}
		if key = strings.TrimSpace(key); key != "*" {
			typ, _, err := contract.ParseClauseType(key)
			if err != nil || contract.IsClauseGroup(typ) {
				return nil, fmt.Errorf("%s:%d: %q is neither * nor one of CUAD's 41 clause categories", name, line, key)
			}
			set.category = typ
		}
		for p := range strings.SplitSeq(rest, "|") {
			p = strings.Join(strings.Fields(p), " ")
			if p == "" {
				return nil, fmt.Errorf("%s:%d: an empty phrase", name, line)
			}
			st := contentStems(p)
			if len(st) == 0 {
				return nil, fmt.Errorf("%s:%d: phrase %q has only stop words", name, line, p)
			}
			set.phrases = append(set.phrases, p)
			set.stems = append(set.stems, st)
		}
		if len(set.phrases) < 2 && set.category == "" {
			return nil, fmt.Errorf("%s:%d: a * set needs two phrases or more", name, line)
		}
		t.sets = append(t.sets, set)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if len(t.sets) == 0 {
		return nil, fmt.Errorf("%s: no phrase set", name)
	}
	return t, nil
}

// Expand returns the phrases of every set the query names or touches, in
// the thesaurus's order, without those the query already contains; at
// most MaxExpansions. It never fails.
func (t *Thesaurus) Expand(_ context.Context, query string) ([]string, error) {
	q := contentStems(query)
	if len(q) == 0 {
		return nil, nil
	}
	named := map[string]bool{}
	for cat, st := range t.categories {
		if containsSeq(q, st, 0) {
			named[cat] = true
		}
	}
	var out []string
	seen := map[string]bool{}
	for _, s := range t.sets {
		hit := s.category != "" && named[s.category]
		for _, st := range s.stems {
			if hit {
				break
			}
			hit = containsSeq(q, st, maxPhraseGap)
		}
		if !hit {
			continue
		}
		for i, p := range s.phrases {
			key := strings.Join(s.stems[i], " ")
			if seen[key] || containsSeq(q, s.stems[i], maxPhraseGap) {
				continue
			}
			seen[key] = true
			out = append(out, p)
			if len(out) == MaxExpansions {
				return out, nil
			}
		}
	}
	return out, nil
}

// maxPhraseGap is how many other content words may stand between two
// words of a phrase for it to match ("terminate this agreement for
// convenience" matches "terminate for convenience").
const maxPhraseGap = 2

// containsSeq reports whether seq occurs in words in order, with at most
// gap other words between consecutive elements.
func containsSeq(words, seq []string, gap int) bool {
	if len(seq) == 0 || len(seq) > len(words) {
		return false
	}
	for i, w := range words {
		if w != seq[0] {
			continue
		}
		at, j := i, 1
		for j < len(seq) {
			next := -1
			for k := at + 1; k < len(words) && k <= at+1+gap; k++ {
				if words[k] == seq[j] {
					next = k
					break
				}
			}
			if next < 0 {
				break
			}
			at, j = next, j+1
		}
		if j == len(seq) {
			return true
		}
	}
	return false
}

// contentStems are the stems of text's words other than stop words, in
// order, repeats kept. A run of Han characters, which Chinese writes
// without spaces, becomes its overlapping character pairs (a single
// character alone), the usual way to match Chinese words without a
// dictionary.
func contentStems(text string) []string {
	var out []string
	for _, w := range words(text) {
		if han := hanRun(w); han != nil {
			if len(han) == 1 {
				out = append(out, string(han))
			}
			for i := 0; i+1 < len(han); i++ {
				out = append(out, string(han[i:i+2]))
			}
			continue
		}
		if !textmatch.StopWord(w) {
			out = append(out, stem(w))
		}
	}
	return out
}

// hanRun returns w's runes when w has a Han character (then all of it is
// split into pairs), else nil.
func hanRun(w string) []rune {
	for _, r := range w {
		if unicode.Is(unicode.Han, r) {
			return []rune(w)
		}
	}
	return nil
}

// cleanExpansions trims, bounds and de-duplicates phrases from any
// expander, leaving out those without a searchable word and those the
// query already holds.
func cleanExpansions(query string, phrases []string) []string {
	q := contentStems(query)
	seen := map[string]bool{}
	var out []string
	for _, p := range phrases {
		p = strings.Join(strings.Fields(p), " ")
		if p == "" || len(p) > maxExpansionBytes {
			continue
		}
		st := contentStems(p)
		key := strings.Join(st, " ")
		if len(st) == 0 || seen[key] || containsSeq(q, st, maxPhraseGap) {
			continue
		}
		seen[key] = true
		out = append(out, p)
		if len(out) == MaxExpansions {
			break
		}
	}
	return out
}
