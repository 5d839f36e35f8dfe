package compare

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/contractgraph/contractgraph/internal/terms"
)

func capClause(id, text string, amount float64) Clause {
	c := Clause{ContractID: id, ClauseType: "Cap On Liability", Text: text, Start: 10, End: 10 + len(text), Verified: true}
	if amount > 0 {
		c.Terms = []terms.Term{{Kind: terms.Cap, Value: amount, Unit: terms.UnitAmount, Currency: "USD", Text: "$", Start: 12, End: 13}}
	}
	return c
}

func testClauses() []Clause {
	fees := "in no event shall liability exceed the fees paid under this agreement in the twelve months before the claim"
	fixed := "the total liability of either party shall not exceed the sum of dollars"
	return []Clause{
		capClause("a", fees, 0),
		capClause("b", fixed+" one million", 1e6),
		capClause("c", fees+" arose", 0),
		capClause("d", fixed+" two million", 2e6),
		capClause("e", "nothing here resembles any other wording at all", 0),
		capClause("f", "in no event shall liability exceed fees paid under this agreement in the twelve months before such claim", 0),
		capClause("g", fixed+" fifty million", 50e6),
		capClause("h", fixed+" one and a half million", 1.5e6),
	}
}

func TestCluster(t *testing.T) {
	res, err := Cluster(context.Background(), testClauses(), Options{Threshold: 0.4})
	if err != nil {
		t.Fatal(err)
	}
	var got [][]string
	for _, g := range res.Groups {
		ids := []string{g.Representative.ContractID}
		for _, m := range g.Members {
			ids = append(ids, m.ContractID)
		}
		got = append(got, ids)
		if g.Size != len(ids) || g.Contracts != len(ids) {
			t.Errorf("group %d: size %d, contracts %d, want %d", g.ID, g.Size, g.Contracts, len(ids))
		}
		if g.Cohesion < 0.4 || g.Cohesion > 1 {
			t.Errorf("group %d: cohesion %v", g.ID, g.Cohesion)
		}
	}
	// The fixed-sum caps are the larger group; within a group the
	// representative comes first, then the members most like it.
	if len(got) != 2 || len(got[0]) != 4 || len(got[1]) != 3 {
		t.Fatalf("groups %v, want 4 fixed-sum caps and 3 fees-paid caps", got)
	}
	for _, id := range got[0] {
		if !strings.Contains("bdgh", id) {
			t.Errorf("fixed-sum group holds %s: %v", id, got)
		}
	}
	// The key terms: four caps in USD, median 1.75 million.
	want := []TermSummary{{Kind: "cap", Unit: terms.UnitAmount, Currency: "USD", Count: 4, Median: 1.75e6, Min: 1e6, Max: 50e6}}
	if diff := cmp.Diff(want, res.Groups[0].KeyTerms); diff != "" {
		t.Errorf("key terms (-want +got):\n%s", diff)
	}
	if len(res.Groups[1].KeyTerms) != 0 {
		t.Errorf("fees-paid group has key terms %v", res.Groups[1].KeyTerms)
	}
	// Outliers: g caps at 50 million against its group's median of 1.75
	// million; e is like nothing (outliers of groups come first).
	var outliers []string
	for _, o := range res.Outliers {
		outliers = append(outliers, o.ContractID+":"+strings.Join(o.Reasons, ","))
	}
	if diff := cmp.Diff([]string{"g:" + ReasonFarTerm, "e:" + ReasonUnique}, outliers); diff != "" {
		t.Errorf("outliers (-want +got):\n%s", diff)
	}
	if o := res.Outliers[0]; o.Group != 1 || !strings.Contains(o.Details[0], "50,000,000 USD") || !strings.Contains(o.Details[0], "1,750,000 USD") {
		t.Errorf("far-term outlier %+v", o)
	}
	if o := res.Outliers[1]; o.Group != 0 || o.Nearest >= 0.4 {
		t.Errorf("unique outlier %+v", o)
	}
}

// The same input gives the same result, and a different order of the
// input the same groups.
func TestClusterDeterministic(t *testing.T) {
	cs := testClauses()
	a, err := Cluster(context.Background(), cs, Options{Threshold: 0.4})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := Cluster(context.Background(), cs, Options{Threshold: 0.4})
	if diff := cmp.Diff(a, b); diff != "" {
		t.Fatalf("two runs differ:\n%s", diff)
	}
}

// A threshold of 1 groups only identical passages; a low one groups all
// that share a word.
func TestClusterThreshold(t *testing.T) {
	cs := testClauses()
	strict, err := Cluster(context.Background(), cs, Options{Threshold: 1})
	if err != nil {
		t.Fatal(err)
	}
	if len(strict.Groups) != 0 || len(strict.Outliers) != len(cs) {
		t.Errorf("threshold 1: %d groups, %d outliers", len(strict.Groups), len(strict.Outliers))
	}
	loose, _ := Cluster(context.Background(), cs, Options{Threshold: 0.01})
	if len(loose.Groups) != 1 || loose.Groups[0].Size != len(cs)-1 {
		t.Errorf("threshold 0.01: groups %+v", loose.Groups)
	}
}

func TestClusterErrors(t *testing.T) {
	ctx := context.Background()
	for _, th := range []float64{-0.1, 1.5} {
		if _, err := Cluster(ctx, testClauses(), Options{Threshold: th}); err == nil || !strings.Contains(err.Error(), "threshold") {
			t.Errorf("threshold %v: %v", th, err)
		}
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := Cluster(cancelled, testClauses(), Options{}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
	res, err := Cluster(ctx, nil, Options{})
	if err != nil || len(res.Groups) != 0 || len(res.Outliers) != 0 || res.Groups == nil {
		t.Errorf("no clauses: %+v, %v", res, err)
	}
}
