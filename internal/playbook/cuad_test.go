package playbook

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/contractgraph/contractgraph/internal/contract"
	"github.com/contractgraph/contractgraph/internal/importer"
)

// cuadContracts reads every CUAD contract of the shared data with its
// texts, or skips.
func cuadContracts(t *testing.T) []*contract.Contract {
	t.Helper()
	dir, err := filepath.Abs("../../../shared/data/cuad")
	if err != nil {
		t.Fatal(err)
	}
	csv := filepath.Join(dir, "master_clauses.csv")
	if _, err := os.Stat(csv); err != nil {
		t.Skipf("CUAD not available: %v", err)
	}
	var out []*contract.Contract
	err = importer.Read(context.Background(), csv, importer.Options{TextsDir: filepath.Join(dir, "full_contract_txt")}, func(r importer.Record) error {
		if r.Err == nil {
			out = append(out, r.Contract)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestCheckCUAD checks every CUAD contract against the example playbook:
// every verdict is explained, every clause span holds its text, every
// term found lies in its clause; the counts per entry and verdict are
// logged (docs/EVALUATION.md quotes them).
func TestCheckCUAD(t *testing.T) {
	cs := cuadContracts(t)
	pb, err := ParseExample()
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	perEntry := map[string]map[Verdict]int{}
	var total Counts
	for _, c := range cs {
		rep := Check(pb, c, time.Now())
		if len(rep.Results) != len(pb.Entries) {
			t.Fatalf("%s: %d results for %d entries", c.ID, len(rep.Results), len(pb.Entries))
		}
		for _, r := range rep.Results {
			if perEntry[r.EntryID] == nil {
				perEntry[r.EntryID] = map[Verdict]int{}
			}
			perEntry[r.EntryID][r.Verdict]++
			total.add(r.Verdict)
			if len(r.Reasons) == 0 {
				t.Errorf("%s/%s: verdict %s without a reason", c.ID, r.EntryID, r.Verdict)
			}
			if cl := r.Clause; cl != nil && cl.Verified && c.Text[cl.Start:cl.End] != cl.Text {
				t.Errorf("%s/%s: clause span does not hold its text", c.ID, r.EntryID)
			}
			for _, tc := range r.Terms {
				for _, tm := range tc.Found {
					if r.Clause == nil || r.Clause.Text[tm.Start:tm.End] != tm.Text {
						t.Errorf("%s/%s: term %q not at its span", c.ID, r.EntryID, tm.Text)
					}
				}
			}
		}
	}
	elapsed := time.Since(start)
	t.Logf("%d contracts checked in %v; total %+v", len(cs), elapsed.Round(time.Millisecond), total)
	for _, e := range pb.Entries {
		var parts []string
		for _, v := range Verdicts {
			parts = append(parts, v.Label()+" "+itoa(perEntry[e.ID][v]))
		}
		t.Logf("%-28s %s", e.ID, strings.Join(parts, ", "))
	}
}

func itoa(n int) string { return strconv.Itoa(n) }
