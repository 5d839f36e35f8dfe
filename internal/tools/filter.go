package tools

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/contractgraph/contractgraph/internal/contract"
	"github.com/contractgraph/contractgraph/internal/graph"
)

// Filters are the contract filters shared by contract_search,
// contract_aggregate and clause_search: graph.Filter itself, whose tags give
// the schema and whose Normalize validates, so that a filter is declared once.
type Filters = graph.Filter

// MonetaryValue compares a contract's total amount with Value.
type MonetaryValue = graph.Monetary

// Sort directions.
var orders = []string{"asc", "desc"}

// Input size limits.
const (
	maxTextArg    = graph.MaxTextArg
	maxIdentifier = graph.MaxIdentifier
)

// tuneFilters adds the enums and formats of the shared filters to a schema
// that embeds Filters.
func tuneFilters(s *jsonschema.Schema) {
	setDate(s, "min_effective_date", "max_effective_date", "min_end_date", "max_end_date", "as_of",
		"min_notice_deadline", "max_notice_deadline")
	setEnum(s, "contract_type", contract.ContractTypes)
	setEnum(s, "renewal_kind", contract.RenewalKinds)
	setEnum(s, "parties_match", graph.PartiesMatches)
	setEnum(s, "summary_match", graph.SummaryMatches)
	if _, ok := s.Properties["clause_types"]; ok {
		setEnum(s, "clause_types", contract.ClauseTypeNames())
	}
	mv := property(s, "monetary_value")
	setEnum(mv, "operator", graph.MonetaryOperators)
}

// filter validates and normalises f into a graph filter (graph.Filter.Normalize,
// with today as as_of's default).
func (s *Set) filter(f Filters) (graph.Filter, error) {
	g, err := f.Normalize(s.now().Format(graph.DateLayout))
	return g, argError(err)
}

// resolveParties makes f's parties entries typo-tolerant, unless the set
// was made with ExactParties (graph.PartyResolver), and returns what it
// matched them to.
func (s *Set) resolveParties(ctx context.Context, f graph.Filter) (graph.Filter, []graph.PartyMatch, error) {
	return s.parties.Resolve(ctx, f) // nil with ExactParties: f unchanged
}

// findSummaries adds the contracts that meet f's summary_search by meaning
// (Options.Summaries); f unchanged without a SummaryFinder.
func (s *Set) findSummaries(ctx context.Context, f graph.Filter) (graph.Filter, []graph.SummaryHit, error) {
	if s.summaries == nil || f.SummarySearch == "" {
		return f, nil, nil
	}
	return s.summaries.Find(ctx, f)
}

// argError turns the graph's *graph.ArgError into this package's *ArgError;
// other errors pass unchanged.
func argError(err error) error {
	var ge *graph.ArgError
	if errors.As(err, &ge) {
		return &ArgError{Field: ge.Field, Msg: ge.Msg, Valid: ge.Valid}
	}
	return err
}

// viaGraph passes on a graph parser's result with its error as an *ArgError.
func viaGraph[T any](v T, err error) (T, error) { return v, argError(err) }

// parseOrder returns whether the order is descending; "" gives def.
func parseOrder(field, v string, def bool) (bool, error) {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "":
		return def, nil
	case "asc":
		return false, nil
	case "desc":
		return true, nil
	}
	return false, &ArgError{Field: field, Msg: fmt.Sprintf("unknown order %q", v), Valid: orders}
}

// parseLimit applies l's default to 0, lowers a value above l.Max to l.Max
// and refuses a negative one. A limit bounds only how many examples come
// back, never a count or an aggregate, so asking for too many (small
// models write "limit": 100 for "how many") gets the most there are
// instead of a failed call.
func parseLimit(field string, v int, l graph.Limit) (int, error) {
	switch {
	case v == 0:
		return l.Default, nil
	case v < 0:
		return 0, &ArgError{Field: field, Msg: fmt.Sprintf("%d is out of range: give 1 to %d", v, l.Max)}
	case v > l.Max:
		return l.Max, nil
	}
	return v, nil
}

// parseBound applies l's default to 0 and refuses anything outside
// 1..l.Max: for bounds of the work a call does (clause_compare's
// max_clauses, examples, outliers, text_chars), which say what the caller
// gets, unlike a result limit.
func parseBound(field string, v int, l graph.Limit) (int, error) {
	if v > l.Max {
		return 0, &ArgError{Field: field, Msg: fmt.Sprintf("%d is out of range: give 1 to %d", v, l.Max)}
	}
	return parseLimit(field, v, l)
}

// parseEnum matches v case-insensitively against valid; "" gives def.
func parseEnum(field, v, def string, valid []string) (string, error) {
	v = strings.ToLower(strings.TrimSpace(v))
	if v == "" {
		return def, nil
	}
	if !slices.Contains(valid, v) {
		return "", &ArgError{Field: field, Msg: fmt.Sprintf("unknown value %q", v), Valid: valid}
	}
	return v, nil
}
