package neo4j_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	driver "github.com/neo4j/neo4j-go-driver/v5/neo4j"

	"github.com/contractgraph/contractgraph/internal/contract"
	"github.com/contractgraph/contractgraph/internal/graph/graphtest"
	"github.com/contractgraph/contractgraph/internal/graph/neo4j"
	"github.com/contractgraph/contractgraph/internal/graph/neo4j/neo4jtest"
	"github.com/contractgraph/contractgraph/internal/sharedtest"
	"github.com/contractgraph/contractgraph/internal/synth"
)

// selectiveCalls are the dev calls whose filter is selective — a contract
// type, a date range (d11's as_of bounds the end date), a party, a
// party's country, a governing law or a minimum contract count — and which
// must therefore start from an index, never from every node of a label;
// so must d05, d09, d15 and d16, which read the maintained counts and
// amount sums (the parties with a verified contract through their index,
// the count node), and d13, which reads the longest duration and its
// contracts from indexes. d08 reads most contracts whatever the plan.
var selectiveCalls = []string{"d01", "d02", "d03", "d04", "d05", "d06", "d07", "d09", "d10", "d11", "d12", "d13", "d14", "d15", "d16", "d17", "d18", "d19", "d20", "d21", "d22"}

// scanOperators are the plan leaves that read every node (of a label).
var scanOperators = []string{"NodeByLabelScan", "AllNodesScan"}

// countedStatements are the dev call statements that read the maintained
// aggregates (aggregates.go) instead of the contracts they count: each
// must read few rows whatever the store's size (at most the given number of rows
// at any operator, on the 3,000 contracts of TestDevCallPlans).
var countedStatements = map[string]int64{
	"d17 count":     1,    // the law_kind counts, read once
	"d19 aggregate": 200,  // the amount sums, then the amount index per currency up to its first contract (~120 of ~900 Service contracts)
	"d02 aggregate": 1500, // the governing laws' counts (~300 keys; every key when the planner unwinds them all)
	"d03 count":     1,    // one party country
	"d04 aggregate": 100,  // the amount sums' keys (~80: type, currency, flags)
	"d05 aggregate": 1500, // one row per party with a verified contract (~1,000)
	"d07 aggregate": 1,    // the count node's lists, read once
	"d06 count":     1500, // the months of the range, its bounds' months by index; the planner may unwind every key (~1,200)
	"d08 count":     1,    // one clause kind
	"d09 aggregate": 100,
	"d11 count":     1500,
	"d15 aggregate": 1500,
	"d16 aggregate": 1500,
}

// pagedStatements are statements that must read the order's index only up
// to the page instead of sorting every match: at most the given number of rows at
// any operator (d11: active contracts are 40% of them).
var pagedStatements = map[string]int64{"d11 examples": 100, "d03 examples": 200}

// tiePlanRows bounds the rows at any operator of the plan that reads the
// first page of contracts by duration (tieSearch), up to the examples'
// collect(c) (the examples' projection after it reads each one's parties
// and clauses): the longest duration from its index, then its contracts
// in the id's order up to the page (d13's page is one contract), a few
// more where the longest durations are unverified. ~5% of the contracts
// share the longest duration, ~150 of the 3,000, which a plan sorting them
// by id would all read.
const tiePlanRows = 5

// tiePlans are the statements tiePlanRows bounds.
var tiePlans = map[string]bool{"d13 examples": true}

// pageRows is the largest row count of any operator below the examples'
// collect(c) of plan (all of plan when it has none).
func pageRows(plan driver.ProfiledPlan) int64 {
	var find func(p driver.ProfiledPlan) driver.ProfiledPlan
	find = func(p driver.ProfiledPlan) driver.ProfiledPlan {
		if d, _ := p.Arguments()["Details"].(string); strings.Contains(d, "collect(c) AS cs") {
			return p
		}
		for _, c := range p.Children() {
			if f := find(c); f != nil {
				return f
			}
		}
		return nil
	}
	if f := find(plan); f != nil {
		return maxRows(f)
	}
	return maxRows(plan)
}

