package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/contractgraph/contractgraph/internal/contract"
	"github.com/contractgraph/contractgraph/internal/graph"
)

// unverifiedVersion is the migration that added the flags.
const unverifiedVersion = 70

// unverifiedBits are the bits of contracts.unverified, one per field of
// contract.UnverifiableFields but the parties (contract_parties.unverified).
// They are stored: never renumber one.
var unverifiedBits = map[string]int64{
	contract.FieldContractType:      1 << 0,
	contract.FieldEffectiveDate:     1 << 1,
	contract.FieldEndDate:           1 << 2,
	contract.FieldDuration:          1 << 3,
	contract.FieldTotalAmount:       1 << 4,
	contract.FieldGoverningLaw:      1 << 5,
	contract.FieldRenewalKind:       1 << 6,
	contract.FieldRenewalTerm:       1 << 7,
	contract.FieldNoticePeriod:      1 << 8,
	contract.FieldTerminationNotice: 1 << 9,
}

// factColumns are the columns of the fields queries read, by the token
// the query templates name them with ({effective_date}, ...), and the
// field whose bit says they are unverified.
var factColumns = []struct{ token, column, field string }{
	{"{contract_type}", "c.contract_type", contract.FieldContractType},
	{"{effective_date}", "c.effective_date", contract.FieldEffectiveDate},
	{"{end_date}", "c.end_date", contract.FieldEndDate},
	{"{duration_days}", "c.duration_days", contract.FieldDuration},
	{"{total_amount}", "c.total_amount", contract.FieldTotalAmount},
	{"{currency}", "c.currency", contract.FieldTotalAmount},
}

// factsSQL fills a query template's tokens: with include (Filter.
// IncludeUnverified) each is its column; otherwise NULL where the value is
// unverified, and {verified_party} restricts contract_parties rows to the
// verified ones.
func factsSQL(include bool, template string) string {
	var pairs []string
	for _, f := range factColumns {
		v := f.column
		if !include {
			v = "iif(c.unverified & " + strconv.FormatInt(unverifiedBits[f.field], 10) + ", NULL, " + f.column + ")"
		}
		pairs = append(pairs, f.token, v)
	}
	party := "1"
	if !include {
		party = "unverified = 0"
	}
	pairs = append(pairs, "{verified_party}", party)
	return strings.NewReplacer(pairs...).Replace(template)
}

// unverifiedMask is the contracts.unverified of a contract's list.
func unverifiedMask(list []contract.Unverified) int64 {
	var m int64
	for _, u := range list {
		m |= unverifiedBits[u.Field]
	}
	return m
}

// maskFields is the list of the fields a mask flags, without reasons: what
// graph.Filter.Facts needs to leave them out.
func maskFields(mask int64) []contract.Unverified {
	var out []contract.Unverified
	for _, f := range contract.UnverifiableFields {
		if b := unverifiedBits[f]; b != 0 && mask&b != 0 {
			out = append(out, contract.Unverified{Field: f})
		}
	}
	return out
}

// unverifiedJSON is contract_details.unverified of a list: NULL when empty.
func unverifiedJSON(list []contract.Unverified) any {
	if len(list) == 0 {
		return nil
	}
	b, _ := json.Marshal(list) // plain structs of strings always encode
	return string(b)
}

// backfillUnverified flags the unverified values of the contracts stored
// before migration 0070, which added the flags: only contracts with some
// unverified evidence can have one. It runs once, on the Open that applies
// the migration, which like sql.Open takes no context: the backfill runs
// to completion (it reads only the contracts with unverified evidence).
func backfillUnverified(db *sql.DB) error {
	ctx := context.Background()
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	var ids []string
	err = eachRow(ctx, tx, `SELECT id FROM contracts WHERE pk IN (SELECT contract_pk FROM evidence WHERE verified = 0) ORDER BY id`, nil,
		func(r *sql.Rows) error {
			var id string
			if err := r.Scan(&id); err != nil {
				return err
			}
			ids = append(ids, id)
			return nil
		})
	if err != nil {
		return fmt.Errorf("unverified values: %w", err)
	}
	for _, id := range ids {
		c, err := getContract(ctx, tx, id)
		if err != nil {
			return fmt.Errorf("unverified values of %q: %w", id, err)
		}
		p, err := graph.Prepare(c)
		if err != nil {
			return fmt.Errorf("unverified values of %q: %w", id, err)
		}
		if len(p.Unverified) == 0 {
			continue
		}
		if err := writeUnverified(ctx, tx, id, p); err != nil {
			return fmt.Errorf("unverified values of %q: %w", id, err)
		}
	}
	return tx.Commit()
}

// writeUnverified sets the flags of the stored contract id from p.
func writeUnverified(ctx context.Context, tx *sql.Tx, id string, p *graph.Prepared) error {
	var pk int64
	if err := tx.QueryRowContext(ctx, `SELECT pk FROM contracts WHERE id = ?`, id).Scan(&pk); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, `UPDATE contracts SET unverified = ? WHERE pk = ?`, unverifiedMask(p.Unverified), pk); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, `UPDATE contract_details SET unverified = ? WHERE contract_pk = ?`, unverifiedJSON(p.Unverified), pk); err != nil {
		return err
	}
	for i := range p.Contract.Parties {
		if !p.UnverifiedParty(i) {
			continue
		}
		if _, err := tx.ExecContext(ctx, `UPDATE contract_parties SET unverified = 1 WHERE contract_pk = ? AND ord = ?`, pk, i); err != nil {
			return err
		}
	}
	return nil
}
