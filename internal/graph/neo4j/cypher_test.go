package neo4j

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/contractgraph/contractgraph/internal/graph"
)

// TestValuesAreParameters compiles every query kind with hostile values and
// checks that none of them reaches the statement text: they travel as
// parameters only.
func TestValuesAreParameters(t *testing.T) {
	hostile := `x'}) DETACH DELETE n // "\`
	f := everyFilter()
	f.Parties = []string{hostile}
	f.ContractType = hostile
	f.GoverningLawState = hostile
	f.ContractIDs = []string{hostile}
	f.SummarySearch = "exclusive " + hostile
	var stmts []statement
	cs, err := compileContractSearch(graph.ContractQuery{Filter: f})
	if err != nil {
		t.Fatal(err)
	}
	stmts = append(stmts, cs.count, cs.examples)
	agg, err := compileAggregate(graph.AggregateQuery{Filter: f, GroupBy: graph.GroupParty, Metric: graph.MetricSumAmount})
	if err != nil {
		t.Fatal(err)
	}
	ps, err := compileParties(graph.PartyQuery{Name: hostile, Country: hostile, ContractType: hostile})
	if err != nil {
		t.Fatal(err)
	}
	cl, err := compileClauses(graph.ClauseQuery{Query: hostile + " liability", Filter: f, ClauseTypes: []string{hostile}})
	if err != nil {
		t.Fatal(err)
	}
	stmts = append(stmts, agg, ps.count, ps.examples, cl)
	for _, st := range stmts {
		for _, frag := range []string{"DETACH", "x'", `\`, "//"} {
			if strings.Contains(st.Cypher, frag) {
				t.Errorf("statement holds %q from a value:\n%s", frag, st.Cypher)
			}
		}
		found := false
		for _, v := range st.Params {
			if s, ok := v.(string); ok && strings.Contains(s, "DETACH") {
				found = true
			}
			if ss, ok := v.([]string); ok && len(ss) > 0 && strings.Contains(ss[0], "DETACH") {
				found = true
			}
		}
		if !found && !strings.Contains(st.Cypher, "fulltext") {
			t.Errorf("no parameter carries the hostile value:\n%s\n%v", st.Cypher, st.Params)
		}
	}
}

func TestCompileRejectsUnknownNames(t *testing.T) {
	tests := []struct {
		name string
		err  error
		want string
	}{
		{"order_by", func() error {
			_, err := compileContractSearch(graph.ContractQuery{OrderBy: "id; DROP"})
			return err
		}(), "valid values: effective_date, end_date, total_amount, duration_days, party_count"},
		{"group_by", func() error {
			_, err := compileAggregate(graph.AggregateQuery{GroupBy: "labels(n)"})
			return err
		}(), "valid values: contract_type, effective_year"},
		{"metric", func() error {
			_, err := compileAggregate(graph.AggregateQuery{Metric: "median"})
			return err
		}(), "valid values: count, sum_amount"},
		{"operator", func() error {
			_, err := compileContractSearch(graph.ContractQuery{Filter: graph.Filter{Monetary: &graph.Monetary{Op: "<>"}}})
			return err
		}(), "valid values: =, >, <, >=, <="},
		{"party order", func() error {
			_, err := compileParties(graph.PartyQuery{OrderBy: "country"})
			return err
		}(), "valid values: contract_count, name"},
		{"limit", func() error {
			_, err := compileContractSearch(graph.ContractQuery{Limit: 51})
			return err
		}(), "out of range 1..50"},
		{"aggregate limit", func() error {
			_, err := compileAggregate(graph.AggregateQuery{Limit: -1})
			return err
		}(), "out of range 1..100"},
		{"active without as_of", func() error {
			active := true
			_, err := compileContractSearch(graph.ContractQuery{Filter: graph.Filter{Active: &active}})
			return err
		}(), "active needs a reference date"},
		{"empty summary search", func() error {
			_, err := compileContractSearch(graph.ContractQuery{Filter: graph.Filter{SummarySearch: "?!"}})
			return err
		}(), "holds no searchable word"},
		{"empty clause query", func() error {
			_, err := compileClauses(graph.ClauseQuery{Query: "--"})
			return err
		}(), "holds no searchable word"},
	}
	for _, tt := range tests {
		if tt.err == nil || !strings.Contains(tt.err.Error(), tt.want) {
			t.Errorf("%s: err = %v, want one containing %q", tt.name, tt.err, tt.want)
		}
	}
}

func TestLuceneQuery(t *testing.T) {
	tests := []struct {
		in   string
		all  bool
		want string
	}{
		{"Exclusive distribution of the products", true, "+exclusive +distribution +products"},
		{"termination OR (notice) AND NOT title:x*", false, "termination notice title"}, // operators and single letters are no words
		{"the of and", true, "+the +of +and"},                                           // only stop words: kept
		{"Café, café!", false, "café"},
		{"", false, ""},
		{`"+-&&||!(){}[]^~*?:\/`, true, ""},
	}
	for _, tt := range tests {
		if got := luceneQuery(tt.in, tt.all); got != tt.want {
			t.Errorf("luceneQuery(%q, %v) = %q, want %q", tt.in, tt.all, got, tt.want)
		}
	}
}

