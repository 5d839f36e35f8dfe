package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"

	"github.com/contractgraph/contractgraph/internal/contract"
	"github.com/contractgraph/contractgraph/internal/graph"
)

var _ graph.PartyMerger = (*Store)(nil)

// Parties lists every party for entity resolution.
func (s *Store) Parties(ctx context.Context) ([]graph.PartyInfo, error) {
	var out []graph.PartyInfo
	byID := map[string]int{}
	err := eachRow(ctx, s.rdb, `SELECT id, name, normalized_name FROM parties ORDER BY id`, nil, func(r *sql.Rows) error {
		var p graph.PartyInfo
		if err := r.Scan(&p.ID, &p.Name, &p.NormalizedName); err != nil {
			return err
		}
		p.ContractIDs = []string{}
		byID[p.ID] = len(out)
		out = append(out, p)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("list parties: %w", err)
	}
	err = eachRow(ctx, s.rdb, `SELECT p.id, a.alias FROM party_aliases a JOIN parties p ON p.pk = a.party_pk ORDER BY p.id, a.alias`, nil, func(r *sql.Rows) error {
		var id, alias string
		if err := r.Scan(&id, &alias); err != nil {
			return err
		}
		if i, ok := byID[id]; ok {
			out[i].Aliases = append(out[i].Aliases, alias)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("list party aliases: %w", err)
	}
	err = eachRow(ctx, s.rdb, `SELECT p.id, c.id, coalesce(cp.role, ''), coalesce(l.country, ''), coalesce(l.state, ''), coalesce(l.city, ''), coalesce(l.address, '')
		FROM contract_parties cp JOIN parties p ON p.pk = cp.party_pk JOIN contracts c ON c.pk = cp.contract_pk
		LEFT JOIN locations l ON l.pk = cp.location_pk ORDER BY p.id, c.id, cp.ord`, nil, func(r *sql.Rows) error {
		var id, cid, role string
		var l contract.Location
		if err := r.Scan(&id, &cid, &role, &l.Country, &l.State, &l.City, &l.Address); err != nil {
			return err
		}
		i, ok := byID[id]
		if !ok {
			return nil
		}
		p := &out[i]
		if n := len(p.ContractIDs); n == 0 || p.ContractIDs[n-1] != cid {
			p.ContractIDs = append(p.ContractIDs, cid)
		}
		if role != "" && !slices.Contains(p.Roles, role) {
			p.Roles = append(p.Roles, role)
		}
		if !l.IsZero() && !slices.Contains(p.Locations, l) {
			p.Locations = append(p.Locations, l)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("list party contracts: %w", err)
	}
	return out, nil
}

// MergeParties merges others into canonicalID in one transaction.
func (s *Store) MergeParties(ctx context.Context, canonicalID string, others []string) error {
	err := s.withWriteTx(ctx, func(tx *sql.Tx) error {
		canon, _, err := partyByID(ctx, tx, canonicalID)
		if err != nil {
			return err
		}
		for _, id := range others {
			if id == canonicalID {
				continue
			}
			pk, name, err := partyByID(ctx, tx, id)
			if err != nil {
				return err
			}
			if _, err := tx.ExecContext(ctx, `INSERT INTO party_aliases(party_pk, alias, alias_key, match_key) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING`,
				canon, name, contract.PartyKey(name), contract.MatchKey(name)); err != nil {
				return fmt.Errorf("alias %q: %w", name, err)
			}
			if _, err := tx.ExecContext(ctx, `INSERT INTO party_aliases(party_pk, alias, alias_key, match_key)
				SELECT ?, alias, alias_key, match_key FROM party_aliases WHERE party_pk = ? ON CONFLICT DO NOTHING`, canon, pk); err != nil {
				return fmt.Errorf("move aliases of %s: %w", id, err)
			}
			if _, err := tx.ExecContext(ctx, `UPDATE contract_parties SET party_pk = ? WHERE party_pk = ?`, canon, pk); err != nil {
				return fmt.Errorf("move contracts of %s: %w", id, err)
			}
			if _, err := tx.ExecContext(ctx, `DELETE FROM parties WHERE pk = ?`, pk); err != nil {
				return fmt.Errorf("delete %s: %w", id, err)
			}
		}
		// The canonical party's own spelling is its name, not an alias.
		if _, err := tx.ExecContext(ctx, `DELETE FROM party_aliases WHERE party_pk = ? AND alias = (SELECT name FROM parties WHERE pk = ?)`, canon, canon); err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, `UPDATE contracts SET party_count = (SELECT count(DISTINCT party_pk) FROM contract_parties WHERE contract_pk = contracts.pk)
			WHERE pk IN (SELECT contract_pk FROM contract_parties WHERE party_pk = ?)`, canon)
		return err
	})
	if err != nil {
		return fmt.Errorf("merge parties into %s: %w", canonicalID, err)
	}
	return nil
}

func partyByID(ctx context.Context, tx *sql.Tx, id string) (int64, string, error) {
	var pk int64
	var name string
	err := tx.QueryRowContext(ctx, `SELECT pk, name FROM parties WHERE id = ?`, id).Scan(&pk, &name)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, "", fmt.Errorf("party %q: %w", id, graph.ErrNotFound)
	}
	return pk, name, err
}
