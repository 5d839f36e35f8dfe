package sqlite

import (
	"context"
	"database/sql"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"strconv"

	"github.com/contractgraph/contractgraph/internal/contract"
	"github.com/contractgraph/contractgraph/internal/graph"
)

// putBatch is how many contracts share one transaction. Each contract still
// has its own SAVEPOINT, so it is written entirely or not at all; batching
// only saves the per-commit WAL sync.
const putBatch = 500

// PutContracts writes each contract atomically, replacing any stored
// contract with the same id; see graph.Store. Invalid contracts fail with a
// *FieldError and leave nothing behind. On a cancelled context the contracts
// already written stay written, and the outcomes returned cover them only.
func (s *Store) PutContracts(ctx context.Context, cs []*contract.Contract) ([]graph.PutOutcome, error) {
	out := make([]graph.PutOutcome, 0, len(cs))
	// Validation and hashing need no database: do them before taking the lock.
	preps := make([]*prepared, len(cs))
	errs := make([]error, len(cs))
	for i, c := range cs {
		preps[i], errs[i] = prepare(c)
	}
	for start := 0; start < len(cs); start += putBatch {
		end := min(start+putBatch, len(cs))
		err := s.withWriteTx(ctx, func(tx *sql.Tx) error {
			w, err := newWriter(ctx, tx)
			if err != nil {
				return err
			}
			defer w.close()
			for i := start; i < end; i++ {
				if err := ctx.Err(); err != nil {
					return err
				}
				id := ""
				if cs[i] != nil {
					id = cs[i].ID
				}
				if errs[i] != nil {
					out = append(out, graph.PutOutcome{ID: id, Status: graph.PutFailed, Err: errs[i]})
					continue
				}
				status, err := w.put(ctx, preps[i])
				if err != nil {
					if ctx.Err() != nil {
						return ctx.Err()
					}
					out = append(out, graph.PutOutcome{ID: id, Status: graph.PutFailed, Err: fmt.Errorf("contract %q: %w", id, err)})
					continue
				}
				out = append(out, graph.PutOutcome{ID: id, Status: status})
			}
			return nil
		})
		if err != nil {
			if ctx.Err() != nil {
				// What this batch wrote is rolled back with it; report only
				// the contracts of earlier, committed batches.
				return out[:start], fmt.Errorf("put contracts: %w", ctx.Err())
			}
			return out[:start], fmt.Errorf("put contracts: %w", err)
		}
	}
	return out, nil
}

// writer holds the statements of one write transaction.
type writer struct {
	tx    *sql.Tx
	stmts map[string]*sql.Stmt
}

