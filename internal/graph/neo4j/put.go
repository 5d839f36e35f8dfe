package neo4j

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/neo4j/neo4j-go-driver/v5/neo4j"

	"github.com/contractgraph/contractgraph/internal/contract"
	"github.com/contractgraph/contractgraph/internal/graph"
)

// Batches: how many contracts, and how many bytes of contract text, share
// one write transaction. A batch commits as a whole, so each of its
// contracts is written entirely or not at all.
const (
	putBatch      = 500
	putBatchBytes = 16 << 20
)

// partyMatchText is party p's match_text, from its match_keys: each key
// between '|' characters, which no key holds (contract.MatchKey keeps only
// letters, digits and single spaces), so that match_text CONTAINS a match
// key exactly when one of the keys does, and the party_match_text text
// index answers the party name filters.
const partyMatchText = "reduce(s = '|', k IN coalesce(p.match_keys, []) | s + k + '|')"

// Write statements. Each takes its rows as $rows and runs once per batch.
const (
	lookupHashesCypher = `UNWIND $ids AS id MATCH (c:Contract {id: id}) RETURN c.id AS id, c.content_hash AS hash`

	// deleteContractsCypher removes old versions with their clauses and
	// chunks, returning the parties and locations they referenced so that
	// those left unused can be removed afterwards.
	deleteContractsCypher = `UNWIND $ids AS id
MATCH (c:Contract {id: id})
WITH c,
 COLLECT { MATCH (p:Party)-[:PARTY_TO]->(c) RETURN DISTINCT p.id } AS pids,
 COLLECT { MATCH (:Party)-[r:PARTY_TO]->(c) WHERE r.location_id IS NOT NULL RETURN DISTINCT r.location_id } +
 COLLECT { MATCH (c)-[:HAS_GOVERNING_LAW]->(l:Location) RETURN l.id } AS lids
OPTIONAL MATCH (c)-[:HAS_CLAUSE|HAS_CHUNK]->(x)
WITH c, pids, lids, collect(x) AS xs
FOREACH (x IN xs | DETACH DELETE x)
DETACH DELETE c
RETURN pids, lids`

	mergeLocationsCypher = `UNWIND $rows AS row
MERGE (l:Location {id: row.id}) ON CREATE SET l += row.props`

	// mergePartiesCypher resolves each name to the party with its PartyKey,
	// creating it with this spelling as the canonical name, and records any
	// other spelling as an alias. Rows are in contract then party order, so
	// the first spelling seen names the party, as in the embedded store.
	mergePartiesCypher = `UNWIND $rows AS row
MERGE (p:Party {normalized_name: row.key})
 ON CREATE SET p.id = row.id, p.name = row.name, p.aliases = [], p.match_keys = [row.match_key],
  p.match_text = '|' + row.match_key + '|'
WITH p, row WHERE p.name <> row.name AND NOT row.name IN p.aliases
SET p.aliases = p.aliases + row.name, p.match_keys = p.match_keys + row.match_key
SET p.match_text = ` + partyMatchText

	// partyNamesCypher reads the spellings of the parties a batch touched,
	// and renamePartiesCypher applies the preferred one as the name.
	partyNamesCypher = `UNWIND $keys AS key
MATCH (p:Party {normalized_name: key})
RETURN key, p.name AS name, p.aliases AS aliases`

	renamePartiesCypher = `UNWIND $rows AS row
MATCH (p:Party {normalized_name: row.key})
SET p.name = row.name, p.aliases = row.aliases`

	// createContractsCypher creates each contract with its clauses, chunks,
	// party roles and governing law, one row per contract: the nodes hang
	// from the contract just created, so no statement looks a contract up
	// again by id (at 10,000 synthetic contracts the separate statements
	// made ~10 index seeks per contract).
	createContractsCypher = `UNWIND $rows AS row
CREATE (c:Contract) SET c = row.props
FOREACH (props IN row.clauses | CREATE (c)-[:HAS_CLAUSE]->(x:Clause) SET x = props)
FOREACH (props IN row.chunks | CREATE (c)-[:HAS_CHUNK]->(x:Chunk) SET x = props)
WITH c, row
CALL (c, row) {
 UNWIND row.roles AS role
 MATCH (p:Party {normalized_name: role.key})
 CREATE (p)-[r:PARTY_TO]->(c) SET r = role.props
}
CALL (c, row) {
 UNWIND row.governing_law AS id
 MATCH (l:Location {id: id})
 CREATE (c)-[:HAS_GOVERNING_LAW]->(l)
}`

	hasLocationCypher = `UNWIND $rows AS row
MATCH (p:Party {normalized_name: row.key}) MATCH (l:Location {id: row.location_id})
MERGE (p)-[:HAS_LOCATION]->(l)`

	// staleLocationsCypher drops the HAS_LOCATION relationships that no
	// remaining contract supports any more.
	staleLocationsCypher = `UNWIND $ids AS id
MATCH (p:Party {id: id})-[h:HAS_LOCATION]->(l:Location)
WHERE NOT EXISTS { MATCH (p)-[r:PARTY_TO]->(:Contract) WHERE r.location_id = l.id }
DELETE h`

	orphanPartiesCypher = `UNWIND $ids AS id
MATCH (p:Party {id: id}) WHERE NOT EXISTS { (p)-[:PARTY_TO]->(:Contract) }
DETACH DELETE p`

	// partyCountsCypher and oldPartyCountsCypher keep Party.contract_count,
	// the number of distinct contracts a party is party to, current for
	// every party a batch touched, so that party_search need not count.
	// partyCountsCypher adds the batch's contracts of each party (row.n)
	// rather than counting a large party's contracts again in every batch;
	// the parties of the versions the batch replaced are then counted
	// afresh (oldPartyCountsCypher), which corrects the contracts that
	// were theirs before and are again.
	partyCountsCypher = `UNWIND $rows AS row
MATCH (p:Party {normalized_name: row.key})
SET p.contract_count = coalesce(p.contract_count, 0) + row.n`

	oldPartyCountsCypher = `UNWIND $ids AS id
MATCH (p:Party {id: id})
SET p.contract_count = COUNT { MATCH (p)-[:PARTY_TO]->(pc:Contract) RETURN DISTINCT pc }`

	orphanLocationsCypher = `UNWIND $ids AS id
MATCH (l:Location {id: id})
WHERE NOT EXISTS { (:Party)-[:HAS_LOCATION]->(l) } AND NOT EXISTS { (:Contract)-[:HAS_GOVERNING_LAW]->(l) }
DELETE l`
)

