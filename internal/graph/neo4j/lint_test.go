package neo4j

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/contractgraph/contractgraph/internal/contract"
	"github.com/contractgraph/contractgraph/internal/graph"
	"github.com/contractgraph/contractgraph/internal/graph/graphtest"
	"github.com/contractgraph/contractgraph/internal/tools"
)

// namedStatement is one entry of the lint input.
type namedStatement struct {
	Name string `json:"name"`
	statement
}

// lintInput is what scripts/cypherlint/lint.mjs reads.
type lintInput struct {
	Labels            []string         `json:"labels"`
	RelationshipTypes []string         `json:"relationshipTypes"`
	PropertyKeys      []string         `json:"propertyKeys"`
	Statements        []namedStatement `json:"statements"`
}

// recorder is a graph.Store that records the typed queries the tools layer
// makes and answers them with empty results, so that the dev questions'
// tool calls can be compiled without a database.
type recorder struct {
	graph.Store // nil: only the query methods below are called
	contracts   []graph.ContractQuery
	aggregates  []graph.AggregateQuery
	parties     []graph.PartyQuery
	clauses     []graph.ClauseQuery
}

func (r *recorder) SearchContracts(_ context.Context, q graph.ContractQuery) (graph.ContractResult, error) {
	r.contracts = append(r.contracts, q)
	return graph.ContractResult{Examples: []graph.ContractSummary{}}, nil
}

func (r *recorder) AggregateContracts(_ context.Context, q graph.AggregateQuery) (graph.AggregateResult, error) {
	r.aggregates = append(r.aggregates, q)
	return graph.AggregateResult{Groups: []graph.Group{}}, nil
}

func (r *recorder) SearchParties(_ context.Context, q graph.PartyQuery) (graph.PartyResult, error) {
	r.parties = append(r.parties, q)
	return graph.PartyResult{Examples: []graph.PartySummary{}}, nil
}

func (r *recorder) SearchClauses(_ context.Context, q graph.ClauseQuery) ([]graph.ClauseHit, error) {
	r.clauses = append(r.clauses, q)
	return []graph.ClauseHit{}, nil
}

// dumper collects statements, failing the test on a compile error.
type dumper struct {
	t   *testing.T
	out []namedStatement
}

func (d *dumper) add(name string, st statement) {
	d.out = append(d.out, namedStatement{Name: name, statement: st})
}

func (d *dumper) contract(name string, q graph.ContractQuery) {
	d.t.Helper()
	cs, err := compileContractSearch(q)
	if err != nil {
		d.t.Fatalf("%s: %v", name, err)
	}
	d.add(name+" (count)", cs.count)
	d.add(name+" (examples)", cs.examples)
	if cs.rest != nil { // the index-ordered examples' other two statements
		d.add(name+" (examples without a value)", cs.rest(3, 2))
		d.add(name+" (examples with a value)", *cs.present)
	}
	if cs.ties != nil { // the first value's ties, then the contracts past it
		d.add(name+" (ties)", cs.ties.first)
		d.add(name+" (past the ties)", cs.ties.past(int64(365), 2))
	}
}

func (d *dumper) aggregate(name string, q graph.AggregateQuery) {
	d.t.Helper()
	st, err := compileAggregate(q)
	if err != nil {
		d.t.Fatalf("%s: %v", name, err)
	}
	d.add(name, st)
}

func (d *dumper) party(name string, q graph.PartyQuery) {
	d.t.Helper()
	ps, err := compileParties(q)
	if err != nil {
		d.t.Fatalf("%s: %v", name, err)
	}
	d.add(name+" (count)", ps.count)
	d.add(name+" (examples)", ps.examples)
}

func (d *dumper) clause(name string, q graph.ClauseQuery) {
	d.t.Helper()
	st, err := compileClauses(q)
	if err != nil {
		d.t.Fatalf("%s: %v", name, err)
	}
	d.add(name, st)
}

