package sqlite

import (
	"container/heap"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/contractgraph/contractgraph/internal/graph"
	"github.com/contractgraph/contractgraph/internal/textmatch"
)

// BM25 over the passage index, computed as FTS5's bm25() computes it
// (fts5_aux.c): k1 = 1.2, b = 0.75, idf = ln((N - df + 0.5) / (df + 0.5))
// floored at 1e-6, the row's length over all columns, the phrases summed in
// query order. The logarithm is SQLite's own ln(), which is not always
// bit-equal to math.Log, and every product is rounded on its own (explicit
// float64 conversions forbid fused multiply-adds), so that scores are equal
// to FTS5's to the last bit and ties are ties.
var (
	bm25K1 float64 = 1.2
	bm25B  float64 = 0.75
)

func bm25Phrase(idf, tf, length, avgdl float64) float64 {
	norm := float64(bm25K1 * float64(float64(1-bm25B)+float64(float64(bm25B*length)/avgdl)))
	return float64(idf * float64(float64(tf*float64(bm25K1+1.0))/float64(tf+norm)))
}

// pruneSlack widens every bound the pruning compares with a threshold, so
// that a bound summed in another order than the exact score cannot fall a
// rounding error below it.
const pruneSlack = 1 + 1e-9

// indexRanking is a query the passage index can rank: its phrases (one term
// each, in FTS5's order) and its distinct terms with their postings.
type indexRanking struct {
	phrases  []int // phrase i's term, an index into terms
	terms    []*rankTerm
	avgdl    float64
	passages int64
	// allowed, when not nil, are the only passages topK ranks, in id
	// order: those of the contracts a selective filter keeps.
	allowed []int64
}

type rankTerm struct {
	term   string
	pos    int // index in indexRanking.terms
	idf    float64
	mult   int // phrases with this term
	blocks []rankBlock
	ub     float64 // bound on the term's contribution to any passage
	// The last (tf, length) scored and its bm25Phrase: passages written
	// from one template share both, so most postings reuse it.
	lastTF, lastLen uint32
	lastScore       float64
}

// score is bm25Phrase of the term for a passage with tf and length.
func (t *rankTerm) score(tf, length uint32, avgdl float64) float64 {
	if tf != t.lastTF || length != t.lastLen || t.lastTF == 0 {
		t.lastTF, t.lastLen = tf, length
		t.lastScore = bm25Phrase(t.idf, float64(tf), float64(length), avgdl)
	}
	return t.lastScore
}

type rankBlock struct {
	first, last   int64
	maxTF, minLen uint32
	data          []byte
	ub            float64
}

// newIndexRanking prepares query for ranking through the passage index:
// newIndexQuery's terms with every posting block of each.
func newIndexRanking(ctx context.Context, tx *sql.Tx, query string) (*indexRanking, error) {
	r, err := newIndexQuery(ctx, tx, query)
	if r == nil || err != nil {
		return r, err
	}
	for _, t := range r.terms {
		err := eachRow(ctx, tx, `SELECT first, last, max_tf, min_len, data FROM passage_postings WHERE term = ? ORDER BY first`,
			[]any{t.term}, func(rows *sql.Rows) error {
				var b rankBlock
				if err := rows.Scan(&b.first, &b.last, &b.maxTF, &b.minLen, &b.data); err != nil {
					return err
				}
				b.ub = float64(t.mult) * bm25Phrase(t.idf, float64(b.maxTF), float64(b.minLen), r.avgdl) * pruneSlack
				t.ub = max(t.ub, b.ub)
				t.blocks = append(t.blocks, b)
				return nil
			})
		if err != nil {
			return nil, fmt.Errorf("passage index term %q postings: %w", t.term, err)
		}
	}
	return r, nil
}