// PutContracts writes each contract atomically, replacing any stored
// contract with the same id; see graph.Store. Contracts are written in
// batches, each one managed write transaction of UNWIND statements that the
// driver retries on transient errors. Should a batch fail otherwise, its
// contracts are retried one by one so that only the faulty one fails.
// Invalid contracts fail with a *graph.FieldError and leave nothing behind. On a
// cancelled context the outcomes returned cover the committed batches only.
func (s *Store) PutContracts(ctx context.Context, cs []*contract.Contract) ([]graph.PutOutcome, error) {
	var batch []*graph.Prepared
	var batchIdx []int
	ids := map[string]bool{}
	size := 0
	outcomes := make([]graph.PutOutcome, len(cs))
	flush := func() error {
		if len(batch) == 0 {
			return nil
		}
		statuses, merges, err := s.writeBatch(ctx, batch)
		if err != nil && ctx.Err() == nil {
			// Find the faulty contract: write each alone.
			statuses = make([]graph.PutStatus, len(batch))
			merges = make([]*contract.MergeReport, len(batch))
			for i, p := range batch {
				st, mr, err := s.writeBatch(ctx, []*graph.Prepared{p})
				if ctx.Err() != nil {
					return ctx.Err()
				}
				if err != nil {
					outcomes[batchIdx[i]] = graph.PutOutcome{ID: p.Contract.ID, Status: graph.PutFailed,
						Err: fmt.Errorf("contract %q: %w", p.Contract.ID, err)}
					statuses[i] = graph.PutFailed
					continue
				}
				statuses[i], merges[i] = st[0], mr[0]
			}
			err = nil
		}
		if err != nil {
			return err
		}
		for i, p := range batch {
			if statuses[i] != graph.PutFailed {
				outcomes[batchIdx[i]] = graph.PutOutcome{ID: p.Contract.ID, Status: statuses[i], Merge: merges[i]}
			}
		}
		batch, batchIdx, size = batch[:0], batchIdx[:0], 0
		clear(ids)
		return nil
	}
	done := 0 // outcomes[:done] are final
	for i, c := range cs {
		p, err := graph.Prepare(c)
		if err != nil {
			id := ""
			if c != nil {
				id = c.ID
			}
			outcomes[i] = graph.PutOutcome{ID: id, Status: graph.PutFailed, Err: err}
			continue
		}
		// A repeated id starts a new batch, so that the later version
		// replaces the earlier one exactly as two separate puts would.
		if ids[p.Contract.ID] || len(batch) == putBatch || (size > 0 && size+len(p.Contract.Text) > putBatchBytes) {
			if err := flush(); err != nil {
				return outcomes[:done], fmt.Errorf("put contracts: %w", err)
			}
			done = i
		}
		batch = append(batch, p)
		batchIdx = append(batchIdx, i)
		ids[p.Contract.ID] = true
		size += len(p.Contract.Text)
	}
	if err := flush(); err != nil {
		return outcomes[:done], fmt.Errorf("put contracts: %w", err)
	}
	return outcomes, nil
}

