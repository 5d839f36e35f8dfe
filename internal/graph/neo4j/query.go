package neo4j

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"

	"github.com/neo4j/neo4j-go-driver/v5/neo4j"

	"github.com/contractgraph/contractgraph/internal/contract"
	"github.com/contractgraph/contractgraph/internal/graph"
)

// SearchContracts counts the contracts matching q and returns the first
// q.Limit of them in q's order (nulls last, then id ascending). Count and
// examples are read in one transaction, so they agree.
func (s *Store) SearchContracts(ctx context.Context, q graph.ContractQuery) (graph.ContractResult, error) {
	res := graph.ContractResult{Examples: []graph.ContractSummary{}}
	var err error
	if q.Filter, err = s.resolveFilter(ctx, q.Filter); err != nil {
		return res, fmt.Errorf("search contracts: %w", err)
	}
	cs, err := compileContractSearch(q)
	if err != nil {
		return res, fmt.Errorf("search contracts: %w", err)
	}
	err = s.tx(ctx, neo4j.AccessModeRead, func(tx neo4j.ManagedTransaction) error {
		res = graph.ContractResult{Examples: []graph.ContractSummary{}}
		recs, err := collect(ctx, tx, cs.count)
		if err != nil {
			return fmt.Errorf("count: %w", err)
		}
		res.TotalCount = int(getInt(recs[0].AsMap(), "total"))
		if res.TotalCount == 0 {
			return nil
		}
		cs := cs // the transaction may run again: keep the compiled search
		if cs.inOrder != nil && dense(res.TotalCount, int(getInt(recs[0].AsMap(), "contracts")), cs.offset+cs.limit) {
			cs = *cs.inOrder
		}
		add := func(recs []*neo4j.Record) error {
			for _, r := range recs {
				cs := decodeSummary(r.AsMap())
				if cs.Unverified, err = decodeUnverified(r.AsMap()); err != nil {
					return fmt.Errorf("contract %q: unverified values: %w", cs.ContractID, err)
				}
				res.Examples = append(res.Examples, cs)
			}
			return nil
		}
		recs, err = examplesWithValue(ctx, tx, cs)
		if err != nil {
			return fmt.Errorf("examples: %w", err)
		}
		if err := add(recs); err != nil {
			return err
		}
		if cs.rest == nil || len(recs) == cs.limit {
			return nil
		}
		// The contracts with a value ran out within the page: it goes on
		// with those without. present is how many had one.
		present := cs.offset + len(recs)
		if len(recs) == 0 && cs.offset > 0 {
			counted, err := collect(ctx, tx, *cs.present)
			if err != nil {
				return fmt.Errorf("count the examples with a value: %w", err)
			}
			present = int(getInt(counted[0].AsMap(), "total"))
		}
		if present >= res.TotalCount {
			return nil
		}
		recs, err = collect(ctx, tx, cs.rest(max(0, cs.offset-present), cs.limit-len(recs)))
		if err != nil {
			return fmt.Errorf("examples without a value: %w", err)
		}
		return add(recs)
	})
	if err != nil {
		return graph.ContractResult{}, fmt.Errorf("search contracts: %w", err)
	}
	return res, nil
}

// examplesWithValue reads cs's page of examples, those with a value when
// cs orders by an indexed property (contractSearch.rest): from the first
// value's ties and then past them when cs.ties says so, else by
// cs.examples.
func examplesWithValue(ctx context.Context, tx neo4j.ManagedTransaction, cs contractSearch) ([]*neo4j.Record, error) {
	if cs.ties == nil {
		return collect(ctx, tx, cs.examples)
	}
	recs, err := collect(ctx, tx, cs.ties.first)
	if err != nil || len(recs) == cs.limit {
		return recs, err
	}
	if len(recs) == 0 {
		// The offset is past the first value's contracts, or none has a
		// value: the page is examples'.
		return collect(ctx, tx, cs.examples)
	}
	value, _ := recs[0].Get(cs.ties.column)
	more, err := collect(ctx, tx, cs.ties.past(value, cs.limit-len(recs)))
	if err != nil {
		return nil, fmt.Errorf("past the first value: %w", err)
	}
	return append(recs, more...), nil
}