// newIndexQuery reads what the passage index knows of query's terms (their
// idf, the passage count and average length), without their postings.
// It returns nil when the index cannot answer exactly as FTS5 would: not
// built, passages with text the Go tokenizer is not sure of, a word that is
// not one term (FTS5 reads it as a phrase), or no passages.
func newIndexQuery(ctx context.Context, tx *sql.Tx, query string) (*indexRanking, error) {
	var n, tokens, unchecked int64
	var built bool
	err := tx.QueryRowContext(ctx, `SELECT passages, tokens, unchecked, built <> 0 FROM passage_stats WHERE id = 1`).Scan(&n, &tokens, &unchecked, &built)
	if err != nil {
		return nil, fmt.Errorf("passage index stats: %w", err)
	}
	if !built || unchecked > 0 || n == 0 {
		return nil, nil
	}
	r := &indexRanking{avgdl: float64(tokens) / float64(n), passages: n}
	byTerm := map[string]int{}
	for _, w := range textmatch.SearchWords(query) {
		var terms []string
		if !ftsTokens(w, func(t []byte) { terms = append(terms, string(t)) }) || len(terms) != 1 {
			return nil, nil
		}
		i, ok := byTerm[terms[0]]
		if !ok {
			i = len(r.terms)
			byTerm[terms[0]] = i
			r.terms = append(r.terms, &rankTerm{term: terms[0], pos: i})
		}
		r.terms[i].mult++
		r.phrases = append(r.phrases, i)
	}
	if len(r.phrases) == 0 {
		return nil, nil
	}
	// idf from the stored document frequencies, the logarithm by SQLite.
	args := make([]any, len(r.terms))
	sel := make([]string, len(r.terms))
	for i, t := range r.terms {
		var df int64
		switch err := tx.QueryRowContext(ctx, `SELECT df FROM passage_terms WHERE term = ?`, t.term).Scan(&df); {
		case errors.Is(err, sql.ErrNoRows):
		case err != nil:
			return nil, fmt.Errorf("passage index term %q: %w", t.term, err)
		}
		args[i] = (float64(n-df) + 0.5) / (float64(df) + 0.5)
		sel[i] = "ln(?)"
	}
	dst := make([]any, len(r.terms))
	for i, t := range r.terms {
		dst[i] = &t.idf
	}
	if err := tx.QueryRowContext(ctx, `SELECT `+strings.Join(sel, ", "), args...).Scan(dst...); err != nil {
		return nil, fmt.Errorf("passage index idf: %w", err)
	}
	for _, t := range r.terms {
		if t.idf <= 0 {
			t.idf = 1e-6
		}
	}
	return r, nil
}

// passageRunGap is how far apart two candidate passage ids may be and
// still have their postings read by one range query of scoreIDs.
var passageRunGap int64 = 1 << 12

// scoreIDs scores the passages ids (clause pks and negated chunk pks) as
// topK does, reading only the posting blocks that can hold them, and
// returns those holding a query term with their scores: what FTS5's
// bm25() gives the same passages, without FTS5 counting every match of
// every term for the document frequencies. Its cost follows len(ids) and
// the query's terms, not the corpus.
func (r *indexRanking) scoreIDs(ctx context.Context, tx *sql.Tx, ids []int64) (map[int64]float64, error) {
	ids = slices.Clone(ids)
	slices.Sort(ids)
	ids = slices.Compact(ids)
	tfs := make([]uint32, len(ids)*len(r.terms)) // ids[i]'s tf of term j at i*len(r.terms)+j
	lengths := make([]uint32, len(ids))
	var ps []posting
	for start := 0; start < len(ids); {
		// A run of ids of one sign, each within passageRunGap of the last.
		end := start + 1
		for end < len(ids) && ids[end]-ids[end-1] <= passageRunGap && (ids[end] < 0) == (ids[start] < 0) {
			end++
		}
		lo, hi := ids[start], ids[end-1]
		for j, t := range r.terms {
			i := start
			err := eachRow(ctx, tx, `SELECT first, data FROM passage_postings WHERE term = ?1
				AND first >= coalesce((SELECT max(first) FROM passage_postings WHERE term = ?1 AND first <= ?2), ?2)
				AND first <= ?3 ORDER BY first`, []any{t.term, lo, hi}, func(rows *sql.Rows) error {
				var first int64
				var data []byte
				if err := rows.Scan(&first, &data); err != nil {
					return err
				}
				var err error
				if ps, err = decodePostings(first, data, ps[:0]); err != nil {
					return err
				}
				for _, p := range ps {
					for i < end && ids[i] < p.id {
						i++
					}
					if i == end {
						break
					}
					if ids[i] == p.id {
						tfs[i*len(r.terms)+j] = p.tf
						lengths[i] = p.length
					}
				}
				return nil
			})
			if err != nil {
				return nil, fmt.Errorf("passage index term %q postings: %w", t.term, err)
			}
		}
		start = end
	}
	scores := map[int64]float64{}
	for i, id := range ids {
		tf := tfs[i*len(r.terms) : (i+1)*len(r.terms)]
		if lengths[i] == 0 {
			continue // no posting: no term of the query
		}
		// The exact score, summed in phrase order as FTS5 sums it.
		score := 0.0
		for _, ti := range r.phrases {
			if tf[ti] > 0 {
				score += r.terms[ti].score(tf[ti], lengths[i], r.avgdl)
			}
		}
		scores[id] = score
	}
	return scores, nil
}

