package tools

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/contractgraph/contractgraph/internal/contract"
	"github.com/contractgraph/contractgraph/internal/graph"
)

// NameDeadlineSearch is the deadline tool's name.
const NameDeadlineSearch = "deadline_search"

const deadlineSearchDescription = `List what falls due between two dates, ordered by date: notice deadlines (the last day to give notice of non-renewal, or to exercise a renewal option), automatic renewals and expirations, worked out from each contract's end date, renewal kind, renewal term and notice period, with automatic renewals rolled forward term by term. Each deadline has contract_id, title, parties, kind, date, term (0 = the initial term), derivation (how the date was computed) and from (the values it was computed from, each with the verbatim evidence quote and its offsets). from defaults to as_of (today) and to to 90 days after from. Takes the same filters as contract_search: those listed here and the others (min_end_date, monetary_value, summary_search, ...). Use it for "what must we act on", "which contracts renew in the next six months and by when must we give notice".`

var deadlineSearchCompact = Compact{
	Description: `Notice deadlines, renewals and expirations by date, from..to (default next 90 days): contract_id, kind, date, derivation, evidence. Also takes contract_search's filters.`,
	Tune: func(s *jsonschema.Schema) {
		for _, name := range deadlineFilters {
			if name != "parties" && name != "renewal_kind" {
				delete(s.Properties, name)
			}
		}
	},
}

// DeadlineSearchInput is the input of deadline_search.
type DeadlineSearchInput struct {
	From  string   `json:"from,omitempty" jsonschema:"First day of the range (YYYY-MM-DD, inclusive). Defaults to as_of, which defaults to today."`
	To    string   `json:"to,omitempty" jsonschema:"Last day of the range (YYYY-MM-DD, inclusive). Defaults to 90 days after from; at most ten years after it."`
	Kinds []string `json:"kinds,omitempty" jsonschema:"Only these kinds of deadline: notice, renewal, expiration. Default: all."`
	Filters
	Limit int `json:"limit,omitempty" jsonschema:"How many deadlines to return. total_count always counts every deadline in the range."`
}

// deadlineFilters are the shared filters deadline_search's schema spells
// out; it takes the others too, as its description says, but they would
// double the schema for arguments rarely needed here.
var deadlineFilters = []string{"parties", "contract_type", "party_country", "governing_law_country", "governing_law_state", "renewal_kind", "as_of", "clause_types"}

func tuneDeadlineSearch(s *jsonschema.Schema) {
	tuneFilters(s)
	for _, name := range filterNames {
		if !slices.Contains(deadlineFilters, name) {
			delete(s.Properties, name)
		}
	}
	setDate(s, "from", "to")
	setEnum(s, "kinds", contract.DeadlineKinds)
	setLimit(s, graph.DeadlineLimits)
}

// errNoDeadlines is returned by deadline_search over a store that cannot
// search deadlines.
var errNoDeadlines = errors.New("the contract store does not search deadlines")

// DeadlineSearch runs deadline_search.
func (s *Set) DeadlineSearch(ctx context.Context, in DeadlineSearchInput) (graph.DeadlineResult, error) {
	if s.store == nil {
		return graph.DeadlineResult{}, errNoStore
	}
	ds, ok := s.store.(graph.DeadlineSearcher)
	if !ok {
		return graph.DeadlineResult{}, errNoDeadlines
	}
	q, err := s.DeadlineQuery(in)
	if err != nil {
		return graph.DeadlineResult{}, err
	}
	var matches []graph.PartyMatch
	if q.Filter, matches, err = s.resolveParties(ctx, q.Filter); err != nil {
		return graph.DeadlineResult{}, fmt.Errorf("%s: %w", NameDeadlineSearch, err)
	}
	var near []graph.SummaryHit
	if q.Filter, near, err = s.findSummaries(ctx, q.Filter); err != nil {
		return graph.DeadlineResult{}, fmt.Errorf("%s: %w", NameDeadlineSearch, err)
	}
	res, err := ds.SearchDeadlines(ctx, q)
	if err != nil {
		return graph.DeadlineResult{}, fmt.Errorf("%s: %w", NameDeadlineSearch, argError(err))
	}
	res.PartyMatches = matches
	res.SummaryByMeaning = near
	return res, nil
}

// DeadlineQuery validates in and fills its defaults: from is as_of, to
// is graph.DefaultDeadlineWindow days after from.
func (s *Set) DeadlineQuery(in DeadlineSearchInput) (graph.DeadlineQuery, error) {
	var q graph.DeadlineQuery
	var err error
	if q.Filter, err = s.filter(in.Filters); err != nil {
		return q, err
	}
	if q.From, err = viaGraph(graph.ParseDate("from", in.From)); err != nil {
		return q, err
	}
	if q.To, err = viaGraph(graph.ParseDate("to", in.To)); err != nil {
		return q, err
	}
	if q.From == "" {
		q.From = q.Filter.AsOf
	}
	if q.To == "" {
		from, _ := time.Parse(graph.DateLayout, q.From)
		q.To = from.AddDate(0, 0, graph.DefaultDeadlineWindow).Format(graph.DateLayout)
	}
	if len(in.Kinds) > len(contract.DeadlineKinds) {
		return q, &ArgError{Field: "kinds", Msg: fmt.Sprintf("%d entries; there are %d kinds", len(in.Kinds), len(contract.DeadlineKinds)), Valid: contract.DeadlineKinds}
	}
	for _, k := range in.Kinds {
		k = strings.ToLower(strings.TrimSpace(k))
		if !slices.Contains(contract.DeadlineKinds, k) {
			return q, &ArgError{Field: "kinds", Msg: fmt.Sprintf("unknown kind %q", k), Valid: contract.DeadlineKinds}
		}
		if !slices.Contains(q.Kinds, k) {
			q.Kinds = append(q.Kinds, k)
		}
	}
	if q.Limit, err = parseLimit("limit", in.Limit, graph.DeadlineLimits); err != nil {
		return q, err
	}
	return q, argError(q.Check())
}

var withinRe = regexp.MustCompile(`^(\d{1,4})\s*([dwmy]?)$`)

// WindowEnd is the last day of a window of within ("90d", "12w", "6m",
// "1y"; a bare number is days) from from (YYYY-MM-DD): the to of a
// deadline_search that looks within ahead.
func WindowEnd(from, within string) (string, error) {
	start, err := time.Parse(graph.DateLayout, from)
	if err != nil {
		return "", &ArgError{Field: "from", Msg: fmt.Sprintf("%q is not a date in the form YYYY-MM-DD", from)}
	}
	m := withinRe.FindStringSubmatch(strings.ToLower(strings.TrimSpace(within)))
	if m == nil {
		return "", &ArgError{Field: "within", Msg: fmt.Sprintf("%q is not a number of days, weeks, months or years such as 90d, 12w, 6m, 1y", within)}
	}
	n, _ := strconv.Atoi(m[1])
	var end time.Time
	switch m[2] {
	case "w":
		end = start.AddDate(0, 0, 7*n)
	case "m":
		end = start.AddDate(0, n, 0)
	case "y":
		end = start.AddDate(n, 0, 0)
	default:
		end = start.AddDate(0, 0, n)
	}
	return end.Format(graph.DateLayout), nil
}
