package neo4j

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/neo4j/neo4j-go-driver/v5/neo4j"

	"github.com/contractgraph/contractgraph/internal/contract"
	"github.com/contractgraph/contractgraph/internal/graph"
)

// Entity resolution. A merge moves the other parties' PARTY_TO and
// HAS_LOCATION relationships to the canonical party, adds their spellings to
// its aliases and match_keys, records their PartyKeys in its alias_keys (so
// that a later put of such a spelling resolves to it: resolveMergedKeys) and
// recounts what counts parties: the canonical party's contract_count and
// its contracts' party_count. Nothing else a query reads depends on which
// party a PARTY_TO starts at: party_countries and the names on contract
// summaries come from the relationships, which keep their properties.

var (
	_ graph.PartyMerger      = (*Store)(nil)
	_ graph.PartyGetter      = (*Store)(nil)
	_ graph.ResolutionMarker = (*Store)(nil)
)

const (
	// partyInfoProjection returns one party p as graph.PartyInfo wants it;
	// its roles come in no order (decodePartyInfo sorts them).
	partyInfoProjection = ` RETURN p.id AS id, p.name AS name, p.normalized_name AS normalized_name,
 coalesce(p.aliases, []) AS aliases,
 COLLECT { MATCH (p)-[r:PARTY_TO]->(c:Contract) OPTIONAL MATCH (l:Location {id: r.location_id})
   RETURN {contract_id: c.id, ord: r.ord, role: r.role, location: l {.country, .state, .city, .address}} } AS roles`

	// resolveLookupCypher reads the parties of a merge, canonical first.
	resolveLookupCypher = `UNWIND $ids AS id
MATCH (p:Party {id: id})
RETURN p.id AS id, p.name AS name, p.normalized_name AS key, coalesce(p.aliases, []) AS aliases`

	// partiesContractsCypher lists the contracts of the parties $ids.
	partiesContractsCypher = `UNWIND $ids AS pid
MATCH (:Party {id: pid})-[:PARTY_TO]->(c:Contract)
RETURN DISTINCT c.id AS id`

	resolveRolesCypher = `MATCH (p:Party {id: $canonical})
UNWIND $others AS oid
MATCH (:Party {id: oid})-[r:PARTY_TO]->(c:Contract)
CREATE (p)-[m:PARTY_TO]->(c) SET m = properties(r)
DELETE r`

	resolveLocationsCypher = `MATCH (p:Party {id: $canonical})
UNWIND $others AS oid
MATCH (:Party {id: oid})-[h:HAS_LOCATION]->(l:Location)
MERGE (p)-[:HAS_LOCATION]->(l)
DELETE h`

	resolveDeleteCypher = `UNWIND $others AS oid
MATCH (o:Party {id: oid})
DETACH DELETE o`

	// resolveCanonicalCypher sets the canonical party's spellings and
	// recounts its contracts and the parties of each of them.
	resolveCanonicalCypher = `MATCH (p:Party {id: $canonical})
SET p.aliases = $aliases, p.match_keys = $match_keys, p.alias_keys = $alias_keys,
 p.contract_count = COUNT { MATCH (p)-[:PARTY_TO]->(pc:Contract) RETURN DISTINCT pc }
SET p.match_text = ` + partyMatchText + `
WITH p
MATCH (p)-[:PARTY_TO]->(c:Contract)
WITH DISTINCT c
SET c.party_count = COUNT { MATCH (q:Party)-[:PARTY_TO]->(c) RETURN DISTINCT q }`

	// resolutionMarksCypher reads entity resolution's marks, kept on the
	// parties themselves so that they go with them.
	resolutionMarksCypher = `MATCH (p:Party) WHERE p.resolve_mark IS NOT NULL
RETURN p.id AS id, p.resolve_mark AS mark`

	setResolutionMarksCypher = `UNWIND $rows AS row
MATCH (p:Party {id: row.id})
SET p.resolve_mark = row.mark`

	// mergedKeysCypher finds, for the keys no party holds as its own, the
	// party holding the key among its alias_keys (only merged parties have
	// them, and the alias_keys index holds just those).
	mergedKeysCypher = `UNWIND $keys AS key
WITH key WHERE NOT EXISTS { MATCH (:Party {normalized_name: key}) }
WITH collect(key) AS missing WHERE size(missing) > 0
MATCH (p:Party) WHERE p.alias_keys IS NOT NULL
UNWIND [k IN p.alias_keys WHERE k IN missing] AS key
WITH key, p ORDER BY p.id
RETURN key, collect(p.normalized_name)[0] AS canonical`
)

