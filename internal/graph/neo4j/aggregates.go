package neo4j

import (
	"context"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/neo4j/neo4j-go-driver/v5/neo4j"

	"github.com/contractgraph/contractgraph/internal/contract"
	"github.com/contractgraph/contractgraph/internal/graph"
)

// Maintained aggregates. The groupings and counts that would otherwise read
// every contract or party (the dev calls d04, d05, d08, d09, d15, d16 and
// d18's party details) read counts that every write keeps in its own
// transaction, so they are never stale and no query result is cached:
//
//   - one count node, (:ContractGraphCount {id: 'counts'}), holds parallel
//     lists count_keys, count_contracts and count_verified: per month of
//     the effective and of the end date ("effective:2019-10",
//     "end:2005-03"), per clause kind
//     ("kind:Confidentiality & Non-Disclosure"), per contract type
//     ("contract_type:Franchise") and per governing law's country and
//     state ("law:US" lawSeparator "Delaware"), how many contracts
//     have it, all of them and those whose value is verified; likewise per
//     party country ("country:CN"), in lists of their own, country_keys,
//     country_contracts and country_verified (reading a node's lists is
//     most of the cost of a query of a few of their entries: d16, by
//     party country, reads 25 entries instead of ~1,000); per
//     clause kind and governing law together ("law_kind:" kind
//     lawSeparator country lawSeparator state, in lists of their own,
//     law_kind_keys, law_kind_contracts and law_kind_verified, so that the
//     other counts' queries do not walk them), how many contracts have
//     both, all of them and those whose governing law is verified; and the
//     exact sums of the amounts per contract type, currency and flags
//     (amounts.go), which the sums and averages of amounts by contract
//     type read (d04, d09);
//   - each party holds verified_contract_count, its distinct contracts in
//     which it has a verified role (contract_count, all of them, is kept
//     by put.go and resolve.go as before), and its facets, parallel lists
//     facet_keys and facet_roles: how many of its roles give each country
//     ("country:US") and each contract type ("type:Franchise").
//
// Every writer brackets its change with the contribution of the contracts
// it touches (contractAggregates): read before the change, read again
// after it, and the difference applied (applyAggregates). Writers: puts
// (writeBatchTx), deletes (DeleteContracts), party merges (MergeParties)
// and the unverified flags' backfill (backfillUnverified). The schema
// set-up recounts everything once per schema version (backfillAggregates);
// aggregates_test.go recounts them from the base graph after each kind of
// write.
//
// The counts are on one node of a label of their own rather than on a node
// per key, so that text2cypher, which is not told about the label
// (SchemaText leaves it out), sees at most one node it cannot explain in an
// unlabelled MATCH (n). Every write of contracts takes that node's write
// lock, so concurrent imports commit their count updates one at a time (a
// deadlock between two is retried by the driver).
const (
	countsLabel = "ContractGraphCount"
	countsID    = "counts"
)

// Prefixes of the count node's keys and of the party facets' keys.
const (
	effectiveKey    = "effective:"
	endKey          = "end:"
	countryKey      = "country:"
	kindKey         = "kind:"
	contractTypeKey = "contract_type:"
	lawKey          = "law:"
	lawKindKey      = "law_kind:"
	typeFacetKey    = "type:"
	countryFacetID  = "country:"
)

// lawSeparator separates a governing law key's country from its state: a
// control character, which no country code holds.
const lawSeparator = "\x1f"

// counted is one key's count: all contracts and those with the value verified.
type counted struct{ contracts, verified int64 }

// partyAggregate is one party's share of the aggregates.
type partyAggregate struct {
	verified int64            // distinct contracts with a verified role
	facets   map[string]int64 // roles per facet key
}

// aggregates is the contribution of a set of contracts, or a difference
// of two contributions.
type aggregates struct {
	counts  map[string]counted
	amounts map[amountKey]amountSums // see amounts.go
	parties map[string]*partyAggregate
}

func newAggregates() *aggregates {
	return &aggregates{counts: map[string]counted{}, amounts: map[amountKey]amountSums{}, parties: map[string]*partyAggregate{}}
}

func (a *aggregates) count(key string, verified bool) {
	c := a.counts[key]
	c.contracts++
	if verified {
		c.verified++
	}
	a.counts[key] = c
}

func (a *aggregates) party(id string) *partyAggregate {
	p := a.parties[id]
	if p == nil {
		p = &partyAggregate{facets: map[string]int64{}}
		a.parties[id] = p
	}
	return p
}

