package neo4j

import (
	"cmp"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/contractgraph/contractgraph/internal/contract"
	"github.com/contractgraph/contractgraph/internal/graph"
)

// Maintained amount sums: the counterpart of the embedded store's
// type_amounts. The count node also holds, per contract type, stored
// currency and flags (amountKey), how many contracts there are, how many
// have an amount, the exact integer sum of those amounts and of their
// magnitudes, and how many amounts are not exact integers (inexact). The
// sum and the average of the amounts by contract type, and of one type's
// contracts, are answered from them (compileAmountAggregate) while every
// amount is an exact integer and every sum of magnitudes is below 2^50,
// as in the embedded store: then the integer sums, and the division of
// an average, are what adding the amounts in floating point gives, to the
// bit. Otherwise the query reads the contracts as before. Likewise the
// durations: per key, how many contracts have a duration in days and the
// sum of those durations, from which the average duration of one
// contract type's contracts is answered (d07) exactly as the embedded
// store's avg() divides its integer sum.
//
// The lists are parallel, one entry per key: amount_types,
// amount_currencies ("" when the flags say none), amount_flags,
// amount_contracts, amount_amounts, amount_int_sums, amount_abs_sums,
// amount_inexact, amount_durations, amount_duration_sums and
// amount_duration_outliers. Writers keep them with the counts
// (applyAggregates).

// Bits of an amountKey's flags. Cypher has no bitwise operators: queries
// test bit b as (flags / b) % 2.
const (
	amountTypeUnverified     = 1 // the contract type is unverified
	amountValueUnverified    = 2 // the amount (and its currency) is unverified
	amountNoCurrency         = 4 // no currency is stored
	amountDurationUnverified = 8 // the duration is unverified
)

// durationLimit bounds the magnitude of a duration counted: a larger one
// is an outlier, which keeps the average duration from being answered
// from the sums, so that they cannot overflow below 2^32 contracts.
const durationLimit = 1 << 31

// exactAmountLimit bounds the magnitude of an amount counted exactly: a
// larger one counts as inexact, so that the sums, which the writers add
// in int64, cannot overflow below 2^23 contracts of one key; queries need
// each key's magnitudes below 2^50 anyway.
const exactAmountLimit = 1 << 40

// usableAbsLimit is the sum of magnitudes below which a key's sums are
// used: a group adds at most eight keys (the flags of type, amount and
// duration), whose sum then stays below 2^53, where every integer is a
// float64.
const usableAbsLimit = 1 << 50

// amountKey is one entry of the amount sums.
type amountKey struct {
	typ, currency string
	flags         int64
}

// amountSums are one key's sums.
type amountSums struct {
	contracts, amounts, intSum, absSum, inexact int64
	durations, durationSum, durationOutliers    int64
}

func (a amountSums) plus(b amountSums, sign int64) amountSums {
	return amountSums{a.contracts + sign*b.contracts, a.amounts + sign*b.amounts, a.intSum + sign*b.intSum,
		a.absSum + sign*b.absSum, a.inexact + sign*b.inexact,
		a.durations + sign*b.durations, a.durationSum + sign*b.durationSum, a.durationOutliers + sign*b.durationOutliers}
}

// addAmount adds one contract of type typ, with the contributionCypher
// record m, to the amount sums.
func (a *aggregates) addAmount(typ string, flags []string, m map[string]any) {
	k := amountKey{typ: typ}
	if slices.Contains(flags, contract.FieldContractType) {
		k.flags |= amountTypeUnverified
	}
	if slices.Contains(flags, contract.FieldTotalAmount) {
		k.flags |= amountValueUnverified
	}
	if slices.Contains(flags, contract.FieldDuration) {
		k.flags |= amountDurationUnverified
	}
	if cur, ok := m["currency"].(string); ok {
		k.currency = cur
	} else {
		k.flags |= amountNoCurrency
	}
	s := a.amounts[k]
	s.contracts++
	var v float64
	present := true
	switch x := m["amount"].(type) {
	case float64:
		v = x
	case int64:
		v = float64(x)
		if x >= exactAmountLimit || x <= -exactAmountLimit {
			v = math.Inf(1) // inexact, without rounding x first
		}
	default:
		present = false
	}
	if present {
		s.amounts++
		if math.Abs(v) < exactAmountLimit && v == math.Trunc(v) {
			n := int64(v)
			s.intSum += n
			s.absSum += max(n, -n)
		} else {
			s.inexact++
		}
	}
	if d, ok := m["duration"].(int64); ok {
		if d < durationLimit && d > -durationLimit {
			s.durations++
			s.durationSum += d
		} else {
			s.durationOutliers++
		}
	}
	a.amounts[k] = s
}

