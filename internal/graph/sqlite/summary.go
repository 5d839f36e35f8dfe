package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"sort"
	"strconv"

	"github.com/contractgraph/contractgraph/internal/graph"
)

var _ graph.SummaryVectorStore = (*Store)(nil)

// summaryTextSQL is the text embedded for a contract's summary (d is its
// contract_details row): title, summary and scope on lines of their own,
// trimmed, "" when all three are empty. It is computed in SQL so that the
// text a vector was made from can be compared with the current one in the
// same statement.
const summaryTextSQL = `trim(coalesce(d.title, '') || char(10) || coalesce(d.summary, '') || char(10) || coalesce(d.scope, ''), char(10) || ' ')`

// countSummaryEmbeddings counts contracts with a summary text and those
// whose current text has a vector by model.
func (s *Store) countSummaryEmbeddings(ctx context.Context, model string) (graph.EmbeddingCount, error) {
	var c graph.EmbeddingCount
	err := s.rdb.QueryRowContext(ctx, `SELECT count(*), count(v.contract_pk)
		FROM contract_details d
		LEFT JOIN summary_vectors v ON v.contract_pk = d.contract_pk AND v.embedding_model = ? AND v.text = `+summaryTextSQL+`
		WHERE `+summaryTextSQL+` <> ''`, model).Scan(&c.Total, &c.Embedded)
	if err != nil {
		return c, fmt.Errorf("count summary embeddings: %w", err)
	}
	return c, nil
}

// missingSummaryEmbeddings pages, in contract pk order, through the
// contracts whose summary text has no vector by q.Model (none, another
// model's, or one of an older text). Next is the page's last pk, so that a
// text whose vector could not be written is not listed again.
func (s *Store) missingSummaryEmbeddings(ctx context.Context, q graph.EmbeddingQuery) (graph.EmbeddingPage, error) {
	var page graph.EmbeddingPage
	after := int64(0)
	if q.After != "" {
		var err error
		if after, err = strconv.ParseInt(q.After, 10, 64); err != nil {
			return page, fmt.Errorf("missing summary embeddings: after %q is not one of this store's", q.After)
		}
	}
	query := `SELECT d.contract_pk, ` + summaryTextSQL + ` FROM contract_details d
		LEFT JOIN summary_vectors v ON v.contract_pk = d.contract_pk
		WHERE d.contract_pk > ? AND ` + summaryTextSQL + ` <> ''
		AND (v.contract_pk IS NULL OR v.embedding_model <> ? OR v.text <> ` + summaryTextSQL + `)
		ORDER BY d.contract_pk LIMIT ?`
	var last int64
	err := eachRow(ctx, s.rdb, query, []any{after, q.Model, q.Limit}, func(r *sql.Rows) error {
		var it graph.EmbeddingItem
		if err := r.Scan(&last, &it.Text); err != nil {
			return err
		}
		it.Key = strconv.FormatInt(last, 10)
		page.Items = append(page.Items, it)
		return nil
	})
	if err != nil {
		return graph.EmbeddingPage{}, fmt.Errorf("missing summary embeddings: %w", err)
	}
	if len(page.Items) > 0 {
		page.Next = strconv.FormatInt(last, 10)
	}
	return page, nil
}

// putSummaryEmbeddings stores vectors of contracts' summary texts, each only
// if the contract's text is still the one it was listed with.
func (s *Store) putSummaryEmbeddings(ctx context.Context, model string, items []graph.EmbeddingItem, vecs [][]float32) (int, error) {
	pks := make([]int64, len(items))
	for i, it := range items {
		pk, err := strconv.ParseInt(it.Key, 10, 64)
		if err != nil {
			return 0, fmt.Errorf("put summary embeddings: item %d: key %q is not one of this store's", i, it.Key)
		}
		pks[i] = pk
	}
	written := 0
	err := s.withWriteTx(ctx, func(tx *sql.Tx) error {
		written = 0
		st, err := tx.PrepareContext(ctx, `INSERT INTO summary_vectors (contract_pk, text, embedding, embedding_model)
			SELECT d.contract_pk, ?, ?, ? FROM contract_details d WHERE d.contract_pk = ? AND `+summaryTextSQL+` = ?
			ON CONFLICT (contract_pk) DO UPDATE SET text = excluded.text, embedding = excluded.embedding,
				embedding_model = excluded.embedding_model`)
		if err != nil {
			return err
		}
		defer st.Close()
		for i, pk := range pks {
			res, err := st.ExecContext(ctx, items[i].Text, encodeVector(vecs[i]), model, pk, items[i].Text)
			if err != nil {
				return fmt.Errorf("item %d (key %q): %w", i, items[i].Key, err)
			}
			n, err := res.RowsAffected()
			if err != nil {
				return err
			}
			written += int(n)
		}
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("put summary embeddings: %w", err)
	}
	return written, nil
}

// SearchSummaryVectors ranks the contracts q.Filter matches by the cosine
// similarity of their current summary vector; see graph.SummaryVectorStore.
// Like SearchVectors it scans in Go: one short vector per contract.
func (s *Store) SearchSummaryVectors(ctx context.Context, q graph.VectorQuery) ([]graph.SummaryHit, error) {
	n, err := q.EffectiveLimit()
	if err != nil {
		return nil, fmt.Errorf("search summary vectors: %w", err)
	}
	if err := graph.CheckQueryVector(q.Vector); err != nil {
		return nil, fmt.Errorf("search summary vectors: %w", err)
	}
	qn := norm(q.Vector)
	w, err := compileFilter(ctx, s.rdb, q.Filter)
	if err != nil {
		return nil, fmt.Errorf("search summary vectors: %w", err)
	}
	w.add("length(v.embedding) = ?", 4*len(q.Vector))
	if q.Model != "" {
		w.add("v.embedding_model = ?", q.Model)
	}
	w.add("v.text = " + summaryTextSQL)
	query := `SELECT c.id, v.embedding FROM summary_vectors v
		JOIN contracts c ON c.pk = v.contract_pk
		JOIN contract_details d ON d.contract_pk = v.contract_pk` + w.sql()
	var hits []graph.SummaryHit
	err = eachRow(ctx, s.rdb, query, w.args, func(r *sql.Rows) error {
		var h graph.SummaryHit
		var blob []byte
		if err := r.Scan(&h.ContractID, &blob); err != nil {
			return err
		}
		h.Score = cosine(q.Vector, qn, blob)
		hits = append(hits, h)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("search summary vectors: %w", err)
	}
	sort.Slice(hits, func(i, j int) bool {
		if hits[i].Score != hits[j].Score {
			return hits[i].Score > hits[j].Score
		}
		return hits[i].ContractID < hits[j].ContractID
	})
	if len(hits) > n {
		hits = hits[:n]
	}
	if hits == nil {
		hits = []graph.SummaryHit{}
	}
	return hits, nil
}
