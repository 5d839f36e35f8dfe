package sqlite

import (
	"sort"
	"sync"
	"unicode"
	"unicode/utf8"

	unorm "golang.org/x/text/unicode/norm"
)

// This file is a Go tokenizer that gives the same terms as FTS5's
// `porter unicode61 remove_diacritics 2`, the tokenizer of passage_fts, so
// that the passage index (passageindex.go) counts the same terms, term
// frequencies and document lengths as FTS5 and so ranks with the same BM25.
//
// Go's Unicode tables are newer than FTS5's, so the two disagree on some
// characters: TestTokenizerMatchesFTS5 compares every assigned code point
// and fts5Differs lists where they differ. ftsTokens reports whether every
// character of the text is a checked one (checkedRune); the index counts
// the passages that are not, and the search falls back to FTS5 while there
// are any.

// asciiTokenChar marks the ASCII characters unicode61 keeps in tokens.
var asciiTokenChar = func() (t [128]bool) {
	for c := '0'; c <= '9'; c++ {
		t[c] = true
	}
	for c := 'a'; c <= 'z'; c++ {
		t[c] = true
		t[c-'a'+'A'] = true
	}
	return t
}()

// checkedRune reports whether the non-ASCII r is a character whose
// treatment TestTokenizerMatchesFTS5 compared with FTS5's, code point by
// code point: every character assigned in Go's Unicode tables except the
// ones listed in fts5Differs. A code point unassigned in Go's tables is not
// checked (FTS5 takes its own unassigned ones as token characters, Go's
// categories say nothing of them).
func checkedRune(r rune) bool {
	if r < 0x10000 {
		return checkedBMP()[r>>6]&(1<<(r&63)) != 0
	}
	return checkedSlow(r)
}

func checkedSlow(r rune) bool {
	if !unicode.In(r, unicode.L, unicode.M, unicode.N, unicode.P, unicode.S, unicode.Z, unicode.Cc, unicode.Cf, unicode.Co) {
		return false
	}
	i := sort.Search(len(fts5Differs), func(i int) bool { return fts5Differs[i][1] >= r })
	return i == len(fts5Differs) || r < fts5Differs[i][0]
}

// checkedBMP is checkedSlow for the Basic Multilingual Plane as a bitmap
// (8 KiB), built at the first non-ASCII character.
var checkedBMP = sync.OnceValue(func() *[1024]uint64 {
	var m [1024]uint64
	for r := rune(0x80); r < 0x10000; r++ {
		if checkedSlow(r) {
			m[r>>6] |= 1 << (r & 63)
		}
	}
	return &m
})

