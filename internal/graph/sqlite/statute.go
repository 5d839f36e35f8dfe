package sqlite

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strings"
	"unicode"

	"github.com/contractgraph/contractgraph/internal/contract"
	"github.com/contractgraph/contractgraph/internal/graph"
)

var (
	_ graph.StatuteStore       = (*Store)(nil)
	_ graph.StatuteVectorStore = (*Store)(nil)
)

// statuteBM25 weighs the FTS columns (cite, heading, text): a word in the
// heading says more about a section than the same word deep in its text.
const statuteBM25 = `bm25(statute_fts, 2.0, 3.0, 1.0)`

// PutStatutes writes the statutes in one transaction; see graph.StatuteStore.
func (s *Store) PutStatutes(ctx context.Context, sts []contract.Statute) (graph.StatuteCounts, error) {
	var counts graph.StatuteCounts
	sts, hashes, err := graph.PrepareStatutes(sts)
	if err != nil {
		return counts, fmt.Errorf("put statutes: %w", err)
	}
	err = s.withWriteTx(ctx, func(tx *sql.Tx) error {
		counts = graph.StatuteCounts{}
		for i := range sts {
			if err := ctx.Err(); err != nil {
				return err
			}
			st := &sts[i]
			var pk int64
			var hash string
			err := tx.QueryRowContext(ctx, `SELECT pk, content_hash FROM statutes WHERE id = ?`, st.ID).Scan(&pk, &hash)
			switch {
			case errors.Is(err, sql.ErrNoRows):
				res, err := tx.ExecContext(ctx, `INSERT INTO statutes (id, jurisdiction, code, number, heading, text, url, content_hash)
					VALUES (?, ?, ?, ?, ?, ?, ?, ?)`, st.ID, st.Jurisdiction, st.Code, st.Number, st.Heading, st.Text, st.URL, hashes[i])
				if err != nil {
					return fmt.Errorf("insert statute %q: %w", st.ID, err)
				}
				if pk, err = res.LastInsertId(); err != nil {
					return fmt.Errorf("insert statute %q: %w", st.ID, err)
				}
				counts.Created++
			case err != nil:
				return fmt.Errorf("read statute %q: %w", st.ID, err)
			case hash == hashes[i]:
				counts.Unchanged++
				continue
			default:
				if _, err := tx.ExecContext(ctx, `UPDATE statutes SET jurisdiction = ?, code = ?, number = ?, heading = ?, text = ?,
					url = ?, content_hash = ?, embedding = NULL, embedding_model = NULL WHERE pk = ?`, st.Jurisdiction, st.Code, st.Number, st.Heading, st.Text, st.URL, hashes[i], pk); err != nil {
					return fmt.Errorf("update statute %q: %w", st.ID, err)
				}
				if _, err := tx.ExecContext(ctx, `DELETE FROM statute_fts WHERE rowid = ?`, pk); err != nil {
					return fmt.Errorf("unindex statute %q: %w", st.ID, err)
				}
				counts.Updated++
			}
			if _, err := tx.ExecContext(ctx, `INSERT INTO statute_fts (rowid, cite, heading, text) VALUES (?, ?, ?, ?)`,
				pk, spaceHan(st.Code+" "+st.Number), spaceHan(st.Heading), spaceHan(st.Text)); err != nil {
				return fmt.Errorf("index statute %q: %w", st.ID, err)
			}
		}
		return nil
	})
	if err != nil {
		return graph.StatuteCounts{}, fmt.Errorf("put statutes: %w", err)
	}
	return counts, nil
}

// GetStatute returns one statute; see graph.StatuteStore.
func (s *Store) GetStatute(ctx context.Context, id string) (*contract.Statute, error) {
	var st contract.Statute
	err := s.rdb.QueryRowContext(ctx, `SELECT id, jurisdiction, code, number, heading, text, url FROM statutes WHERE id = ?`, id).
		Scan(&st.ID, &st.Jurisdiction, &st.Code, &st.Number, &st.Heading, &st.Text, &st.URL)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("statute %q: %w", id, graph.ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("get statute %q: %w", id, err)
	}
	return &st, nil
}

// CountStatutes counts stored statutes; see graph.StatuteStore.
func (s *Store) CountStatutes(ctx context.Context, jurisdiction string) (int, error) {
	var n int
	err := s.rdb.QueryRowContext(ctx, `SELECT count(*) FROM statutes WHERE ? = '' OR jurisdiction = ?`, jurisdiction, jurisdiction).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("count statutes: %w", err)
	}
	return n, nil
}

// SearchStatutes ranks statutes by BM25; see graph.StatuteStore. Every word
// of the query is optional (the words are ORed), so a section matching most
// of them ranks first without having to match all.
func (s *Store) SearchStatutes(ctx context.Context, q graph.StatuteQuery) ([]graph.StatuteHit, error) {
	limit, err := q.EffectiveLimit()
	if err != nil {
		return nil, fmt.Errorf("search statutes: %w", err)
	}
	match := statuteMatch(q.Query)
	if match == "" {
		return nil, nil
	}
	var hits []graph.StatuteHit
	err = eachRow(ctx, s.rdb, `SELECT s.id, s.jurisdiction, s.code, s.number, s.heading, s.text, s.url, `+statuteBM25+` AS rank
		FROM statute_fts JOIN statutes s ON s.pk = statute_fts.rowid
		WHERE statute_fts MATCH ? AND (? = '' OR s.jurisdiction = ?)
		ORDER BY rank, s.id LIMIT ?`,
		[]any{match, q.Jurisdiction, q.Jurisdiction, limit}, func(r *sql.Rows) error {
			var h graph.StatuteHit
			var rank float64
			st := &h.Statute
			if err := r.Scan(&st.ID, &st.Jurisdiction, &st.Code, &st.Number, &st.Heading, &st.Text, &st.URL, &rank); err != nil {
				return err
			}
			h.Score = -rank
			hits = append(hits, h)
			return nil
		})
	if err != nil {
		return nil, fmt.Errorf("search statutes: %w", err)
	}
	return hits, nil
}

