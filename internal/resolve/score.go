package resolve

import (
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/contractgraph/contractgraph/internal/contract"
)

// Entity is a party as resolution sees it.
type Entity struct {
	ID          string
	Name        string
	Aliases     []string
	ContractIDs []string // sorted
	Countries   []string // ISO alpha-2 of its locations
	// CoParties are the PartyKeys of the other parties on its contracts.
	CoParties []string

	key     string   // PartyKey of the name, qualifiers removed
	compact string   // key without spaces
	tokens  []string // words of key
	form    string   // legal-form class: "", "corp", "llc" or "partnership"
	role    bool     // the name is a role word or placeholder
	// contracts, coParties and countries are the fields of the same names,
	// sorted and without repeats, so that comparing two entities takes time
	// linear (at worst) in what they hold, not its product.
	contracts, coParties, countries []string
}

// prepare computes the derived fields of e.
func (e *Entity) prepare() {
	name := stripQualifier(e.Name)
	e.key = contract.PartyKey(name)
	e.compact = strings.ReplaceAll(e.key, " ", "")
	e.tokens = strings.Fields(e.key)
	e.form = legalForm(name, e.key)
	e.role = IsRoleWord(name) || !hasLetter(e.key)
	e.contracts = sortedSet(e.ContractIDs)
	e.coParties = sortedSet(e.CoParties)
	e.countries = sortedSet(e.Countries)
}

// sortedSet returns ss sorted without repeats, copying it unless it is so
// already.
func sortedSet(ss []string) []string {
	sorted := true
	for i := 1; i < len(ss); i++ {
		if ss[i-1] >= ss[i] {
			sorted = false
			break
		}
	}
	if sorted {
		return ss
	}
	out := slices.Clone(ss)
	slices.Sort(out)
	return slices.Compact(out)
}

// qualifierRE matches what follows a party's name in some mentions: a
// trade name, the capacity it acts in, or a former name.
var qualifierRE = regexp.MustCompile(`(?i)(?:[,;(]\s*|\s+)(?:d/b/a|dba|doing business as|through its|acting through|acting by|not individually|solely as|in its capacity|as agent|on behalf of|formerly|f/k/a|a/k/a)\b.*$`)

func stripQualifier(name string) string {
	return strings.TrimSpace(qualifierRE.ReplaceAllString(name, ""))
}

func hasLetter(s string) bool {
	return strings.IndexFunc(s, unicode.IsLetter) >= 0
}

// formSeparators are what legalForm reads as spaces between words. Built
// once: building a Replacer per party was 42% of what resolve allocated.
var formSeparators = strings.NewReplacer(",", " ", "&", " and ", "/", " ", "+", " ")

// legalForm classifies the corporate suffix PartyKey removed from name:
// partnerships (L.P., LLP, LLLP), limited liability companies (LLC), other
// companies (Inc., Corp., Ltd, GmbH, S.A., ...) or "" when there is none.
func legalForm(name, key string) string {
	norm := formSeparators.Replace(name)
	words := strings.Fields(contract.MatchKey(norm))
	if len(words) > 0 && words[0] == "the" && !strings.HasPrefix(key, "the") {
		words = words[1:]
	}
	n := len(strings.Fields(key))
	if n >= len(words) {
		return ""
	}
	suffix := " " + strings.Join(words[n:], " ") + " "
	switch {
	case strings.Contains(suffix, " lp ") || strings.Contains(suffix, " llp ") || strings.Contains(suffix, " lllp ") ||
		strings.Contains(suffix, " l p ") || strings.Contains(suffix, " limited partnership "):
		return "partnership"
	case strings.Contains(suffix, " llc ") || strings.Contains(suffix, " l l c ") || strings.Contains(suffix, " pllc ") ||
		strings.Contains(suffix, " limited liability company "):
		return "llc"
	}
	return "corp"
}

// Score is a pair's similarity in [0, 1] and why.
type Score struct {
	Value  float64 `json:"score"`
	Name   float64 `json:"name_similarity"`
	Reason string  `json:"reason"`
}

// Words counts, for each word of the parties' keys, the parties whose key
// has it. A misspelling is a word (almost) nobody else writes, so a one-edit
// difference between two words that other parties use too ("Ridge" and
// "Bridge") is two words, not a typo. A nil Words knows no word.
type Words map[string]int32

// CountWords counts the words of the prepared entities ents.
func CountWords(ents []*Entity) Words {
	w := Words{}
	for _, e := range ents {
		for i, t := range e.tokens {
			if !slices.Contains(e.tokens[:i], t) {
				w[t]++
			}
		}
	}
	return w
}

// established reports whether every word of ws is used by another party
// than the one at hand, and there is at least one.
func (w Words) established(ws []string) bool {
	for _, t := range ws {
		if w[t] < 2 {
			return false
		}
	}
	return len(ws) > 0
}

// score compares two prepared entities, with the word counts of words.
func score(a, b *Entity, words Words) Score {
	switch {
	case a.role || b.role:
		return Score{Reason: "role word or placeholder, not a name"}
	case sharesContract(a, b):
		return Score{Reason: "both are parties to the same contract"}
	case a.form != "" && b.form != "" && a.form != b.form:
		return Score{Reason: "different legal forms (" + a.form + ", " + b.form + ")"}
	}
	name, why := nameSimilarity(a, b, words)
	s := Score{Name: name, Value: name, Reason: why}
	if name == 0 {
		return s
	}
	apart := false // seated in different countries
	if len(a.countries) > 0 && len(b.countries) > 0 {
		if intersects(a.countries, b.countries) {
			s.Value += 0.02
			s.Reason += "; shared country"
		} else {
			apart = true
			s.Value -= 0.10
			s.Reason += "; different countries"
		}
	}
	// A counterparty deals with firms in many countries: sharing one does
	// not outweigh being seated apart (so "Delta Gate Labs AG" in DE and
	// "DeltaGate Labs Inc." in the US stay two).
	if !apart && intersects(a.coParties, b.coParties) {
		s.Value += 0.03
		s.Reason += "; shared counterparty"
	}
	s.Value = min(1, max(0, s.Value))
	return s
}