// cursor walks one term's postings in id order, decoding a block only
// when it is entered.
type cursor struct {
	t     *rankTerm
	block int
	ps    []posting
	pos   int
	err   error
}

// doc returns the current posting's id, or MaxInt64 past the end.
func (c *cursor) doc() int64 {
	if c.pos < len(c.ps) {
		return c.ps[c.pos].id
	}
	return math.MaxInt64
}

func (c *cursor) load() {
	c.ps, c.pos = c.ps[:0], 0
	if c.block < len(c.t.blocks) {
		b := c.t.blocks[c.block]
		c.ps, c.err = decodePostings(b.first, b.data, c.ps)
	}
}

func (c *cursor) next() {
	c.pos++
	if c.pos >= len(c.ps) && c.block < len(c.t.blocks) {
		c.block++
		c.load()
	}
}

// blockFor moves to the block that could hold id (the first ending at or
// after it) without decoding it, and returns it, or nil past the end.
func (c *cursor) blockFor(id int64) *rankBlock {
	for c.block < len(c.t.blocks) && c.t.blocks[c.block].last < id {
		c.block++
		c.ps, c.pos = c.ps[:0], 0
	}
	if c.block == len(c.t.blocks) {
		return nil
	}
	return &c.t.blocks[c.block]
}

// seek moves to the first posting at or after id.
func (c *cursor) seek(id int64) {
	if c.pos < len(c.ps) && c.ps[len(c.ps)-1].id >= id {
		for c.ps[c.pos].id < id {
			c.pos++
		}
		return
	}
	if c.blockFor(id) == nil {
		return
	}
	c.load()
	for c.pos < len(c.ps) && c.ps[c.pos].id < id {
		c.pos++
	}
}

// topResult is the outcome of topK: every passage scoring more than the
// k-th best score, and every one scoring exactly that (which of those make
// the cut is the tie order's to decide). complete says the query matched
// fewer than k passages, all of them in above.
type topResult struct {
	above    map[int64]float64
	tied     []int64
	floor    float64
	complete bool
}

// scoreHeap is a min-heap of the best k scores seen.
type scoreHeap []float64

