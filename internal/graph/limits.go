package graph

import "fmt"

// Default and maximum result sizes every backend applies. A zero Limit means
// the default; the tools layer normally fills it in.
const (
	defaultContractLimit  = 5
	maxContractLimit      = 50
	defaultAggregateLimit = 10
	maxAggregateLimit     = 100
	defaultPartyLimit     = 10
	maxPartyLimit         = 50
	defaultClauseLimit    = 5
	maxClauseLimit        = 50
)

func limit(n, def, maxN int) (int, error) {
	switch {
	case n == 0:
		return def, nil
	case n < 0 || n > maxN:
		return 0, fmt.Errorf("limit %d out of range 1..%d", n, maxN)
	}
	return n, nil
}

// EffectiveLimit returns the number of examples to return: Limit, or 5 when
// zero; an error outside 1..50, or when Offset is outside 0..MaxOffset.
func (q ContractQuery) EffectiveLimit() (int, error) {
	if q.Offset < 0 || q.Offset > MaxOffset {
		return 0, fmt.Errorf("offset %d out of range 0..%d", q.Offset, MaxOffset)
	}
	return limit(q.Limit, defaultContractLimit, maxContractLimit)
}

// EffectiveLimit returns the number of groups to return: Limit, or 10 when
// zero; an error outside 1..100.
func (q AggregateQuery) EffectiveLimit() (int, error) {
	return limit(q.Limit, defaultAggregateLimit, maxAggregateLimit)
}

// EffectiveLimit returns the number of examples to return: Limit, or 10 when
// zero; an error outside 1..50.
func (q PartyQuery) EffectiveLimit() (int, error) {
	return limit(q.Limit, defaultPartyLimit, maxPartyLimit)
}

// EffectiveLimit returns the number of passages to return: Limit, or 5 when
// zero; an error outside 1..50.
func (q ClauseQuery) EffectiveLimit() (int, error) {
	return limit(q.Limit, defaultClauseLimit, maxClauseLimit)
}

// ClauseLimit applies clause_search's default and maximum to n, for searches
// (such as vector search) that rank passages without a ClauseQuery.
func ClauseLimit(n int) (int, error) {
	return limit(n, defaultClauseLimit, maxClauseLimit)
}
