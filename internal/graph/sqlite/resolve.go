package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/contractgraph/contractgraph/internal/contract"
	"github.com/contractgraph/contractgraph/internal/graph"
)

var (
	_ graph.PartyMerger      = (*Store)(nil)
	_ graph.PartyGetter      = (*Store)(nil)
	_ graph.ResolutionMarker = (*Store)(nil)
)

// ResolutionMarks returns the recorded mark of every party that has one;
// see graph.ResolutionMarker.
func (s *Store) ResolutionMarks(ctx context.Context) (map[string]string, error) {
	out := map[string]string{}
	err := s.readTx(ctx, func(tx *sql.Tx) error {
		return eachRow(ctx, tx, `SELECT p.id, m.mark FROM party_resolution m JOIN parties p ON p.pk = m.party_pk`, nil, func(r *sql.Rows) error {
			var id, mark string
			if err := r.Scan(&id, &mark); err != nil {
				return err
			}
			out[id] = mark
			return nil
		})
	})
	if err != nil {
		return nil, fmt.Errorf("read resolution marks: %w", err)
	}
	return out, nil
}

// SetResolutionMarks records marks in one transaction; see
// graph.ResolutionMarker. The marks go in as one JSON array per
// statement, ids sorted, rather than one statement per party: the
// statements' overhead was most of the time of recording 23k marks.
func (s *Store) SetResolutionMarks(ctx context.Context, marks map[string]string) error {
	if len(marks) == 0 {
		return nil
	}
	ids := slices.Sorted(maps.Keys(marks))
	err := s.withWriteTx(ctx, func(tx *sql.Tx) error {
		for len(ids) > 0 {
			n := min(len(ids), marksPerStatement)
			pairs := make([][2]string, n)
			for i, id := range ids[:n] {
				pairs[i] = [2]string{id, marks[id]}
			}
			arg, err := json.Marshal(pairs)
			if err != nil {
				return err
			}
			// Ids that name no party are skipped (graph.ResolutionMarker).
			if _, err := tx.ExecContext(ctx, `INSERT INTO party_resolution(party_pk, mark)
				SELECT p.pk, j.value ->> 1 FROM json_each(?) j JOIN parties p ON p.id = j.value ->> 0 WHERE true
				ON CONFLICT(party_pk) DO UPDATE SET mark = excluded.mark`, string(arg)); err != nil {
				return err
			}
			ids = ids[n:]
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("record resolution marks: %w", err)
	}
	return nil
}

// marksPerStatement is how many marks one statement of
// SetResolutionMarks records.
const marksPerStatement = 4096

// Parties lists every party for entity resolution, read in one snapshot
// by a scan (scanTx); see allParties.
func (s *Store) Parties(ctx context.Context) ([]graph.PartyInfo, error) {
	var out []graph.PartyInfo
	err := s.scanTx(ctx, func(tx *sql.Tx) error {
		var err error
		out, err = allParties(ctx, tx)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("list parties: %w", err)
	}
	return out, nil
}

// allParties is partyInfos of every party, read without a sort in SQLite
// and without a join per role: parties and aliases in key order, the
// locations into a map, and the roles by contract id (the contracts' id
// index, then each contract's roles in order), which is the order AddRole
// wants. Joining each role to its party, contract and location and
// sorting them by party id, as partyInfos does, took 9 times as long.
func allParties(ctx context.Context, tx *sql.Tx) ([]graph.PartyInfo, error) {
	var out []graph.PartyInfo
	var pks []int64
	err := eachRow(ctx, tx, `SELECT pk, id, name, normalized_name FROM parties`, nil, func(r *sql.Rows) error {
		var pk int64
		var p graph.PartyInfo
		if err := r.Scan(&pk, &p.ID, &p.Name, &p.NormalizedName); err != nil {
			return err
		}
		p.ContractIDs = []string{}
		out = append(out, p)
		pks = append(pks, pk)
		return nil
	})
	if err != nil {
		return nil, err
	}
	order := make([]int, len(out))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int { return strings.Compare(out[a].ID, out[b].ID) })
	sorted := make([]graph.PartyInfo, len(out))
	at := make(map[int64]int, len(out)) // party pk -> index in sorted
	for i, j := range order {
		sorted[i] = out[j]
		at[pks[j]] = i
	}
	out, pks, order = sorted, nil, nil
	err = eachRow(ctx, tx, `SELECT party_pk, alias FROM party_aliases ORDER BY party_pk, alias`, nil, func(r *sql.Rows) error {
		var pk int64
		var alias string
		if err := r.Scan(&pk, &alias); err != nil {
			return err
		}
		if i, ok := at[pk]; ok {
			out[i].Aliases = append(out[i].Aliases, alias)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("aliases: %w", err)
	}
	locations := map[int64]contract.Location{}
	err = eachRow(ctx, tx, `SELECT pk, country, state, city, address FROM locations`, nil, func(r *sql.Rows) error {
		var pk int64
		var l contract.Location
		if err := r.Scan(&pk, &l.Country, &l.State, &l.City, &l.Address); err != nil {
			return err
		}
		locations[pk] = l
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("locations: %w", err)
	}
	var cid string
	err = eachRow(ctx, tx, `SELECT c.id, cp.party_pk, coalesce(cp.role, ''), coalesce(cp.location_pk, 0)
		FROM contracts c JOIN contract_parties cp ON cp.contract_pk = c.pk ORDER BY c.id, cp.ord`, nil, func(r *sql.Rows) error {
		var raw sql.RawBytes
		var role string
		var pk, loc int64
		if err := r.Scan(&raw, &pk, &role, &loc); err != nil {
			return err
		}
		if string(raw) != cid {
			cid = string(raw) // one string per contract, not per role
		}
		if i, ok := at[pk]; ok {
			out[i].AddRole(cid, role, locations[loc])
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("contracts: %w", err)
	}
	return out, nil
}

// GetParty returns the party with id as Parties lists it, or an error
// wrapping graph.ErrNotFound.
func (s *Store) GetParty(ctx context.Context, id string) (*graph.PartyInfo, error) {
	var ps []graph.PartyInfo
	err := s.readTx(ctx, func(tx *sql.Tx) error {
		var err error
		ps, err = partyInfos(ctx, tx, " WHERE p.id = ?", []any{id})
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("get party %q: %w", id, err)
	}
	if len(ps) == 0 {
		return nil, fmt.Errorf("get party %q: %w", id, graph.ErrNotFound)
	}
	return &ps[0], nil
}

// partyInfos reads the parties that where (a condition on parties p, or ""
// for all) selects, sorted by id, with their aliases, contracts, roles and
// locations.
func partyInfos(ctx context.Context, tx *sql.Tx, where string, args []any) ([]graph.PartyInfo, error) {
	var out []graph.PartyInfo
	byID := map[string]int{}
	err := eachRow(ctx, tx, `SELECT p.id, p.name, p.normalized_name FROM parties p`+where+` ORDER BY p.id`, args, func(r *sql.Rows) error {
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
		return nil, err
	}
	err = eachRow(ctx, tx, `SELECT p.id, a.alias FROM party_aliases a JOIN parties p ON p.pk = a.party_pk`+where+` ORDER BY p.id, a.alias`, args, func(r *sql.Rows) error {
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
		return nil, fmt.Errorf("aliases: %w", err)
	}
	err = eachRow(ctx, tx, `SELECT p.id, c.id, coalesce(cp.role, ''), coalesce(l.country, ''), coalesce(l.state, ''), coalesce(l.city, ''), coalesce(l.address, '')
		FROM contract_parties cp JOIN parties p ON p.pk = cp.party_pk JOIN contracts c ON c.pk = cp.contract_pk
		LEFT JOIN locations l ON l.pk = cp.location_pk`+where+` ORDER BY p.id, c.id, cp.ord`, args, func(r *sql.Rows) error {
		var id, cid, role string
		var l contract.Location
		if err := r.Scan(&id, &cid, &role, &l.Country, &l.State, &l.City, &l.Address); err != nil {
			return err
		}
		if i, ok := byID[id]; ok {
			out[i].AddRole(cid, role, l)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("contracts: %w", err)
	}
	return out, nil
}

// MergeParties merges others into canonicalID in one transaction; see
// graph.PartyMerger.
func (s *Store) MergeParties(ctx context.Context, canonicalID string, others []string) error {
	err := s.withWriteTx(ctx, func(tx *sql.Tx) error {
		canon, _, err := partyByID(ctx, tx, canonicalID)
		if err != nil {
			return err
		}
		merged := map[string]bool{canonicalID: true}
		for _, id := range others {
			if merged[id] {
				continue
			}
			merged[id] = true
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

var _ graph.PartyNameLister = (*Store)(nil)

// PartyNames lists every party's match keys for typo-tolerant party
// matching, read in one snapshot; see graph.PartyNameLister.
func (s *Store) PartyNames(ctx context.Context) ([]graph.PartyName, error) {
	var out []graph.PartyName
	err := s.readTx(ctx, func(tx *sql.Tx) error {
		at := map[int64]int{}
		err := eachRow(ctx, tx, `SELECT pk, id, name, match_key FROM parties ORDER BY id`, nil, func(r *sql.Rows) error {
			var pk int64
			var n graph.PartyName
			var key string
			if err := r.Scan(&pk, &n.ID, &n.Name, &key); err != nil {
				return err
			}
			n.Keys = []string{key}
			at[pk] = len(out)
			out = append(out, n)
			return nil
		})
		if err != nil {
			return err
		}
		return eachRow(ctx, tx, `SELECT party_pk, match_key FROM party_aliases ORDER BY party_pk, match_key`, nil, func(r *sql.Rows) error {
			var pk int64
			var key string
			if err := r.Scan(&pk, &key); err != nil {
				return err
			}
			if i, ok := at[pk]; ok {
				out[i].Keys = append(out[i].Keys, key)
			}
			return nil
		})
	})
	if err != nil {
		return nil, fmt.Errorf("list party names: %w", err)
	}
	for i := range out {
		slices.Sort(out[i].Keys)
		out[i].Keys = slices.Compact(out[i].Keys)
	}
	return out, nil
}

// PartyNamesVersion returns the counter that triggers bump on every change
// of a party's id, name or match keys (migration 0075); see
// graph.PartyNameLister.
func (s *Store) PartyNamesVersion(ctx context.Context) (string, error) {
	var n int64
	if err := s.rdb.QueryRowContext(ctx, `SELECT n FROM party_names_version`).Scan(&n); err != nil {
		return "", fmt.Errorf("read party names version: %w", err)
	}
	return strconv.FormatInt(n, 10), nil
}
