package retrieve

import (
	"slices"
	"testing"

	"github.com/contractgraph/contractgraph/internal/graph"
)

func TestStem(t *testing.T) {
	for _, group := range [][]string{
		{"terminate", "terminated", "termination", "terminations"},
		{"liability", "liabilities"},
		{"license", "licensed", "licensing", "licenses"},
		{"payment", "payments"},
		{"service", "services"},
	} {
		for _, w := range group[1:] {
			if stem(w) != stem(group[0]) {
				t.Errorf("stem(%q) = %q, stem(%q) = %q; want the same root", w, stem(w), group[0], stem(group[0]))
			}
		}
	}
	if stem("term") == stem("terminate") {
		t.Errorf("term and terminate share the root %q", stem("term"))
	}
}

func TestRankPool(t *testing.T) {
	hit := func(id string, start int, text string) graph.ClauseHit {
		return graph.ClauseHit{ContractID: id, Start: start, End: start + len(text), Text: text, Score: 99}
	}
	pool := []graph.ClauseHit{
		hit("b", 0, "Either party may terminate this agreement for convenience on thirty days notice."),
		hit("a", 50, "Payment is due within thirty days of the invoice."),
		hit("a", 0, "Termination for convenience: the customer may terminate on notice."),
		hit("c", 0, "The governing law is the law of New York."),
	}
	got := rankPool("terminate for convenience", pool)
	var order []string
	for _, h := range got {
		order = append(order, h.ContractID)
		if h.Score <= 0 || h.Score == 99 {
			t.Errorf("%s: score %v, want its pool BM25 score", h.ContractID, h.Score)
		}
	}
	// The passage repeating both words ranks first; the two without either
	// word are left out.
	if !slices.Equal(order, []string{"a", "b"}) || got[0].Start != 0 {
		t.Errorf("ranked %v (%+v), want a@0 then b", order, got)
	}
	// The order of the pool does not matter.
	slices.Reverse(pool)
	if again := rankPool("terminate for convenience", pool); !slices.EqualFunc(again, got, func(x, y graph.ClauseHit) bool { return x.ContractID == y.ContractID && x.Start == y.Start }) {
		t.Errorf("reversed pool ranked %+v, want %+v", again, got)
	}
	if rankPool("?!", pool) != nil {
		t.Error("a query without words ranked passages")
	}
}

func TestStableRanks(t *testing.T) {
	hits := []graph.ClauseHit{
		{ContractID: "b", Score: 0.8000001},
		{ContractID: "a", Score: 0.8},
		{ContractID: "c", Score: 0.9},
	}
	got := stableRanks(hits)
	if got[0].ContractID != "c" || got[1].ContractID != "a" || got[2].ContractID != "b" {
		t.Errorf("stableRanks = %+v: want c, then the near-tie a, b by contract id", got)
	}
}
