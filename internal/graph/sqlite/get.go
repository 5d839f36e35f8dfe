package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/contractgraph/contractgraph/internal/contract"
	"github.com/contractgraph/contractgraph/internal/graph"
)

// contractColumns are read by scanContract, in this order.
const contractColumns = `c.pk, c.id, d.title, d.summary, c.contract_type, c.effective_date, c.end_date, d.duration,
	c.duration_days, d.renewal_term, d.notice_period, c.total_amount, d.currency, d.scope, d.source_path, d.sha256,
	d.extracted_by, d.extracted_at, d.usage_input_tokens, d.usage_output_tokens, d.provenance,
	gl.country, gl.state, gl.city, gl.address`

// contractFrom joins a contract with its details and governing-law location.
const contractFrom = `contracts c JOIN contract_details d ON d.contract_pk = c.pk LEFT JOIN locations gl ON gl.pk = c.governing_law_pk`

type rowScanner interface{ Scan(dest ...any) error }

func scanContract(r rowScanner) (int64, *contract.Contract, error) {
	var (
		pk                                                      int64
		c                                                       contract.Contract
		title, summary, typ, eff, end, dur, renew, notice, curr sql.NullString
		scope, src, sha, by, at, prov                           sql.NullString
		days, inTok, outTok                                     sql.NullInt64
		amount                                                  sql.NullFloat64
		glCountry, glState, glCity, glAddress                   sql.NullString
	)
	err := r.Scan(&pk, &c.ID, &title, &summary, &typ, &eff, &end, &dur, &days, &renew, &notice, &amount, &curr,
		&scope, &src, &sha, &by, &at, &inTok, &outTok, &prov, &glCountry, &glState, &glCity, &glAddress)
	if err != nil {
		return 0, nil, err
	}
	c.Title, c.Summary, c.ContractType = title.String, summary.String, typ.String
	c.EffectiveDate, c.EndDate, c.Duration = eff.String, end.String, dur.String
	c.RenewalTerm, c.NoticePeriod, c.Currency, c.Scope = renew.String, notice.String, curr.String, scope.String
	c.SourcePath, c.SHA256, c.ExtractedBy, c.ExtractedAt = src.String, sha.String, by.String, at.String
	if days.Valid {
		d := int(days.Int64)
		c.DurationDays = &d
	}
	if amount.Valid {
		a := amount.Float64
		c.TotalAmount = &a
	}
	if inTok.Valid || outTok.Valid {
		c.Usage = &contract.TokenUsage{InputTokens: int(inTok.Int64), OutputTokens: int(outTok.Int64)}
	}
	if prov.Valid {
		if err := json.Unmarshal([]byte(prov.String), &c.Provenance); err != nil {
			return 0, nil, fmt.Errorf("contract %q: provenance: %w", c.ID, err)
		}
	}
	if glCountry.Valid {
		c.GoverningLaw = &contract.Location{Country: glCountry.String, State: glState.String, City: glCity.String, Address: glAddress.String}
	}
	return pk, &c, nil
}

// GetContract returns the full stored contract, or an error wrapping
// graph.ErrNotFound.
func (s *Store) GetContract(ctx context.Context, id string) (*contract.Contract, error) {
	tx, err := s.rdb.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return nil, fmt.Errorf("get contract %q: %w", id, err)
	}
	defer tx.Rollback()
	c, err := getContract(ctx, tx, id)
	if err != nil {
		return nil, fmt.Errorf("get contract %q: %w", id, err)
	}
	return c, nil
}

