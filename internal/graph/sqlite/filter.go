package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"unicode"

	"github.com/contractgraph/contractgraph/internal/contract"
	"github.com/contractgraph/contractgraph/internal/graph"
)

// where accumulates ANDed SQL conditions with their parameters. Values are
// always parameters; the SQL text is built only from constants.
type where struct {
	conds []string
	args  []any
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

// monetaryOps is the allow-list of amount comparisons.
var monetaryOps = map[string]string{"=": "=", ">": ">", "<": "<", ">=": ">=", "<=": "<="}

// querier is a *sql.DB or *sql.Tx.
type querier interface {
	QueryContext(context.Context, string, ...any) (*sql.Rows, error)
	QueryRowContext(context.Context, string, ...any) *sql.Row
}

// compileFilter turns f into conditions on the contracts table aliased c.
// It reads the clause kind bits through q.
func compileFilter(ctx context.Context, q querier, f graph.Filter) (*where, error) {
	w := &where{}
	if f.MinEffectiveDate != "" {
		w.add("c.effective_date >= ?", f.MinEffectiveDate)
	}
	if f.MaxEffectiveDate != "" {
		w.add("c.effective_date <= ?", f.MaxEffectiveDate)
	}
	if f.MinEndDate != "" {
		w.add("c.end_date >= ?", f.MinEndDate)
	}
	if f.MaxEndDate != "" {
		w.add("c.end_date <= ?", f.MaxEndDate)
	}
	if f.ContractType != "" {
		w.add("c.contract_type = ?", f.ContractType)
	}
	for _, p := range f.Parties {
		// A party matches by containment of its name's or any alias's match key.
		w.add(`c.pk IN (SELECT cp.contract_pk FROM contract_parties cp WHERE cp.party_pk IN (`+partyMatchSQL+`))`,
			contract.MatchKey(p), contract.MatchKey(p))
	}
	if f.PartyCountry != "" {
		w.add("c.pk IN (SELECT contract_pk FROM contract_parties WHERE country = ?)", f.PartyCountry)
	}
	if f.GoverningLawCountry != "" {
		w.add("c.governing_law_pk IN (SELECT pk FROM locations WHERE country = ?)", f.GoverningLawCountry)
	}
	if f.GoverningLawState != "" {
		w.add("c.governing_law_pk IN (SELECT pk FROM locations WHERE state = ?)", f.GoverningLawState)
	}
	if f.Active != nil {
		if f.AsOf == "" {
			return nil, errors.New("filter active needs as_of")
		}
		if *f.Active {
			w.add("c.end_date >= ?", f.AsOf)
		} else {
			w.add("c.end_date < ?", f.AsOf)
		}
	}
	if m := f.Monetary; m != nil {
		op, ok := monetaryOps[m.Op]
		if !ok {
			return nil, fmt.Errorf("unknown monetary operator %q; valid values: =, >, <, >=, <=", m.Op)
		}
		w.add("c.total_amount "+op+" ?", m.Value)
	}
	// Clause kinds with a bit are tested on the contract row; the others
	// (unknown, or beyond the bits) through the clauses table.
	var mask int64
	for _, t := range f.ClauseTypes {
		var bit int
		err := q.QueryRowContext(ctx, `SELECT bit FROM clause_kinds WHERE kind = ?`, t).Scan(&bit)
		switch {
		case err == nil:
			mask |= 1 << bit
		case errors.Is(err, sql.ErrNoRows):
			w.add("EXISTS (SELECT 1 FROM clauses cl WHERE cl.contract_pk = c.pk AND (cl.type = ? OR cl.grp = ?))", t, t)
		default:
			return nil, fmt.Errorf("clause kind %q: %w", t, err)
		}
	}
	if mask != 0 {
		w.add("c.clause_bits & ? = ?", mask, mask)
	}
	if f.SummarySearch != "" {
		q := ftsQuery(f.SummarySearch, " AND ")
		if q == "" {
			return nil, fmt.Errorf("summary search %q holds no searchable word", f.SummarySearch)
		}
		w.add("c.pk IN (SELECT rowid FROM contract_fts WHERE contract_fts MATCH ?)", q)
	}
	if len(f.ContractIDs) > 0 {
		w.add("c.id IN ("+placeholders(len(f.ContractIDs))+")", anys(f.ContractIDs)...)
	}
	return w, nil
}

// partyMatchSQL selects the parties whose name or an alias contains a match
// key; it takes the key twice.
const partyMatchSQL = `SELECT pk FROM parties WHERE instr(match_key, ?) > 0
	UNION SELECT party_pk FROM party_aliases WHERE instr(match_key, ?) > 0`

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

// stopWords are left out of full-text queries: every contract has them, so
// requiring them would only lose matches.
var stopWords = map[string]bool{
	"a": true, "an": true, "and": true, "any": true, "are": true, "as": true, "at": true, "be": true,
	"by": true, "for": true, "from": true, "in": true, "is": true, "it": true, "of": true, "on": true,
	"or": true, "that": true, "the": true, "this": true, "to": true, "with": true, "which": true,
	"what": true, "who": true, "about": true,
}

// ftsQuery turns free text into an FTS5 query: its words (letters and
// digits), each quoted so that no FTS5 syntax in the input is interpreted,
// joined by op (" AND " or " OR "). Stop words are dropped unless they are
// all there is.
func ftsQuery(text, op string) string {
	words := strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	})
	var kept []string
	seen := map[string]bool{}
	for _, w := range words {
		if !stopWords[w] && !seen[w] {
			kept = append(kept, `"`+w+`"`)
			seen[w] = true
		}
	}
	if len(kept) == 0 {
		for _, w := range words {
			if !seen[w] {
				kept = append(kept, `"`+w+`"`)
				seen[w] = true
			}
		}
	}
	return strings.Join(kept, op)
}
