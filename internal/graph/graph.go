// Package graph defines the contract knowledge graph's storage interface, the
// typed queries the tools compile into, and their results. Backends live in
// subpackages (sqlite, neo4j) and all pass the conformance suite in graphtest.
//
// Query types carry already-validated, normalised values: the tools package
// turns a model's or a person's JSON arguments into them (parsing dates,
// mapping "New York" to "NY", contract types to their canonical names) so
// that backends only compile and run.
package graph

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/contractgraph/contractgraph/internal/contract"
)

// ErrNotFound is returned when a requested contract, party or statute does
// not exist.
var ErrNotFound = errors.New("not found")

// ErrInvalidQuery is matched (errors.Is) by every error a Store method
// returns for a query it refuses: an unknown order, grouping or metric, a
// limit or offset out of range, a free-text search with no searchable word.
// Such an error is the caller's mistake: the edges map it to exit code 2,
// HTTP 400 or an MCP tool error, never to an internal error.
var ErrInvalidQuery = errors.New("invalid query")

// Contract orderings accepted by ContractQuery.OrderBy.
const (
	OrderEffectiveDate = "effective_date"
	OrderEndDate       = "end_date"
	OrderTotalAmount   = "total_amount"
	OrderDurationDays  = "duration_days"
	OrderPartyCount    = "party_count"
)

// ContractOrders lists the orderings ContractQuery.OrderBy accepts; the
// tool schemas take their enums from it and every backend must serve each.
var ContractOrders = []string{OrderEffectiveDate, OrderEndDate, OrderTotalAmount, OrderDurationDays, OrderPartyCount}

// ContractQuery is a contract_search call. Results are ordered by OrderBy
// (nulls last in both directions) and then by id ascending, so every backend
// returns the same examples. With OrderBy empty the order is effective_date
// descending.
type ContractQuery struct {
	Filter
	OrderBy string
	Desc    bool
	Limit   int // 1..50
	// Offset skips that many rows of the ordered result before the examples
	// (0..MaxOffset), for paging; TotalCount still counts every match. The
	// id tie-break makes consecutive pages neither repeat nor miss a row.
	Offset int
}

// MaxOffset is the largest ContractQuery.Offset backends accept.
const MaxOffset = 10000

// ContractSummary is one example row of contract_search.
type ContractSummary struct {
	ContractID    string             `json:"contract_id"`
	Title         string             `json:"title,omitempty"`
	ContractType  string             `json:"contract_type,omitempty"`
	Summary       string             `json:"summary,omitempty"`
	Scope         string             `json:"scope,omitempty"`
	EffectiveDate string             `json:"effective_date,omitempty"`
	EndDate       string             `json:"end_date,omitempty"`
	Duration      string             `json:"duration,omitempty"`
	DurationDays  *int               `json:"duration_days,omitempty"`
	TotalAmount   *float64           `json:"total_amount,omitempty"`
	Currency      string             `json:"currency,omitempty"`
	GoverningLaw  *contract.Location `json:"governing_law,omitempty"`
	Parties       []PartyRef         `json:"parties"`
	ClauseTypes   []string           `json:"clause_types"`
	// Unverified lists the values above whose evidence could not be
	// verified (contract.UnverifiedValues), shown whether or not the query
	// used them (Filter.IncludeUnverified).
	Unverified []contract.Unverified `json:"unverified,omitempty"`
}

// PartyRef is a party as listed on a contract summary.
type PartyRef struct {
	Name    string `json:"name"`
	Role    string `json:"role,omitempty"`
	Country string `json:"country,omitempty"`
}

// ContractResult is contract_search's answer: the total number of matches
// plus a few examples.
type ContractResult struct {
	TotalCount int               `json:"total_count"`
	Examples   []ContractSummary `json:"examples"`
	// PartyMatches, set by the tools, say which stored parties the parties
	// entries that no party name contains were matched to by typo
	// tolerance (ResolveParties).
	PartyMatches []PartyMatch `json:"party_matches,omitempty"`
	// SummaryByMeaning, set by the tools when the store keeps summary
	// embeddings, are the contracts summary_search found by meaning
	// (Filter.SummaryIDs) with their similarity, best first; others meet
	// it by its words.
	SummaryByMeaning []SummaryHit `json:"summary_by_meaning,omitempty"`
}

// Aggregate groupings accepted by AggregateQuery.GroupBy ("" = one group "all").
const (
	GroupContractType        = "contract_type"
	GroupEffectiveYear       = "effective_year"
	GroupEffectiveMonth      = "effective_month"   // key "2019-10"
	GroupEffectiveQuarter    = "effective_quarter" // key "2019-Q4"
	GroupEndYear             = "end_year"
	GroupParty               = "party" // key: canonical party name
	GroupPartyCountry        = "party_country"
	GroupGoverningLawCountry = "governing_law_country"
	GroupGoverningLawState   = "governing_law_state"
	GroupClauseType          = "clause_type"
	GroupRenewalKind         = "renewal_kind" // contract.RenewalKinds; contracts without one are left out
)