// minus returns a - b.
func (a *aggregates) minus(b *aggregates) *aggregates {
	d := newAggregates()
	for k, c := range a.counts {
		d.counts[k] = c
	}
	for k, c := range b.counts {
		x := d.counts[k]
		d.counts[k] = counted{x.contracts - c.contracts, x.verified - c.verified}
	}
	for k, s := range a.amounts {
		d.amounts[k] = s
	}
	for k, s := range b.amounts {
		d.amounts[k] = d.amounts[k].plus(s, -1)
	}
	for id, p := range a.parties {
		q := d.party(id)
		q.verified += p.verified
		for k, n := range p.facets {
			q.facets[k] += n
		}
	}
	for id, p := range b.parties {
		q := d.party(id)
		q.verified -= p.verified
		for k, n := range p.facets {
			q.facets[k] -= n
		}
	}
	return d
}

// contributionCypher reads what each contract of $ids adds to the
// aggregates.
const contributionCypher = `UNWIND $ids AS id
MATCH (c:Contract {id: id})
RETURN c.effective_date AS effective, c.end_date AS end, coalesce(c.unverified_fields, []) AS flags,
 coalesce(c.party_countries, []) AS countries, coalesce(c.verified_party_countries, c.party_countries, []) AS verified_countries,
 coalesce(c.clause_kinds, []) AS kinds, c.contract_type AS type, c.total_amount AS amount, c.currency AS currency, c.duration_days AS duration,
 [(c)-[:HAS_GOVERNING_LAW]->(gl:Location) | {country: gl.country, state: gl.state}][0] AS law,
 COLLECT { MATCH (p:Party)-[r:PARTY_TO]->(c) RETURN {party: p.id, country: coalesce(r.country, ''), verified: r.unverified IS NULL} } AS roles`

// contractAggregates reads the contribution of the contracts ids (those
// stored; ids must be distinct) in tx.
func contractAggregates(ctx context.Context, tx neo4j.ManagedTransaction, ids []any) (*aggregates, error) {
	a := newAggregates()
	for i := 0; i < len(ids); i += contributionPage {
		page := ids[i:min(i+contributionPage, len(ids))]
		recs, err := collect(ctx, tx, statement{Cypher: contributionCypher, Params: map[string]any{"ids": page}})
		if err != nil {
			return nil, fmt.Errorf("read aggregates: %w", err)
		}
		for _, r := range recs {
			a.add(r.AsMap())
		}
	}
	return a, nil
}

// contributionPage is how many contracts one contributionCypher reads.
const contributionPage = 1000

// month is the first seven characters of a date: every date grouping's key
// is a function of them.
func month(date string) string {
	r := []rune(date)
	return string(r[:min(7, len(r))])
}

// add adds one contributionCypher record.
func (a *aggregates) add(m map[string]any) {
	flags := getStrings(m, "flags")
	if d, ok := m["effective"].(string); ok {
		a.count(effectiveKey+month(d), !slices.Contains(flags, contract.FieldEffectiveDate))
	}
	if d, ok := m["end"].(string); ok {
		a.count(endKey+month(d), !slices.Contains(flags, contract.FieldEndDate))
	}
	law, hasLaw := m["law"].(map[string]any)
	lawVerified := !slices.Contains(flags, contract.FieldGoverningLaw)
	if hasLaw {
		a.count(lawKey+getString(law, "country")+lawSeparator+getString(law, "state"), lawVerified)
	}
	verifiedCountries := getStrings(m, "verified_countries")
	for _, country := range distinct(getStrings(m, "countries")) {
		a.count(countryKey+country, slices.Contains(verifiedCountries, country))
	}
	for _, k := range distinct(getStrings(m, "kinds")) {
		a.count(kindKey+k, true)
		if hasLaw {
			a.count(lawKindKey+k+lawSeparator+getString(law, "country")+lawSeparator+getString(law, "state"), lawVerified)
		}
	}
	typ, hasType := m["type"].(string)
	if hasType {
		a.count(contractTypeKey+typ, !slices.Contains(flags, contract.FieldContractType))
		a.addAmount(typ, flags, m)
	}
	verifiedParties := map[string]bool{}
	for _, v := range asSlice(m["roles"]) {
		rm, _ := v.(map[string]any)
		id := getString(rm, "party")
		p := a.party(id)
		if ok, _ := rm["verified"].(bool); ok {
			verifiedParties[id] = true
		}
		if country := getString(rm, "country"); country != "" {
			p.facets[countryFacetID+country]++
		}
		if hasType {
			p.facets[typeFacetKey+typ]++
		}
	}
	for id := range verifiedParties {
		a.party(id).verified++
	}
}

