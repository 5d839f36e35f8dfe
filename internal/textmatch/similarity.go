package textmatch

import (
	"strings"
	"unicode"
)

// Similarity is how alike two legal passages read, from 0 (no word in
// common) to 1 (the same words in the same order): the cosine of their
// weighted word unigram and bigram counts. It is symmetric and ignores
// what does not change a clause's meaning:
//
//   - both sides are folded as Fold folds them (case, typographic quotes,
//     dashes, line-end hyphenation, white space);
//   - words are runs of letters and digits, and a word is cut to a rough
//     stem (plural and verb endings: "terminates", "terminated" and
//     "termination" all read "termin"), so tense and number do not count;
//   - numbering is dropped: figures ("12.3", "(30)"), single letters
//     ("(a)") and small roman numerals ("(iv)"), and "Section", "Article"
//     and the like before them, so that "Section 12.3 (a)" and "7(b)" say
//     nothing; number words ("thirty") stay, and the key
//     terms package compares figures;
//   - stop words (StopWord) weigh a tenth of other words, and a bigram
//     the mean of its two words' weights, so that two passages sharing only
//     "of the" are not alike.
//
// Two passages without a word are alike (1) when both are blank and not
// (0) when only one is.
func Similarity(a, b string) float64 {
	return NewPassage(a).Similarity(NewPassage(b))
}

// stopWeight is the weight of a stop word relative to other words.
const stopWeight = 0.1

// passageVector is the weighted unigram and bigram counts of a passage.
func passageVector(s string) map[string]float64 {
	words := passageWords(s)
	v := make(map[string]float64, 2*len(words))
	weight := func(w string) float64 {
		if StopWord(w) {
			return stopWeight
		}
		return 1
	}
	for i, w := range words {
		wi := weight(w)
		v[w] += wi
		if i > 0 {
			v[words[i-1]+" "+w] += (weight(words[i-1]) + wi) / 2
		}
	}
	return v
}

// passageWords lists the stemmed words of a passage without numbering.
func passageWords(s string) []string {
	fields := strings.FieldsFunc(Fold(s), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '\''
	})
	for i, f := range fields {
		f = strings.Trim(f, "'")
		fields[i] = strings.TrimSuffix(f, "'s")
	}
	out := make([]string, 0, len(fields))
	for i, f := range fields {
		if f == "" || numbering(f) || (i+1 < len(fields) && numbering(fields[i+1]) && referenceWords[f]) {
			continue
		}
		out = append(out, stem(f))
	}
	return out
}

// referenceWords name a part of a document; before its number ("Section
// 12.3") they are numbering too.
var referenceWords = map[string]bool{
	"section": true, "article": true, "clause": true, "paragraph": true, "schedule": true, "exhibit": true, "sec": true,
}

// numbering reports a word that numbers a section or a list rather than
// saying something: a figure, a single letter, a small roman numeral.
func numbering(w string) bool {
	if singleLetter(w) {
		return true
	}
	digits := true
	for _, r := range w {
		if !unicode.IsDigit(r) {
			digits = false
			break
		}
	}
	if digits {
		return true
	}
	switch w {
	case "ii", "iii", "iv", "vi", "vii", "viii", "ix", "xi", "xii":
		return true
	}
	return false
}

// stemSuffixes are the endings stem cuts, longest first within a family.
var stemSuffixes = []string{
	"ations", "ation", "itions", "ition", "ments", "ment", "ings", "ing", "ions", "ion",
	"ated", "ates", "ate", "ies", "ied", "ed", "es", "ly", "s",
}

// stem cuts one common English ending off w, keeping at least three
// letters, and does not touch words ending in "ss", "us" or "is". It is
// rougher than Porter's stemmer, and need only be the same on both sides.
func stem(w string) string {
	if len(w) <= 3 || strings.HasSuffix(w, "ss") || strings.HasSuffix(w, "us") || strings.HasSuffix(w, "is") {
		return w
	}
	for _, suf := range stemSuffixes {
		if strings.HasSuffix(w, suf) && len(w)-len(suf) >= 3 {
			w = strings.TrimSuffix(w, suf)
			if suf == "ies" || suf == "ied" {
				w += "y"
			}
			// "terminat(ed)" and "terminat(ion)" meet at "termin".
			if len(w) > 5 {
				w = strings.TrimSuffix(w, "at")
			}
			return w
		}
	}
	return w
}
