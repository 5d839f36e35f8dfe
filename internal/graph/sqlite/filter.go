package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/contractgraph/contractgraph/internal/contract"
	"github.com/contractgraph/contractgraph/internal/graph"
	"github.com/contractgraph/contractgraph/internal/textmatch"
)

// where accumulates ANDed SQL conditions with their parameters. Values are
// always parameters; the SQL text is built only from constants.
type where struct {
	conds []string
	args  []any
	// perRow holds, by index into conds, a form of the condition with the
	// same parameters that tests one contract row at a time (a correlated
	// EXISTS), for queries that test a few rows rather than select them
	// all (examplesByScan).
	perRow map[int]string
}

// addPerRow is add with perRow as the condition's form for testing one
// row at a time.
func (w *where) addPerRow(cond, perRow string, args ...any) {
	if w.perRow == nil {
		w.perRow = map[int]string{}
	}
	w.perRow[len(w.conds)] = perRow
	w.add(cond, args...)
}

// rowConds are the conditions with their per-row forms where they have one.
func (w *where) rowConds() []string {
	out := make([]string, len(w.conds))
	for i, c := range w.conds {
		if r, ok := w.perRow[i]; ok {
			c = r
		}
		out[i] = c
	}
	return out
}

func (w *where) add(cond string, args ...any) {
	w.conds = append(w.conds, cond)
	w.args = append(w.args, args...)
}

// sql returns the conditions as " WHERE a AND b", or "" when there are none.
func (w *where) sql() string {
	if len(w.conds) == 0 {
		return ""
	}
	return " WHERE " + strings.Join(w.conds, " AND ")
}

// querier is a *sql.DB or *sql.Tx.
type querier interface {
	QueryContext(context.Context, string, ...any) (*sql.Rows, error)
	QueryRowContext(context.Context, string, ...any) *sql.Row
}

// compileFilter turns f into conditions on the contracts table aliased c.
// It reads the clause kind bits through q.
func compileFilter(ctx context.Context, q querier, f graph.Filter) (*where, error) {
	w := &where{}
	// Each condition on a field's value also needs the value verified,
	// unless the filter includes unverified values.
	flagged := map[string]bool{}
	verified := func(field string) {
		if !f.IncludeUnverified && !flagged[field] {
			flagged[field] = true
			w.add("c.unverified & ? = 0", unverifiedBits[field])
		}
	}
	party := factsSQL(f.IncludeUnverified, "{verified_party}")
	if f.MinEffectiveDate != "" {
		w.add("c.effective_date >= ?", f.MinEffectiveDate)
		verified(contract.FieldEffectiveDate)
	}
	if f.MaxEffectiveDate != "" {
		w.add("c.effective_date <= ?", f.MaxEffectiveDate)
		verified(contract.FieldEffectiveDate)
	}
	if f.MinEndDate != "" {
		w.add("c.end_date >= ?", f.MinEndDate)
		verified(contract.FieldEndDate)
	}
	if f.MaxEndDate != "" {
		w.add("c.end_date <= ?", f.MaxEndDate)
		verified(contract.FieldEndDate)
	}
	if f.ContractType != "" {
		w.add("c.contract_type = ?", f.ContractType)
		verified(contract.FieldContractType)
	}
	if f.PartyConditions() > 0 {
		// An entry matches a party by containment of its name's or any
		// alias's match key; an id set by the party's id. Each is one
		// where of its own, holding the party selection.
		var subs []*where
		for _, p := range f.Parties {
			sub := &where{}
			sub.add(partyMatchSQL, contract.MatchKey(p), contract.MatchKey(p))
			subs = append(subs, sub)
		}
		for _, ids := range f.PartyIDSets {
			sub := &where{}
			in, args := inList(ids)
			sub.add("SELECT pk FROM parties WHERE id IN "+in, args...)
			subs = append(subs, sub)
		}
		contracts := `c.pk IN (SELECT cp.contract_pk FROM contract_parties cp WHERE ` + party + ` AND cp.party_pk IN (`
		if f.PartiesMatch == graph.PartiesAny {
			// Any entry: one look-up of the union of their parties.
			union := &where{}
			for _, sub := range subs {
				union.add(sub.conds[0], sub.args...)
			}
			w.add(contracts+strings.Join(union.conds, " UNION ")+"))", union.args...)
		} else {
			for _, sub := range subs {
				w.add(contracts+sub.conds[0]+"))", sub.args...)
			}
		}
	}
	if f.PartyCountry != "" {
		w.addPerRow("c.pk IN (SELECT contract_pk FROM contract_parties WHERE country = ? AND "+party+")",
			"EXISTS (SELECT 1 FROM contract_parties WHERE contract_pk = c.pk AND country = ? AND "+party+")", f.PartyCountry)
	}
	if f.GoverningLawCountry != "" {
		w.add("c.governing_law_pk IN (SELECT pk FROM locations WHERE country = ?)", f.GoverningLawCountry)
		verified(contract.FieldGoverningLaw)
	}
	if f.GoverningLawState != "" {
		w.add("c.governing_law_pk IN (SELECT pk FROM locations WHERE state = ?)", f.GoverningLawState)
		verified(contract.FieldGoverningLaw)
	}
	if f.Active != nil {
		if f.AsOf == "" {
			return nil, graph.ErrActiveNeedsAsOf
		}
		if *f.Active {
			w.add("c.end_date >= ?", f.AsOf)
		} else {
			w.add("c.end_date < ?", f.AsOf)
		}
		verified(contract.FieldEndDate)
	}
	if m := f.Monetary; m != nil {
		op, v, err := m.Comparison()
		if err != nil {
			return nil, err
		}
		w.add("c.total_amount "+op+" ?", v)
		verified(contract.FieldTotalAmount)
	}
	if f.Currency != "" {
		w.add("c.currency = ?", f.Currency)
		verified(contract.FieldTotalAmount)
	}
	// Clause kinds with a bit are tested on the contract row; the others
	// (unknown, or beyond the bits) through the clauses table.
	mask, rest, err := clauseKindBits(ctx, q, f.ClauseTypes)
	if err != nil {
		return nil, err
	}
	if mask != 0 {
		w.add("c.clause_bits & ? = ?", mask, mask)
	}
	for _, t := range rest {
		w.add("EXISTS (SELECT 1 FROM clauses cl WHERE cl.contract_pk = c.pk AND (cl.type = ? OR cl.grp = ?))", t, t)
	}
	none, rest, err := clauseKindBits(ctx, q, f.WithoutClauseTypes)
	if err != nil {
		return nil, err
	}
	if none != 0 {
		w.add("c.clause_bits & ? = 0", none)
	}
	for _, t := range rest {
		w.add("NOT EXISTS (SELECT 1 FROM clauses cl WHERE cl.contract_pk = c.pk AND (cl.type = ? OR cl.grp = ?))", t, t)
	}
	if f.SummarySearch != "" {
		q := summaryFTSQuery(graph.SummaryGroups(f.SummarySearch, f.SummaryMatch == graph.SummaryAll))
		if q == "" {
			return nil, graph.NoWords("summary_search", f.SummarySearch)
		}
		if len(f.SummaryIDs) > 0 {
			// By words or by meaning (graph.Filter.SummaryIDs).
			in, args := inList(f.SummaryIDs)
			w.add("(c.pk IN (SELECT rowid FROM contract_fts WHERE contract_fts MATCH ?) OR c.id IN "+in+")",
				append([]any{q}, args...)...)
		} else {
			w.add("c.pk IN (SELECT rowid FROM contract_fts WHERE contract_fts MATCH ?)", q)
		}
	}
	if f.RenewalKind != "" {
		w.add("c.pk IN (SELECT contract_pk FROM contract_timelines WHERE renewal_kind = ?)", f.RenewalKind)
		verified(contract.FieldRenewalKind)
	}
	if lo, hi, ok := f.NoticeRange(); ok {
		cond, args, err := noticeCondition(ctx, q, f, lo, hi)
		if err != nil {
			return nil, err
		}
		w.add(cond, args...)
	}
	if len(f.ContractIDs) > 0 {
		in, args := inList(f.ContractIDs)
		w.add("c.id IN "+in, args...)
	}
	return w, nil
}