func distinct(xs []string) []string {
	slices.Sort(xs)
	return slices.Compact(xs)
}

// Statements that apply a difference. lockCountsCypher creates the count
// node if need be and takes its write lock before reading its lists, so
// that no concurrent writer's update is lost between the read and
// writeCountsCypher.
const (
	lockCountsCypher = `MERGE (n:` + countsLabel + ` {id: $id})
SET n.writes = coalesce(n.writes, 0) + 1, n.names_epoch = coalesce(n.names_epoch, randomUUID())
RETURN coalesce(n.count_keys, []) + coalesce(n.law_kind_keys, []) + coalesce(n.country_keys, []) AS keys,
 coalesce(n.count_contracts, []) + coalesce(n.law_kind_contracts, []) + coalesce(n.country_contracts, []) AS contracts,
 coalesce(n.count_verified, []) + coalesce(n.law_kind_verified, []) + coalesce(n.country_verified, []) AS verified,
 n.amount_types AS amount_types, n.amount_currencies AS amount_currencies, n.amount_flags AS amount_flags,
 n.amount_contracts AS amount_contracts, n.amount_amounts AS amount_amounts, n.amount_int_sums AS amount_int_sums,
 n.amount_abs_sums AS amount_abs_sums, n.amount_inexact AS amount_inexact, n.amount_durations AS amount_durations,
 n.amount_duration_sums AS amount_duration_sums, n.amount_duration_outliers AS amount_duration_outliers`

	writeCountsCypher = `MATCH (n:` + countsLabel + ` {id: $id})
SET n.count_keys = $keys, n.count_contracts = $contracts, n.count_verified = $verified,
 n.law_kind_keys = $law_kind_keys, n.law_kind_contracts = $law_kind_contracts, n.law_kind_verified = $law_kind_verified,
 n.country_keys = $country_keys, n.country_contracts = $country_contracts, n.country_verified = $country_verified,
 n.amount_types = $amount_types, n.amount_currencies = $amount_currencies, n.amount_flags = $amount_flags,
 n.amount_contracts = $amount_contracts, n.amount_amounts = $amount_amounts, n.amount_int_sums = $amount_int_sums,
 n.amount_abs_sums = $amount_abs_sums, n.amount_inexact = $amount_inexact, n.amount_durations = $amount_durations,
 n.amount_duration_sums = $amount_duration_sums, n.amount_duration_outliers = $amount_duration_outliers`

	deleteCountsCypher = `MATCH (n:` + countsLabel + ` {id: $id}) DELETE n`

	// bumpNamesCypher records that the parties' ids, names or match keys
	// may have changed (PartyNamesVersion): the version counts up within
	// an epoch, which is new whenever the node is, so that a version once
	// read never comes back after the node was deleted and made again.
	bumpNamesCypher = `MERGE (n:` + countsLabel + ` {id: $id})
SET n.names_epoch = coalesce(n.names_epoch, randomUUID()), n.names_version = coalesce(n.names_version, 0) + 1`

	// namesVersionCypher reads the version bumpNamesCypher keeps.
	namesVersionCypher = `OPTIONAL MATCH (n:` + countsLabel + ` {id: $id})
RETURN coalesce(n.names_epoch + '/' + toString(n.names_version), '') AS version`

	// partyAggregatesCypher adds each row's differences to its party (a
	// party deleted meanwhile is skipped): the first SET takes the party's
	// write lock, so the facets read after it are current; facets whose
	// count falls to zero are dropped.
	partyAggregatesCypher = `UNWIND $rows AS row
MATCH (p:Party {id: row.id})
SET p.verified_contract_count = coalesce(p.verified_contract_count, 0) + row.verified
WITH p, row, coalesce(p.facet_keys, []) AS ks, coalesce(p.facet_roles, []) AS ns
WITH p, row, ks + [k IN row.keys WHERE NOT k IN ks] AS keys, ns
WITH p, keys, [i IN range(0, size(keys) - 1) |
  coalesce(ns[i], 0) + reduce(s = 0, j IN range(0, size(row.keys) - 1) | s + CASE WHEN row.keys[j] = keys[i] THEN row.roles[j] ELSE 0 END)] AS roles
WITH p, keys, roles, [i IN range(0, size(keys) - 1) WHERE roles[i] <> 0] AS keep
SET p.facet_keys = [i IN keep | keys[i]], p.facet_roles = [i IN keep | roles[i]]`
)

