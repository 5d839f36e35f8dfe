package tools

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/contractgraph/contractgraph/internal/graph"
	"github.com/contractgraph/contractgraph/internal/graph/graphtest"
)

// queryRecorder is a store that records the typed queries the tools send.
type queryRecorder struct {
	graph.Store // nil: any other method panics
	contracts   []graph.ContractQuery
	aggregates  []graph.AggregateQuery
	clauses     []graph.ClauseQuery
}

func (r *queryRecorder) SearchContracts(_ context.Context, q graph.ContractQuery) (graph.ContractResult, error) {
	r.contracts = append(r.contracts, q)
	return graph.ContractResult{}, nil
}

func (r *queryRecorder) AggregateContracts(_ context.Context, q graph.AggregateQuery) (graph.AggregateResult, error) {
	r.aggregates = append(r.aggregates, q)
	return graph.AggregateResult{}, nil
}

func (r *queryRecorder) SearchClauses(_ context.Context, q graph.ClauseQuery) ([]graph.ClauseHit, error) {
	r.clauses = append(r.clauses, q)
	return nil, nil
}

// TestEveryFilterReachesTheQuery sends each conformance filter case, as the
// JSON a model writes, to every tool that takes the shared filters, and
// checks that the typed query carries exactly that filter: a field the
// argument path drops or leaves unnormalised fails here, before any backend.
func TestEveryFilterReachesTheQuery(t *testing.T) {
	today := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	rec := &queryRecorder{}
	set := New(rec, Options{Now: func() time.Time { return today }})
	cases := map[string]graphtest.FilterCase{}
	for _, c := range graphtest.FilterCases() {
		cases[c.Field] = c
	}
	// clause_search's own clause_types restricts passages, not contracts.
	shadowed := map[string]bool{"clause_types": true}
	for f := range reflect.TypeFor[graph.Filter]().Fields() {
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" {
			continue
		}
		c, ok := cases[name]
		if !ok {
			t.Errorf("graph.Filter.%s (%s) has no case in graphtest.FilterCases", f.Name, name)
			continue
		}
		t.Run(name, func(t *testing.T) {
			args, err := json.Marshal(c.Filter)
			if err != nil {
				t.Fatal(err)
			}
			want := c.Filter
			if want.AsOf == "" {
				want.AsOf = "2026-12-01"
			}
			*rec = queryRecorder{}
			if _, err := set.Call(context.Background(), NameContractSearch, args); err != nil {
				t.Fatalf("contract_search %s: %v", args, err)
			}
			if _, err := set.Call(context.Background(), NameContractAggregate, args); err != nil {
				t.Fatalf("contract_aggregate %s: %v", args, err)
			}
			got := []graph.Filter{rec.contracts[0].Filter, rec.aggregates[0].Filter}
			if !shadowed[name] {
				var withQuery map[string]any
				json.Unmarshal(args, &withQuery)
				withQuery["query"] = "liability"
				b, _ := json.Marshal(withQuery)
				if _, err := set.Call(context.Background(), NameClauseSearch, b); err != nil {
					t.Fatalf("clause_search %s: %v", b, err)
				}
				got = append(got, rec.clauses[0].Filter)
			}
			for i, g := range got {
				if diff := cmp.Diff(want, g); diff != "" {
					t.Errorf("query %d from %s: filter (-want +got):\n%s", i, args, diff)
				}
			}
		})
	}
}

// TestLimitsMatchTheGraph checks each tool's schema against the one
// declaration of its limit (graph.*Limits) and the parser against both.
func TestLimitsMatchTheGraph(t *testing.T) {
	rec := &queryRecorder{}
	set := New(rec, Options{})
	for _, tc := range []struct {
		tool  string
		limit graph.Limit
		args  string
		got   func() int
	}{
		{NameContractSearch, graph.ContractLimits, `{}`, func() int { return rec.contracts[len(rec.contracts)-1].Limit }},
		{NameContractAggregate, graph.AggregateLimits, `{}`, func() int { return rec.aggregates[len(rec.aggregates)-1].Limit }},
		{NameClauseSearch, graph.ClauseLimits, `{"query":"liability"}`, func() int { return rec.clauses[len(rec.clauses)-1].Limit }},
	} {
		t.Run(tc.tool, func(t *testing.T) {
			var schema struct {
				Properties map[string]struct {
					Default json.RawMessage `json:"default"`
					Minimum *float64        `json:"minimum"`
					Maximum *float64        `json:"maximum"`
				} `json:"properties"`
			}
			for _, tool := range set.Tools() {
				if tool.Name == tc.tool {
					if err := json.Unmarshal(tool.InputSchema, &schema); err != nil {
						t.Fatal(err)
					}
				}
			}
			p, ok := schema.Properties["limit"]
			if !ok || p.Maximum == nil || p.Minimum == nil {
				t.Fatalf("schema has no bounded limit: %+v", schema.Properties["limit"])
			}
			if string(p.Default) != jsonInt(tc.limit.Default) || int(*p.Maximum) != tc.limit.Max || *p.Minimum != 1 {
				t.Errorf("schema limit default %s, 1..%v; want default %d, 1..%d", p.Default, *p.Maximum, tc.limit.Default, tc.limit.Max)
			}
			if _, err := set.Call(context.Background(), tc.tool, json.RawMessage(tc.args)); err != nil {
				t.Fatal(err)
			}
			if got := tc.got(); got != tc.limit.Default {
				t.Errorf("limit omitted: query limit %d, want the default %d", got, tc.limit.Default)
			}
			var over map[string]any
			json.Unmarshal([]byte(tc.args), &over)
			over["limit"] = tc.limit.Max + 1
			b, _ := json.Marshal(over)
			if _, err := set.Call(context.Background(), tc.tool, b); err != nil {
				t.Errorf("limit %d: %v, want the maximum used", tc.limit.Max+1, err)
			} else if got := tc.got(); got != tc.limit.Max {
				t.Errorf("limit %d: query limit %d, want the maximum %d", tc.limit.Max+1, got, tc.limit.Max)
			}
			over["limit"] = -1
			b, _ = json.Marshal(over)
			var ae *ArgError
			if _, err := set.Call(context.Background(), tc.tool, b); !errors.As(err, &ae) || ae.Field != "limit" {
				t.Errorf("limit -1: %v, want an argument error on limit", err)
			}
		})
	}
}

func jsonInt(n int) string {
	b, _ := json.Marshal(n)
	return string(b)
}