// partyMatchSQL selects the parties whose name or an alias contains a match
// key; it takes the key twice.
const partyMatchSQL = `SELECT pk FROM parties WHERE instr(match_key, ?) > 0
	UNION SELECT party_pk FROM party_aliases WHERE instr(match_key, ?) > 0`

// maxListParams is the longest list of values inList binds one by one.
// SQLite allows at most 32,766 parameters in a statement (fewer in older
// builds), and a party in a store of a million contracts has more
// contracts than that.
const maxListParams = 500

// inList is the SQL list "(?, ?, ...)" of vals after IN, with its
// arguments; more than maxListParams values are bound as one JSON array
// read by json_each, so that no list of ids can exceed SQLite's limit on
// parameters.
func inList(vals []string) (string, []any) {
	if len(vals) <= maxListParams {
		return "(" + placeholders(len(vals)) + ")", anys(vals)
	}
	b, _ := json.Marshal(vals) // a slice of strings always encodes
	return "(SELECT value FROM json_each(?))", []any{string(b)}
}

func placeholders(n int) string {
	return strings.TrimSuffix(strings.Repeat("?, ", n), ", ")
}

func anys(ss []string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}

// ftsQuery turns free text into an FTS5 query: its search words
// (textmatch.SearchWords), each quoted so that no FTS5 syntax in the input
// is interpreted, joined by op (" AND " or " OR ").
func ftsQuery(text, op string) string {
	words := textmatch.SearchWords(text)
	for i, w := range words {
		words[i] = `"` + w + `"`
	}
	return strings.Join(words, op)
}

// clauseKindBits returns the clause_bits mask of the kinds that have a bit
// in clause_kinds, and the kinds that have none (unknown, or beyond the
// bits), which only the clauses table can test.
func clauseKindBits(ctx context.Context, q querier, kinds []string) (mask int64, rest []string, err error) {
	for _, t := range kinds {
		var bit int
		err := q.QueryRowContext(ctx, `SELECT bit FROM clause_kinds WHERE kind = ?`, t).Scan(&bit)
		switch {
		case err == nil:
			mask |= 1 << bit
		case errors.Is(err, sql.ErrNoRows):
			rest = append(rest, t)
		default:
			return 0, nil, fmt.Errorf("clause kind %q: %w", t, err)
		}
	}
	return mask, rest, nil
}

// summaryFTSQuery is the FTS5 query of graph.SummaryGroups: each group's
// words ANDed, the groups ORed, every word quoted so that no FTS5 syntax in
// the input is interpreted.
func summaryFTSQuery(groups [][]string) string {
	parts := make([]string, len(groups))
	for i, g := range groups {
		words := make([]string, len(g))
		for j, w := range g {
			words[j] = `"` + w + `"`
		}
		parts[i] = strings.Join(words, " AND ")
		if len(groups) > 1 {
			parts[i] = "(" + parts[i] + ")"
		}
	}
	return strings.Join(parts, " OR ")
}
