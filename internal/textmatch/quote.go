package textmatch

import (
	"strings"
	"unicode"
)

// QuoteTooShort reports whether a model's quote is too short to stand for
// anything, and so is not looked for: fewer than three words once folded,
// unless it holds four Han characters (Chinese writes no spaces). The risk
// review's citation gate and the playbook judgement's quote check both
// apply it.
func QuoteTooShort(quote string) bool {
	q := Fold(quote)
	if len(strings.Fields(q)) >= 3 {
		return false
	}
	han := 0
	for _, r := range q {
		if unicode.Is(unicode.Han, r) {
			han++
		}
	}
	return han < 4
}
