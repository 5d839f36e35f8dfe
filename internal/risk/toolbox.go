package risk

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/contractgraph/contractgraph/internal/agent"
	"github.com/contractgraph/contractgraph/internal/contract"
	"github.com/contractgraph/contractgraph/internal/graph"
	"github.com/contractgraph/contractgraph/internal/tools"
)

// reviewTools is the analyst's agent.Toolbox: clause_search, get_contract,
// statute_search and get_statute, scoped to the review. clause_search and
// get_contract serve the contract under review only, the statute tools its
// jurisdiction only; a call outside the scope is refused with a
// *tools.ArgError naming what is allowed, which the agent hands back to the
// model. get_contract and the statute tools are described exactly as the
// agent's own (full or compact, as Deps.Schemas says).
type reviewTools struct {
	r    *run
	defs []tools.Tool
}

var _ agent.Toolbox = (*reviewTools)(nil)

// clauseSearchInput is the analyst's clause_search: always scoped to the
// contract under review.
type clauseSearchInput struct {
	Query      string `json:"query" jsonschema:"Words to look for in this contract, e.g. 'terminate for convenience'."`
	ContractID string `json:"contract_id,omitempty" jsonschema:"The contract under review, the default; no other contract can be searched."`
	Limit      int    `json:"limit,omitempty" jsonschema:"How many passages to return (default 5, at most 20)."`
}

const clauseSearchDescription = `Search the clauses and text of the contract under review (full-text ranking) and return the best passages with their verbatim text and start/end byte offsets. Use it to find clauses the shown text does not include and to copy exact clause quotes.`

// newReviewTools returns the analyst's tools for r; statute_search and
// get_statute only when there is a statute store.
func newReviewTools(r *run) (*reviewTools, error) {
	cs, err := tools.Schema[clauseSearchInput](nil)
	if err != nil {
		return nil, err
	}
	t := &reviewTools{r: r, defs: []tools.Tool{{Name: tools.NameClauseSearch, Description: clauseSearchDescription, InputSchema: cs}}}
	// A set that is only listed, for the agent's definitions of the others.
	listed := tools.New(nil, tools.Options{Schemas: r.deps.Schemas})
	if r.statutes != nil {
		if err := r.statutes.AddTo(listed); err != nil {
			return nil, err
		}
	}
	for _, d := range listed.Tools() {
		switch d.Name {
		case tools.NameGetContract, tools.NameStatuteSearch, tools.NameGetStatute:
			t.defs = append(t.defs, d)
		}
	}
	return t, nil
}

// Tools implements agent.Toolbox.
func (t *reviewTools) Tools() []tools.Tool { return t.defs }

// Call implements agent.Toolbox.
func (t *reviewTools) Call(ctx context.Context, name string, args json.RawMessage) (json.RawMessage, error) {
	if len(args) > tools.MaxArgsBytes {
		return nil, &tools.ArgError{Msg: fmt.Sprintf("arguments are %d bytes, more than the limit of %d", len(args), tools.MaxArgsBytes)}
	}
	switch name {
	case tools.NameClauseSearch:
		var in clauseSearchInput
		if err := tools.DecodeArgs(args, &in); err != nil {
			return nil, err
		}
		if err := t.inScope(in.ContractID); err != nil {
			return nil, err
		}
		hits, err := t.r.searchClauses(ctx, in)
		if err != nil {
			return nil, err
		}
		return json.Marshal(tools.ClauseResult{Passages: hits})
	case tools.NameGetContract:
		var in tools.GetContractInput
		if err := tools.DecodeArgs(args, &in); err != nil {
			return nil, err
		}
		if err := t.inScope(in.ContractID); err != nil {
			return nil, err
		}
		rec, err := t.r.contractRecord(in)
		if err != nil {
			return nil, err
		}
		return json.Marshal(rec)
	case tools.NameStatuteSearch, tools.NameGetStatute:
		if t.r.statutes != nil {
			return t.statuteCall(ctx, name, args)
		}
	}
	names := make([]string, len(t.defs))
	for i, d := range t.defs {
		names[i] = d.Name
	}
	return nil, fmt.Errorf("%w %q; valid tools: %s", tools.ErrUnknownTool, name, strings.Join(names, ", "))
}