// applyAggregates adds the difference d in tx.
func applyAggregates(ctx context.Context, tx neo4j.ManagedTransaction, d *aggregates) error {
	changed := false
	for _, c := range d.counts {
		if c != (counted{}) {
			changed = true
			break
		}
	}
	for _, s := range d.amounts {
		if s != (amountSums{}) {
			changed = true
			break
		}
	}
	if changed {
		recs, err := collect(ctx, tx, statement{Cypher: lockCountsCypher, Params: map[string]any{"id": countsID}})
		if err != nil {
			return fmt.Errorf("lock the counts: %w", err)
		}
		stored, amounts := map[string]counted{}, map[amountKey]amountSums{}
		if len(recs) == 1 {
			m := recs[0].AsMap()
			keys, cs, vs := getStrings(m, "keys"), asSlice(m["contracts"]), asSlice(m["verified"])
			for i, k := range keys {
				if i < len(cs) && i < len(vs) {
					c, _ := cs[i].(int64)
					v, _ := vs[i].(int64)
					stored[k] = counted{c, v}
				}
			}
			amounts = readAmountLists(m)
		}
		for k, c := range d.counts {
			x := stored[k]
			stored[k] = counted{x.contracts + c.contracts, x.verified + c.verified}
		}
		for k, s := range d.amounts {
			amounts[k] = amounts[k].plus(s, 1)
		}
		if err := writeCounts(ctx, tx, stored, amounts); err != nil {
			return err
		}
	}
	var rows []any
	for _, id := range slices.Sorted(maps.Keys(d.parties)) {
		p := d.parties[id]
		var keys, roles []any
		for _, k := range slices.Sorted(maps.Keys(p.facets)) {
			if n := p.facets[k]; n != 0 {
				keys, roles = append(keys, k), append(roles, n)
			}
		}
		if p.verified == 0 && len(keys) == 0 {
			continue
		}
		rows = append(rows, map[string]any{"id": id, "verified": p.verified, "keys": orEmpty(keys), "roles": orEmpty(roles)})
	}
	if len(rows) > 0 {
		res, err := tx.Run(ctx, partyAggregatesCypher, map[string]any{"rows": rows})
		if err == nil {
			_, err = res.Consume(ctx)
		}
		if err != nil {
			return fmt.Errorf("write party aggregates: %w", err)
		}
	}
	return nil
}

func orEmpty(xs []any) []any {
	if xs == nil {
		return []any{}
	}
	return xs
}

// bumpNames runs bumpNamesCypher in tx. Writers that add, rename, merge
// or delete parties run it last, after applyAggregates, which may delete
// the count node.
func bumpNames(ctx context.Context, tx neo4j.ManagedTransaction) error {
	res, err := tx.Run(ctx, bumpNamesCypher, map[string]any{"id": countsID})
	if err == nil {
		_, err = res.Consume(ctx)
	}
	if err != nil {
		return fmt.Errorf("bump the party names version: %w", err)
	}
	return nil
}

// writeCounts replaces the count node's lists with counts and amounts,
// leaving out the keys no contract has any more.
func writeCounts(ctx context.Context, tx neo4j.ManagedTransaction, counts map[string]counted, amounts map[amountKey]amountSums) error {
	st := writeCountsStatement(counts, amounts)
	res, err := tx.Run(ctx, st.Cypher, st.Params)
	if err == nil {
		_, err = res.Consume(ctx)
	}
	if err != nil {
		return fmt.Errorf("write the counts: %w", err)
	}
	return nil
}

