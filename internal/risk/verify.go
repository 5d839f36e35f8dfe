package risk

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"

	"github.com/contractgraph/contractgraph/internal/contract"
	"github.com/contractgraph/contractgraph/internal/graph"
	"github.com/contractgraph/contractgraph/internal/statute"
	"github.com/contractgraph/contractgraph/internal/textmatch"
)

// checker holds the deterministic checks the reviewer and the final gate
// apply: clause quotes against the contract text, citations against the
// statute store and against the statutes statute_search returned in this
// run. It is safe for concurrent use.
type checker struct {
	text     *textmatch.Text
	statutes graph.StatuteStore // nil when there is none

	mu       sync.Mutex
	cache    map[string]*resolved // statute id → statute (nil entry: not found)
	returned map[string]bool      // ids statute_search returned in this run
}

type resolved struct {
	st   contract.Statute
	text *textmatch.Text
}

func newChecker(text string, statutes graph.StatuteStore) *checker {
	return &checker{text: textmatch.New(text), statutes: statutes, cache: map[string]*resolved{}, returned: map[string]bool{}}
}

// noteReturned records statute ids that statute_search returned.
func (c *checker) noteReturned(ids ...string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, id := range ids {
		c.returned[id] = true
	}
}

// returnedIDs lists the ids statute_search returned so far, sorted.
func (c *checker) returnedIDs() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	ids := make([]string, 0, len(c.returned))
	for id := range c.returned {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	return ids
}

func (c *checker) wasReturned(id string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.returned[id]
}

// statute resolves an id through the store, caching the answer; it returns
// nil without error when the statute does not exist.
func (c *checker) statute(ctx context.Context, id string) (*resolved, error) {
	c.mu.Lock()
	r, ok := c.cache[id]
	c.mu.Unlock()
	if ok {
		return r, nil
	}
	if c.statutes == nil || id == "" {
		return nil, nil
	}
	st, err := c.statutes.GetStatute(ctx, id)
	if errors.Is(err, graph.ErrNotFound) {
		st, err = nil, nil
	}
	if err != nil {
		return nil, err
	}
	if st != nil {
		r = &resolved{st: *st, text: textmatch.New(st.Text)}
	}
	c.mu.Lock()
	c.cache[id] = r
	c.mu.Unlock()
	return r, nil
}

// Reasons a citation or clause quote fails.
const (
	reasonNotFound      = "statute not found"
	reasonQuoteMissing  = "quote does not appear in the statute text"
	reasonNotReturned   = "statute was not returned by statute_search during this review"
	reasonClauseMissing = "clause quote does not appear in the contract text"
	reasonNoStore       = "no statute store: citation could not be checked"
)

// fixClause locates the item's clause quote in the contract (the
// occurrence nearest the offset the model gave), correcting its offsets; it
// returns false when the quote is not there.
func (c *checker) fixClause(it *Item) bool {
	s, ok := findQuote(c.text, it.ClauseQuote, it.ClauseStart)
	if !ok {
		return false
	}
	it.ClauseStart, it.ClauseEnd = s.Start, s.End
	return true
}

// citationProblem returns why a citation fails the reviewer's check (the
// statute exists and holds the quote), or "" when it passes.
func (c *checker) citationProblem(ctx context.Context, cit Citation) (string, *resolved, error) {
	if c.statutes == nil {
		return reasonNoStore, nil, nil
	}
	r, err := c.statute(ctx, cit.StatuteID)
	if err != nil {
		return "", nil, err
	}
	if r == nil {
		return reasonNotFound, nil, nil
	}
	if _, ok := findQuote(r.text, cit.Quote, 0); !ok {
		return reasonQuoteMissing, r, nil
	}
	return "", r, nil
}

// review runs the reviewer's deterministic checks over items, fixing
// clause offsets in place, and returns one problem line per failure, each
// naming the item, the rule and the exact citation or quote.
func (c *checker) review(ctx context.Context, items []Item) ([]string, error) {
	var problems []string
	for i := range items {
		it := &items[i]
		label := fmt.Sprintf("item %d (rule %s)", i+1, it.RuleID)
		if !c.fixClause(it) {
			problems = append(problems, fmt.Sprintf("%s: %s: %q", label, reasonClauseMissing, clip(it.ClauseQuote, 200)))
		}
		for _, cit := range it.Citations {
			why, _, err := c.citationProblem(ctx, cit)
			if err != nil {
				return nil, err
			}
			if why != "" && why != reasonNoStore {
				problems = append(problems, fmt.Sprintf("%s: citation %s %q: %s", label, cit.StatuteID, clip(cit.Quote, 200), why))
			}
		}
	}
	return problems, nil
}

// gate is the final deterministic gate: items whose clause quote is not in
// the contract are removed; a citation survives only when statute_search
// returned its statute during this run and its quote is in the statute's
// text. Everything removed is listed with the reason.
func (c *checker) gate(ctx context.Context, items []Item, rules map[string]Rule) ([]ReportItem, []RemovedCitation, []RemovedItem, error) {
	var (
		kept        []ReportItem
		removedCits []RemovedCitation
		removedIts  []RemovedItem
	)
	for _, it := range items {
		if !c.fixClause(&it) {
			removedIts = append(removedIts, RemovedItem{RuleID: it.RuleID, ClauseQuote: it.ClauseQuote, Reason: reasonClauseMissing})
			for _, cit := range it.Citations {
				removedCits = append(removedCits, RemovedCitation{RuleID: it.RuleID, StatuteID: cit.StatuteID, Quote: cit.Quote,
					Reason: "its risk item was removed: " + reasonClauseMissing})
			}
			continue
		}
		ri := ReportItem{
			Number: len(kept) + 1, RuleID: it.RuleID, RuleTitle: rules[it.RuleID].Title,
			ClauseQuote: it.ClauseQuote, ClauseStart: it.ClauseStart, ClauseEnd: it.ClauseEnd,
			RiskLevel: it.RiskLevel, Reasoning: it.Reasoning, AffectedParty: it.AffectedParty,
			LegalBasis: it.LegalBasis, Recommendation: it.Recommendation, Citations: []ReportCitation{},
		}
		seen := map[Citation]bool{}
		for _, cit := range it.Citations {
			if seen[cit] {
				continue
			}
			seen[cit] = true
			why, r, err := c.citationProblem(ctx, cit)
			if err != nil {
				return nil, nil, nil, err
			}
			if why == "" && !c.wasReturned(cit.StatuteID) {
				why = reasonNotReturned
			}
			rc := RemovedCitation{ItemNumber: ri.Number, RuleID: it.RuleID, StatuteID: cit.StatuteID, Quote: cit.Quote, Reason: why}
			if r != nil {
				rc.Citation = statute.Cite(&r.st)
			}
			if why != "" {
				removedCits = append(removedCits, rc)
				continue
			}
			ri.Citations = append(ri.Citations, ReportCitation{
				StatuteID: r.st.ID, Citation: statute.Cite(&r.st), Heading: r.st.Heading, URL: r.st.URL, Quote: cit.Quote,
			})
		}
		if len(ri.Citations) == 0 && ri.LegalBasis == "" {
			ri.LegalBasis = "No statute citation could be validated for this item."
		}
		kept = append(kept, ri)
	}
	return kept, removedCits, removedIts, nil
}

// clip shortens s to at most n bytes at a rune boundary, marking the cut.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n] + "…"
}