// compilePartyInfos reads every party.
func compilePartyInfos() statement {
	return statement{Cypher: "MATCH (p:Party)" + partyInfoProjection}
}

// compilePartyInfo reads the party with id.
func compilePartyInfo(id string) statement {
	return statement{Cypher: "MATCH (p:Party {id: $id})" + partyInfoProjection, Params: map[string]any{"id": id}}
}

// Parties lists every party for entity resolution, read in one transaction.
func (s *Store) Parties(ctx context.Context) ([]graph.PartyInfo, error) {
	recs, err := s.run(ctx, neo4j.AccessModeRead, compilePartyInfos())
	if err != nil {
		return nil, fmt.Errorf("list parties: %w", err)
	}
	out := make([]graph.PartyInfo, len(recs))
	for i, r := range recs {
		out[i] = decodePartyInfo(r.AsMap())
	}
	// Sorted here, bytewise as the embedded store sorts, rather than by
	// Cypher, which compares strings by UTF-16 code units.
	slices.SortFunc(out, func(a, b graph.PartyInfo) int { return strings.Compare(a.ID, b.ID) })
	return out, nil
}

// GetParty returns the party with id as Parties lists it, or an error
// wrapping graph.ErrNotFound.
func (s *Store) GetParty(ctx context.Context, id string) (*graph.PartyInfo, error) {
	recs, err := s.run(ctx, neo4j.AccessModeRead, compilePartyInfo(id))
	if err != nil {
		return nil, fmt.Errorf("get party %q: %w", id, err)
	}
	if len(recs) == 0 {
		return nil, fmt.Errorf("get party %q: %w", id, graph.ErrNotFound)
	}
	p := decodePartyInfo(recs[0].AsMap())
	return &p, nil
}

// markBatch is how many marks one statement sets.
const markBatch = 5000

// ResolutionMarks returns the recorded mark of every party that has one;
// see graph.ResolutionMarker.
func (s *Store) ResolutionMarks(ctx context.Context) (map[string]string, error) {
	recs, err := s.run(ctx, neo4j.AccessModeRead, statement{Cypher: resolutionMarksCypher})
	if err != nil {
		return nil, fmt.Errorf("read resolution marks: %w", err)
	}
	out := make(map[string]string, len(recs))
	for _, r := range recs {
		m := r.AsMap()
		out[getString(m, "id")] = getString(m, "mark")
	}
	return out, nil
}

