package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// A batch of new contracts does not run the aggregate triggers of
// migrations 0105 and 0110 once per row: its transaction drops the insert
// triggers before the first write, and before it commits adds the batch's
// rows to the aggregates with one grouped statement per aggregate
// (aggregateDeltas) and creates the triggers again from the very SQL it
// dropped (read from sqlite_master, so that the migrations stay the one
// source of the trigger definitions). DDL is transactional in SQLite: no
// other connection ever sees the store without its triggers, and a crash or
// rollback mid-batch leaves them as they were.
//
// The deltas count the rows whose contract pk is above the largest one
// before the batch: a new contract gets the next rowid, so those are
// exactly the batch's contracts. A contract that replaces a stored one (or
// one written earlier in the batch) needs the delete triggers to see the
// aggregates as they are, so the batch ends the bulk mode first (endBulk)
// and writes the rest with the triggers.

// aggregateDeltas are, per insert trigger of 0105 and 0110, the statement
// that adds the rows of contracts with pk > ?1 to its aggregate, as the
// trigger would have row by row. aggregates_test.go checks them against a
// recount from the base tables.
var aggregateDeltas = []struct{ trigger, sql string }{
	{"party_stats_insert", `INSERT INTO party_stats(party_pk, contracts, verified_contracts)
		WITH b AS MATERIALIZED (` + batchRoles + `)
		SELECT party_pk, count(DISTINCT contract_pk), count(DISTINCT iif(unverified = 0, contract_pk, NULL))
		FROM b WHERE true GROUP BY party_pk
		ON CONFLICT(party_pk) DO UPDATE SET
			contracts = contracts + excluded.contracts,
			verified_contracts = verified_contracts + excluded.verified_contracts`},
	{"party_facets_insert", `INSERT INTO party_facets(party_pk, kind, value, roles)
		WITH b AS MATERIALIZED (` + batchRoles + `)
		SELECT party_pk, 'country', country, count(*) FROM b
		WHERE country IS NOT NULL AND country <> '' GROUP BY party_pk, country
		UNION ALL
		SELECT party_pk, 'type', contract_type, count(*) FROM b
		WHERE contract_type IS NOT NULL GROUP BY party_pk, contract_type
		ON CONFLICT DO UPDATE SET roles = roles + excluded.roles`},
	{"country_stats_insert", `INSERT INTO country_stats(country, contracts, verified_contracts)
		WITH b AS MATERIALIZED (` + batchRoles + `)
		SELECT country, count(DISTINCT contract_pk), count(DISTINCT iif(unverified = 0, contract_pk, NULL))
		FROM b WHERE country IS NOT NULL AND country <> '' GROUP BY country
		ON CONFLICT(country) DO UPDATE SET
			contracts = contracts + excluded.contracts,
			verified_contracts = verified_contracts + excluded.verified_contracts`},
	{"period_counts_insert", `INSERT INTO period_counts(field, period, contracts, verified_contracts)
		SELECT 'effective', substr(effective_date, 1, 7), count(*), count(*) FILTER (WHERE (unverified & 2) = 0)
		FROM contracts NOT INDEXED WHERE pk > ?1 AND effective_date IS NOT NULL GROUP BY 2
		UNION ALL
		SELECT 'end', substr(end_date, 1, 7), count(*), count(*) FILTER (WHERE (unverified & 4) = 0)
		FROM contracts NOT INDEXED WHERE pk > ?1 AND end_date IS NOT NULL GROUP BY 2
		ON CONFLICT(field, period) DO UPDATE SET
			contracts = contracts + excluded.contracts, verified_contracts = verified_contracts + excluded.verified_contracts`},
	{"date_counts_insert", `INSERT INTO date_counts(field, day, contracts, verified_contracts)
		SELECT 'effective', effective_date, count(*), count(*) FILTER (WHERE (unverified & 2) = 0)
		FROM contracts NOT INDEXED WHERE pk > ?1 AND effective_date IS NOT NULL GROUP BY effective_date
		UNION ALL
		SELECT 'end', end_date, count(*), count(*) FILTER (WHERE (unverified & 4) = 0)
		FROM contracts NOT INDEXED WHERE pk > ?1 AND end_date IS NOT NULL GROUP BY end_date
		ON CONFLICT(field, day) DO UPDATE SET
			contracts = contracts + excluded.contracts, verified_contracts = verified_contracts + excluded.verified_contracts`},
	{"law_counts_insert", `INSERT INTO law_counts(location_pk, contracts, verified_contracts)
		SELECT governing_law_pk, count(*), count(*) FILTER (WHERE (unverified & 32) = 0)
		FROM contracts NOT INDEXED WHERE pk > ?1 AND governing_law_pk IS NOT NULL GROUP BY governing_law_pk
		ON CONFLICT(location_pk) DO UPDATE SET
			contracts = contracts + excluded.contracts, verified_contracts = verified_contracts + excluded.verified_contracts`},
	{"clause_counts_insert", clauseCountsDelta},
	{"type_amounts_insert", typeAmountsDelta},
}

