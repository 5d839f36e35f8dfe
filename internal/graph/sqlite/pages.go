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

var _ graph.PageStore = (*Store)(nil)

// PutPages replaces a contract's pages in one transaction; see
// graph.PageStore.
func (s *Store) PutPages(ctx context.Context, p graph.ContractPages) error {
	err := s.withWriteTx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `DELETE FROM contract_pages WHERE contract_id = ?`, p.ContractID); err != nil {
			return err
		}
		st, err := tx.PrepareContext(ctx, `INSERT INTO contract_pages
			(contract_id, page, sha256, source, start_off, end_off, confidence, width, height, words, image)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`)
		if err != nil {
			return err
		}
		defer st.Close()
		for _, pg := range p.Pages {
			var conf, width, height, words, image any
			if pg.Source == contract.PageOCR {
				conf, width, height = pg.Confidence, pg.Width, pg.Height
				b, err := json.Marshal(encodeWords(pg.Words))
				if err != nil {
					return fmt.Errorf("page %d words: %w", pg.Number, err)
				}
				words = string(b)
			}
			if len(pg.Image) > 0 {
				image = pg.Image
			}
			if _, err := st.ExecContext(ctx, p.ContractID, pg.Number, p.SHA256, pg.Source, pg.Start, pg.End, conf, width, height, words, image); err != nil {
				return fmt.Errorf("page %d: %w", pg.Number, err)
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("put pages of %s: %w", p.ContractID, err)
	}
	return nil
}

// Pages returns a contract's pages without images; see graph.PageStore.
func (s *Store) Pages(ctx context.Context, contractID string) (*graph.ContractPages, error) {
	rows, err := s.rdb.QueryContext(ctx, `SELECT page, sha256, source, start_off, end_off, confidence, width, height, words
		FROM contract_pages WHERE contract_id = ? ORDER BY page`, contractID)
	if err != nil {
		return nil, fmt.Errorf("pages of %s: %w", contractID, err)
	}
	defer rows.Close()
	out := &graph.ContractPages{ContractID: contractID}
	for rows.Next() {
		var pg contract.Page
		var conf sql.NullFloat64
		var width, height sql.NullInt64
		var words sql.NullString
		if err := rows.Scan(&pg.Number, &out.SHA256, &pg.Source, &pg.Start, &pg.End, &conf, &width, &height, &words); err != nil {
			return nil, fmt.Errorf("pages of %s: %w", contractID, err)
		}
		pg.Confidence, pg.Width, pg.Height = conf.Float64, int(width.Int64), int(height.Int64)
		if words.Valid {
			var ws [][7]float64
			if err := json.Unmarshal([]byte(words.String), &ws); err != nil {
				return nil, fmt.Errorf("pages of %s: page %d words: %w", contractID, pg.Number, err)
			}
			pg.Words = decodeWords(ws)
		}
		out.Pages = append(out.Pages, pg)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("pages of %s: %w", contractID, err)
	}
	if len(out.Pages) == 0 {
		return nil, fmt.Errorf("pages of %s: %w", contractID, graph.ErrNotFound)
	}
	return out, nil
}

// PageImage returns one page's PNG; see graph.PageStore.
func (s *Store) PageImage(ctx context.Context, contractID string, page int) ([]byte, error) {
	var img []byte
	err := s.rdb.QueryRowContext(ctx, `SELECT image FROM contract_pages WHERE contract_id = ? AND page = ? AND image IS NOT NULL`, contractID, page).Scan(&img)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return nil, fmt.Errorf("page %d of %s: %w", page, contractID, graph.ErrNotFound)
	case err != nil:
		return nil, fmt.Errorf("page %d of %s: %w", page, contractID, err)
	}
	return img, nil
}

// encodeWords writes words as [start, end, x, y, w, h, conf] rows, a
// third of the size of objects with field names.
func encodeWords(ws []contract.PageWord) [][7]float64 {
	out := make([][7]float64, len(ws))
	for i, w := range ws {
		out[i] = [7]float64{float64(w.Start), float64(w.End), float64(w.X), float64(w.Y), float64(w.W), float64(w.H), float64(int(w.Conf*10)) / 10}
	}
	return out
}

func decodeWords(ws [][7]float64) []contract.PageWord {
	out := make([]contract.PageWord, len(ws))
	for i, w := range ws {
		out[i] = contract.PageWord{Start: int(w[0]), End: int(w[1]), X: int(w[2]), Y: int(w[3]), W: int(w[4]), H: int(w[5]), Conf: w[6]}
	}
	return out
}
