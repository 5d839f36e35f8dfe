package resolve

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/contractgraph/contractgraph/internal/contract"
	"github.com/contractgraph/contractgraph/internal/sharedtest"
)

type labelledPair struct {
	a, b string
	same bool
	note string
}

func loadPairs(t testing.TB) []labelledPair {
	f, err := os.Open(filepath.Join("testdata", "party_pairs.csv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	var out []labelledPair
	for i, r := range recs[1:] {
		if len(r) != 4 || (r[2] != "true" && r[2] != "false") {
			t.Fatalf("party_pairs.csv line %d: %q", i+2, r)
		}
		out = append(out, labelledPair{r[0], r[1], r[2] == "true", r[3]})
	}
	return out
}

// referenceEntities builds one entity per distinct party name of the
// reference data, with the contracts, countries and co-parties of its
// mentions.
func referenceEntities(t testing.TB) map[string]*Entity {
	path := filepath.Join(sharedtest.Dir(t), "data", "legal-tech-chat", "contract_data.json")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Skipf("reference data: %v", err)
	}
	var docs []struct {
		FileID  string `json:"file_id"`
		Parties []struct {
			Name     string `json:"name"`
			Location *struct {
				Country string `json:"country"`
			} `json:"location"`
		} `json:"parties"`
	}
	if err := json.Unmarshal(data, &docs); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	ents := map[string]*Entity{}
	for _, d := range docs {
		for _, p := range d.Parties {
			e := ents[p.Name]
			if e == nil {
				e = &Entity{ID: p.Name, Name: p.Name}
				ents[p.Name] = e
			}
			if !contains(e.ContractIDs, d.FileID) {
				e.ContractIDs = append(e.ContractIDs, d.FileID)
			}
			if p.Location != nil {
				if c, ok := contract.NormalizeCountry(p.Location.Country); ok && !contains(e.Countries, c) {
					e.Countries = append(e.Countries, c)
				}
			}
			for _, q := range d.Parties {
				if k := contract.PartyKey(q.Name); q.Name != p.Name && !contains(e.CoParties, k) {
					e.CoParties = append(e.CoParties, k)
				}
			}
		}
	}
	return ents
}

// TestLabelledPairs measures pairwise precision and recall of the scorer at
// DefaultThreshold on hand-labelled name pairs from the reference data.
// Precision must stay at or above 0.95.
func TestLabelledPairs(t *testing.T) {
	pairs := loadPairs(t)
	if len(pairs) < 150 {
		t.Fatalf("only %d labelled pairs", len(pairs))
	}
	ents := referenceEntities(t)
	var tp, fp, fn, tn int
	scores := make([]float64, len(pairs))
	for i, p := range pairs {
		a, b := ents[p.a], ents[p.b]
		if a == nil || b == nil {
			t.Fatalf("labelled name not in the reference data: %q / %q", p.a, p.b)
		}
		s := ScorePair(a, b)
		scores[i] = s.Value
		merged := s.Value >= DefaultThreshold
		switch {
		case merged && p.same:
			tp++
		case merged && !p.same:
			fp++
			t.Logf("false merge %.3f: %q / %q (%s; label: %s)", s.Value, p.a, p.b, s.Reason, p.note)
		case !merged && p.same:
			fn++
			t.Logf("missed %.3f: %q / %q (%s; label: %s)", s.Value, p.a, p.b, s.Reason, p.note)
		default:
			tn++
		}
	}
	precision := float64(tp) / float64(max(1, tp+fp))
	recall := float64(tp) / float64(max(1, tp+fn))
	summary := fmt.Sprintf("pairs=%d positives=%d threshold=%.2f tp=%d fp=%d fn=%d tn=%d precision=%.3f recall=%.3f",
		len(pairs), tp+fn, DefaultThreshold, tp, fp, fn, tn, precision, recall)
	t.Log(summary)
	sweep := "threshold sweep (precision / recall):"
	for _, th := range []float64{0.6, 0.7, 0.8, 0.85, 0.9, 0.95, 0.99} {
		var tp, fp, fn int
		for i, p := range pairs {
			switch merged := scores[i] >= th; {
			case merged && p.same:
				tp++
			case merged:
				fp++
			case p.same:
				fn++
			}
		}
		sweep += fmt.Sprintf(" %.2f: %.3f / %.3f;", th, float64(tp)/float64(max(1, tp+fp)), float64(tp)/float64(max(1, tp+fn)))
	}
	t.Log(sweep)
	if precision < 0.95 {
		t.Errorf("precision %.3f < 0.95: %s", precision, summary)
	}
	if recall < 0.8 {
		t.Errorf("recall %.3f < 0.8: %s", recall, summary)
	}
}

// TestPlanOnReferenceParties runs the planner over every distinct party
// name of the reference data and checks the proposed merges against the
// labels where a label exists: no labelled-different pair may end up in
// one cluster. The merges are logged (-v) for review.
func TestPlanOnReferenceParties(t *testing.T) {
	ents := referenceEntities(t)
	list := make([]*Entity, 0, len(ents))
	for _, e := range ents {
		list = append(list, e)
	}
	sortEntities(list)
	merges, pairs := Plan(list, DefaultThreshold)
	cluster := map[string]string{}
	n := 0
	for _, m := range merges {
		cluster[m.CanonicalName] = m.CanonicalID
		for _, o := range m.Others {
			cluster[o.Name] = m.CanonicalID
			n++
			t.Logf("%q <- %q (%.3f, %s)", m.CanonicalName, o.Name, o.Score.Value, o.Score.Reason)
		}
	}
	t.Logf("%d names, %d candidate pairs, %d merged into %d clusters", len(list), pairs, n, len(merges))
	for _, p := range loadPairs(t) {
		ca, oka := cluster[p.a]
		cb, okb := cluster[p.b]
		if !p.same && oka && okb && ca == cb {
			t.Errorf("labelled different but clustered together: %q / %q", p.a, p.b)
		}
	}
}

func sortEntities(es []*Entity) {
	for i := 1; i < len(es); i++ {
		for j := i; j > 0 && es[j].ID < es[j-1].ID; j-- {
			es[j], es[j-1] = es[j-1], es[j]
		}
	}
}
