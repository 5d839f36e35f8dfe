package risk

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	"golang.org/x/sync/errgroup"

	"github.com/contractgraph/contractgraph/internal/tools"
)

// batchStatutes is how many statutes are retrieved for each passage.
const batchStatutes = 3

// batch triages the contract's passages (boilerplate and passages no rule
// speaks to are skipped), then retrieves statutes for and analyses each
// remaining passage concurrently. There is no review loop; the final gate
// still validates everything. A failed passage is reported, not fatal.
func (r *run) batch(ctx context.Context, rep *Report, rules []Rule) ([]Item, error) {
	known := ruleIDs(rules)
	type job struct {
		p     passage
		rules []Rule
	}
	var jobs []job
	skipped := 0
	for _, p := range r.passages {
		if isBoilerplate(p) {
			skipped++
			continue
		}
		var matched []Rule
		for _, ru := range rules {
			if score(p, terms(append([]string{ru.Title}, ru.Keywords...)...)) > 0 {
				matched = append(matched, ru)
			}
		}
		if len(matched) == 0 {
			skipped++
			continue
		}
		jobs = append(jobs, job{p, matched})
	}
	r.progress(Progress{Stage: "batch", Message: fmt.Sprintf("%d passages to analyse, %d skipped as boilerplate or irrelevant", len(jobs), skipped), Total: len(jobs)})
	results := make([][]Item, len(jobs))
	var (
		mu       sync.Mutex
		done     int
		failures []string
	)
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(r.in.Concurrency)
	for i, j := range jobs {
		g.Go(func() error {
			items, dropped, err := r.analysePassage(gctx, j.p, j.rules, known)
			mu.Lock()
			defer mu.Unlock()
			done++
			if err != nil {
				if ctxErr(gctx, err) {
					return err
				}
				failures = append(failures, fmt.Sprintf("bytes %d–%d: %v", j.p.Start, j.p.End, err))
			}
			results[i] = items
			rep.RemovedItems = append(rep.RemovedItems, dropped...)
			r.progress(Progress{Stage: "batch", Message: fmt.Sprintf("analysed passage at bytes %d–%d", j.p.Start, j.p.End), Done: done, Total: len(jobs)})
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	if len(failures) > 0 {
		r.partial(rep, "%d of %d passages could not be analysed (first: %s)", len(failures), len(jobs), failures[0])
	}
	var items []Item
	for _, its := range results {
		items = append(items, its...)
	}
	return items, nil
}

// analysePassage retrieves statutes for one passage and asks the model for
// its risk items. Clause offsets are located near the passage. Items with
// an unknown rule or risk level are returned as dropped, with the reason.
func (r *run) analysePassage(ctx context.Context, p passage, rules []Rule, known map[string]bool) ([]Item, []RemovedItem, error) {
	data := batchPrompt{ContractID: r.in.Contract.ID, HasStatutes: r.statutes != nil, Rules: rules, Start: p.Start, End: p.End, Text: p.Text}
	if r.statutes != nil {
		var words []string
		for _, ru := range rules {
			words = append(words, ru.Keywords...)
		}
		res, err := r.statutes.Search(ctx, tools.StatuteSearchInput{Query: clip(strings.Join(words, " "), 450), Jurisdiction: r.in.Jurisdiction, Limit: batchStatutes})
		var ae *tools.ArgError
		switch {
		case errors.As(err, &ae):
			// No usable keywords: analyse without statutes.
		case err != nil:
			return nil, nil, err
		default:
			data.Statutes = res.Statutes
			for _, s := range res.Statutes {
				r.check.noteReturned(s.StatuteID)
			}
		}
	}
	msgs, err := messages(promptBatch, data)
	if err != nil {
		return nil, nil, err
	}
	// The analyst's path, without tools: the passage comes with its statutes.
	a, err := r.analysis(ctx, msgs, nil)
	if err != nil {
		return nil, nil, err
	}
	r.noteProposed(a.Items)
	var out []Item
	var dropped []RemovedItem
	for _, it := range a.Items {
		// Batch mode has no reviewer to send problems back to.
		if problems := itemProblems(&it, known); len(problems) > 0 {
			dropped = append(dropped, RemovedItem{RuleID: it.RuleID, ClauseQuote: it.ClauseQuote, Reason: problems[0]})
			continue
		}
		if it.ClauseStart < p.Start || it.ClauseStart > p.End {
			it.ClauseStart = p.Start
		}
		out = append(out, it)
	}
	return out, dropped, nil
}