// writeCountsStatement is the statement of writeCounts: writeCountsCypher
// with the lists of counts and amounts (the law_kind and country keys in
// lists of their own), or, when nothing is counted, deleteCountsCypher.
func writeCountsStatement(counts map[string]counted, amounts map[amountKey]amountSums) statement {
	keys, cs, vs := []any{}, []any{}, []any{}
	lkeys, lcs, lvs := []any{}, []any{}, []any{}
	ckeys, ccs, cvs := []any{}, []any{}, []any{}
	for _, k := range slices.Sorted(maps.Keys(counts)) {
		c := counts[k]
		if c.contracts == 0 && c.verified == 0 {
			continue
		}
		switch countLists(k) {
		case "law_kind":
			lkeys, lcs, lvs = append(lkeys, k), append(lcs, c.contracts), append(lvs, c.verified)
		case "country":
			ckeys, ccs, cvs = append(ckeys, k), append(ccs, c.contracts), append(cvs, c.verified)
		default:
			keys, cs, vs = append(keys, k), append(cs, c.contracts), append(vs, c.verified)
		}
	}
	params := amountLists(amounts)
	if len(keys) == 0 && len(lkeys) == 0 && len(ckeys) == 0 && len(asSlice(params["amount_types"])) == 0 {
		// Nothing counted: no node, as in an empty database.
		return statement{Cypher: deleteCountsCypher, Params: map[string]any{"id": countsID}}
	}
	params["id"], params["keys"], params["contracts"], params["verified"] = countsID, keys, cs, vs
	params["law_kind_keys"], params["law_kind_contracts"], params["law_kind_verified"] = lkeys, lcs, lvs
	params["country_keys"], params["country_contracts"], params["country_verified"] = ckeys, ccs, cvs
	return statement{Cypher: writeCountsCypher, Params: params}
}

// countLists names the count node's lists that hold key (a key or a
// key's prefix): law_kind_keys, law_kind_contracts and law_kind_verified
// for "law_kind", country_* for "country", else count_*.
func countLists(key string) string {
	switch {
	case strings.HasPrefix(key, lawKindKey):
		return "law_kind"
	case strings.HasPrefix(key, countryKey):
		return "country"
	}
	return "count"
}

// bracket runs change in tx between reading the contribution of the
// contracts ids (distinct) before and after it, and applies the
// difference.
func bracket(ctx context.Context, tx neo4j.ManagedTransaction, ids []any, change func() error) error {
	before, err := contractAggregates(ctx, tx, ids)
	if err != nil {
		return err
	}
	if err := change(); err != nil {
		return err
	}
	now, err := contractAggregates(ctx, tx, ids)
	if err != nil {
		return err
	}
	return applyAggregates(ctx, tx, now.minus(before))
}

// Backfill: contracts are read a page at a time, by id.
const (
	aggregateIDsCypher = `MATCH (c:Contract) WHERE c.id > $after RETURN c.id AS id ORDER BY id LIMIT $limit`
	// resetPartyAggregatesCypher sets the aggregates of a page of parties.
	resetPartyAggregatesCypher = `UNWIND $rows AS row
MATCH (p:Party {id: row.id})
SET p.verified_contract_count = row.verified, p.facet_keys = row.keys, p.facet_roles = row.roles`
	partyIDsCypher = `MATCH (p:Party) WHERE p.id > $after RETURN p.id AS id ORDER BY id LIMIT $limit`
)

// backfillPage is how many contracts or parties one backfill step reads or
// writes.
const backfillPage = 5000

// backfillAggregates recounts every aggregate from the graph: the schema
// set-up runs it once per schema version, so that a database written by an
// earlier binary gains them. Writes running meanwhile may be miscounted; an
// upgrade is expected to run alone, as it does when Open sets the schema up.
func (s *Store) backfillAggregates(ctx context.Context) error {
	total := newAggregates()
	after := ""
	for {
		var ids []any
		err := s.tx(ctx, neo4j.AccessModeRead, func(tx neo4j.ManagedTransaction) error {
			recs, err := collect(ctx, tx, statement{Cypher: aggregateIDsCypher, Params: map[string]any{"after": after, "limit": int64(backfillPage)}})
			if err != nil {
				return err
			}
			ids = ids[:0]
			for _, r := range recs {
				ids = append(ids, getString(r.AsMap(), "id"))
			}
			a, err := contractAggregates(ctx, tx, ids)
			if err != nil {
				return err
			}
			total = total.minus(newAggregates().minus(a)) // total + a
			return nil
		})
		if err != nil {
			return fmt.Errorf("backfill aggregates: %w", err)
		}
		if len(ids) > 0 {
			after = ids[len(ids)-1].(string)
		}
		if len(ids) < backfillPage {
			break
		}
	}
	err := s.tx(ctx, neo4j.AccessModeWrite, func(tx neo4j.ManagedTransaction) error {
		if len(total.counts) > 0 || len(total.amounts) > 0 {
			if _, err := collect(ctx, tx, statement{Cypher: lockCountsCypher, Params: map[string]any{"id": countsID}}); err != nil {
				return err
			}
		}
		return writeCounts(ctx, tx, total.counts, total.amounts)
	})
	if err != nil {
		return fmt.Errorf("backfill aggregates: %w", err)
	}
	// Every party, those without a contract too, gets its aggregates.
	after = ""
	for {
		n := 0
		err := s.tx(ctx, neo4j.AccessModeWrite, func(tx neo4j.ManagedTransaction) error {
			recs, err := collect(ctx, tx, statement{Cypher: partyIDsCypher, Params: map[string]any{"after": after, "limit": int64(backfillPage)}})
			if err != nil {
				return err
			}
			n = len(recs)
			var rows []any
			for _, r := range recs {
				id := getString(r.AsMap(), "id")
				after = id
				keys, roles := []any{}, []any{}
				var verified int64
				if p := total.parties[id]; p != nil {
					verified = p.verified
					for _, k := range slices.Sorted(maps.Keys(p.facets)) {
						if v := p.facets[k]; v != 0 {
							keys, roles = append(keys, k), append(roles, v)
						}
					}
				}
				rows = append(rows, map[string]any{"id": id, "verified": verified, "keys": keys, "roles": roles})
			}
			if len(rows) == 0 {
				return nil
			}
			res, err := tx.Run(ctx, resetPartyAggregatesCypher, map[string]any{"rows": rows})
			if err == nil {
				_, err = res.Consume(ctx)
			}
			return err
		})
		if err != nil {
			return fmt.Errorf("backfill party aggregates: %w", err)
		}
		if n < backfillPage {
			return nil
		}
	}
}