// everyFilter sets every shared filter at once.
func everyFilter() graph.Filter {
	active := true
	return graph.Filter{
		MinEffectiveDate: "2010-01-01", MaxEffectiveDate: "2020-12-31", MinEndDate: "2011-01-01", MaxEndDate: "2030-12-31",
		ContractType: "Distributor", Parties: []string{"Acme", "O'Brien \"Bob\" \\ Co"}, PartyIDSets: [][]string{{"excite"}}, PartyCountry: "US",
		GoverningLawCountry: "US", GoverningLawState: "NY", Active: &active, AsOf: "2024-06-01",
		Monetary: &graph.Monetary{Op: ">=", Value: new(1e6)}, ClauseTypes: []string{"Governing Law", contract.GroupLiability},
		SummarySearch: "exclusive distribution", ContractIDs: []string{"a", "b"}, RenewalKind: contract.RenewalAutomatic,
	}
}

// lintFilter is f as the store compiles it: a notice-deadline range
// resolved to contract ids (Store.resolveFilter).
func lintFilter(f graph.Filter) graph.Filter {
	if _, _, ok := f.NoticeRange(); ok {
		return f.WithNoticeMatches([]string{"c1"})
	}
	return f
}

// lintSchemaVersion stands for the schema version in the marker statements.
const lintSchemaVersion = "0123456789abcdef"

