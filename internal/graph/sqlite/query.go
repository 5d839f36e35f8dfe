package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/contractgraph/contractgraph/internal/contract"
	"github.com/contractgraph/contractgraph/internal/graph"
)

// orderColumns is the allow-list of contract orderings, as templates of
// factsSQL (an unverified value orders as a missing one by default).
var orderColumns = map[string]string{
	graph.OrderEffectiveDate: "{effective_date}",
	graph.OrderEndDate:       "{end_date}",
	graph.OrderTotalAmount:   "{total_amount}",
	graph.OrderDurationDays:  "{duration_days}",
	graph.OrderPartyCount:    "c.party_count",
}

// readTx runs fn in one read-only transaction, so that the queries of one
// answer (a count and its examples) see the same snapshot.
func (s *Store) readTx(ctx context.Context, fn func(tx *sql.Tx) error) error {
	tx, err := s.rdb.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return err
	}
	defer tx.Rollback()
	return fn(tx)
}

// SearchContracts counts the contracts matching q and returns q.Limit of
// them in q's order (nulls last, then id ascending), after skipping q.Offset.
func (s *Store) SearchContracts(ctx context.Context, q graph.ContractQuery) (graph.ContractResult, error) {
	res := graph.ContractResult{Examples: []graph.ContractSummary{}}
	n, err := q.EffectiveLimit()
	if err != nil {
		return res, fmt.Errorf("search contracts: %w", err)
	}
	orderBy := q.OrderBy
	desc := q.Desc
	if orderBy == "" {
		orderBy, desc = graph.OrderEffectiveDate, true
	}
	col, ok := orderColumns[orderBy]
	if !ok {
		return res, fmt.Errorf("search contracts: %w", graph.UnknownValue("order_by", q.OrderBy, graph.ContractOrders))
	}
	col = factsSQL(q.IncludeUnverified, col)
	w, err := compileFilter(ctx, s.rdb, q.Filter)
	if err != nil {
		return res, fmt.Errorf("search contracts: %w", err)
	}
	// SQLite sorts NULL first ascending and last descending; NULLS LAST
	// makes both directions put missing values last.
	order := col + " ASC NULLS LAST"
	if desc {
		order = col + " DESC"
	}
	err = s.readTx(ctx, func(tx *sql.Tx) error {
		countSQL, countArgs, err := s.countQuery(ctx, tx, q.Filter, w)
		if err != nil {
			return fmt.Errorf("count: %w", err)
		}
		if err := tx.QueryRowContext(ctx, countSQL, countArgs...).Scan(&res.TotalCount); err != nil {
			return fmt.Errorf("count: %w", err)
		}
		if res.TotalCount <= q.Offset {
			return nil
		}
		// Read the first entries of the order's index, or sort the narrow
		// contracts rows; then read the few examples whole.
		var pks []int64
		scanned := false
		if !s.baseQueries {
			pks, scanned, err = examplesByScan(ctx, tx, q, orderBy, col, desc, w, res.TotalCount, n)
			if err != nil {
				return fmt.Errorf("examples: %w", err)
			}
		}
		if !scanned {
			args := append(append([]any{}, w.args...), n, q.Offset)
			err = eachRow(ctx, tx, `SELECT c.pk FROM contracts c`+w.sql()+` ORDER BY `+order+`, c.id ASC LIMIT ? OFFSET ?`, args,
				func(r *sql.Rows) error {
					var pk int64
					if err := r.Scan(&pk); err != nil {
						return err
					}
					pks = append(pks, pk)
					return nil
				})
			if err != nil {
				return fmt.Errorf("examples: %w", err)
			}
		}
		res.Examples = make([]graph.ContractSummary, len(pks))
		at := make(map[int64]int, len(pks))
		for i, pk := range pks {
			at[pk] = i
		}
		err = eachRow(ctx, tx, `SELECT `+contractColumns+` FROM `+contractFrom+` WHERE c.pk IN (`+placeholders(len(pks))+`)`,
			int64s(pks), func(r *sql.Rows) error {
				pk, c, err := scanContract(r)
				if err != nil {
					return err
				}
				res.Examples[at[pk]] = graph.ContractSummary{
					ContractID: c.ID, Title: c.Title, ContractType: c.ContractType, Summary: c.Summary, Scope: c.Scope,
					EffectiveDate: c.EffectiveDate, EndDate: c.EndDate, Duration: c.Duration, DurationDays: c.DurationDays,
					TotalAmount: c.TotalAmount, Currency: c.Currency, GoverningLaw: c.GoverningLaw,
					Parties: []graph.PartyRef{}, ClauseTypes: []string{},
				}
				return nil
			})
		if err != nil {
			return fmt.Errorf("examples: %w", err)
		}
		err = eachRow(ctx, tx, `SELECT contract_pk, unverified FROM contract_details WHERE unverified IS NOT NULL AND contract_pk IN (`+placeholders(len(pks))+`)`,
			int64s(pks), func(r *sql.Rows) error {
				var pk int64
				var list string
				if err := r.Scan(&pk, &list); err != nil {
					return err
				}
				e := &res.Examples[at[pk]]
				if err := json.Unmarshal([]byte(list), &e.Unverified); err != nil {
					return fmt.Errorf("contract %q: unverified values: %w", e.ContractID, err)
				}
				return nil
			})
		if err != nil {
			return fmt.Errorf("examples: %w", err)
		}
		return fillSummaries(ctx, tx, pks, res.Examples)
	})
	if err != nil {
		return graph.ContractResult{}, fmt.Errorf("search contracts: %w", err)
	}
	return res, nil
}

func int64s(v []int64) []any {
	out := make([]any, len(v))
	for i, x := range v {
		out[i] = x
	}
	return out
}