func decodeSummary(m map[string]any) graph.ContractSummary {
	cs := graph.ContractSummary{
		ContractID: getString(m, "contract_id"), Title: getString(m, "title"),
		ContractType: getString(m, "contract_type"), Summary: getString(m, "summary"), Scope: getString(m, "scope"),
		EffectiveDate: getString(m, "effective_date"), EndDate: getString(m, "end_date"),
		Duration: getString(m, "duration"), DurationDays: getIntPtr(m, "duration_days"),
		TotalAmount: getFloatPtr(m, "total_amount"), Currency: getString(m, "currency"),
		GoverningLaw: decodeLocation(m["governing_law"]),
		Parties:      []graph.PartyRef{}, ClauseTypes: []string{},
	}
	for _, v := range asSlice(m["parties"]) {
		pm, _ := v.(map[string]any)
		cs.Parties = append(cs.Parties, graph.PartyRef{
			Name: getString(pm, "name"), Role: getString(pm, "role"), Country: getString(pm, "country"),
		})
	}
	for _, v := range asSlice(m["clause_types"]) {
		if t, ok := v.(string); ok {
			cs.ClauseTypes = append(cs.ClauseTypes, t)
		}
	}
	return cs
}

// decodeLocation reads a projected Location map; a stored location always
// yields a value, with "" for its missing parts, as in the embedded store.
func decodeLocation(v any) *contract.Location {
	m, ok := v.(map[string]any)
	if !ok {
		return nil
	}
	return &contract.Location{
		Country: getString(m, "country"), State: getString(m, "state"),
		City: getString(m, "city"), Address: getString(m, "address"),
	}
}

// AggregateContracts groups the contracts matching q and measures each
// group; see graph.AggregateQuery. Without GroupBy there is always exactly
// one group, "all", even when no contract matches.
func (s *Store) AggregateContracts(ctx context.Context, q graph.AggregateQuery) (graph.AggregateResult, error) {
	res := graph.AggregateResult{Groups: []graph.Group{}}
	var err error
	if q.Filter, err = s.resolveFilter(ctx, q.Filter); err != nil {
		return res, fmt.Errorf("aggregate contracts: %w", err)
	}
	st, err := compileAggregate(q)
	if err != nil {
		return res, fmt.Errorf("aggregate contracts: %w", err)
	}
	recs, err := s.run(ctx, neo4j.AccessModeRead, st)
	if err != nil {
		return graph.AggregateResult{}, fmt.Errorf("aggregate contracts: %w", err)
	}
	if len(recs) != 1 {
		return graph.AggregateResult{}, fmt.Errorf("aggregate contracts: %d result rows, want 1", len(recs))
	}
	m := recs[0].AsMap()
	if usable, ok := m["usable"].(bool); ok && !usable {
		// Some amount is not an exact integer: add them up one by one.
		if st, err = compileAggregateBase(q); err == nil {
			recs, err = s.run(ctx, neo4j.AccessModeRead, st)
		}
		if err != nil {
			return graph.AggregateResult{}, fmt.Errorf("aggregate contracts: %w", err)
		}
		if len(recs) != 1 {
			return graph.AggregateResult{}, fmt.Errorf("aggregate contracts: %d result rows, want 1", len(recs))
		}
		m = recs[0].AsMap()
	}
	return decodeAggregate(m), nil
}

// decodeAggregate reads an aggregate statement's row.
func decodeAggregate(m map[string]any) graph.AggregateResult {
	res := graph.AggregateResult{Groups: []graph.Group{}, TotalGroups: int(getInt(m, "total"))}
	for _, v := range asSlice(m["groups"]) {
		gm, _ := v.(map[string]any)
		g := graph.Group{Key: getString(gm, "key"), Count: int(getInt(gm, "count")), Value: getFloatPtr(gm, "value")}
		if cur, ok := gm["currency"].(string); ok {
			g.Currency = &cur
		}
		res.Groups = append(res.Groups, g)
	}
	return res
}

// SearchParties counts the parties matching q and returns the first q.Limit:
// by contract count descending (the default) or by name (ascending unless
// q.Desc), ties broken by name and then id ascending.
func (s *Store) SearchParties(ctx context.Context, q graph.PartyQuery) (graph.PartyResult, error) {
	res := graph.PartyResult{Examples: []graph.PartySummary{}}
	ps, err := compileParties(q)
	if err != nil {
		return res, fmt.Errorf("search parties: %w", err)
	}
	err = s.tx(ctx, neo4j.AccessModeRead, func(tx neo4j.ManagedTransaction) error {
		res = graph.PartyResult{Examples: []graph.PartySummary{}}
		recs, err := collect(ctx, tx, ps.count)
		if err != nil {
			return fmt.Errorf("count: %w", err)
		}
		res.TotalCount = int(getInt(recs[0].AsMap(), "total"))
		if res.TotalCount == 0 {
			return nil
		}
		recs, err = collect(ctx, tx, ps.examples)
		if err != nil {
			return fmt.Errorf("examples: %w", err)
		}
		sort.Slice(recs, func(i, j int) bool { return getInt(recs[i].AsMap(), "rank") < getInt(recs[j].AsMap(), "rank") })
		for _, r := range recs {
			m := r.AsMap()
			p := graph.PartySummary{
				PartyID: getString(m, "party_id"), Name: getString(m, "name"),
				ContractCount: int(getInt(m, "contract_count")),
				Aliases:       getStrings(m, "aliases"), ContractTypes: getStrings(m, "contract_types"),
			}
			// Aliases in byte order, as the embedded store lists them.
			sort.Strings(p.Aliases)
			if cs := getStrings(m, "country"); len(cs) > 0 {
				p.Country = cs[0]
			}
			res.Examples = append(res.Examples, p)
		}
		return nil
	})
	if err != nil {
		return graph.PartyResult{}, fmt.Errorf("search parties: %w", err)
	}
	return res, nil
}

