package contract

import (
	"unicode"
	"unicode/utf8"
)

// PreferredName chooses the display name of a party among the spellings it
// is known by, so that the name does not depend on the order in which
// contracts were imported. It returns "" when names holds no non-empty
// string. The rule, applied in order until one spelling remains:
//
//  1. Case: a spelling with both upper- and lower-case letters (or with no
//     cased letters at all) beats one in capitals only, which beats one in
//     lower case only: "Franchisee" over "FRANCHISEE" over "franchisee".
//  2. Completeness: the longer spelling in characters wins, so punctuation
//     and legal forms are kept: "Acme, Inc." over "Acme Inc".
//  3. The lexicographically smallest spelling (byte order) wins.
//
// How often each spelling is used is deliberately not weighed: the stores
// would have to recount every party on every write, and a party's name
// would change whenever a contract is replaced. Repeated spellings are
// therefore the same as one. Because the rule is a total order on
// spellings, PreferredName(append(a, b...)) equals
// PreferredName([]string{PreferredName(a), PreferredName(b)}), which lets a
// store keep the name up to date one new spelling at a time.
func PreferredName(names []string) string {
	best := ""
	for _, n := range names {
		if n == "" {
			continue
		}
		if best == "" || preferName(n, best) {
			best = n
		}
	}
	return best
}

// preferName reports whether spelling a ranks strictly before b under
// PreferredName's rule.
func preferName(a, b string) bool {
	if ca, cb := caseRank(a), caseRank(b); ca != cb {
		return ca < cb
	}
	if la, lb := utf8.RuneCountInString(a), utf8.RuneCountInString(b); la != lb {
		return la > lb
	}
	return a < b
}

// caseRank is 0 for mixed-case or caseless text, 1 for capitals only and 2
// for lower case only.
func caseRank(s string) int {
	var upper, lower bool
	for _, r := range s {
		switch {
		case unicode.IsUpper(r):
			upper = true
		case unicode.IsLower(r):
			lower = true
		}
		if upper && lower {
			return 0
		}
	}
	switch {
	case upper:
		return 1
	case lower:
		return 2
	}
	return 0
}
