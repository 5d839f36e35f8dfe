package neo4j

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/neo4j/neo4j-go-driver/v5/neo4j"

	"github.com/contractgraph/contractgraph/internal/contract"
	"github.com/contractgraph/contractgraph/internal/graph"
)

// How unverified values (contract.UnverifiedValues) are stored: a contract
// node's unverified_fields lists its unverified fields (parties aside) for
// queries to test, unverified_values is the list with the reasons as JSON
// for results, an unverified party's PARTY_TO has unverified: true, and
// verified_party_countries are party_countries less those only unverified
// parties are in. None is set on a contract without unverified values, so
// that contracts imported without evidence are stored as before.

// addUnverified sets a contract node's unverified properties from p.
func addUnverified(props map[string]any, p *graph.Prepared) {
	if len(p.Unverified) == 0 {
		return
	}
	var fields []any
	for _, u := range p.Unverified {
		if u.Field != contract.FieldParties {
			fields = append(fields, u.Field)
		}
	}
	if len(fields) > 0 {
		props["unverified_fields"] = fields
	}
	b, _ := json.Marshal(p.Unverified) // plain structs of strings always encode
	props["unverified_values"] = string(b)
	countries := []any{}
	seen := map[string]bool{}
	partyFlagged := false
	for i, pr := range p.Contract.Parties {
		if p.UnverifiedParty(i) {
			partyFlagged = true
			continue
		}
		if pr.Location != nil && pr.Location.Country != "" && !seen[pr.Location.Country] {
			seen[pr.Location.Country] = true
			countries = append(countries, pr.Location.Country)
		}
	}
	if partyFlagged {
		props["verified_party_countries"] = countries
	}
}

// facts writes the expressions of one query over contracts c: with
// include (graph.Filter.IncludeUnverified) the stored properties as they
// are, otherwise with unverified values read as missing. Field names are
// constants (contract.UnverifiableFields), written into the statement.
type facts struct{ include bool }

// value is prop of c, null when field is unverified.
func (x facts) value(field, prop string) string {
	if x.include {
		return prop
	}
	return "CASE WHEN " + x.flagged(field) + " THEN null ELSE " + prop + " END"
}

// flagged is the condition that c's field is unverified.
func (facts) flagged(field string) string {
	return "'" + field + "' IN coalesce(c.unverified_fields, [])"
}

// verified is the condition that c's field is not unverified, "" with include.
func (x facts) verified(field string) string {
	if x.include {
		return ""
	}
	return "NOT " + x.flagged(field)
}

// party is the condition on a PARTY_TO relationship r that its party is
// verified, "" with include.
func (x facts) party(r string) string {
	if x.include {
		return ""
	}
	return r + ".unverified IS NULL"
}

// partyCountries is the list of c's party countries queries read.
func (x facts) partyCountries() string {
	if x.include {
		return "c.party_countries"
	}
	return "coalesce(c.verified_party_countries, c.party_countries)"
}

// factProperties are the properties query templates name by their tokens
// ({effective_date}, ...), with the field whose flag they read.
var factProperties = []struct{ token, prop, field string }{
	{"{contract_type}", "c.contract_type", contract.FieldContractType},
	{"{effective_date}", "c.effective_date", contract.FieldEffectiveDate},
	{"{end_date}", "c.end_date", contract.FieldEndDate},
	{"{duration_days}", "c.duration_days", contract.FieldDuration},
	{"{total_amount}", "c.total_amount", contract.FieldTotalAmount},
	{"{currency}", "c.currency", contract.FieldTotalAmount},
	{"{renewal_kind}", "c.renewal_kind", contract.FieldRenewalKind},
}

