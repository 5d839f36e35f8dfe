package sqlite

import (
	"context"
	"database/sql"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
)

// The passage index (migration 0100) holds, for every term of passage_fts,
// its postings in blocks of consecutive passage ids with a bound on each
// block's BM25 contribution, and its document frequency, so that
// SearchClauses can rank the best k passages with MaxScore pruning
// (passagerank.go) instead of scoring every match. It is written in the
// same transaction as passage_fts: passages added by a put are collected
// and written per term when the batch flushes; a removed contract's
// passages are taken out of their blocks at once.

// postingBlockSize is how many postings a block holds at most: big enough
// that reading a term's blocks costs few rows, small enough that the block
// bounds still prune. Tests lower it to have many blocks.
var postingBlockSize = 512

// posting is one passage holding a term.
type posting struct {
	id     int64  // passage_fts rowid: clause pk, or -chunk pk
	tf     uint32 // occurrences in text and summary
	length uint32 // tokens in text and summary
}

// passageDoc is a tokenized passage: its distinct terms with their
// frequencies, in no order.
type passageDoc struct {
	terms   []termFreq
	length  uint32
	checked bool
}

type termFreq struct {
	term string
	tf   uint32
}

// tf is how often term occurs in d.
func (d passageDoc) tf(term string) uint32 {
	for _, t := range d.terms {
		if t.term == term {
			return t.tf
		}
	}
	return 0
}

// maxScratchTerms bounds the map a stemmer counts a passage's terms in and
// keeps for the next passage: one huge passage must not make clearing it
// cost every later one.
const maxScratchTerms = 1024

// tokenizePassage counts the terms of a passage in the stemmer's scratch
// map and returns them as a slice: a map per passage, held until the batch
// flushes, was a seventh of what an import allocated.
func (m *stemmer) tokenizePassage(text, summary string) passageDoc {
	if m.counts == nil {
		m.counts = map[string]uint32{}
	}
	counts := m.counts
	d := passageDoc{checked: true}
	for _, s := range []string{text, summary} {
		ok := foldedTokens(s, func(t []byte) {
			counts[m.stem(t)]++
			d.length++
		})
		d.checked = d.checked && ok
	}
	d.terms = make([]termFreq, 0, len(counts))
	for t, n := range counts {
		d.terms = append(d.terms, termFreq{t, n})
	}
	if len(counts) > maxScratchTerms {
		m.counts = nil
	} else {
		clear(counts)
	}
	return d
}

// encodePostings encodes sorted postings as varints: the id's distance from
// the previous one (from the block's first id for the first), tf, length.
func encodePostings(ps []posting) []byte {
	b := make([]byte, 0, 4*len(ps))
	prev := ps[0].id
	for _, p := range ps {
		b = binary.AppendUvarint(b, uint64(p.id-prev))
		b = binary.AppendUvarint(b, uint64(p.tf))
		b = binary.AppendUvarint(b, uint64(p.length))
		prev = p.id
	}
	return b
}

// decodePostings appends the postings of a block to out.
func decodePostings(first int64, data []byte, out []posting) ([]posting, error) {
	id := first
	for len(data) > 0 {
		var v [3]uint64
		for i := range v {
			x, n := binary.Uvarint(data)
			if n <= 0 {
				return out, errors.New("corrupt posting block")
			}
			v[i], data = x, data[n:]
		}
		id += int64(v[0])
		out = append(out, posting{id: id, tf: uint32(v[1]), length: uint32(v[2])})
	}
	return out, nil
}

// indexWriter keeps the passage index of one write transaction.
type indexWriter struct {
	tx *sql.Tx
	q  stmtCache // x.tx's statements, prepared once
	// built is false while the index does not cover the store's passages
	// (see buildPassageIndex); nothing is written to it then.
	built   bool
	pending map[int64]passageDoc
	// undo, while a savepoint is open, records how to take back the
	// changes to pending since it was opened.
	undo      []pendingUndo
	savepoint bool
	stems     stemmer
}

type pendingUndo struct {
	id     int64
	doc    passageDoc
	wasSet bool
}

