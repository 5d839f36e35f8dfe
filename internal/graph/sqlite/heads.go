package sqlite

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/contractgraph/contractgraph/internal/graph"
)

var _ graph.ContractHeadLister = (*Store)(nil)

// headsPage is how many contracts ContractHeads reads per transaction.
const headsPage = 2048

// ContractHeads calls fn with the head of every stored contract in id
// order; see graph.ContractHeadLister. Each page of contracts is read in
// one snapshot (scanTx) with two queries (the contracts, then their parties), with
// only the first textBytes bytes of each text, instead of the dozen
// queries per contract that loading it whole takes; no transaction is open
// while fn runs.
func (s *Store) ContractHeads(ctx context.Context, textBytes int, fn func(graph.ContractHead) error) error {
	if textBytes <= 0 {
		return fmt.Errorf("list contract heads: text bytes %d: want > 0", textBytes)
	}
	after := "" // ids are never empty
	for {
		var page []graph.ContractHead
		err := s.scanTx(ctx, func(tx *sql.Tx) error {
			var err error
			page, err = headPage(ctx, tx, after, textBytes)
			return err
		})
		if err != nil {
			return fmt.Errorf("list contract heads: %w", err)
		}
		for _, h := range page {
			if err := fn(h); err != nil {
				return err
			}
		}
		if len(page) < headsPage {
			return nil
		}
		after = page[len(page)-1].ID
	}
}

// headPage reads the heads of the up to headsPage contracts after the id
// after.
func headPage(ctx context.Context, tx *sql.Tx, after string, textBytes int) ([]graph.ContractHead, error) {
	var page []graph.ContractHead
	at := map[string]int{}
	// substr of a blob counts bytes, so that the text is cut where a
	// string slice in Go would cut it.
	err := eachRow(ctx, tx, `SELECT c.id, d.title, c.contract_type, c.effective_date, substr(CAST(t.text AS BLOB), 1, ?)
		FROM contracts c JOIN contract_details d ON d.contract_pk = c.pk LEFT JOIN contract_texts t ON t.contract_pk = c.pk
		WHERE c.id > ? ORDER BY c.id LIMIT ?`, []any{textBytes, after, headsPage}, func(r *sql.Rows) error {
		var h graph.ContractHead
		var title, typ, eff sql.NullString
		var text []byte
		if err := r.Scan(&h.ID, &title, &typ, &eff, &text); err != nil {
			return err
		}
		h.Title, h.ContractType, h.EffectiveDate, h.Text = title.String, typ.String, eff.String, string(text)
		at[h.ID] = len(page)
		page = append(page, h)
		return nil
	})
	if err != nil || len(page) == 0 {
		return page, err
	}
	err = eachRow(ctx, tx, `SELECT c.id, p.id, cp.name
		FROM contracts c JOIN contract_parties cp ON cp.contract_pk = c.pk JOIN parties p ON p.pk = cp.party_pk
		WHERE c.id > ? AND c.id <= ? ORDER BY c.id, cp.ord`, []any{after, page[len(page)-1].ID}, func(r *sql.Rows) error {
		var cid string
		var p graph.HeadParty
		if err := r.Scan(&cid, &p.ID, &p.Name); err != nil {
			return err
		}
		if i, ok := at[cid]; ok {
			page[i].Parties = append(page[i].Parties, p)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("parties: %w", err)
	}
	return page, nil
}