// SearchClauses ranks clause and chunk passages by full-text relevance
// (Lucene's BM25) to the words of q.Query, any of which may match; see
// compileClauses for the order.
func (s *Store) SearchClauses(ctx context.Context, q graph.ClauseQuery) ([]graph.ClauseHit, error) {
	var err error
	if q.Filter, err = s.resolveFilter(ctx, q.Filter); err != nil {
		return nil, fmt.Errorf("search clauses: %w", err)
	}
	st, err := compileClauses(q)
	if err != nil {
		return nil, fmt.Errorf("search clauses: %w", err)
	}
	recs, err := s.run(ctx, neo4j.AccessModeRead, st)
	if err != nil {
		return nil, fmt.Errorf("search clauses: %w", err)
	}
	hits := make([]graph.ClauseHit, 0, len(recs))
	for _, r := range recs {
		m := r.AsMap()
		v, _ := m["verified"].(bool)
		score, _ := m["score"].(float64)
		hits = append(hits, graph.ClauseHit{
			ContractID: getString(m, "contract_id"), ClauseID: getString(m, "clause_id"),
			ClauseType: getString(m, "clause_type"), Text: getString(m, "text"), Summary: getString(m, "summary"),
			Start: int(getInt(m, "start")), End: int(getInt(m, "end")), Verified: v, Score: score,
		})
	}
	return hits, nil
}

// Stats counts nodes and relationships under the schema's names.
func (s *Store) Stats(ctx context.Context) (graph.Stats, error) {
	st := graph.Stats{Nodes: map[string]int{}, Relationships: map[string]int{}}
	err := s.tx(ctx, neo4j.AccessModeRead, func(tx neo4j.ManagedTransaction) error {
		for _, c := range statsStatements {
			recs, err := collect(ctx, tx, c.st)
			if err != nil {
				return fmt.Errorf("count %s: %w", c.name, err)
			}
			n := int(getInt(recs[0].AsMap(), "n"))
			if c.nodes {
				st.Nodes[c.name] = n
			} else {
				st.Relationships[c.name] = n
			}
		}
		return nil
	})
	if err != nil {
		return graph.Stats{}, fmt.Errorf("stats: %w", err)
	}
	return st, nil
}

// GetContract returns the full stored contract, or an error wrapping
// graph.ErrNotFound. It is read in one transaction, so a concurrent update
// is seen entirely or not at all.
func (s *Store) GetContract(ctx context.Context, id string) (*contract.Contract, error) {
	recs, err := s.run(ctx, neo4j.AccessModeRead, statement{Cypher: getContractCypher, Params: map[string]any{"id": id}})
	if err != nil {
		return nil, fmt.Errorf("get contract %q: %w", id, err)
	}
	if len(recs) == 0 {
		return nil, fmt.Errorf("get contract %q: %w", id, graph.ErrNotFound)
	}
	c, err := decodeContract(recs[0].AsMap())
	if err != nil {
		return nil, fmt.Errorf("get contract %q: %w", id, err)
	}
	return c, nil
}

// getContractTx reads the stored contract id in tx.
func getContractTx(ctx context.Context, tx neo4j.ManagedTransaction, id string) (*contract.Contract, error) {
	recs, err := collect(ctx, tx, statement{Cypher: getContractCypher, Params: map[string]any{"id": id}})
	if err != nil {
		return nil, err
	}
	if len(recs) == 0 {
		return nil, graph.ErrNotFound
	}
	return decodeContract(recs[0].AsMap())
}

