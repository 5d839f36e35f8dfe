package eval

import (
	"encoding/json"
	"fmt"
	"math"
	"strings"

	"github.com/contractgraph/contractgraph/internal/graph"
	"github.com/contractgraph/contractgraph/internal/tools"
)

// Tool correctness compares results, not arguments: the model's call is
// right when its result says what the expected call's result says on the
// same store, so {"party_country":"China"} is as good as
// {"party_country":"CN"} and an extra "limit" changes nothing. Per result
// shape:
//
//   - contract_search, party_search: the same total_count; when the
//     expected arguments choose an order (order_by or offset), also the
//     same first ids, as many as both results list.
//   - contract_aggregate: the same top groups (key, value, count), as many
//     as both results list; a result without groups matches only one
//     without groups.
//   - get_contract: the same contract id.
//   - clause_search: the expected call's top passage (same contract,
//     overlapping byte span) is among the model's passages; no passages
//     matches only no passages.
//
// Two equivalent cross-tool answers to a count also match: a
// contract_aggregate call without group_by whose one group counts
// total_count contracts, and a contract_search whose total_count is the
// count of the expected aggregate's single "all" group.

// outcome is the comparable core of one tool result.
type outcome struct {
	tool     string
	total    *int // total_count, or total_groups for contract_aggregate
	ids      []string
	groups   []graph.Group
	passages []passageSpan
}

type passageSpan struct {
	contract   string
	start, end int
}

func parseOutcome(tool string, res json.RawMessage) (outcome, error) {
	var v struct {
		TotalCount  *int `json:"total_count"`
		TotalGroups *int `json:"total_groups"`
		Examples    []struct {
			ContractID string `json:"contract_id"`
			PartyID    string `json:"party_id"`
			Name       string `json:"name"`
		} `json:"examples"`
		Groups   []graph.Group `json:"groups"`
		Passages []struct {
			ContractID string `json:"contract_id"`
			Start      int    `json:"start"`
			End        int    `json:"end"`
		} `json:"passages"`
		ID string `json:"id"`
	}
	o := outcome{tool: tool}
	if err := json.Unmarshal(res, &v); err != nil {
		return o, fmt.Errorf("%s result is not the expected JSON: %w", tool, err)
	}
	switch tool {
	case tools.NameContractSearch:
		o.total = v.TotalCount
		for _, e := range v.Examples {
			o.ids = append(o.ids, e.ContractID)
		}
	case tools.NamePartySearch:
		o.total = v.TotalCount
		for _, e := range v.Examples {
			id := e.PartyID
			if id == "" {
				id = e.Name
			}
			o.ids = append(o.ids, id)
		}
	case tools.NameContractAggregate:
		o.total = v.TotalGroups
		o.groups = v.Groups
	case tools.NameGetContract:
		if v.ID != "" {
			o.ids = []string{v.ID}
		}
	case tools.NameClauseSearch:
		for _, p := range v.Passages {
			o.passages = append(o.passages, passageSpan{p.ContractID, p.Start, p.End})
		}
	}
	return o, nil
}

// ordered reports whether the expected arguments ask for a particular
// order, which makes the first ids part of the answer.
func ordered(args json.RawMessage) bool {
	var m map[string]json.RawMessage
	if json.Unmarshal(args, &m) != nil {
		return false
	}
	_, byOrder := m["order_by"]
	_, byOffset := m["offset"]
	return byOrder || byOffset
}

// aggregateCountOnly reports whether an aggregate call's arguments compute
// a plain count over all matches (no group_by, metric count or absent).
func aggregateCountOnly(args json.RawMessage) bool {
	var m struct {
		GroupBy string `json:"group_by"`
		Metric  string `json:"metric"`
	}
	if json.Unmarshal(args, &m) != nil {
		return false
	}
	return m.GroupBy == "" && (m.Metric == "" || m.Metric == graph.MetricCount)
}