// amountLists are the count node's amount lists of sums, zero keys left out.
func amountLists(sums map[amountKey]amountSums) map[string]any {
	out := map[string]any{}
	names := []string{"amount_types", "amount_currencies", "amount_flags", "amount_contracts", "amount_amounts",
		"amount_int_sums", "amount_abs_sums", "amount_inexact", "amount_durations", "amount_duration_sums", "amount_duration_outliers"}
	lists := make([][]any, len(names))
	for i := range lists {
		lists[i] = []any{}
	}
	keys := slices.SortedFunc(maps.Keys(sums), func(a, b amountKey) int {
		return cmp.Or(cmp.Compare(a.typ, b.typ), cmp.Compare(a.currency, b.currency), cmp.Compare(a.flags, b.flags))
	})
	for _, k := range keys {
		s := sums[k]
		if s == (amountSums{}) {
			continue
		}
		for i, v := range []any{k.typ, k.currency, k.flags, s.contracts, s.amounts, s.intSum, s.absSum, s.inexact,
			s.durations, s.durationSum, s.durationOutliers} {
			lists[i] = append(lists[i], v)
		}
	}
	for i, n := range names {
		out[n] = lists[i]
	}
	return out
}

// readAmountLists reads the amount lists of a lockCountsCypher record.
func readAmountLists(m map[string]any) map[amountKey]amountSums {
	out := map[amountKey]amountSums{}
	types, curs, flags := getStrings(m, "amount_types"), getStrings(m, "amount_currencies"), asSlice(m["amount_flags"])
	cols := [][]any{asSlice(m["amount_contracts"]), asSlice(m["amount_amounts"]), asSlice(m["amount_int_sums"]),
		asSlice(m["amount_abs_sums"]), asSlice(m["amount_inexact"]),
		asSlice(m["amount_durations"]), asSlice(m["amount_duration_sums"]), asSlice(m["amount_duration_outliers"])}
	for i, t := range types {
		if i >= len(curs) || i >= len(flags) {
			break
		}
		var v [8]int64
		for j, col := range cols {
			if i < len(col) {
				v[j], _ = col[i].(int64)
			}
		}
		f, _ := flags[i].(int64)
		out[amountKey{t, curs[i], f}] = amountSums{v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7]}
	}
	return out
}