// TestOrderingNullsLast pins the ordering clause: missing values last in
// both directions, then id; by default an unverified amount orders as a
// missing one. From a selective source (the party country's index) the
// matches are sorted; from every contract the examples may read the
// amount's index in order, and the rest (missing or unverified amounts) follow by id.
func TestOrderingNullsLast(t *testing.T) {
	for _, tc := range []struct {
		desc, include bool
	}{{false, false}, {true, false}, {false, true}, {true, true}} {
		desc := tc.desc
		dir := "ASC"
		if desc {
			dir = "DESC"
		}
		amount := "CASE WHEN 'total_amount' IN coalesce(c.unverified_fields, []) THEN null ELSE c.total_amount END"
		if tc.include {
			amount = "c.total_amount"
		}
		cs, err := compileContractSearch(graph.ContractQuery{Filter: graph.Filter{IncludeUnverified: tc.include, PartyCountry: "CN"},
			OrderBy: graph.OrderTotalAmount, Desc: desc, Limit: 3})
		if err != nil {
			t.Fatal(err)
		}
		want := "ORDER BY " + amount + " IS NULL, " + amount + " " + dir + ", c.id ASC LIMIT $p1"
		if !strings.Contains(cs.examples.Cypher, want) || cs.rest != nil {
			t.Errorf("desc=%v, party country: %s\nlacks %q (or has a rest)", desc, cs.examples.Cypher, want)
		}
		if diff := cmp.Diff(map[string]any{"p0": "CN", "p1": 3}, map[string]any(cs.examples.Params)); diff != "" {
			t.Errorf("params (-want +got):\n%s", diff)
		}

		cs, err = compileContractSearch(graph.ContractQuery{Filter: graph.Filter{IncludeUnverified: tc.include},
			OrderBy: graph.OrderTotalAmount, Desc: desc, Limit: 3})
		if err != nil {
			t.Fatal(err)
		}
		has, missing := "c.total_amount IS NOT NULL", "c.total_amount IS NULL"
		if !tc.include {
			has += " AND NOT 'total_amount' IN coalesce(c.unverified_fields, [])"
			missing = "(" + missing + " OR 'total_amount' IN coalesce(c.unverified_fields, []))"
		}
		want = "MATCH (c:Contract) WHERE " + has +
			" WITH c ORDER BY c.total_amount " + dir + ", c.id ASC LIMIT $p0 "
		if !strings.HasPrefix(cs.examples.Cypher, want) {
			t.Errorf("desc=%v, every contract: %s\ndoes not start with %q", desc, cs.examples.Cypher, want)
		}
		if cs.rest == nil {
			t.Fatalf("desc=%v, every contract: no rest", desc)
		}
		rest := cs.rest(2, 1)
		want = "MATCH (c:Contract) WHERE " + missing + " WITH c ORDER BY c.id ASC SKIP $p1 LIMIT $p0 "
		if !strings.HasPrefix(rest.Cypher, want) {
			t.Errorf("desc=%v, rest: %s\ndoes not start with %q", desc, rest.Cypher, want)
		}
		if diff := cmp.Diff(map[string]any{"p0": 1, "p1": 2}, map[string]any(rest.Params)); diff != "" {
			t.Errorf("rest params (-want +got):\n%s", diff)
		}
	}
}