// fillSummaries adds parties and clause types to the examples, whose
// contract pks are pks.
func fillSummaries(ctx context.Context, tx *sql.Tx, pks []int64, ex []graph.ContractSummary) error {
	if len(pks) == 0 {
		return nil
	}
	idx := make(map[int64]int, len(pks))
	args := make([]any, len(pks))
	for i, pk := range pks {
		idx[pk] = i
		args[i] = pk
	}
	in := placeholders(len(pks))
	err := eachRow(ctx, tx, `SELECT cp.contract_pk, cp.name, cp.role, cp.country FROM contract_parties cp
		WHERE cp.contract_pk IN (`+in+`) ORDER BY cp.contract_pk, cp.ord`, args, func(r *sql.Rows) error {
		var pk int64
		var p graph.PartyRef
		var role, country sql.NullString
		if err := r.Scan(&pk, &p.Name, &role, &country); err != nil {
			return err
		}
		p.Role, p.Country = role.String, country.String
		e := &ex[idx[pk]]
		e.Parties = append(e.Parties, p)
		return nil
	})
	if err != nil {
		return fmt.Errorf("parties: %w", err)
	}
	err = eachRow(ctx, tx, `SELECT DISTINCT contract_pk, type FROM clauses WHERE contract_pk IN (`+in+`)
		ORDER BY contract_pk, type`, args, func(r *sql.Rows) error {
		var pk int64
		var t string
		if err := r.Scan(&pk, &t); err != nil {
			return err
		}
		e := &ex[idx[pk]]
		e.ClauseTypes = append(e.ClauseTypes, t)
		return nil
	})
	if err != nil {
		return fmt.Errorf("clause types: %w", err)
	}
	return nil
}

// grouping is how one group_by value finds its keys. A contract-level
// grouping has one key per contract, an expression over contracts c (after
// join). A linked grouping reads (k, pk) pairs of key and contract pk, not
// necessarily distinct, from a relationship table; name, when set, turns
// the key into its display form through nameJoin onto agg.
type grouping struct {
	join     string
	key      string
	link     string
	name     string
	nameJoin string
	// verify names the field whose value the grouping reads through join
	// or link: a contract whose value is unverified is in no group.
	verify string
	// counted, when set, is the grouping's count without a filter from
	// the maintained aggregates (migration 0105): a query of (k, n) rows
	// with {counted} for the column of all or of verified counts, listing
	// only keys the base query has (n > 0, k not NULL or '').
	counted string
}

// Counts of the maintained aggregates by grouping key. A date grouping's key
// is a function of the date's first seven characters (year, quarter and
// month all are), so summing the months of period_counts counts each
// contract once under the key its date has.
const (
	periodCounted = `SELECT %s AS k, sum({counted}) AS n FROM period_counts WHERE field = '%s' GROUP BY k HAVING n > 0 AND k IS NOT NULL AND k <> ''`
	quarterKey    = "substr(period, 1, 4) || '-Q' || ((CAST(substr(period, 6, 2) AS INTEGER) + 2) / 3)"
)

// typeCounted counts the contracts of each type from type_amounts
// (migration 0110), whose rows are per type, currency and flags: the
// verified ones are those whose flags leave the type verified.
var typeCounted = fmt.Sprintf(`SELECT k, sum({counted}) AS n FROM (SELECT contract_type AS k, contracts,
		iif(flags & %d = 0, contracts, 0) AS verified_contracts FROM type_amounts)
	GROUP BY k HAVING n > 0 AND k <> ''`, unverifiedBits[contract.FieldContractType])

// groupings is the allow-list of aggregate groupings. Keys, joins and
// links are templates of factsSQL: an unverified value is in no group
// unless the filter includes unverified values.
var groupings = map[string]grouping{
	graph.GroupContractType: {key: "{contract_type}", counted: typeCounted},
	graph.GroupEffectiveYear: {key: "substr({effective_date}, 1, 4)",
		counted: fmt.Sprintf(periodCounted, "substr(period, 1, 4)", "effective")},
	graph.GroupEffectiveMonth: {key: "substr({effective_date}, 1, 7)",
		counted: fmt.Sprintf(periodCounted, "substr(period, 1, 7)", "effective")},
	graph.GroupEffectiveQuarter: {key: "substr({effective_date}, 1, 4) || '-Q' || ((CAST(substr({effective_date}, 6, 2) AS INTEGER) + 2) / 3)",
		counted: fmt.Sprintf(periodCounted, quarterKey, "effective")},
	graph.GroupEndYear: {key: "substr({end_date}, 1, 4)",
		counted: fmt.Sprintf(periodCounted, "substr(period, 1, 4)", "end")},
	graph.GroupGoverningLawCountry: {join: " JOIN locations gl ON gl.pk = c.governing_law_pk", key: "gl.country", verify: contract.FieldGoverningLaw},
	graph.GroupGoverningLawState:   {join: " JOIN locations gl ON gl.pk = c.governing_law_pk", key: "gl.state", verify: contract.FieldGoverningLaw},
	graph.GroupParty: {
		link: "SELECT party_pk AS k, contract_pk AS pk FROM contract_parties WHERE {verified_party}",
		name: "p.name", nameJoin: " JOIN parties p ON p.pk = agg.k",
		counted: "SELECT party_pk AS k, {counted} AS n FROM party_stats WHERE {counted} > 0",
	},
	graph.GroupPartyCountry: {
		link:    "SELECT country AS k, contract_pk AS pk FROM contract_parties WHERE country IS NOT NULL AND country <> '' AND {verified_party}",
		counted: "SELECT country AS k, {counted} AS n FROM country_stats WHERE {counted} > 0",
	},
	graph.GroupClauseType:  {link: "SELECT type AS k, contract_pk AS pk FROM clauses"},
	graph.GroupRenewalKind: {link: "SELECT renewal_kind AS k, contract_pk AS pk FROM contract_timelines WHERE renewal_kind IS NOT NULL", verify: contract.FieldRenewalKind},
}

