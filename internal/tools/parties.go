package tools

import (
	"context"
	"fmt"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/contractgraph/contractgraph/internal/contract"
	"github.com/contractgraph/contractgraph/internal/graph"
)

const partySearchDescription = `Find parties (the companies, organisations and people that sign contracts) by part of their name, their country, the type of contracts they sign, or a minimum number of contracts. Returns total_count (the number of matching parties) and up to limit examples, each with party_id, name, aliases, country, contract_count and contract_types. Use it for "who are our counterparties in ...", "which parties have more than N contracts", or to find a party's exact name before filtering contracts by it.`

var partySearchCompact = Compact{
	Description: `Find parties by name, country, contract type or min_contracts: total_count and examples with contract_count.`,
}

// PartySearchInput is the input of party_search.
type PartySearchInput struct {
	Name         string `json:"name,omitempty" jsonschema:"Part of the party's name or alias. Case and punctuation are ignored." compact:"part of the name"`
	Country      string `json:"country,omitempty" jsonschema:"Country where the party is located: ISO 3166-1 alpha-2 code such as US, CA, GB (a country name also works)." compact:"ISO code, e.g. US"`
	ContractType string `json:"contract_type,omitempty" jsonschema:"Only parties to at least one contract of this type."`
	MinContracts int    `json:"min_contracts,omitempty" jsonschema:"Only parties to at least this many contracts."`
	OrderBy      string `json:"order_by,omitempty" jsonschema:"contract_count (default): most contracts first; name: alphabetical."`
	Order        string `json:"order,omitempty" jsonschema:"asc or desc; the default depends on order_by (desc for contract_count, asc for name)."`
	Limit        int    `json:"limit,omitempty" jsonschema:"How many example parties to return. total_count always counts every match."`
}

var partyOrderBys = []string{"contract_count", "name"}

func tunePartySearch(s *jsonschema.Schema) {
	setEnum(s, "contract_type", contract.ContractTypes)
	setEnum(s, "order_by", partyOrderBys)
	setDefault(s, "order_by", "contract_count")
	setEnum(s, "order", orders)
	setRange(s, "min_contracts", 0, 0, nil)
	setLimit(s, graph.PartyLimits)
}

// PartySearch runs party_search.
func (s *Set) PartySearch(ctx context.Context, in PartySearchInput) (graph.PartyResult, error) {
	if s.store == nil {
		return graph.PartyResult{}, errNoStore
	}
	q, err := partyQuery(in)
	if err != nil {
		return graph.PartyResult{}, err
	}
	res, err := s.store.SearchParties(ctx, q)
	if err != nil {
		return graph.PartyResult{}, fmt.Errorf("%s: %w", NamePartySearch, err)
	}
	if res.TotalCount == 0 && q.Name != "" && s.parties != nil {
		if res, err = s.partiesByTypos(ctx, q); err != nil {
			return graph.PartyResult{}, fmt.Errorf("%s: %w", NamePartySearch, err)
		}
	}
	if res.Examples == nil {
		res.Examples = []graph.PartySummary{}
	}
	return res, nil
}

func partyQuery(in PartySearchInput) (graph.PartyQuery, error) {
	var q graph.PartyQuery
	var err error
	q.Name = strings.TrimSpace(in.Name)
	if len(q.Name) > maxIdentifier {
		return q, &ArgError{Field: "name", Msg: fmt.Sprintf("longer than %d characters", maxIdentifier)}
	}
	if q.Name != "" && contract.MatchKey(q.Name) == "" {
		return q, &ArgError{Field: "name", Msg: fmt.Sprintf("%q has no letters or digits to match a party name", q.Name)}
	}
	if q.Country, err = viaGraph(graph.ParseCountry("country", in.Country)); err != nil {
		return q, err
	}
	if q.ContractType, err = viaGraph(graph.ParseContractType("contract_type", in.ContractType)); err != nil {
		return q, err
	}
	if in.MinContracts < 0 {
		return q, &ArgError{Field: "min_contracts", Msg: fmt.Sprintf("%d is negative", in.MinContracts)}
	}
	q.MinContracts = in.MinContracts
	if q.OrderBy, err = parseEnum("order_by", in.OrderBy, "contract_count", partyOrderBys); err != nil {
		return q, err
	}
	if q.Desc, err = parseOrder("order", in.Order, q.OrderBy == "contract_count"); err != nil {
		return q, err
	}
	if q.Limit, err = parseLimit("limit", in.Limit, graph.PartyLimits); err != nil {
		return q, err
	}
	return q, nil
}

// partiesByTypos answers a party search whose name no party contains:
// with the parties whose names are within a typo or two of it
// (graph.MatchPartyNames), under the query's other conditions, and the
// match in PartyMatches. A store without graph.PartyNameLister, or a name
// near no party, gives the empty result, with the match saying so.
func (s *Set) partiesByTypos(ctx context.Context, q graph.PartyQuery) (graph.PartyResult, error) {
	empty := graph.PartyResult{Examples: []graph.PartySummary{}}
	if _, ok := s.store.(graph.PartyNameLister); !ok {
		return empty, nil
	}
	m, err := s.parties.Match(ctx, q.Name)
	if err != nil {
		return empty, err
	}
	if m.Contained {
		return empty, nil // the name is there: the other conditions exclude it
	}
	report := []graph.PartyMatch{m.Report(q.Name)}
	if len(m.Parties) == 0 {
		empty.PartyMatches = report
		return empty, nil
	}
	q.Name, q.IDs = "", m.IDs()
	res, err := s.store.SearchParties(ctx, q)
	if err != nil {
		return empty, err
	}
	res.PartyMatches = report
	return res, nil
}
