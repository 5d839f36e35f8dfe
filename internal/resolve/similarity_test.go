package resolve

import (
	"math"
	"testing"
)

func TestJaroWinkler(t *testing.T) {
	tests := []struct {
		a, b string
		want float64
	}{
		{"martha", "marhta", 0.9611},
		{"dwayne", "duane", 0.84},
		{"dixon", "dicksonx", 0.8133},
		{"abc", "abc", 1},
		{"", "", 1},
		{"abc", "", 0},
		{"abc", "xyz", 0},
	}
	for _, tt := range tests {
		if got := JaroWinkler(tt.a, tt.b); math.Abs(got-tt.want) > 0.001 {
			t.Errorf("JaroWinkler(%q, %q) = %.4f, want %.4f", tt.a, tt.b, got, tt.want)
		}
		if JaroWinkler(tt.a, tt.b) != JaroWinkler(tt.b, tt.a) {
			t.Errorf("JaroWinkler(%q, %q) is not symmetric", tt.a, tt.b)
		}
	}
}

func TestLevenshtein(t *testing.T) {
	tests := []struct {
		a, b string
		want int
	}{
		{"kitten", "sitting", 3},
		{"watley", "wately", 1},
		{"offshore", "onshore", 2},
		{"", "abc", 3},
		{"société", "societe", 2},
		{"same", "same", 0},
	}
	for _, tt := range tests {
		if got := Levenshtein(tt.a, tt.b); got != tt.want {
			t.Errorf("Levenshtein(%q, %q) = %d, want %d", tt.a, tt.b, got, tt.want)
		}
	}
}

func FuzzSimilarity(f *testing.F) {
	f.Add("acme widgets", "acme wigdets")
	f.Add("", "x")
	f.Fuzz(func(t *testing.T, a, b string) {
		jw := JaroWinkler(a, b)
		if jw < 0 || jw > 1.0000001 || math.IsNaN(jw) {
			t.Fatalf("JaroWinkler = %v", jw)
		}
		d := Levenshtein(a, b)
		if d != Levenshtein(b, a) || d > max(len([]rune(a)), len([]rune(b))) {
			t.Fatalf("Levenshtein(%q, %q) = %d", a, b, d)
		}
		if (d == 0) != (a == b) && string([]rune(a)) == a && string([]rune(b)) == b {
			t.Fatalf("Levenshtein zero iff equal violated: %q %q %d", a, b, d)
		}
	})
}
