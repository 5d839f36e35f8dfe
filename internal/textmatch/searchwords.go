package textmatch

import (
	"slices"
	"strings"
	"unicode"
)

// SearchWords splits free text into the words a full-text query asks for:
// runs of letters and digits, lower-cased (so that no query syntax
// survives), each once, in order, without stop words and single letters
// unless they are all there is. Both graph backends build their BM25
// queries from it. Single letters go because the backends' tokenizers
// disagree on them: "party's" is "party" and "s" to SQLite and "party" to
// Lucene's English analyzer.
func SearchWords(text string) []string {
	words := strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	})
	var kept, all []string
	for _, w := range words {
		if slices.Contains(all, w) {
			continue
		}
		all = append(all, w)
		if !StopWord(w) && !singleLetter(w) {
			kept = append(kept, w)
		}
	}
	if len(kept) == 0 {
		return all
	}
	return kept
}

func singleLetter(w string) bool {
	r := []rune(w)
	return len(r) == 1 && unicode.IsLetter(r[0])
}