// fts5Differs are the assigned code points, in order, where this tokenizer
// and FTS5 disagree, as TestTokenizerMatchesFTS5 finds them when it walks
// every assigned code point (it prints the ranges it finds, so that this
// list can be remade after a Go or SQLite upgrade): mostly characters
// assigned in Unicode after FTS5's tables (which take them as token
// characters, where Go's say symbol or mark), and a few foldings (dotless
// i, A with dot above and macron, Cherokee).
var fts5Differs = [][2]rune{
	{0x131, 0x131}, {0x1e0, 0x1e1}, {0x37f, 0x37f}, {0x528, 0x528}, {0x52a, 0x52a}, {0x52c, 0x52c},
	{0x52e, 0x52e}, {0x58d, 0x58e}, {0x605, 0x605}, {0x61c, 0x61d}, {0x7fd, 0x7ff}, {0x888, 0x888},
	{0x890, 0x891}, {0x898, 0x89f}, {0x8ca, 0x8e3}, {0x8ff, 0x8ff}, {0x9fd, 0x9fe}, {0xa76, 0xa76},
	{0xafa, 0xaff}, {0xb55, 0xb55}, {0xc00, 0xc00}, {0xc04, 0xc04}, {0xc3c, 0xc3c}, {0xc77, 0xc77},
	{0xc81, 0xc81}, {0xc84, 0xc84}, {0xcf3, 0xcf3}, {0xd00, 0xd01}, {0xd3b, 0xd3c}, {0xd4f, 0xd4f},
	{0xd81, 0xd81}, {0xeba, 0xeba}, {0xece, 0xece}, {0x13a0, 0x13f5}, {0x1715, 0x1715}, {0x180f, 0x180f},
	{0x1885, 0x1886}, {0x19b0, 0x19c0}, {0x19c8, 0x19c9}, {0x1ab0, 0x1ace}, {0x1b7d, 0x1b7e}, {0x1c80, 0x1c88},
	{0x1c90, 0x1cba}, {0x1cbd, 0x1cbf}, {0x1cf2, 0x1cf3}, {0x1cf7, 0x1cf9}, {0x1de7, 0x1dfb}, {0x2066, 0x2069},
	{0x20ba, 0x20c0}, {0x218a, 0x218b}, {0x23f4, 0x23ff}, {0x2700, 0x2700}, {0x2b4d, 0x2b4f}, {0x2b5a, 0x2b73},
	{0x2b76, 0x2b95}, {0x2b97, 0x2bff}, {0x2c2f, 0x2c2f}, {0x2e3c, 0x2e5d}, {0x32ff, 0x32ff}, {0xa698, 0xa698},
	{0xa69a, 0xa69a}, {0xa69e, 0xa69e}, {0xa796, 0xa796}, {0xa798, 0xa798}, {0xa79a, 0xa79a}, {0xa79c, 0xa79c},
	{0xa79e, 0xa79e}, {0xa7ab, 0xa7ae}, {0xa7b0, 0xa7b4}, {0xa7b6, 0xa7b6}, {0xa7b8, 0xa7b8}, {0xa7ba, 0xa7ba},
	{0xa7bc, 0xa7bc}, {0xa7be, 0xa7be}, {0xa7c0, 0xa7c0}, {0xa7c2, 0xa7c2}, {0xa7c4, 0xa7c7}, {0xa7c9, 0xa7c9},
	{0xa7d0, 0xa7d0}, {0xa7d6, 0xa7d6}, {0xa7d8, 0xa7d8}, {0xa7f5, 0xa7f5}, {0xa82c, 0xa82c}, {0xa8c5, 0xa8c5},
	{0xa8fc, 0xa8fc}, {0xa8ff, 0xa8ff}, {0xa9e5, 0xa9e5}, {0xaa7c, 0xaa7d}, {0xab5b, 0xab5b}, {0xab6a, 0xab6b},
	{0xfbc2, 0xfbc2}, {0xfd40, 0xfd4f}, {0xfdcf, 0xfdcf}, {0xfdfe, 0xfdff}, {0xfe27, 0xfe2f}, {0x1018c, 0x1018e},
	{0x1019c, 0x1019c}, {0x101a0, 0x101a0}, {0x102e0, 0x102e0}, {0x10376, 0x1037a}, {0x1056f, 0x1056f}, {0x10877, 0x10878},
	{0x10ac8, 0x10ac8}, {0x10ae5, 0x10ae6}, {0x10af0, 0x10af6}, {0x10b99, 0x10b9c}, {0x10d24, 0x10d27}, {0x10eab, 0x10ead},
	{0x10efd, 0x10eff}, {0x10f46, 0x10f50}, {0x10f55, 0x10f59}, {0x10f82, 0x10f89}, {0x11070, 0x11070}, {0x11073, 0x11074},
	{0x1107f, 0x1107f}, {0x110c2, 0x110c2}, {0x110cd, 0x110cd}, {0x11145, 0x11146}, {0x11173, 0x11175}, {0x111c9, 0x111cf},
	{0x111db, 0x111db}, {0x111dd, 0x111df}, {0x1122c, 0x1123e}, {0x11241, 0x11241}, {0x112a9, 0x112a9}, {0x112df, 0x112ea},
	{0x11300, 0x11303}, {0x1133b, 0x1133c}, {0x1133e, 0x11344}, {0x11347, 0x11348}, {0x1134b, 0x1134d}, {0x11357, 0x11357},
	{0x11362, 0x11363}, {0x11366, 0x1136c}, {0x11370, 0x11374}, {0x11435, 0x11446}, {0x1144b, 0x1144f}, {0x1145a, 0x1145b},
	{0x1145d, 0x1145e}, {0x114b0, 0x114c3}, {0x114c6, 0x114c6}, {0x115af, 0x115b5}, {0x115b8, 0x115d7}, {0x115dc, 0x115dd},
	{0x11630, 0x11643}, {0x11660, 0x1166c}, {0x116b9, 0x116b9}, {0x1171d, 0x1172b}, {0x1173c, 0x1173f}, {0x1182c, 0x1183b},
	{0x11930, 0x11935}, {0x11937, 0x11938}, {0x1193b, 0x1193e}, {0x11940, 0x11940}, {0x11942, 0x11946}, {0x119d1, 0x119d7},
	{0x119da, 0x119e0}, {0x119e2, 0x119e2}, {0x119e4, 0x119e4}, {0x11a01, 0x11a0a}, {0x11a33, 0x11a39}, {0x11a3b, 0x11a47},
	{0x11a51, 0x11a5b}, {0x11a8a, 0x11a9c}, {0x11a9e, 0x11aa2}, {0x11b00, 0x11b09}, {0x11c2f, 0x11c36}, {0x11c38, 0x11c3f},
	{0x11c41, 0x11c45}, {0x11c70, 0x11c71}, {0x11c92, 0x11ca7}, {0x11ca9, 0x11cb6}, {0x11d31, 0x11d36}, {0x11d3a, 0x11d3a},
	{0x11d3c, 0x11d3d}, {0x11d3f, 0x11d45}, {0x11d47, 0x11d47}, {0x11d8a, 0x11d8e}, {0x11d90, 0x11d91}, {0x11d93, 0x11d97},
	{0x11ef3, 0x11ef8}, {0x11f00, 0x11f01}, {0x11f03, 0x11f03}, {0x11f34, 0x11f3a}, {0x11f3e, 0x11f4f}, {0x11fd5, 0x11ff1},
	{0x11fff, 0x11fff}, {0x12474, 0x12474}, {0x12ff1, 0x12ff2}, {0x13430, 0x13440}, {0x13447, 0x13455}, {0x16a6e, 0x16a6f},
	{0x16af0, 0x16af5}, {0x16b30, 0x16b3f}, {0x16b44, 0x16b45}, {0x16e97, 0x16e9a}, {0x16f4f, 0x16f4f}, {0x16f7f, 0x16f87},
	{0x16fe2, 0x16fe2}, {0x16fe4, 0x16fe4}, {0x16ff0, 0x16ff1}, {0x1bc9c, 0x1bca3}, {0x1cf00, 0x1cf2d}, {0x1cf30, 0x1cf46},
	{0x1cf50, 0x1cfc3}, {0x1d1de, 0x1d1ea}, {0x1d800, 0x1da8b}, {0x1da9b, 0x1da9f}, {0x1daa1, 0x1daaf}, {0x1e000, 0x1e006},
	{0x1e008, 0x1e018}, {0x1e01b, 0x1e021}, {0x1e023, 0x1e024}, {0x1e026, 0x1e02a}, {0x1e08f, 0x1e08f}, {0x1e130, 0x1e136},
	{0x1e14f, 0x1e14f}, {0x1e2ae, 0x1e2ae}, {0x1e2ec, 0x1e2ef}, {0x1e2ff, 0x1e2ff}, {0x1e4ec, 0x1e4ef}, {0x1e8d0, 0x1e8d6},
	{0x1e944, 0x1e94a}, {0x1e95e, 0x1e95f}, {0x1ecac, 0x1ecac}, {0x1ecb0, 0x1ecb0}, {0x1ed2e, 0x1ed2e}, {0x1f0bf, 0x1f0bf},
	{0x1f0e0, 0x1f0f5}, {0x1f10d, 0x1f10f}, {0x1f12f, 0x1f12f}, {0x1f16c, 0x1f16f}, {0x1f19b, 0x1f1ad}, {0x1f23b, 0x1f23b},
	{0x1f260, 0x1f265}, {0x1f321, 0x1f32f}, {0x1f336, 0x1f336}, {0x1f37d, 0x1f37f}, {0x1f394, 0x1f39f}, {0x1f3c5, 0x1f3c5},
	{0x1f3cb, 0x1f3df}, {0x1f3f1, 0x1f3ff}, {0x1f43f, 0x1f43f}, {0x1f441, 0x1f441}, {0x1f4f8, 0x1f4f8}, {0x1f4fd, 0x1f4ff},
	{0x1f53e, 0x1f53f}, {0x1f544, 0x1f54f}, {0x1f568, 0x1f5fa}, {0x1f641, 0x1f644}, {0x1f650, 0x1f67f}, {0x1f6c6, 0x1f6d7},
	{0x1f6dc, 0x1f6ec}, {0x1f6f0, 0x1f6fc}, {0x1f774, 0x1f776}, {0x1f77b, 0x1f7d9}, {0x1f7e0, 0x1f7eb}, {0x1f7f0, 0x1f7f0},
	{0x1f800, 0x1f80b}, {0x1f810, 0x1f847}, {0x1f850, 0x1f859}, {0x1f860, 0x1f887}, {0x1f890, 0x1f8ad}, {0x1f8b0, 0x1f8b1},
	{0x1f900, 0x1fa53}, {0x1fa60, 0x1fa6d}, {0x1fa70, 0x1fa7c}, {0x1fa80, 0x1fa88}, {0x1fa90, 0x1fabd}, {0x1fabf, 0x1fac5},
	{0x1face, 0x1fadb}, {0x1fae0, 0x1fae8}, {0x1faf0, 0x1faf8}, {0x1fb00, 0x1fb92}, {0x1fb94, 0x1fbca},
}