// TestCypherDump writes every statement the store runs or compiles — the
// schema setup, the writes, and the typed queries of the dev question set
// (through the tools layer) and of every filter, ordering, grouping and
// metric — to the JSON file named by CYPHER_DUMP, for scripts/cypherlint.
func TestCypherDump(t *testing.T) {
	path := os.Getenv("CYPHER_DUMP")
	if path == "" {
		t.Skip("CYPHER_DUMP is not set: set it to a file path to dump the compiled Cypher for scripts/cypherlint")
	}
	d := &dumper{t: t}
	for i, st := range schemaStatements() {
		d.add("schema "+string(rune('a'+i)), st)
	}
	d.add("await indexes", statement{Cypher: awaitIndexesCypher})
	d.add("backfill party match_text", statement{Cypher: matchTextBackfillCypher, Params: map[string]any{"limit": int64(matchTextBatch)}})
	d.add("read the schema marker", statement{Cypher: schemaMarkerCypher, Params: map[string]any{"name": schemaMarkerPrefix + lintSchemaVersion}})
	d.add("write the schema marker", markSchemaStatement(lintSchemaVersion))
	d.add("remove the old schema marker node", statement{Cypher: dropMarkerNodeCypher})
	d.add("remove the old schema marker constraint", statement{Cypher: dropMarkerConstraintCypher})
	d.add("await the vector index", statement{Cypher: awaitVectorIndexCypher})
	d.add("vector index lookup", statement{Cypher: vectorIndexCypher})
	d.add("vector index create", vectorIndexStatement(384))

	// Writes, with the parameters a real batch passes.
	gl := &contract.Location{Country: "US", State: "NY"}
	days, amount := 365, 1000.0
	c := &contract.Contract{ID: "c1", Title: "T", Text: "Some text here.", DurationDays: &days, TotalAmount: &amount,
		GoverningLaw: gl, Parties: []contract.PartyRole{{Name: "Acme Inc", Role: "Seller", Location: gl}},
		Clauses:  []contract.Clause{{Type: "Governing Law", Text: "Some", Start: 0, End: 4, Verified: true}},
		Chunks:   []contract.Chunk{{Ord: 0, Text: "Some text", Start: 0, End: 9, Embedding: []float32{0.1, 0.2}}},
		Evidence: []contract.Evidence{{Field: "title", Quote: "Some"}}}
	p, err := graph.Prepare(c)
	if err != nil {
		t.Fatal(err)
	}
	var w rows
	w.add(p)
	ids := map[string]any{"ids": []any{"c1"}}
	linkRows := map[string]any{"rows": []any{map[string]any{"from_id": "c1", "to_id": "c0", "props": map[string]any{
		"restates": false, "confidence": 0.9, "quote": "Amendment No. 1 to the T", "quote_start": int64(0), "quote_end": int64(24), "source": "detected"}}}}
	for _, st := range []struct {
		name, cypher string
		params       map[string]any
	}{
		{"lookup hashes", lookupHashesCypher, ids},
		{"delete contracts", deleteContractsCypher, ids},
		{"merge locations", mergeLocationsCypher, map[string]any{"rows": w.locations}},
		{"merge parties", mergePartiesCypher, map[string]any{"rows": w.parties}},
		{"create contracts", createContractsCypher, map[string]any{"rows": w.contracts}},
		{"has location", hasLocationCypher, map[string]any{"rows": w.partyLocations}},
		{"stale locations", staleLocationsCypher, ids},
		{"orphan parties", orphanPartiesCypher, ids},
		{"orphan locations", orphanLocationsCypher, ids},
		{"party counts", partyCountsCypher, map[string]any{"rows": w.partyCounts()}},
		{"party names", partyNamesCypher, map[string]any{"keys": w.partyKeys}},
		{"rename parties", renamePartiesCypher, map[string]any{"rows": []any{map[string]any{"key": "acme", "name": "Acme Inc", "aliases": []any{"ACME"}}}}},
		{"old party counts", oldPartyCountsCypher, ids},
		{"get contract", getContractCypher, map[string]any{"id": "c1"}},
		{"party name keys", partyNameKeysCypher, nil},
		{"party names version", namesVersionCypher, map[string]any{"id": countsID}},
		{"contract ids", contractIDsCypher, map[string]any{"after": "", "limit": 256}},
		{"contracts without chunks", contractsWithoutChunksCypher, nil},
		{"count chunk embeddings", countChunkEmbeddingsCypher, map[string]any{"model": "m"}},
		{"missing chunk embeddings", missingChunkEmbeddingsCypher, map[string]any{"after_id": "", "after_ord": int64(-1), "model": "m", "window": int64(500), "limit": int64(64)}},
		{"put chunk embeddings", putChunkEmbeddingsCypher, map[string]any{"model": "m", "rows": []any{map[string]any{"contract_id": "c1", "ord": int64(0), "text": "Some text", "embedding": []any{0.1, 0.2}}}}},
		{"unverified candidates", unverifiedCandidatesCypher, map[string]any{"limit": int64(unverifiedBatch)}},
		{"set unverified", setUnverifiedCypher, map[string]any{"rows": []any{unverifiedRow(p)}}},
		{"delete links", deleteLinksCypher, map[string]any{"source": "detected"}},
		{"missing link contracts", missingLinkContractsCypher, ids},
		{"contract links", contractLinksCypher, map[string]any{"id": "c1"}},
		{"put amends links", putLinksCypher(graph.LinkAmends, false), linkRows},
		{"put supplements links, manual", putLinksCypher(graph.LinkSupplements, true), linkRows},
		{"search vector index", searchVectorIndexCypher, map[string]any{"k": int64(20), "vector": []any{0.1, 0.2}, "model": ""}},
		{"aggregate contributions", contributionCypher, ids},
		{"lock the counts", lockCountsCypher, map[string]any{"id": countsID}},
		{"write the counts", writeCountsCypher, writeCountsParams()},
		{"delete the counts", deleteCountsCypher, map[string]any{"id": countsID}},
		{"bump the party names version", bumpNamesCypher, map[string]any{"id": countsID}},
		{"party aggregates", partyAggregatesCypher, map[string]any{"rows": []any{map[string]any{"id": "acme", "verified": int64(1), "keys": []any{"type:Service"}, "roles": []any{int64(1)}}}}},
		{"parties' contracts", partiesContractsCypher, map[string]any{"ids": []any{"acme"}}},
		{"backfill aggregate ids", aggregateIDsCypher, map[string]any{"after": "", "limit": int64(backfillPage)}},
		{"backfill party ids", partyIDsCypher, map[string]any{"after": "", "limit": int64(backfillPage)}},
		{"backfill party aggregates", resetPartyAggregatesCypher, map[string]any{"rows": []any{map[string]any{"id": "acme", "verified": int64(1), "keys": []any{"type:Service"}, "roles": []any{int64(1)}}}}},
	} {
		d.add(st.name, statement{Cypher: st.cypher, Params: st.params})
	}
	for name, f := range map[string]graph.Filter{"": {}, " with every filter": everyFilter()} {
		st, err := compileVectorScan(f, []any{0.1, 0.2}, "m", 5)
		if err != nil {
			t.Fatal(err)
		}
		d.add("search vectors"+name, st)
	}
	d.resolve()
	for _, s := range statsStatements {
		d.add("stats "+s.name, s.st)
	}
	d.add("contract ids", compileContractIDs("c0", 10))
	for _, st := range text2cypherStatements() {
		d.add(st.Name, st.statement)
	}
	for _, st := range statuteStatements() {
		d.add(st.Name, st.statement)
	}

	// The curated text2cypher examples the model is shown.
	for i, ex := range tools.Text2CypherExamples() {
		d.add("text2cypher example "+string(rune('a'+i)), statement{Cypher: ex.Cypher})
	}

	// The dev question set, through the tools layer that normalises its
	// arguments exactly as for the agent.
	rec := &recorder{}
	set := tools.New(rec, tools.Options{Now: func() time.Time { return time.Date(2024, 6, 1, 0, 0, 0, 0, time.UTC) }})
	b, err := os.ReadFile(filepath.Join(sharedQuestions(t), "dev_calls.json"))
	if err != nil {
		t.Fatal(err)
	}
	var calls []struct {
		ID   string          `json:"id"`
		Tool string          `json:"tool"`
		Args json.RawMessage `json:"args"`
	}
	if err := json.Unmarshal(b, &calls); err != nil {
		t.Fatal(err)
	}
	for _, c := range calls {
		before := len(rec.contracts) + len(rec.aggregates) + len(rec.parties) + len(rec.clauses)
		if _, err := set.Call(context.Background(), c.Tool, c.Args); err != nil {
			t.Fatalf("%s: %v", c.ID, err)
		}
		if after := len(rec.contracts) + len(rec.aggregates) + len(rec.parties) + len(rec.clauses); after != before+1 {
			t.Fatalf("%s made %d store queries, want 1", c.ID, after-before)
		}
	}
	for i, q := range rec.contracts {
		d.contract("dev contract_search "+string(rune('a'+i)), q)
	}
	for i, q := range rec.aggregates {
		d.aggregate("dev contract_aggregate "+string(rune('a'+i)), q)
	}
	for i, q := range rec.parties {
		d.party("dev party_search "+string(rune('a'+i)), q)
	}
	if len(rec.contracts)+len(rec.aggregates)+len(rec.parties) != len(calls) {
		t.Fatalf("recorded %d queries for %d dev calls", len(rec.contracts)+len(rec.aggregates)+len(rec.parties), len(calls))
	}

	// Every filter, ordering, grouping and metric.
	f := everyFilter()
	d.contract("contracts, every filter", graph.ContractQuery{Filter: f})
	d.contract("contracts, second page", graph.ContractQuery{Filter: f, Offset: 5, Limit: 5})
	// Each filter of the conformance table alone, on every query that
	// takes one, so that a new filter is linted as soon as it has a case.
	for _, c := range graphtest.FilterCases() {
		c.Filter = lintFilter(c.Filter)
		d.contract("contracts, filter "+c.Field, graph.ContractQuery{Filter: c.Filter})
		d.aggregate("aggregate, filter "+c.Field, graph.AggregateQuery{Filter: c.Filter, GroupBy: graph.GroupContractType})
		d.clause("clauses, filter "+c.Field, graph.ClauseQuery{Query: "liability", Filter: c.Filter})
		st, err := compileVectorScan(c.Filter, []any{0.1, 0.2}, "", 5)
		if err != nil {
			t.Fatal(err)
		}
		d.add("search vectors, filter "+c.Field, st)
	}
	for _, name := range graph.ContractOrders {
		d.contract("contracts by "+name, graph.ContractQuery{Filter: graph.Filter{ContractType: "Service"}, OrderBy: name, Desc: true, Limit: 3})
		d.contract("contracts by "+name+" asc", graph.ContractQuery{OrderBy: name, Limit: 3})
	}
	d.contract("contracts by duration_days, second page, include_unverified", graph.ContractQuery{
		Filter: graph.Filter{IncludeUnverified: true}, OrderBy: graph.OrderDurationDays, Desc: true, Offset: 5, Limit: 5})
	for _, op := range graph.MonetaryOperators {
		d.contract("contracts amount "+op, graph.ContractQuery{Filter: graph.Filter{Monetary: &graph.Monetary{Op: op, Value: new(5.0)}}})
	}
	inactive := false
	d.contract("contracts inactive", graph.ContractQuery{Filter: graph.Filter{Active: &inactive, AsOf: "2020-01-01"}})
	for _, group := range graph.Groupings {
		for _, metric := range graph.Metrics {
			d.aggregate("aggregate "+group+" "+metric, graph.AggregateQuery{Filter: graph.Filter{PartyCountry: "US"}, GroupBy: group, Metric: metric})
		}
		d.aggregate("aggregate "+group+" asc, every filter", graph.AggregateQuery{Filter: f, GroupBy: group, Asc: true, Limit: 100})
	}
	for _, metric := range graph.Metrics {
		d.aggregate("aggregate all "+metric, graph.AggregateQuery{Metric: metric})
	}
	// With unverified values included, the groupings, metrics and orders
	// read the stored properties as they are.
	withUnverified := graph.Filter{IncludeUnverified: true, PartyCountry: "US"}
	for _, group := range append([]string{""}, graph.Groupings...) {
		d.aggregate("aggregate "+group+" sum_amount, include_unverified", graph.AggregateQuery{Filter: withUnverified, GroupBy: group, Metric: graph.MetricSumAmount})
	}
	for _, name := range graph.ContractOrders {
		d.contract("contracts by "+name+", include_unverified", graph.ContractQuery{Filter: withUnverified, OrderBy: name, Limit: 3})
	}
	d.party("parties, every filter", graph.PartyQuery{Name: "acme", Country: "US", ContractType: "Supply", MinContracts: 2, Limit: 50})
	d.party("parties by name", graph.PartyQuery{OrderBy: "name", Desc: true})
	d.party("parties by id", graph.PartyQuery{IDs: []string{"acme", "excite"}, Country: "US"})
	d.clause("clauses", graph.ClauseQuery{Query: "termination for convenience", Limit: 10})
	d.clause("clauses, types and every filter", graph.ClauseQuery{Query: "liability cap", Filter: f,
		ClauseTypes: []string{"Cap On Liability", contract.GroupLiability}})
	d.add("notice deadline candidates", noticeCandidates("2020-01-01", "2020-12-31"))
	for name, f := range map[string]graph.Filter{"": {}, ", every filter": f} {
		st, err := compileDeadlineCandidates(graph.DeadlineQuery{Filter: f, From: "2020-01-01", To: "2020-12-31"})
		if err != nil {
			t.Fatal(err)
		}
		d.add("deadline candidates"+name, st)
	}
	d.clause("clauses of one contract", graph.ClauseQuery{Query: "notice", Filter: graph.Filter{ContractIDs: []string{"c1"}}})

	out, err := json.MarshalIndent(lintInput{
		Labels: schemaLabels, RelationshipTypes: schemaRelationshipTypes, PropertyKeys: append(append([]string{schemaMarkerProperty(lintSchemaVersion)}, schemaPropertyKeys...), writeRowKeys...),
		Statements: d.out,
	}, "", " ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, out, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("wrote %d statements to %s", len(d.out), path)
}

// sharedQuestions returns ../shared/questions beside the module root, or skips.
func sharedQuestions(t *testing.T) string {
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
	q := filepath.Join(filepath.Dir(dir), "shared", "questions")
	if _, err := os.Stat(filepath.Join(q, "dev_calls.json")); err != nil {
		t.Skipf("shared questions not found at %s: %v", q, err)
	}
	return q
}

// writeCountsParams are writeCounts' parameters for a count of each
// kind of list and an amount.
func writeCountsParams() map[string]any {
	return writeCountsStatement(
		map[string]counted{"end:2020-01": {1, 1}, lawKindKey + "Anti-Assignment" + lawSeparator + "US" + lawSeparator + "Delaware": {1, 1},
			countryKey + "US": {1, 1}},
		map[amountKey]amountSums{{"Service", "USD", 0}: {contracts: 1, amounts: 1, intSum: 500, absSum: 500, durations: 1, durationSum: 365}},
	).Params
}
