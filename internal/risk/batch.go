package risk

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"golang.org/x/sync/errgroup"

	"github.com/contractgraph/contractgraph/internal/textmatch"
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

// passageQueryWords bounds the words of a passage's statute query (the
// statute stores search at most 32 terms).
const passageQueryWords = 24

// contractWords are words nearly every contract passage uses; they say
// nothing about which statute applies, so passage queries leave them out.
var contractWords = map[string]bool{
	"agreement": true, "agreements": true, "party": true, "parties": true, "shall": true, "may": true,
	"hereof": true, "herein": true, "hereto": true, "hereunder": true, "thereof": true, "section": true,
	"sections": true, "including": true, "without": true, "other": true, "each": true, "under": true,
	"provided": true, "pursuant": true, "set": true, "forth": true, "upon": true, "all": true, "its": true,
	"any": true, "such": true, "have": true, "has": true, "been": true, "date": true, "term": true,
}

// passageQuery is the statute query for one passage, built from the
// passage's own words: the rule keywords it contains first, then its other
// words by how often it uses them (ties in text order), leaving out stop
// words, words of every contract and words under three letters. So each
// passage retrieves the statutes its own subject matches, not the rules'
// shared vocabulary.
func passageQuery(text string, rules []Rule) string {
	lower := strings.ToLower(text)
	seen := map[string]bool{}
	var out []string
	for _, ru := range rules {
		for _, k := range terms(ru.Keywords...) {
			if !seen[k] && !contractWords[k] && strings.Contains(lower, k) && len(out) < passageQueryWords/3 {
				seen[k] = true
				out = append(out, k)
			}
		}
	}
	count := map[string]int{}
	var order []string
	for _, w := range strings.FieldsFunc(lower, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
		if utf8.RuneCountInString(w) < 3 || textmatch.StopWord(w) || contractWords[w] || seen[w] || isNumber(w) {
			continue
		}
		if count[w] == 0 {
			order = append(order, w)
		}
		count[w]++
	}
	slices.SortStableFunc(order, func(a, b string) int { return count[b] - count[a] })
	for _, w := range order {
		if len(out) == passageQueryWords {
			break
		}
		out = append(out, w)
	}
	return clip(strings.Join(out, " "), 450)
}

func isNumber(w string) bool {
	for _, r := range w {
		if !unicode.IsDigit(r) {
			return false
		}
	}
	return true
}

// analysePassage retrieves statutes for one passage and asks the model for
// its risk items. Clause offsets are located near the passage. Items with
// an unknown rule or risk level are returned as dropped, with the reason.
func (r *run) analysePassage(ctx context.Context, p passage, rules []Rule, known map[string]bool) ([]Item, []RemovedItem, error) {
	data := batchPrompt{ContractID: r.in.Contract.ID, HasStatutes: r.statutes != nil, Rules: rules, Start: p.Start, End: p.End, Text: p.Text}
	if r.statutes != nil {
		res, err := r.statutes.Search(ctx, tools.StatuteSearchInput{Query: passageQuery(p.Text, rules), Jurisdiction: r.in.Jurisdiction, Limit: batchStatutes})
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