// isTokenRune reports whether unicode61 (categories L*, N*, Co) keeps the
// non-ASCII r in a token.
func isTokenRune(r rune) bool {
	return unicode.IsLetter(r) || unicode.IsNumber(r) || unicode.Is(unicode.Co, r)
}

// isDiacritic reports whether r is one of the combining marks unicode61
// lets continue (but not start) a token.
func isDiacritic(r rune) bool {
	const mask0, mask1 = 0x08029FDF, 0x000361F8
	switch {
	case r < 768 || r > 817:
		return false
	case r < 768+32:
		return mask0&(1<<(r-768)) != 0
	default:
		return mask1&(1<<(r-768-32)) != 0
	}
}

// foldRune is unicode61's case folding with remove_diacritics 2 of a
// non-ASCII r: lower case, and a Latin letter with diacritics becomes its
// base letter. It returns 0 for a character that folds away.
func foldRune(r rune) rune {
	if r >= 66560 && r < 66600 {
		return r + 40
	}
	if r >= 65536 {
		return r
	}
	l := unicode.ToLower(unicode.ToUpper(r))
	if r >= 768 && r <= 817 {
		return 0
	}
	d := unorm.NFD.String(string(l))
	base, n := utf8.DecodeRuneInString(d)
	if n == len(d) || base >= 0x80 {
		return l
	}
	for _, m := range d[n:] {
		if m < 0x300 || m > 0x36f {
			return l
		}
	}
	return base
}

