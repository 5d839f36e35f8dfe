package graph

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/contractgraph/contractgraph/internal/contract"
)

// DeadlineLimits bound deadline_search's results.
var DeadlineLimits = Limit{Default: 20, Max: 500}

// DefaultDeadlineWindow is how many days after From a DeadlineQuery
// without To reaches.
const DefaultDeadlineWindow = 90

// MaxDeadlineWindow bounds a query's range: ten years of deadlines.
const MaxDeadlineWindow = 3660

// DeadlineQuery is a deadline_search call: the notice deadlines, renewals
// and expirations (contract.DeadlineKinds) from From to To (inclusive,
// YYYY-MM-DD) of the contracts Filter keeps, ordered by date, then kind
// (notice first), then contract id. Kinds restricts the kinds (none: all).
type DeadlineQuery struct {
	Filter
	From, To string
	Kinds    []string
	Limit    int // 1..DeadlineLimits.Max
}

// EffectiveLimit returns the number of deadlines to return (see DeadlineLimits).
func (q DeadlineQuery) EffectiveLimit() (int, error) { return DeadlineLimits.Apply(q.Limit) }

// Check validates the range and kinds a backend is given; an error
// matching ErrInvalidQuery.
func (q DeadlineQuery) Check() error {
	from, err := ParseDate("from", q.From)
	if err != nil {
		return err
	}
	to, err := ParseDate("to", q.To)
	if err != nil {
		return err
	}
	if from == "" || to == "" {
		return &ArgError{Field: "from", Msg: "from and to are both required"}
	}
	if to < from {
		return &ArgError{Field: "to", Msg: fmt.Sprintf("%s is before from %s", to, from)}
	}
	if n, _ := contract.DaysBetween(from, to); n > MaxDeadlineWindow {
		return &ArgError{Field: "to", Msg: fmt.Sprintf("%d days after from, more than the limit of %d", n, MaxDeadlineWindow)}
	}
	for _, k := range q.Kinds {
		if !slices.Contains(contract.DeadlineKinds, k) {
			return UnknownValue("kinds", k, contract.DeadlineKinds)
		}
	}
	return nil
}

// DeadlineHit is one deadline of one contract, with how its date was
// derived and from which values and evidence spans.
type DeadlineHit struct {
	ContractID string          `json:"contract_id"`
	Title      string          `json:"title,omitempty"`
	Parties    []string        `json:"parties"`
	Kind       string          `json:"kind"`
	Date       string          `json:"date"`
	Term       int             `json:"term"`
	Derivation string          `json:"derivation"`
	From       []contract.Fact `json:"from"`
}

// DeadlineResult is deadline_search's answer: how many deadlines the range
// holds and the first Limit of them.
type DeadlineResult struct {
	TotalCount int           `json:"total_count"`
	From       string        `json:"from"`
	To         string        `json:"to"`
	Deadlines  []DeadlineHit `json:"deadlines"`
	// PartyMatches and SummaryByMeaning are as in ContractResult.
	PartyMatches     []PartyMatch `json:"party_matches,omitempty"`
	SummaryByMeaning []SummaryHit `json:"summary_by_meaning,omitempty"`
}

// DeadlineSearcher is a store that answers deadline_search.
type DeadlineSearcher interface {
	// SearchDeadlines lists q's deadlines. An invalid range, kind, limit or
	// filter matches ErrInvalidQuery; other errors are the store's.
	SearchDeadlines(ctx context.Context, q DeadlineQuery) (DeadlineResult, error)
}

// DeadlineBounds are what a store keeps of a contract's timeline so that a
// date-range query reads only the timelines that can reach it:
// contract.Timeline.Bounds of the stored values (first "" when the
// contract has no dated deadline, last "" when it has no last one). A
// timeline can have a deadline from lo to hi only when first <= hi and
// (last is "" or last >= lo).
//
// With unverified timeline values (contract.UnverifiedValues) the bounds
// cover both the timeline with them and the one without them, so that the
// stored bounds hold whichever a query reads (Filter.IncludeUnverified).
func DeadlineBounds(c *contract.Contract) (first, last string) {
	return deadlineBounds(c, contract.UnverifiedValues(c))
}

// DeadlineBounds returns DeadlineBounds(p.Contract) from the unverified
// values Prepare found, without looking for them again.
func (p *Prepared) DeadlineBounds() (first, last string) {
	return deadlineBounds(p.Contract, p.Unverified)
}

func deadlineBounds(c *contract.Contract, list []contract.Unverified) (first, last string) {
	first, last = contract.TimelineOf(c).Bounds()
	if len(list) == 0 {
		return first, last
	}
	f2, l2 := contract.TimelineOf(contract.WithoutUnverified(c, list)).Bounds()
	switch {
	case f2 == "":
		return first, last
	case first == "":
		return f2, l2
	}
	first = min(first, f2)
	if last != "" && (l2 == "" || l2 > last) {
		last = l2
	}
	return first, last
}

// NoticeRange returns the range f's notice-deadline filter asks for (open
// ends filled with the first and last day representable), and whether it
// asks for one.
func (f Filter) NoticeRange() (lo, hi string, ok bool) {
	if f.MinNoticeDeadline == "" && f.MaxNoticeDeadline == "" {
		return "", "", false
	}
	lo, hi = f.MinNoticeDeadline, f.MaxNoticeDeadline
	if lo == "" {
		lo = "0001-01-01"
	}
	if hi == "" {
		hi = "9999-12-31"
	}
	return lo, hi, true
}