// Groupings lists the groupings AggregateQuery.GroupBy accepts (besides "").
var Groupings = []string{
	GroupContractType, GroupEffectiveYear, GroupEffectiveMonth, GroupEffectiveQuarter, GroupEndYear,
	GroupParty, GroupPartyCountry, GroupGoverningLawCountry, GroupGoverningLawState, GroupClauseType,
	GroupRenewalKind,
}

// Aggregate metrics accepted by AggregateQuery.Metric.
const (
	MetricCount           = "count"
	MetricSumAmount       = "sum_amount"
	MetricAvgAmount       = "avg_amount"
	MetricMinAmount       = "min_amount"
	MetricMaxAmount       = "max_amount"
	MetricAvgDurationDays = "avg_duration_days"
	MetricMinDurationDays = "min_duration_days"
	MetricMaxDurationDays = "max_duration_days"
)

// Metrics lists the metrics AggregateQuery.Metric accepts.
var Metrics = []string{
	MetricCount, MetricSumAmount, MetricAvgAmount, MetricMinAmount, MetricMaxAmount,
	MetricAvgDurationDays, MetricMinDurationDays, MetricMaxDurationDays,
}

// AggregateQuery is a contract_aggregate call. A contract belongs to every
// group its grouping values put it in (a contract with parties in two
// countries counts in both); contracts with no value for the grouping are
// left out. With an amount metric (AmountMetric), a group is a grouping
// value and a currency: amounts in different currencies are never summed,
// averaged or compared, and each group says its Currency. Count is the
// number of distinct contracts in a group; Value is the metric over those
// contracts that have the measured field (nil when none has). Groups are
// ordered by value, then key, descending unless Asc, with nil values last,
// then by currency ascending.
type AggregateQuery struct {
	Filter
	GroupBy string
	Metric  string
	Asc     bool
	Limit   int // 1..100
}

// Group is one aggregate group.
type Group struct {
	Key string `json:"key"`
	// Currency is set for the amount metrics only (sum_amount,
	// avg_amount, min_amount, max_amount), which never combine currencies:
	// each key has one group per ISO 4217 currency of its contracts, ""
	// for contracts whose amounts name none.
	Currency *string  `json:"currency,omitempty"`
	Value    *float64 `json:"value"`
	Count    int      `json:"count"`
}

// AmountMetric reports whether metric measures amounts of money, which
// aggregates group by currency.
func AmountMetric(metric string) bool {
	switch metric {
	case MetricSumAmount, MetricAvgAmount, MetricMinAmount, MetricMaxAmount:
		return true
	}
	return false
}

// AggregateResult is contract_aggregate's answer.
type AggregateResult struct {
	TotalGroups int     `json:"total_groups"`
	Groups      []Group `json:"groups"`
	// Conversion, set when the caller asked for amounts in one currency,
	// says into which and by what rates (given by the caller, never
	// assumed); every group's Currency is then To.
	Conversion *Conversion `json:"conversion,omitempty"`
	// PartyMatches and SummaryByMeaning are as in ContractResult.
	PartyMatches     []PartyMatch `json:"party_matches,omitempty"`
	SummaryByMeaning []SummaryHit `json:"summary_by_meaning,omitempty"`
}

// Conversion is the currency and rate table an aggregate converted its
// amounts with: units of To per unit of each currency.
type Conversion struct {
	To    string             `json:"to"`
	Rates map[string]float64 `json:"rates"`
}

// Party orderings accepted by PartyQuery.OrderBy.
const (
	PartyOrderContractCount = "contract_count"
	PartyOrderName          = "name"
)

// PartyOrders lists the orderings PartyQuery.OrderBy accepts (besides "").
var PartyOrders = []string{PartyOrderContractCount, PartyOrderName}

// PartyQuery is a party_search call.
type PartyQuery struct {
	Name         string // MatchKey containment on name or alias
	Country      string // ISO alpha-2
	ContractType string // the party is party to at least one contract of this type
	MinContracts int
	OrderBy      string // "contract_count" (default, desc) or "name" (asc)
	Desc         bool
	Limit        int // 1..50
	// IDs, when set, keeps only these parties: typo-tolerant matching
	// resolves a Name that no party contains to them. It is not a tool
	// argument.
	IDs []string
}