// ftsTokens calls emit with each term of s, as FTS5's porter unicode61
// remove_diacritics 2 tokenizer produces them (emit must not keep the
// slice), and reports whether s holds only characters whose treatment was
// checked against FTS5 (valid UTF-8, ASCII or checkedRune).
func ftsTokens(s string, emit func(term []byte)) (checked bool) {
	return foldedTokens(s, func(tok []byte) { emit(porterStem(tok)) })
}

// foldedTokens is ftsTokens before stemming: emit gets each token folded
// (lower case, diacritics removed) and may stem it in place.
func foldedTokens(s string, emit func(tok []byte)) (checked bool) {
	checked = utf8.ValidString(s)
	var buf [64]byte
	tok := buf[:0]
	i := 0
	for i < len(s) {
		if c := s[i]; c < 0x80 {
			if !asciiTokenChar[c] {
				i++
				continue
			}
		} else {
			r, n := utf8.DecodeRuneInString(s[i:])
			if !checkedRune(r) {
				checked = false
			}
			if !isTokenRune(r) {
				i += n
				continue
			}
		}
		tok = tok[:0]
		for i < len(s) {
			c := s[i]
			if c < 0x80 {
				if !asciiTokenChar[c] {
					break
				}
				if c >= 'A' && c <= 'Z' {
					c += 'a' - 'A'
				}
				tok = append(tok, c)
				i++
				continue
			}
			r, n := utf8.DecodeRuneInString(s[i:])
			if !checkedRune(r) {
				checked = false
			}
			if !isTokenRune(r) && !isDiacritic(r) {
				break
			}
			if f := foldRune(r); f != 0 {
				tok = utf8.AppendRune(tok, f)
			}
			i += n
		}
		emit(tok)
	}
	return checked
}

// maxStems bounds a stemmer's memo: a batch's passages repeat a small
// vocabulary (a few thousand terms in 100,000 synthetic contracts), and
// past the bound tokens are stemmed each time.
const maxStems = 1 << 16

