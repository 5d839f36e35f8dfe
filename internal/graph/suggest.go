package graph

import (
	"fmt"
	"slices"
	"strings"

	"github.com/contractgraph/contractgraph/internal/contract"
	"github.com/contractgraph/contractgraph/internal/textmatch"
)

// place is a name a value may be a misspelling of: a country, a US state,
// a Canadian province.
type place struct {
	code, name string
}

// codes enumerates the two-letter codes that name returns a name for.
func codes(name func(string) string) []place {
	var out []place
	for a := 'A'; a <= 'Z'; a++ {
		for b := 'A'; b <= 'Z'; b++ {
			c := string([]rune{a, b})
			if n := name(c); n != "" {
				out = append(out, place{c, n})
			}
		}
	}
	return out
}

var (
	countryPlaces    = codes(contract.CountryName)
	usStatePlaces    = codes(contract.USStateName)
	caProvincePlaces = codes(contract.CAProvinceName)
)

// placeKey is the spelling suggestions compare: lower case, letters and
// digits, single spaces.
func placeKey(s string) string { return contract.MatchKey(s) }

// didYouMean suggests the places whose name is nearest to v, when v is
// near enough to be a misspelling (an edit for every four letters or so,
// at least one): " (did you mean New York, NY?)", or "" for none. Two- and
// three-letter values, which are a letter away from many codes, get no
// suggestion.
func didYouMean(v string, lists ...[]place) string {
	k := placeKey(v)
	if len([]rune(k)) <= 3 {
		return ""
	}
	limit := max(1, len([]rune(k))/4)
	best, bestDist := []string(nil), limit+1
	for _, list := range lists {
		for _, p := range list {
			d := textmatch.EditDistance(k, placeKey(p.name))
			label := p.name + ", " + p.code
			switch {
			case d < bestDist:
				best, bestDist = []string{label}, d
			case d == bestDist && !slices.Contains(best, label):
				best = append(best, label)
			}
		}
	}
	if len(best) == 0 || len(best) > 3 {
		return ""
	}
	return fmt.Sprintf(" (did you mean %s?)", strings.Join(best, " or "))
}

// placeCodes lists the codes of places, for Valid.
func placeCodes(list []place) []string {
	out := make([]string, len(list))
	for i, p := range list {
		out[i] = p.code
	}
	return out
}
