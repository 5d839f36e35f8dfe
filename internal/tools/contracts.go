package tools

import (
	"context"
	"fmt"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/contractgraph/contractgraph/internal/graph"
)

// Names of the built-in tools.
const (
	NameContractSearch    = "contract_search"
	NameContractAggregate = "contract_aggregate"
	NamePartySearch       = "party_search"
	NameGetContract       = "get_contract"
	NameClauseSearch      = "clause_search"
)

const contractSearchDescription = `Find contracts matching filters. Returns total_count (the number of matching contracts) and up to limit examples, each with contract_id, title, contract_type, summary, scope, effective_date, end_date, duration, total_amount, currency, governing_law, parties (name, role, country) and clause_types. Use it to count contracts ("how many ..."), to list or look up contracts, and, with order_by, to find the earliest, latest, largest or longest ones. For sums, averages or breakdowns by category use contract_aggregate instead. Dates are YYYY-MM-DD; "active" is judged on as_of, which defaults to today.`

const contractAggregateDescription = `Compute statistics over the contracts matching the filters: the number of contracts, or the sum, average, minimum or maximum of total_amount or of duration in days, either over all of them (omit group_by: one group with key "all") or per group (contract type, effective year, month or quarter, end year, party, party country, governing-law country or state, clause type). Returns total_groups and groups [{key, value, count}] ordered by value (largest first unless order is asc); count is the number of contracts in the group. A contract with several parties or clause types counts in each of their groups. Use it for "which ... has the most", "total value of", "average duration of", "break down by".`

// Compact definitions (see Compact).
var (
	contractSearchCompact = Compact{
		Description: `Find and count contracts: total_count and up to limit examples (contract_id, title, type, dates, amount, parties). Dates YYYY-MM-DD, inclusive.`,
		Tune: func(s *jsonschema.Schema) {
			compactFilters(s, true)
			property(s, "offset").Maximum = nil // paging that far is not a small model's job
		},
	}
	contractAggregateCompact = Compact{
		Description: `Count contracts or sum/avg/min/max their amount or duration, overall or per group_by: groups [{key, value, count}], largest first.`,
		Tune: func(s *jsonschema.Schema) {
			compactFilters(s, false)
			// Converting currencies with a caller's rates is not a small
			// model's job: it keeps the groups per currency.
			delete(s.Properties, "convert_to")
			delete(s.Properties, "rates")
		},
	}
)

// ContractSearchInput is the input of contract_search.
type ContractSearchInput struct {
	Filters
	OrderBy string `json:"order_by,omitempty" jsonschema:"Sort key of the examples. Contracts without a value for it come last."`
	Order   string `json:"order,omitempty" jsonschema:"Sort direction: desc (default) or asc."`
	Limit   int    `json:"limit,omitempty" jsonschema:"How many example contracts to return. total_count always counts every match."`
	Offset  int    `json:"offset,omitempty" jsonschema:"For paging: skip this many matching contracts, in the order above, before the examples. Default 0; max 10000." compact:"for paging"`
}

// ContractAggregateInput is the input of contract_aggregate.
type ContractAggregateInput struct {
	Filters
	GroupBy string `json:"group_by,omitempty" jsonschema:"What to group the contracts by. Omit for a single group over all matching contracts. Keys: contract type name, year (2019), month (2019-10), quarter (2019-Q4), party name, ISO country code, state code."`
	Metric  string `json:"metric,omitempty" jsonschema:"What to compute per group: count (default) = number of contracts; sum_amount, avg_amount, min_amount, max_amount = over total_amount (contracts without an amount are skipped), never across currencies: each group comes once per currency, with its currency (filter by currency for one); avg_duration_days, min_duration_days, max_duration_days = over the contract term in days."`
	Order   string `json:"order,omitempty" jsonschema:"desc (default): largest value first; asc: smallest first."`
	Limit   int    `json:"limit,omitempty" jsonschema:"How many groups to return. total_groups always counts every group."`
	// ConvertTo and Rates convert amounts into one currency, only with
	// rates the caller gives.
	ConvertTo string             `json:"convert_to,omitempty" jsonschema:"Only with rates and sum_amount, min_amount or max_amount: give the amounts in this ISO 4217 currency, one group per key, converted with the rates given (never assumed). Without it amounts stay in their own currencies."`
	Rates     map[string]float64 `json:"rates,omitempty" jsonschema:"Only with convert_to: the exchange rates to use, as ISO 4217 code -> units of convert_to per unit, e.g. {\"EUR\": 1.08, \"CAD\": 0.73} for USD. Every currency of the matching amounts needs one."`
}

func tuneContractSearch(s *jsonschema.Schema) {
	tuneFilters(s)
	setEnum(s, "order_by", graph.ContractOrders)
	setDefault(s, "order_by", graph.OrderEffectiveDate)
	setEnum(s, "order", orders)
	setDefault(s, "order", "desc")
	setLimit(s, graph.ContractLimits)
	setRange(s, "offset", 0, graph.MaxOffset, 0)
}