// PartySummary is one example row of party_search. Ties in the order are
// broken by name ascending.
type PartySummary struct {
	PartyID       string   `json:"party_id"`
	Name          string   `json:"name"`
	Aliases       []string `json:"aliases"`
	Country       string   `json:"country,omitempty"` // most frequent location country
	ContractCount int      `json:"contract_count"`
	ContractTypes []string `json:"contract_types"`
}

// PartyResult is party_search's answer.
type PartyResult struct {
	TotalCount int            `json:"total_count"`
	Examples   []PartySummary `json:"examples"`
	// PartyMatches, set by the tools, say which stored parties a name that
	// no party contains was matched to by typo tolerance.
	PartyMatches []PartyMatch `json:"party_matches,omitempty"`
}

// ClauseQuery is a clause_search call: full-text (BM25) ranking of clause
// and chunk passages, optionally restricted to contracts matching Filter.
type ClauseQuery struct {
	Query       string
	Filter      Filter   // ContractIDs restricts to one or more contracts
	ClauseTypes []string // restrict to clauses of these types or groups
	Limit       int      // 1..50
}

// ClauseHit is one ranked passage. Higher Score is better. Text is the
// contract's own words at Start:End. A clause whose words were never
// located in a text (the reference extraction gives only LLM-written
// summaries) has no Text but its Summary, and no span: its JSON leaves
// text, start and end out, so that a summary is never taken for a quote.
type ClauseHit struct {
	ContractID string  `json:"contract_id"`
	ClauseID   string  `json:"clause_id,omitempty"`
	ClauseType string  `json:"clause_type,omitempty"`
	Text       string  `json:"text"`
	Summary    string  `json:"summary,omitempty"`
	Start      int     `json:"start"`
	End        int     `json:"end"`
	Verified   bool    `json:"verified"`
	Score      float64 `json:"score"`
	// Section is the enclosing section of a located passage (its heading
	// and byte span in the contract text), when the searcher was asked for
	// it and the passage is not already the whole section. Stores leave it
	// nil.
	Section *Section `json:"section,omitempty"`
}

// Section is the numbered or titled section of a contract text that holds a
// passage: from its heading to the next heading of the same or a higher
// level. get_contract's text_offset reads it.
type Section struct {
	Heading string `json:"heading"`
	Start   int    `json:"start"`
	End     int    `json:"end"`
}

// SummaryOnly reports whether the hit is a clause's summary rather than
// words of the contract.
func (h ClauseHit) SummaryOnly() bool { return h.Text == "" && h.Summary != "" }

// Passage is what the hit says: its text, or its summary for a
// summary-only clause. Rankers score it.
func (h ClauseHit) Passage() string {
	if h.SummaryOnly() {
		return h.Summary
	}
	return h.Text
}

// MarshalJSON leaves text, start and end out of a summary-only hit.
func (h ClauseHit) MarshalJSON() ([]byte, error) {
	type plain ClauseHit
	if !h.SummaryOnly() {
		return json.Marshal(plain(h))
	}
	return json.Marshal(struct {
		ContractID string  `json:"contract_id"`
		ClauseID   string  `json:"clause_id,omitempty"`
		ClauseType string  `json:"clause_type,omitempty"`
		Summary    string  `json:"summary"`
		Verified   bool    `json:"verified"`
		Score      float64 `json:"score"`
	}{h.ContractID, h.ClauseID, h.ClauseType, h.Summary, h.Verified, h.Score})
}

// PutStatus says what writing one contract did.
type PutStatus string

// Put outcomes.
const (
	PutCreated   PutStatus = "created"
	PutUpdated   PutStatus = "updated"
	PutUnchanged PutStatus = "unchanged"
	PutFailed    PutStatus = "failed"
	// PutMerged: the stored version, from another source, was combined
	// with the new one field by field (contract.Merge), and something of
	// it survives; PutOutcome.Merge says what.
	PutMerged PutStatus = "merged"
)

// PutOutcome is the result of writing one contract.
type PutOutcome struct {
	ID     string
	Status PutStatus
	Err    error // set when Status is PutFailed
	// Merge is set when Status is PutMerged: what of the stored version
	// survived and which fields conflicted.
	Merge *contract.MergeReport
}

// Stats counts nodes by label and relationships by type, using the schema's
// names (Contract, Party, Location, Clause, Chunk, Statute; PARTY_TO,
// HAS_LOCATION, HAS_GOVERNING_LAW, HAS_CLAUSE, HAS_CHUNK).
type Stats struct {
	Nodes         map[string]int `json:"nodes"`
	Relationships map[string]int `json:"relationships"`
}

