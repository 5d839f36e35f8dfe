package risk

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/contractgraph/contractgraph/internal/agent"
	"github.com/contractgraph/contractgraph/internal/llm"
	"github.com/contractgraph/contractgraph/internal/textmatch"
)

// review runs the analyst and the senior reviewer for at most
// MaxIterations rounds and returns the items to gate. Model failures end
// the loop with a partial report; only context errors are returned.
func (r *run) review(ctx context.Context, rep *Report, rules []Rule) ([]Item, error) {
	r.progress(Progress{Stage: "analysis", Message: "analysing the contract"})
	var err error
	if r.tools, err = newReviewTools(r); err != nil {
		r.partial(rep, "the risk analyst's tools could not be built: %v; no risk items could be produced", err)
		return nil, nil
	}
	analysis, err := r.analyse(ctx, rules, nil, nil)
	if err != nil {
		if ctxErr(ctx, err) {
			return nil, err
		}
		r.partial(rep, "the risk analyst failed: %v; no risk items could be produced", err)
		return nil, nil
	}
	items := analysis.Items
	for iter := 1; ; iter++ {
		r.progress(Progress{Stage: "review", Iteration: iter, Message: fmt.Sprintf("senior review, round %d of %d", iter, r.in.MaxIterations)})
		problems, err := r.validate(ctx, items, rules)
		if err != nil {
			if ctxErr(ctx, err) {
				return nil, err
			}
			r.partial(rep, "citations could not be checked in review round %d: %v", iter, err)
			return items, nil
		}
		round := ReviewRound{Iteration: iter}
		dec, err := r.reviewer(ctx, iter, rules, items, analysis.Notes, problems)
		if err != nil {
			if ctxErr(ctx, err) {
				return nil, err
			}
			round.Decision = "error"
			round.Problems = append(problems, "reviewer failed: "+err.Error())
			rep.ReviewTrail = append(rep.ReviewTrail, round)
			r.partial(rep, "the senior reviewer failed in round %d: %v; the analyst's items were only checked by the final gate", iter, err)
			return items, nil
		}
		round.Decision = dec.Decision
		round.Problems = append(append([]string{}, problems...), dec.Problems...)
		switch {
		case dec.Decision == DecisionRewrite:
			rewritten := dec.Items
			round.Changes = describeChanges(items, rewritten)
			items = rewritten
			if problems, err = r.validate(ctx, items, rules); err != nil {
				if ctxErr(ctx, err) {
					return nil, err
				}
				rep.ReviewTrail = append(rep.ReviewTrail, round)
				r.partial(rep, "citations could not be checked after the rewrite: %v", err)
				return items, nil
			}
			if len(problems) == 0 {
				rep.ReviewTrail = append(rep.ReviewTrail, round)
				return items, nil
			}
			round.Problems = append(round.Problems, prefixAll("after rewrite: ", problems)...)
		case dec.Decision == DecisionApprove && len(problems) == 0:
			rep.ReviewTrail = append(rep.ReviewTrail, round)
			return items, nil
		case dec.Decision == DecisionApprove:
			// The checks overrule a lenient reviewer.
			round.Decision = DecisionFeedback
			round.Problems = append(round.Problems, "automated checks failed, so the approval was overruled")
		}
		feedback := round.Problems
		if iter >= r.in.MaxIterations {
			rep.ReviewTrail = append(rep.ReviewTrail, round)
			r.partial(rep, "the review did not approve the analysis within %d iterations; the last round's problems are in the review trail and the final gate removed what it could not validate", r.in.MaxIterations)
			return items, nil
		}
		r.progress(Progress{Stage: "revision", Iteration: iter, Message: fmt.Sprintf("analyst revises %d problems", len(feedback))})
		revised, err := r.analyse(ctx, rules, items, feedback)
		if err != nil {
			if ctxErr(ctx, err) {
				return nil, err
			}
			round.Changes = append(round.Changes, "revision failed: "+err.Error())
			rep.ReviewTrail = append(rep.ReviewTrail, round)
			r.partial(rep, "the analyst's revision failed: %v; the unrevised items were only checked by the final gate", err)
			return items, nil
		}
		round.Changes = append(round.Changes, describeChanges(items, revised.Items)...)
		rep.ReviewTrail = append(rep.ReviewTrail, round)
		items, analysis = revised.Items, revised
	}
}