// inScope refuses a contract id other than the one under review; no id
// means that one.
func (t *reviewTools) inScope(id string) error {
	want := t.r.in.Contract.ID
	if id = strings.TrimSpace(id); id != "" && id != want {
		return &tools.ArgError{Field: "contract_id", Msg: fmt.Sprintf("this review covers contract %q only; %q cannot be read here", want, id), Valid: []string{want}}
	}
	return nil
}

// statuteCall runs statute_search or get_statute within the review's
// jurisdiction. The ids statute_search returns are noted: only they may be
// cited.
func (t *reviewTools) statuteCall(ctx context.Context, name string, args json.RawMessage) (json.RawMessage, error) {
	j := t.r.in.Jurisdiction
	if name == tools.NameGetStatute {
		var in tools.GetStatuteInput
		if err := tools.DecodeArgs(args, &in); err != nil {
			return nil, err
		}
		st, err := t.r.statutes.Get(ctx, in)
		if err != nil {
			return nil, err
		}
		if j != "" && !strings.EqualFold(st.Jurisdiction, j) {
			return nil, &tools.ArgError{Field: "statute_id", Msg: fmt.Sprintf("%s is a statute of jurisdiction %q; this review is limited to jurisdiction %q", st.StatuteID, st.Jurisdiction, j)}
		}
		return json.Marshal(st)
	}
	var in tools.StatuteSearchInput
	if err := tools.DecodeArgs(args, &in); err != nil {
		return nil, err
	}
	if j != "" {
		// The review is limited to one jurisdiction: only its statutes
		// may be returned, and so cited.
		if in.Jurisdiction != "" && !strings.EqualFold(strings.TrimSpace(in.Jurisdiction), j) {
			return nil, &tools.ArgError{Field: "jurisdiction", Msg: fmt.Sprintf("this review is limited to jurisdiction %q", j), Valid: []string{j}}
		}
		in.Jurisdiction = j
	}
	res, err := t.r.statutes.Search(ctx, in)
	if err != nil {
		return nil, err
	}
	for _, s := range res.Statutes {
		t.r.check.noteReturned(s.StatuteID)
	}
	if len(res.Statutes) == 0 {
		return json.Marshal(map[string]any{"statutes": res.Statutes, "note": "no statute matched: do not cite any statute for this issue"})
	}
	return json.Marshal(res)
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
	if limit < 1 {
		return nil, &tools.ArgError{Field: "limit", Msg: fmt.Sprintf("%d is out of range: give 1 to 20", in.Limit)}
	}
	// More than there may be asks for the most (as the agent's tools do).
	limit = min(limit, 20)
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

// contractRecord is get_contract's answer for the contract under review,
// read from the record the review was given (for a stored contract, the
// store's): no chunks or usage, and the text only on request, one window
// of at most tools.DefaultMaxTextBytes at a time.
func (r *run) contractRecord(in tools.GetContractInput) (tools.ContractRecord, error) {
	c := *r.in.Contract
	text := c.Text
	c.Chunks, c.Usage, c.Text = nil, nil, ""
	if c.Clauses == nil {
		c.Clauses = []contract.Clause{}
	}
	rec := tools.ContractRecord{Contract: c, TextLength: len(text)}
	if !in.IncludeText {
		return rec, nil
	}
	if in.TextOffset < 0 || in.TextOffset > len(text) {
		return rec, &tools.ArgError{Field: "text_offset", Msg: fmt.Sprintf("%d is outside the text (%d bytes)", in.TextOffset, len(text))}
	}
	from, to := in.TextOffset, min(in.TextOffset+tools.DefaultMaxTextBytes, len(text))
	for from < to && !utf8.RuneStart(text[from]) {
		from++
	}
	for to > from && to < len(text) && !utf8.RuneStart(text[to]) {
		to--
	}
	rec.Text, rec.TextOffset, rec.TextTruncated = text[from:to], from, to < len(text)
	return rec, nil
}