// stemmer stems tokens as ftsTokens does, remembering each token's stem:
// the passage index tokenizes every passage it writes, and stemming is
// most of that. A stem depends on the token alone, so the memo cannot go
// stale; it lives as long as one indexWriter.
type stemmer struct {
	stems map[string]string
	// counts is tokenizePassage's scratch map, empty between calls.
	counts map[string]uint32
}

// stem returns the stem of tok, which it may overwrite.
func (m *stemmer) stem(tok []byte) string {
	if st, ok := m.stems[string(tok)]; ok {
		return st
	}
	raw := string(tok)
	st := string(porterStem(tok))
	if m.stems == nil {
		m.stems = map[string]string{}
	}
	if len(m.stems) < maxStems {
		m.stems[raw] = st
	}
	return st
}

// porterMaxToken is FTS5's limit above which tokens pass unstemmed.
const porterMaxToken = 64

// porterStem stems a folded token in place the way FTS5's porter
// tokenizer does (bytes, ASCII vowels; tokens under 3 or over 64 bytes
// pass through) and returns the stem.
func porterStem(tok []byte) []byte {
	if len(tok) < 3 || len(tok) > porterMaxToken {
		return tok
	}
	w := stemWord{b: tok}
	w.step1a()
	if w.step1b() {
		if !w.replace(step1b2Rules) {
			c := w.at(len(w.b) - 1)
			if !isVowel(c, false) && c != 'l' && c != 's' && c != 'z' && c == w.at(len(w.b)-2) {
				w.b = w.b[:len(w.b)-1]
			} else if mEq1(w.b) && oStar(w.b) {
				w.b = append(w.b, 'e')
			}
		}
	}
	if n := len(w.b); w.at(n-1) == 'y' && hasVowel(w.b[:n-1]) {
		w.b[n-1] = 'i'
	}
	w.replace(step2Rules)
	w.replace(step3Rules)
	w.replace(step4Rules)
	if n := len(w.b); w.at(n-1) == 'e' {
		if s := w.b[:n-1]; mGt1(s) || (mEq1(s) && !oStar(s)) {
			w.b = s
		}
	}
	if n := len(w.b); n > 1 && w.b[n-1] == 'l' && w.b[n-2] == 'l' && mGt1(w.b[:n-1]) {
		w.b = w.b[:n-1]
	}
	return w.b
}

// stemWord is a token being stemmed.
type stemWord struct{ b []byte }

// at returns byte i, or 0 before the start (where FTS5 reads a zero byte).
func (w *stemWord) at(i int) byte {
	if i < 0 || i >= len(w.b) {
		return 0
	}
	return w.b[i]
}

func (w *stemWord) step1a() {
	n := len(w.b)
	if w.b[n-1] != 's' {
		return
	}
	switch {
	case w.b[n-2] == 'e':
		if (n > 4 && w.b[n-4] == 's' && w.b[n-3] == 's') || (n > 3 && w.b[n-3] == 'i') {
			w.b = w.b[:n-2]
		} else {
			w.b = w.b[:n-1]
		}
	case w.b[n-2] != 's':
		w.b = w.b[:n-1]
	}
}

// step1b removes eed/ed/ing and reports whether ed or ing went.
func (w *stemWord) step1b() bool {
	n := len(w.b)
	switch {
	case n > 3 && string(w.b[n-3:]) == "eed":
		if mGt0(w.b[:n-3]) {
			w.b = w.b[:n-1]
		}
	case n > 2 && string(w.b[n-2:]) == "ed":
		if hasVowel(w.b[:n-2]) {
			w.b = w.b[:n-2]
			return true
		}
	case n > 3 && string(w.b[n-3:]) == "ing":
		if hasVowel(w.b[:n-3]) {
			w.b = w.b[:n-3]
			return true
		}
	}
	return false
}

// porterRule replaces suffix by out when the stem before it passes cond
// (nil: always).
type porterRule struct {
	suffix, out string
	cond        func([]byte) bool
}

// replace applies the first rule whose suffix ends the word with at least
// one byte before it (FTS5 stops there whether or not the condition holds)
// and reports whether it replaced.
func (w *stemWord) replace(rules []porterRule) bool {
	n := len(w.b)
	for _, r := range rules {
		k := len(r.suffix)
		if n <= k || string(w.b[n-k:]) != r.suffix {
			continue
		}
		if r.cond != nil && !r.cond(w.b[:n-k]) {
			return false
		}
		w.b = append(w.b[:n-k], r.out...)
		return true
	}
	return false
}