// validate runs the deterministic reviewer checks: rule ids and risk levels
// are valid, clause quotes are in the contract (offsets fixed in place),
// cited statutes exist and hold their quotes.
func (r *run) validate(ctx context.Context, items []Item, rules []Rule) ([]string, error) {
	r.noteProposed(items) // every draft of the review loop passes here
	known := ruleIDs(rules)
	var problems []string
	for i := range items {
		label := fmt.Sprintf("item %d (rule %s): ", i+1, items[i].RuleID)
		problems = append(problems, prefixAll(label, itemProblems(&items[i], known))...)
	}
	more, err := r.check.review(ctx, items)
	if err != nil {
		return nil, err
	}
	return append(problems, more...), nil
}

func prefixAll(p string, ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = p + s
	}
	return out
}

// reviewer asks the senior reviewer for a decision.
func (r *run) reviewer(ctx context.Context, iter int, rules []Rule, items []Item, notes string, problems []string) (ReviewDecision, error) {
	msgs, err := messages(promptReviewer, reviewerPrompt{Iteration: iter, MaxIterations: r.in.MaxIterations, Rules: rules, Items: items,
		Notes: notes, Problems: problems, Found: r.check.returnedIDs()})
	if err != nil {
		return ReviewDecision{}, err
	}
	dec, err := structured[ReviewDecision](ctx, r, msgs)
	if err != nil {
		return dec, err
	}
	dec.Decision = strings.ToLower(strings.TrimSpace(dec.Decision))
	switch dec.Decision {
	case DecisionApprove, DecisionFeedback:
	case DecisionRewrite:
		if len(dec.Items) == 0 {
			return dec, errors.New("reviewer chose rewrite but gave no items")
		}
	default:
		return dec, fmt.Errorf("reviewer decision %q is not approve, feedback or rewrite", dec.Decision)
	}
	return dec, nil
}

// analyse runs the analyst over the rules on the agent's tool loop, with
// the review's tools (see reviewTools). With feedback, it revises previous.
func (r *run) analyse(ctx context.Context, rules []Rule, previous []Item, feedback []string) (Analysis, error) {
	c := r.in.Contract
	data := analystPrompt{
		ContractID: c.ID, Title: c.Title, ContractType: c.ContractType, Jurisdiction: r.in.Jurisdiction,
		HasStatutes: r.statutes != nil, Rules: rules, Feedback: feedback, Previous: previous,
	}
	if len(c.Text) > r.in.MaxContextBytes {
		data.Chunked = true
		data.Chunks = selectPassages(r.passages, rules, r.in.MaxContextBytes)
	} else {
		data.Text = c.Text
	}
	msgs, err := messages(promptAnalyst, data)
	if err != nil {
		return Analysis{}, err
	}
	return r.analysis(ctx, msgs, r.tools)
}

// analysis asks the model for an Analysis: the review's analyst on the
// agent's tool loop over tb, a batch passage (which comes with its
// statutes) without tools when tb is nil. The tool loop sends no response
// schema, as some providers cannot combine one with tools (Anthropic
// forces the schema's tool, Gemini rejects the pair): the final reply is
// decoded against the schema, and one that does not fit gets one
// schema-enforced call without tools.
func (r *run) analysis(ctx context.Context, msgs []llm.Message, tb agent.Toolbox) (Analysis, error) {
	var a Analysis
	var err error
	if tb == nil {
		a, err = structured[Analysis](ctx, r, msgs)
	} else {
		a, err = r.analystLoop(ctx, msgs, tb)
	}
	if err != nil {
		return Analysis{}, err
	}
	if a.Items == nil {
		a.Items = []Item{}
	}
	return a, nil
}