// compileAmountAggregate is compileAggregate's statement for the sum or
// the average of the amounts, grouped by contract type without a filter
// (d09) or of one contract type's contracts without a group (d04), from
// the amount sums: the groups, their order and total are the base
// statement's. It also returns usable: false when some sum is not exact,
// and the caller must then run the base statement (compileAggregateBase).
//
// The groups follow the base statement's currency key, which is empty for
// a contract whose amount is unverified: per contract type, each stored
// currency is a group of its contracts with a verified amount, and the
// group without a currency holds the contracts with no currency and every
// contract whose amount is unverified, measured over the amounts of the
// former.
func compileAmountAggregate(q graph.AggregateQuery, limit int, dir string) (statement, bool) {
	metricName := q.Metric
	if metricName != graph.MetricSumAmount && metricName != graph.MetricAvgAmount {
		return statement{}, false
	}
	p := params{}
	typeCond := "k <> ''"
	switch {
	case q.GroupBy == graph.GroupContractType && onlyFields(q.Filter, nil):
	case q.GroupBy == "" && q.Filter.ContractType != "" && onlyFields(q.Filter, func(f *graph.Filter) { f.ContractType = "" }):
		typeCond = "k = " + p.add(q.Filter.ContractType)
	default:
		return statement{}, false
	}
	bit := func(b int) string { return "(flags / " + strconv.Itoa(b) + ") % 2" }
	if !q.IncludeUnverified {
		typeCond += " AND " + bit(amountTypeUnverified) + " = 0"
	}
	amountOK := "true"
	if !q.IncludeUnverified {
		amountOK = bit(amountValueUnverified) + " = 0"
	}
	value := "CASE WHEN g.amounts = 0 THEN null ELSE toFloat(g.isum) / toFloat(g.amounts) END"
	if metricName == graph.MetricSumAmount {
		value = "CASE WHEN g.amounts = 0 THEN null ELSE toFloat(g.isum) END"
	}
	key, order, empty := "k", "v IS NULL, v "+dir+", k "+dir+", cur ASC", "gs"
	if q.GroupBy == "" {
		// One group per currency; "all" in no currency when none matches.
		key, order = "'all'", "v IS NULL, v "+dir+", cur ASC"
		empty = "CASE size(gs) WHEN 0 THEN [{key: 'all', currency: '', count: 0, value: null}] ELSE gs END"
	}
	// The lists are read once, before the UNWIND, which the planner would
	// otherwise read again for each entry.
	cypher := "OPTIONAL MATCH (n:" + countsLabel + " {id: " + p.add(countsID) + "})" +
		" WITH coalesce(n.amount_types, []) AS ts, n.amount_currencies AS cs, n.amount_flags AS fs," +
		" n.amount_contracts AS ns, n.amount_amounts AS ams, n.amount_int_sums AS ss, n.amount_abs_sums AS mags, n.amount_inexact AS xs" +
		" WITH ts, cs, fs, ns, ams, ss, all(i IN range(0, size(ts) - 1) WHERE xs[i] = 0 AND mags[i] < " + strconv.Itoa(usableAbsLimit) + ") AS usable" +
		" CALL (ts, cs, fs, ns, ams, ss, usable) {" +
		" UNWIND CASE WHEN usable THEN range(0, size(ts) - 1) ELSE [] END AS i" +
		" WITH ts[i] AS k, fs[i] AS flags, cs[i] AS cur, ns[i] AS contracts, ams[i] AS amounts, ss[i] AS isum" +
		" WHERE " + typeCond +
		" WITH k, CASE WHEN " + bit(amountNoCurrency) + " = 1 THEN null ELSE cur END AS cur0, " + amountOK + " AS verified, contracts, amounts, isum" +
		" WITH k, cur0, sum(CASE WHEN verified THEN contracts ELSE 0 END) AS ok, sum(contracts) AS total," +
		" sum(CASE WHEN verified THEN amounts ELSE 0 END) AS amounts, sum(CASE WHEN verified THEN isum ELSE 0 END) AS isum" +
		" WITH k, collect({cur0: cur0, ok: ok, total: total, amounts: amounts, isum: isum}) AS rows" +
		" WITH k, [r IN rows WHERE r.cur0 IS NOT NULL AND r.ok > 0 | {cur: r.cur0, n: r.ok, amounts: r.amounts, isum: r.isum}] +" +
		" [x IN [{cur: '', n: reduce(t = 0, r IN rows | t + CASE WHEN r.cur0 IS NULL THEN r.ok ELSE 0 END + r.total - r.ok)," +
		" amounts: reduce(t = 0, r IN rows | t + CASE WHEN r.cur0 IS NULL THEN r.amounts ELSE 0 END)," +
		" isum: reduce(t = 0, r IN rows | t + CASE WHEN r.cur0 IS NULL THEN r.isum ELSE 0 END)}] WHERE x.n > 0] AS groups" +
		" UNWIND groups AS g" +
		" WITH k, g.cur AS cur, g.n AS n, " + value + " AS v" +
		" ORDER BY " + order +
		" RETURN collect({key: " + key + ", currency: cur, count: n, value: v}) AS gs }" +
		" WITH usable, " + empty + " AS gs" +
		" RETURN usable, size(gs) AS total, gs[0.." + p.add(limit) + "] AS groups"
	return statement{Cypher: cypher, Params: p}, true
}

// compileDurationAggregate is compileAggregate's statement for the average
// duration of one contract type's contracts without a group (d07), from
// the sums: the count of the type's contracts and the integer sum of
// their verified durations over how many there are, which is the
// embedded store's avg() to the bit. Like compileAmountAggregate it
// returns usable, false when a duration was too large to be summed.
func compileDurationAggregate(q graph.AggregateQuery) (statement, bool) {
	if q.Metric != graph.MetricAvgDurationDays || q.GroupBy != "" || q.Filter.ContractType == "" ||
		!onlyFields(q.Filter, func(f *graph.Filter) { f.ContractType = "" }) {
		return statement{}, false
	}
	p := params{}
	bit := func(b int) string { return "(fs[i] / " + strconv.Itoa(b) + ") % 2" }
	keys := "[i IN range(0, size(ts) - 1) WHERE ts[i] = " + p.add(q.Filter.ContractType)
	if !q.IncludeUnverified {
		keys += " AND " + bit(amountTypeUnverified) + " = 0"
	}
	keys += "]"
	measured := "is"
	if !q.IncludeUnverified {
		measured = "[i IN is WHERE " + bit(amountDurationUnverified) + " = 0]"
	}
	cypher := "OPTIONAL MATCH (n:" + countsLabel + " {id: " + p.add(countsID) + "})" +
		" WITH coalesce(n.amount_types, []) AS ts, n.amount_flags AS fs, n.amount_contracts AS ns," +
		" n.amount_durations AS ds, n.amount_duration_sums AS dsums, n.amount_duration_outliers AS xs" +
		" WITH ts, fs, ns, ds, dsums, xs, " + keys + " AS is" +
		" WITH ns, ds, dsums, xs, is, " + measured + " AS ms" +
		" WITH all(i IN is WHERE xs[i] = 0) AS usable, reduce(t = 0, i IN is | t + ns[i]) AS n," +
		" reduce(t = 0, i IN ms | t + ds[i]) AS durations, reduce(t = 0, i IN ms | t + dsums[i]) AS dsum" +
		" RETURN usable, 1 AS total, [{key: 'all', count: n," +
		" value: CASE WHEN durations = 0 THEN null ELSE toFloat(dsum) / toFloat(durations) END}] AS groups"
	return statement{Cypher: cypher, Params: p}, true
}

