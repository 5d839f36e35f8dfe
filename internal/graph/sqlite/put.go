package sqlite

import (
	"context"
	"database/sql"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"

	"github.com/contractgraph/contractgraph/internal/contract"
	"github.com/contractgraph/contractgraph/internal/graph"
)

// batchSize is how many contracts share one transaction. Each commit
// writes every page the batch dirtied to the WAL, and the passage index
// rewrites each term's tail block once per batch, so bigger batches cost
// less per contract; the bound is memory (a batch's contracts, their
// pending postings and dirty pages) and the work an interrupt rolls back.
const batchSize = 5000

// errRetrySlow aborts a batch written without savepoints because one
// contract failed while being written.
var errRetrySlow = errors.New("a contract failed mid-write")

// PutContracts writes each contract atomically, replacing any stored
// contract with the same id; see graph.Store. Invalid contracts fail with a
// *graph.FieldError and leave nothing behind. On a cancelled context the contracts
// of already committed batches stay written, and the outcomes returned
// cover them only.
//
// Contracts are validated before anything is written, so writes rarely
// fail. Each batch is therefore first written in one plain transaction; only
// if a contract fails mid-write is the batch rolled back and written again
// with a SAVEPOINT per contract, which isolates the failure. (Savepoints
// are not used by default because each one makes FTS5 flush its pending
// index, which would cost a small segment per contract.)
func (s *Store) PutContracts(ctx context.Context, cs []*contract.Contract) ([]graph.PutOutcome, error) {
	// Validation and hashing need no database: they run on another
	// goroutine, ahead of the writer, and need no lock.
	p := startPreparing(cs)
	// Return only once the preparing goroutine is done with cs.
	defer p.wait(len(cs) - 1)
	return s.put(ctx, cs, p)
}

// PutPrepared writes contracts already prepared with graph.Prepare; see
// graph.PreparedPutter.
func (s *Store) PutPrepared(ctx context.Context, ps []*graph.Prepared) ([]graph.PutOutcome, error) {
	cs := make([]*contract.Contract, len(ps))
	p := &preparing{preps: ps, errs: make([]error, len(ps)), n: len(ps)}
	for i, q := range ps {
		if q == nil {
			p.errs[i] = errors.New("nil contract")
			continue
		}
		cs[i] = q.Contract
	}
	return s.put(ctx, cs, p)
}

// put writes cs in batches of batchSize, each in its transaction; p
// prepares them.
func (s *Store) put(ctx context.Context, cs []*contract.Contract, p *preparing) ([]graph.PutOutcome, error) {
	out := make([]graph.PutOutcome, 0, len(cs))
	for start := 0; start < len(cs); start += batchSize {
		end := min(start+batchSize, len(cs))
		batch, err := s.putBatch(ctx, cs[start:end], p, start, false)
		if errors.Is(err, errRetrySlow) {
			batch, err = s.putBatch(ctx, cs[start:end], p, start, true)
		}
		if err != nil {
			// What this batch wrote is rolled back with it; report only
			// the contracts of earlier, committed batches.
			if ctx.Err() != nil {
				return out, fmt.Errorf("put contracts: %w", ctx.Err())
			}
			return out, fmt.Errorf("put contracts: %w", err)
		}
		out = append(out, batch...)
	}
	return out, nil
}

// preparing runs graph.Prepare over a slice of contracts, in order, on a
// goroutine of its own, so that the writer can write one contract while the
// next ones are validated and hashed on another processor.
type preparing struct {
	preps []*graph.Prepared
	errs  []error
	ready chan struct{} // receives one value per contract prepared, in order
	n     int           // how many contracts the consumer has seen ready
}

func startPreparing(cs []*contract.Contract) *preparing {
	p := &preparing{
		preps: make([]*graph.Prepared, len(cs)),
		errs:  make([]error, len(cs)),
		ready: make(chan struct{}, len(cs)),
	}
	go func() {
		for i, c := range cs {
			p.preps[i], p.errs[i] = graph.Prepare(c)
			p.ready <- struct{}{}
		}
	}()
	return p
}