// analystLoop runs the analyst on agent.Loop and decodes its final reply.
func (r *run) analystLoop(ctx context.Context, msgs []llm.Message, tb agent.Toolbox) (Analysis, error) {
	// The analysis is one JSON reply that can be long: no reply limit of the agent's own.
	analyst := agent.Agent{Model: r.deps.Model, Tools: tb, MaxSteps: r.in.MaxSteps, MaxReplyTokens: -1, Log: r.log}
	tr, err := analyst.Loop(ctx, msgs, nil)
	if tr != nil {
		r.addUsage(tr.Usage)
	}
	if errors.Is(err, agent.ErrMaxSteps) {
		return Analysis{}, fmt.Errorf("analyst reached its step limit: %w", err)
	}
	if err != nil {
		return Analysis{}, err
	}
	schema, err := llm.SchemaFor[Analysis]()
	if err != nil {
		return Analysis{}, err
	}
	a, err := llm.DecodeData[Analysis](schema, tr.Text)
	var pe *llm.ParseError
	if errors.As(err, &pe) {
		r.log.Debug("analyst answer did not fit the schema; asking again with the schema enforced", "err", pe.Err)
		return structured[Analysis](ctx, r, append(tr.Messages, pe.RepairMessages()[1:]...))
	}
	return a, err
}

// ruleIDs is the set of the rules' ids.
func ruleIDs(rules []Rule) map[string]bool {
	known := make(map[string]bool, len(rules))
	for _, ru := range rules {
		known[ru.ID] = true
	}
	return known
}

// itemProblems canonicalises the item's risk level and says what makes the
// item unusable: a rule id that is not one of the rules, a risk level that
// is not High, Medium or Low. The reviewer sends them back to the analyst;
// batch mode, which has no reviewer, drops the item.
func itemProblems(it *Item, known map[string]bool) []string {
	var out []string
	if !known[it.RuleID] {
		out = append(out, fmt.Sprintf("rule_id %q is not one of the rules", it.RuleID))
	}
	if lv, ok := level(it.RiskLevel); ok {
		it.RiskLevel = lv
	} else {
		out = append(out, fmt.Sprintf("risk_level %q is not High, Medium or Low", it.RiskLevel))
	}
	return out
}

// describeChanges says how a revision or rewrite changed the items, keyed
// by rule and clause quote.
func describeChanges(before, after []Item) []string {
	key := func(it Item) string { return it.RuleID + "\x00" + textmatch.Fold(it.ClauseQuote) }
	old := map[string]Item{}
	for _, it := range before {
		old[key(it)] = it
	}
	var out []string
	seen := map[string]bool{}
	for _, it := range after {
		k := key(it)
		seen[k] = true
		prev, ok := old[k]
		if !ok {
			out = append(out, fmt.Sprintf("added item for rule %s on %q", it.RuleID, clip(it.ClauseQuote, 80)))
			continue
		}
		var what []string
		if prev.RiskLevel != it.RiskLevel {
			what = append(what, fmt.Sprintf("risk level %s → %s", prev.RiskLevel, it.RiskLevel))
		}
		if citeKey(prev.Citations) != citeKey(it.Citations) {
			what = append(what, fmt.Sprintf("citations [%s] → [%s]", citeIDs(prev.Citations), citeIDs(it.Citations)))
		}
		if prev.Reasoning != it.Reasoning {
			what = append(what, "reasoning")
		}
		if prev.Recommendation != it.Recommendation {
			what = append(what, "recommendation")
		}
		if len(what) > 0 {
			out = append(out, fmt.Sprintf("rule %s item changed: %s", it.RuleID, strings.Join(what, "; ")))
		}
	}
	for _, it := range before {
		if !seen[key(it)] {
			out = append(out, fmt.Sprintf("removed item for rule %s on %q", it.RuleID, clip(it.ClauseQuote, 80)))
		}
	}
	if len(out) == 0 {
		out = append(out, "no change")
	}
	return out
}

func citeKey(cs []Citation) string {
	var b strings.Builder
	for _, c := range cs {
		b.WriteString(c.StatuteID + "\x00" + textmatch.Fold(c.Quote) + "\x00")
	}
	return b.String()
}

func citeIDs(cs []Citation) string {
	ids := make([]string, len(cs))
	for i, c := range cs {
		ids[i] = c.StatuteID
	}
	return strings.Join(ids, ", ")
}