// compileExtremeAggregate is compileAggregate's statement for the largest
// or smallest amount of one contract type's contracts without a group
// (d19): the groups (one per currency, as the base statement's) and their
// counts come from the amount sums, and each group's value from the
// composite index on the type and the amount, read in the metric's order
// up to the first contract of the group's currency with a verified amount,
// instead of from every contract of the type. A group whose sums count no
// verified amount reads nothing.
func compileExtremeAggregate(q graph.AggregateQuery, limit int, dir string) (statement, bool) {
	order := "DESC"
	switch {
	case q.Metric == graph.MetricMaxAmount:
	case q.Metric == graph.MetricMinAmount:
		order = "ASC"
	default:
		return statement{}, false
	}
	if q.GroupBy != "" || q.Filter.ContractType == "" || !onlyFields(q.Filter, func(f *graph.Filter) { f.ContractType = "" }) {
		return statement{}, false
	}
	p := params{}
	typ := p.add(q.Filter.ContractType)
	bit := func(b int) string { return "(flags / " + strconv.Itoa(b) + ") % 2" }
	typeCond, amountOK := "k = "+typ, "true"
	x := facts{q.IncludeUnverified}
	conds := []string{"c.contract_type = CASE WHEN amounts > 0 THEN " + typ + " END", "c.total_amount IS NOT NULL", "coalesce(c.currency, '') = cur"}
	if !q.IncludeUnverified {
		typeCond += " AND " + bit(amountTypeUnverified) + " = 0"
		amountOK = bit(amountValueUnverified) + " = 0"
		conds = append(conds, x.verified(contract.FieldContractType), x.verified(contract.FieldTotalAmount))
	}
	cypher := "OPTIONAL MATCH (n:" + countsLabel + " {id: " + p.add(countsID) + "})" +
		" WITH coalesce(n.amount_types, []) AS ts, n.amount_currencies AS cs, n.amount_flags AS fs, n.amount_contracts AS ns, n.amount_amounts AS ams" +
		" CALL (ts, cs, fs, ns, ams) {" +
		" UNWIND range(0, size(ts) - 1) AS i" +
		" WITH ts[i] AS k, fs[i] AS flags, cs[i] AS cur, ns[i] AS contracts, ams[i] AS amounts" +
		" WHERE " + typeCond +
		" WITH CASE WHEN " + bit(amountNoCurrency) + " = 1 THEN null ELSE cur END AS cur0, " + amountOK + " AS verified, contracts, amounts" +
		" WITH cur0, sum(CASE WHEN verified THEN contracts ELSE 0 END) AS ok, sum(contracts) AS total," +
		" sum(CASE WHEN verified THEN amounts ELSE 0 END) AS amounts" +
		" WITH collect({cur0: cur0, ok: ok, total: total, amounts: amounts}) AS rows" +
		" UNWIND [r IN rows WHERE r.cur0 IS NOT NULL AND r.ok > 0 | {cur: r.cur0, n: r.ok, amounts: r.amounts}] +" +
		" [x IN [{cur: '', n: reduce(t = 0, r IN rows | t + CASE WHEN r.cur0 IS NULL THEN r.ok ELSE 0 END + r.total - r.ok)," +
		" amounts: reduce(t = 0, r IN rows | t + CASE WHEN r.cur0 IS NULL THEN r.amounts ELSE 0 END)}] WHERE x.n > 0] AS g" +
		" RETURN g.cur AS cur, g.n AS n, g.amounts AS amounts }" +
		// A group without amounts seeks no type (null): a WHERE on amounts
		// the planner would test after the seek.
		" CALL (cur, amounts) {" +
		" MATCH (c:Contract) USING INDEX c:Contract(contract_type, total_amount) WHERE " + strings.Join(conds, " AND ") +
		" WITH c ORDER BY c.contract_type " + order + ", c.total_amount " + order + " LIMIT 1" +
		" RETURN toFloat(max(c.total_amount)) AS v }" +
		" WITH cur, n, v ORDER BY v IS NULL, v " + dir + ", cur ASC" +
		" WITH collect({key: 'all', currency: cur, count: n, value: v}) AS gs" +
		" WITH CASE size(gs) WHEN 0 THEN [{key: 'all', currency: '', count: 0, value: null}] ELSE gs END AS gs" +
		" RETURN size(gs) AS total, gs[0.." + p.add(limit) + "] AS groups"
	return statement{Cypher: cypher, Params: p}, true
}
