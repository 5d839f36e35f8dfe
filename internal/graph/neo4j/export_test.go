package neo4j

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	driver "github.com/neo4j/neo4j-go-driver/v5/neo4j"

	"github.com/contractgraph/contractgraph/internal/graph"
	"github.com/contractgraph/contractgraph/internal/tools"
)

// SchemaStatementsRun returns how many schema statements s's Open ran.
func (s *Store) SchemaStatementsRun() int64 { return s.schemaRuns.Load() }

// SchemaStatementCount is the number of statements of a full schema set-up.
func SchemaStatementCount() int { return len(schemaStatements()) }

// SchemaVersion is this binary's schema version, as the marker records it.
func SchemaVersion() string { return schemaVersion() }

// CallStatement is one statement of the store query a tool call makes.
type CallStatement struct {
	Name   string
	Cypher string
	Params map[string]any
}

// CallStatements compiles the store queries the tools layer makes for one
// tool call (with now as the tools' clock), as the store would run them.
// With a store s, a contract search's examples are those SearchContracts
// would choose on s's data (contractSearch.inOrder); without, those from
// the filter's own source. A search by tied values (contractSearch.ties)
// lists its first statement only, which fills the page of the dev calls.
func CallStatements(ctx context.Context, s *Store, tool string, args json.RawMessage, now func() time.Time) ([]CallStatement, error) {
	rec := &recorder{}
	if _, err := tools.New(rec, tools.Options{Now: now}).Call(context.Background(), tool, args); err != nil {
		return nil, err
	}
	var out []CallStatement
	add := func(name string, st statement) {
		out = append(out, CallStatement{Name: name, Cypher: st.Cypher, Params: st.Params})
	}
	for _, q := range rec.contracts {
		cs, err := compileContractSearch(q)
		if err != nil {
			return nil, err
		}
		add("count", cs.count)
		ex := cs
		if s != nil && cs.inOrder != nil {
			recs, err := s.run(ctx, driver.AccessModeRead, cs.count)
			if err != nil {
				return nil, err
			}
			if m := recs[0].AsMap(); dense(int(getInt(m, "total")), int(getInt(m, "contracts")), cs.offset+cs.limit) {
				ex = *cs.inOrder
			}
		}
		if ex.ties != nil {
			// The page's first value's ties; SearchContracts reads on
			// past them only when they fall short of the page.
			add("examples", ex.ties.first)
		} else {
			add("examples", ex.examples)
		}
	}
	for _, q := range rec.aggregates {
		st, err := compileAggregate(q)
		if err != nil {
			return nil, err
		}
		add("aggregate", st)
	}
	for _, q := range rec.parties {
		ps, err := compileParties(q)
		if err != nil {
			return nil, err
		}
		add("count", ps.count)
		add("examples", ps.examples)
	}
	for _, q := range rec.clauses {
		st, err := compileClauses(q)
		if err != nil {
			return nil, err
		}
		add("clauses", st)
	}
	return out, nil
}

// AggregateBase answers q as AggregateContracts does without the
// maintained counts and amount sums, from the contracts.
func (s *Store) AggregateBase(ctx context.Context, q graph.AggregateQuery) (graph.AggregateResult, error) {
	st, err := compileAggregateFrom(q, false)
	if err != nil {
		return graph.AggregateResult{}, err
	}
	recs, err := s.run(ctx, driver.AccessModeRead, st)
	if err != nil {
		return graph.AggregateResult{}, err
	}
	return decodeAggregate(recs[0].AsMap()), nil
}

// SearchCountBase counts the contracts f matches from the contracts, as
// SearchContracts does without the maintained counts.
func (s *Store) SearchCountBase(ctx context.Context, f graph.Filter) (int, error) {
	p := params{}
	cf, err := compileFilter(p, f, summaryAsSource)
	if err != nil {
		return 0, err
	}
	recs, err := s.run(ctx, driver.AccessModeRead, statement{Cypher: cf.match() + " RETURN count(c) AS total", Params: p})
	if err != nil {
		return 0, err
	}
	return int(getInt(recs[0].AsMap(), "total")), nil
}

// AmountsUsable reports whether q is answered from the maintained amount
// sums: it is one they answer, and they are exact.
func (s *Store) AmountsUsable(ctx context.Context, q graph.AggregateQuery) (bool, error) {
	n, err := q.EffectiveLimit()
	if err != nil {
		return false, err
	}
	st, ok := compileAmountAggregate(q, n, "DESC")
	if !ok {
		return false, nil
	}
	recs, err := s.run(ctx, driver.AccessModeRead, st)
	if err != nil {
		return false, err
	}
	usable, _ := recs[0].AsMap()["usable"].(bool)
	return usable, nil
}