// countsSource binds key, contracts and verified to each entry of the
// count node whose key starts with $prefix (none without the node).
func countsSource(p params, prefix string) string {
	// The lists are read once, before the UNWIND, which the planner would
	// otherwise read again for each entry; only the prefix's entries
	// become rows.
	l := countLists(prefix)
	return "MATCH (n:" + countsLabel + " {id: " + p.add(countsID) + "})" +
		" WITH coalesce(n." + l + "_keys, []) AS keys, n." + l + "_contracts AS cs, n." + l + "_verified AS vs" +
		" UNWIND [i IN range(0, size(keys) - 1) WHERE keys[i] STARTS WITH " + p.add(prefix) + "] AS i" +
		" WITH keys[i] AS key, cs[i] AS contracts, vs[i] AS verified" +
		" WITH substring(key, " + fmt.Sprint(len(prefix)) + ") AS m, contracts, verified"
}

// countedGroupings are the groupings whose counts without a filter come
// from the count node: the key prefix, and the group's key as an
// expression of m, the rest of the count's key (a date's month, a
// country), the same expression groupings applies to the whole value.
var countedGroupings = map[string]struct{ prefix, key string }{
	graph.GroupEffectiveYear:    {effectiveKey, "substring(m, 0, 4)"},
	graph.GroupEffectiveMonth:   {effectiveKey, "substring(m, 0, 7)"},
	graph.GroupEffectiveQuarter: {effectiveKey, "substring(m, 0, 4) + '-Q' + toString((toInteger(substring(m, 5, 2)) + 2) / 3)"},
	graph.GroupEndYear:          {endKey, "substring(m, 0, 4)"},
	graph.GroupPartyCountry:     {countryKey, "m"},
}

// onlyFields reports whether f sets nothing but the fields clear zeroes on
// a copy of it (IncludeUnverified always allowed, and AsOf without Active,
// which alone is no condition: graph.Filter.Unrestricted). A field added
// to graph.Filter later is not cleared, so a filter using it is never
// taken for one the maintained counts answer.
func onlyFields(f graph.Filter, clear func(*graph.Filter)) bool {
	if clear != nil {
		clear(&f)
	}
	f.IncludeUnverified = false
	if f.Active == nil {
		f.AsOf = ""
	}
	return reflect.ValueOf(f).IsZero()
}

// countedColumn is the count node's list of counts a query reads.
func countedColumn(include bool) string {
	if include {
		return "contracts"
	}
	return "verified"
}

