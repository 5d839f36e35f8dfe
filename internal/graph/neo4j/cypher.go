package neo4j

import (
	"strconv"
	"strings"

	"github.com/contractgraph/contractgraph/internal/contract"
	"github.com/contractgraph/contractgraph/internal/graph"
	"github.com/contractgraph/contractgraph/internal/textmatch"
)

// This file compiles the typed graph queries into Cypher. Every value is a
// parameter; every label, relationship type, property name, operator and
// direction in the text comes from the constants and allow-lists below, so
// no input can change a statement's shape. The compile functions do no I/O:
// they return statements that tests inspect and the Cypher linter checks.

// statement is one Cypher statement with its parameters.
type statement struct {
	Cypher string         `json:"cypher"`
	Params map[string]any `json:"params,omitempty"`
}

// Names of the full-text and vector indexes.
const (
	contractTextIndex = "contract_text"
	passageTextIndex  = "passage_text"
	chunkVectorIndex  = "chunk_embedding"
)

// params names parameters $p0, $p1, ... in the order values are added.
type params map[string]any

func (p params) add(v any) string {
	name := "p" + strconv.Itoa(len(p))
	p[name] = v
	return "$" + name
}

// schemaStatements are the constraints and indexes Open creates.
func schemaStatements() []statement {
	stmts := []string{
		"CREATE CONSTRAINT contract_id IF NOT EXISTS FOR (n:Contract) REQUIRE n.id IS UNIQUE",
		"CREATE CONSTRAINT party_id IF NOT EXISTS FOR (n:Party) REQUIRE n.id IS UNIQUE",
		"CREATE CONSTRAINT party_normalized_name IF NOT EXISTS FOR (n:Party) REQUIRE n.normalized_name IS UNIQUE",
		"CREATE CONSTRAINT location_id IF NOT EXISTS FOR (n:Location) REQUIRE n.id IS UNIQUE",
		// Clause and chunk ids are unique within a contract only (as in the
		// embedded store), so they are indexed, not constrained.
		"CREATE INDEX clause_id IF NOT EXISTS FOR (n:Clause) ON (n.id)",
		"CREATE INDEX chunk_id IF NOT EXISTS FOR (n:Chunk) ON (n.id)",
		// Serves counting the chunks embedded by one model (reindex).
		"CREATE INDEX chunk_embedding_model IF NOT EXISTS FOR (n:Chunk) ON (n.embedding_model)",
		"CREATE INDEX clause_type IF NOT EXISTS FOR (n:Clause) ON (n.type)",
		"CREATE INDEX clause_group IF NOT EXISTS FOR (n:Clause) ON (n.group)",
		"CREATE INDEX contract_type IF NOT EXISTS FOR (n:Contract) ON (n.contract_type)",
		"CREATE INDEX contract_effective_date IF NOT EXISTS FOR (n:Contract) ON (n.effective_date)",
		"CREATE INDEX contract_end_date IF NOT EXISTS FOR (n:Contract) ON (n.end_date)",
		"CREATE INDEX contract_total_amount IF NOT EXISTS FOR (n:Contract) ON (n.total_amount)",
		"CREATE INDEX contract_duration_days IF NOT EXISTS FOR (n:Contract) ON (n.duration_days)",
		// Durations tie by the thousand (whole years): the contracts of one
		// duration come from it in the order of their ids (tieOrdered).
		"CREATE INDEX contract_duration_days_id IF NOT EXISTS FOR (n:Contract) ON (n.duration_days, n.id)",
		// A contract type with an end date range (active or not) or an
		// amount: one seek to the contracts of both, not every contract
		// of the type or of the range.
		"CREATE INDEX contract_type_end_date IF NOT EXISTS FOR (n:Contract) ON (n.contract_type, n.end_date)",
		"CREATE INDEX contract_type_total_amount IF NOT EXISTS FOR (n:Contract) ON (n.contract_type, n.total_amount)",
		"CREATE INDEX contract_type_effective_date IF NOT EXISTS FOR (n:Contract) ON (n.contract_type, n.effective_date)",
		"CREATE INDEX location_country IF NOT EXISTS FOR (n:Location) ON (n.country)",
		"CREATE INDEX location_state IF NOT EXISTS FOR (n:Location) ON (n.state)",
		"CREATE INDEX party_to_country IF NOT EXISTS FOR ()-[r:PARTY_TO]-() ON (r.country)",
		// Serve party_search's min_contracts and the party name filters
		// (CONTAINS on the joined match keys: partyMatchText).
		"CREATE INDEX party_contract_count IF NOT EXISTS FOR (n:Party) ON (n.contract_count)",
		"CREATE TEXT INDEX party_match_text IF NOT EXISTS FOR (n:Party) ON (n.match_text)",
		// The maintained aggregates (aggregates.go): the one count node, and
		// the parties with verified contracts, which group_by party reads.
		"CREATE CONSTRAINT contractgraph_count_id IF NOT EXISTS FOR (n:" + countsLabel + ") REQUIRE n.id IS UNIQUE",
		"CREATE INDEX party_verified_contract_count IF NOT EXISTS FOR (n:Party) ON (n.verified_contract_count)",
		// Only merged parties have alias_keys: a put finds them by it (resolve.go).
		"CREATE INDEX party_alias_keys IF NOT EXISTS FOR (n:Party) ON (n.alias_keys)",
		// The english analyzer stems like the embedded store's porter
		// tokenizer, so "terminate" finds "termination" on both.
		"CREATE FULLTEXT INDEX " + contractTextIndex + " IF NOT EXISTS FOR (n:Contract) ON EACH [n.title, n.summary, n.scope] " +
			"OPTIONS {indexConfig: {`fulltext.analyzer`: 'english', `fulltext.eventually_consistent`: false}}",
		"CREATE FULLTEXT INDEX " + passageTextIndex + " IF NOT EXISTS FOR (n:Clause|Chunk) ON EACH [n.text, n.summary] " +
			"OPTIONS {indexConfig: {`fulltext.analyzer`: 'english', `fulltext.eventually_consistent`: false}}",
		// The statute knowledge base (statute.go). The english analyzer
		// also splits Han text into single characters, as the embedded
		// store indexes it.
		"CREATE CONSTRAINT statute_id IF NOT EXISTS FOR (n:Statute) REQUIRE n.id IS UNIQUE",
		"CREATE INDEX statute_jurisdiction IF NOT EXISTS FOR (n:Statute) ON (n.jurisdiction)",
		"CREATE INDEX statute_embedding_model IF NOT EXISTS FOR (n:Statute) ON (n.embedding_model)",
		"CREATE FULLTEXT INDEX " + statuteTextIndex + " IF NOT EXISTS FOR (n:Statute) ON EACH [n.heading, n.text] " +
			"OPTIONS {indexConfig: {`fulltext.analyzer`: 'english', `fulltext.eventually_consistent`: false}}",
	}
	out := make([]statement, len(stmts))
	for i, s := range stmts {
		out[i] = statement{Cypher: s}
	}
	return out
}