// nameSimilarity compares the keys: equal keys score 1, keys equal but for
// spaces ("a b watley" / "ab watley") 0.98; otherwise every word of one
// must pair with a word of the other, exactly or, for one word of five or
// more letters, as a typo (one edit), and the score is the mean of
// Jaro-Winkler and Levenshtein similarity of the keys. A typo needs the rest
// of the name to vouch for it: at least one word identical in both (one-word
// names a letter apart, "Microgenics" and "MacroGenics", are as often two
// companies as one misspelt), and one typo at most ("ZenithWave" and
// "ZenithGate" are two edits apart: two words), and the words that differ
// must not all be words other parties use as well (see Words). Keys whose words do not pair
// up (an extra word, a different designator) score at most 0.6 of that mean:
// they name different entities. So only keys within one edit of each other,
// spaces aside, score above 0.6, which is what blocking relies on.
func nameSimilarity(a, b *Entity, words Words) (float64, string) {
	if a.key == b.key {
		return 1, "same normalised name"
	}
	if !slices.Equal(designators(a.tokens), designators(b.tokens)) {
		return 0, "different numbers or numerals (Fund II, Fund III)"
	}
	ca, cb := strings.ReplaceAll(a.key, " ", ""), strings.ReplaceAll(b.key, " ", "")
	if ca == cb {
		return 0.98, "same name but for spacing"
	}
	lex := (JaroWinkler(a.key, b.key) + levenshteinSimilarity(a.key, b.key)) / 2
	onlyA, onlyB := wordsApart(a.tokens, b.tokens)
	if words.established(onlyA) && words.established(onlyB) {
		return 0.6 * lex, "names differ in words other parties use too (" + strings.Join(onlyA, " ") + " / " + strings.Join(onlyB, " ") + ")"
	}
	if typos, ok := alignTokens(a.tokens, b.tokens); ok && (typos == 0 || (typos == 1 && len(a.tokens) > 1)) {
		return min(0.97, lex), "names differ by " + plural(typos, "typo")
	}
	if len(ca) >= 8 && shareWord(a.tokens, b.tokens) && Levenshtein(ca, cb) == 1 {
		return min(0.96, lex), "names differ by one typo"
	}
	return 0.6 * lex, "names differ"
}

// alignTokens pairs the words of a and b. Identical words pair first; each
// remaining word must pair with a remaining word at a small edit distance.
func alignTokens(a, b []string) (typos int, ok bool) {
	if len(a) != len(b) {
		return 0, false
	}
	restB := slices.Clone(b)
	var restA []string
	for _, w := range a {
		if i := slices.Index(restB, w); i >= 0 {
			restB = slices.Delete(restB, i, i+1)
		} else {
			restA = append(restA, w)
		}
	}
	for _, w := range restA {
		best := -1
		for i, v := range restB {
			if isTypo(w, v) {
				best = i
				break
			}
		}
		if best < 0 {
			return 0, false
		}
		restB = slices.Delete(restB, best, best+1)
		typos++
	}
	return typos, true
}

// romanRE matches Roman numerals up to 39, which number funds, series and
// holding companies.
var romanRE = regexp.MustCompile(`^x{0,3}(?:ix|iv|v?i{0,3})$`)

// designators returns the sorted words of tokens that number an entity:
// Roman numerals and words holding digits.
func designators(tokens []string) []string {
	var out []string
	for _, t := range tokens {
		if hasDigit(t) || (t != "" && romanRE.MatchString(t)) {
			out = append(out, t)
		}
	}
	slices.Sort(out)
	return out
}

func isTypo(a, b string) bool {
	n := min(len([]rune(a)), len([]rune(b)))
	if n < 5 || hasDigit(a) || hasDigit(b) {
		return false
	}
	return Levenshtein(a, b) == 1
}

// wordsApart returns the words of a not in b and those of b not in a.
func wordsApart(a, b []string) (onlyA, onlyB []string) {
	for _, w := range a {
		if !slices.Contains(b, w) {
			onlyA = append(onlyA, w)
		}
	}
	for _, w := range b {
		if !slices.Contains(a, w) {
			onlyB = append(onlyB, w)
		}
	}
	return onlyA, onlyB
}

// shareWord reports whether a and b have a word in common.
func shareWord(a, b []string) bool {
	for _, w := range a {
		if slices.Contains(b, w) {
			return true
		}
	}
	return false
}

func hasDigit(s string) bool { return strings.IndexFunc(s, unicode.IsDigit) >= 0 }

func sharesContract(a, b *Entity) bool { return intersects(a.contracts, b.contracts) }

// intersects reports whether the sorted sets a and b share an element, in
// time O(s log l) for the smaller s and the larger l: each element of the
// smaller is looked up in what remains of the larger.
func intersects(a, b []string) bool {
	if len(a) > len(b) {
		a, b = b, a
	}
	for _, x := range a {
		i, found := slices.BinarySearch(b, x)
		if found {
			return true
		}
		if b = b[i:]; len(b) == 0 {
			return false
		}
	}
	return false
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return strconv.Itoa(n) + " " + word + "s"
}