// writeBatch writes the batch in one transaction and returns each
// contract's status and, for those merged with a stored version, the
// merge's report.
func (s *Store) writeBatch(ctx context.Context, batch []*graph.Prepared) ([]graph.PutStatus, []*contract.MergeReport, error) {
	var statuses []graph.PutStatus
	var merges []*contract.MergeReport
	dims := 0
	err := s.tx(ctx, neo4j.AccessModeWrite, func(tx neo4j.ManagedTransaction) error {
		var err error
		statuses, merges, dims, err = writeBatchTx(ctx, tx, batch)
		return err
	})
	if err != nil {
		return nil, nil, err
	}
	if dims > 0 {
		if err := s.ensureVectorIndex(ctx, dims); err != nil {
			return nil, nil, err
		}
	}
	return statuses, merges, nil
}

// writeBatchTx is one attempt at writing the batch; the driver may run it
// again on a transient failure, so it derives everything from the
// transaction's view of the database. It returns the embedding dimension
// when some chunk carries an embedding. A contract stored with another
// hash is merged with the stored version (graph.MergeStored).
func writeBatchTx(ctx context.Context, tx neo4j.ManagedTransaction, batch []*graph.Prepared) ([]graph.PutStatus, []*contract.MergeReport, int, error) {
	ids := make([]any, len(batch))
	for i, p := range batch {
		ids[i] = p.Contract.ID
	}
	recs, err := collect(ctx, tx, statement{Cypher: lookupHashesCypher, Params: map[string]any{"ids": ids}})
	if err != nil {
		return nil, nil, 0, fmt.Errorf("look up stored contracts: %w", err)
	}
	stored := map[string]string{}
	for _, r := range recs {
		id, _ := r.AsMap()["id"].(string)
		hash, _ := r.AsMap()["hash"].(string)
		stored[id] = hash
	}
	statuses := make([]graph.PutStatus, len(batch))
	merges := make([]*contract.MergeReport, len(batch))
	var write []*graph.Prepared
	var replaced []any
	for i, p := range batch {
		hash, exists := stored[p.Contract.ID]
		switch {
		case exists && hash == p.Hash:
			statuses[i] = graph.PutUnchanged
			continue
		case exists:
			old, err := getContractTx(ctx, tx, p.Contract.ID)
			if err != nil {
				return nil, nil, 0, fmt.Errorf("read the stored version of %q: %w", p.Contract.ID, err)
			}
			q, rep, err := graph.MergeStored(old, p)
			if err != nil {
				return nil, nil, 0, fmt.Errorf("contract %q: %w", p.Contract.ID, err)
			}
			statuses[i] = graph.MergedStatus(q, rep, hash)
			if statuses[i] == graph.PutMerged {
				merges[i] = &rep
			}
			if statuses[i] == graph.PutUnchanged {
				continue
			}
			p = q
			replaced = append(replaced, p.Contract.ID)
		default:
			statuses[i] = graph.PutCreated
		}
		write = append(write, p)
	}
	write, err = resolveMergedKeys(ctx, tx, write)
	if err != nil {
		return nil, nil, 0, err
	}
	var w rows
	for _, p := range write {
		w.add(p)
	}
	if len(w.contracts) == 0 {
		return statuses, merges, 0, nil
	}
	// The aggregates lose what the replaced versions counted and gain
	// what the batch writes (aggregates.go).
	before, err := contractAggregates(ctx, tx, replaced)
	if err != nil {
		return nil, nil, 0, err
	}
	var oldParties, oldLocations []any
	if len(replaced) > 0 {
		recs, err := collect(ctx, tx, statement{Cypher: deleteContractsCypher, Params: map[string]any{"ids": replaced}})
		if err != nil {
			return nil, nil, 0, fmt.Errorf("delete old versions: %w", err)
		}
		for _, r := range recs {
			m := r.AsMap()
			oldParties = append(oldParties, asSlice(m["pids"])...)
			oldLocations = append(oldLocations, asSlice(m["lids"])...)
		}
	}
	if len(w.parties) > 0 {
		res, err := tx.Run(ctx, mergePartiesCypher, map[string]any{"rows": w.parties})
		if err == nil {
			_, err = res.Consume(ctx)
		}
		if err != nil {
			return nil, nil, 0, fmt.Errorf("write parties: %w", err)
		}
	}
	if err := preferNames(ctx, tx, w.partyKeys); err != nil {
		return nil, nil, 0, err
	}
	for _, st := range []struct {
		what   string
		cypher string
		key    string // the list parameter
		list   []any
	}{
		{"locations", mergeLocationsCypher, "rows", w.locations},
		{"contracts", createContractsCypher, "rows", w.contracts},
		{"party locations", hasLocationCypher, "rows", w.partyLocations},
		// Parties and locations only the old versions used are gone with them.
		{"stale party locations", staleLocationsCypher, "ids", oldParties},
		{"unused parties", orphanPartiesCypher, "ids", oldParties},
		{"unused locations", orphanLocationsCypher, "ids", oldLocations},
		{"party contract counts", partyCountsCypher, "rows", w.partyCounts()},
		{"old party contract counts", oldPartyCountsCypher, "ids", oldParties},
	} {
		if len(st.list) == 0 {
			continue
		}
		res, err := tx.Run(ctx, st.cypher, map[string]any{st.key: st.list})
		if err != nil {
			return nil, nil, 0, fmt.Errorf("write %s: %w", st.what, err)
		}
		if _, err := res.Consume(ctx); err != nil {
			return nil, nil, 0, fmt.Errorf("write %s: %w", st.what, err)
		}
	}
	written := make([]any, len(write))
	for i, p := range write {
		written[i] = p.Contract.ID
	}
	now, err := contractAggregates(ctx, tx, written)
	if err != nil {
		return nil, nil, 0, err
	}
	if err := applyAggregates(ctx, tx, now.minus(before)); err != nil {
		return nil, nil, 0, err
	}
	if err := bumpNames(ctx, tx); err != nil {
		return nil, nil, 0, err
	}
	return statuses, merges, w.dims, nil
}