const awaitIndexesCypher = "CALL db.awaitIndexes(300)"

// matchTextBatch is how many parties one matchTextBackfillCypher updates.
const matchTextBatch = 10000

// matchTextBackfillCypher gives up to matchTextBatch parties stored before
// match_text existed theirs (partyMatchText) and returns how many it gave.
const matchTextBackfillCypher = "MATCH (p:Party) WHERE p.match_text IS NULL WITH p LIMIT $limit SET p.match_text = " +
	partyMatchText + " RETURN count(p) AS n"

// The schema marker records which schema versions have been set up in the
// database (see Store.setup). It is not a node, so that no query a language
// model writes (MATCH (n) RETURN count(n)) sees it: each version set up is
// an index named schemaMarkerPrefix + version, on the label
// schemaMarkerLabel (which no node has) and a property of the version's own
// (an index needs a schema of its own: a second index on the same label and
// property would be refused as equivalent). Like the other indexes, the
// marker outlives deleting every node.
const (
	schemaMarkerLabel  = "ContractGraphSchema"
	schemaMarkerPrefix = "contractgraph_schema_"
)

// schemaMarkerCypher counts the marker indexes of version $name (a
// schemaMarkerPrefix + version): 1 when that version has been set up.
const schemaMarkerCypher = "SHOW INDEXES YIELD name WHERE name = $name RETURN count(*) AS n"

// schemaMarkerProperty is the property key of version's marker index.
func schemaMarkerProperty(version string) string { return "schema_" + version }

// markSchemaStatement records version as set up, keeping the markers of
// other (newer or older) binaries. The version is hex digits from Go
// (index names cannot be parameters).
func markSchemaStatement(version string) statement {
	return statement{Cypher: "CREATE RANGE INDEX " + schemaMarkerPrefix + version + " IF NOT EXISTS FOR (m:" +
		schemaMarkerLabel + ") ON (m." + schemaMarkerProperty(version) + ")"}
}

// The marker of earlier binaries was a node with a uniqueness constraint;
// the first set-up by this one removes both.
const (
	dropMarkerNodeCypher       = "MATCH (m:" + schemaMarkerLabel + ") DELETE m"
	dropMarkerConstraintCypher = "DROP CONSTRAINT contractgraph_schema_id IF EXISTS"
)

// awaitVectorIndexCypher waits until the chunk vector index is online.
const awaitVectorIndexCypher = "CALL db.awaitIndex('" + chunkVectorIndex + "', 300)"

// vectorIndexCypher reports the chunk vector index's dimension, if it exists.
const vectorIndexCypher = "SHOW VECTOR INDEXES YIELD name, options WHERE name = '" + chunkVectorIndex +
	"' RETURN options.indexConfig['vector.dimensions'] AS dims"

// vectorIndexStatement creates the chunk vector index. The dimension is an
// integer formatted by Go (index options cannot be parameters).
func vectorIndexStatement(dims int) statement {
	return statement{Cypher: "CREATE VECTOR INDEX " + chunkVectorIndex + " IF NOT EXISTS FOR (n:Chunk) ON (n.embedding) " +
		"OPTIONS {indexConfig: {`vector.dimensions`: " + strconv.Itoa(dims) + ", `vector.similarity_function`: 'cosine'}}"}
}

// filterMode says how a filter's summary search is expressed.
type filterMode int

const (
	// summaryAsSource starts the query at the full-text index's hits.
	summaryAsSource filterMode = iota
	// summaryAsCondition collects the hits first and tests membership, for
	// queries whose source is another index.
	summaryAsCondition
)

// compiledFilter is a filter over contracts bound to the variable c.
type compiledFilter struct {
	prelude string   // clauses before the source ("" or a CALL ... WITH)
	source  string   // the clause binding c
	conds   []string // ANDed conditions on c
	law     bool     // source binds fl, c's governing law
}

// where renders the conditions as " WHERE a AND b", or "".
func (f *compiledFilter) where(extra ...string) string {
	conds := append(append([]string{}, f.conds...), extra...)
	if len(conds) == 0 {
		return ""
	}
	return " WHERE " + strings.Join(conds, " AND ")
}

// whereAnd is cond as a further condition after match().
func (f *compiledFilter) whereAnd(cond string) string {
	if len(f.conds) == 0 {
		return " WHERE " + cond
	}
	return " AND " + cond
}

// match is the prelude, source and conditions: every matching contract as c.
func (f *compiledFilter) match() string {
	return f.prelude + f.source + f.where()
}

// labelSource binds c to every contract: the source when no filter names
// a more selective pattern.
const labelSource = "MATCH (c:Contract)"

