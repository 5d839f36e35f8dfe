package tools

import (
	"context"
	"fmt"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/contractgraph/contractgraph/internal/contract"
	"github.com/contractgraph/contractgraph/internal/graph"
)

const clauseSearchDescription = `Search the words of clauses and contract texts and return the best passages (BM25, fused with vector similarity by reciprocal rank fusion when an embedding model is configured, then reranked and de-duplicated as the server is set up), each with contract_id, clause_id, clause_type, the verbatim text, its start/end byte offsets in the contract text, verified, score (higher is better) and, when the server adds it, section (the enclosing section's heading and start/end: read it with get_contract's text_offset); a clause known only by a summary (no located words) comes with summary instead of text and offsets, and must not be quoted as the contract's words. Use it to find what contracts actually say ("termination for convenience on 30 days notice", "liability capped at fees paid"), optionally within one contract (contract_id), within clause types or groups, or within contracts matching the same filters as contract_search.`

var clauseSearchCompact = Compact{
	Description: `Search clause and contract wording: passages with contract_id, clause_type, verbatim text, score. Also takes contract_search's filters.`,
	Tune:        compactClauseSearch,
}

// compactClauseSearch leaves the shared contract filters out of the
// compact schema: clause_search still takes them, as its description says,
// but they would double the schema for arguments rarely needed here.
func compactClauseSearch(s *jsonschema.Schema) {
	for _, name := range filterNames {
		if name != "clause_types" {
			delete(s.Properties, name)
		}
	}
}

// ClauseSearchInput is the input of clause_search. Its clause_types
// restricts the passages, unlike the contract filter of the same name.
type ClauseSearchInput struct {
	Query      string `json:"query" jsonschema:"The words to look for, e.g. 'terminate for convenience'." compact:"words to find"`
	ContractID string `json:"contract_id,omitempty" jsonschema:"Only passages of this contract." compact:"only this contract"`
	Filters
	ClauseTypes []string `json:"clause_types,omitempty" jsonschema:"Only clauses of these types or groups, e.g. 'Cap On Liability' or 'Liability & Indemnification'." compact:"clause types or groups"`
	Limit       int      `json:"limit,omitempty" jsonschema:"How many passages to return."`
}

// ClauseResult is clause_search's answer.
type ClauseResult struct {
	Passages []graph.ClauseHit `json:"passages"`
	// PartyMatches say which stored parties the parties entries that no
	// party name contains were matched to by typo tolerance.
	PartyMatches []graph.PartyMatch `json:"party_matches,omitempty"`
	// SummaryByMeaning is as in graph.ContractResult.
	SummaryByMeaning []graph.SummaryHit `json:"summary_by_meaning,omitempty"`
}

func tuneClauseSearch(s *jsonschema.Schema) {
	tuneFilters(s)
	setEnum(s, "clause_types", contract.ClauseTypeNames())
	setLimit(s, graph.ClauseLimits)
	property(s, "query").MinLength = new(1)
}

// ClauseSearch runs clause_search.
func (s *Set) ClauseSearch(ctx context.Context, in ClauseSearchInput) (ClauseResult, error) {
	if s.store == nil {
		return ClauseResult{}, errNoStore
	}
	q, err := s.clauseQuery(in)
	if err != nil {
		return ClauseResult{}, err
	}
	var matches []graph.PartyMatch
	if q.Filter, matches, err = s.resolveParties(ctx, q.Filter); err != nil {
		return ClauseResult{}, fmt.Errorf("%s: %w", NameClauseSearch, err)
	}
	var near []graph.SummaryHit
	if q.Filter, near, err = s.findSummaries(ctx, q.Filter); err != nil {
		return ClauseResult{}, fmt.Errorf("%s: %w", NameClauseSearch, err)
	}
	search := s.store.SearchClauses
	if s.clauses != nil {
		search = s.clauses.Search
	}
	hits, err := search(ctx, q)
	if err != nil {
		return ClauseResult{}, fmt.Errorf("%s: %w", NameClauseSearch, err)
	}
	if hits == nil {
		hits = []graph.ClauseHit{}
	}
	return ClauseResult{Passages: hits, PartyMatches: matches, SummaryByMeaning: near}, nil
}

func (s *Set) clauseQuery(in ClauseSearchInput) (graph.ClauseQuery, error) {
	var q graph.ClauseQuery
	var err error
	if q.Query, err = viaGraph(graph.ParseText("query", in.Query, true)); err != nil {
		return q, err
	}
	if q.Filter, err = s.filter(in.Filters); err != nil {
		return q, err
	}
	if id := strings.TrimSpace(in.ContractID); id != "" {
		if len(id) > maxIdentifier {
			return q, &ArgError{Field: "contract_id", Msg: fmt.Sprintf("longer than %d characters", maxIdentifier)}
		}
		q.Filter.ContractIDs = []string{id}
	}
	if q.ClauseTypes, err = viaGraph(graph.ParseClauseTypes("clause_types", in.ClauseTypes)); err != nil {
		return q, err
	}
	if q.Limit, err = parseLimit("limit", in.Limit, graph.ClauseLimits); err != nil {
		return q, err
	}
	return q, nil
}
