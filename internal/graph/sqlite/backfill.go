package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/contractgraph/contractgraph/internal/contract"
	"github.com/contractgraph/contractgraph/internal/graph"
)

var (
	_ graph.ChunkBackfiller     = (*Store)(nil)
	_ graph.EmbeddingBackfiller = (*Store)(nil)
)

// ContractsWithoutChunks lists contracts to chunk; see graph.ChunkBackfiller.
// It reads the narrow contracts table and probes the text and chunk tables
// by key, so it costs milliseconds even on a large store.
func (s *Store) ContractsWithoutChunks(ctx context.Context) ([]string, error) {
	ids, err := queryIDs(ctx, s.rdb, `SELECT c.id FROM contracts c
		WHERE EXISTS (SELECT 1 FROM contract_texts t WHERE t.contract_pk = c.pk AND t.text <> '')
		AND NOT EXISTS (SELECT 1 FROM chunks ch WHERE ch.contract_pk = c.pk)
		ORDER BY c.id`)
	if err != nil {
		return nil, fmt.Errorf("contracts without chunks: %w", err)
	}
	return ids, nil
}

// embeddingTable returns the table that holds kind's vectors.
func embeddingTable(kind string) (string, error) {
	switch kind {
	case graph.EmbedChunks:
		return "chunks", nil
	case graph.EmbedStatutes:
		return "statutes", nil
	case graph.EmbedSummaries:
		return "summary_vectors", nil
	}
	return "", fmt.Errorf("unknown embedding kind %q (want %q, %q or %q)", kind, graph.EmbedChunks, graph.EmbedStatutes, graph.EmbedSummaries)
}

func checkModel(model string) error {
	if strings.TrimSpace(model) == "" {
		return errors.New("empty embedding model name")
	}
	return nil
}

// CountEmbeddings counts texts and vectors by model; see
// graph.EmbeddingBackfiller. Both counts read only indexes.
func (s *Store) CountEmbeddings(ctx context.Context, kind, model string) (graph.EmbeddingCount, error) {
	var c graph.EmbeddingCount
	table, err := embeddingTable(kind)
	if err == nil {
		err = checkModel(model)
	}
	if err != nil {
		return c, fmt.Errorf("count embeddings: %w", err)
	}
	if kind == graph.EmbedSummaries {
		return s.countSummaryEmbeddings(ctx, model)
	}
	// table is one of two constants.
	err = s.rdb.QueryRowContext(ctx, `SELECT (SELECT count(*) FROM `+table+`),
		(SELECT count(*) FROM `+table+` WHERE embedding_model = ?)`, model).Scan(&c.Total, &c.Embedded)
	if err != nil {
		return c, fmt.Errorf("count %s embeddings: %w", kind, err)
	}
	return c, nil
}

// MissingEmbeddings returns texts without a vector by q.Model; see
// graph.EmbeddingBackfiller. Rows are read through the embedding_model
// index: those without a model first, then those of models sorting before
// and after q.Model, each group in pk order. Written rows leave the groups,
// so every call starts from the front and q.After is not needed; Next is
// always "".
func (s *Store) MissingEmbeddings(ctx context.Context, q graph.EmbeddingQuery) (graph.EmbeddingPage, error) {
	var page graph.EmbeddingPage
	table, err := embeddingTable(q.Kind)
	if err == nil {
		err = checkModel(q.Model)
	}
	if err == nil && (q.Limit < 1 || q.Limit > graph.MaxEmbeddingPage) {
		err = fmt.Errorf("limit %d out of range 1..%d", q.Limit, graph.MaxEmbeddingPage)
	}
	if err != nil {
		return page, fmt.Errorf("missing embeddings: %w", err)
	}
	if q.Kind == graph.EmbedSummaries {
		return s.missingSummaryEmbeddings(ctx, q)
	}
	cols := `pk, text`
	if table == "statutes" {
		cols = `pk, content_hash, id, jurisdiction, code, number, heading, text, url`
	}
	groups := []struct {
		where string
		args  []any
	}{
		{`embedding_model IS NULL`, nil},
		{`embedding_model < ?`, []any{q.Model}},
		{`embedding_model > ?`, []any{q.Model}},
	}
	for _, g := range groups {
		left := q.Limit - len(page.Items)
		if left == 0 {
			break
		}
		// The INDEXED BY makes a plan change an error rather than a full scan.
		query := `SELECT ` + cols + ` FROM ` + table + ` INDEXED BY ` + table + `_embedding_model WHERE ` + g.where +
			` ORDER BY embedding_model, pk LIMIT ?`
		err := eachRow(ctx, s.rdb, query, append(g.args, left), func(r *sql.Rows) error {
			var pk int64
			var it graph.EmbeddingItem
			if table == "chunks" {
				if err := r.Scan(&pk, &it.Text); err != nil {
					return err
				}
				it.Key = strconv.FormatInt(pk, 10)
			} else {
				var hash string
				st := &contract.Statute{}
				if err := r.Scan(&pk, &hash, &st.ID, &st.Jurisdiction, &st.Code, &st.Number, &st.Heading, &st.Text, &st.URL); err != nil {
					return err
				}
				it.Key, it.Statute = strconv.FormatInt(pk, 10)+":"+hash, st
			}
			page.Items = append(page.Items, it)
			return nil
		})
		if err != nil {
			return graph.EmbeddingPage{}, fmt.Errorf("missing %s embeddings: %w", q.Kind, err)
		}
	}
	return page, nil
}

// PutEmbeddings stores vectors with their model; see graph.EmbeddingBackfiller.
// A chunk is written only if its text is still items[i].Text, a statute
// only if its content hash is still the one it was listed with.
func (s *Store) PutEmbeddings(ctx context.Context, kind, model string, items []graph.EmbeddingItem, vecs [][]float32) (int, error) {
	table, err := embeddingTable(kind)
	if err == nil {
		err = checkModel(model)
	}
	if err == nil && len(items) != len(vecs) {
		err = fmt.Errorf("%d items but %d vectors", len(items), len(vecs))
	}
	type row struct {
		pk    int64
		check string // the text or content hash it must still have
	}
	rows := make([]row, len(items))
	for i := 0; err == nil && i < len(items); i++ {
		if len(vecs[i]) == 0 {
			err = fmt.Errorf("item %d (key %q): empty vector", i, items[i].Key)
			break
		}
		key, check := items[i].Key, items[i].Text
		if table == "statutes" {
			key, check, _ = strings.Cut(key, ":")
		}
		pk, perr := strconv.ParseInt(key, 10, 64)
		if perr != nil {
			err = fmt.Errorf("item %d: key %q is not one of this store's", i, items[i].Key)
			break
		}
		rows[i] = row{pk, check}
	}
	if err != nil {
		return 0, fmt.Errorf("put embeddings: %w", err)
	}
	if kind == graph.EmbedSummaries {
		return s.putSummaryEmbeddings(ctx, model, items, vecs)
	}
	checkCol := "text"
	if table == "statutes" {
		checkCol = "content_hash"
	}
	written := 0
	err = s.withWriteTx(ctx, func(tx *sql.Tx) error {
		written = 0
		st, err := tx.PrepareContext(ctx, `UPDATE `+table+` SET embedding = ?, embedding_model = ? WHERE pk = ? AND `+checkCol+` = ?`)
		if err != nil {
			return err
		}
		defer st.Close()
		for i, r := range rows {
			res, err := st.ExecContext(ctx, encodeVector(vecs[i]), model, r.pk, r.check)
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
		return 0, fmt.Errorf("put %s embeddings: %w", kind, err)
	}
	return written, nil
}
