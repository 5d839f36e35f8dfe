package sqlite

import (
	"unicode"
	"unicode/utf8"

	unorm "golang.org/x/text/unicode/norm"
)

// This file is a Go tokenizer that gives the same terms as FTS5's
// `porter unicode61 remove_diacritics 2`, the tokenizer of passage_fts, so
// that the passage index (passageindex.go) counts the same terms, term
// frequencies and document lengths as FTS5 and so ranks with the same BM25.
//
// Go's Unicode tables are newer than FTS5's, so outside the ranges that
// TestTokenizerMatchesFTS5 compares code point by code point the two may
// disagree. ftsTokens therefore reports whether every character of the text
// is one of those checked ones; the index counts the passages that are not,
// and the search falls back to FTS5 while there are any.

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

// checkedRune reports whether r lies in a range where this tokenizer is
// known to agree with FTS5 (TestTokenizerMatchesFTS5 walks them all).
func checkedRune(r rune) bool {
	return inRanges(r, checkedRanges) && !inRanges(r, fts5Differs)
}

func inRanges(r rune, ranges [][2]rune) bool {
	for _, rg := range ranges {
		if r >= rg[0] && r <= rg[1] {
			return true
		}
	}
	return false
}

// fts5Differs are the code points of checkedRanges where this tokenizer
// and FTS5 disagree, as TestTokenizerMatchesFTS5 found them: mostly
// characters assigned in Unicode after FTS5's tables (which take them as
// token characters), and a few foldings (dotless i, A with dot above and
// macron).
var fts5Differs = [][2]rune{
	{0x131, 0x131}, {0x1e0, 0x1e1}, {0x378, 0x379}, {0x37f, 0x383}, {0x38b, 0x38b}, {0x38d, 0x38d},
	{0x3a2, 0x3a2}, {0x528, 0x528}, {0x52a, 0x52a}, {0x52c, 0x52c}, {0x52e, 0x52e}, {0x530, 0x530},
	{0x557, 0x558}, {0x58b, 0x58e}, {0x590, 0x590}, {0x5c8, 0x5cf}, {0x5eb, 0x5ee}, {0x5f5, 0x5ff},
	{0x1f16, 0x1f17}, {0x1f1e, 0x1f1f}, {0x1f46, 0x1f47}, {0x1f4e, 0x1f4f}, {0x1f58, 0x1f58},
	{0x1f5a, 0x1f5a}, {0x1f5c, 0x1f5c}, {0x1f5e, 0x1f5e}, {0x1f7e, 0x1f7f}, {0x1fb5, 0x1fb5},
	{0x1fc5, 0x1fc5}, {0x1fd4, 0x1fd5}, {0x1fdc, 0x1fdc}, {0x1ff0, 0x1ff1}, {0x1ff5, 0x1ff5},
	{0x1fff, 0x1fff}, {0x2065, 0x2069}, {0x2072, 0x2073}, {0x208f, 0x208f}, {0x209d, 0x209f},
	{0x20ba, 0x20cf}, {0x20f1, 0x20ff}, {0x218a, 0x218f}, {0x23f4, 0x23ff}, {0x2427, 0x243f},
	{0x244b, 0x245f}, {0x2700, 0x2700}, {0x2b4d, 0x2b4f}, {0x2b5a, 0x2bff}, {0xff00, 0xff00},
	{0xffbf, 0xffc1}, {0xffc8, 0xffc9}, {0xffd0, 0xffd1}, {0xffd8, 0xffd9}, {0xffdd, 0xffdf},
	{0xffe7, 0xffe7}, {0xffef, 0xffef},
}

// checkedRanges are the non-ASCII code points compared with FTS5: Latin,
// IPA, combining marks, Greek, Cyrillic, Hebrew, punctuation and symbols,
// CJK punctuation and ideographs, full-width forms.
var checkedRanges = [][2]rune{
	{0x80, 0x5ff},
	{0x1e00, 0x1fff},
	{0x2000, 0x2bff},
	{0x3000, 0x303f},
	{0x4e00, 0x9fcb},
	{0xff00, 0xffef},
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
// checked against FTS5 (valid UTF-8, ASCII or in checkedRanges).
func ftsTokens(s string, emit func(term []byte)) (checked bool) {
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
		emit(porterStem(tok))
	}
	return checked
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