// SetResolutionMarks records marks in one write transaction; see
// graph.ResolutionMarker.
func (s *Store) SetResolutionMarks(ctx context.Context, marks map[string]string) error {
	if len(marks) == 0 {
		return nil
	}
	rows := make([]any, 0, len(marks))
	for id, mark := range marks {
		rows = append(rows, map[string]any{"id": id, "mark": mark})
	}
	err := s.tx(ctx, neo4j.AccessModeWrite, func(tx neo4j.ManagedTransaction) error {
		for lo := 0; lo < len(rows); lo += markBatch {
			res, err := tx.Run(ctx, setResolutionMarksCypher, map[string]any{"rows": rows[lo:min(len(rows), lo+markBatch)]})
			if err == nil {
				_, err = res.Consume(ctx)
			}
			if err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("record resolution marks: %w", err)
	}
	return nil
}

// decodePartyInfo reads one record of partyInfoProjection.
func decodePartyInfo(m map[string]any) graph.PartyInfo {
	p := graph.PartyInfo{
		ID: getString(m, "id"), Name: getString(m, "name"), NormalizedName: getString(m, "normalized_name"),
		ContractIDs: []string{},
	}
	if aliases := getStrings(m, "aliases"); len(aliases) > 0 {
		slices.Sort(aliases)
		p.Aliases = aliases
	}
	type role struct {
		contractID, role string
		ord              int64
		location         contract.Location
	}
	var roles []role
	for _, v := range asSlice(m["roles"]) {
		rm, _ := v.(map[string]any)
		r := role{contractID: getString(rm, "contract_id"), role: getString(rm, "role"), ord: getInt(rm, "ord")}
		if l := decodeLocation(rm["location"]); l != nil {
			r.location = *l
		}
		roles = append(roles, r)
	}
	slices.SortFunc(roles, func(a, b role) int {
		if c := strings.Compare(a.contractID, b.contractID); c != 0 {
			return c
		}
		return int(a.ord - b.ord)
	})
	for _, r := range roles {
		p.AddRole(r.contractID, r.role, r.location)
	}
	return p
}

// mergeParty is a party of a merge as resolveLookupCypher reads it.
type mergeParty struct {
	id, name, key string
	aliases       []string
}

// MergeParties merges others into canonicalID in one write transaction;
// see graph.PartyMerger.
func (s *Store) MergeParties(ctx context.Context, canonicalID string, others []string) error {
	ids := []any{canonicalID}
	seen := map[string]bool{canonicalID: true}
	for _, id := range others {
		if !seen[id] {
			seen[id] = true
			ids = append(ids, id)
		}
	}
	err := s.tx(ctx, neo4j.AccessModeWrite, func(tx neo4j.ManagedTransaction) error {
		recs, err := collect(ctx, tx, statement{Cypher: resolveLookupCypher, Params: map[string]any{"ids": ids}})
		if err != nil {
			return fmt.Errorf("read parties: %w", err)
		}
		found := map[string]mergeParty{}
		for _, r := range recs {
			m := r.AsMap()
			p := mergeParty{id: getString(m, "id"), name: getString(m, "name"), key: getString(m, "key"), aliases: getStrings(m, "aliases")}
			found[p.id] = p
		}
		parties := make([]mergeParty, len(ids))
		for i, id := range ids {
			p, ok := found[id.(string)]
			if !ok {
				return fmt.Errorf("party %q: %w", id, graph.ErrNotFound)
			}
			parties[i] = p
		}
		// The merged parties' contracts count for the canonical party
		// afterwards (aggregates.go).
		recs, err = collect(ctx, tx, statement{Cypher: partiesContractsCypher, Params: map[string]any{"ids": ids}})
		if err != nil {
			return fmt.Errorf("read the parties' contracts: %w", err)
		}
		contracts := make([]any, len(recs))
		for i, r := range recs {
			contracts[i] = getString(r.AsMap(), "id")
		}
		err = bracket(ctx, tx, contracts, func() error {
			for _, st := range compileMerge(parties[0], parties[1:]) {
				res, err := tx.Run(ctx, st.Cypher, st.Params)
				if err == nil {
					_, err = res.Consume(ctx)
				}
				if err != nil {
					return fmt.Errorf("%s: %w", firstLine(st.Cypher), err)
				}
			}
			return nil
		})
		if err != nil || len(parties) == 1 {
			return err
		}
		return bumpNames(ctx, tx)
	})
	if err != nil {
		return fmt.Errorf("merge parties into %s: %w", canonicalID, err)
	}
	return nil
}

// compileMerge returns the statements that merge others into canon, or none
// when others is empty. The canonical party keeps its name; every other
// spelling becomes an alias, and each alias's PartyKey other than its own an
// alias key.
func compileMerge(canon mergeParty, others []mergeParty) []statement {
	if len(others) == 0 {
		return nil
	}
	otherIDs := make([]any, len(others))
	spellings := slices.Clone(canon.aliases)
	for i, o := range others {
		otherIDs[i] = o.id
		spellings = append(append(spellings, o.name), o.aliases...)
	}
	slices.Sort(spellings)
	spellings = slices.Compact(spellings)
	aliases := []any{}
	matchKeys := []any{contract.MatchKey(canon.name)}
	var aliasKeys []any
	for _, a := range spellings {
		if a == canon.name {
			continue
		}
		aliases = append(aliases, a)
		if k := contract.MatchKey(a); !slices.Contains(matchKeys, any(k)) {
			matchKeys = append(matchKeys, k)
		}
		if k := contract.PartyKey(a); k != canon.key && !slices.Contains(aliasKeys, any(k)) {
			aliasKeys = append(aliasKeys, k)
		}
	}
	ids := map[string]any{"canonical": canon.id, "others": otherIDs}
	var alias any // a party that holds no alias key has no alias_keys property
	if len(aliasKeys) > 0 {
		alias = aliasKeys
	}
	return []statement{
		{Cypher: resolveRolesCypher, Params: ids},
		{Cypher: resolveLocationsCypher, Params: ids},
		{Cypher: resolveDeleteCypher, Params: map[string]any{"others": otherIDs}},
		{Cypher: resolveCanonicalCypher, Params: map[string]any{
			"canonical": canon.id, "aliases": aliases, "match_keys": matchKeys, "alias_keys": alias,
		}},
	}
}

// resolveMergedKeys maps each party key of ps that names no party but is an
// alias key of one (a party merged away) to that party's own key, so that a
// spelling of a merged party resolves to the party it was merged into, as in
// the embedded store. Contracts whose keys change are copied; ps is not
// modified, since the transaction may run again.
func resolveMergedKeys(ctx context.Context, tx neo4j.ManagedTransaction, ps []*graph.Prepared) ([]*graph.Prepared, error) {
	var keys []any
	seen := map[string]bool{}
	for _, p := range ps {
		for _, k := range p.Keys {
			if !seen[k] {
				seen[k] = true
				keys = append(keys, k)
			}
		}
	}
	if len(keys) == 0 {
		return ps, nil
	}
	recs, err := collect(ctx, tx, statement{Cypher: mergedKeysCypher, Params: map[string]any{"keys": keys}})
	if err != nil {
		return nil, fmt.Errorf("resolve merged party keys: %w", err)
	}
	if len(recs) == 0 {
		return ps, nil
	}
	merged := map[string]string{}
	for _, r := range recs {
		m := r.AsMap()
		merged[getString(m, "key")] = getString(m, "canonical")
	}
	out := slices.Clone(ps)
	for i, p := range ps {
		for j, k := range p.Keys {
			canon, ok := merged[k]
			if !ok {
				continue
			}
			if out[i] == p {
				cp := *p
				cp.Keys = slices.Clone(p.Keys)
				out[i] = &cp
			}
			out[i].Keys[j] = canon
		}
	}
	return out, nil
}

// ownSpellings returns the spellings whose PartyKey is key. A party's name
// is chosen among these only, never among spellings a merge brought, so
// that its normalized_name stays the key of its name (as in the embedded
// store).
func ownSpellings(key string, spellings []string) []string {
	var own []string
	for _, s := range spellings {
		if contract.PartyKey(s) == key {
			own = append(own, s)
		}
	}
	return own
}

var _ graph.PartyNameLister = (*Store)(nil)

// PartyNames lists every party's match keys for typo-tolerant party
// matching, read in one transaction; see graph.PartyNameLister.
func (s *Store) PartyNames(ctx context.Context) ([]graph.PartyName, error) {
	recs, err := s.run(ctx, neo4j.AccessModeRead, statement{Cypher: partyNameKeysCypher})
	if err != nil {
		return nil, fmt.Errorf("list party names: %w", err)
	}
	out := make([]graph.PartyName, len(recs))
	for i, r := range recs {
		m := r.AsMap()
		n := graph.PartyName{ID: getString(m, "id"), Name: getString(m, "name"), Keys: getStrings(m, "keys")}
		slices.Sort(n.Keys)
		n.Keys = slices.Compact(n.Keys)
		out[i] = n
	}
	// Sorted here, bytewise as the embedded store sorts (see Parties).
	slices.SortFunc(out, func(a, b graph.PartyName) int { return strings.Compare(a.ID, b.ID) })
	return out, nil
}

// PartyNamesVersion returns the version on the count node that every
// write adding, renaming, merging or deleting parties bumps in its own
// transaction (bumpNamesCypher); see graph.PartyNameLister. The writes
// already take that node's lock for the aggregates, so the version
// serialises nothing more, and reading it is one index lookup where
// counting the parties read every one of them.
func (s *Store) PartyNamesVersion(ctx context.Context) (string, error) {
	recs, err := s.run(ctx, neo4j.AccessModeRead, statement{Cypher: namesVersionCypher, Params: map[string]any{"id": countsID}})
	if err != nil {
		return "", fmt.Errorf("read party names version: %w", err)
	}
	if len(recs) == 0 {
		return "", nil
	}
	return getString(recs[0].AsMap(), "version"), nil
}