// getContract reads one contract and its parts in one read transaction, so
// that a concurrent update is seen entirely or not at all.
func getContract(ctx context.Context, tx queryer, id string) (*contract.Contract, error) {
	pk, c, err := scanContract(tx.QueryRowContext(ctx, `SELECT `+contractColumns+` FROM `+contractFrom+` WHERE c.id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, graph.ErrNotFound
	}
	if err != nil {
		return nil, err
	}
	if err := loadParts(ctx, tx, pk, c); err != nil {
		return nil, err
	}
	return c, nil
}

// loadParts fills c's parties, clauses, chunks, evidence and text.
func loadParts(ctx context.Context, tx queryer, pk int64, c *contract.Contract) error {
	err := eachRow(ctx, tx, `SELECT p.id, cp.name, cp.role, l.country, l.state, l.city, l.address
		FROM contract_parties cp JOIN parties p ON p.pk = cp.party_pk LEFT JOIN locations l ON l.pk = cp.location_pk
		WHERE cp.contract_pk = ? ORDER BY cp.ord`, []any{pk}, func(r *sql.Rows) error {
		var pr contract.PartyRole
		var role, country, state, city, address sql.NullString
		if err := r.Scan(&pr.PartyID, &pr.Name, &role, &country, &state, &city, &address); err != nil {
			return err
		}
		pr.Role = role.String
		if country.Valid {
			pr.Location = &contract.Location{Country: country.String, State: state.String, City: city.String, Address: address.String}
		}
		c.Parties = append(c.Parties, pr)
		return nil
	})
	if err != nil {
		return fmt.Errorf("parties: %w", err)
	}
	err = eachRow(ctx, tx, `SELECT id, type, grp, summary, text, start, "end", verified FROM clauses
		WHERE contract_pk = ? ORDER BY ord`, []any{pk}, func(r *sql.Rows) error {
		var cl contract.Clause
		var grp, summary, text sql.NullString
		if err := r.Scan(&cl.ID, &cl.Type, &grp, &summary, &text, &cl.Start, &cl.End, &cl.Verified); err != nil {
			return err
		}
		cl.Group, cl.Summary, cl.Text = grp.String, summary.String, text.String
		c.Clauses = append(c.Clauses, cl)
		return nil
	})
	if err != nil {
		return fmt.Errorf("clauses: %w", err)
	}
	err = eachRow(ctx, tx, `SELECT id, ord, text, start, "end" FROM chunks WHERE contract_pk = ? ORDER BY ord`,
		[]any{pk}, func(r *sql.Rows) error {
			var ch contract.Chunk
			if err := r.Scan(&ch.ID, &ch.Ord, &ch.Text, &ch.Start, &ch.End); err != nil {
				return err
			}
			c.Chunks = append(c.Chunks, ch)
			return nil
		})
	if err != nil {
		return fmt.Errorf("chunks: %w", err)
	}
	err = eachRow(ctx, tx, `SELECT field, value, quote, start, "end", verified FROM evidence WHERE contract_pk = ? ORDER BY ord`,
		[]any{pk}, func(r *sql.Rows) error {
			var e contract.Evidence
			var value sql.NullString
			if err := r.Scan(&e.Field, &value, &e.Quote, &e.Start, &e.End, &e.Verified); err != nil {
				return err
			}
			e.Value = value.String
			c.Evidence = append(c.Evidence, e)
			return nil
		})
	if err != nil {
		return fmt.Errorf("evidence: %w", err)
	}
	if err := loadTimeline(ctx, tx, pk, c); err != nil {
		return err
	}
	err = tx.QueryRowContext(ctx, `SELECT text FROM contract_texts WHERE contract_pk = ?`, pk).Scan(&c.Text)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return fmt.Errorf("text: %w", err)
	}
	return nil
}

// queryer runs queries: a transaction, or a writer's prepared statements.
type queryer interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// stmtCache is a queryer over a transaction that prepares each query once,
// for reads repeated per contract inside a write transaction.
type stmtCache struct {
	tx    *sql.Tx
	stmts map[string]*sql.Stmt
}

func (c *stmtCache) stmt(ctx context.Context, query string) (*sql.Stmt, error) {
	if st, ok := c.stmts[query]; ok {
		return st, nil
	}
	st, err := c.tx.PrepareContext(ctx, query)
	if err != nil {
		return nil, err
	}
	if c.stmts == nil {
		c.stmts = map[string]*sql.Stmt{}
	}
	c.stmts[query] = st
	return st, nil
}

// QueryContext implements queryer.
func (c *stmtCache) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	st, err := c.stmt(ctx, query)
	if err != nil {
		return nil, err
	}
	return st.QueryContext(ctx, args...)
}

// QueryRowContext implements queryer; a failure to prepare shows as the
// row's error.
func (c *stmtCache) QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row {
	st, err := c.stmt(ctx, query)
	if err != nil {
		return c.tx.QueryRowContext(ctx, query, args...) // reports the same error
	}
	return st.QueryRowContext(ctx, args...)
}

// ExecContext runs a statement, prepared once.
func (c *stmtCache) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	st, err := c.stmt(ctx, query)
	if err != nil {
		return nil, err
	}
	return st.ExecContext(ctx, args...)
}

func (c *stmtCache) close() {
	for _, st := range c.stmts {
		st.Close()
	}
}

// eachRow runs q and calls fn for every row.
func eachRow(ctx context.Context, q interface {
	QueryContext(context.Context, string, ...any) (*sql.Rows, error)
}, query string, args []any, fn func(*sql.Rows) error) error {
	rows, err := q.QueryContext(ctx, query, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		if err := fn(rows); err != nil {
			return err
		}
	}
	return rows.Err()
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
		ids, err := queryIDs(ctx, s.rdb, `SELECT id FROM contracts WHERE id > ? ORDER BY id LIMIT ?`, after, contractsPage)
		if err != nil {
			return fmt.Errorf("list contracts: %w", err)
		}
		for _, id := range ids {
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
		if len(ids) < contractsPage {
			return nil
		}
		after = ids[len(ids)-1]
	}
}