// statuteMatch turns free text into an FTS5 expression of its
// graph.StatuteTerms, all ORed: each word a quoted term, each run of Han
// characters a quoted phrase of single characters (the way they are
// indexed). Terms hold only letters, digits and marks, so quoting makes
// every FTS5 operator in the input plain text. It returns "" when the text
// has no searchable word.
func statuteMatch(text string) string {
	terms := graph.StatuteTerms(text)
	parts := make([]string, len(terms))
	for i, t := range terms {
		if t.Han {
			parts[i] = `"` + strings.Join(strings.Split(t.Text, ""), " ") + `"`
		} else {
			parts[i] = `"` + t.Text + `"`
		}
	}
	return strings.Join(parts, " OR ")
}

// spaceHan puts a space around every Han character so that the unicode61
// tokenizer indexes each one as a token.
func spaceHan(s string) string {
	if !strings.ContainsFunc(s, isHan) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) * 2)
	for _, r := range s {
		if isHan(r) {
			b.WriteByte(' ')
			b.WriteRune(r)
			b.WriteByte(' ')
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

func isHan(r rune) bool { return unicode.Is(unicode.Han, r) }

// StatutesWithoutEmbedding lists statutes to embed; see graph.StatuteVectorStore.
func (s *Store) StatutesWithoutEmbedding(ctx context.Context, limit int) ([]contract.Statute, error) {
	if limit < 1 {
		return nil, fmt.Errorf("statutes without embedding: %w: limit %d is below 1", graph.ErrInvalidQuery, limit)
	}
	var out []contract.Statute
	err := eachRow(ctx, s.rdb, `SELECT id, jurisdiction, code, number, heading, text, url FROM statutes
		WHERE embedding IS NULL ORDER BY id LIMIT ?`, []any{limit}, func(r *sql.Rows) error {
		var st contract.Statute
		if err := r.Scan(&st.ID, &st.Jurisdiction, &st.Code, &st.Number, &st.Heading, &st.Text, &st.URL); err != nil {
			return err
		}
		out = append(out, st)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("statutes without embedding: %w", err)
	}
	return out, nil
}

// PutStatuteEmbeddings stores embeddings; see graph.StatuteVectorStore. It
// records no model, so the backfill (PutEmbeddings) redoes them.
func (s *Store) PutStatuteEmbeddings(ctx context.Context, ids []string, vecs [][]float32) error {
	if len(ids) != len(vecs) {
		return fmt.Errorf("put statute embeddings: %d ids but %d vectors", len(ids), len(vecs))
	}
	for i, v := range vecs {
		if len(v) == 0 {
			return fmt.Errorf("put statute embeddings: statute %q: empty vector", ids[i])
		}
	}
	err := s.withWriteTx(ctx, func(tx *sql.Tx) error {
		for i, id := range ids {
			res, err := tx.ExecContext(ctx, `UPDATE statutes SET embedding = ?, embedding_model = NULL WHERE id = ?`, encodeVector(vecs[i]), id)
			if err != nil {
				return fmt.Errorf("statute %q: %w", id, err)
			}
			if n, err := res.RowsAffected(); err != nil || n == 0 {
				return fmt.Errorf("statute %q: %w", id, graph.ErrNotFound)
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("put statute embeddings: %w", err)
	}
	return nil
}

// SearchStatuteVectors scans statute embeddings in Go (a few thousand
// statutes per jurisdiction); see graph.StatuteVectorStore.
func (s *Store) SearchStatuteVectors(ctx context.Context, vector []float32, jurisdiction string, limit int) ([]graph.StatuteHit, error) {
	if _, err := graph.StatuteVectorLimit(limit); err != nil {
		return nil, fmt.Errorf("search statute vectors: %w", err)
	}
	if err := graph.CheckQueryVector(vector); err != nil {
		return nil, fmt.Errorf("search statute vectors: %w", err)
	}
	qn := norm(vector)
	type scored struct {
		id    string
		score float64
	}
	var all []scored
	err := eachRow(ctx, s.rdb, `SELECT id, embedding FROM statutes
		WHERE embedding IS NOT NULL AND length(embedding) = ? AND (? = '' OR jurisdiction = ?)`,
		[]any{4 * len(vector), jurisdiction, jurisdiction}, func(r *sql.Rows) error {
			var sc scored
			var blob []byte
			if err := r.Scan(&sc.id, &blob); err != nil {
				return err
			}
			sc.score = cosine(vector, qn, blob)
			all = append(all, sc)
			return nil
		})
	if err != nil {
		return nil, fmt.Errorf("search statute vectors: %w", err)
	}
	slices.SortFunc(all, func(a, b scored) int {
		if c := cmp.Compare(b.score, a.score); c != 0 {
			return c
		}
		return strings.Compare(a.id, b.id)
	})
	all = all[:min(limit, len(all))]
	hits := make([]graph.StatuteHit, 0, len(all))
	for _, sc := range all {
		st, err := s.GetStatute(ctx, sc.id)
		if err != nil {
			return nil, fmt.Errorf("search statute vectors: %w", err)
		}
		hits = append(hits, graph.StatuteHit{Statute: *st, Score: sc.score})
	}
	return hits, nil
}
