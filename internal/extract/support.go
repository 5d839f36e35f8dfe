package extract

import (
	"strings"
	"unicode"

	"github.com/contractgraph/contractgraph/internal/contract"
)

// A located quote proves that the model copied words from the contract, not
// that those words say what the model extracted: a small model gives
// "Amendment Effective Date" as the evidence for Californian law, or the
// preamble for a governing-law answer the contract never states. QuoteStates
// is the second half of verification: for the fields where it can be
// checked mechanically, the quote must state the value. A value whose quote
// is located but does not state it is stored unverified, like one whose
// quote was not found. Fields it cannot judge (summary, scope, type,
// currency) pass.

// QuoteStates reports whether quote states value, the stored (normalised)
// value of field: for governing_law ("ST, CC" or "CC") the quote names the
// state (or, without one, the country or one of its states); for dates it
// holds the year (an end date may instead state the term it follows from);
// for durations and amounts a number.
func QuoteStates(field, value, quote string) bool {
	switch field {
	case "governing_law":
		return quoteNamesPlace(value, quote)
	case "effective_date":
		return quoteHasYear(value, quote)
	case "end_date":
		// An end date is often worked out from a term ("for twenty (20)
		// years"): a quote stating the term states it too.
		return quoteHasYear(value, quote) || quoteHasNumber(quote, true)
	case "duration", "renewal_term", "notice_period", "termination_notice":
		return quoteHasNumber(quote, true)
	case "total_amount":
		return quoteHasNumber(quote, false)
	}
	return true
}

// maxPlaceWords is the longest place name looked for ("District of Columbia",
// "Bosnia and Herzegovina", "United States of America").
const maxPlaceWords = 4

func quoteNamesPlace(value, quote string) bool {
	state, country, ok := strings.Cut(value, ", ")
	if !ok {
		state, country = "", value
	}
	if placeholder(state) {
		state = ""
	}
	words := strings.FieldsFunc(quote, func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '.' && r != '\''
	})
	for i := range words {
		words[i] = strings.Trim(words[i], ".'")
	}
	for n := 1; n <= maxPlaceWords; n++ {
		for i := 0; i+n <= len(words); i++ {
			phrase := strings.Join(words[i:i+n], " ")
			if n == 1 && len(phrase) <= 3 && strings.ToUpper(phrase) != phrase {
				continue // "in", "or", "me" are words, not Indiana, Oregon, Maine
			}
			if state != "" {
				// US states and Canadian provinces by name or code;
				// elsewhere the state as the model wrote it.
				got := contract.NormalizeState(country, phrase)
				if country != "US" && country != "CA" {
					got = phrase
				}
				if strings.EqualFold(got, state) {
					return true
				}
				continue
			}
			if c, ok := contract.NormalizeCountry(phrase); ok && c == country {
				return true
			}
			if _, ok := contract.NormalizeUSState(phrase); ok && country == "US" {
				return true // "the laws of the State of Delaware" states US law
			}
		}
	}
	return false
}

// quoteHasYear: the quote holds the date's year, as four digits or as a
// two-digit year after a slash, dash or apostrophe ("1/7/19", "'19").
func quoteHasYear(date, quote string) bool {
	if len(date) < 4 {
		return false
	}
	year := date[:4]
	if strings.Contains(quote, year) {
		return true
	}
	for _, sep := range []string{"/", "-", "'", "’", "."} {
		i := strings.Index(quote, sep+year[2:])
		if i >= 0 {
			end := i + len(sep) + 2
			if end == len(quote) || !unicode.IsDigit(rune(quote[end])) {
				return true
			}
		}
	}
	return false
}

// numberWords are the spelled-out numbers a term or notice period uses.
var numberWords = []string{"one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
	"eleven", "twelve", "fifteen", "twenty", "thirty", "forty", "forty-five", "sixty", "ninety",
	"hundred", "annual", "annually", "yearly", "monthly", "weekly", "daily", "successive", "a year", "a month",
	"every year", "each year", "every month", "each month", "calendar year"}

// quoteHasNumber: the quote holds a digit, or (for periods) a number word.
func quoteHasNumber(quote string, words bool) bool {
	if strings.ContainsFunc(quote, unicode.IsDigit) {
		return true
	}
	if !words {
		return false
	}
	lower := " " + strings.ToLower(quote) + " "
	for _, w := range numberWords {
		i := strings.Index(lower, w)
		for i >= 0 {
			before, after := rune(lower[i-1]), rune(lower[min(i+len(w), len(lower)-1)])
			if !unicode.IsLetter(before) && !unicode.IsLetter(after) {
				return true
			}
			next := strings.Index(lower[i+1:], w)
			if next < 0 {
				break
			}
			i += 1 + next
		}
	}
	return false
}