// compileFilter turns f into Cypher over contracts bound to c.
//
// A query whose source is the filter itself (summaryAsSource, without a
// summary search, whose full-text hits are then the source) starts from
// the most selective pattern the filter names, so that the plan begins
// at an index instead of testing every contract: the first party
// condition (the text index on match_text, or the party id), else the
// governing law (the planner chooses between the location's country or
// state index and the contract's own indexes), else the contract type's
// index, else the party country's relationship index. Each anchor only
// narrows c: the filter's conditions on c still all hold after it.
func compileFilter(p params, f graph.Filter, mode filterMode) (*compiledFilter, error) {
	cf := &compiledFilter{source: labelSource}
	add := func(cond string) { cf.conds = append(cf.conds, cond) }
	anchored := mode == summaryAsSource && f.SummarySearch == ""
	// Each condition on a field's value also needs the value verified,
	// unless the filter includes unverified values.
	x := facts{f.IncludeUnverified}
	flagged := map[string]bool{}
	verified := func(field string) {
		if cond := x.verified(field); cond != "" && !flagged[field] {
			flagged[field] = true
			add(cond)
		}
	}
	if f.MinEffectiveDate != "" {
		add("c.effective_date >= " + p.add(f.MinEffectiveDate))
		verified(contract.FieldEffectiveDate)
	}
	if f.MaxEffectiveDate != "" {
		add("c.effective_date <= " + p.add(f.MaxEffectiveDate))
		verified(contract.FieldEffectiveDate)
	}
	if f.MinEndDate != "" {
		add("c.end_date >= " + p.add(f.MinEndDate))
		verified(contract.FieldEndDate)
	}
	if f.MaxEndDate != "" {
		add("c.end_date <= " + p.add(f.MaxEndDate))
		verified(contract.FieldEndDate)
	}
	if f.ContractType != "" {
		add("c.contract_type = " + p.add(f.ContractType))
		verified(contract.FieldContractType)
	}
	if f.PartyConditions() > 0 {
		// An entry matches a party by containment of its name's or any
		// alias's match key (match_text holds them all: partyMatchText);
		// an id set by the party's id.
		var conds []string
		for _, party := range f.Parties {
			conds = append(conds, "fp.match_text CONTAINS "+p.add(contract.MatchKey(party)))
		}
		for _, ids := range f.PartyIDSets {
			conds = append(conds, "fp.id IN "+p.add(append([]string(nil), ids...)))
		}
		if f.PartiesMatch == graph.PartiesAny {
			conds = []string{"(" + strings.Join(conds, " OR ") + ")"}
		}
		for i, cond := range conds {
			if v := x.party("fr"); v != "" {
				cond = v + " AND " + cond
			}
			if anchored && i == 0 {
				// A party may hold several roles in one contract.
				cf.source = "MATCH (fp:Party)-[fr:PARTY_TO]->(c:Contract) WHERE " + cond + " WITH DISTINCT c"
				continue
			}
			add("EXISTS { MATCH (fp:Party)-[fr:PARTY_TO]->(c) WHERE " + cond + " }")
		}
	}
	partyCountry := ""
	if f.PartyCountry != "" {
		// party_countries holds the distinct PARTY_TO countries (see put.go).
		partyCountry = p.add(f.PartyCountry)
		add(partyCountry + " IN " + x.partyCountries())
	}
	var law []string
	if f.GoverningLawCountry != "" {
		law = append(law, "fl.country = "+p.add(f.GoverningLawCountry))
	}
	if f.GoverningLawState != "" {
		law = append(law, "fl.state = "+p.add(f.GoverningLawState))
	}
	if len(law) > 0 {
		if anchored && cf.source == labelSource {
			// A contract has at most one governing law: no duplicates.
			cf.source = "MATCH (c:Contract)-[:HAS_GOVERNING_LAW]->(fl:Location)"
			cf.law = true
			cf.conds = append(cf.conds, law...)
		} else {
			add("EXISTS { MATCH (c)-[:HAS_GOVERNING_LAW]->(fl:Location) WHERE " + strings.Join(law, " AND ") + " }")
		}
		verified(contract.FieldGoverningLaw)
	}
	if f.Active != nil {
		if f.AsOf == "" {
			return nil, graph.ErrActiveNeedsAsOf
		}
		if *f.Active {
			add("c.end_date >= " + p.add(f.AsOf))
		} else {
			add("c.end_date < " + p.add(f.AsOf))
		}
		verified(contract.FieldEndDate)
	}
	if m := f.Monetary; m != nil {
		op, v, err := m.Comparison()
		if err != nil {
			return nil, err
		}
		add("c.total_amount " + op + " " + p.add(v))
		verified(contract.FieldTotalAmount)
	}
	if f.Currency != "" {
		add("c.currency = " + p.add(f.Currency))
		verified(contract.FieldTotalAmount)
	}
	for _, t := range f.ClauseTypes {
		// clause_kinds holds the types and groups of the contract's clauses
		// (see put.go): the same as a clause with type or group t existing.
		add(p.add(t) + " IN c.clause_kinds")
	}
	for _, t := range f.WithoutClauseTypes {
		// A contract without clauses has no clause_kinds: null, not [].
		add("NOT " + p.add(t) + " IN coalesce(c.clause_kinds, [])")
	}
	if f.RenewalKind != "" {
		add("c.renewal_kind = " + p.add(f.RenewalKind))
		verified(contract.FieldRenewalKind)
	}
	if _, _, ok := f.NoticeRange(); ok {
		// Rolling renewals forward is Go's (Store.resolveFilter).
		return nil, graph.ErrNoticeUnresolved
	}
	if len(f.ContractIDs) > 0 {
		add("c.id IN " + p.add(append([]string(nil), f.ContractIDs...)))
	}
	if f.SummarySearch != "" {
		q := summaryLuceneQuery(graph.SummaryGroups(f.SummarySearch, f.SummaryMatch == graph.SummaryAll))
		if q == "" {
			return nil, graph.NoWords("summary_search", f.SummarySearch)
		}
		call := "CALL db.index.fulltext.queryNodes('" + contractTextIndex + "', " + p.add(q) + ") YIELD node"
		switch {
		case len(f.SummaryIDs) > 0:
			// By words or by meaning (graph.Filter.SummaryIDs): a
			// membership test, whatever the mode.
			cf.prelude = call + " WITH collect(node.id) AS summary_hits "
			add("(c.id IN summary_hits OR c.id IN " + p.add(append([]string(nil), f.SummaryIDs...)) + ")")
		case mode == summaryAsSource:
			cf.source = call + " WITH node AS c"
		default:
			cf.prelude = call + " WITH collect(node.id) AS summary_hits "
			add("c.id IN summary_hits")
		}
	}
	if anchored && cf.source == labelSource && len(f.ContractIDs) == 0 && len(f.SummaryIDs) == 0 {
		switch {
		case f.ContractType != "" && f.Active != nil:
			// Left to itself the planner prefers the end date's index for
			// the open-ended range of active (or inactive) contracts,
			// which returns a large share of them; the composite index
			// seeks the type's contracts in the range.
			cf.source = labelSource + " USING INDEX c:Contract(contract_type, end_date)"
		case partyCountry != "":
			// A contract may have several parties in the country.
			cf.source = "MATCH (:Party)-[pc:PARTY_TO]->(c:Contract) WHERE pc.country = " + partyCountry + " WITH DISTINCT c"
		}
	}
	return cf, nil
}