// wait blocks until the contract at index i is prepared (and every one
// before it). Only one goroutine may call it.
func (p *preparing) wait(i int) {
	for p.n <= i {
		<-p.ready
		p.n++
	}
}

// putBatch writes one batch in one transaction. With savepoints, each
// contract is isolated and a failing one is reported and undone alone;
// without, the first failing contract aborts the batch with errRetrySlow.
func (s *Store) putBatch(ctx context.Context, cs []*contract.Contract, p *preparing, offset int, savepoints bool) ([]graph.PutOutcome, error) {
	preps, errs := p.preps[offset:offset+len(cs)], p.errs[offset:offset+len(cs)]
	out := make([]graph.PutOutcome, 0, len(cs))
	// The statements of a contract run under a context that is never
	// cancelled; ctx is checked between contracts instead. A statement here
	// takes microseconds, and the driver starts a goroutine per statement
	// to interrupt it on a cancellable context, which costs an import of
	// 100,000 contracts several seconds.
	sctx := context.WithoutCancel(ctx)
	err := s.withWriteTx(ctx, func(tx *sql.Tx) error {
		// Before the statements are prepared, so that they are prepared
		// without the triggers.
		var bulk *bulkAggregates
		if !s.rowTriggers {
			var err error
			if bulk, err = beginBulk(sctx, tx); err != nil {
				return err
			}
		}
		w, err := newWriter(sctx, tx, !savepoints)
		if err != nil {
			return err
		}
		defer w.close()
		w.bulk = bulk
		for i := range cs {
			if err := ctx.Err(); err != nil {
				return err
			}
			p.wait(offset + i)
			id := ""
			if cs[i] != nil {
				id = cs[i].ID
			}
			if errs[i] != nil {
				out = append(out, graph.PutOutcome{ID: id, Status: graph.PutFailed, Err: errs[i]})
				continue
			}
			status, merge, err := w.put(sctx, preps[i], savepoints)
			if err != nil {
				if ctx.Err() != nil {
					return ctx.Err()
				}
				if !savepoints {
					return errRetrySlow
				}
				out = append(out, graph.PutOutcome{ID: id, Status: graph.PutFailed, Err: fmt.Errorf("contract %q: %w", id, err)})
				continue
			}
			out = append(out, graph.PutOutcome{ID: id, Status: status, Merge: merge})
		}
		if err := w.flushFTS(ctx); err != nil {
			if savepoints || ctx.Err() != nil {
				return err
			}
			return errRetrySlow
		}
		return w.endBulk(sctx)
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// writer holds the statements of one write transaction.
type writer struct {
	tx    *sql.Tx
	stmts map[string]*sql.Stmt
	pidx  *indexWriter
	// deferFTS, set when the batch runs without savepoints, collects the
	// rows to full-text index and indexes them all in flushFTS at the end
	// of the batch. Every statement that opens a statement journal makes
	// FTS5 flush its pending terms to a new segment; indexing last keeps
	// that to one segment per batch instead of several per contract.
	deferFTS bool
	ftsRows  map[string][]int64 // statement name -> pks to index
	// parties (by PartyKey) and locations resolved in this batch; nil, and
	// so not used, when the batch runs with savepoints, since a rolled-back
	// contract may have created them.
	parties   map[string]*cachedParty
	locations map[contract.Location]int64
	kinds     map[string]int // clause kind -> bit, -1 for none
	// reads prepares the queries that read a stored version to merge.
	reads stmtCache
	// bulk, while not nil, is the batch's bulk mode: the aggregate insert
	// triggers are dropped until endBulk (see bulk.go).
	bulk *bulkAggregates
}

// endBulk, in bulk mode, adds what the batch wrote so far to the
// aggregates and restores their triggers; what the batch writes next runs
// them.
func (w *writer) endBulk(ctx context.Context) error {
	if w.bulk == nil {
		return nil
	}
	b := w.bulk
	w.bulk = nil
	return b.end(ctx, w.tx)
}

// resetCaches forgets resolved parties and locations (when rows may have
// been deleted).
func (w *writer) resetCaches() {
	if w.parties != nil {
		w.parties = map[string]*cachedParty{}
		w.locations = map[contract.Location]int64{}
	}
}

// insert runs an INSERT and returns the new row's rowid.
func (w *writer) insert(ctx context.Context, name string, args ...any) (int64, error) {
	res, err := w.stmts[name].ExecContext(ctx, args...)
	if err != nil {
		return 0, fmt.Errorf("%s: %w", name, err)
	}
	id, err := res.LastInsertId()
	if err != nil {
		return 0, fmt.Errorf("%s: %w", name, err)
	}
	return id, nil
}

// writeSQL are the statements a put runs, prepared once per transaction.
var writeSQL = map[string]string{
	"lookup":         `SELECT c.pk, d.content_hash FROM contracts c JOIN contract_details d ON d.contract_pk = c.pk WHERE c.id = ?`,
	"oldParties":     `SELECT DISTINCT party_pk FROM contract_parties WHERE contract_pk = ?`,
	"oldLocations":   `SELECT location_pk FROM contract_parties WHERE contract_pk = ? AND location_pk IS NOT NULL UNION SELECT governing_law_pk FROM contracts WHERE pk = ? AND governing_law_pk IS NOT NULL`,
	"delClauseFTS":   `DELETE FROM passage_fts WHERE rowid IN (SELECT pk FROM clauses WHERE contract_pk = ?)`,
	"delChunkFTS":    `DELETE FROM passage_fts WHERE rowid IN (SELECT -pk FROM chunks WHERE contract_pk = ?)`,
	"delContractFTS": `DELETE FROM contract_fts WHERE rowid = ?`,
	"delContract":    `DELETE FROM contracts WHERE pk = ?`,
	"dropParty":      `DELETE FROM parties WHERE pk = ? AND NOT EXISTS (SELECT 1 FROM contract_parties WHERE party_pk = ?)`,
	"dropLocation":   `DELETE FROM locations WHERE pk = ? AND NOT EXISTS (SELECT 1 FROM contract_parties WHERE location_pk = ?) AND NOT EXISTS (SELECT 1 FROM contracts WHERE governing_law_pk = ?)`,
	"location":       `INSERT INTO locations(country, state, city, address) VALUES (?, ?, ?, ?) ON CONFLICT(country, state, city, address) DO UPDATE SET country = excluded.country RETURNING pk`,
	"partyByKey":     `SELECT pk, name FROM parties WHERE normalized_name = ?`,
	"partyByAlias":   `SELECT p.pk, p.name FROM party_aliases a JOIN parties p ON p.pk = a.party_pk WHERE a.alias_key = ? ORDER BY p.pk LIMIT 1`,
	"newParty":       `INSERT INTO parties(id, name, normalized_name, match_key) VALUES (?, ?, ?, ?) ON CONFLICT(id) DO NOTHING RETURNING pk`,
	"alias":          `INSERT INTO party_aliases(party_pk, alias, alias_key, match_key) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING`,
	"ownAliases":     `SELECT alias FROM party_aliases WHERE party_pk = ? AND alias_key = ?`,
	"dropAlias":      `DELETE FROM party_aliases WHERE party_pk = ? AND alias = ?`,
	"renameParty":    `UPDATE parties SET name = ?, match_key = ? WHERE pk = ?`,
	"insContract":    `INSERT INTO contracts(pk, id, contract_type, effective_date, end_date, duration_days, total_amount, governing_law_pk, party_count, clause_bits, unverified, currency) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
	"kindBit":        `SELECT bit FROM clause_kinds WHERE kind = ?`,
	"kindCount":      `SELECT count(*) FROM clause_kinds`,
	"newKind":        `INSERT INTO clause_kinds(kind, bit) VALUES (?, ?)`,
	"insDetails":     `INSERT INTO contract_details(contract_pk, title, summary, scope, duration, renewal_term, notice_period, currency, source_path, sha256, extracted_by, extracted_at, usage_input_tokens, usage_output_tokens, content_hash, provenance, unverified) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
	"insTimeline":    insTimelineSQL,
	"insText":        `INSERT INTO contract_texts(contract_pk, text) VALUES (?, ?)`,
	"insContractFTS": `INSERT INTO contract_fts(rowid, title, summary, scope) VALUES (?, ?, ?, ?)`,
	"insRole":        `INSERT INTO contract_parties(contract_pk, ord, party_pk, name, role, location_pk, country, contract_type, unverified) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
	"insClause":      `INSERT INTO clauses(contract_pk, ord, id, type, grp, summary, text, start, "end", verified) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
	"insChunk":       `INSERT INTO chunks(contract_pk, ord, id, text, start, "end", verified, embedding, embedding_model) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
	"insPassageFTS":  `INSERT INTO passage_fts(rowid, text, summary) VALUES (?, ?, ?)`,
	"insEvidence":    `INSERT INTO evidence(contract_pk, ord, field, value, quote, start, "end", verified) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
	"ftsContracts": `INSERT INTO contract_fts(rowid, title, summary, scope)
		SELECT contract_pk, coalesce(title, ''), coalesce(summary, ''), coalesce(scope, '') FROM contract_details
		WHERE contract_pk IN (SELECT value FROM json_each(?))`,
	"ftsClauses": `INSERT INTO passage_fts(rowid, text, summary)
		SELECT pk, coalesce(text, ''), coalesce(summary, '') FROM clauses WHERE pk IN (SELECT value FROM json_each(?))`,
	"ftsChunks": `INSERT INTO passage_fts(rowid, text, summary)
		SELECT -pk, text, '' FROM chunks WHERE pk IN (SELECT value FROM json_each(?))`,
	"savepoint":       `SAVEPOINT put_contract`,
	"release":         `RELEASE put_contract`,
	"rollbackToSaved": `ROLLBACK TO put_contract`,
}

func newWriter(ctx context.Context, tx *sql.Tx, deferFTS bool) (*writer, error) {
	w := &writer{tx: tx, stmts: make(map[string]*sql.Stmt, len(writeSQL)), deferFTS: deferFTS, ftsRows: map[string][]int64{}, reads: stmtCache{tx: tx}}
	if deferFTS {
		w.parties = map[string]*cachedParty{}
		w.locations = map[contract.Location]int64{}
		w.kinds = map[string]int{}
	}
	var err error
	if w.pidx, err = newIndexWriter(ctx, tx); err != nil {
		return nil, err
	}
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

// index full-text indexes the row pk through the ftsStmt statement, now or,
// when deferring, in flushFTS; the immediate form runs insert with args.
func (w *writer) index(ctx context.Context, ftsStmt string, pk int64, insert string, args ...any) error {
	if w.deferFTS {
		w.ftsRows[ftsStmt] = append(w.ftsRows[ftsStmt], pk)
		return nil
	}
	return w.exec(ctx, insert, args...)
}

// flushFTS indexes the rows collected while deferring, and writes the
// passage index's pending passages.
func (w *writer) flushFTS(ctx context.Context) error {
	if err := w.pidx.flush(ctx); err != nil {
		return err
	}
	for _, name := range []string{"ftsContracts", "ftsClauses", "ftsChunks"} {
		pks := w.ftsRows[name]
		if len(pks) == 0 {
			continue
		}
		b, err := json.Marshal(pks)
		if err != nil {
			return err
		}
		if err := w.exec(ctx, name, string(b)); err != nil {
			return err
		}
		delete(w.ftsRows, name)
	}
	return nil
}

func (w *writer) close() {
	if w.pidx != nil {
		w.pidx.close()
	}
	for _, st := range w.stmts {
		st.Close()
	}
	w.reads.close()
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

// put writes one prepared contract, inside its own savepoint if asked. A
// contract already stored with another hash is merged with the stored
// version (graph.MergeStored), whose report is returned.
func (w *writer) put(ctx context.Context, p *graph.Prepared, savepoint bool) (graph.PutStatus, *contract.MergeReport, error) {
	var (
		oldPK   int64
		oldHash string
		exists  = true
	)
	switch err := w.stmts["lookup"].QueryRowContext(ctx, p.Contract.ID).Scan(&oldPK, &oldHash); {
	case errors.Is(err, sql.ErrNoRows):
		exists = false
	case err != nil:
		return "", nil, fmt.Errorf("lookup: %w", err)
	}
	if exists && oldHash == p.Hash {
		return graph.PutUnchanged, nil, nil
	}
	st := graph.PutCreated
	var rep *contract.MergeReport
	if exists {
		// Removing the stored version must find it counted, and outside
		// any savepoint, which could undo the triggers' return.
		if err := w.endBulk(ctx); err != nil {
			return "", nil, err
		}
		// Read in this transaction: an earlier contract of the batch may
		// have written this id.
		old, err := getContract(ctx, &w.reads, p.Contract.ID)
		if err != nil {
			return "", nil, fmt.Errorf("read the stored version: %w", err)
		}
		q, r, err := graph.MergeStored(old, p)
		if err != nil {
			return "", nil, err
		}
		p, st = q, graph.MergedStatus(q, r, oldHash)
		if st == graph.PutUnchanged {
			return st, nil, nil
		}
		if st == graph.PutMerged {
			rep = &r
		}
	}
	if !savepoint {
		if err := w.write(ctx, p, exists, oldPK); err != nil {
			return "", nil, err
		}
		return st, rep, nil
	}
	if err := w.exec(ctx, "savepoint"); err != nil {
		return "", nil, err
	}
	w.pidx.mark()
	if err := w.write(ctx, p, exists, oldPK); err != nil {
		// Undo this contract only; the rollback must run even when ctx is done.
		bg := context.WithoutCancel(ctx)
		w.pidx.rollback()
		return "", nil, errors.Join(err, w.exec(bg, "rollbackToSaved"), w.exec(bg, "release"))
	}
	w.pidx.release()
	if err := w.exec(ctx, "release"); err != nil {
		return "", nil, err
	}
	return st, rep, nil
}

func (w *writer) write(ctx context.Context, p *graph.Prepared, exists bool, oldPK int64) error {
	c := p.Contract
	var pk any // nil lets SQLite choose a new rowid
	var oldParties, oldLocations []int64
	if exists {
		var err error
		if oldParties, oldLocations, err = w.remove(ctx, oldPK); err != nil {
			return err
		}
		pk = oldPK // keep the rowid stable across updates
	}

	var lawPK any
	if c.GoverningLaw != nil {
		v, err := w.location(ctx, c.GoverningLaw)
		if err != nil {
			return fmt.Errorf("governing_law: %w", err)
		}
		lawPK = v
	}
	partyPKs := make([]int64, len(c.Parties))
	distinct := map[int64]bool{}
	for i, pr := range c.Parties {
		v, err := w.party(ctx, pr.Name, p.Keys[i], p.MatchKeys[i])
		if err != nil {
			return fmt.Errorf("parties[%d]: %w", i, err)
		}
		partyPKs[i] = v
		distinct[v] = true
	}
	var inTok, outTok any
	if c.Usage != nil {
		inTok, outTok = c.Usage.InputTokens, c.Usage.OutputTokens
	}
	var days, amount, prov any
	if len(c.Provenance) > 0 {
		b, err := json.Marshal(c.Provenance)
		if err != nil {
			return fmt.Errorf("provenance: %w", err)
		}
		prov = string(b)
	}
	if c.DurationDays != nil {
		days = *c.DurationDays
	}
	if c.TotalAmount != nil {
		amount = *c.TotalAmount
	}
	var bits int64
	for i, cl := range c.Clauses {
		for _, kind := range []string{cl.Type, cl.Group} {
			if kind == "" {
				continue
			}
			bit, err := w.kindBit(ctx, kind)
			if err != nil {
				return fmt.Errorf("clauses[%d]: %w", i, err)
			}
			if bit >= 0 {
				bits |= 1 << bit
			}
		}
	}
	newPK, err := w.insert(ctx, "insContract", pk, c.ID, null(c.ContractType), null(c.EffectiveDate), null(c.EndDate),
		days, amount, lawPK, len(distinct), bits, unverifiedMask(p.Unverified), null(c.Currency))
	if err != nil {
		return err
	}
	err = w.exec(ctx, "insDetails", newPK, null(c.Title), null(c.Summary), null(c.Scope), null(c.Duration),
		null(c.RenewalTerm), null(c.NoticePeriod), null(c.Currency), null(c.SourcePath), null(c.SHA256),
		null(c.ExtractedBy), null(c.ExtractedAt), inTok, outTok, p.Hash, prov, unverifiedJSON(p.Unverified))
	if err != nil {
		return err
	}
	if err := w.putTimeline(ctx, newPK, p); err != nil {
		return err
	}

	for i, pr := range c.Parties {
		var locPK, country any
		if pr.Location != nil {
			v, err := w.location(ctx, pr.Location)
			if err != nil {
				return fmt.Errorf("parties[%d].location: %w", i, err)
			}
			locPK, country = v, null(pr.Location.Country)
		}
		if err := w.exec(ctx, "insRole", newPK, i, partyPKs[i], pr.Name, null(pr.Role), locPK, country, null(c.ContractType), p.UnverifiedParty(i)); err != nil {
			return fmt.Errorf("parties[%d]: %w", i, err)
		}
	}
	for i, cl := range c.Clauses {
		clPK, err := w.insert(ctx, "insClause", newPK, i, cl.ID, cl.Type, null(cl.Group), null(cl.Summary),
			null(cl.Text), cl.Start, cl.End, cl.Verified)
		if err != nil {
			return fmt.Errorf("clauses[%d]: %w", i, err)
		}
		if cl.Text == "" && cl.Summary == "" {
			continue
		}
		if err := w.index(ctx, "ftsClauses", clPK, "insPassageFTS", clPK, cl.Text, cl.Summary); err != nil {
			return fmt.Errorf("clauses[%d]: %w", i, err)
		}
		w.pidx.add(clPK, cl.Text, cl.Summary)
	}
	for i, ch := range c.Chunks {
		var emb, model any
		if len(ch.Embedding) > 0 {
			emb, model = encodeVector(ch.Embedding), null(ch.EmbeddingModel)
		}
		verified := c.Text[ch.Start:ch.End] == ch.Text
		chPK, err := w.insert(ctx, "insChunk", newPK, ch.Ord, ch.ID, ch.Text, ch.Start, ch.End, verified, emb, model)
		if err != nil {
			return fmt.Errorf("chunks[%d]: %w", i, err)
		}
		if err := w.index(ctx, "ftsChunks", chPK, "insPassageFTS", -chPK, ch.Text, ""); err != nil {
			return fmt.Errorf("chunks[%d]: %w", i, err)
		}
		w.pidx.add(-chPK, ch.Text, "")
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
		if err := w.index(ctx, "ftsContracts", newPK, "insContractFTS", newPK, c.Title, c.Summary, c.Scope); err != nil {
			return err
		}
	}

	// Parties and locations only the old version used are gone with it.
	if exists {
		return w.dropOrphans(ctx, oldParties, oldLocations)
	}
	return nil
}

// remove deletes the contract pk with everything that is its own (details,
// text, roles, clauses, chunks, evidence and their full-text rows) and
// returns the parties and locations it referenced, for dropOrphans.
func (w *writer) remove(ctx context.Context, pk int64) (parties, locations []int64, err error) {
	if parties, err = w.pks(ctx, "oldParties", pk); err != nil {
		return nil, nil, err
	}
	if locations, err = w.pks(ctx, "oldLocations", pk, pk); err != nil {
		return nil, nil, err
	}
	if err := w.pidx.removeContract(ctx, pk); err != nil {
		return nil, nil, err
	}
	for _, st := range []string{"delClauseFTS", "delChunkFTS", "delContractFTS", "delContract"} {
		if err := w.exec(ctx, st, pk); err != nil {
			return nil, nil, err
		}
	}
	return parties, locations, nil
}

// dropOrphans deletes those of the parties and locations that no contract
// uses any more.
func (w *writer) dropOrphans(ctx context.Context, parties, locations []int64) error {
	// The caches may name what is dropped here.
	w.resetCaches()
	for _, pk := range parties {
		if err := w.exec(ctx, "dropParty", pk, pk); err != nil {
			return err
		}
	}
	for _, pk := range locations {
		if err := w.exec(ctx, "dropLocation", pk, pk, pk); err != nil {
			return err
		}
	}
	return nil
}

// DeleteContracts removes contracts with their parts and the parties and
// locations left unused, in one transaction; see graph.ContractDeleter.
func (s *Store) DeleteContracts(ctx context.Context, ids []string) ([]string, error) {
	deleted := []string{}
	err := s.withWriteTx(ctx, func(tx *sql.Tx) error {
		deleted = deleted[:0]
		w, err := newWriter(ctx, tx, false)
		if err != nil {
			return err
		}
		defer w.close()
		for _, id := range ids {
			var pk int64
			var hash string
			switch err := w.stmts["lookup"].QueryRowContext(ctx, id).Scan(&pk, &hash); {
			case errors.Is(err, sql.ErrNoRows):
				continue
			case err != nil:
				return fmt.Errorf("lookup: %w", err)
			}
			parties, locations, err := w.remove(ctx, pk)
			if err != nil {
				return err
			}
			// Pages are keyed by id (see 0085_pages.sql), so remove keeps them.
			if _, err := tx.ExecContext(ctx, `DELETE FROM contract_pages WHERE contract_id = ?`, id); err != nil {
				return err
			}
			if err := w.dropOrphans(ctx, parties, locations); err != nil {
				return err
			}
			deleted = append(deleted, id)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("delete contracts: %w", err)
	}
	return deleted, nil
}

// maxKindBits is how many clause kinds get a bit in contracts.clause_bits.
const maxKindBits = 62

// kindBit returns the bit of a clause type or group, giving it the next
// free one on first use, or -1 when all are taken.
func (w *writer) kindBit(ctx context.Context, kind string) (int, error) {
	if bit, ok := w.kinds[kind]; ok {
		return bit, nil
	}
	var bit int
	err := w.stmts["kindBit"].QueryRowContext(ctx, kind).Scan(&bit)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		var n int
		if err := w.stmts["kindCount"].QueryRowContext(ctx).Scan(&n); err != nil {
			return 0, fmt.Errorf("count clause kinds: %w", err)
		}
		bit = -1
		if n < maxKindBits {
			bit = n
			if err := w.exec(ctx, "newKind", kind, bit); err != nil {
				return 0, err
			}
		}
	case err != nil:
		return 0, fmt.Errorf("clause kind %q: %w", kind, err)
	}
	if w.kinds != nil {
		w.kinds[kind] = bit
	}
	return bit, nil
}

// cachedParty is what a batch remembers of a resolved party.
type cachedParty struct {
	pk        int64
	canonical string
	// own is true when the party was found by its own key, so that the
	// spelling may rename it; false when found through the alias key of a
	// party merged into it.
	own       bool
	spellings map[string]bool // names known to be the canonical name or an alias
}

// party resolves a party name to a stored party: by its PartyKey, then by a
// recorded alias key, else as a new party. A spelling that differs from the
// party's canonical name is recorded as an alias; see addSpelling for how it
// may become the canonical name.
func (w *writer) party(ctx context.Context, name, key, matchKey string) (int64, error) {
	if cp, ok := w.parties[key]; ok {
		if !cp.spellings[name] {
			canonical, err := w.addSpelling(ctx, cp.pk, cp.own, cp.canonical, name, key, matchKey)
			if err != nil {
				return 0, err
			}
			cp.canonical = canonical
			cp.spellings[name] = true
		}
		return cp.pk, nil
	}
	var pk int64
	var canonical string
	own := true
	err := w.stmts["partyByKey"].QueryRowContext(ctx, key).Scan(&pk, &canonical)
	if errors.Is(err, sql.ErrNoRows) {
		own = false
		err = w.stmts["partyByAlias"].QueryRowContext(ctx, key).Scan(&pk, &canonical)
	}
	switch {
	case err == nil:
		if name != canonical {
			if canonical, err = w.addSpelling(ctx, pk, own, canonical, name, key, matchKey); err != nil {
				return 0, err
			}
		}
		w.remember(key, pk, own, canonical, name)
		return pk, nil
	case !errors.Is(err, sql.ErrNoRows):
		return 0, fmt.Errorf("resolve party: %w", err)
	}
	// A new party. Its id is derived from the key; should another party
	// already hold that id (one merged or renamed after creation), number it.
	base := graph.PartyID(key)
	for n := 1; n <= 100; n++ {
		id := base
		if n > 1 {
			id = base + "-" + strconv.Itoa(n)
		}
		err := w.stmts["newParty"].QueryRowContext(ctx, id, name, key, matchKey).Scan(&pk)
		if err == nil {
			w.remember(key, pk, true, name, name)
			return pk, nil
		}
		if !errors.Is(err, sql.ErrNoRows) {
			return 0, fmt.Errorf("create party: %w", err)
		}
	}
	return 0, fmt.Errorf("create party %q: no free id", name)
}

// addSpelling records name, a spelling of the party pk other than its
// canonical name, and returns the party's canonical name afterwards. When
// the party was found by its own key (own), the canonical name becomes
// contract.PreferredName of the spellings sharing that key, so that it does
// not depend on import order; a displaced name becomes an alias. Spellings
// under other keys, which only merges bring, never rename the party: its
// normalized_name stays the PartyKey of its name.
func (w *writer) addSpelling(ctx context.Context, pk int64, own bool, canonical, name, key, matchKey string) (string, error) {
	if err := w.exec(ctx, "alias", pk, name, key, matchKey); err != nil {
		return "", err
	}
	if !own {
		return canonical, nil
	}
	// Read every spelling under the key rather than comparing with the
	// canonical name alone, so that a store written before names were
	// chosen this way converges too.
	rows, err := w.stmts["ownAliases"].QueryContext(ctx, pk, key)
	if err != nil {
		return "", fmt.Errorf("ownAliases: %w", err)
	}
	spellings := []string{canonical}
	for rows.Next() {
		var a string
		if err := rows.Scan(&a); err != nil {
			rows.Close()
			return "", fmt.Errorf("ownAliases: %w", err)
		}
		spellings = append(spellings, a)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return "", fmt.Errorf("ownAliases: %w", err)
	}
	best := contract.PreferredName(spellings)
	if best == canonical {
		return canonical, nil
	}
	if err := w.exec(ctx, "alias", pk, canonical, key, contract.MatchKey(canonical)); err != nil {
		return "", err
	}
	if err := w.exec(ctx, "dropAlias", pk, best); err != nil {
		return "", err
	}
	if err := w.exec(ctx, "renameParty", best, contract.MatchKey(best), pk); err != nil {
		return "", err
	}
	return best, nil
}

func (w *writer) remember(key string, pk int64, own bool, canonical, name string) {
	if w.parties == nil {
		return
	}
	w.parties[key] = &cachedParty{pk: pk, canonical: canonical, own: own, spellings: map[string]bool{canonical: true, name: true}}
}

func (w *writer) location(ctx context.Context, l *contract.Location) (int64, error) {
	if pk, ok := w.locations[*l]; ok {
		return pk, nil
	}
	pk, err := w.queryInt(ctx, "location", l.Country, l.State, l.City, l.Address)
	if err != nil {
		return 0, err
	}
	if w.locations != nil {
		w.locations[*l] = pk
	}
	return pk, nil
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

var (
	_ graph.ContractDeleter = (*Store)(nil)
	_ graph.PreparedPutter  = (*Store)(nil)
)