// Profile runs st under PROFILE in a read transaction and returns its plan.
func (s *Store) Profile(ctx context.Context, st CallStatement) (driver.ProfiledPlan, error) {
	var plan driver.ProfiledPlan
	err := s.tx(ctx, driver.AccessModeRead, func(tx driver.ManagedTransaction) error {
		res, err := tx.Run(ctx, "PROFILE "+st.Cypher, st.Params)
		if err != nil {
			return err
		}
		sum, err := res.Consume(ctx)
		if err != nil {
			return err
		}
		plan = sum.Profile()
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("profile %s: %w", st.Name, err)
	}
	if plan == nil {
		return nil, fmt.Errorf("profile %s: the server returned no plan", st.Name)
	}
	return plan, nil
}

// aggregateRecounts pairs each maintained aggregate (aggregates.go) with
// its recount from the base graph: both return rows of key and value, and
// list only non-zero values. The recounts read the relationships and
// clause nodes, not the contract properties the writers derive from them.
var aggregateRecounts = []struct{ name, stored, recount string }{
	{"counts", `MATCH (n:` + countsLabel + `) UNWIND range(0, size(coalesce(n.count_keys, [])) - 1) AS i
		RETURN n.count_keys[i] AS key, toString(n.count_contracts[i]) + '/' + toString(n.count_verified[i]) AS value
		UNION ALL
		MATCH (n:` + countsLabel + `) UNWIND range(0, size(coalesce(n.law_kind_keys, [])) - 1) AS i
		RETURN n.law_kind_keys[i] AS key, toString(n.law_kind_contracts[i]) + '/' + toString(n.law_kind_verified[i]) AS value
		UNION ALL
		MATCH (n:` + countsLabel + `) UNWIND range(0, size(coalesce(n.country_keys, [])) - 1) AS i
		RETURN n.country_keys[i] AS key, toString(n.country_contracts[i]) + '/' + toString(n.country_verified[i]) AS value`,
		`CALL () {
		   MATCH (c:Contract) WHERE c.effective_date IS NOT NULL
		   RETURN 'effective:' + substring(c.effective_date, 0, 7) AS key, c, NOT 'effective_date' IN coalesce(c.unverified_fields, []) AS verified
		   UNION ALL
		   MATCH (c:Contract) WHERE c.end_date IS NOT NULL
		   RETURN 'end:' + substring(c.end_date, 0, 7) AS key, c, NOT 'end_date' IN coalesce(c.unverified_fields, []) AS verified
		   UNION ALL
		   MATCH (c:Contract) WHERE c.contract_type IS NOT NULL
		   RETURN 'contract_type:' + c.contract_type AS key, c, NOT 'contract_type' IN coalesce(c.unverified_fields, []) AS verified
		   UNION ALL
		   MATCH (c:Contract)-[:HAS_GOVERNING_LAW]->(gl:Location)
		   RETURN 'law:' + coalesce(gl.country, '') + '\u001f' + coalesce(gl.state, '') AS key, c, NOT 'governing_law' IN coalesce(c.unverified_fields, []) AS verified
		   UNION ALL
		   MATCH (:Party)-[r:PARTY_TO]->(c:Contract) WHERE r.country <> ''
		   WITH r.country AS country, c, max(CASE WHEN r.unverified IS NULL THEN 1 ELSE 0 END) AS v
		   RETURN 'country:' + country AS key, c, v = 1 AS verified
		   UNION ALL
		   MATCH (c:Contract)-[:HAS_CLAUSE]->(cl:Clause) UNWIND [cl.type, cl.group] AS k
		   WITH DISTINCT c, k WHERE k IS NOT NULL AND k <> ''
		   RETURN 'kind:' + k AS key, c, true AS verified
		   UNION ALL
		   MATCH (c:Contract)-[:HAS_CLAUSE]->(cl:Clause) UNWIND [cl.type, cl.group] AS k
		   WITH DISTINCT c, k WHERE k IS NOT NULL AND k <> ''
		   MATCH (c)-[:HAS_GOVERNING_LAW]->(gl:Location)
		   RETURN 'law_kind:' + k + '\u001f' + coalesce(gl.country, '') + '\u001f' + coalesce(gl.state, '') AS key, c,
		    NOT 'governing_law' IN coalesce(c.unverified_fields, []) AS verified
		 }
		 WITH key, count(c) AS n, count(CASE WHEN verified THEN 1 END) AS v
		 RETURN key, toString(n) + '/' + toString(v) AS value`},
	{"amounts", `MATCH (n:` + countsLabel + `) UNWIND range(0, size(coalesce(n.amount_types, [])) - 1) AS i
		RETURN n.amount_types[i] + '|' + n.amount_currencies[i] + '|' + toString(n.amount_flags[i]) AS key,
		 toString(n.amount_contracts[i]) + '/' + toString(n.amount_amounts[i]) + '/' + toString(n.amount_int_sums[i]) + '/' +
		 toString(n.amount_abs_sums[i]) + '/' + toString(n.amount_inexact[i]) + '/' + toString(n.amount_durations[i]) + '/' +
		 toString(n.amount_duration_sums[i]) + '/' + toString(n.amount_duration_outliers[i]) AS value`,
		`MATCH (c:Contract) WHERE c.contract_type IS NOT NULL
		 WITH c, coalesce(c.unverified_fields, []) AS uf, c.total_amount AS a
		 WITH c.contract_type + '|' + coalesce(c.currency, '') + '|' + toString(
		   CASE WHEN 'contract_type' IN uf THEN 1 ELSE 0 END + CASE WHEN 'total_amount' IN uf THEN 2 ELSE 0 END +
		   CASE WHEN c.currency IS NULL THEN 4 ELSE 0 END + CASE WHEN 'duration' IN uf THEN 8 ELSE 0 END) AS key, a,
		   a IS NOT NULL AND a = round(a) AND abs(a) < 1099511627776 AS exact, c.duration_days AS d
		 RETURN key, toString(count(*)) + '/' + toString(count(a)) + '/' +
		   toString(sum(CASE WHEN exact THEN toInteger(a) ELSE 0 END)) + '/' + toString(sum(CASE WHEN exact THEN toInteger(abs(a)) ELSE 0 END)) + '/' +
		   toString(count(CASE WHEN a IS NOT NULL AND NOT exact THEN 1 END)) + '/' +
		   toString(count(CASE WHEN abs(d) < 2147483648 THEN 1 END)) + '/' + toString(sum(CASE WHEN abs(d) < 2147483648 THEN d ELSE 0 END)) + '/' +
		   toString(count(CASE WHEN abs(d) >= 2147483648 THEN 1 END)) AS value`},
	{"party contracts", `MATCH (p:Party) WHERE coalesce(p.contract_count, 0) <> 0 OR coalesce(p.verified_contract_count, 0) <> 0
		RETURN p.id AS key, toString(coalesce(p.contract_count, 0)) + '/' + toString(coalesce(p.verified_contract_count, 0)) AS value`,
		`MATCH (p:Party)-[r:PARTY_TO]->(c:Contract)
		 WITH p, c, max(CASE WHEN r.unverified IS NULL THEN 1 ELSE 0 END) AS v
		 RETURN p.id AS key, toString(count(c)) + '/' + toString(sum(v)) AS value`},
	{"party facets", `MATCH (p:Party) UNWIND range(0, size(coalesce(p.facet_keys, [])) - 1) AS i
		RETURN p.id + ' ' + p.facet_keys[i] AS key, toString(p.facet_roles[i]) AS value`,
		`MATCH (p:Party)-[r:PARTY_TO]->(c:Contract)
		 UNWIND [CASE WHEN r.country <> '' THEN 'country:' + r.country END, 'type:' + c.contract_type] AS k
		 WITH p, k WHERE k IS NOT NULL
		 RETURN p.id + ' ' + k AS key, toString(count(*)) AS value`},
}

// AggregateDiff recounts every maintained aggregate from the base graph
// and describes how the stored ones differ ("" when none does). It also
// reports more than one count node.
func (s *Store) AggregateDiff(ctx context.Context) (string, error) {
	var diffs []string
	err := s.tx(ctx, driver.AccessModeRead, func(tx driver.ManagedTransaction) error {
		diffs = diffs[:0]
		read := func(q string) (map[string]string, error) {
			recs, err := collect(ctx, tx, statement{Cypher: q})
			if err != nil {
				return nil, fmt.Errorf("%s: %w", q, err)
			}
			out := map[string]string{}
			for _, r := range recs {
				m := r.AsMap()
				out[getString(m, "key")] = getString(m, "value")
			}
			return out, nil
		}
		for _, a := range aggregateRecounts {
			stored, err := read(a.stored)
			if err != nil {
				return err
			}
			recount, err := read(a.recount)
			if err != nil {
				return err
			}
			for _, k := range slices.Sorted(maps.Keys(stored)) {
				if recount[k] != stored[k] {
					diffs = append(diffs, fmt.Sprintf("%s: %q stored %s, recounted %q", a.name, k, stored[k], recount[k]))
				}
			}
			for _, k := range slices.Sorted(maps.Keys(recount)) {
				if _, ok := stored[k]; !ok {
					diffs = append(diffs, fmt.Sprintf("%s: %q recounted %s, not stored", a.name, k, recount[k]))
				}
			}
		}
		recs, err := collect(ctx, tx, statement{Cypher: `MATCH (n:` + countsLabel + `) RETURN count(n) AS n`})
		if err != nil {
			return err
		}
		if n := getInt(recs[0].AsMap(), "n"); n > 1 {
			diffs = append(diffs, fmt.Sprintf("%d count nodes, want at most 1", n))
		}
		return nil
	})
	return strings.Join(diffs, "\n"), err
}