func tuneContractAggregate(s *jsonschema.Schema) {
	tuneFilters(s)
	setEnum(s, "group_by", graph.Groupings)
	setEnum(s, "metric", graph.Metrics)
	setDefault(s, "metric", graph.MetricCount)
	setEnum(s, "order", orders)
	setDefault(s, "order", "desc")
	setLimit(s, graph.AggregateLimits)
}

// ContractSearch runs contract_search.
func (s *Set) ContractSearch(ctx context.Context, in ContractSearchInput) (graph.ContractResult, error) {
	if s.store == nil {
		return graph.ContractResult{}, errNoStore
	}
	q, err := s.contractQuery(in)
	if err != nil {
		return graph.ContractResult{}, err
	}
	var matches []graph.PartyMatch
	if q.Filter, matches, err = s.resolveParties(ctx, q.Filter); err != nil {
		return graph.ContractResult{}, fmt.Errorf("%s: %w", NameContractSearch, err)
	}
	var near []graph.SummaryHit
	if q.Filter, near, err = s.findSummaries(ctx, q.Filter); err != nil {
		return graph.ContractResult{}, fmt.Errorf("%s: %w", NameContractSearch, err)
	}
	res, err := s.store.SearchContracts(ctx, q)
	if err != nil {
		return graph.ContractResult{}, fmt.Errorf("%s: %w", NameContractSearch, err)
	}
	res.PartyMatches = matches
	res.SummaryByMeaning = near
	if res.Examples == nil {
		res.Examples = []graph.ContractSummary{}
	}
	return res, nil
}

func (s *Set) contractQuery(in ContractSearchInput) (graph.ContractQuery, error) {
	var q graph.ContractQuery
	var err error
	if q.Filter, err = s.filter(in.Filters); err != nil {
		return q, err
	}
	if q.OrderBy, err = parseEnum("order_by", in.OrderBy, graph.OrderEffectiveDate, graph.ContractOrders); err != nil {
		return q, err
	}
	if q.Desc, err = parseOrder("order", in.Order, true); err != nil {
		return q, err
	}
	if q.Limit, err = parseLimit("limit", in.Limit, graph.ContractLimits); err != nil {
		return q, err
	}
	if in.Offset < 0 || in.Offset > graph.MaxOffset {
		return q, &ArgError{Field: "offset", Msg: fmt.Sprintf("%d is out of range: give 0 to %d", in.Offset, graph.MaxOffset)}
	}
	q.Offset = in.Offset
	return q, nil
}

// ContractAggregate runs contract_aggregate.
func (s *Set) ContractAggregate(ctx context.Context, in ContractAggregateInput) (graph.AggregateResult, error) {
	if s.store == nil {
		return graph.AggregateResult{}, errNoStore
	}
	q, err := s.aggregateQuery(in)
	if err != nil {
		return graph.AggregateResult{}, err
	}
	conv, err := parseConversion(in.ConvertTo, in.Rates, q.Metric)
	if err != nil {
		return graph.AggregateResult{}, err
	}
	var matches []graph.PartyMatch
	if q.Filter, matches, err = s.resolveParties(ctx, q.Filter); err != nil {
		return graph.AggregateResult{}, fmt.Errorf("%s: %w", NameContractAggregate, err)
	}
	var near []graph.SummaryHit
	if q.Filter, near, err = s.findSummaries(ctx, q.Filter); err != nil {
		return graph.AggregateResult{}, fmt.Errorf("%s: %w", NameContractAggregate, err)
	}
	var res graph.AggregateResult
	if conv != nil {
		res, err = s.aggregateConverted(ctx, q, conv)
		if err != nil {
			return graph.AggregateResult{}, err
		}
	} else if res, err = s.store.AggregateContracts(ctx, q); err != nil {
		return graph.AggregateResult{}, fmt.Errorf("%s: %w", NameContractAggregate, err)
	}
	res.PartyMatches = matches
	res.SummaryByMeaning = near
	if res.Groups == nil {
		res.Groups = []graph.Group{}
	}
	return res, nil
}

func (s *Set) aggregateQuery(in ContractAggregateInput) (graph.AggregateQuery, error) {
	var q graph.AggregateQuery
	var err error
	if q.Filter, err = s.filter(in.Filters); err != nil {
		return q, err
	}
	if q.GroupBy, err = parseEnum("group_by", in.GroupBy, "", graph.Groupings); err != nil {
		return q, err
	}
	if q.Metric, err = parseEnum("metric", in.Metric, graph.MetricCount, graph.Metrics); err != nil {
		return q, err
	}
	desc, err := parseOrder("order", in.Order, true)
	if err != nil {
		return q, err
	}
	q.Asc = !desc
	if q.Limit, err = parseLimit("limit", in.Limit, graph.AggregateLimits); err != nil {
		return q, err
	}
	return q, nil
}