// compileCountedAggregate is compileAggregate's statement for a count by
// one of countedGroupings, or by party, without a filter, or by the
// governing law's country or state under no filter but one on the
// governing law: from the maintained counts instead of every contract.
// Groups, their order and total are the base statement's.
func compileCountedAggregate(q graph.AggregateQuery, limit int, dir string) (statement, bool) {
	if q.Metric != "" && q.Metric != graph.MetricCount {
		return statement{}, false
	}
	unfiltered := onlyFields(q.Filter, nil)
	p := params{}
	var source string
	if g, ok := countedGroupings[q.GroupBy]; ok && unfiltered {
		source = countsSource(p, g.prefix) + " WITH " + g.key + " AS k, " + countedColumn(q.IncludeUnverified) + " AS n"
	} else if law := q.GroupBy == graph.GroupGoverningLawCountry || q.GroupBy == graph.GroupGoverningLawState; law &&
		onlyFields(q.Filter, func(f *graph.Filter) { f.GoverningLawCountry, f.GoverningLawState = "", "" }) {
		// As the embedded store's law_counts, also under a filter on the
		// governing law itself: the filter and the key are both the
		// contract's governing law, and both need it verified.
		source = countsSource(p, lawKey) + " WITH split(m, " + p.add(lawSeparator) + ") AS law, " + countedColumn(q.IncludeUnverified) + " AS n"
		var conds []string
		if c := q.Filter.GoverningLawCountry; c != "" {
			conds = append(conds, "law[0] = "+p.add(c))
		}
		if st := q.Filter.GoverningLawState; st != "" {
			conds = append(conds, "law[1] = "+p.add(st))
		}
		if len(conds) > 0 {
			source += " WHERE " + strings.Join(conds, " AND ")
		}
		key := "law[0]"
		if q.GroupBy == graph.GroupGoverningLawState {
			key = "law[1]"
		}
		source += " WITH " + key + " AS k, n"
	} else if q.GroupBy == graph.GroupParty && unfiltered {
		// A party's verified or all distinct contracts, each party a
		// group as in the embedded store (a party's name is its own:
		// normalized_name is unique). The groups are counted through the
		// count's index, and the page is read from it in order, so that
		// only the first parties' names are read.
		count := "gp.verified_contract_count"
		if q.IncludeUnverified {
			count = "gp.contract_count"
		}
		match := "MATCH (gp:Party) WHERE " + count + " > 0"
		return statement{Cypher: "CALL () { " + match + " RETURN count(gp) AS total }" +
			" CALL () { " + match + " WITH gp, " + count + " AS n ORDER BY n " + dir + ", gp.name " + dir + " LIMIT " + p.add(limit) +
			" RETURN collect({key: gp.name, count: n, value: toFloat(n)}) AS groups }" +
			" RETURN total, groups", Params: p}, true
	} else {
		return statement{}, false
	}
	return statement{Cypher: source + " WHERE k IS NOT NULL AND k <> ''" +
		" WITH k, sum(n) AS n WHERE n > 0" +
		" WITH k, n, toFloat(n) AS v ORDER BY v IS NULL, v " + dir + ", k " + dir +
		" WITH collect({key: k, count: n, value: v}) AS gs" +
		" RETURN size(gs) AS total, gs[0.." + p.add(limit) + "] AS groups", Params: p}, true
}

// compileCountedSearch is the count of a contract search by one party
// country, one clause kind or a range of one date and nothing else, from
// the maintained counts; ok is false for any other filter.
func compileCountedSearch(f graph.Filter) (statement, bool) {
	var key, column string
	switch {
	case (f.MinEffectiveDate != "" || f.MaxEffectiveDate != "") &&
		onlyFields(f, func(f *graph.Filter) { f.MinEffectiveDate, f.MaxEffectiveDate = "", "" }):
		return compileDateCount(f, effectiveKey, "c.effective_date", f.MinEffectiveDate, f.MaxEffectiveDate, "")
	case (f.MinEndDate != "" || f.MaxEndDate != "" || f.Active != nil && f.AsOf != "") &&
		onlyFields(f, func(f *graph.Filter) { f.MinEndDate, f.MaxEndDate, f.Active, f.AsOf = "", "", nil, "" }):
		lo, hi, before := f.MinEndDate, f.MaxEndDate, ""
		if f.Active != nil && *f.Active {
			lo = max(lo, f.AsOf)
		} else if f.Active != nil {
			before = f.AsOf
		}
		return compileDateCount(f, endKey, "c.end_date", lo, hi, before)
	case f.PartyCountry != "" && onlyFields(f, func(f *graph.Filter) { f.PartyCountry = "" }):
		key, column = countryKey+f.PartyCountry, countedColumn(f.IncludeUnverified)
	case f.ContractType != "" && onlyFields(f, func(f *graph.Filter) { f.ContractType = "" }):
		key, column = contractTypeKey+f.ContractType, countedColumn(f.IncludeUnverified)
	case len(f.ClauseTypes) == 1 && onlyFields(f, func(f *graph.Filter) { f.ClauseTypes = nil }):
		// Clause kinds have no unverified flag.
		key, column = kindKey+f.ClauseTypes[0], "contracts"
	case len(f.ClauseTypes) == 1 && (f.GoverningLawCountry != "" || f.GoverningLawState != "") &&
		onlyFields(f, func(f *graph.Filter) { f.ClauseTypes, f.GoverningLawCountry, f.GoverningLawState = nil, "", "" }):
		return compileLawKindCount(f), true
	default:
		return statement{}, false
	}
	p, l := params{}, countLists(key)
	return statement{Cypher: "OPTIONAL MATCH (n:" + countsLabel + " {id: " + p.add(countsID) + "})" +
		" WITH coalesce(n." + l + "_keys, []) AS keys, n." + l + "_" + column + " AS ns" +
		" RETURN coalesce([i IN range(0, size(keys) - 1) WHERE keys[i] = " + p.add(key) + " | ns[i]][0], 0) AS total", Params: p}, true
}

