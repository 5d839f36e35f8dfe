package risk

import (
	"testing"

	"github.com/contractgraph/contractgraph/internal/textmatch"
)

// TestFindQuote pins the review's own policy on top of textmatch: a quote
// too short to stand for a clause or a statute's words is never found.
func TestFindQuote(t *testing.T) {
	text := textmatch.New("1. Term.\n\nThis  Agreement shall\ncontinue for “two years”.\n\n" +
		"當事人得約定債務人不履行債務時，應支付違約金。\n\nThe parties may agree on a penalty.")
	for quote, want := range map[string]bool{
		`"This Agreement shall continue for "two years"."`: true,
		"Term.":                     false, // too short to mean anything
		"  ":                        false,
		"應支付違約金":                    true,
		"違約金":                       false,
		"應支付損害賠償":                   false,
		"may   agree on a penalty":  true,
		"MAY AGREE ON A PENALTY":    true,
		"may agree on no penalty":   false,
		"This Agreement terminates": false,
	} {
		if _, got := findQuote(text, quote, 0); got != want {
			t.Errorf("findQuote(%q) = %v, want %v", quote, got, want)
		}
	}
}
