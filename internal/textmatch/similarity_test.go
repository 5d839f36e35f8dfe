package textmatch

import (
	"math"
	"testing"
)

func TestSimilarity(t *testing.T) {
	const law = "This Agreement shall be governed by the laws of the State of New York."
	tests := []struct {
		name     string
		a, b     string
		min, max float64
	}{
		{"identical", law, law, 1, 1},
		{"case, punctuation and white space", law, "THIS AGREEMENT SHALL BE GOVERNED BY THE LAWS OF THE STATE OF NEW   YORK", 1, 1},
		{"numbering", "12.3 (a) " + law, "Section 7(iv): " + law, 0.95, 1},
		{"line-end hyphenation and typographic quotes", "the Licensee’s termi-\nnation rights", "the licensee's termination rights", 1, 1},
		{"inflection", "Either party may terminate this Agreement for convenience.", "Either party may terminate the agreement for its convenience", 0.7, 1},
		{"same clause, other state", law, "This Agreement shall be governed by the laws of the State of Delaware.", 0.6, 0.95},
		{"different clauses", law, "Licensee shall pay a royalty of five percent of net sales each quarter.", 0, 0.1},
		{"only stop words in common", "of the and to", "payment of the invoice and to the supplier", 0, 0.2},
		{"both blank", "", " \n", 1, 1},
		{"one blank", law, "", 0, 0},
		{"numbers only", "12.3 (a)", "7", 1, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Similarity(tt.a, tt.b)
			if got < tt.min || got > tt.max {
				t.Errorf("Similarity(%q, %q) = %.3f, want in [%.2f, %.2f]", tt.a, tt.b, got, tt.min, tt.max)
			}
			if back := Similarity(tt.b, tt.a); math.Abs(back-got) > 1e-12 {
				t.Errorf("not symmetric: %.6f one way, %.6f the other", got, back)
			}
		})
	}
}

// TestSimilarityOrders checks that a closer paraphrase scores higher: the
// playbook check picks the closest of several texts by it.
func TestSimilarityOrders(t *testing.T) {
	clause := "Either party may terminate this Agreement at any time for convenience upon thirty (30) days prior written notice to the other party."
	near := "Either party may terminate this Agreement for convenience on thirty days' written notice."
	far := "Customer may terminate this Agreement immediately if Supplier breaches its obligations."
	if n, f := Similarity(clause, near), Similarity(clause, far); n <= f {
		t.Errorf("Similarity(near) = %.3f, not above Similarity(far) = %.3f", n, f)
	}
}

func TestStem(t *testing.T) {
	for in, want := range map[string]string{
		"terminate": "termin", "terminated": "termin", "termination": "termin", "terminates": "termin",
		"governing": "govern", "governed": "govern", "laws": "law", "law": "law", "parties": "party",
		"business": "business", "status": "status", "this": "this",
	} {
		if got := stem(in); got != want {
			t.Errorf("stem(%q) = %q, want %q", in, got, want)
		}
	}
}

func FuzzSimilarity(f *testing.F) {
	f.Add("Either party may terminate.", "either PARTY may terminate")
	f.Add("", "x")
	f.Fuzz(func(t *testing.T, a, b string) {
		s := Similarity(a, b)
		if math.IsNaN(s) || s < 0 || s > 1 {
			t.Fatalf("Similarity(%q, %q) = %v, outside [0, 1]", a, b, s)
		}
		if back := Similarity(b, a); math.Abs(back-s) > 1e-9 {
			t.Fatalf("not symmetric: %v and %v", s, back)
		}
	})
}

// TestSimilarityRepeats checks that a pair scores the same bits every time:
// summing in map order once made two passages with the same words score
// 0.9999999999999999 on some runs and 1 on others.
func TestSimilarityRepeats(t *testing.T) {
	a := "This Agreement shall be governed by the laws of the State of New York, without regard to its conflict of laws rules."
	b := "THIS AGREEMENT SHALL BE GOVERNED BY THE LAWS OF THE STATE OF NEW YORK WITHOUT REGARD TO ITS CONFLICT OF LAWS RULES"
	c := "Either party may terminate this Agreement for convenience on thirty days' notice."
	for i := range 200 {
		if got := Similarity(a, b); got != 1 {
			t.Fatalf("run %d: Similarity of the same words = %v, want exactly 1", i, got)
		}
		if first, again := Similarity(a, c), Similarity(a, c); first != again {
			t.Fatalf("run %d: Similarity(a, c) = %v, then %v", i, first, again)
		}
	}
}
