package sqlite

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/contractgraph/contractgraph/internal/graph"
)

var _ graph.LinkStore = (*Store)(nil)

// ReplaceLinks replaces every link of source with links in one
// transaction; see graph.LinkStore.
func (s *Store) ReplaceLinks(ctx context.Context, source string, links []graph.ContractLink) error {
	if source != graph.LinkDetected && source != graph.LinkManual {
		return fmt.Errorf("replace links: %w: source %q", graph.ErrInvalidQuery, source)
	}
	for _, l := range links {
		if err := l.Check(); err != nil {
			return fmt.Errorf("replace links: %w", err)
		}
		if l.Source != source {
			return fmt.Errorf("replace links: %w: link %q -> %q has source %q, not %q", graph.ErrInvalidQuery, l.From, l.To, l.Source, source)
		}
	}
	err := s.withWriteTx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `DELETE FROM contract_links WHERE source = ?`, source); err != nil {
			return err
		}
		// A manual link replaces a detected one with its key; a detected
		// one never replaces a manual one.
		conflict := `ON CONFLICT(from_pk, to_pk, kind) DO NOTHING`
		if source == graph.LinkManual {
			conflict = `ON CONFLICT(from_pk, to_pk, kind) DO UPDATE SET restates = excluded.restates, confidence = excluded.confidence,
				evidence = excluded.evidence, evidence_start = excluded.evidence_start, evidence_end = excluded.evidence_end, source = excluded.source`
		}
		st, err := tx.PrepareContext(ctx, `INSERT INTO contract_links(from_pk, to_pk, kind, restates, confidence, evidence, evidence_start, evidence_end, source)
			SELECT f.pk, t.pk, ?, ?, ?, ?, ?, ?, ? FROM contracts f, contracts t WHERE f.id = ? AND t.id = ? `+conflict)
		if err != nil {
			return err
		}
		defer st.Close()
		exists, err := tx.PrepareContext(ctx, `SELECT count(*) FROM contracts WHERE id IN (?, ?)`)
		if err != nil {
			return err
		}
		defer exists.Close()
		for _, l := range links {
			if _, err := st.ExecContext(ctx, l.Kind, l.Restates, l.Confidence, l.Quote, l.Start, l.End, l.Source, l.From, l.To); err != nil {
				return fmt.Errorf("link %q -> %q: %w", l.From, l.To, err)
			}
			var n int
			if err := exists.QueryRowContext(ctx, l.From, l.To).Scan(&n); err != nil {
				return err
			}
			if n < 2 {
				return fmt.Errorf("link %q -> %q: %w: a contract of the link is not stored", l.From, l.To, graph.ErrNotFound)
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("replace links: %w", err)
	}
	return nil
}

// ContractLinks returns the links from or to id, or all of them; see
// graph.LinkStore.
func (s *Store) ContractLinks(ctx context.Context, id string) ([]graph.ContractLink, error) {
	q := `SELECT f.id, t.id, l.kind, l.restates, l.confidence, l.evidence, l.evidence_start, l.evidence_end, l.source
		FROM contract_links l JOIN contracts f ON f.pk = l.from_pk JOIN contracts t ON t.pk = l.to_pk`
	var args []any
	if id != "" {
		q += ` WHERE f.id = ? OR t.id = ?`
		args = []any{id, id}
	}
	q += ` ORDER BY f.id, t.id, l.kind`
	out := []graph.ContractLink{}
	err := s.readTx(ctx, func(tx *sql.Tx) error {
		return eachRow(ctx, tx, q, args, func(r *sql.Rows) error {
			var l graph.ContractLink
			if err := r.Scan(&l.From, &l.To, &l.Kind, &l.Restates, &l.Confidence, &l.Quote, &l.Start, &l.End, &l.Source); err != nil {
				return err
			}
			out = append(out, l)
			return nil
		})
	})
	if err != nil {
		return nil, fmt.Errorf("contract links: %w", err)
	}
	return out, nil
}