func decodeContract(m map[string]any) (*contract.Contract, error) {
	cm, _ := m["c"].(map[string]any)
	c := &contract.Contract{
		ID: getString(cm, "id"), Title: getString(cm, "title"), Summary: getString(cm, "summary"),
		ContractType: getString(cm, "contract_type"), EffectiveDate: getString(cm, "effective_date"),
		EndDate: getString(cm, "end_date"), Duration: getString(cm, "duration"),
		DurationDays: getIntPtr(cm, "duration_days"), RenewalTerm: getString(cm, "renewal_term"),
		NoticePeriod: getString(cm, "notice_period"), TotalAmount: getFloatPtr(cm, "total_amount"),
		Currency: getString(cm, "currency"), Scope: getString(cm, "scope"), SourcePath: getString(cm, "source_path"),
		SHA256: getString(cm, "sha256"), ExtractedBy: getString(cm, "extracted_by"),
		ExtractedAt: getString(cm, "extracted_at"), Text: getString(cm, "text"),
		GoverningLaw: decodeLocation(m["governing_law"]),
	}
	readTimeline(cm, c)
	if _, ok := cm["usage_input_tokens"]; ok {
		c.Usage = &contract.TokenUsage{
			InputTokens: int(getInt(cm, "usage_input_tokens")), OutputTokens: int(getInt(cm, "usage_output_tokens")),
		}
	}
	if ev := getString(cm, "evidence"); ev != "" {
		if err := json.Unmarshal([]byte(ev), &c.Evidence); err != nil {
			return nil, fmt.Errorf("evidence: %w", err)
		}
	}
	if pv := getString(cm, "provenance"); pv != "" {
		if err := json.Unmarshal([]byte(pv), &c.Provenance); err != nil {
			return nil, fmt.Errorf("provenance: %w", err)
		}
	}
	if pv := getString(cm, "provenance"); pv != "" {
		if err := json.Unmarshal([]byte(pv), &c.Provenance); err != nil {
			return nil, fmt.Errorf("provenance: %w", err)
		}
	}
	for _, v := range asSlice(m["parties"]) {
		pm, _ := v.(map[string]any)
		c.Parties = append(c.Parties, contract.PartyRole{
			PartyID: getString(pm, "party_id"), Name: getString(pm, "name"), Role: getString(pm, "role"),
			Location: decodeLocation(pm["location"]),
		})
	}
	for _, v := range asSlice(m["clauses"]) {
		cl, _ := v.(map[string]any)
		verified, _ := cl["verified"].(bool)
		c.Clauses = append(c.Clauses, contract.Clause{
			ID: getString(cl, "id"), Type: getString(cl, "type"), Group: getString(cl, "group"),
			Summary: getString(cl, "summary"), Text: getString(cl, "text"),
			Start: int(getInt(cl, "start")), End: int(getInt(cl, "end")), Verified: verified,
		})
	}
	for _, v := range asSlice(m["chunks"]) {
		ch, _ := v.(map[string]any)
		c.Chunks = append(c.Chunks, contract.Chunk{
			ID: getString(ch, "id"), Ord: int(getInt(ch, "ord")), Text: getString(ch, "text"),
			Start: int(getInt(ch, "start")), End: int(getInt(ch, "end")),
		})
	}
	return c, nil
}

// contractsPage is how many ids Contracts reads at a time.
const contractsPage = 256

// Contracts calls fn for every stored contract in id order. It reads a page
// of ids at a time and no transaction is open while fn runs, so fn may use
// the store (even write to it); contracts changed meanwhile are seen as they
// are when reached.
func (s *Store) Contracts(ctx context.Context, fn func(*contract.Contract) error) error {
	after := "" // ids are never empty
	for {
		recs, err := s.run(ctx, neo4j.AccessModeRead, statement{Cypher: contractIDsCypher,
			Params: map[string]any{"after": after, "limit": contractsPage}})
		if err != nil {
			return fmt.Errorf("list contracts: %w", err)
		}
		for _, r := range recs {
			id := getString(r.AsMap(), "id")
			after = id
			c, err := s.GetContract(ctx, id)
			if errors.Is(err, graph.ErrNotFound) {
				continue // deleted since the page was read
			}
			if err != nil {
				return err
			}
			if err := fn(c); err != nil {
				return err
			}
		}
		if len(recs) < contractsPage {
			return nil
		}
	}
}

func getString(m map[string]any, k string) string {
	s, _ := m[k].(string)
	return s
}

func getInt(m map[string]any, k string) int64 {
	switch v := m[k].(type) {
	case int64:
		return v
	case float64:
		return int64(v)
	}
	return 0
}

func getIntPtr(m map[string]any, k string) *int {
	if _, ok := m[k].(int64); !ok {
		return nil
	}
	v := int(getInt(m, k))
	return &v
}

func getFloatPtr(m map[string]any, k string) *float64 {
	switch v := m[k].(type) {
	case float64:
		return &v
	case int64:
		f := float64(v)
		return &f
	}
	return nil
}

func getStrings(m map[string]any, k string) []string {
	out := []string{}
	for _, v := range asSlice(m[k]) {
		if s, ok := v.(string); ok {
			out = append(out, s)
		}
	}
	return out
}