// luceneQuery turns free text into a Lucene query for a full-text index:
// its search words (textmatch.SearchWords: lower-cased letters and digits,
// so that no query syntax and no AND/OR/NOT operator survives), each
// required when all is set, else any of them.
func luceneQuery(text string, all bool) string {
	words := textmatch.SearchWords(text)
	if all {
		for i, w := range words {
			words[i] = "+" + w
		}
	}
	return strings.Join(words, " ")
}

// summaryLuceneQuery is the Lucene query of graph.SummaryGroups: each
// group's words required, the groups alternatives. The words are
// textmatch.SearchWords', in which no query syntax survives.
func summaryLuceneQuery(groups [][]string) string {
	parts := make([]string, len(groups))
	for i, g := range groups {
		parts[i] = "+" + strings.Join(g, " +")
		if len(groups) > 1 {
			parts[i] = "(" + parts[i] + ")"
		}
	}
	return strings.Join(parts, " ")
}

// orderProperties is the allow-list of contract orderings, with the
// field whose unverified value orders as a missing one ("" for none).
var orderProperties = map[string]struct{ prop, field string }{
	graph.OrderEffectiveDate: {"c.effective_date", contract.FieldEffectiveDate},
	graph.OrderEndDate:       {"c.end_date", contract.FieldEndDate},
	graph.OrderTotalAmount:   {"c.total_amount", contract.FieldTotalAmount},
	graph.OrderDurationDays:  {"c.duration_days", contract.FieldDuration},
	graph.OrderPartyCount:    {"c.party_count", ""},
}

// contractSearch is a compiled contract_search: the count and the examples,
// run in one read transaction.
//
// Without a more selective source than every contract, examples ordered by
// a range-indexed property (indexOrdered) can read that index in order and
// stop at the page, instead of sorting every matching contract: examples
// are then only the contracts with a value to order by, and rest, run only
// when they fall short of the page, pages on through those without, by id;
// present counts the former, for a page that starts past them all.
type contractSearch struct {
	count, examples statement
	rest            func(skip, limit int) statement
	present         *statement
	offset, limit   int
	// inOrder, when not nil, is the search that reads the order's index
	// instead of the filter's own source: its examples test each contract
	// in order against the filter until the page is full. The count
	// statement then also returns contracts, how many contracts there
	// are, and SearchContracts takes inOrder when the matches are dense
	// enough for that to read fewer rows (dense).
	inOrder *contractSearch
	// ties, when not nil, reads the examples with a value instead of
	// examples while the first value's contracts fill the page (tieSearch).
	ties *tieSearch
}

// tieSearch reads the first page of an unfiltered search ordered by a
// property whose values many contracts share (d13: ~5% of them have the
// longest duration). Read as examples does, the first value's contracts
// would all be read from the property's index and sorted by id. Instead
// first reads the first value from that index (one entry, in a subquery
// of its own) and then, in a subquery given that value, its contracts from
// the composite index with the id (tieOrdered), already in the id's order,
// up to the page. The planner is left no choice that reads more:
//   - the composite index is hinted as a seek (USING INDEX SEEK): with a
//     plain index hint it sometimes scanned that index in order from the
//     shortest duration, testing each entry against the value, which also
//     gives the order;
//   - the order names the value before the id: by the id alone it does not
//     see that the seek provides it, and reads and sorts every tie;
//   - the order and the page are inside the subquery: after it, the order
//     of the value's subquery comes first, and every tie is sorted again.
//
// When the first value's contracts fall short of the page, past reads
// those past that value for the rest of it, in a statement of its own with
// the value a parameter (as a third subquery bounded by the ties read, the
// planner sometimes read every later value's index entries even when the
// ties filled the page). When none of the first value's contracts is on
// the page (the offset is past them, or no contract has a value), examples
// reads it.
type tieSearch struct {
	first  statement
	column string // first's column of the value (summaryProjection's)
	past   func(value any, limit int) statement
}

// dense reports whether the examples of a search with total matches out of
// contracts are read in the order's index (contractSearch.inOrder): with
// the matches spread evenly over the order, the page's want (offset +
// limit) come after about want·contracts/total index entries, against at
// least total rows from the filter's own source, which then sorts them.
// The margin of four leaves room for matches that are not evenly spread.
// d03 (a party country, 9% of the contracts) and d17 (Delaware law with a
// liability clause, 2.6%) read a few hundred entries instead of sorting
// thousands at 100,000 contracts.
func dense(total, contracts, want int) bool {
	return total > 0 && 4*int64(want)*int64(contracts) < int64(total)*int64(total)
}

// indexOrdered are the orderings with a range index on their property
// (schemaStatements).
var indexOrdered = map[string]bool{
	graph.OrderEffectiveDate: true, graph.OrderEndDate: true, graph.OrderTotalAmount: true, graph.OrderDurationDays: true,
}

// tieOrdered are the properties with a composite index before the id
// (schemaStatements): tieSearch reads a value's contracts from it.
var tieOrdered = map[string]bool{"duration_days": true}

// typeOrdered are the properties with a composite index after the
// contract type (schemaStatements).
var typeOrdered = map[string]bool{"effective_date": true, "end_date": true, "total_amount": true}

// compileContractSearch compiles q. Examples are ordered by q's property
// with missing values last in both directions, then by id ascending.
func compileContractSearch(q graph.ContractQuery) (contractSearch, error) {
	return compileSearch(q, summaryAsSource)
}