// writeSQL are the statements a put runs, prepared once per transaction.
var writeSQL = map[string]string{
	"lookup":          `SELECT pk, content_hash FROM contracts WHERE id = ?`,
	"oldParties":      `SELECT DISTINCT party_pk FROM contract_parties WHERE contract_pk = ?`,
	"oldLocations":    `SELECT location_pk FROM contract_parties WHERE contract_pk = ? AND location_pk IS NOT NULL UNION SELECT governing_law_pk FROM contracts WHERE pk = ? AND governing_law_pk IS NOT NULL`,
	"delClauseFTS":    `DELETE FROM passage_fts WHERE rowid IN (SELECT pk FROM clauses WHERE contract_pk = ?)`,
	"delChunkFTS":     `DELETE FROM passage_fts WHERE rowid IN (SELECT -pk FROM chunks WHERE contract_pk = ?)`,
	"delContractFTS":  `DELETE FROM contract_fts WHERE rowid = ?`,
	"delContract":     `DELETE FROM contracts WHERE pk = ?`,
	"dropParty":       `DELETE FROM parties WHERE pk = ? AND NOT EXISTS (SELECT 1 FROM contract_parties WHERE party_pk = ?)`,
	"dropLocation":    `DELETE FROM locations WHERE pk = ? AND NOT EXISTS (SELECT 1 FROM contract_parties WHERE location_pk = ?) AND NOT EXISTS (SELECT 1 FROM contracts WHERE governing_law_pk = ?)`,
	"location":        `INSERT INTO locations(country, state, city, address) VALUES (?, ?, ?, ?) ON CONFLICT(country, state, city, address) DO UPDATE SET country = excluded.country RETURNING pk`,
	"partyByKey":      `SELECT pk, name FROM parties WHERE normalized_name = ?`,
	"partyByAlias":    `SELECT p.pk, p.name FROM party_aliases a JOIN parties p ON p.pk = a.party_pk WHERE a.alias_key = ? ORDER BY p.pk LIMIT 1`,
	"newParty":        `INSERT INTO parties(id, name, normalized_name, match_key) VALUES (?, ?, ?, ?) ON CONFLICT(id) DO NOTHING RETURNING pk`,
	"alias":           `INSERT INTO party_aliases(party_pk, alias, alias_key, match_key) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING`,
	"insContract":     `INSERT INTO contracts(pk, id, title, summary, contract_type, effective_date, end_date, duration, duration_days, renewal_term, notice_period, total_amount, currency, scope, source_path, sha256, extracted_by, extracted_at, usage_input_tokens, usage_output_tokens, governing_law_pk, party_count, content_hash) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING pk`,
	"setPartyCount":   `UPDATE contracts SET party_count = ? WHERE pk = ?`,
	"insText":         `INSERT INTO contract_texts(contract_pk, text) VALUES (?, ?)`,
	"insContractFTS":  `INSERT INTO contract_fts(rowid, title, summary, scope) VALUES (?, ?, ?, ?)`,
	"insRole":         `INSERT INTO contract_parties(contract_pk, ord, party_pk, name, role, location_pk, country) VALUES (?, ?, ?, ?, ?, ?, ?)`,
	"insClause":       `INSERT INTO clauses(contract_pk, ord, id, type, grp, summary, text, start, "end", verified) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING pk`,
	"insChunk":        `INSERT INTO chunks(contract_pk, ord, id, text, start, "end", verified, embedding) VALUES (?, ?, ?, ?, ?, ?, ?, ?) RETURNING pk`,
	"insPassageFTS":   `INSERT INTO passage_fts(rowid, text, summary) VALUES (?, ?, ?)`,
	"insEvidence":     `INSERT INTO evidence(contract_pk, ord, field, value, quote, start, "end", verified) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
	"savepoint":       `SAVEPOINT put_contract`,
	"release":         `RELEASE put_contract`,
	"rollbackToSaved": `ROLLBACK TO put_contract`,
}

func newWriter(ctx context.Context, tx *sql.Tx) (*writer, error) {
	w := &writer{tx: tx, stmts: make(map[string]*sql.Stmt, len(writeSQL))}
	for name, q := range writeSQL {
		st, err := tx.PrepareContext(ctx, q)
		if err != nil {
			w.close()
			return nil, fmt.Errorf("prepare %s: %w", name, err)
		}
		w.stmts[name] = st
	}
	return w, nil
}

func (w *writer) close() {
	for _, st := range w.stmts {
		st.Close()
	}
}

func (w *writer) exec(ctx context.Context, name string, args ...any) error {
	if _, err := w.stmts[name].ExecContext(ctx, args...); err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	return nil
}

func (w *writer) queryInt(ctx context.Context, name string, args ...any) (int64, error) {
	var v int64
	if err := w.stmts[name].QueryRowContext(ctx, args...).Scan(&v); err != nil {
		return 0, fmt.Errorf("%s: %w", name, err)
	}
	return v, nil
}

func (w *writer) pks(ctx context.Context, name string, args ...any) ([]int64, error) {
	rows, err := w.stmts[name].QueryContext(ctx, args...)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	defer rows.Close()
	var out []int64
	for rows.Next() {
		var v int64
		if err := rows.Scan(&v); err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		out = append(out, v)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return out, nil
}

// put writes one prepared contract inside its own savepoint.
func (w *writer) put(ctx context.Context, p *prepared) (graph.PutStatus, error) {
	var (
		oldPK   int64
		oldHash string
		exists  = true
	)
	switch err := w.stmts["lookup"].QueryRowContext(ctx, p.c.ID).Scan(&oldPK, &oldHash); {
	case errors.Is(err, sql.ErrNoRows):
		exists = false
	case err != nil:
		return "", fmt.Errorf("lookup: %w", err)
	}
	if exists && oldHash == p.hash {
		return graph.PutUnchanged, nil
	}
	if err := w.exec(ctx, "savepoint"); err != nil {
		return "", err
	}
	if err := w.write(ctx, p, exists, oldPK); err != nil {
		// Undo this contract only; the rollback must run even when ctx is done.
		bg := context.WithoutCancel(ctx)
		return "", errors.Join(err, w.exec(bg, "rollbackToSaved"), w.exec(bg, "release"))
	}
	if err := w.exec(ctx, "release"); err != nil {
		return "", err
	}
	if exists {
		return graph.PutUpdated, nil
	}
	return graph.PutCreated, nil
}

func (w *writer) write(ctx context.Context, p *prepared, exists bool, oldPK int64) error {
	c := p.c
	var pk any // nil lets SQLite choose a new rowid
	var oldParties, oldLocations []int64
	if exists {
		var err error
		if oldParties, err = w.pks(ctx, "oldParties", oldPK); err != nil {
			return err
		}
		if oldLocations, err = w.pks(ctx, "oldLocations", oldPK, oldPK); err != nil {
			return err
		}
		for _, st := range []string{"delClauseFTS", "delChunkFTS", "delContractFTS", "delContract"} {
			if err := w.exec(ctx, st, oldPK); err != nil {
				return err
			}
		}
		pk = oldPK // keep the rowid stable across updates
	}

	var lawPK any
	if c.GoverningLaw != nil {
		v, err := w.location(ctx, c.GoverningLaw)
		if err != nil {
			return err
		}
		lawPK = v
	}
	var inTok, outTok any
	if c.Usage != nil {
		inTok, outTok = c.Usage.InputTokens, c.Usage.OutputTokens
	}
	var days, amount any
	if c.DurationDays != nil {
		days = *c.DurationDays
	}
	if c.TotalAmount != nil {
		amount = *c.TotalAmount
	}
	newPK, err := w.queryInt(ctx, "insContract", pk, c.ID, null(c.Title), null(c.Summary), null(c.ContractType),
		null(c.EffectiveDate), null(c.EndDate), null(c.Duration), days, null(c.RenewalTerm), null(c.NoticePeriod),
		amount, null(c.Currency), null(c.Scope), null(c.SourcePath), null(c.SHA256), null(c.ExtractedBy),
		null(c.ExtractedAt), inTok, outTok, lawPK, 0, p.hash)
	if err != nil {
		return err
	}

	distinct := map[int64]bool{}
	for i, pr := range c.Parties {
		partyPK, err := w.party(ctx, pr.Name, p.keys[i], p.matchKeys[i])
		if err != nil {
			return fmt.Errorf("parties[%d]: %w", i, err)
		}
		distinct[partyPK] = true
		var locPK, country any
		if pr.Location != nil {
			v, err := w.location(ctx, pr.Location)
			if err != nil {
				return fmt.Errorf("parties[%d].location: %w", i, err)
			}
			locPK, country = v, null(pr.Location.Country)
		}
		if err := w.exec(ctx, "insRole", newPK, i, partyPK, pr.Name, null(pr.Role), locPK, country); err != nil {
			return fmt.Errorf("parties[%d]: %w", i, err)
		}
	}
	if err := w.exec(ctx, "setPartyCount", len(distinct), newPK); err != nil {
		return err
	}

	for i, cl := range c.Clauses {
		clPK, err := w.queryInt(ctx, "insClause", newPK, i, cl.ID, cl.Type, null(cl.Group), null(cl.Summary),
			null(cl.Text), cl.Start, cl.End, cl.Verified)
		if err != nil {
			return fmt.Errorf("clauses[%d]: %w", i, err)
		}
		if cl.Text == "" && cl.Summary == "" {
			continue
		}
		if err := w.exec(ctx, "insPassageFTS", clPK, cl.Text, cl.Summary); err != nil {
			return fmt.Errorf("clauses[%d]: %w", i, err)
		}
	}
	for i, ch := range c.Chunks {
		var emb any
		if len(ch.Embedding) > 0 {
			emb = encodeVector(ch.Embedding)
		}
		verified := c.Text[ch.Start:ch.End] == ch.Text
		chPK, err := w.queryInt(ctx, "insChunk", newPK, ch.Ord, ch.ID, ch.Text, ch.Start, ch.End, verified, emb)
		if err != nil {
			return fmt.Errorf("chunks[%d]: %w", i, err)
		}
		if err := w.exec(ctx, "insPassageFTS", -chPK, ch.Text, ""); err != nil {
			return fmt.Errorf("chunks[%d]: %w", i, err)
		}
	}
	for i, e := range c.Evidence {
		if err := w.exec(ctx, "insEvidence", newPK, i, e.Field, null(e.Value), e.Quote, e.Start, e.End, e.Verified); err != nil {
			return fmt.Errorf("evidence[%d]: %w", i, err)
		}
	}
	if c.Text != "" {
		if err := w.exec(ctx, "insText", newPK, c.Text); err != nil {
			return err
		}
	}
	if c.Title != "" || c.Summary != "" || c.Scope != "" {
		if err := w.exec(ctx, "insContractFTS", newPK, c.Title, c.Summary, c.Scope); err != nil {
			return err
		}
	}

	// Parties and locations only the old version used are gone with it.
	for _, pk := range oldParties {
		if err := w.exec(ctx, "dropParty", pk, pk); err != nil {
			return err
		}
	}
	for _, pk := range oldLocations {
		if err := w.exec(ctx, "dropLocation", pk, pk, pk); err != nil {
			return err
		}
	}
	return nil
}

// party resolves a party name to a stored party: by its PartyKey, then by a
// recorded alias key, else as a new party. A spelling that differs from the
// party's canonical name is recorded as an alias.
func (w *writer) party(ctx context.Context, name, key, matchKey string) (int64, error) {
	var pk int64
	var canonical string
	err := w.stmts["partyByKey"].QueryRowContext(ctx, key).Scan(&pk, &canonical)
	if errors.Is(err, sql.ErrNoRows) {
		err = w.stmts["partyByAlias"].QueryRowContext(ctx, key).Scan(&pk, &canonical)
	}
	switch {
	case err == nil:
		if name != canonical {
			if err := w.exec(ctx, "alias", pk, name, key, matchKey); err != nil {
				return 0, err
			}
		}
		return pk, nil
	case !errors.Is(err, sql.ErrNoRows):
		return 0, fmt.Errorf("resolve party: %w", err)
	}
	// A new party. Its id is derived from the key; should another party
	// already hold that id (one merged or renamed after creation), number it.
	base := partyID(key)
	for n := 1; n <= 100; n++ {
		id := base
		if n > 1 {
			id = base + "-" + strconv.Itoa(n)
		}
		err := w.stmts["newParty"].QueryRowContext(ctx, id, name, key, matchKey).Scan(&pk)
		if err == nil {
			return pk, nil
		}
		if !errors.Is(err, sql.ErrNoRows) {
			return 0, fmt.Errorf("create party: %w", err)
		}
	}
	return 0, fmt.Errorf("create party %q: no free id", name)
}

func (w *writer) location(ctx context.Context, l *contract.Location) (int64, error) {
	return w.queryInt(ctx, "location", l.Country, l.State, l.City, l.Address)
}

// null maps "" to SQL NULL so that absent values stay absent.
func null(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// encodeVector stores a vector as little-endian float32s.
func encodeVector(v []float32) []byte {
	b := make([]byte, 4*len(v))
	for i, f := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(f))
	}
	return b
}