// metrics is the allow-list of aggregate metrics over a group's distinct
// contracts c, templates of factsSQL (an unverified value is not measured).
var metrics = map[string]string{
	graph.MetricCount:           "count(*)",
	graph.MetricSumAmount:       "sum({total_amount})",
	graph.MetricAvgAmount:       "avg({total_amount})",
	graph.MetricMinAmount:       "min({total_amount})",
	graph.MetricMaxAmount:       "max({total_amount})",
	graph.MetricAvgDurationDays: "avg({duration_days})",
	graph.MetricMinDurationDays: "min({duration_days})",
	graph.MetricMaxDurationDays: "max({duration_days})",
}

// AggregateContracts groups the contracts matching q and measures each
// group; see graph.AggregateQuery. Without GroupBy there is always exactly
// one group, "all", even when no contract matches.
func (s *Store) AggregateContracts(ctx context.Context, q graph.AggregateQuery) (graph.AggregateResult, error) {
	res := graph.AggregateResult{Groups: []graph.Group{}}
	n, err := q.EffectiveLimit()
	if err != nil {
		return res, fmt.Errorf("aggregate contracts: %w", err)
	}
	metricName := q.Metric
	if metricName == "" {
		metricName = graph.MetricCount
	}
	metric, ok := metrics[metricName]
	if !ok {
		return res, fmt.Errorf("aggregate contracts: %w", graph.UnknownValue("metric", q.Metric, graph.Metrics))
	}
	var g grouping
	if q.GroupBy != "" {
		if g, ok = groupings[q.GroupBy]; !ok {
			return res, fmt.Errorf("aggregate contracts: %w", graph.UnknownValue("group_by", q.GroupBy, graph.Groupings))
		}
	}
	w, err := compileFilter(ctx, s.rdb, q.Filter)
	if err != nil {
		return res, fmt.Errorf("aggregate contracts: %w", err)
	}
	metric = factsSQL(q.IncludeUnverified, metric)
	g.key, g.join, g.link = factsSQL(q.IncludeUnverified, g.key), factsSQL(q.IncludeUnverified, g.join), factsSQL(q.IncludeUnverified, g.link)
	if g.verify != "" && !q.IncludeUnverified {
		w.add("c.unverified & ? = 0", unverifiedBits[g.verify])
	}
	dir := "DESC"
	if q.Asc {
		dir = "ASC"
	}
	// Amounts are measured per currency: the currency is a second key.
	money := graph.AmountMetric(metricName)
	cur, curKey := "", ""
	if money {
		cur, curKey = ", cur", factsSQL(q.IncludeUnverified, ", coalesce({currency}, '') AS cur")
	}
	// The maintained aggregates answer only what they count: no filter.
	unfiltered := len(w.conds) == 0 && !s.baseQueries
	counted, countedArgs := "", []any{}
	if unfiltered && metricName == graph.MetricCount {
		counted = g.counted
	}
	// Governing-law groupings count from law_counts (migration 0110), also
	// under a filter on the governing law itself: the filter and the key
	// are both the contract's location, and both need it verified.
	law := q.GroupBy == graph.GroupGoverningLawCountry || q.GroupBy == graph.GroupGoverningLawState
	if law && metricName == graph.MetricCount && !s.baseQueries &&
		onlyFields(q.Filter, func(f *graph.Filter) { f.GoverningLawCountry, f.GoverningLawState = "", "" }) {
		lw := lawWhere(q.Filter)
		lw.add(g.key + " IS NOT NULL AND " + g.key + " <> ''")
		counted = `SELECT ` + g.key + ` AS k, sum(lc.{counted}) AS n FROM law_counts lc JOIN locations gl ON gl.pk = lc.location_pk` +
			lw.sql() + ` GROUP BY k HAVING n > 0`
		countedArgs = lw.args
	}
	// amountsQuery, when set, answers as query does from type_amounts
	// wherever typeAmountsUsable says its sums are exact.
	var query, amountsQuery string
	switch {
	case q.GroupBy == "" && money:
		query = `SELECT 'all' AS k` + curKey + `, count(*) AS n, ` + metric + ` AS v, count(*) OVER ()
			FROM contracts c` + w.sql() + ` GROUP BY cur ORDER BY v IS NULL, v ` + dir + `, cur LIMIT ?`
	case q.GroupBy == "":
		// One group over every matching contract, present even when empty.
		query = `SELECT 'all', count(*), ` + metric + `, 1 FROM contracts c` + w.sql() + ` LIMIT ?`
	case counted != "":
		column := "verified_contracts"
		if q.IncludeUnverified {
			column = "contracts"
		}
		name := "agg.k"
		if g.name != "" {
			name = g.name
		}
		// The first n groups by count all count at least (at most, ascending)
		// as the n-th count: only those are named and sorted by name.
		cut := `agg.n >= coalesce((SELECT n FROM agg ORDER BY n DESC LIMIT 1 OFFSET ?), 0)`
		if q.Asc {
			cut = `agg.n <= coalesce((SELECT n FROM agg ORDER BY n ASC LIMIT 1 OFFSET ?), agg.n)`
		}
		query = `WITH agg AS (` + strings.ReplaceAll(counted, "{counted}", column) + `)
			SELECT ` + name + ` AS key, n, n AS v, (SELECT count(*) FROM agg) FROM agg` + g.nameJoin + `
			WHERE ` + cut + ` ORDER BY v ` + dir + `, key ` + dir + ` LIMIT ?`
		w.args = append(countedArgs, max(n-1, 0))
	case unfiltered && money && q.GroupBy == graph.GroupContractType:
		query = typeMoneyQuery(typeMoneyGroups(metric, q.IncludeUnverified), dir)
		if metricName == graph.MetricSumAmount || metricName == graph.MetricAvgAmount {
			amountsQuery = typeMoneyQuery(typeAmountsGroups(metricName, q.IncludeUnverified), dir)
		}
	case g.link == "":
		w.add(g.key + " IS NOT NULL AND " + g.key + " <> ''")
		query = `SELECT ` + g.key + ` AS k` + curKey + `, count(*) AS n, ` + metric + ` AS v, count(*) OVER ()
			FROM contracts c` + g.join + w.sql() + ` GROUP BY k` + cur + ` ORDER BY v IS NULL, v ` + dir + `, k ` + dir + cur + ` LIMIT ?`
	default:
		// Counting needs no distinct (key, contract) pairs first, nor, without
		// a filter, the contracts table: the link table's index has it all.
		var agg string
		if metricName == graph.MetricCount {
			from := `(` + g.link + `) d`
			if len(w.conds) > 0 {
				from += ` JOIN contracts c ON c.pk = d.pk`
			}
			agg = `SELECT d.k AS k, count(DISTINCT d.pk) AS n, count(DISTINCT d.pk) AS v FROM ` + from + w.sql() + ` GROUP BY d.k`
		} else {
			agg = `SELECT d.k AS k` + curKey + `, count(*) AS n, ` + metric + ` AS v FROM (SELECT DISTINCT k, pk FROM (` + g.link + `)) d
				JOIN contracts c ON c.pk = d.pk` + w.sql() + ` GROUP BY d.k` + cur
		}
		name := "agg.k"
		if g.name != "" {
			name = g.name
		}
		query = `WITH agg AS (` + agg + `)
			SELECT ` + name + ` AS key` + cur + `, n, v, count(*) OVER () FROM agg` + g.nameJoin + `
			ORDER BY v IS NULL, v ` + dir + `, key ` + dir + cur + ` LIMIT ?`
	}
	scanGroup := func(r *sql.Rows) error {
		var grp graph.Group
		var v sql.NullFloat64
		dest := []any{&grp.Key, &grp.Count, &v, &res.TotalGroups}
		if money {
			grp.Currency = new(string)
			dest = []any{&grp.Key, grp.Currency, &grp.Count, &v, &res.TotalGroups}
		}
		if err := r.Scan(dest...); err != nil {
			return err
		}
		if v.Valid {
			f := v.Float64
			grp.Value = &f
		}
		res.Groups = append(res.Groups, grp)
		return nil
	}
	args := append(append([]any{}, w.args...), n)
	err = s.readTx(ctx, func(tx *sql.Tx) error {
		if amountsQuery != "" && !s.baseQueries {
			var usable bool
			if err := tx.QueryRowContext(ctx, typeAmountsUsable).Scan(&usable); err != nil {
				return fmt.Errorf("type amounts: %w", err)
			}
			if usable {
				query = amountsQuery
			}
		}
		return eachRow(ctx, tx, query, args, scanGroup)
	})
	if err != nil {
		return graph.AggregateResult{}, fmt.Errorf("aggregate contracts: %w", err)
	}
	if q.GroupBy == "" && money && len(res.Groups) == 0 {
		// The one group "all" is there even when no contract matches.
		res.Groups, res.TotalGroups = []graph.Group{{Key: "all", Currency: new(string)}}, 1
	}
	return res, nil
}