// compileSearch is compileContractSearch with the examples' filter in
// mode: summaryAsCondition (for a filter without a summary search) makes
// every condition a test of c, for examples read in the order's index.
func compileSearch(q graph.ContractQuery, mode filterMode) (contractSearch, error) {
	n, err := q.EffectiveLimit()
	if err != nil {
		return contractSearch{}, err
	}
	orderBy, desc := q.OrderBy, q.Desc
	if orderBy == "" {
		orderBy, desc = graph.OrderEffectiveDate, true
	}
	o, ok := orderProperties[orderBy]
	if !ok {
		return contractSearch{}, graph.UnknownValue("order_by", q.OrderBy, graph.ContractOrders)
	}
	prop := o.prop
	if o.field != "" {
		prop = facts{q.IncludeUnverified}.value(o.field, o.prop)
	}
	dir := "ASC"
	if desc {
		dir = "DESC"
	}
	pc := params{}
	fc, err := compileFilter(pc, q.Filter, summaryAsSource)
	if err != nil {
		return contractSearch{}, err
	}
	pe := params{}
	fe, _ := compileFilter(pe, q.Filter, mode)
	page := func(p params, skip, limit int) string {
		out := "LIMIT " + p.add(limit)
		if skip > 0 { // only when paging: first pages compile as before
			out = "SKIP " + p.add(skip) + " " + out
		}
		return out
	}
	const collectExamples = " WITH collect(c) AS cs UNWIND range(0, size(cs) - 1) AS i WITH i, cs[i] AS c" +
		" RETURN " + summaryProjection + " ORDER BY i"
	cs := contractSearch{count: statement{Cypher: fc.match() + " RETURN count(c) AS total", Params: pc},
		offset: q.Offset, limit: n}
	if st, ok := compileCountedSearch(q.Filter); ok {
		cs.count = st
	}
	if !indexOrdered[orderBy] || fe.prelude != "" || fe.source != labelSource {
		cs.examples = statement{Cypher: fe.match() +
			" WITH c ORDER BY " + prop + " IS NULL, " + prop + " " + dir + ", c.id ASC " + page(pe, q.Offset, n) +
			collectExamples, Params: pe}
		// Only conditions that say nothing of a contract's dates or amount:
		// a date range or an active filter gathers its matches at one end
		// of a date order (d20's contracts inactive in 2010 are the oldest
		// ones), where reading the index in order would find them last.
		independent := onlyFields(q.Filter, func(f *graph.Filter) {
			f.PartyCountry, f.GoverningLawCountry, f.GoverningLawState, f.ClauseTypes, f.ContractType = "", "", "", nil, ""
		})
		if mode == summaryAsSource && indexOrdered[orderBy] && fe.prelude == "" && independent {
			if alt, err := compileSearch(q, summaryAsCondition); err == nil && alt.rest != nil {
				cs.inOrder = &alt
				cs.count = statement{Cypher: "CALL () { " + cs.count.Cypher + " }" +
					" CALL () { MATCH (a:Contract) RETURN count(a) AS contracts } RETURN total, contracts", Params: cs.count.Params}
			}
		}
		return cs, nil
	}
	x := facts{q.IncludeUnverified}
	has := []string{o.prop + " IS NOT NULL"}
	if v := x.verified(o.field); v != "" {
		has = append(has, v)
	}
	// No index hint: with a selective condition (a contract type) the
	// planner still prefers that condition's index and sorts its matches.
	// But an active (or inactive) filter alone keeps a large share of the
	// contracts, whose end date's index the planner would still prefer
	// (d11: 40% of them, all sorted): reading the order's index until the
	// page is full reads a few rows instead.
	if q.Filter.Active != nil && onlyFields(q.Filter, func(f *graph.Filter) { f.Active, f.AsOf = nil, "" }) {
		fe.source = labelSource + " USING INDEX c:Contract(" + strings.TrimPrefix(o.prop, "c.") + ")"
	}
	// A contract type alone, ordered by a property of a composite index
	// with it: the type's contracts come from that index in order (d12
	// reads one License Agreement instead of sorting all ~8,700).
	// Ordering by the type first, the same for all of them, is what lets
	// the planner see the index's order.
	if mode == summaryAsCondition {
		// Every condition is a test of c: the order's index is the source.
		fe.source = labelSource + " USING INDEX c:Contract(" + strings.TrimPrefix(o.prop, "c.") + ")"
	}
	orderKeys := o.prop + " " + dir
	if prop := strings.TrimPrefix(o.prop, "c."); typeOrdered[prop] && q.Filter.ContractType != "" &&
		onlyFields(q.Filter, func(f *graph.Filter) { f.ContractType = "" }) {
		fe.source = labelSource + " USING INDEX c:Contract(contract_type, " + prop + ")"
		orderKeys = "c.contract_type " + dir + ", " + orderKeys
	}
	cs.examples = statement{Cypher: fe.match() + fe.whereAnd(strings.Join(has, " AND ")) +
		" WITH c ORDER BY " + orderKeys + ", c.id ASC " + page(pe, q.Offset, n) + collectExamples, Params: pe}
	if prop := strings.TrimPrefix(o.prop, "c."); tieOrdered[prop] && mode == summaryAsSource && onlyFields(q.Filter, nil) {
		cond, past := "", "<"
		if v := x.verified(o.field); v != "" {
			cond = " AND " + v
		}
		if !desc {
			past = ">"
		}
		pt := params{}
		first := "CALL () { MATCH (c:Contract) USING INDEX c:Contract(" + prop + ") WHERE " + o.prop + " IS NOT NULL" + cond +
			" RETURN " + o.prop + " AS first ORDER BY first " + dir + " LIMIT 1 }"
		cs.ties = &tieSearch{
			column: prop,
			first: statement{Cypher: first + " CALL (first) { MATCH (c:Contract) USING INDEX SEEK c:Contract(" + prop + ", id)" +
				" WHERE " + o.prop + " = first AND c.id IS NOT NULL" + cond +
				" WITH c ORDER BY " + o.prop + " ASC, c.id ASC " + page(pt, q.Offset, n) + " RETURN c }" + collectExamples, Params: pt},
			past: func(value any, limit int) statement {
				pp := params{}
				return statement{Cypher: "MATCH (c:Contract) USING INDEX SEEK c:Contract(" + prop + ")" +
					" WHERE " + o.prop + " " + past + " " + pp.add(value) + cond +
					" WITH c ORDER BY " + o.prop + " " + dir + ", c.id ASC " + page(pp, 0, limit) + collectExamples, Params: pp}
			},
		}
	}
	pp := params{}
	fp, _ := compileFilter(pp, q.Filter, summaryAsSource)
	cs.present = &statement{Cypher: fp.match() + fp.whereAnd(strings.Join(has, " AND ")) + " RETURN count(c) AS total", Params: pp}
	missing := o.prop + " IS NULL"
	if !q.IncludeUnverified {
		missing = "(" + missing + " OR " + x.flagged(o.field) + ")"
	}
	cs.rest = func(skip, limit int) statement {
		pr := params{}
		fr, _ := compileFilter(pr, q.Filter, summaryAsSource)
		return statement{Cypher: fr.match() + fr.whereAnd(missing) + " WITH c ORDER BY c.id ASC " + page(pr, skip, limit) +
			collectExamples, Params: pr}
	}
	return cs, nil
}