func asSlice(v any) []any {
	s, _ := v.([]any)
	return s
}

// rows are the UNWIND parameters of one batch.
type rows struct {
	locations, parties, contracts, partyLocations   []any
	partyKeys                                       []any
	partyContracts                                  map[string]int64 // contracts of the batch per party key
	seenLocations, seenSpellings, seenKeys, seenHas map[string]bool
	dims                                            int
}

func (w *rows) location(l *contract.Location) string {
	id := graph.LocationID(l)
	if w.seenLocations == nil {
		w.seenLocations = map[string]bool{}
	}
	if !w.seenLocations[id] {
		w.seenLocations[id] = true
		props := map[string]any{}
		setString(props, "country", l.Country)
		setString(props, "state", l.State)
		setString(props, "city", l.City)
		setString(props, "address", l.Address)
		w.locations = append(w.locations, map[string]any{"id": id, "props": props})
	}
	return id
}

// add appends the rows that write p.
func (w *rows) add(p *graph.Prepared) {
	c := p.Contract
	props := map[string]any{"id": c.ID, "content_hash": p.Hash}
	setString(props, "title", c.Title)
	setString(props, "summary", c.Summary)
	setString(props, "contract_type", c.ContractType)
	setString(props, "effective_date", c.EffectiveDate)
	setString(props, "end_date", c.EndDate)
	setString(props, "duration", c.Duration)
	setString(props, "renewal_term", c.RenewalTerm)
	setString(props, "notice_period", c.NoticePeriod)
	setString(props, "currency", c.Currency)
	setString(props, "scope", c.Scope)
	setString(props, "source_path", c.SourcePath)
	setString(props, "sha256", c.SHA256)
	setString(props, "extracted_by", c.ExtractedBy)
	setString(props, "extracted_at", c.ExtractedAt)
	setString(props, "text", c.Text)
	if len(c.Provenance) > 0 {
		// Like evidence, provenance is kept as one JSON value.
		b, _ := json.Marshal(c.Provenance) // a map of strings always encodes
		props["provenance"] = string(b)
	}
	if c.DurationDays != nil {
		props["duration_days"] = int64(*c.DurationDays)
	}
	if c.TotalAmount != nil {
		props["total_amount"] = *c.TotalAmount
	}
	if c.Usage != nil {
		props["usage_input_tokens"] = int64(c.Usage.InputTokens)
		props["usage_output_tokens"] = int64(c.Usage.OutputTokens)
	}
	addTimeline(props, c)
	if len(c.Evidence) > 0 {
		// Evidence is provenance, not graph structure: kept as one JSON value.
		b, _ := json.Marshal(c.Evidence) // plain structs of strings, ints and bools always encode
		props["evidence"] = string(b)
	}
	distinct := map[string]bool{}
	for _, k := range p.Keys {
		distinct[k] = true
	}
	if w.partyContracts == nil {
		w.partyContracts = map[string]int64{}
	}
	for k := range distinct {
		w.partyContracts[k]++
	}
	props["party_count"] = int64(len(distinct))
	// party_countries, the distinct countries of the contract's parties,
	// serves the party_country filter and grouping from one property.
	var countries []any
	seenCountries := map[string]bool{}
	for _, pr := range c.Parties {
		if pr.Location != nil && pr.Location.Country != "" && !seenCountries[pr.Location.Country] {
			seenCountries[pr.Location.Country] = true
			countries = append(countries, pr.Location.Country)
		}
	}
	if len(countries) > 0 {
		props["party_countries"] = countries
	}
	addUnverified(props, p)
	// The contract's row of createContractsCypher: its properties and
	// those of the nodes and relationships hanging from it.
	row := map[string]any{"props": props}
	w.contracts = append(w.contracts, row)

	if c.GoverningLaw != nil {
		row["governing_law"] = []any{w.location(c.GoverningLaw)}
	}
	var roles []any
	for i, pr := range c.Parties {
		key := p.Keys[i]
		// One row per spelling: the statement checks the stored aliases
		// before any of its rows adds one, so a repeated spelling would be
		// added twice.
		if !w.seenKeys[key] {
			if w.seenKeys == nil {
				w.seenKeys = map[string]bool{}
			}
			w.seenKeys[key] = true
			w.partyKeys = append(w.partyKeys, key)
		}
		if spelling := key + "\x00" + pr.Name; !w.seenSpellings[spelling] {
			if w.seenSpellings == nil {
				w.seenSpellings = map[string]bool{}
			}
			w.seenSpellings[spelling] = true
			w.parties = append(w.parties, map[string]any{
				"key": key, "id": graph.PartyID(key), "name": pr.Name, "match_key": p.MatchKeys[i],
			})
		}
		rp := map[string]any{"ord": int64(i), "name": pr.Name}
		if p.UnverifiedParty(i) {
			rp["unverified"] = true
		}
		setString(rp, "role", pr.Role)
		if pr.Location != nil {
			lid := w.location(pr.Location)
			rp["location_id"] = lid
			setString(rp, "country", pr.Location.Country)
			// One row per party and location: the batch's other
			// contracts would only MERGE the same relationship again.
			if has := key + "\x00" + lid; !w.seenHas[has] {
				if w.seenHas == nil {
					w.seenHas = map[string]bool{}
				}
				w.seenHas[has] = true
				w.partyLocations = append(w.partyLocations, map[string]any{"key": key, "location_id": lid})
			}
		}
		roles = append(roles, map[string]any{"key": key, "props": rp})
	}
	if len(roles) > 0 {
		row["roles"] = roles
	}
	// clause_kinds, every clause type and group of the contract, lets the
	// clause_types filter read one property instead of expanding to every
	// clause of every contract (at 100,000 contracts, ~0.1 s instead of ~2 s).
	var kinds []any
	seenKinds := map[string]bool{}
	for _, cl := range c.Clauses {
		for _, k := range []string{cl.Type, cl.Group} {
			if k != "" && !seenKinds[k] {
				seenKinds[k] = true
				kinds = append(kinds, k)
			}
		}
	}
	if len(kinds) > 0 {
		props["clause_kinds"] = kinds
	}
	var clauses []any
	for i, cl := range c.Clauses {
		cp := map[string]any{
			"id": cl.ID, "ord": int64(i), "type": cl.Type, "start": int64(cl.Start), "end": int64(cl.End),
			"verified": cl.Verified,
		}
		setString(cp, "group", cl.Group)
		setString(cp, "summary", cl.Summary)
		setString(cp, "text", cl.Text)
		clauses = append(clauses, cp)
	}
	if len(clauses) > 0 {
		row["clauses"] = clauses
	}
	var chunks []any
	for _, ch := range c.Chunks {
		hp := map[string]any{
			"id": ch.ID, "ord": int64(ch.Ord), "text": ch.Text, "start": int64(ch.Start), "end": int64(ch.End),
			"verified": c.Text[ch.Start:ch.End] == ch.Text,
		}
		if len(ch.Embedding) > 0 {
			v := make([]any, len(ch.Embedding))
			for j, f := range ch.Embedding {
				v[j] = float64(f)
			}
			hp["embedding"] = v
			setString(hp, "embedding_model", ch.EmbeddingModel)
			if w.dims == 0 {
				w.dims = len(ch.Embedding)
			}
		}
		chunks = append(chunks, hp)
	}
	if len(chunks) > 0 {
		row["chunks"] = chunks
	}
}