// typeMoneyQuery is the unfiltered grouping by contract type of an amount
// metric, by currency, from groups g of (k, cur0, ok, total, v): per
// contract type k (verified unless unverified values count) and stored
// currency cur0, the contracts with a verified amount (ok), all of them
// (total) and the metric over the verified amounts (v). The base query's
// currency key is empty for a contract whose amount is unverified, and its
// amount NULL: such a contract only adds to the count of its type's group
// without a currency. So each (type, stored currency) group counts its
// contracts with a verified amount under its currency, and the group of a
// type without a currency is its NULL currency group plus every contract
// with an unverified amount. (Stored currencies are never empty: writers
// store a missing value as NULL.)
func typeMoneyQuery(g, dir string) string {
	return `WITH g AS (` + g + `),
		agg AS (
			SELECT k, cur0 AS cur, ok AS n, v FROM g WHERE cur0 IS NOT NULL AND ok > 0
			UNION ALL
			SELECT k, '', sum(iif(cur0 IS NULL, ok, 0)) + sum(total - ok), max(iif(cur0 IS NULL, v, NULL)) FROM g
			GROUP BY k HAVING sum(iif(cur0 IS NULL, ok, 0)) + sum(total - ok) > 0)
		SELECT k, cur, n, v, count(*) OVER () FROM agg ORDER BY v IS NULL, v ` + dir + `, k ` + dir + `, cur LIMIT ?`
}

// typeMoneyGroups are typeMoneyQuery's groups from the contracts, for
// metric (a template of factsSQL filled for include), in the order of the
// index contracts_amount (currency, contract type, ...), so that they need
// no sort of every contract.
func typeMoneyGroups(metric string, include bool) string {
	typeOK, amountOK := "1", "1"
	if !include {
		typeOK = "c.unverified & " + strconv.FormatInt(unverifiedBits[contract.FieldContractType], 10) + " = 0"
		amountOK = "c.unverified & " + strconv.FormatInt(unverifiedBits[contract.FieldTotalAmount], 10) + " = 0"
	}
	return `SELECT c.contract_type AS k, c.currency AS cur0, count(*) FILTER (WHERE ` + amountOK + `) AS ok, count(*) AS total, ` + metric + ` AS v
		FROM contracts c INDEXED BY contracts_amount
		WHERE ` + typeOK + ` AND c.contract_type IS NOT NULL AND c.contract_type <> ''
		GROUP BY c.currency, c.contract_type`
}

