package graph

import "fmt"

// Limit is a result size bound: Default when a query leaves it zero, at
// most Max. These are the only declarations of the tools' defaults and
// maximums: the tool schemas, the argument parsers and every backend read
// them, and a test compares the schemas with them.
type Limit struct {
	Default, Max int
}

// Result size bounds of the typed queries.
var (
	ContractLimits  = Limit{Default: 5, Max: 50}
	AggregateLimits = Limit{Default: 10, Max: 100}
	PartyLimits     = Limit{Default: 10, Max: 50}
	ClauseLimits    = Limit{Default: 5, Max: 50}
	// StatuteLimits bound statute_search's results.
	StatuteLimits = Limit{Default: 5, Max: 20}
	// StatuteStoreLimits bound what a StatuteStore's searches return: up
	// to 50, the depth hybrid statute_search fuses.
	StatuteStoreLimits = Limit{Default: 5, Max: 50}
	// clauseCandidateLimits bound what a store's clause search returns:
	// up to MaxClauseCandidates.
	clauseCandidateLimits = Limit{Default: ClauseLimits.Default, Max: MaxClauseCandidates}
)

// Apply returns n, or Default when n is zero; an error matching
// ErrInvalidQuery outside 1..Max.
func (l Limit) Apply(n int) (int, error) {
	switch {
	case n == 0:
		return l.Default, nil
	case n < 0 || n > l.Max:
		return 0, fmt.Errorf("%w: limit %d out of range 1..%d", ErrInvalidQuery, n, l.Max)
	}
	return n, nil
}

// EffectiveLimit returns the number of examples to return (see
// ContractLimits); an error when Offset is outside 0..MaxOffset.
func (q ContractQuery) EffectiveLimit() (int, error) {
	if q.Offset < 0 || q.Offset > MaxOffset {
		return 0, fmt.Errorf("%w: offset %d out of range 0..%d", ErrInvalidQuery, q.Offset, MaxOffset)
	}
	return ContractLimits.Apply(q.Limit)
}

// EffectiveLimit returns the number of groups to return (see AggregateLimits).
func (q AggregateQuery) EffectiveLimit() (int, error) { return AggregateLimits.Apply(q.Limit) }

// EffectiveLimit returns the number of examples to return (see PartyLimits).
func (q PartyQuery) EffectiveLimit() (int, error) { return PartyLimits.Apply(q.Limit) }

// MaxClauseCandidates is the largest ClauseQuery.Limit a store accepts:
// more than a tool caller may ask for (ClauseLimits.Max), because hybrid
// retrieval ranks the passages of a whole contract itself and asks for
// that many candidates.
const MaxClauseCandidates = 200

// EffectiveLimit returns the number of passages to return: ClauseLimits'
// default when zero, at most MaxClauseCandidates.
func (q ClauseQuery) EffectiveLimit() (int, error) {
	return clauseCandidateLimits.Apply(q.Limit)
}

// EffectiveLimit returns the number of chunks to return (see ClauseLimits).
func (q VectorQuery) EffectiveLimit() (int, error) { return ClauseLimits.Apply(q.Limit) }

// EffectiveLimit returns how many statutes SearchStatutes returns (see
// StatuteStoreLimits).
func (q StatuteQuery) EffectiveLimit() (int, error) { return StatuteStoreLimits.Apply(q.Limit) }

// StatuteVectorLimit checks SearchStatuteVectors' limit, which has no
// default: an error matching ErrInvalidQuery outside 1..StatuteStoreLimits.Max.
func StatuteVectorLimit(n int) (int, error) {
	if n == 0 {
		return 0, fmt.Errorf("%w: limit 0 out of range 1..%d", ErrInvalidQuery, StatuteStoreLimits.Max)
	}
	return StatuteStoreLimits.Apply(n)
}
