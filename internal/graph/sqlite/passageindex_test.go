package sqlite

import (
	"context"
	"database/sql"
	"path/filepath"
	"strings"
	"testing"

	"github.com/contractgraph/contractgraph/internal/contract"
	"github.com/contractgraph/contractgraph/internal/graph"
	"github.com/contractgraph/contractgraph/internal/synth"
)

// checkPassageIndex compares the passage index with passage_fts itself:
// every (term, passage) pair with its term frequency and every passage's
// length, as FTS5's fts5vocab instance table lists them; the document
// frequencies and stats; and the block layout (sorted, non-overlapping,
// one sign per block, headers that match the postings).
func checkPassageIndex(t *testing.T, s *Store) {
	t.Helper()
	ctx := context.Background()
	db := s.wdb
	if _, err := db.ExecContext(ctx, `CREATE VIRTUAL TABLE IF NOT EXISTS temp.passage_vocab USING fts5vocab(main, passage_fts, instance)`); err != nil {
		t.Fatal(err)
	}
	type key struct {
		term string
		id   int64
	}
	want := map[key]uint32{}
	wantLen := map[int64]uint32{}
	err := eachRow(ctx, db, `SELECT term, doc FROM temp.passage_vocab`, nil, func(r *sql.Rows) error {
		var k key
		if err := r.Scan(&k.term, &k.id); err != nil {
			return err
		}
		want[k]++
		wantLen[k.id]++
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	got := map[key]posting{}
	df := map[string]int{}
	type span struct{ first, last int64 }
	var prev map[string]span = map[string]span{}
	err = eachRow(ctx, db, `SELECT term, first, last, n, max_tf, min_len, data FROM passage_postings ORDER BY term, first`, nil, func(r *sql.Rows) error {
		var term string
		var first, last int64
		var n int
		var maxTF, minLen uint32
		var data []byte
		if err := r.Scan(&term, &first, &last, &n, &maxTF, &minLen, &data); err != nil {
			return err
		}
		ps, err := decodePostings(first, data, nil)
		if err != nil {
			return err
		}
		if len(ps) != n || n == 0 || n > postingBlockSize || ps[0].id != first || ps[n-1].id != last || (first < 0) != (last < 0) {
			t.Errorf("term %q block at %d: header first %d last %d n %d, postings %d from %d to %d", term, first, first, last, n, len(ps), ps[0].id, ps[len(ps)-1].id)
		}
		if p, ok := prev[term]; ok && p.last >= first {
			t.Errorf("term %q: block at %d overlaps the one ending at %d", term, first, p.last)
		}
		prev[term] = span{first, last}
		var mt, ml uint32 = 0, ps[0].length
		for i, p := range ps {
			if i > 0 && p.id <= ps[i-1].id {
				t.Errorf("term %q block at %d: ids out of order", term, first)
			}
			mt, ml = max(mt, p.tf), min(ml, p.length)
			got[key{term, p.id}] = p
		}
		if mt != maxTF || ml != minLen {
			t.Errorf("term %q block at %d: max_tf %d min_len %d, postings say %d and %d", term, first, maxTF, minLen, mt, ml)
		}
		df[term] += n
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for k, tf := range want {
		p, ok := got[k]
		switch {
		case !ok:
			t.Errorf("index lacks term %q in passage %d", k.term, k.id)
		case p.tf != tf || p.length != wantLen[k.id]:
			t.Errorf("term %q passage %d: tf %d length %d, FTS5 has %d and %d", k.term, k.id, p.tf, p.length, tf, wantLen[k.id])
		}
	}
	for k := range got {
		if _, ok := want[k]; !ok {
			t.Errorf("index holds term %q in passage %d, FTS5 does not", k.term, k.id)
		}
	}
	err = eachRow(ctx, db, `SELECT term, df FROM passage_terms`, nil, func(r *sql.Rows) error {
		var term string
		var n int
		if err := r.Scan(&term, &n); err != nil {
			return err
		}
		if n != df[term] {
			t.Errorf("term %q: df %d, postings %d", term, n, df[term])
		}
		delete(df, term)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(df) > 0 {
		t.Errorf("terms with postings but no df: %v", df)
	}
	var passages, tokens, unchecked, built int64
	if err := db.QueryRowContext(ctx, `SELECT passages, tokens, unchecked, built FROM passage_stats`).Scan(&passages, &tokens, &unchecked, &built); err != nil {
		t.Fatal(err)
	}
	var wantPassages int64
	if err := db.QueryRowContext(ctx, `SELECT (SELECT count(*) FROM clauses WHERE coalesce(text, '') <> '' OR coalesce(summary, '') <> '') + (SELECT count(*) FROM chunks)`).Scan(&wantPassages); err != nil {
		t.Fatal(err)
	}
	var wantTokens int64
	for _, n := range wantLen {
		wantTokens += int64(n)
	}
	if built != passageRules || passages != wantPassages || tokens != wantTokens || unchecked != 0 {
		t.Errorf("stats: built by rules %d, %d passages, %d tokens, %d unchecked; want rules %d, %d, %d, 0",
			built, passages, tokens, unchecked, passageRules, wantPassages, wantTokens)
	}
}

// indexTestContracts returns n synthetic contracts, every third with its
// clause texts also stored as the contract's text and cut into chunks, so
// that the index holds both clause (positive) and chunk (negative) ids, and
// every fourth with a first clause that also holds non-Latin text.
func indexTestContracts(t *testing.T, seed int64, n int) []*contract.Contract {
	t.Helper()
	var cs []*contract.Contract
	if err := synth.Generate(seed, n, func(c *contract.Contract) error { cs = append(cs, c); return nil }); err != nil {
		t.Fatal(err)
	}
	for i, c := range cs {
		if i%4 == 1 && len(c.Clauses) > 0 {
			// Text in other scripts, an emoji and a Word bullet: checked
			// characters the index must count as FTS5 does.
			c.Clauses[0].Text += " 계약 해지 かな カナ العربية \U0001F600 \uf0b7 Ελλάδα"
		}
		if i%3 != 0 {
			continue
		}
		var b strings.Builder
		for j, cl := range c.Clauses {
			start := b.Len()
			b.WriteString(cl.Text)
			c.Chunks = append(c.Chunks, contract.Chunk{ID: c.ID + "-ch" + string(rune('a'+j)), Ord: j, Text: cl.Text, Start: start, End: b.Len()})
			b.WriteString("\n\n")
		}
		c.Text = b.String()
	}
	return cs
}

// TestPassageIndexFollowsWrites checks the passage index against FTS5
// after new contracts, replaced ones (with other clause texts, fewer
// chunks), a contract put twice in one batch, a batch with an invalid
// contract, and after building it for a store whose passages predate it.
func TestPassageIndexFollowsWrites(t *testing.T) {
	defer smallBlocks()()
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "index.db")
	s, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { s.Close() }()
	cs := indexTestContracts(t, 3, 90)
	putAll(t, s, cs[:40]...)
	putAll(t, s, cs[40:]...)
	checkPassageIndex(t, s)

	// Replace: other texts, a dropped clause, fewer chunks; one contract
	// twice in the same batch.
	var repl []*contract.Contract
	for i := 0; i < len(cs); i += 4 {
		c := *cs[i]
		c.Clauses = append([]contract.Clause{}, c.Clauses[:len(c.Clauses)-1]...)
		for j := range c.Clauses {
			c.Clauses[j].Text = "Replaced wording " + c.Clauses[j].Text + " terminated conveniently"
			c.Clauses[j].Start, c.Clauses[j].End = 0, 0
		}
		if len(c.Chunks) > 1 {
			c.Chunks = c.Chunks[:1]
		}
		repl = append(repl, &c)
	}
	twice := *repl[1]
	twice.Clauses = append([]contract.Clause{}, twice.Clauses...)
	twice.Clauses[0].Text = "Second version of the first clause, governed by New York law"
	repl = append(repl, &twice)
	putAll(t, s, repl...)
	checkPassageIndex(t, s)
	// Scores after deletes must still be FTS5's (its row count and total
	// length follow deletes as the index's stats do).
	for _, q := range clauseBenchQueries {
		for _, f := range []graph.Filter{{}, {ContractType: cs[1].ContractType}} {
			compareWithExhaustive(t, s, q.query, f, 7)
		}
		if !usesIndex(t, s, q.query) {
			t.Errorf("the passage index does not answer %q", q.query)
		}
	}

	// An invalid contract is reported and leaves the others indexed.
	bad := *cs[5]
	bad.ID = ""
	more := indexTestContracts(t, 4, 6)
	if _, err := s.PutContracts(ctx, append(append([]*contract.Contract{}, more[:3]...), append([]*contract.Contract{&bad}, more[3:]...)...)); err != nil {
		t.Fatal(err)
	}
	checkPassageIndex(t, s)

	// A store whose passages predate the index is built when opened.
	if _, err := s.wdb.ExecContext(ctx, `DELETE FROM passage_terms; DELETE FROM passage_postings; UPDATE passage_stats SET passages = 0, tokens = 0, built = 0`); err != nil {
		t.Fatal(err)
	}
	putAll(t, s, indexTestContracts(t, 5, 4)...) // not indexed while unbuilt
	s.Close()
	if s, err = Open(path); err != nil {
		t.Fatal(err)
	}
	checkPassageIndex(t, s)
}

// TestIndexWriterSavepointUndo checks that rolling back a savepoint takes
// back what the contract added to and dropped from the pending passages.
func TestIndexWriterSavepointUndo(t *testing.T) {
	x := &indexWriter{built: true, pending: map[int64]passageDoc{}}
	x.add(1, "first passage", "")
	x.mark()
	x.add(2, "second passage", "")
	x.set(1, passageDoc{}, false)
	x.add(3, "third", "")
	x.rollback()
	if len(x.pending) != 1 || x.pending[1].tf("first") != 1 {
		t.Fatalf("after rollback pending = %v, want passage 1 alone", x.pending)
	}
	x.mark()
	x.add(4, "kept", "")
	x.release()
	x.mark()
	x.rollback()
	if _, ok := x.pending[4]; !ok || len(x.pending) != 2 {
		t.Fatalf("after release and an empty rollback pending = %v, want passages 1 and 4", x.pending)
	}
}

// smallBlocks makes the passage index write blocks of 8 postings, so that a
// small corpus has terms of many blocks, and returns what restores it.
func smallBlocks() func() {
	old := postingBlockSize
	postingBlockSize = 8
	return func() { postingBlockSize = old }
}
