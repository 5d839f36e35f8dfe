package tools

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/contractgraph/contractgraph/internal/compare"
	"github.com/contractgraph/contractgraph/internal/contract"
	"github.com/contractgraph/contractgraph/internal/graph"
	"github.com/contractgraph/contractgraph/internal/graph/sqlite"
	"github.com/contractgraph/contractgraph/internal/importer"
	"github.com/contractgraph/contractgraph/internal/sharedtest"
)

// cuadStore imports CUAD's 306 contracts with their texts into a real
// SQLite store in a temporary directory.
func cuadStore(t testing.TB) graph.Store {
	t.Helper()
	ctx := context.Background()
	shared := sharedtest.Dir(t)
	store, err := sqlite.Open(filepath.Join(t.TempDir(), "cuad.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	var batch []*contract.Contract
	flush := func() {
		if _, err := store.PutContracts(ctx, batch); err != nil {
			t.Fatal(err)
		}
		batch = batch[:0]
	}
	cuad := filepath.Join(shared, "data", "cuad")
	n := 0
	err = importer.Read(ctx, filepath.Join(cuad, "master_clauses.csv"), importer.Options{TextsDir: filepath.Join(cuad, "full_contract_txt")}, func(r importer.Record) error {
		if r.Err != nil {
			return r.Err
		}
		n++
		if batch = append(batch, r.Contract); len(batch) == 50 {
			flush()
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	flush()
	if n != 306 {
		t.Fatalf("imported %d CUAD contracts, want 306", n)
	}
	return store
}

// clause_compare over CUAD's Cap On Liability clauses: groups and
// outliers, every span slicing its contract's text to the clause's words,
// every key term's span inside its clause.
func TestClauseCompareCUAD(t *testing.T) {
	ctx := context.Background()
	store := cuadStore(t)
	set := New(store, Options{Now: fixedNow})
	start := time.Now()
	out, err := set.Call(ctx, NameClauseCompare, json.RawMessage(`{"clause_type":"cap on liability","groups":50,"examples":20,"outliers":100,"text_chars":4000}`))
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("clause_compare took %v", time.Since(start))
	var res ClauseCompareResult
	if err := json.Unmarshal(out, &res); err != nil {
		t.Fatal(err)
	}
	t.Logf("%d contracts, %d clauses, %d compared, %d groups (sizes %v), %d outliers", res.TotalContracts, res.TotalClauses, res.Compared, res.TotalGroups, sizes(res.Groups), res.TotalOutliers)
	if res.ClauseType != "Cap On Liability" || res.TotalContracts < 50 || res.TotalClauses < res.TotalContracts || res.Compared != res.TotalClauses {
		t.Fatalf("result: %+v", res)
	}
	if res.TotalGroups < 3 || len(res.Groups) == 0 || res.TotalOutliers == 0 {
		t.Fatalf("%d groups, %d outliers: want several of each", res.TotalGroups, res.TotalOutliers)
	}
	texts := map[string]string{}
	check := func(where string, c compare.Clause) {
		t.Helper()
		text, ok := texts[c.ContractID]
		if !ok {
			got, err := store.GetContract(ctx, c.ContractID)
			if err != nil {
				t.Fatal(err)
			}
			text, texts[c.ContractID] = got.Text, got.Text
		}
		if c.ClauseType != "Cap On Liability" {
			t.Errorf("%s: clause type %q", where, c.ClauseType)
		}
		if !c.Verified {
			return // CUAD text not found in the contract: no span
		}
		if c.Start < 0 || c.End <= c.Start || c.End > len(text) {
			t.Errorf("%s: span %d-%d outside %s's text (%d bytes)", where, c.Start, c.End, c.ContractID, len(text))
			return
		}
		if c.Truncated || text[c.Start:c.End] != c.Text {
			t.Errorf("%s: %s[%d:%d] is not the clause's text", where, c.ContractID, c.Start, c.End)
		}
		for _, tm := range c.Terms {
			if tm.Start < c.Start || tm.End > c.End || text[tm.Start:tm.End] != tm.Text {
				t.Errorf("%s: term %+v does not slice the clause %d-%d", where, tm, c.Start, c.End)
			}
		}
	}
	seen := 0
	for _, g := range res.Groups {
		if g.Size != len(g.Members)+1+g.MoreMembers || g.Contracts > g.Size || g.Cohesion <= 0 {
			t.Errorf("group %d: size %d, %d members shown, %d more, %d contracts, cohesion %v", g.ID, g.Size, len(g.Members), g.MoreMembers, g.Contracts, g.Cohesion)
		}
		check("representative", g.Representative.Clause)
		for _, m := range g.Members {
			check("member", m.Clause)
		}
		seen += g.Size
	}
	unique := 0
	for _, o := range res.Outliers {
		check("outlier", o.Clause)
		if len(o.Reasons) == 0 || len(o.Details) != len(o.Reasons) {
			t.Errorf("outlier without reasons: %+v", o)
		}
		if o.Group == 0 {
			unique++
		}
	}
	if res.TotalGroups <= 50 && res.TotalOutliers <= 100 && seen+unique != res.Compared {
		t.Errorf("groups hold %d clauses and %d are unique; %d were compared", seen, unique, res.Compared)
	}
	// The same call again gives the same answer.
	again, err := set.Call(ctx, NameClauseCompare, json.RawMessage(`{"clause_type":"Cap On Liability","groups":50,"examples":20,"outliers":100,"text_chars":4000}`))
	if err != nil || string(again) != string(out) {
		t.Errorf("a second call differs (%v)", err)
	}
}

func sizes(gs []ComparedGroup) []int {
	out := make([]int, len(gs))
	for i, g := range gs {
		out[i] = g.Size
	}
	return out
}

// The arguments are checked: a clause type is required and must be
// known, the bounds hold.
func TestClauseCompareArgs(t *testing.T) {
	set := New(&recorder{}, Options{Now: fixedNow})
	for _, tt := range []struct{ args, field string }{
		{`{}`, "clause_type"},
		{`{"clause_type":"Cap On Lunch"}`, "clause_type"},
		{`{"clause_type":"Cap On Liability","threshold":2}`, "threshold"},
		{`{"clause_type":"Cap On Liability","max_clauses":5000}`, "max_clauses"},
		{`{"clause_type":"Cap On Liability","groups":-1}`, "groups"},
		{`{"clause_type":"Cap On Liability","examples":99}`, "examples"},
		{`{"clause_type":"Cap On Liability","outliers":101}`, "outliers"},
		{`{"clause_type":"Cap On Liability","text_chars":1e6}`, "text_chars"},
		{`{"clause_type":"Cap On Liability","min_end_date":"soon"}`, "min_end_date"},
	} {
		_, err := set.Call(context.Background(), NameClauseCompare, json.RawMessage(tt.args))
		var ae *ArgError
		if !errors.As(err, &ae) || ae.Field != tt.field {
			t.Errorf("%s: %v, want an argument error on %s", tt.args, err, tt.field)
		}
	}
	_, err := set.Call(context.Background(), NameClauseCompare, json.RawMessage(`{"clause_type":"Cap On Lunch"}`))
	if err == nil || !strings.Contains(err.Error(), "Uncapped Liability") {
		t.Errorf("unknown clause type: %v, want the valid ones listed", err)
	}
}

// hideCounter is a store without graph.ClauseCounter: clause_compare
// reads every matching contract to count their clauses.
type hideCounter struct{ graph.Store }

// A store that counts clauses (graph.ClauseCounter) is read only for the
// clauses compared, newest contracts first; the answer is the one reading
// every matching contract gives, also when max_clauses cuts the reading
// short, for a type and for a group, with and without a further filter.
func TestClauseCompareCounted(t *testing.T) {
	ctx := context.Background()
	store := cuadStore(t)
	if _, ok := store.(graph.ClauseCounter); !ok {
		t.Fatal("the SQLite store counts no clauses")
	}
	for _, args := range []string{
		`{"clause_type":"Governing Law","max_clauses":7}`,
		`{"clause_type":"Governing Law","max_clauses":500}`,
		`{"clause_type":"Liability & Indemnification","max_clauses":25,"groups":20}`,
		`{"clause_type":"Cap On Liability","max_clauses":10,"contract_type":"Distributor"}`,
		`{"clause_type":"Non-Compete","max_clauses":3,"min_effective_date":"2000-01-01"}`,
	} {
		var got [2]ClauseCompareResult
		for i, s := range []graph.Store{store, hideCounter{store}} {
			out, err := New(s, Options{Now: fixedNow}).Call(ctx, NameClauseCompare, json.RawMessage(args))
			if err != nil {
				t.Fatalf("%s: %v", args, err)
			}
			if err := json.Unmarshal(out, &got[i]); err != nil {
				t.Fatal(err)
			}
		}
		if got[1].Compared == 0 || got[1].TotalClauses < got[1].Compared {
			t.Errorf("%s: %d clauses, %d compared: the case tells nothing", args, got[1].TotalClauses, got[1].Compared)
		}
		if diff := cmp.Diff(got[1], got[0]); diff != "" {
			t.Errorf("%s: counted and read answers differ (-read +counted):\n%s", args, diff)
		}
		t.Logf("%s: %d contracts, %d clauses, %d compared", args, got[0].TotalContracts, got[0].TotalClauses, got[0].Compared)
	}
}