var step1b2Rules = []porterRule{{"at", "ate", nil}, {"bl", "ble", nil}, {"iz", "ize", nil}}

var step2Rules = []porterRule{
	{"ational", "ate", mGt0}, {"tional", "tion", mGt0},
	{"enci", "ence", mGt0}, {"anci", "ance", mGt0},
	{"izer", "ize", mGt0},
	{"logi", "log", mGt0},
	{"bli", "ble", mGt0}, {"alli", "al", mGt0}, {"entli", "ent", mGt0}, {"eli", "e", mGt0}, {"ousli", "ous", mGt0},
	{"ization", "ize", mGt0}, {"ation", "ate", mGt0}, {"ator", "ate", mGt0},
	{"alism", "al", mGt0}, {"iveness", "ive", mGt0}, {"fulness", "ful", mGt0}, {"ousness", "ous", mGt0},
	{"aliti", "al", mGt0}, {"iviti", "ive", mGt0}, {"biliti", "ble", mGt0},
}

var step3Rules = []porterRule{
	{"ical", "ic", mGt0},
	{"ness", "", mGt0},
	{"icate", "ic", mGt0}, {"iciti", "ic", mGt0},
	{"ful", "", mGt0},
	{"ative", "", mGt0},
	{"alize", "al", mGt0},
}

var step4Rules = []porterRule{
	{"al", "", mGt1},
	{"ance", "", mGt1}, {"ence", "", mGt1},
	{"er", "", mGt1},
	{"ic", "", mGt1},
	{"able", "", mGt1}, {"ible", "", mGt1},
	{"ant", "", mGt1}, {"ement", "", mGt1}, {"ment", "", mGt1}, {"ent", "", mGt1},
	{"ion", "", mGt1ST}, {"ou", "", mGt1},
	{"ism", "", mGt1},
	{"ate", "", mGt1}, {"iti", "", mGt1},
	{"ous", "", mGt1},
	{"ive", "", mGt1},
	{"ize", "", mGt1},
}

func isVowel(c byte, yIsVowel bool) bool {
	return c == 'a' || c == 'e' || c == 'i' || c == 'o' || c == 'u' || (yIsVowel && c == 'y')
}

// gobbleVC skips to the end of the first vowel-consonant sequence of s and
// returns the index after it, or 0 if there is none.
func gobbleVC(s []byte, prevCons bool) int {
	cons := prevCons
	i := 0
	for ; i < len(s); i++ {
		if cons = !isVowel(s[i], cons); !cons {
			break
		}
	}
	for i++; i < len(s); i++ {
		if cons = !isVowel(s[i], cons); cons {
			return i + 1
		}
	}
	return 0
}

// mGt0 is the rule condition m > 0.
func mGt0(s []byte) bool { return gobbleVC(s, false) != 0 }

// mGt1 is the rule condition m > 1.
func mGt1(s []byte) bool {
	n := gobbleVC(s, false)
	return n != 0 && gobbleVC(s[n:], true) != 0
}

// mEq1 is the rule condition m = 1.
func mEq1(s []byte) bool {
	n := gobbleVC(s, false)
	return n != 0 && gobbleVC(s[n:], true) == 0
}

// oStar is the rule condition *o: the stem ends consonant-vowel-consonant,
// the last not w, x or y.
func oStar(s []byte) bool {
	if len(s) == 0 {
		return false
	}
	if c := s[len(s)-1]; c == 'w' || c == 'x' || c == 'y' {
		return false
	}
	mask, cons := 0, false
	for _, c := range s {
		cons = !isVowel(c, cons)
		mask <<= 1
		if cons {
			mask++
		}
	}
	return mask&7 == 5
}

// mGt1ST is the rule condition m > 1 and (*S or *T).
func mGt1ST(s []byte) bool {
	if len(s) == 0 {
		return false
	}
	c := s[len(s)-1]
	return (c == 's' || c == 't') && mGt1(s)
}

// hasVowel is the rule condition *v*.
func hasVowel(s []byte) bool {
	for i, c := range s {
		if isVowel(c, i > 0) {
			return true
		}
	}
	return false
}