// HasNoticeDeadline reports whether c's timeline has a notice deadline
// from lo to hi (inclusive), rolling automatic renewals forward. Backends
// call it on the candidates their stored bounds keep, so that both decide
// alike.
func HasNoticeDeadline(c *contract.Contract, lo, hi string) bool {
	// The dated deadlines, not the described state AsOf(lo) gives (the
	// first notice deadline on or after lo, with its derivation): a
	// filter tests a quarter of a million timelines in a store of a
	// million contracts. TestHasNoticeDeadlineAsOf checks the two agree.
	ds, err := contract.TimelineOf(c).DeadlineDates(lo, hi)
	return err == nil && slices.ContainsFunc(ds, func(d contract.DatedDeadline) bool { return d.Kind == contract.DeadlineNotice })
}

// noContract is the ContractIDs restriction that no contract matches:
// stored ids are never empty (Prepare rejects them).
var noContract = []string{""}

// WithNoticeMatches returns f with its notice-deadline range replaced by
// the ids that have such a deadline, intersected with any ContractIDs
// restriction already there; a backend that cannot test the range in its
// query language resolves it this way before compiling f.
func (f Filter) WithNoticeMatches(ids []string) Filter {
	g := f
	g.MinNoticeDeadline, g.MaxNoticeDeadline = "", ""
	keep := ids
	if len(f.ContractIDs) > 0 {
		keep = nil
		for _, id := range ids {
			if slices.Contains(f.ContractIDs, id) {
				keep = append(keep, id)
			}
		}
	}
	if len(keep) == 0 {
		keep = noContract
	}
	g.ContractIDs = slices.Clone(keep)
	return g
}

// ErrNoticeUnresolved is returned by a backend's filter compiler given a
// notice-deadline range it expected resolved by WithNoticeMatches.
var ErrNoticeUnresolved = fmt.Errorf("notice-deadline filter not resolved before compiling")

// CollectDeadlines works out q's deadlines from the candidate contracts a
// backend read (their timeline fields, evidence, title and party names):
// every candidate's deadlines in the range and of the kinds asked for,
// ordered by date, then kind, then contract id, then term; the first
// limit of them, described, with the total count. Only the returned
// deadlines are kept while counting and described after, so that many
// candidates (a quarter of a million in a store of a million contracts)
// cost little more than their date arithmetic.
//
// load, when not nil, is called with the indexes in cands of the returned
// deadlines' contracts, in the order of their first deadline, before
// they are described, for a backend that reads their evidence only then;
// an error from it is returned.
func CollectDeadlines(cands []*contract.Contract, q DeadlineQuery, limit int, load func(page []int) error) (DeadlineResult, error) {
	out := DeadlineResult{From: q.From, To: q.To, Deadlines: []DeadlineHit{}}
	// dated is one deadline of cands[c]; seq numbers the deadlines in the
	// order they are found, which breaks the remaining ties as a stable
	// sort of all of them would.
	type dated struct {
		c, seq int
		d      contract.DatedDeadline
	}
	rank := func(k string) int { return slices.Index(contract.DeadlineKinds, k) }
	order := func(a, b dated) int {
		if c := a.d.Date.Compare(b.d.Date); c != 0 {
			return c
		}
		if c := rank(a.d.Kind) - rank(b.d.Kind); c != 0 {
			return c
		}
		if c := strings.Compare(cands[a.c].ID, cands[b.c].ID); c != 0 {
			return c
		}
		return a.seq - b.seq // then term: DeadlineDates' order
	}
	// top holds the first limit deadlines found so far, in order.
	top := make([]dated, 0, min(limit, 64))
	n := 0
	for i, c := range cands {
		ds, err := contract.TimelineOf(c).DeadlineDates(q.From, q.To)
		if err != nil {
			continue // candidates come from stored, validated dates
		}
		for _, d := range ds {
			if len(q.Kinds) > 0 && !slices.Contains(q.Kinds, d.Kind) {
				continue
			}
			x := dated{c: i, seq: n, d: d}
			n++
			if len(top) == limit && order(x, top[len(top)-1]) >= 0 {
				continue
			}
			at, _ := slices.BinarySearchFunc(top, x, order)
			if len(top) == limit {
				top = top[:len(top)-1]
			}
			top = slices.Insert(top, at, x)
		}
	}
	out.TotalCount = n
	if load != nil {
		var page []int
		seen := map[int]bool{}
		for _, x := range top {
			if !seen[x.c] {
				seen[x.c] = true
				page = append(page, x.c)
			}
		}
		if err := load(page); err != nil {
			return DeadlineResult{}, err
		}
	}
	for _, x := range top {
		c := cands[x.c]
		d := contract.TimelineOf(c).Describe(x.d) // with the evidence load added
		parties := make([]string, 0, len(c.Parties))
		for _, p := range c.Parties {
			parties = append(parties, p.Name)
		}
		out.Deadlines = append(out.Deadlines, DeadlineHit{ContractID: c.ID, Title: c.Title, Parties: parties, Kind: d.Kind, Date: d.Date,
			Term: d.Term, Derivation: d.Derivation, From: d.From})
	}
	return out, nil
}
