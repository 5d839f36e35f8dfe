package textmatch

import (
	"math"
	"testing"
)

// A read Passage scores exactly as Similarity does.
func TestPassageIsSimilarity(t *testing.T) {
	texts := []string{
		"",
		"   ",
		"Section 12.3 (a)",
		"In no event shall either party's liability exceed the fees paid in the twelve (12) months preceding the claim.",
		"IN NO EVENT SHALL EITHER PARTY'S LIABILITY EXCEED THE FEES PAID IN THE 12 MONTHS BEFORE THE CLAIM",
		"The total liability of Supplier shall not exceed One Million Dollars ($1,000,000).",
		"Neither party shall be liable for any indirect, special or consequential damages.",
		"This Agreement is governed by the laws of the State of New York.",
		"of the of the",
	}
	for _, a := range texts {
		for _, b := range texts {
			want := Similarity(a, b)
			got := NewPassage(a).Similarity(NewPassage(b))
			if math.Abs(got-want) > 1e-12 {
				t.Errorf("Passage(%q).Similarity(%q) = %v, Similarity = %v", a, b, got, want)
			}
		}
	}
}