// matchResult decides whether the model's call (tool, args, result) gives
// what the expected call gave, and says why in a few words.
func matchResult(exp *Expected, expRes json.RawMessage, tool string, args, res json.RawMessage) (bool, string) {
	want, err := parseOutcome(exp.Tool, expRes)
	if err != nil {
		return false, err.Error()
	}
	got, err := parseOutcome(tool, res)
	if err != nil {
		return false, err.Error()
	}
	switch {
	case exp.Tool == tool:
	case exp.Tool == tools.NameContractSearch && tool == tools.NameContractAggregate && !ordered(exp.Args) && aggregateCountOnly(args):
		return compareCount(want.total, groupCount(got.groups), "total_count", "the aggregate's count")
	case exp.Tool == tools.NameContractAggregate && tool == tools.NameContractSearch && aggregateCountOnly(exp.Args):
		return compareCount(groupCount(want.groups), got.total, "the aggregate's count", "total_count")
	default:
		return false, fmt.Sprintf("%s does not answer what %s answers", tool, exp.Tool)
	}
	switch tool {
	case tools.NameContractSearch, tools.NamePartySearch:
		ok, why := compareCount(want.total, got.total, "total_count", "total_count")
		if !ok || !ordered(exp.Args) {
			return ok, why
		}
		return compareIDs(want.ids, got.ids)
	case tools.NameContractAggregate:
		return compareGroups(want.groups, got.groups)
	case tools.NameGetContract:
		if len(want.ids) == 0 || len(got.ids) == 0 {
			return false, "no contract record to compare"
		}
		if want.ids[0] != got.ids[0] {
			return false, fmt.Sprintf("contract %s, expected %s", got.ids[0], want.ids[0])
		}
		return true, "contract " + got.ids[0]
	case tools.NameClauseSearch:
		return comparePassages(want.passages, got.passages)
	}
	// A tool without a known shape: the results must be equal as JSON.
	if jsonEqual(expRes, res) {
		return true, "the same result"
	}
	return false, "a different result"
}

// groupCount is the number of contracts of an aggregate without groups:
// its single group's count (0 without groups).
func groupCount(gs []graph.Group) *int {
	n := 0
	if len(gs) == 1 {
		n = gs[0].Count
	} else if len(gs) > 1 {
		return nil
	}
	return &n
}

func compareCount(want, got *int, wantName, gotName string) (bool, string) {
	switch {
	case want == nil:
		return false, "the expected result has no " + wantName
	case got == nil:
		return false, "the result has no " + gotName
	case *want != *got:
		return false, fmt.Sprintf("%s %d, expected %d", gotName, *got, *want)
	}
	return true, fmt.Sprintf("%s %d", gotName, *got)
}

func compareIDs(want, got []string) (bool, string) {
	n := min(len(want), len(got))
	if len(want) > 0 && n == 0 {
		return false, "no examples returned, expected " + want[0] + " first"
	}
	for i := range n {
		if want[i] != got[i] {
			return false, fmt.Sprintf("example %d is %s, expected %s", i+1, got[i], want[i])
		}
	}
	if n == 0 {
		return true, "no examples, as expected"
	}
	return true, fmt.Sprintf("the same first %s (%s)", plural(n, "id"), strings.Join(got[:n], ", "))
}

func compareGroups(want, got []graph.Group) (bool, string) {
	if len(want) == 0 || len(got) == 0 {
		if len(want) == len(got) {
			return true, "no groups, as expected"
		}
		return false, fmt.Sprintf("%s, expected %s", plural(len(got), "group"), plural(len(want), "group"))
	}
	n := min(len(want), len(got))
	for i := range n {
		w, g := want[i], got[i]
		if w.Key != g.Key || w.Count != g.Count || !sameValue(w.Value, g.Value) {
			return false, fmt.Sprintf("group %d is %s, expected %s", i+1, groupText(g), groupText(w))
		}
	}
	return true, fmt.Sprintf("the same top %s (%s first)", plural(n, "group"), groupText(got[0]))
}

func groupText(g graph.Group) string {
	v := "null"
	if g.Value != nil {
		v = formatNumber(*g.Value)
	}
	return fmt.Sprintf("%s=%s (%d contracts)", g.Key, v, g.Count)
}

func sameValue(a, b *float64) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	return math.Abs(*a-*b) <= 1e-9*math.Max(1, math.Max(math.Abs(*a), math.Abs(*b)))
}

func comparePassages(want, got []passageSpan) (bool, string) {
	if len(want) == 0 {
		if len(got) == 0 {
			return true, "no passages, as expected"
		}
		return false, fmt.Sprintf("%s, expected none", plural(len(got), "passage"))
	}
	top := want[0]
	for i, p := range got {
		if p.contract == top.contract && p.start < top.end && top.start < p.end {
			return true, fmt.Sprintf("the expected top passage (%s %d–%d) is passage %d", top.contract, top.start, top.end, i+1)
		}
	}
	return false, fmt.Sprintf("the expected top passage (%s %d–%d) is not among the %s returned", top.contract, top.start, top.end, plural(len(got), "passage"))
}

func jsonEqual(a, b json.RawMessage) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	xb, _ := json.Marshal(x)
	yb, _ := json.Marshal(y)
	return string(xb) == string(yb)
}

func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// formatNumber prints a float without a fraction when it has none.
func formatNumber(v float64) string {
	if v == math.Trunc(v) && math.Abs(v) < 1e15 {
		return fmt.Sprintf("%.0f", v)
	}
	return fmt.Sprintf("%.2f", v)
}