// batchRoles are the roles of the batch's contracts, read in the order of
// the primary key: grouped in place, the planner would rather scan a whole
// index in the grouping's order.
const batchRoles = `SELECT party_pk, contract_pk, unverified, country, contract_type FROM contract_parties WHERE contract_pk > ?1`

// clauseBitSets are the clause bit sets of the batch's contracts, each
// with how many contracts have it; end counts the contracts of each bit
// from them (splitting every set into its bits in SQL, a join of the sets
// with clause_kinds, cost eight times as much) for clauseCountsDelta.
const clauseBitSets = `SELECT clause_bits, count(*) FROM contracts NOT INDEXED WHERE pk > ?1 AND clause_bits <> 0 GROUP BY clause_bits`

// clauseCountsDelta adds ?2, a JSON object of contracts per bit, to
// clause_counts for the bits clause_kinds names, as the trigger does.
const clauseCountsDelta = `INSERT INTO clause_counts(bit, contracts)
	SELECT k.bit, j.value FROM json_each(?2) j JOIN clause_kinds k ON k.bit = CAST(j.key AS INTEGER)
	WHERE true
	ON CONFLICT(bit) DO UPDATE SET contracts = contracts + excluded.contracts`

// typeAmountsDelta groups the batch's amounts per type, currency and
// flags. Integer sums overflow differently grouped than row by row (sum()
// fails where the trigger's addition turns REAL), so it runs only when no
// sum can reach 2^63 (typeAmountsSafe); otherwise typeAmountsRows adds the
// rows one at a time in pk order, as the trigger did.
const typeAmountsDelta = `INSERT INTO type_amounts(contract_type, currency, flags, contracts, amounts, int_sum, abs_sum, inexact)
	SELECT contract_type, coalesce(currency, ''), (unverified & 17) | iif(currency IS NULL, 256, 0), count(*), count(total_amount),
		sum(iif(x, CAST(total_amount AS INTEGER), 0)), sum(iif(x, abs(CAST(total_amount AS INTEGER)), 0)), sum(total_amount IS NOT NULL AND NOT x)
	FROM (SELECT contract_type, currency, unverified, total_amount,
			coalesce(abs(total_amount) < 9007199254740992.0 AND total_amount = round(total_amount), 0) AS x
		FROM contracts NOT INDEXED WHERE pk > ?1 AND contract_type IS NOT NULL)
	WHERE true GROUP BY 1, 2, 3
	ON CONFLICT(contract_type, currency, flags) DO UPDATE SET
		contracts = contracts + excluded.contracts, amounts = amounts + excluded.amounts, int_sum = int_sum + excluded.int_sum,
		abs_sum = abs_sum + excluded.abs_sum, inexact = inexact + excluded.inexact`

// typeAmountsSafe is true when the stored sums are integers and the stored
// and the batch's absolute integral amounts together stay far enough below
// 2^63 (in floating point, with room for its rounding) that no partial sum
// of any group can overflow, however grouped.
const typeAmountsSafe = `SELECT (SELECT count(*) FROM type_amounts WHERE typeof(int_sum) <> 'integer' OR typeof(abs_sum) <> 'integer') = 0
	AND (SELECT total(abs_sum) FROM type_amounts)
		+ (SELECT total(abs(total_amount)) FROM contracts NOT INDEXED WHERE pk > ?1 AND contract_type IS NOT NULL
			AND abs(total_amount) < 9007199254740992.0) < 4611686018427387904.0`

// typeAmountsRows is type_amounts_insert applied to the batch's rows one
// at a time, in the order they were inserted.
const typeAmountsRows = `INSERT INTO type_amounts(contract_type, currency, flags, contracts, amounts, int_sum, abs_sum, inexact)
	SELECT contract_type, coalesce(currency, ''), (unverified & 17) | iif(currency IS NULL, 256, 0), 1,
		total_amount IS NOT NULL, iif(x, CAST(total_amount AS INTEGER), 0), iif(x, abs(CAST(total_amount AS INTEGER)), 0),
		total_amount IS NOT NULL AND NOT x
	FROM (SELECT pk, contract_type, currency, unverified, total_amount,
			coalesce(abs(total_amount) < 9007199254740992.0 AND total_amount = round(total_amount), 0) AS x
		FROM contracts NOT INDEXED WHERE pk > ?1 AND contract_type IS NOT NULL)
	WHERE true ORDER BY pk
	ON CONFLICT(contract_type, currency, flags) DO UPDATE SET
		contracts = contracts + 1, amounts = amounts + excluded.amounts, int_sum = int_sum + excluded.int_sum,
		abs_sum = abs_sum + excluded.abs_sum, inexact = inexact + excluded.inexact`