// Store is the contract graph. Implementations are safe for concurrent use.
type Store interface {
	// PutContracts writes each contract atomically (all of its nodes and
	// relationships or none). A contract with the id of a stored one is
	// combined with it by MergeStored: the new record replaces what its own
	// source said before and fills in or outranks the other sources'
	// values field by field, so that no source's values are silently lost.
	// Parties are merged by normalised name (and known aliases) across
	// contracts; a merged party is named by contract.PreferredName of its
	// spellings, so that its name does not depend on the order contracts
	// were put in, and its other spellings are its aliases. A contract identical to the stored one is PutUnchanged and
	// nothing is written. One contract's failure does not stop the others;
	// the returned error is only for failures of the store itself, such as a
	// cancelled context or a closed database.
	PutContracts(ctx context.Context, cs []*contract.Contract) ([]PutOutcome, error)

	// GetContract returns the full contract with parties, clauses, chunks
	// (without embeddings) and text, or an error wrapping ErrNotFound that
	// names the id.
	GetContract(ctx context.Context, id string) (*contract.Contract, error)

	// Contracts calls fn for every stored contract in id order (the full
	// record, as GetContract returns it) until fn returns an error, which is
	// then returned.
	Contracts(ctx context.Context, fn func(*contract.Contract) error) error

	// SearchContracts answers contract_search: the number of contracts q
	// matches and a page of them. A query the store refuses (an unknown
	// order, a limit or offset out of range, a summary search without a
	// searchable word, an invalid monetary comparison) is an error matching
	// ErrInvalidQuery; any other error is the store's failure.
	SearchContracts(ctx context.Context, q ContractQuery) (ContractResult, error)

	// AggregateContracts answers contract_aggregate. Refused queries (an
	// unknown grouping or metric, a limit out of range, an invalid filter)
	// match ErrInvalidQuery.
	AggregateContracts(ctx context.Context, q AggregateQuery) (AggregateResult, error)

	// SearchParties answers party_search. Refused queries (an unknown
	// order, a limit out of range) match ErrInvalidQuery.
	SearchParties(ctx context.Context, q PartyQuery) (PartyResult, error)

	// SearchClauses answers clause_search by BM25. A query without a
	// searchable word, a limit out of range or an invalid filter matches
	// ErrInvalidQuery. Contract ids in q.Filter that do not exist match
	// nothing; they are not an error.
	SearchClauses(ctx context.Context, q ClauseQuery) ([]ClauseHit, error)

	// Stats counts nodes and relationships; errors are the store's failures.
	Stats(ctx context.Context) (Stats, error)

	// Close releases the store's resources.
	Close() error
}

// PreparedPutter is a Store that writes contracts its caller already ran
// through Prepare (an importer that validates with it), so that a bulk
// import prepares each contract once instead of twice.
type PreparedPutter interface {
	// PutPrepared is PutContracts for prepared contracts: each
	// Prepared.Contract is written as PutContracts would write the
	// contract it was prepared from, with the same outcomes and errors. A
	// nil entry fails alone. The caller must not change a Prepared or
	// its contract until PutPrepared returns.
	PutPrepared(ctx context.Context, ps []*Prepared) ([]PutOutcome, error)
}

// ContractDeleter is a Store that deletes contracts.
type ContractDeleter interface {
	// DeleteContracts removes each stored contract of ids with its
	// clauses, chunks, evidence, text and party roles, and the parties and
	// locations that no remaining contract uses, and returns the ids it
	// deleted, in the order given. Ids not stored are skipped; they are not
	// an error. All of it happens in one transaction: on an error (the
	// store's failure or a cancelled context) nothing is deleted.
	DeleteContracts(ctx context.Context, ids []string) ([]string, error)
}

// ContractPages are the pages a contract's text was read from, page by
// page, because OCR recognised some of them. SHA256 is the hash of the
// source file they were read from: offsets in Pages refer to the text of
// the contract stored with that hash, and a reader shows them only when
// the stored contract's SHA256 is the same.
type ContractPages struct {
	ContractID string          `json:"contract_id"`
	SHA256     string          `json:"sha256"`
	Pages      []contract.Page `json:"pages"`
}

// PageStore is a Store that keeps contracts' pages (their OCR words,
// boxes, confidence and page images) for the contract page's scan view.
type PageStore interface {
	// PutPages replaces the pages stored for a contract with pages (with
	// their images); no pages deletes them. It does not check that the
	// contract is stored.
	PutPages(ctx context.Context, p ContractPages) error
	// Pages returns a contract's pages without their images, and
	// ErrNotFound when none are stored.
	Pages(ctx context.Context, contractID string) (*ContractPages, error)
	// PageImage returns the PNG of one page (numbered from 1), and
	// ErrNotFound when that page has no stored image.
	PageImage(ctx context.Context, contractID string, page int) ([]byte, error)
}