// compileLawKindCount counts the contracts with one clause kind under a
// governing law's country or state (d17), f being those alone: the sum of
// the law_kind counts of the kind and of every governing law matching,
// those with the law verified unless f includes unverified values (clause
// kinds have no flag), as the filter tests them.
func compileLawKindCount(f graph.Filter) statement {
	p := params{}
	prefix := lawKindKey + f.ClauseTypes[0] + lawSeparator
	conds := []string{"keys[i] STARTS WITH " + p.add(prefix)}
	law := "split(substring(keys[i], " + strconv.Itoa(len(prefix)) + "), " + p.add(lawSeparator) + ")"
	if c := f.GoverningLawCountry; c != "" {
		conds = append(conds, law+"[0] = "+p.add(c))
	}
	if st := f.GoverningLawState; st != "" {
		conds = append(conds, law+"[1] = "+p.add(st))
	}
	return statement{Cypher: "OPTIONAL MATCH (n:" + countsLabel + " {id: " + p.add(countsID) + "})" +
		" WITH coalesce(n.law_kind_keys, []) AS keys, n.law_kind_" + countedColumn(f.IncludeUnverified) + " AS ns" +
		" RETURN reduce(t = 0, i IN [i IN range(0, size(keys) - 1) WHERE " + strings.Join(conds, " AND ") + "] | t + ns[i]) AS total",
		Params: p}
}

// compileDateCount counts the contracts f matches, f being a range of the
// date prop alone: from lo to hi inclusive and before before ("" for no
// bound). Each month strictly inside the bounds is counted whole from the
// count node's months (prefix): a date is a string, and every string
// whose first seven characters m are greater than lo's first seven is
// greater than lo (lesser likewise). The months of the bounds themselves
// are counted contract by contract through the date's range index, under
// all of f's conditions.
func compileDateCount(f graph.Filter, prefix, prop, lo, hi, before string) (statement, bool) {
	p := params{}
	cf, err := compileFilter(p, f, summaryAsSource)
	if err != nil || cf.source != labelSource || cf.prelude != "" {
		return statement{}, false
	}
	for _, b := range []string{lo, hi, before} {
		if b != "" && len([]rune(b)) < 7 {
			// Its month would hold other months' dates.
			return statement{}, false
		}
	}
	var inside []string
	edges := []any{}
	edge := func(bound, op string) {
		if bound == "" {
			return
		}
		m := month(bound)
		inside = append(inside, "m "+op+" "+p.add(m))
		if !slices.Contains(edges, any(m)) {
			edges = append(edges, m)
		}
	}
	edge(lo, ">")
	edge(hi, "<")
	edge(before, "<")
	return statement{Cypher: "CALL () { " + countsSource(p, prefix) + " WHERE " + strings.Join(inside, " AND ") +
		" RETURN sum(" + countedColumn(f.IncludeUnverified) + ") AS months }" +
		" CALL () { UNWIND " + p.add(edges) + " AS e MATCH (c:Contract) WHERE " + prop + " STARTS WITH e AND " + strings.Join(cf.conds, " AND ") +
		" RETURN count(c) AS edges }" +
		" RETURN months + edges AS total", Params: p}, true
}

// hiddenLabel reports whether label is the store's bookkeeping, which
// text2cypher is not told about.
func hiddenLabel(label string) bool {
	return label == schemaMarkerLabel || label == countsLabel
}

// countKeyPrefixes are the kinds of the count node's keys: the schema
// version (schemaVersion) changes with them, so that adding one recounts.
var countKeyPrefixes = []string{effectiveKey, endKey, countryKey, kindKey, contractTypeKey, lawKey, lawKindKey}