// bulkAggregates is the state of a batch written without the aggregate
// insert triggers.
type bulkAggregates struct {
	from     int64    // the batch's contracts have a greater pk
	triggers []string // the dropped triggers' CREATE statements, as stored
}

// beginBulk drops the aggregate insert triggers in tx and returns what
// endBulk needs to apply the batch's deltas and restore them. It returns
// nil, and drops nothing, when the store lacks one of the triggers: the
// deltas stand for exactly the triggers it has.
func beginBulk(ctx context.Context, tx *sql.Tx) (*bulkAggregates, error) {
	names := make([]string, len(aggregateDeltas))
	args := make([]any, len(aggregateDeltas))
	for i, d := range aggregateDeltas {
		names[i], args[i] = d.trigger, d.trigger
	}
	rows, err := tx.QueryContext(ctx, `SELECT name, sql FROM sqlite_master WHERE type = 'trigger' AND name IN (?`+
		strings.Repeat(", ?", len(args)-1)+`)`, args...)
	if err != nil {
		return nil, fmt.Errorf("read aggregate triggers: %w", err)
	}
	defer rows.Close()
	b := &bulkAggregates{}
	var dropped []string
	for rows.Next() {
		var name, q string
		if err := rows.Scan(&name, &q); err != nil {
			return nil, fmt.Errorf("read aggregate triggers: %w", err)
		}
		dropped = append(dropped, name)
		b.triggers = append(b.triggers, q)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read aggregate triggers: %w", err)
	}
	rows.Close()
	if len(b.triggers) != len(names) {
		return nil, nil
	}
	if err := tx.QueryRowContext(ctx, `SELECT coalesce(max(pk), 0) FROM contracts`).Scan(&b.from); err != nil {
		return nil, fmt.Errorf("last contract: %w", err)
	}
	for _, name := range dropped {
		if _, err := tx.ExecContext(ctx, `DROP TRIGGER "`+name+`"`); err != nil {
			return nil, fmt.Errorf("drop trigger %s: %w", name, err)
		}
	}
	return b, nil
}

// end adds the contracts written since beginBulk to the aggregates and
// creates the triggers again.
func (b *bulkAggregates) end(ctx context.Context, tx *sql.Tx) error {
	bits, err := b.clauseBits(ctx, tx)
	if err != nil {
		return err
	}
	for _, d := range aggregateDeltas {
		q := d.sql
		if d.sql == typeAmountsDelta {
			var safe bool
			if err := tx.QueryRowContext(ctx, typeAmountsSafe, b.from).Scan(&safe); err != nil {
				return fmt.Errorf("type_amounts: %w", err)
			}
			if !safe {
				q = typeAmountsRows
			}
		}
		if _, err := tx.ExecContext(ctx, q, b.from, bits); err != nil {
			return fmt.Errorf("aggregate delta for %s: %w", d.trigger, err)
		}
	}
	for _, q := range b.triggers {
		if _, err := tx.ExecContext(ctx, q); err != nil {
			return fmt.Errorf("restore aggregate trigger: %w", err)
		}
	}
	return nil
}

// clauseBits counts the batch's contracts per clause bit, as a JSON object
// from bit to count.
func (b *bulkAggregates) clauseBits(ctx context.Context, tx *sql.Tx) (string, error) {
	var perBit [64]int64
	err := eachRow(ctx, tx, clauseBitSets, []any{b.from}, func(r *sql.Rows) error {
		var bits, n int64
		if err := r.Scan(&bits, &n); err != nil {
			return err
		}
		for bit := range perBit {
			if bits&(1<<bit) != 0 {
				perBit[bit] += n
			}
		}
		return nil
	})
	if err != nil {
		return "", fmt.Errorf("clause bits: %w", err)
	}
	counts := map[string]int64{}
	for bit, n := range perBit {
		if n != 0 {
			counts[strconv.Itoa(bit)] = n
		}
	}
	j, err := json.Marshal(counts)
	return string(j), err
}
