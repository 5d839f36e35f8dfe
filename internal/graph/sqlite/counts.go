package sqlite

import (
	"context"
	"fmt"
	"math/bits"
	"reflect"

	"github.com/contractgraph/contractgraph/internal/graph"
)

// onlyFields reports whether f sets nothing but the fields clear zeroes on
// a copy of it (IncludeUnverified always allowed). A field added to
// graph.Filter later is not cleared, so a filter using it is never taken
// for one the maintained counts answer.
func onlyFields(f graph.Filter, clear func(*graph.Filter)) bool {
	clear(&f)
	f.IncludeUnverified = false
	return reflect.ValueOf(f).IsZero()
}

// countQuery is the query counting the contracts that match f, compiled
// as w: from the counts that migrations 0105 and 0110 maintain where the
// filter is one they count exactly, otherwise from the contracts table.
// It reads the clause kinds through q.
func (s *Store) countQuery(ctx context.Context, q querier, f graph.Filter, w *where) (string, []any, error) {
	base := `SELECT count(*) FROM contracts c` + w.sql()
	if s.baseQueries || len(w.conds) == 0 {
		return base, w.args, nil
	}
	column := "verified_contracts"
	if f.IncludeUnverified {
		column = "contracts"
	}
	// One date's range: the sum over the dates in it. Each condition on
	// the date column is the same condition on date_counts.day, which
	// holds the whole stored value, and a contract counts under its date
	// only when the date is verified (unless unverified values count).
	if onlyFields(f, func(f *graph.Filter) { f.MinEffectiveDate, f.MaxEffectiveDate = "", "" }) {
		return dateCountQuery("effective", column, f.MinEffectiveDate, f.MaxEffectiveDate, "", "")
	}
	if onlyFields(f, func(f *graph.Filter) { f.MinEndDate, f.MaxEndDate, f.Active, f.AsOf = "", "", nil, "" }) {
		var activeFrom, endedBefore string
		if f.Active != nil && *f.Active {
			activeFrom = f.AsOf
		} else if f.Active != nil {
			endedBefore = f.AsOf
		}
		return dateCountQuery("end", column, f.MinEndDate, f.MaxEndDate, activeFrom, endedBefore)
	}
	// A party country: country_stats counts the distinct contracts with a
	// (verified) party there.
	if f.PartyCountry != "" && onlyFields(f, func(f *graph.Filter) { f.PartyCountry = "" }) {
		return `SELECT coalesce((SELECT ` + column + ` FROM country_stats WHERE country = ?), 0)`, []any{f.PartyCountry}, nil
	}
	// The governing law's country or state: the sum over its locations.
	if onlyFields(f, func(f *graph.Filter) { f.GoverningLawCountry, f.GoverningLawState = "", "" }) {
		lw := lawWhere(f)
		return `SELECT coalesce(sum(lc.` + column + `), 0) FROM law_counts lc JOIN locations gl ON gl.pk = lc.location_pk` + lw.sql(), lw.args, nil
	}
	// One clause kind with a bit: its count in clause_counts (clause
	// filters read no unverified flag).
	if len(f.ClauseTypes) == 1 && onlyFields(f, func(f *graph.Filter) { f.ClauseTypes = nil }) {
		mask, rest, err := clauseKindBits(ctx, q, f.ClauseTypes)
		if err != nil {
			return "", nil, err
		}
		if len(rest) == 0 && bits.OnesCount64(uint64(mask)) == 1 {
			return `SELECT coalesce((SELECT contracts FROM clause_counts WHERE bit = ?), 0)`, []any{bits.TrailingZeros64(uint64(mask))}, nil
		}
	}
	return base, w.args, nil
}

// dateCountQuery sums date_counts' column over the dates of field within
// the bounds compileFilter sets ("" for none): min and max inclusive,
// activeFrom inclusive, endedBefore exclusive.
func dateCountQuery(field, column, min, max, activeFrom, endedBefore string) (string, []any, error) {
	w := &where{}
	w.add("field = ?", field)
	for _, b := range []struct{ op, v string }{{">=", min}, {"<=", max}, {">=", activeFrom}, {"<", endedBefore}} {
		if b.v != "" {
			w.add("day "+b.op+" ?", b.v)
		}
	}
	return fmt.Sprintf(`SELECT coalesce(sum(%s), 0) FROM date_counts`, column) + w.sql(), w.args, nil
}

// lawWhere is the governing-law part of f as conditions on its location
// gl, which compileFilter tests through c.governing_law_pk.
func lawWhere(f graph.Filter) *where {
	w := &where{}
	if f.GoverningLawCountry != "" {
		w.add("gl.country = ?", f.GoverningLawCountry)
	}
	if f.GoverningLawState != "" {
		w.add("gl.state = ?", f.GoverningLawState)
	}
	return w
}