// partyCounts are the rows of partyCountsCypher: each party key of the
// batch with its number of the batch's contracts.
func (w *rows) partyCounts() []any {
	out := make([]any, len(w.partyKeys))
	for i, k := range w.partyKeys {
		key := k.(string)
		out[i] = map[string]any{"key": key, "n": w.partyContracts[key]}
	}
	return out
}

// setString sets m[k] = v unless v is empty: absent values stay absent, so
// that range filters and "nulls last" orderings treat them alike.
func setString(m map[string]any, k, v string) {
	if v != "" {
		m[k] = v
	}
}

// preferNames names each party touched by the batch (keys are PartyKeys)
// by contract.PreferredName of its spellings, as the embedded store does, so
// that a party's name does not depend on the order contracts were imported
// in; the displaced name becomes an alias.
func preferNames(ctx context.Context, tx neo4j.ManagedTransaction, keys []any) error {
	if len(keys) == 0 {
		return nil
	}
	recs, err := collect(ctx, tx, statement{Cypher: partyNamesCypher, Params: map[string]any{"keys": keys}})
	if err != nil {
		return fmt.Errorf("read party names: %w", err)
	}
	var renames []any
	for _, r := range recs {
		m := r.AsMap()
		name := getString(m, "name")
		spellings := append([]string{name}, getStrings(m, "aliases")...)
		best := contract.PreferredName(ownSpellings(getString(m, "key"), spellings))
		if best == name || best == "" {
			continue
		}
		aliases := []any{}
		for _, sp := range spellings {
			if sp != best {
				aliases = append(aliases, sp)
			}
		}
		renames = append(renames, map[string]any{"key": getString(m, "key"), "name": best, "aliases": aliases})
	}
	if len(renames) == 0 {
		return nil
	}
	res, err := tx.Run(ctx, renamePartiesCypher, map[string]any{"rows": renames})
	if err == nil {
		_, err = res.Consume(ctx)
	}
	if err != nil {
		return fmt.Errorf("rename parties: %w", err)
	}
	return nil
}
