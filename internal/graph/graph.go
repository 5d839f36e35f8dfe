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
	"errors"

	"github.com/contractgraph/contractgraph/internal/contract"
)

// ErrNotFound is returned when a requested contract, party or statute does
// not exist.
var ErrNotFound = errors.New("not found")

// Filter is the set of shared contract filters of the tool API. The zero
// value matches every contract. All conditions are ANDed.
type Filter struct {
	MinEffectiveDate string // YYYY-MM-DD inclusive; "" = unbounded
	MaxEffectiveDate string
	MinEndDate       string
	MaxEndDate       string
	ContractType     string // canonical type
	// Parties: each entry must match some party of the contract whose name
	// or alias, reduced by contract.MatchKey, contains contract.MatchKey(entry).
	Parties             []string
	PartyCountry        string // ISO alpha-2: some party has a location in it
	GoverningLawCountry string // ISO alpha-2
	GoverningLawState   string // normalised (USPS code in the US)
	// Active, when set, keeps contracts whose end_date >= AsOf (true) or
	// < AsOf (false). Contracts without an end date match neither.
	Active *bool
	AsOf   string // YYYY-MM-DD, always set by the tools layer
	// Monetary compares total_amount; contracts without an amount never match.
	Monetary *Monetary
	// ClauseTypes: every entry must be present, as a clause type or group.
	ClauseTypes []string
	// SummarySearch is free text matched (full-text) against summary, scope and title.
	SummarySearch string
	// ContractIDs restricts to these ids when non-empty.
	ContractIDs []string
}

// Monetary is a comparison on a contract's total amount.
type Monetary struct {
	Op    string // one of = > < >= <=
	Value float64
}

// Contract orderings accepted by ContractQuery.OrderBy.
const (
	OrderEffectiveDate = "effective_date"
	OrderEndDate       = "end_date"
	OrderTotalAmount   = "total_amount"
	OrderDurationDays  = "duration_days"
	OrderPartyCount    = "party_count"
)

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
)

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

// AggregateQuery is a contract_aggregate call. A contract belongs to every
// group its grouping values put it in (a contract with parties in two
// countries counts in both); contracts with no value for the grouping are
// left out. Count is the number of distinct contracts in a group; Value is
// the metric over those contracts that have the measured field (nil when
// none has). Groups are ordered by value, then key, descending unless Asc,
// with nil values last.
type AggregateQuery struct {
	Filter
	GroupBy string
	Metric  string
	Asc     bool
	Limit   int // 1..100
}

// Group is one aggregate group.
type Group struct {
	Key   string   `json:"key"`
	Value *float64 `json:"value"`
	Count int      `json:"count"`
}

// AggregateResult is contract_aggregate's answer.
type AggregateResult struct {
	TotalGroups int     `json:"total_groups"`
	Groups      []Group `json:"groups"`
}

// PartyQuery is a party_search call.
type PartyQuery struct {
	Name         string // MatchKey containment on name or alias
	Country      string // ISO alpha-2
	ContractType string // the party is party to at least one contract of this type
	MinContracts int
	OrderBy      string // "contract_count" (default, desc) or "name" (asc)
	Desc         bool
	Limit        int // 1..50
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
}

// ClauseQuery is a clause_search call: full-text (BM25) ranking of clause
// and chunk passages, optionally restricted to contracts matching Filter.
type ClauseQuery struct {
	Query       string
	Filter      Filter   // ContractIDs restricts to one or more contracts
	ClauseTypes []string // restrict to clauses of these types or groups
	Limit       int      // 1..50
}

// ClauseHit is one ranked passage. Higher Score is better.
type ClauseHit struct {
	ContractID string  `json:"contract_id"`
	ClauseID   string  `json:"clause_id,omitempty"`
	ClauseType string  `json:"clause_type,omitempty"`
	Text       string  `json:"text"`
	Start      int     `json:"start"`
	End        int     `json:"end"`
	Verified   bool    `json:"verified"`
	Score      float64 `json:"score"`
}

// PutStatus says what writing one contract did.
type PutStatus string

// Put outcomes.
const (
	PutCreated   PutStatus = "created"
	PutUpdated   PutStatus = "updated"
	PutUnchanged PutStatus = "unchanged"
	PutFailed    PutStatus = "failed"
)

// PutOutcome is the result of writing one contract.
type PutOutcome struct {
	ID     string
	Status PutStatus
	Err    error // set when Status is PutFailed
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
	// relationships or none), replacing any stored contract with the same id.
	// Parties are merged by normalised name (and known aliases) across
	// contracts; a merged party is named by contract.PreferredName of its
	// spellings, so that its name does not depend on the order contracts
	// were put in, and its other spellings are its aliases. A contract identical to the stored one is PutUnchanged and
	// nothing is written. One contract's failure does not stop the others;
	// the returned error is only for failures of the store itself, such as a
	// cancelled context or a closed database.
	PutContracts(ctx context.Context, cs []*contract.Contract) ([]PutOutcome, error)

	// GetContract returns the full contract with parties, clauses, chunks
	// (without embeddings) and text, or ErrNotFound.
	GetContract(ctx context.Context, id string) (*contract.Contract, error)

	// Contracts calls fn for every stored contract in id order (the full
	// record, as GetContract returns it) until fn returns an error, which is
	// then returned.
	Contracts(ctx context.Context, fn func(*contract.Contract) error) error

	SearchContracts(ctx context.Context, q ContractQuery) (ContractResult, error)
	AggregateContracts(ctx context.Context, q AggregateQuery) (AggregateResult, error)
	SearchParties(ctx context.Context, q PartyQuery) (PartyResult, error)
	SearchClauses(ctx context.Context, q ClauseQuery) ([]ClauseHit, error)

	// Stats counts nodes and relationships.
	Stats(ctx context.Context) (Stats, error)

	// Close releases the store's resources.
	Close() error
}