// summaryProjection returns one contract_search example of c.
const summaryProjection = `c.id AS contract_id, c.title AS title, c.contract_type AS contract_type, c.unverified_values AS unverified_values,
 c.summary AS summary, c.scope AS scope, c.effective_date AS effective_date, c.end_date AS end_date,
 c.duration AS duration, c.duration_days AS duration_days, c.total_amount AS total_amount, c.currency AS currency,
 [(c)-[:HAS_GOVERNING_LAW]->(gl:Location) | gl {.country, .state, .city, .address}][0] AS governing_law,
 COLLECT { MATCH (:Party)-[r:PARTY_TO]->(c) WITH r ORDER BY r.ord RETURN r {.name, .role, .country} } AS parties,
 COLLECT { MATCH (c)-[:HAS_CLAUSE]->(cl:Clause) WITH DISTINCT cl.type AS t ORDER BY t RETURN t } AS clause_types`

// grouping is how one group_by value finds its keys: an optional pattern
// from c and the key expression. multi groupings can put a contract in
// several groups (or one group several times), so rows are made distinct.
type grouping struct {
	pattern string
	key     string
	multi   bool
}

const effectiveYear = "substring({effective_date}, 0, 4)"

// groupings is the allow-list of aggregate groupings. Patterns and keys
// are templates of facts.cypher: an unverified value is in no group unless
// the filter includes unverified values.
var groupings = map[string]grouping{
	graph.GroupContractType:  {key: "{contract_type}"},
	graph.GroupEffectiveYear: {key: effectiveYear},
	graph.GroupEffectiveMonth: {
		key: "substring({effective_date}, 0, 7)",
	},
	graph.GroupEffectiveQuarter: {
		key: effectiveYear + " + '-Q' + toString((toInteger(substring({effective_date}, 5, 2)) + 2) / 3)",
	},
	graph.GroupEndYear:             {key: "substring({end_date}, 0, 4)"},
	graph.GroupParty:               {pattern: "MATCH (gp:Party)-[gr:PARTY_TO]->(c){verified_party}", key: "gp.name", multi: true},
	graph.GroupPartyCountry:        {pattern: "UNWIND {party_countries} AS pcountry", key: "pcountry"},
	graph.GroupGoverningLawCountry: {pattern: "MATCH (c)-[:HAS_GOVERNING_LAW]->(gl:Location){verified_law}", key: "gl.country"},
	graph.GroupGoverningLawState:   {pattern: "MATCH (c)-[:HAS_GOVERNING_LAW]->(gl:Location){verified_law}", key: "gl.state"},
	graph.GroupClauseType:          {pattern: "MATCH (c)-[:HAS_CLAUSE]->(gcl:Clause)", key: "gcl.type", multi: true},
	graph.GroupRenewalKind:         {key: "{renewal_kind}"},
}

// metrics is the allow-list of aggregate metrics over a group's contracts
// c, templates of facts.cypher (an unverified value is not measured). A
// sum over no values is null, as in SQL (Cypher's sum would say 0).
var metrics = map[string]string{
	graph.MetricCount:           "toFloat(count(c))",
	graph.MetricSumAmount:       "CASE WHEN count({total_amount}) = 0 THEN null ELSE toFloat(sum({total_amount})) END",
	graph.MetricAvgAmount:       "toFloat(avg({total_amount}))",
	graph.MetricMinAmount:       "toFloat(min({total_amount}))",
	graph.MetricMaxAmount:       "toFloat(max({total_amount}))",
	graph.MetricAvgDurationDays: "toFloat(avg({duration_days}))",
	graph.MetricMinDurationDays: "toFloat(min({duration_days}))",
	graph.MetricMaxDurationDays: "toFloat(max({duration_days}))",
}

// compileAggregate compiles q; see graph.AggregateQuery for its semantics.
// The statement returns one row: total (the number of groups) and groups
// (the first Limit of them as maps with key, count and value). When the
// row also has usable and it is false, the answer is
// compileAggregateBase's instead (see compileAmountAggregate).
func compileAggregate(q graph.AggregateQuery) (statement, error) {
	n, err := q.EffectiveLimit()
	if err != nil {
		return statement{}, err
	}
	dir := "DESC"
	if q.Asc {
		dir = "ASC"
	}
	if st, ok := compileAmountAggregate(q, n, dir); ok {
		return st, nil
	}
	if st, ok := compileDurationAggregate(q); ok {
		return st, nil
	}
	if st, ok := compileExtremeAggregate(q, n, dir); ok {
		return st, nil
	}
	return compileAggregateBase(q)
}

// compileAggregateBase is compileAggregate's statement from the contracts
// (or from the maintained counts) without the amount sums.
func compileAggregateBase(q graph.AggregateQuery) (statement, error) {
	return compileAggregateFrom(q, true)
}