func (h scoreHeap) Len() int           { return len(h) }
func (h scoreHeap) Less(i, j int) bool { return h[i] < h[j] }
func (h scoreHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *scoreHeap) Push(x any)        { *h = append(*h, x.(float64)) }
func (h *scoreHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// topK finds the best k passages by MaxScore: the terms whose bounds add
// up to less than the current k-th best score are not essential, a passage
// is a candidate only if an essential term holds it, and a candidate is
// dropped as soon as what it has plus the block bounds of the terms still
// to look up cannot reach that score. Passages that can tie with the k-th
// best are never dropped, so the result holds every passage scoring at
// least the k-th best score.
func (r *indexRanking) topK(k int) (topResult, error) {
	terms := slices.Clone(r.terms)
	slices.SortFunc(terms, func(a, b *rankTerm) int {
		switch {
		case a.ub < b.ub:
			return -1
		case a.ub > b.ub:
			return 1
		}
		return strings.Compare(a.term, b.term)
	})
	curs := make([]*cursor, len(terms))
	prefix := make([]float64, len(terms)+1) // prefix[i]: bounds of terms[:i]
	for i, t := range terms {
		curs[i] = &cursor{t: t}
		curs[i].load()
		prefix[i+1] = prefix[i] + t.ub
	}
	theta := math.Inf(-1)
	essential := 0 // terms[essential:] are essential
	h := &scoreHeap{}
	type cand struct {
		id    int64
		score float64
	}
	var cands []cand
	// tiedIDs are the passages scoring exactly theta once the heap is
	// full, in id order; they stay out of cands, whose entries carry a
	// score. A rise of theta leaves them below it.
	var tiedIDs []int64
	// r.allowed[:ai] are behind the cursors.
	ai := 0
	tf := make([]uint32, len(r.terms)) // by r.terms index
	for {
		id := int64(math.MaxInt64)
		for _, c := range curs[essential:] {
			id = min(id, c.doc())
		}
		if id == math.MaxInt64 {
			break
		}
		if r.allowed != nil {
			// Skip to the next allowed passage: the essential cursors
			// jump there, past every posting in between.
			j, _ := slices.BinarySearch(r.allowed[ai:], id)
			ai += j
			if ai == len(r.allowed) {
				break
			}
			if next := r.allowed[ai]; next != id {
				for _, c := range curs[essential:] {
					c.seek(next)
				}
				continue
			}
		}
		clear(tf)
		var length uint32
		partial := 0.0
		for _, c := range curs[essential:] {
			if c.doc() == id {
				p := c.ps[c.pos]
				tf[c.t.pos] = p.tf
				length = p.length
				partial += float64(c.t.mult) * c.t.score(p.tf, p.length, r.avgdl)
				c.next()
			}
		}
		partial *= pruneSlack
		dropped := false
		for i := essential - 1; i >= 0; i-- {
			if partial+prefix[i+1] < theta {
				dropped = true
				break
			}
			c := curs[i]
			b := c.blockFor(id)
			if b == nil || b.first > id {
				continue
			}
			if partial+b.ub+prefix[i] < theta {
				dropped = true
				break
			}
			c.seek(id)
			if c.doc() == id {
				p := c.ps[c.pos]
				tf[c.t.pos] = p.tf
				partial += float64(c.t.mult) * c.t.score(p.tf, p.length, r.avgdl) * pruneSlack
			}
		}
		if dropped {
			continue
		}
		// The exact score, summed in phrase order as FTS5 sums it.
		score := 0.0
		for _, ti := range r.phrases {
			if tf[ti] > 0 {
				score += r.terms[ti].score(tf[ti], length, r.avgdl)
			}
		}
		if score < theta {
			continue
		}
		if score == theta && h.Len() == k {
			// The heap stays as it is (its least is theta).
			tiedIDs = append(tiedIDs, id)
			continue
		}
		cands = append(cands, cand{id, score})
		if h.Len() < k {
			heap.Push(h, score)
		} else if score > (*h)[0] {
			(*h)[0] = score
			heap.Fix(h, 0)
		}
		if h.Len() == k && (*h)[0] > theta {
			theta = (*h)[0]
			tiedIDs = tiedIDs[:0]
			for essential < len(terms) && prefix[essential+1] < theta {
				essential++
			}
			if len(cands) > 4*k+1024 {
				kept := cands[:0]
				for _, c := range cands {
					if c.score >= theta {
						kept = append(kept, c)
					}
				}
				cands = kept
			}
		}
	}
	for _, c := range curs {
		if c.err != nil {
			return topResult{}, fmt.Errorf("passage index term %q: %w", c.t.term, c.err)
		}
	}
	res := topResult{above: map[int64]float64{}, floor: theta, complete: h.Len() < k}
	var tiedCands []int64
	for _, c := range cands {
		switch {
		case c.score > theta || res.complete:
			res.above[c.id] = c.score
		case c.score == theta:
			tiedCands = append(tiedCands, c.id)
		}
	}
	// Both lists are in id order; so is their merge.
	res.tied = mergeSorted(tiedCands, tiedIDs)
	return res, nil
}

// mergeSorted merges two ascending lists of distinct ids into one; it
// returns one of them when the other is empty.
func mergeSorted(a, b []int64) []int64 {
	switch {
	case len(a) == 0:
		return b
	case len(b) == 0:
		return a
	}
	out := make([]int64, 0, len(a)+len(b))
	for len(a) > 0 && len(b) > 0 {
		if a[0] < b[0] {
			out, a = append(out, a[0]), a[1:]
		} else {
			out, b = append(out, b[0]), b[1:]
		}
	}
	return append(append(out, a...), b...)
}

// searchIndexed is SearchClauses' ranking through the passage index: the
// best passages by topK, those passing the filter, the tie at the cut
// settled by contract id, offset and clause id; deeper while too few pass.
//
// A filter that keeps few of the contracts (matching of them, at most
// one in selectiveFilter) is applied inside topK instead: the passages of
// the contracts it keeps are listed first, and the ranking skips every
// other, rather than ranking ever deeper into passages it then drops.
func searchIndexed(ctx context.Context, tx *sql.Tx, r *indexRanking, n int, w *where, matching int, types []string) ([]graph.ClauseHit, error) {
	k := n
	if len(w.conds) > 0 || len(types) > 0 {
		k = max(4*n, 64)
	}
	if len(w.conds) > 0 && matching >= 0 {
		var last int64 // about how many contracts are stored, in O(log n)
		if err := tx.QueryRowContext(ctx, `SELECT coalesce(max(pk), 0) FROM contracts`).Scan(&last); err != nil {
			return nil, fmt.Errorf("contracts: %w", err)
		}
		if int64(matching)*selectiveFilter <= last {
			allowed, err := filteredPassages(ctx, tx, w, types)
			if err != nil {
				return nil, err
			}
			r.allowed, k = allowed, n
			// Every passage ranked passes the filter: resolve without it.
			w = &where{}
		}
	}
	for ; ; k *= 8 {
		res, err := r.topK(k)
		if err != nil {
			return nil, err
		}
		hits, err := resolvePassages(ctx, tx, res.above, w, types)
		if err != nil {
			return nil, err
		}
		if need := n - len(hits); need > 0 && len(res.tied) > 0 {
			order := orderTied
			// Walking the contracts in id order reads about
			// need·passages/len(tied) passages, ordering the tie in SQL
			// len(tied).
			if t := int64(len(res.tied)); len(w.conds) == 0 && t*t > int64(need)*r.passages {
				order = func(ctx context.Context, tx *sql.Tx, tied []int64, floor float64, need int, _ *where, types []string) ([]graph.ClauseHit, error) {
					return orderTiedByWalk(ctx, tx, tied, floor, need, types)
				}
			}
			tied, err := order(ctx, tx, res.tied, res.floor, need, w, types)
			if err != nil {
				return nil, err
			}
			hits = append(hits, tied...)
		}
		if len(hits) >= n || res.complete {
			return hits, nil
		}
	}
}

// selectiveFilter: a filter keeping at most one contract in this many is
// applied inside the ranking (searchIndexed).
var selectiveFilter int64 = 32

// filteredPassages lists, in id order, the passages (clause pks, negated
// chunk pks) of the contracts w keeps, of types when given (no chunks then).
func filteredPassages(ctx context.Context, tx *sql.Tx, w *where, types []string) ([]int64, error) {
	q := `SELECT cl.pk FROM clauses cl WHERE cl.contract_pk IN (SELECT c.pk FROM contracts c` + w.sql() + `)`
	args := append([]any{}, w.args...)
	if len(types) > 0 {
		in := placeholders(len(types))
		q += ` AND (cl.type IN (` + in + `) OR cl.grp IN (` + in + `))`
		args = append(append(args, anys(types)...), anys(types)...)
	} else {
		q += ` UNION ALL SELECT -ch.pk FROM chunks ch WHERE ch.contract_pk IN (SELECT c.pk FROM contracts c` + w.sql() + `)`
		args = append(args, w.args...)
	}
	ids := []int64{}
	err := eachRow(ctx, tx, q, args, func(rows *sql.Rows) error {
		var id int64
		err := rows.Scan(&id)
		ids = append(ids, id)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("filtered passages: %w", err)
	}
	slices.Sort(ids)
	return ids, nil
}

// orderTiedByWalk is orderTied for a large tie without a contract filter:
// instead of ordering every tied passage in SQL, it walks the contracts in
// id order, a page at a time, and keeps the tied passages of each in
// offset and clause id order until need are found. When the tie is a good
// share of all passages that reads a few pages of a few hundred contracts
// instead of tens of thousands of passages.
func orderTiedByWalk(ctx context.Context, tx *sql.Tx, tied []int64, floor float64, need int, types []string) ([]graph.ClauseHit, error) {
	// tied is in id order (topK's), so membership is a binary search.
	isTied := func(id int64) bool {
		_, ok := slices.BinarySearch(tied, id)
		return ok
	}
	type found struct {
		id   int64
		cid  string
		off  int64
		clid string
	}
	cond := ""
	var typeArgs []any
	if len(types) > 0 {
		in := placeholders(len(types))
		cond = " AND (cl.type IN (" + in + ") OR cl.grp IN (" + in + "))"
		typeArgs = append(anys(types), anys(types)...)
	}
	after := ""
	var got []found // in contract id order by page
	for page := 32; ; page *= 4 {
		var pks []int64
		cids := map[int64]string{}
		err := eachRow(ctx, tx, `SELECT pk, id FROM contracts WHERE id > ? ORDER BY id LIMIT ?`, []any{after, page}, func(r *sql.Rows) error {
			var pk int64
			var id string
			if err := r.Scan(&pk, &id); err != nil {
				return err
			}
			pks, cids[pk], after = append(pks, pk), id, id
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("walk contracts: %w", err)
		}
		scan := func(r *sql.Rows) error {
			var f found
			var cpk int64
			if err := r.Scan(&f.id, &cpk, &f.off, &f.clid); err != nil {
				return err
			}
			if isTied(f.id) {
				f.cid = cids[cpk]
				got = append(got, f)
			}
			return nil
		}
		in := jsonInts(pks)
		err = eachRow(ctx, tx, `SELECT cl.pk, cl.contract_pk, cl.start, cl.id FROM clauses cl
			WHERE cl.contract_pk IN (SELECT value FROM json_each(?))`+cond, append([]any{in}, typeArgs...), scan)
		if err == nil && len(types) == 0 {
			err = eachRow(ctx, tx, `SELECT -ch.pk, ch.contract_pk, ch.start, '' FROM chunks ch
				WHERE ch.contract_pk IN (SELECT value FROM json_each(?))`, []any{in}, scan)
		}
		if err != nil {
			return nil, fmt.Errorf("walk tied passages: %w", err)
		}
		if len(got) >= need || len(pks) < page {
			slices.SortFunc(got, func(a, b found) int {
				if c := strings.Compare(a.cid, b.cid); c != 0 {
					return c
				}
				if c := cmpInt64(a.off, b.off); c != 0 {
					return c
				}
				return strings.Compare(a.clid, b.clid)
			})
			best := map[int64]float64{}
			for _, f := range got[:min(need, len(got))] {
				best[f.id] = floor
			}
			return resolvePassages(ctx, tx, best, &where{}, types)
		}
	}
}
