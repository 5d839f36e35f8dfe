package textmatch

import (
	"math/rand/v2"
	"testing"
)

// TestEditsWithin checks the banded distance against EditDistance on
// pairs near and far, for every bound from 0 to 3.
func TestEditsWithin(t *testing.T) {
	pairs := [][2]string{
		{"excte", "excite"}, {"excite", "excite"}, {"nwe york", "new york"}, {"acme", "acne"},
		{"acme", "globex"}, {"", "ab"}, {"abc", ""}, {"kitten", "sitting"}, {"ca", "abc"},
		{"microsfot", "microsoft"}, {"intl business", "international business"}, {"société", "societe"},
	}
	for _, p := range pairs {
		want := EditDistance(p[0], p[1])
		for k := 0; k <= 3; k++ {
			d, ok := EditsWithin([]rune(p[0]), []rune(p[1]), k)
			if ok != (want <= k) || (ok && d != want) {
				t.Errorf("EditsWithin(%q, %q, %d) = %d, %v; EditDistance is %d", p[0], p[1], k, d, ok, want)
			}
		}
	}
}

// TestEditsWithinRandom compares the banded distance with EditDistance on
// random strings over a small alphabet, where edits overlap the most.
func TestEditsWithinRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	word := func() string {
		b := make([]byte, rng.IntN(12))
		for i := range b {
			b[i] = "abc"[rng.IntN(3)]
		}
		return string(b)
	}
	for range 20000 {
		a, b := word(), word()
		want := EditDistance(a, b)
		k := rng.IntN(4)
		d, ok := EditsWithin([]rune(a), []rune(b), k)
		if ok != (want <= k) || (ok && d != want) {
			t.Fatalf("EditsWithin(%q, %q, %d) = %d, %v; EditDistance is %d", a, b, k, d, ok, want)
		}
	}
}
