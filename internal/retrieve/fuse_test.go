package retrieve

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/contractgraph/contractgraph/internal/graph"
)

func TestFuse(t *testing.T) {
	a := graph.ClauseHit{ContractID: "c1", Start: 0, End: 10, Text: "a"}
	b := graph.ClauseHit{ContractID: "c1", Start: 10, End: 20, Text: "b"}
	c := graph.ClauseHit{ContractID: "c2", ClauseID: "c2#1", Text: "c"}
	d := graph.ClauseHit{ContractID: "c2", Start: 5, End: 9, Text: "d"}
	bm25 := []graph.ClauseHit{a, b, c}
	vec := []graph.ClauseHit{d, b, a}
	got := Fuse(60, bm25, vec)
	var order []string
	for _, h := range got {
		order = append(order, h.Text)
	}
	// a: 1/61+1/63, b: 1/62+1/62 (b wins on the tie-free sum? a=0.03226, b=0.03226)
	// a = 0.016393+0.015873 = 0.032266; b = 2*0.016129 = 0.032258.
	if diff := cmp.Diff([]string{"a", "b", "d", "c"}, order); diff != "" {
		t.Errorf("fused order (-want +got):\n%s", diff)
	}
	if got[0].Score <= got[1].Score || got[2].Score != 1.0/61 {
		t.Errorf("scores %v", got)
	}
	if len(Fuse(0)) != 0 {
		t.Error("fusing nothing gave results")
	}
}