// cypher fills a query template's tokens: the fact properties,
// {party_countries}, and {verified_party} and {verified_law}, the WHERE
// of a pattern on PARTY_TO gr or on the governing law ("" with include).
func (x facts) cypher(template string) string {
	var pairs []string
	for _, f := range factProperties {
		pairs = append(pairs, f.token, x.value(f.field, f.prop))
	}
	party, law := "", ""
	if !x.include {
		party, law = " WHERE "+x.party("gr"), " WHERE "+x.verified(contract.FieldGoverningLaw)
	}
	pairs = append(pairs, "{party_countries}", x.partyCountries(), "{verified_party}", party, "{verified_law}", law)
	return strings.NewReplacer(pairs...).Replace(template)
}

// decodeUnverified reads a node's unverified_values.
func decodeUnverified(m map[string]any) ([]contract.Unverified, error) {
	s := getString(m, "unverified_values")
	if s == "" {
		return nil, nil
	}
	var out []contract.Unverified
	if err := json.Unmarshal([]byte(s), &out); err != nil {
		return nil, err
	}
	return out, nil
}

// unverifiedCandidatesCypher finds the contracts written before unverified
// values were stored: evidence with an unverified record and no
// unverified_values yet (the backfill sets "[]" on those it finds none in,
// so that each is read once).
const unverifiedCandidatesCypher = `MATCH (c:Contract) WHERE c.unverified_values IS NULL AND c.evidence CONTAINS '"verified":false'
RETURN c.id AS id ORDER BY id LIMIT $limit`

// setUnverifiedCypher writes a contract's unverified properties and flags
// its unverified parties' PARTY_TO (by ord).
const setUnverifiedCypher = `UNWIND $rows AS row
MATCH (c:Contract {id: row.id}) SET c += row.props
WITH c, row UNWIND row.parties AS ord
MATCH (:Party)-[r:PARTY_TO]->(c) WHERE r.ord = ord SET r.unverified = true`

// unverifiedBatch is how many contracts one backfill transaction flags.
const unverifiedBatch = 200

// backfillUnverified flags the unverified values of contracts stored before
// they were stored (see unverifiedCandidatesCypher), batch by batch; Open
// runs it, and it finds nothing to do once done.
func (s *Store) backfillUnverified(ctx context.Context) error {
	for {
		n := 0
		err := s.tx(ctx, neo4j.AccessModeWrite, func(tx neo4j.ManagedTransaction) error {
			recs, err := collect(ctx, tx, statement{Cypher: unverifiedCandidatesCypher, Params: map[string]any{"limit": int64(unverifiedBatch)}})
			if err != nil {
				return err
			}
			n = len(recs)
			var rows []any
			for _, r := range recs {
				id := getString(r.AsMap(), "id")
				c, err := getContractTx(ctx, tx, id)
				if err != nil {
					return fmt.Errorf("contract %q: %w", id, err)
				}
				p, err := graph.Prepare(c)
				if err != nil {
					return fmt.Errorf("contract %q: %w", id, err)
				}
				rows = append(rows, unverifiedRow(p))
			}
			if len(rows) == 0 {
				return nil
			}
			ids := make([]any, len(recs))
			for i, r := range recs {
				ids[i] = getString(r.AsMap(), "id")
			}
			// Flags change what the aggregates count as verified.
			return bracket(ctx, tx, ids, func() error {
				res, err := tx.Run(ctx, setUnverifiedCypher, map[string]any{"rows": rows})
				if err == nil {
					_, err = res.Consume(ctx)
				}
				return err
			})
		})
		if err != nil {
			return fmt.Errorf("flag unverified values: %w", err)
		}
		if n < unverifiedBatch {
			return nil
		}
	}
}

// unverifiedRow is setUnverifiedCypher's row for p: its properties
// (unverified_values "[]" when it has none) and its unverified parties' ords.
func unverifiedRow(p *graph.Prepared) map[string]any {
	props := map[string]any{}
	addUnverified(props, p)
	if _, ok := props["unverified_values"]; !ok {
		props["unverified_values"] = "[]"
	}
	parties := []any{}
	for i := range p.Contract.Parties {
		if p.UnverifiedParty(i) {
			parties = append(parties, int64(i))
		}
	}
	return map[string]any{"id": p.Contract.ID, "props": props, "parties": parties}
}