// typeAmountsGroups are typeMoneyQuery's groups for the sum or average of
// the amounts from type_amounts (migration 0110), whose flags hold the
// type and amount bits of contracts.unverified and 256 for no currency.
// They equal typeMoneyGroups' to the bit where typeAmountsUsable holds:
// every amount is an integer, so are the sums, and every partial sum of a
// group's amounts, in whatever order the base query adds them, is exact
// in floating point, as is the division of the average.
func typeAmountsGroups(metric string, include bool) string {
	typeOK, amountOK := "1", "1"
	if !include {
		typeOK = "flags & " + strconv.FormatInt(unverifiedBits[contract.FieldContractType], 10) + " = 0"
		amountOK = "flags & " + strconv.FormatInt(unverifiedBits[contract.FieldTotalAmount], 10) + " = 0"
	}
	amounts := "sum(iif(" + amountOK + ", amounts, 0))"
	total := "sum(iif(" + amountOK + ", int_sum, 0))"
	v := total + " * 1.0 / nullif(" + amounts + ", 0)"
	if metric == graph.MetricSumAmount {
		v = "iif(" + amounts + " > 0, " + total + " * 1.0, NULL)"
	}
	return `SELECT contract_type AS k, iif(flags & 256, NULL, currency) AS cur0, sum(iif(` + amountOK + `, contracts, 0)) AS ok,
			sum(contracts) AS total, ` + v + ` AS v
		FROM type_amounts WHERE ` + typeOK + ` AND contract_type <> ''
		GROUP BY cur0, k`
}

// typeAmountsUsable says whether type_amounts' sums are exact: no amount
// is inexact, no integer sum overflowed into a REAL, and each row's sum of
// magnitudes is below 2^50, so that a group (at most four rows of flags)
// sums to less than 2^53 in magnitude at every step.
const typeAmountsUsable = `SELECT NOT EXISTS (SELECT 1 FROM type_amounts WHERE inexact <> 0
	OR typeof(int_sum) <> 'integer' OR typeof(abs_sum) <> 'integer' OR abs_sum >= 1125899906842624)`