func newIndexWriter(ctx context.Context, tx *sql.Tx) (*indexWriter, error) {
	x := &indexWriter{tx: tx, q: stmtCache{tx: tx}, pending: map[int64]passageDoc{}}
	if err := tx.QueryRowContext(ctx, `SELECT built <> 0 FROM passage_stats WHERE id = 1`).Scan(&x.built); err != nil {
		return nil, fmt.Errorf("passage index: read stats: %w", err)
	}
	return x, nil
}

func (x *indexWriter) set(id int64, d passageDoc, present bool) {
	if x.savepoint {
		old, had := x.pending[id]
		x.undo = append(x.undo, pendingUndo{id: id, doc: old, wasSet: had})
	}
	if present {
		x.pending[id] = d
	} else {
		delete(x.pending, id)
	}
}

func (x *indexWriter) close() { x.q.close() }

// add indexes a new passage when the batch flushes.
func (x *indexWriter) add(id int64, text, summary string) {
	if x.built {
		x.set(id, x.stems.tokenizePassage(text, summary), true)
	}
}

// mark opens a savepoint; rollback and release close it.
func (x *indexWriter) mark() { x.savepoint, x.undo = true, x.undo[:0] }

func (x *indexWriter) rollback() {
	for i := len(x.undo) - 1; i >= 0; i-- {
		u := x.undo[i]
		if u.wasSet {
			x.pending[u.id] = u.doc
		} else {
			delete(x.pending, u.id)
		}
	}
	x.release()
}

func (x *indexWriter) release() { x.savepoint, x.undo = false, x.undo[:0] }

// removeContract takes the passages of the stored contract pk out of the
// index; it must run before they are deleted. Passages added earlier in
// this batch are only dropped from what is pending.
func (x *indexWriter) removeContract(ctx context.Context, pk int64) error {
	if !x.built {
		return nil
	}
	type old struct {
		id            int64
		text, summary string
	}
	var olds []old
	err := eachRow(ctx, &x.q, `SELECT pk, coalesce(text, ''), coalesce(summary, '') FROM clauses
		WHERE contract_pk = ? AND (coalesce(text, '') <> '' OR coalesce(summary, '') <> '')
		UNION ALL SELECT -pk, text, '' FROM chunks WHERE contract_pk = ?`, []any{pk, pk}, func(r *sql.Rows) error {
		var o old
		if err := r.Scan(&o.id, &o.text, &o.summary); err != nil {
			return err
		}
		olds = append(olds, o)
		return nil
	})
	if err != nil {
		return fmt.Errorf("passage index: read passages of contract %d: %w", pk, err)
	}
	byTerm := map[string][]int64{}
	var passages, tokens, unchecked int64
	for _, o := range olds {
		if _, ok := x.pending[o.id]; ok {
			x.set(o.id, passageDoc{}, false)
			continue
		}
		d := x.stems.tokenizePassage(o.text, o.summary)
		passages++
		tokens += int64(d.length)
		if !d.checked {
			unchecked++
		}
		for _, t := range d.terms {
			byTerm[t.term] = append(byTerm[t.term], o.id)
		}
	}
	if passages == 0 {
		return nil
	}
	for _, t := range sortedKeys(byTerm) {
		ids := byTerm[t]
		slices.Sort(ids)
		for _, part := range splitSign(ids, func(i int64) int64 { return i }) {
			if err := x.deletePostings(ctx, t, part); err != nil {
				return err
			}
		}
		if _, err := x.q.ExecContext(ctx, `UPDATE passage_terms SET df = df - ? WHERE term = ?`, len(ids), t); err != nil {
			return fmt.Errorf("passage index: term %q: %w", t, err)
		}
	}
	_, err = x.q.ExecContext(ctx, `UPDATE passage_stats SET passages = passages - ?, tokens = tokens - ?, unchecked = unchecked - ? WHERE id = 1`,
		passages, tokens, unchecked)
	if err != nil {
		return fmt.Errorf("passage index: stats: %w", err)
	}
	return nil
}

