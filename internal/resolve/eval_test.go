package resolve

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/contractgraph/contractgraph/internal/contract"
)

// sharedDir finds ../shared next to the module root, or skips the test.
func sharedDir(t testing.TB) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			break
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Skip("module root not found")
		}
		dir = parent
	}
	shared := filepath.Join(dir, "..", "shared")
	if _, err := os.Stat(shared); err != nil {
		t.Skipf("shared data not available at %s: %v", shared, err)
	}
	return shared
}

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
	path := filepath.Join(sharedDir(t), "data", "legal-tech-chat", "contract_data.json")
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
	for _, p := range pairs {
		a, b := ents[p.a], ents[p.b]
		if a == nil || b == nil {
			t.Fatalf("labelled name not in the reference data: %q / %q", p.a, p.b)
		}
		s := ScorePair(a, b)
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
	if precision < 0.95 {
		t.Errorf("precision %.3f < 0.95: %s", precision, summary)
	}
	if recall < 0.8 {
		t.Errorf("recall %.3f < 0.8: %s", recall, summary)
	}
}