// boundedHits are statements whose db hits do not grow with the store:
// at most the given number. d13's plan read 703 on these 3,000 contracts
// when it sorted the longest duration's contracts by id (23,646 at 100,000).
var boundedHits = map[string]int64{"d13 examples": 120}

// maxRows is the largest row count of any operator of plan.
func maxRows(plan driver.ProfiledPlan) int64 {
	n := plan.Records()
	for _, c := range plan.Children() {
		n = max(n, maxRows(c))
	}
	return n
}

// TestDevCallPlans profiles each dev call's statements on a synthetic
// store and fails when a selective call's plan starts from a label scan or
// an all-nodes scan instead of an index. The plan of every call, with its
// db hits, is logged (go test -v).
func TestDevCallPlans(t *testing.T) {
	calls := readDevCalls(t, sharedtest.Dir(t))
	s := neo4jtest.Open(t)
	ctx := context.Background()
	if err := graphtest.PutAll(ctx, s, func(fn func(*contract.Contract) error) error { return synth.Generate(1, 3000, fn) }); err != nil {
		t.Fatal(err)
	}
	for _, c := range calls {
		sts, err := neo4j.CallStatements(ctx, s, c.Tool, c.Args, fixedNow)
		if err != nil {
			t.Fatalf("%s: %v", c.ID, err)
		}
		for _, st := range sts {
			plan, err := s.Profile(ctx, st)
			if err != nil {
				t.Fatalf("%s: %v", c.ID, err)
			}
			var b strings.Builder
			writePlan(&b, plan, 1)
			t.Logf("%s %s: %d db hits\n%s", c.ID, st.Name, totalDBHits(plan), b.String())
			name := c.ID + " " + st.Name
			if limit, ok := countedStatements[name]; ok && maxRows(plan) > limit {
				t.Errorf("%s reads %d rows at one operator, want at most %d from the maintained counts:\n%s", name, maxRows(plan), limit, b.String())
			}
			if limit, ok := pagedStatements[name]; ok && maxRows(plan) > limit {
				t.Errorf("%s reads %d rows at one operator, want at most %d up to the page:\n%s", name, maxRows(plan), limit, b.String())
			}
			if tiePlans[name] && pageRows(plan) > tiePlanRows {
				t.Errorf("%s reads %d rows at one operator before its projection, want at most %d up to the page:\n%s", name, pageRows(plan), tiePlanRows, b.String())
			}
			if limit, ok := boundedHits[name]; ok && totalDBHits(plan) > limit {
				t.Errorf("%s reads %d db hits, want at most %d:\n%s", name, totalDBHits(plan), limit, b.String())
			}
			if !slices.Contains(selectiveCalls, c.ID) {
				continue
			}
			for _, leaf := range planLeaves(plan) {
				if slices.Contains(scanOperators, baseOperator(leaf.Operator())) {
					t.Errorf("%s %s starts from %s (%v) instead of an index:\n%s", c.ID, st.Name,
						leaf.Operator(), leaf.Arguments()["Details"], st.Cypher)
				}
			}
		}
	}
}

// baseOperator is an operator's name without the runtime's suffix
// ("NodeByLabelScan@neo4j" is a NodeByLabelScan).
func baseOperator(op string) string {
	op, _, _ = strings.Cut(op, "@")
	return op
}

// planLeaves are the operators of plan that read no other operator's rows.
func planLeaves(plan driver.ProfiledPlan) []driver.ProfiledPlan {
	if len(plan.Children()) == 0 {
		return []driver.ProfiledPlan{plan}
	}
	var out []driver.ProfiledPlan
	for _, c := range plan.Children() {
		out = append(out, planLeaves(c)...)
	}
	return out
}

func totalDBHits(plan driver.ProfiledPlan) int64 {
	n := plan.DbHits()
	for _, c := range plan.Children() {
		n += totalDBHits(c)
	}
	return n
}

func writePlan(b *strings.Builder, plan driver.ProfiledPlan, depth int) {
	fmt.Fprintf(b, "%s%s rows=%d dbhits=%d %v\n", strings.Repeat("  ", depth), baseOperator(plan.Operator()),
		plan.Records(), plan.DbHits(), plan.Arguments()["Details"])
	for _, c := range plan.Children() {
		writePlan(b, c, depth+1)
	}
}