// splitSign splits values sorted by key into those with a negative key and
// the rest, leaving out an empty part.
func splitSign[T any](v []T, key func(T) int64) [][]T {
	i := sort.Search(len(v), func(i int) bool { return key(v[i]) >= 0 })
	var out [][]T
	if i > 0 {
		out = append(out, v[:i])
	}
	if i < len(v) {
		out = append(out, v[i:])
	}
	return out
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// storedBlock is a block read back for rewriting.
type storedBlock struct {
	first int64
	ps    []posting
}

// blocksIn reads the term's blocks that overlap [lo, hi]; with
// neighbours, also a part-filled block just before or after of the same
// sign as lo, for merging into. Each query is a short range of the
// primary key, however many blocks the term has.
func (x *indexWriter) blocksIn(ctx context.Context, term string, lo, hi int64, neighbours bool) ([]storedBlock, error) {
	var out []storedBlock
	scan := func(keep func(first, last int64, n int) bool) func(r *sql.Rows) error {
		return func(r *sql.Rows) error {
			var b storedBlock
			var last int64
			var n int
			var data []byte
			if err := r.Scan(&b.first, &last, &n, &data); err != nil {
				return err
			}
			if !keep(b.first, last, n) {
				return nil
			}
			var err error
			b.ps, err = decodePostings(b.first, data, nil)
			out = append(out, b)
			return err
		}
	}
	small := func(first, last int64, n int) bool {
		return neighbours && n < postingBlockSize && (first < 0) == (lo < 0) && (last < 0) == (lo < 0)
	}
	const cols = `SELECT first, last, n, data FROM passage_postings WHERE term = ? AND `
	if neighbours {
		// New passages get ids beyond the stored ones of their sign:
		// clause pks above every stored one, chunk ids (-pk) below. When
		// the term's last block (first block, for chunks) lies before lo
		// (after hi), it is the only block the three queries below can
		// return, so one query finds what they would.
		edge, q := false, cols+`first < ? ORDER BY first DESC LIMIT 1`
		if lo < 0 {
			q = cols + `first > ? ORDER BY first LIMIT 1`
		}
		bound := int64(math.MaxInt64)
		if lo < 0 {
			bound = math.MinInt64
		}
		var b storedBlock
		var last int64
		var n int
		var data []byte
		err := eachRow(ctx, &x.q, q, []any{term, bound}, func(r *sql.Rows) error {
			edge = true
			return r.Scan(&b.first, &last, &n, &data)
		})
		if err != nil {
			return nil, fmt.Errorf("passage index: term %q blocks: %w", term, err)
		}
		if !edge || (lo >= 0 && b.first < lo) || (lo < 0 && b.first > hi) {
			if !edge || !(last >= lo && b.first < lo || small(b.first, last, n)) {
				return nil, nil
			}
			if b.ps, err = decodePostings(b.first, data, nil); err != nil {
				return nil, fmt.Errorf("passage index: term %q blocks: %w", term, err)
			}
			return []storedBlock{b}, nil
		}
	}
	err := eachRow(ctx, &x.q, cols+`first < ? ORDER BY first DESC LIMIT 1`, []any{term, lo},
		scan(func(first, last int64, n int) bool { return last >= lo || small(first, last, n) }))
	if err == nil {
		err = eachRow(ctx, &x.q, cols+`first BETWEEN ? AND ? ORDER BY first`, []any{term, lo, hi},
			scan(func(int64, int64, int) bool { return true }))
	}
	if err == nil && neighbours {
		err = eachRow(ctx, &x.q, cols+`first > ? ORDER BY first LIMIT 1`, []any{term, hi}, scan(small))
	}
	if err != nil {
		return nil, fmt.Errorf("passage index: term %q blocks: %w", term, err)
	}
	return out, nil
}

// deletePostings takes ids (sorted, of one sign) out of the term's blocks.
func (x *indexWriter) deletePostings(ctx context.Context, term string, ids []int64) error {
	blocks, err := x.blocksIn(ctx, term, ids[0], ids[len(ids)-1], false)
	if err != nil {
		return err
	}
	gone := map[int64]bool{}
	for _, id := range ids {
		gone[id] = true
	}
	removed := 0
	for _, b := range blocks {
		kept := b.ps[:0:0]
		for _, p := range b.ps {
			if gone[p.id] {
				removed++
			} else {
				kept = append(kept, p)
			}
		}
		if len(kept) == len(b.ps) {
			continue
		}
		if _, err := x.q.ExecContext(ctx, `DELETE FROM passage_postings WHERE term = ? AND first = ?`, term, b.first); err != nil {
			return fmt.Errorf("passage index: term %q: %w", term, err)
		}
		if len(kept) > 0 {
			if err := x.writeBlock(ctx, term, kept); err != nil {
				return err
			}
		}
	}
	if removed != len(ids) {
		return fmt.Errorf("passage index: term %q holds %d of the %d passages removed", term, removed, len(ids))
	}
	return nil
}

func (x *indexWriter) writeBlock(ctx context.Context, term string, ps []posting) error {
	var maxTF, minLen uint32 = 0, ps[0].length
	for _, p := range ps {
		maxTF, minLen = max(maxTF, p.tf), min(minLen, p.length)
	}
	_, err := x.q.ExecContext(ctx, `INSERT INTO passage_postings(term, first, last, n, max_tf, min_len, data) VALUES (?, ?, ?, ?, ?, ?, ?)`,
		term, ps[0].id, ps[len(ps)-1].id, len(ps), maxTF, minLen, encodePostings(ps))
	if err != nil {
		return fmt.Errorf("passage index: write term %q block at %d: %w", term, ps[0].id, err)
	}
	return nil
}

// flush writes the pending passages: their postings merged into the blocks
// of each term, document frequencies and the stats.
func (x *indexWriter) flush(ctx context.Context) error {
	if !x.built || len(x.pending) == 0 {
		return nil
	}
	// Postings are collected in id order, so that each term's list is
	// sorted as it is built (sorting each list was 40% of the flush).
	ids := make([]int64, 0, len(x.pending))
	for id := range x.pending {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	byTerm := map[string][]posting{}
	var tokens, unchecked int64
	for _, id := range ids {
		d := x.pending[id]
		tokens += int64(d.length)
		if !d.checked {
			unchecked++
		}
		for _, t := range d.terms {
			byTerm[t.term] = append(byTerm[t.term], posting{id: id, tf: t.tf, length: d.length})
		}
	}
	for _, t := range sortedKeys(byTerm) {
		ps := byTerm[t]
		for _, part := range splitSign(ps, func(p posting) int64 { return p.id }) {
			if err := x.insertPostings(ctx, t, part); err != nil {
				return err
			}
		}
		_, err := x.q.ExecContext(ctx, `INSERT INTO passage_terms(term, df) VALUES (?, ?) ON CONFLICT(term) DO UPDATE SET df = df + excluded.df`, t, len(ps))
		if err != nil {
			return fmt.Errorf("passage index: term %q: %w", t, err)
		}
	}
	_, err := x.q.ExecContext(ctx, `UPDATE passage_stats SET passages = passages + ?, tokens = tokens + ?, unchecked = unchecked + ? WHERE id = 1`,
		len(x.pending), tokens, unchecked)
	if err != nil {
		return fmt.Errorf("passage index: stats: %w", err)
	}
	clear(x.pending)
	return nil
}

func cmpInt64(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// insertPostings merges new postings (sorted, of one sign) into the term's
// blocks: blocks they overlap, and a part-filled neighbouring block of the
// same sign, are read, merged and written again in full blocks.
func (x *indexWriter) insertPostings(ctx context.Context, term string, ps []posting) error {
	blocks, err := x.blocksIn(ctx, term, ps[0].id, ps[len(ps)-1].id, true)
	if err != nil {
		return err
	}
	all := ps
	if len(blocks) > 0 {
		// The blocks come in order, and new postings usually follow them
		// all: then the merged list needs no sort.
		all = nil
		for _, b := range blocks {
			if _, err := x.q.ExecContext(ctx, `DELETE FROM passage_postings WHERE term = ? AND first = ?`, term, b.first); err != nil {
				return fmt.Errorf("passage index: term %q: %w", term, err)
			}
			all = append(all, b.ps...)
		}
		all = append(all, ps...)
		if !slices.IsSortedFunc(all, func(a, b posting) int { return cmpInt64(a.id, b.id) }) {
			slices.SortFunc(all, func(a, b posting) int { return cmpInt64(a.id, b.id) })
		}
		for i := 1; i < len(all); i++ {
			if all[i].id == all[i-1].id {
				return fmt.Errorf("passage index: term %q already holds passage %d", term, all[i].id)
			}
		}
	}
	for len(all) > 0 {
		n := min(postingBlockSize, len(all))
		if err := x.writeBlock(ctx, term, all[:n]); err != nil {
			return err
		}
		all = all[n:]
	}
	return nil
}

// passageRules is the version of the rules the passage index is built by:
// the tokenizer (tokenize.go) and the code points it is unsure of
// (fts5Differs), which decide the postings and which passages count as
// unchecked. passage_stats.built holds the version that built the store's
// index: 0 while it is not built, 1 for the rules of migration 0100 with
// today's fts5Differs. Any change of those rules must increment it; Open
// then builds the index again, so that no store keeps postings or an
// unchecked count the rules no longer give.
const passageRules = 1

// buildPassageIndex indexes every passage of a store whose passages
// predate the index (passage_stats.built = 0) or were indexed by other
// rules (built ≠ passageRules), in one transaction, telling progress how
// far it is; until then the search uses FTS5 alone and puts leave the
// index alone.
func buildPassageIndex(db *sql.DB, progress func(Progress)) error {
	ctx := context.Background()
	var built int64
	if err := db.QueryRowContext(ctx, `SELECT built FROM passage_stats WHERE id = 1`).Scan(&built); err != nil {
		return fmt.Errorf("passage index: read stats: %w", err)
	}
	if built == passageRules {
		return nil
	}
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("passage index: begin: %w", err)
	}
	defer tx.Rollback()
	var total int64
	err = tx.QueryRowContext(ctx, `SELECT (SELECT count(*) FROM clauses WHERE coalesce(text, '') <> '' OR coalesce(summary, '') <> '')
		+ (SELECT count(*) FROM chunks)`).Scan(&total)
	if err != nil {
		return fmt.Errorf("passage index: count passages: %w", err)
	}
	progress(Progress{Step: StepPassageIndex, Total: total})
	for _, q := range []string{`DELETE FROM passage_terms`, `DELETE FROM passage_postings`,
		`UPDATE passage_stats SET passages = 0, tokens = 0, unchecked = 0, built = 0 WHERE id = 1`} {
		if _, err := tx.ExecContext(ctx, q); err != nil {
			return fmt.Errorf("passage index: reset: %w", err)
		}
	}
	x := &indexWriter{tx: tx, q: stmtCache{tx: tx}, built: true, pending: map[int64]passageDoc{}}
	defer x.close()
	// Pages of passages by key: each is read in full, then written, since
	// the transaction's one connection cannot write while it reads.
	var done int64
	for _, src := range []struct {
		query  string
		chunks bool // ids are -pk
	}{
		{`SELECT pk, coalesce(text, ''), coalesce(summary, '') FROM clauses
			WHERE pk > ? AND (coalesce(text, '') <> '' OR coalesce(summary, '') <> '') ORDER BY pk LIMIT 20000`, false},
		{`SELECT pk, text, '' FROM chunks WHERE pk > ? ORDER BY pk LIMIT 20000`, true},
	} {
		after := int64(0)
		for {
			n := 0
			err := eachRow(ctx, tx, src.query, []any{after}, func(r *sql.Rows) error {
				var pk int64
				var text, summary string
				if err := r.Scan(&pk, &text, &summary); err != nil {
					return err
				}
				id := pk
				if src.chunks {
					id = -pk
				}
				x.pending[id] = x.stems.tokenizePassage(text, summary)
				after, n = pk, n+1
				return nil
			})
			if err != nil {
				return fmt.Errorf("passage index: read passages: %w", err)
			}
			if err := x.flush(ctx); err != nil {
				return err
			}
			if n == 0 {
				break
			}
			done += int64(n)
			progress(Progress{Step: StepPassageIndex, Done: min(done, total), Total: total})
		}
	}
	if _, err := tx.ExecContext(ctx, `UPDATE passage_stats SET built = ? WHERE id = 1`, passageRules); err != nil {
		return fmt.Errorf("passage index: record the rules: %w", err)
	}
	if done != total {
		// Counted in the same transaction: only a bug makes them differ.
		return fmt.Errorf("passage index: indexed %d passages of %d counted", done, total)
	}
	progress(Progress{Step: StepPassageIndex, Done: total, Total: total})
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("passage index: commit: %w", err)
	}
	return nil
}
