package risk

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/contractgraph/contractgraph/internal/graph"
	"github.com/contractgraph/contractgraph/internal/llm"
	"github.com/contractgraph/contractgraph/internal/tools"
)

// review runs the analyst and the senior reviewer for at most
// MaxIterations rounds and returns the items to gate. Model failures end
// the loop with a partial report; only context errors are returned.
func (r *run) review(ctx context.Context, rep *Report, rules []Rule) ([]Item, error) {
	r.progress(Progress{Stage: "analysis", Message: "analysing the contract"})
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
	known := map[string]bool{}
	for _, ru := range rules {
		known[ru.ID] = true
	}
	var problems []string
	for i := range items {
		it := &items[i]
		if !known[it.RuleID] {
			problems = append(problems, fmt.Sprintf("item %d: rule_id %q is not one of the rules", i+1, it.RuleID))
		}
		if lv, ok := level(it.RiskLevel); ok {
			it.RiskLevel = lv
		} else {
			problems = append(problems, fmt.Sprintf("item %d (rule %s): risk_level %q is not High, Medium or Low", i+1, it.RuleID, it.RiskLevel))
		}
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

// analyse runs the analyst's tool loop: the model may call statute_search
// and clause_search until it answers with an Analysis. With feedback, it
// revises previous.
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
	schema, err := llm.SchemaFor[Analysis]()
	if err != nil {
		return Analysis{}, err
	}
	defs, err := r.toolDefs()
	if err != nil {
		return Analysis{}, err
	}
	// The tool loop sends no response schema: some providers cannot combine
	// one with tools (Anthropic forces the schema's tool, Gemini rejects
	// the pair). The final answer is decoded against the schema, and a
	// reply that does not fit gets one schema-enforced call without tools.
	for step := 0; step < r.in.MaxSteps; step++ {
		resp, err := r.deps.Model.Generate(ctx, &llm.Request{Messages: msgs, Tools: defs})
		if err != nil {
			return Analysis{}, err
		}
		r.addUsage(resp.Usage)
		msg := resp.Message
		msg.Role = llm.RoleAssistant
		msgs = append(msgs, msg)
		if len(msg.ToolCalls) > 0 {
			for _, call := range msg.ToolCalls {
				out := r.callTool(ctx, call)
				if ctxErr(ctx, ctx.Err()) {
					return Analysis{}, ctx.Err()
				}
				msgs = append(msgs, llm.Message{Role: llm.RoleTool, ToolCallID: call.ID, Name: call.Name, Content: out})
			}
			continue
		}
		a, err := llm.DecodeData[Analysis](schema, msg.Content)
		var pe *llm.ParseError
		if errors.As(err, &pe) {
			r.log.Debug("analyst answer did not fit the schema; asking again with the schema enforced", "err", pe.Err)
			a, err = structured[Analysis](ctx, r, append(msgs, pe.RepairMessages()[1:]...))
		}
		if err != nil {
			return Analysis{}, err
		}
		if a.Items == nil {
			a.Items = []Item{}
		}
		return a, nil
	}
	return Analysis{}, fmt.Errorf("%w (%d calls)", ErrMaxSteps, r.in.MaxSteps)
}

// clauseSearchInput is the analyst's clause_search: always scoped to the
// contract under review.
type clauseSearchInput struct {
	Query string `json:"query" jsonschema:"Words to look for in this contract, e.g. 'terminate for convenience'."`
	Limit int    `json:"limit,omitempty" jsonschema:"How many passages to return (default 5, at most 20)."`
}

const clauseSearchDescription = `Search the clauses and text of the contract under review (full-text ranking) and return the best passages with their verbatim text and start/end byte offsets. Use it to find clauses the shown text does not include and to copy exact clause quotes.`

// toolDefs lists the analyst's tools: clause_search always, statute_search
// when there is a statute store.
func (r *run) toolDefs() ([]llm.ToolDef, error) {
	cs, err := tools.Schema[clauseSearchInput](nil)
	if err != nil {
		return nil, err
	}
	defs := []llm.ToolDef{{Name: tools.NameClauseSearch, Description: clauseSearchDescription, InputSchema: cs}}
	if r.statutes != nil {
		ss, err := tools.StatuteSearchDef()
		if err != nil {
			return nil, err
		}
		defs = append(defs, llm.ToolDef{Name: ss.Name, Description: ss.Description, InputSchema: ss.InputSchema})
	}
	return defs, nil
}

// callTool runs one tool call and returns what the model sees: the JSON
// result, or an error message it can act on.
func (r *run) callTool(ctx context.Context, call llm.ToolCall) string {
	out, err := r.runTool(ctx, call)
	if err != nil {
		r.log.Debug("tool call failed", "tool", call.Name, "err", err)
		b, _ := json.Marshal(map[string]string{"error": err.Error()})
		return string(b)
	}
	r.log.Debug("tool call", "tool", call.Name, "args", string(call.Arguments))
	return string(out)
}

func (r *run) runTool(ctx context.Context, call llm.ToolCall) (json.RawMessage, error) {
	switch call.Name {
	case tools.NameStatuteSearch:
		if r.statutes == nil {
			break
		}
		var in tools.StatuteSearchInput
		if err := tools.DecodeArgs(call.Arguments, &in); err != nil {
			return nil, err
		}
		if j := r.in.Jurisdiction; j != "" {
			// The review is limited to one jurisdiction: only its statutes
			// may be returned, and so cited.
			if in.Jurisdiction != "" && !strings.EqualFold(strings.TrimSpace(in.Jurisdiction), j) {
				return nil, &tools.ArgError{Field: "jurisdiction", Msg: fmt.Sprintf("this review is limited to jurisdiction %q", j), Valid: []string{j}}
			}
			in.Jurisdiction = j
		}
		res, err := r.statutes.Search(ctx, in)
		if err != nil {
			return nil, err
		}
		for _, s := range res.Statutes {
			r.check.noteReturned(s.StatuteID)
		}
		if len(res.Statutes) == 0 {
			return json.Marshal(map[string]any{"statutes": res.Statutes, "note": "no statute matched: do not cite any statute for this issue"})
		}
		return json.Marshal(res)
	case tools.NameClauseSearch:
		var in clauseSearchInput
		if err := tools.DecodeArgs(call.Arguments, &in); err != nil {
			return nil, err
		}
		hits, err := r.searchClauses(ctx, in)
		if err != nil {
			return nil, err
		}
		return json.Marshal(map[string]any{"passages": hits})
	}
	return nil, fmt.Errorf("unknown tool %q; available: %s", call.Name, strings.Join(r.toolNames(), ", "))
}

func (r *run) toolNames() []string {
	names := []string{tools.NameClauseSearch}
	if r.statutes != nil {
		names = append(names, tools.NameStatuteSearch)
	}
	return names
}

// searchClauses serves clause_search from the store for a stored contract,
// else (or when the store has nothing indexed for it) from the contract's
// passages in memory.
func (r *run) searchClauses(ctx context.Context, in clauseSearchInput) ([]graph.ClauseHit, error) {
	q := strings.TrimSpace(in.Query)
	if q == "" {
		return nil, &tools.ArgError{Field: "query", Msg: "missing: give the words to search for"}
	}
	limit := in.Limit
	if limit == 0 {
		limit = 5
	}
	if limit < 1 || limit > 20 {
		return nil, &tools.ArgError{Field: "limit", Msg: fmt.Sprintf("%d is out of range: give 1 to 20", in.Limit)}
	}
	if r.in.Stored && r.deps.Clauses != nil {
		hits, err := r.deps.Clauses.SearchClauses(ctx, graph.ClauseQuery{Query: q, Filter: graph.Filter{ContractIDs: []string{r.in.Contract.ID}}, Limit: limit})
		if err != nil {
			return nil, fmt.Errorf("clause_search: %w", err)
		}
		if len(hits) > 0 {
			return hits, nil
		}
		// A contract stored without chunks or clauses has nothing indexed:
		// search its text instead.
	}
	ts := terms(q)
	hits := []graph.ClauseHit{}
	for _, p := range rankPassages(r.passages, ts, limit) {
		hits = append(hits, graph.ClauseHit{ContractID: r.in.Contract.ID, Text: p.Text, Start: p.Start, End: p.End, Verified: true, Score: float64(score(p, ts))})
	}
	return hits, nil
}

// describeChanges says how a revision or rewrite changed the items, keyed
// by rule and clause quote.
func describeChanges(before, after []Item) []string {
	key := func(it Item) string { return it.RuleID + "\x00" + foldQuote(it.ClauseQuote) }
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
		b.WriteString(c.StatuteID + "\x00" + foldQuote(c.Quote) + "\x00")
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