// compileAggregateFrom is compileAggregateBase's statement, from the
// contracts alone unless counted.
func compileAggregateFrom(q graph.AggregateQuery, counted bool) (statement, error) {
	n, err := q.EffectiveLimit()
	if err != nil {
		return statement{}, err
	}
	metricName := q.Metric
	if metricName == "" {
		metricName = graph.MetricCount
	}
	metric, ok := metrics[metricName]
	if !ok {
		return statement{}, graph.UnknownValue("metric", q.Metric, graph.Metrics)
	}
	x := facts{q.IncludeUnverified}
	metric = x.cypher(metric)
	cur := x.cypher("coalesce({currency}, '')")
	p := params{}
	f, err := compileFilter(p, q.Filter, summaryAsSource)
	if err != nil {
		return statement{}, err
	}
	// Amounts are measured per currency: the currency is a second key.
	money := graph.AmountMetric(metricName)
	dir := "DESC"
	if q.Asc {
		dir = "ASC"
	}
	if q.GroupBy == "" && money {
		// One group per currency; "all" in no currency when none matches.
		return statement{Cypher: f.match() + " WITH " + cur + " AS cur, count(c) AS n, " + metric + " AS v" +
			" ORDER BY v IS NULL, v " + dir + ", cur ASC" +
			" WITH collect({key: 'all', currency: cur, count: n, value: v}) AS gs" +
			" WITH CASE size(gs) WHEN 0 THEN [{key: 'all', currency: '', count: 0, value: null}] ELSE gs END AS gs" +
			" RETURN size(gs) AS total, gs[0.." + p.add(n) + "] AS groups", Params: p}, nil
	}
	if q.GroupBy == "" {
		// One group over every matching contract, present even when none
		// matches: an aggregation without keys always yields one row.
		return statement{Cypher: f.match() + " WITH count(c) AS n, " + metric + " AS v" +
			" RETURN 1 AS total, [{key: 'all', count: n, value: v}] AS groups", Params: p}, nil
	}
	if st, ok := compileCountedAggregate(q, n, dir); ok && counted {
		return st, nil
	}
	g, ok := groupings[q.GroupBy]
	if !ok {
		return statement{}, graph.UnknownValue("group_by", q.GroupBy, graph.Groupings)
	}
	if f.law && (q.GroupBy == graph.GroupGoverningLawCountry || q.GroupBy == graph.GroupGoverningLawState) {
		// The source bound the governing law, verified unless unverified
		// values are included: group by it instead of expanding again.
		g.pattern, g.key = "", strings.Replace(g.key, "gl.", "fl.", 1)
	}
	g.pattern, g.key = x.cypher(g.pattern), x.cypher(g.key)
	var b strings.Builder
	b.WriteString(f.match())
	if g.pattern != "" {
		b.WriteString(" " + g.pattern)
	}
	if g.multi {
		b.WriteString(" WITH DISTINCT " + g.key + " AS k, c")
	} else {
		b.WriteString(" WITH " + g.key + " AS k, c")
	}
	b.WriteString(" WHERE k IS NOT NULL AND k <> ''")
	if money {
		b.WriteString(" WITH k, " + cur + " AS cur, count(c) AS n, " + metric + " AS v")
		b.WriteString(" ORDER BY v IS NULL, v " + dir + ", k " + dir + ", cur ASC")
		b.WriteString(" WITH collect({key: k, currency: cur, count: n, value: v}) AS gs")
	} else {
		b.WriteString(" WITH k, count(c) AS n, " + metric + " AS v")
		b.WriteString(" ORDER BY v IS NULL, v " + dir + ", k " + dir)
		b.WriteString(" WITH collect({key: k, count: n, value: v}) AS gs")
	}
	b.WriteString(" RETURN size(gs) AS total, gs[0.." + p.add(n) + "] AS groups")
	return statement{Cypher: b.String(), Params: p}, nil
}

// partySearch is a compiled party_search: the count and the examples.
type partySearch struct {
	count, examples statement
}

// compileParties compiles q. The examples come with their rank (the
// planner cannot sort a projection holding aggregating subqueries by a
// variable from before it), by which the caller orders them: parties by contract count descending (the
// default) or by name (ascending unless q.Desc), ties broken by name and
// then id ascending.
func compileParties(q graph.PartyQuery) (partySearch, error) {
	n, err := q.EffectiveLimit()
	if err != nil {
		return partySearch{}, err
	}
	var order string
	switch q.OrderBy {
	case "", "contract_count":
		order = "n DESC, p.name ASC, p.id ASC"
	case "name":
		order = "p.name ASC, p.id ASC"
		if q.Desc {
			order = "p.name DESC, p.id ASC"
		}
	default:
		return partySearch{}, graph.UnknownValue("order_by", q.OrderBy, graph.PartyOrders)
	}
	// build returns the source and conditions binding every matching party
	// p, with n its contract count unless counting.
	build := func(counting bool) (string, params) {
		p := params{}
		// The source is the most selective condition: a name (the text
		// index on match_text) or ids, else the country (the PARTY_TO
		// relationship index), else the minimum contract count (the
		// contract_count index), else every party.
		source := "MATCH (p:Party)"
		var conds []string
		if q.Name != "" {
			conds = append(conds, "p.match_text CONTAINS "+p.add(contract.MatchKey(q.Name)))
		}
		if len(q.IDs) > 0 {
			conds = append(conds, "p.id IN "+p.add(append([]string(nil), q.IDs...)))
		}
		if q.Country != "" {
			country := p.add(q.Country)
			if len(conds) == 0 {
				// A party may be party to several contracts from the country.
				// PARTY_TO only ever leads from a party to a contract, so
				// the labels need no test on each relationship.
				source = "MATCH (p)-[fr:PARTY_TO]->() WHERE fr.country = " + country + " WITH DISTINCT p"
			} else {
				conds = append(conds, "EXISTS { MATCH (p)-[fr:PARTY_TO]->(:Contract) WHERE fr.country = "+country+" }")
			}
		}
		if q.ContractType != "" {
			conds = append(conds, "EXISTS { MATCH (p)-[:PARTY_TO]->(fc:Contract) WHERE fc.contract_type = "+p.add(q.ContractType)+" }")
		}
		minContracts := p.add(q.MinContracts)
		if q.MinContracts > 0 {
			// contract_count is kept by every write (see put.go), so a
			// party without one has none.
			conds = append(conds, "p.contract_count >= "+minContracts)
		}
		where := ""
		if len(conds) > 0 {
			where = " WHERE " + strings.Join(conds, " AND ")
		}
		if counting && q.MinContracts <= 0 {
			// Every party counts: their contract counts need no reading.
			return source + where, p
		}
		return source + where +
			" WITH p, coalesce(p.contract_count, 0) AS n" +
			" WHERE n >= " + minContracts, p
	}
	countCypher, pc := build(true)
	exCypher, pe := build(false)
	lim := pe.add(n)
	return partySearch{
		count: statement{Cypher: countCypher + " RETURN count(p) AS total", Params: pc},
		examples: statement{Cypher: exCypher + " WITH p, n ORDER BY " + order + " LIMIT " + lim +
			" WITH collect({p: p, n: n}) AS ps UNWIND range(0, size(ps) - 1) AS i WITH i, ps[i].p AS p, ps[i].n AS n" +
			" RETURN i AS rank, p.id AS party_id, p.name AS name, n AS contract_count, coalesce(p.aliases, []) AS aliases," +
			// The most frequent country of its roles and the types of its
			// contracts, from its facets (aggregates.go).
			" COLLECT { WITH coalesce(p.facet_keys, []) AS ks, p.facet_roles AS rs UNWIND range(0, size(ks) - 1) AS j" +
			" WITH ks[j] AS fk, rs[j] AS m WHERE fk STARTS WITH " + pe.add(countryFacetID) + " AND m > 0" +
			" WITH substring(fk, " + strconv.Itoa(len(countryFacetID)) + ") AS country, m ORDER BY m DESC, country ASC RETURN country LIMIT 1 } AS country," +
			" COLLECT { WITH coalesce(p.facet_keys, []) AS ks, p.facet_roles AS rs UNWIND range(0, size(ks) - 1) AS j" +
			" WITH ks[j] AS fk, rs[j] AS m WHERE fk STARTS WITH " + pe.add(typeFacetKey) + " AND m > 0" +
			" WITH substring(fk, " + strconv.Itoa(len(typeFacetKey)) + ") AS t ORDER BY t RETURN t } AS contract_types", Params: pe},
	}, nil
}