// SearchParties counts the parties matching q and returns the first q.Limit:
// by contract count descending (the default) or by name (ascending unless
// q.Desc), ties broken by name and then id ascending.
func (s *Store) SearchParties(ctx context.Context, q graph.PartyQuery) (graph.PartyResult, error) {
	res := graph.PartyResult{Examples: []graph.PartySummary{}}
	n, err := q.EffectiveLimit()
	if err != nil {
		return res, fmt.Errorf("search parties: %w", err)
	}
	var order string
	switch q.OrderBy {
	case "", "contract_count":
		order = "pc.n DESC, p.name ASC, p.id ASC"
	case "name":
		order = "p.name ASC, p.id ASC"
		if q.Desc {
			order = "p.name DESC, p.id ASC"
		}
	default:
		return res, fmt.Errorf("search parties: %w", graph.UnknownValue("order_by", q.OrderBy, graph.PartyOrders))
	}
	// Filters restrict the contract_parties rows counted; they select whole
	// parties, so every contract of a selected party is still counted.
	w := &where{}
	if q.Name != "" {
		key := contract.MatchKey(q.Name)
		w.add("party_pk IN ("+partyMatchSQL+")", key, key)
	}
	if len(q.IDs) > 0 {
		in, args := inList(q.IDs)
		w.add("party_pk IN (SELECT pk FROM parties WHERE id IN "+in+")", args...)
	}
	if q.Country != "" {
		w.add("party_pk IN (SELECT party_pk FROM contract_parties WHERE country = ?)", q.Country)
	}
	if q.ContractType != "" {
		w.add(`party_pk IN (SELECT party_pk FROM contract_parties WHERE contract_type = ?)`, q.ContractType)
	}
	// party_stats counts each party's distinct contracts (migration 0105).
	conds := append([]string{"contracts > 0 AND contracts >= ?"}, w.conds...)
	counts := `SELECT party_pk, contracts AS n FROM party_stats WHERE ` + strings.Join(conds, " AND ")
	args := append(append([]any{q.MinContracts}, w.args...), n)
	if s.baseQueries {
		counts = `SELECT party_pk, count(DISTINCT contract_pk) AS n FROM contract_parties` + w.sql() + ` GROUP BY party_pk HAVING n >= ?`
		args = append(append([]any{}, w.args...), q.MinContracts, n)
	}
	query := `SELECT p.pk, p.id, p.name, pc.n, count(*) OVER () FROM (` + counts + `) pc
		JOIN parties p ON p.pk = pc.party_pk ORDER BY ` + order + ` LIMIT ?`
	var pks []int64
	err = s.readTx(ctx, func(tx *sql.Tx) error {
		err := eachRow(ctx, tx, query, args, func(r *sql.Rows) error {
			var pk int64
			p := graph.PartySummary{Aliases: []string{}, ContractTypes: []string{}}
			if err := r.Scan(&pk, &p.PartyID, &p.Name, &p.ContractCount, &res.TotalCount); err != nil {
				return err
			}
			pks = append(pks, pk)
			res.Examples = append(res.Examples, p)
			return nil
		})
		if err != nil {
			return fmt.Errorf("examples: %w", err)
		}
		for i, pk := range pks {
			if err := fillParty(ctx, tx, pk, &res.Examples[i], s.baseQueries); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return graph.PartyResult{}, fmt.Errorf("search parties: %w", err)
	}
	return res, nil
}

// fillParty adds a party's aliases, most frequent country and contract
// types: from the role counts of party_facets (migration 0105), or with
// base from every role of the party.
func fillParty(ctx context.Context, tx *sql.Tx, pk int64, p *graph.PartySummary, base bool) error {
	err := eachRow(ctx, tx, `SELECT alias FROM party_aliases WHERE party_pk = ? ORDER BY alias`, []any{pk},
		func(r *sql.Rows) error {
			var a string
			if err := r.Scan(&a); err != nil {
				return err
			}
			p.Aliases = append(p.Aliases, a)
			return nil
		})
	if err != nil {
		return fmt.Errorf("aliases: %w", err)
	}
	countryQuery := `SELECT value FROM party_facets WHERE party_pk = ? AND kind = 'country' AND roles > 0
		ORDER BY roles DESC, value ASC LIMIT 1`
	typesQuery := `SELECT value FROM party_facets WHERE party_pk = ? AND kind = 'type' AND roles > 0 ORDER BY value`
	if base {
		countryQuery = `SELECT country FROM contract_parties WHERE party_pk = ? AND country IS NOT NULL AND country <> ''
			GROUP BY country ORDER BY count(*) DESC, country ASC LIMIT 1`
		typesQuery = `SELECT DISTINCT contract_type FROM contract_parties WHERE party_pk = ? AND contract_type IS NOT NULL ORDER BY 1`
	}
	var country sql.NullString
	err = tx.QueryRowContext(ctx, countryQuery, pk).Scan(&country)
	if err != nil && err != sql.ErrNoRows {
		return fmt.Errorf("country: %w", err)
	}
	p.Country = country.String
	err = eachRow(ctx, tx, typesQuery, []any{pk}, func(r *sql.Rows) error {
		var t string
		if err := r.Scan(&t); err != nil {
			return err
		}
		p.ContractTypes = append(p.ContractTypes, t)
		return nil
	})
	if err != nil {
		return fmt.Errorf("contract types: %w", err)
	}
	return nil
}

// Limits of SearchClauses' restricted search, which ranks only the passages
// of the contracts matching the filter. FTS5 checks a MATCH against one
// given rowid at a cost of about half a millisecond on a 100,000-contract
// store, so the restricted search only pays when there are few passages;
// otherwise the best passages overall are ranked and filtered.
const (
	clauseCandidateContracts = 200
	clauseCandidatePassages  = 300
)

// SearchClauses ranks clause and chunk passages by BM25 against the words of
// q.Query (any of them may match), best first; ties are broken by contract
// id, offset and clause id. With q.ClauseTypes only clauses of those types
// or groups are searched (chunks have no type).
func (s *Store) SearchClauses(ctx context.Context, q graph.ClauseQuery) ([]graph.ClauseHit, error) {
	n, err := q.EffectiveLimit()
	if err != nil {
		return nil, fmt.Errorf("search clauses: %w", err)
	}
	match := ftsQuery(q.Query, " OR ")
	if match == "" {
		return nil, fmt.Errorf("search clauses: %w", graph.NoWords("query", q.Query))
	}
	w, err := compileFilter(ctx, s.rdb, q.Filter)
	if err != nil {
		return nil, fmt.Errorf("search clauses: %w", err)
	}
	var hits []graph.ClauseHit
	err = s.readTx(ctx, func(tx *sql.Tx) error {
		restricted := false
		count := -1 // contracts passing the filter; -1 without one
		if len(w.conds) > 0 {
			if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM contracts c`+w.sql(), w.args...).Scan(&count); err != nil {
				return fmt.Errorf("count contracts: %w", err)
			}
			if count == 0 {
				return nil
			}
			if count <= clauseCandidateContracts {
				var passages int
				err := tx.QueryRowContext(ctx, `SELECT (SELECT count(*) FROM clauses WHERE contract_pk IN (SELECT c.pk FROM contracts c`+w.sql()+`))
					+ (SELECT count(*) FROM chunks WHERE contract_pk IN (SELECT c.pk FROM contracts c`+w.sql()+`))`,
					append(append([]any{}, w.args...), w.args...)...).Scan(&passages)
				if err != nil {
					return fmt.Errorf("count passages: %w", err)
				}
				restricted = passages <= clauseCandidatePassages
			}
		}
		if restricted {
			// Few contracts: rank only their passages.
			cands := `SELECT cl.pk FROM clauses cl WHERE cl.contract_pk IN (SELECT c.pk FROM contracts c` + w.sql() + `)`
			args := append([]any{match}, w.args...)
			if len(q.ClauseTypes) == 0 {
				cands += ` UNION ALL SELECT -ch.pk FROM chunks ch WHERE ch.contract_pk IN (SELECT c.pk FROM contracts c` + w.sql() + `)`
				args = append(args, w.args...)
			}
			// Through the passage index when it can answer: it scores just
			// these passages, where FTS5's bm25() would first count every
			// passage of the corpus holding each term.
			r, err := newIndexQuery(ctx, tx, q.Query)
			if err != nil {
				return err
			}
			var ranked map[int64]float64
			if r != nil {
				var ids []int64
				if ids, err = filteredPassages(ctx, tx, w, q.ClauseTypes); err != nil {
					return err
				}
				ranked, err = r.scoreIDs(ctx, tx, ids)
			} else {
				ranked, err = rankPassages(ctx, tx, `SELECT rowid, -rank FROM passage_fts WHERE passage_fts MATCH ? AND rowid IN (`+cands+`)`, args)
			}
			if err != nil {
				return err
			}
			hits, err = resolvePassages(ctx, tx, ranked, &where{}, q.ClauseTypes)
			if err != nil {
				return err
			}
			return nil
		}
		// Many contracts: rank through the passage index when it can
		// answer (passagerank.go), which finds the best passages without
		// scoring every match.
		r, err := newIndexRanking(ctx, tx, q.Query)
		if err != nil {
			return err
		}
		if r != nil {
			hits, err = searchIndexed(ctx, tx, r, n, w, count, q.ClauseTypes)
			return err
		}
		// Otherwise FTS5: take the best passages overall, keep those that
		// pass the filter, and look deeper until enough pass or none are left.
		// The order is bm25() rather than rank on purpose: ORDER BY rank makes
		// FTS5 sort every match (its sorted cursor has no LIMIT), while an
		// ORDER BY over the bm25() expression leaves the sort to SQLite, which
		// keeps only the best k rows as it goes.
		for k := max(4*n, 64); ; k *= 8 {
			ranked, err := rankPassages(ctx, tx, `SELECT rowid, -bm25(passage_fts) AS score FROM passage_fts WHERE passage_fts MATCH ?
				ORDER BY score DESC, rowid LIMIT ?`, []any{match, k})
			if err != nil {
				return err
			}
			if hits, err = resolvePassages(ctx, tx, ranked, w, q.ClauseTypes); err != nil {
				return err
			}
			if len(ranked) < k {
				return nil
			}
			if len(hits) >= n {
				hits, err = completeTies(ctx, tx, match, ranked, hits, n, w, q.ClauseTypes)
				return err
			}
		}
	})
	if err != nil {
		return nil, fmt.Errorf("search clauses: %w", err)
	}
	sortHits(hits)
	if len(hits) > n {
		hits = hits[:n]
	}
	if hits == nil {
		hits = []graph.ClauseHit{}
	}
	return hits, nil
}

// sortHits orders hits best first: by score, then contract id, offset and
// clause id.
func sortHits(hits []graph.ClauseHit) {
	sort.Slice(hits, func(i, j int) bool {
		a, b := hits[i], hits[j]
		switch {
		case a.Score != b.Score:
			return a.Score > b.Score
		case a.ContractID != b.ContractID:
			return a.ContractID < b.ContractID
		case a.Start != b.Start:
			return a.Start < b.Start
		}
		return a.ClauseID < b.ClauseID
	})
}

// completeTies makes the first n of hits, the passing passages of the
// best-ranked ones, exact when the ranking was cut inside a run of equal
// scores: passages outside the LIMIT may score as much as the lowest fetched
// one, and of those the tie order (contract id, offset, clause id) picks, not
// the rowid. It then reads every passage with that score and keeps the best
// of them by the tie order; with no tie at the cut it returns hits as they are.
func completeTies(ctx context.Context, tx *sql.Tx, match string, ranked map[int64]float64, hits []graph.ClauseHit, n int, w *where, types []string) ([]graph.ClauseHit, error) {
	floor := math.Inf(1)
	for _, sc := range ranked {
		floor = min(floor, sc)
	}
	sortHits(hits)
	if len(hits) < n || hits[n-1].Score != floor {
		return hits, nil
	}
	// The scores are -bm25 of the same rows, so equality is exact.
	var tied []int64
	err := eachRow(ctx, tx, `SELECT rowid FROM passage_fts WHERE passage_fts MATCH ? AND bm25(passage_fts) = ?`,
		[]any{match, -floor}, func(r *sql.Rows) error {
			var id int64
			if err := r.Scan(&id); err != nil {
				return err
			}
			tied = append(tied, id)
			return nil
		})
	if err != nil {
		return nil, fmt.Errorf("tied passages: %w", err)
	}
	above := 0
	for above < len(hits) && hits[above].Score > floor {
		above++
	}
	tiedHits, err := orderTied(ctx, tx, tied, floor, n-above, w, types)
	if err != nil {
		return nil, err
	}
	return append(hits[:above:above], tiedHits...), nil
}

// orderTied returns the first need of the tied passages (clause pk, or
// -chunk pk, all scoring floor) that pass w and types, by contract id,
// offset and clause id.
func orderTied(ctx context.Context, tx *sql.Tx, tied []int64, floor float64, need int, w *where, types []string) ([]graph.ClauseHit, error) {
	var clauses, chunks []int64
	for _, id := range tied {
		if id > 0 {
			clauses = append(clauses, id)
		} else if len(types) == 0 {
			chunks = append(chunks, -id)
		}
	}
	wc := ""
	if len(w.conds) > 0 {
		wc = " AND " + strings.Join(w.conds, " AND ")
	}
	cond := ""
	args := []any{jsonInts(clauses)}
	if len(types) > 0 {
		in := placeholders(len(types))
		cond = " AND (cl.type IN (" + in + ") OR cl.grp IN (" + in + "))"
		args = append(append(args, anys(types)...), anys(types)...)
	}
	args = append(args, w.args...)
	query := `SELECT cl.pk AS id, c.id AS cid, cl.start AS off, cl.id AS clid FROM clauses cl JOIN contracts c ON c.pk = cl.contract_pk
		WHERE cl.pk IN (SELECT value FROM json_each(?))` + cond + wc
	if len(chunks) > 0 {
		query += ` UNION ALL SELECT -ch.pk, c.id, ch.start, '' FROM chunks ch JOIN contracts c ON c.pk = ch.contract_pk
			WHERE ch.pk IN (SELECT value FROM json_each(?))` + wc
		args = append(append(args, jsonInts(chunks)), w.args...)
	}
	args = append(args, need)
	best := map[int64]float64{}
	err := eachRow(ctx, tx, query+` ORDER BY cid, off, clid LIMIT ?`, args, func(r *sql.Rows) error {
		var id, off int64
		var cid, clid string
		if err := r.Scan(&id, &cid, &off, &clid); err != nil {
			return err
		}
		best[id] = floor
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("order tied passages: %w", err)
	}
	return resolvePassages(ctx, tx, best, w, types)
}

// rankPassages runs an FTS query returning (rowid, score) rows.
func rankPassages(ctx context.Context, tx *sql.Tx, query string, args []any) (map[int64]float64, error) {
	ranked := map[int64]float64{}
	err := eachRow(ctx, tx, query, args, func(r *sql.Rows) error {
		var id int64
		var score float64
		if err := r.Scan(&id, &score); err != nil {
			return err
		}
		ranked[id] = score
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("rank passages: %w", err)
	}
	return ranked, nil
}

// resolvePassages reads the ranked passages (clause pk, or -chunk pk) that
// belong to contracts matching w and, for clauses, to types; types
// excludes chunks.
func resolvePassages(ctx context.Context, tx *sql.Tx, ranked map[int64]float64, w *where, types []string) ([]graph.ClauseHit, error) {
	var clauses, chunks []int64
	for id := range ranked {
		if id > 0 {
			clauses = append(clauses, id)
		} else if len(types) == 0 {
			chunks = append(chunks, -id)
		}
	}
	var hits []graph.ClauseHit
	scan := func(r *sql.Rows) error {
		var h graph.ClauseHit
		var pk int64
		if err := r.Scan(&pk, &h.ContractID, &h.ClauseID, &h.ClauseType, &h.Text, &h.Summary, &h.Start, &h.End, &h.Verified); err != nil {
			return err
		}
		h.Score = ranked[pk]
		hits = append(hits, h)
		return nil
	}
	if len(clauses) > 0 {
		cond := ""
		args := []any{jsonInts(clauses)}
		if len(types) > 0 {
			in := placeholders(len(types))
			cond = " AND (cl.type IN (" + in + ") OR cl.grp IN (" + in + "))"
			args = append(append(args, anys(types)...), anys(types)...)
		}
		args = append(args, w.args...)
		wc := ""
		if len(w.conds) > 0 {
			wc = " AND " + strings.Join(w.conds, " AND ")
		}
		// A clause without located words is found by its summary, which
		// comes back as such, never as text.
		err := eachRow(ctx, tx, `SELECT cl.pk, c.id, cl.id, cl.type, coalesce(cl.text, ''),
			CASE WHEN coalesce(cl.text, '') = '' THEN coalesce(cl.summary, '') ELSE '' END,
			cl.start, cl."end", cl.verified
			FROM clauses cl JOIN contracts c ON c.pk = cl.contract_pk
			WHERE cl.pk IN (SELECT value FROM json_each(?))`+cond+wc, args, scan)
		if err != nil {
			return nil, fmt.Errorf("read clauses: %w", err)
		}
	}
	if len(chunks) > 0 {
		args := append([]any{jsonInts(chunks)}, w.args...)
		wc := ""
		if len(w.conds) > 0 {
			wc = " AND " + strings.Join(w.conds, " AND ")
		}
		err := eachRow(ctx, tx, `SELECT -ch.pk, c.id, '', '', ch.text, '', ch.start, ch."end", ch.verified
			FROM chunks ch JOIN contracts c ON c.pk = ch.contract_pk
			WHERE ch.pk IN (SELECT value FROM json_each(?))`+wc, args, scan)
		if err != nil {
			return nil, fmt.Errorf("read chunks: %w", err)
		}
	}
	return hits, nil
}

func jsonInts(v []int64) string {
	b := make([]byte, 0, 8*len(v)+2)
	b = append(b, '[')
	for i, x := range v {
		if i > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendInt(b, x, 10)
	}
	return string(append(b, ']'))
}

// Stats counts nodes and relationships under the schema's names.
func (s *Store) Stats(ctx context.Context) (graph.Stats, error) {
	st := graph.Stats{Nodes: map[string]int{}, Relationships: map[string]int{}}
	counts := []struct {
		m     map[string]int
		name  string
		query string
	}{
		{st.Nodes, "Contract", `SELECT count(*) FROM contracts`},
		{st.Nodes, "Party", `SELECT count(*) FROM parties`},
		{st.Nodes, "Location", `SELECT count(*) FROM locations`},
		{st.Nodes, "Clause", `SELECT count(*) FROM clauses`},
		{st.Nodes, "Chunk", `SELECT count(*) FROM chunks`},
		{st.Relationships, "PARTY_TO", `SELECT count(*) FROM contract_parties`},
		{st.Relationships, "HAS_LOCATION", `SELECT count(*) FROM party_locations`},
		{st.Relationships, "HAS_GOVERNING_LAW", `SELECT count(*) FROM contracts WHERE governing_law_pk IS NOT NULL`},
		{st.Relationships, "HAS_CLAUSE", `SELECT count(*) FROM clauses`},
		{st.Relationships, "HAS_CHUNK", `SELECT count(*) FROM chunks`},
	}
	err := s.readTx(ctx, func(tx *sql.Tx) error {
		for _, c := range counts {
			var n int
			if err := tx.QueryRowContext(ctx, c.query).Scan(&n); err != nil {
				return fmt.Errorf("count %s: %w", c.name, err)
			}
			c.m[c.name] = n
		}
		// Statutes live in a table a later migration adds; until then there are none.
		var hasStatutes bool
		err := tx.QueryRowContext(ctx, `SELECT count(*) > 0 FROM sqlite_schema WHERE type = 'table' AND name = 'statutes'`).Scan(&hasStatutes)
		if err != nil {
			return fmt.Errorf("count Statute: %w", err)
		}
		st.Nodes["Statute"] = 0
		if hasStatutes {
			var n int
			if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM statutes`).Scan(&n); err != nil {
				return fmt.Errorf("count Statute: %w", err)
			}
			st.Nodes["Statute"] = n
		}
		return nil
	})
	if err != nil {
		return graph.Stats{}, fmt.Errorf("stats: %w", err)
	}
	return st, nil
}