// compileClauses compiles q: clause and chunk passages ranked by the
// full-text index (any word may match), best first, ties broken by contract
// id, offset and clause id. With ClauseTypes only clauses of those types or
// groups are searched (chunks have no type).
func compileClauses(q graph.ClauseQuery) (statement, error) {
	n, err := q.EffectiveLimit()
	if err != nil {
		return statement{}, err
	}
	lq := luceneQuery(q.Query, false)
	if lq == "" {
		return statement{}, graph.NoWords("query", q.Query)
	}
	p := params{}
	f, err := compileFilter(p, q.Filter, summaryAsCondition)
	if err != nil {
		return statement{}, err
	}
	var extra []string
	if len(q.ClauseTypes) > 0 {
		v := p.add(append([]string(nil), q.ClauseTypes...))
		extra = append(extra, "h:Clause", "(h.type IN "+v+" OR h.group IN "+v+")")
	}
	cypher := f.prelude +
		"CALL db.index.fulltext.queryNodes('" + passageTextIndex + "', " + p.add(lq) + ") YIELD node AS h, score" +
		" MATCH (c:Contract)-[:HAS_CLAUSE|HAS_CHUNK]->(h)" + f.where(extra...) +
		" WITH c, h, score, CASE WHEN h:Clause THEN h.id ELSE '' END AS clause_id" +
		" RETURN c.id AS contract_id, clause_id," +
		" CASE WHEN h:Clause THEN h.type ELSE '' END AS clause_type," +
		" coalesce(h.text, '') AS text," +
		" CASE WHEN h:Clause AND coalesce(h.text, '') = '' THEN coalesce(h.summary, '') ELSE '' END AS summary," +
		" h.start AS start, h.end AS end, coalesce(h.verified, false) AS verified, score" +
		" ORDER BY score DESC, contract_id ASC, start ASC, clause_id ASC LIMIT " + p.add(n)
	return statement{Cypher: cypher, Params: p}, nil
}

// statsStatements count nodes by label and relationships by type.
var statsStatements = []struct {
	nodes bool
	name  string
	st    statement
}{
	{true, "Contract", statement{Cypher: "MATCH (n:Contract) RETURN count(n) AS n"}},
	{true, "Party", statement{Cypher: "MATCH (n:Party) RETURN count(n) AS n"}},
	{true, "Location", statement{Cypher: "MATCH (n:Location) RETURN count(n) AS n"}},
	{true, "Clause", statement{Cypher: "MATCH (n:Clause) RETURN count(n) AS n"}},
	{true, "Chunk", statement{Cypher: "MATCH (n:Chunk) RETURN count(n) AS n"}},
	{true, "Statute", statement{Cypher: "MATCH (n:Statute) RETURN count(n) AS n"}},
	{false, "PARTY_TO", statement{Cypher: "MATCH ()-[r:PARTY_TO]->() RETURN count(r) AS n"}},
	{false, "HAS_LOCATION", statement{Cypher: "MATCH ()-[r:HAS_LOCATION]->() RETURN count(r) AS n"}},
	{false, "HAS_GOVERNING_LAW", statement{Cypher: "MATCH ()-[r:HAS_GOVERNING_LAW]->() RETURN count(r) AS n"}},
	{false, "HAS_CLAUSE", statement{Cypher: "MATCH ()-[r:HAS_CLAUSE]->() RETURN count(r) AS n"}},
	{false, "HAS_CHUNK", statement{Cypher: "MATCH ()-[r:HAS_CHUNK]->() RETURN count(r) AS n"}},
}

// partyNameKeysCypher lists every party's match keys (PartyNames).
const partyNameKeysCypher = `MATCH (p:Party) RETURN p.id AS id, p.name AS name, coalesce(p.match_keys, []) AS keys`

// getContractCypher reads one contract with all of its parts.
const getContractCypher = `MATCH (c:Contract {id: $id})
RETURN c {.*} AS c,
 [(c)-[:HAS_GOVERNING_LAW]->(gl:Location) | gl {.country, .state, .city, .address}][0] AS governing_law,
 COLLECT { MATCH (p:Party)-[r:PARTY_TO]->(c) OPTIONAL MATCH (l:Location {id: r.location_id})
   WITH p, r, l ORDER BY r.ord
   RETURN {party_id: p.id, name: r.name, role: r.role, location: l {.country, .state, .city, .address}} } AS parties,
 COLLECT { MATCH (c)-[:HAS_CLAUSE]->(cl:Clause) WITH cl ORDER BY cl.ord
   RETURN cl {.id, .type, .group, .summary, .text, .start, .end, .verified} } AS clauses,
 COLLECT { MATCH (c)-[:HAS_CHUNK]->(ch:Chunk) WITH ch ORDER BY ch.ord
   RETURN ch {.id, .ord, .text, .start, .end} } AS chunks`

// contractIDsCypher pages through contract ids in order.
const contractIDsCypher = `MATCH (c:Contract) WHERE c.id > $after RETURN c.id AS id ORDER BY id LIMIT $limit`
