package neo4j

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/neo4j/neo4j-go-driver/v5/neo4j"

	"github.com/contractgraph/contractgraph/internal/graph"
)

var (
	_ graph.ChunkBackfiller     = (*Store)(nil)
	_ graph.EmbeddingBackfiller = (*Store)(nil)
	_ graph.VectorStore         = (*Store)(nil)
)

// Backfill and vector search statements.
const (
	contractsWithoutChunksCypher = `MATCH (c:Contract)
WHERE c.text IS NOT NULL AND c.text <> '' AND NOT EXISTS { (c)-[:HAS_CHUNK]->(:Chunk) }
RETURN c.id AS id ORDER BY id`

	countChunkEmbeddingsCypher = `MATCH (x:Chunk)
RETURN count(x) AS total, count(CASE WHEN x.embedding_model = $model THEN 1 END) AS embedded`

	// missingChunkEmbeddingsCypher reads one window of contracts, in id
	// order from the cursor, and returns their chunks without a vector by
	// $model after the cursor's chunk, plus the window's last contract id.
	missingChunkEmbeddingsCypher = `MATCH (c:Contract) WHERE c.id >= $after_id
WITH c ORDER BY c.id LIMIT $window
WITH collect(c) AS cs
RETURN size(cs) AS scanned, CASE WHEN size(cs) = 0 THEN null ELSE cs[size(cs) - 1].id END AS last_id,
 COLLECT {
  UNWIND cs AS c
  MATCH (c)-[:HAS_CHUNK]->(x:Chunk)
  WHERE (c.id > $after_id OR x.ord > $after_ord) AND (x.embedding_model IS NULL OR x.embedding_model <> $model)
  WITH c, x ORDER BY c.id, x.ord LIMIT $limit
  RETURN [c.id, x.ord, x.text]
 } AS items`

	// putChunkEmbeddingsCypher writes each vector where the chunk still has
	// the text it was listed with.
	putChunkEmbeddingsCypher = `UNWIND $rows AS row
MATCH (:Contract {id: row.contract_id})-[:HAS_CHUNK]->(x:Chunk {ord: row.ord})
WHERE x.text = row.text
SET x.embedding = row.embedding, x.embedding_model = $model
RETURN count(x) AS n`

	// searchVectorIndexCypher asks the chunk vector index for candidates;
	// SearchVectors filters and orders them.
	// The index's own score may be quantised (0.8016 for a cosine of 0.8),
	// so the exact similarity is recomputed, as the scan and the embedded
	// store compute it.
	searchVectorIndexCypher = `CALL db.index.vector.queryNodes('` + chunkVectorIndex + `', $k, $vector) YIELD node
MATCH (c:Contract)-[:HAS_CHUNK]->(node)
WHERE $model = '' OR node.embedding_model = $model
RETURN c.id AS contract_id, node.text AS text, node.start AS start, node.end AS end, node.verified AS verified,
 2 * vector.similarity.cosine(node.embedding, $vector) - 1 AS score`
)

// ContractsWithoutChunks lists contracts to chunk; see graph.ChunkBackfiller.
func (s *Store) ContractsWithoutChunks(ctx context.Context) ([]string, error) {
	recs, err := s.run(ctx, neo4j.AccessModeRead, statement{Cypher: contractsWithoutChunksCypher})
	if err != nil {
		return nil, fmt.Errorf("contracts without chunks: %w", err)
	}
	ids := make([]string, 0, len(recs))
	for _, r := range recs {
		ids = append(ids, getString(r.AsMap(), "id"))
	}
	return ids, nil
}

func checkEmbeddingArgs(kind, model string) error {
	switch {
	case kind != graph.EmbedChunks && kind != graph.EmbedStatutes:
		return fmt.Errorf("unknown embedding kind %q (want %q or %q)", kind, graph.EmbedChunks, graph.EmbedStatutes)
	case strings.TrimSpace(model) == "":
		return errors.New("empty embedding model name")
	}
	return nil
}

// CountEmbeddings counts chunks (or statutes) and their vectors by model;
// see graph.EmbeddingBackfiller.
func (s *Store) CountEmbeddings(ctx context.Context, kind, model string) (graph.EmbeddingCount, error) {
	if err := checkEmbeddingArgs(kind, model); err != nil {
		return graph.EmbeddingCount{}, fmt.Errorf("count embeddings: %w", err)
	}
	if kind == graph.EmbedStatutes {
		return s.countStatuteEmbeddings(ctx, model)
	}
	recs, err := s.run(ctx, neo4j.AccessModeRead, statement{Cypher: countChunkEmbeddingsCypher, Params: map[string]any{"model": model}})
	if err != nil {
		return graph.EmbeddingCount{}, fmt.Errorf("count %s embeddings: %w", kind, err)
	}
	m := recs[0].AsMap()
	return graph.EmbeddingCount{Total: int(getInt(m, "total")), Embedded: int(getInt(m, "embedded"))}, nil
}

// chunkKey is a chunk's key in EmbeddingItem: "ord:contract id". The
// cursor of MissingEmbeddings is the key of the last chunk returned.
func chunkKey(contractID string, ord int64) string {
	return strconv.FormatInt(ord, 10) + ":" + contractID
}

func parseChunkKey(key string) (string, int64, error) {
	o, id, ok := strings.Cut(key, ":")
	ord, err := strconv.ParseInt(o, 10, 64)
	if !ok || err != nil {
		return "", 0, fmt.Errorf("key %q is not one of this store's", key)
	}
	return id, ord, nil
}

// missingWindow is how many contracts one MissingEmbeddings query reads.
const missingWindow = 500

// MissingEmbeddings returns chunks without a vector by q.Model, in contract
// id and chunk order from the cursor q.After; see graph.EmbeddingBackfiller.
// It reads contracts a window at a time, and moves on to the next window
// until it has found some chunks or read the last contract. Statutes are
// listed by missingStatuteEmbeddings.
func (s *Store) MissingEmbeddings(ctx context.Context, q graph.EmbeddingQuery) (graph.EmbeddingPage, error) {
	err := checkEmbeddingArgs(q.Kind, q.Model)
	if err == nil && (q.Limit < 1 || q.Limit > graph.MaxEmbeddingPage) {
		err = fmt.Errorf("limit %d out of range 1..%d", q.Limit, graph.MaxEmbeddingPage)
	}
	if err == nil && q.Kind == graph.EmbedStatutes {
		return s.missingStatuteEmbeddings(ctx, q)
	}
	afterID, afterOrd := "", int64(-1)
	if err == nil && q.After != "" {
		afterID, afterOrd, err = parseChunkKey(q.After)
	}
	if err != nil {
		return graph.EmbeddingPage{}, fmt.Errorf("missing embeddings: %w", err)
	}
	for {
		recs, err := s.run(ctx, neo4j.AccessModeRead, statement{Cypher: missingChunkEmbeddingsCypher, Params: map[string]any{
			"after_id": afterID, "after_ord": afterOrd, "model": q.Model, "window": int64(missingWindow), "limit": int64(q.Limit),
		}})
		if err != nil {
			return graph.EmbeddingPage{}, fmt.Errorf("missing %s embeddings: %w", q.Kind, err)
		}
		m := recs[0].AsMap()
		var page graph.EmbeddingPage
		for _, v := range asSlice(m["items"]) {
			row := asSlice(v)
			if len(row) != 3 {
				continue
			}
			id, _ := row[0].(string)
			ord, _ := row[1].(int64)
			text, _ := row[2].(string)
			page.Items = append(page.Items, graph.EmbeddingItem{Key: chunkKey(id, ord), Text: text})
		}
		lastID, scanned := getString(m, "last_id"), getInt(m, "scanned")
		switch {
		case len(page.Items) == q.Limit:
			// The page may end inside a contract: continue after its last chunk.
			page.Next = page.Items[len(page.Items)-1].Key
			return page, nil
		case len(page.Items) > 0:
			// The window is done: continue after its last contract.
			page.Next = chunkKey(lastID, math.MaxInt32)
			return page, nil
		case scanned < missingWindow:
			// Nothing left: the window reached the last contract.
			return page, nil
		}
		// A window of contracts without missing chunks: read the next one,
		// which starts at this one's last contract, past its chunks.
		afterID, afterOrd = lastID, math.MaxInt32
	}
}

// PutEmbeddings stores chunk vectors (statute vectors: putStatuteVectors)
// with their model; see graph.EmbeddingBackfiller.
func (s *Store) PutEmbeddings(ctx context.Context, kind, model string, items []graph.EmbeddingItem, vecs [][]float32) (int, error) {
	err := checkEmbeddingArgs(kind, model)
	if err == nil && len(items) != len(vecs) {
		err = fmt.Errorf("%d items but %d vectors", len(items), len(vecs))
	}
	if err == nil && kind == graph.EmbedStatutes {
		return s.putStatuteVectors(ctx, model, items, vecs)
	}
	rows := make([]any, 0, len(items))
	dims := 0
	for i := 0; err == nil && i < len(items); i++ {
		if len(vecs[i]) == 0 {
			err = fmt.Errorf("item %d (key %q): empty vector", i, items[i].Key)
			break
		}
		id, ord, perr := parseChunkKey(items[i].Key)
		if perr != nil {
			err = fmt.Errorf("item %d: %w", i, perr)
			break
		}
		v := make([]any, len(vecs[i]))
		for j, f := range vecs[i] {
			v[j] = float64(f)
		}
		if dims == 0 {
			dims = len(v)
		}
		rows = append(rows, map[string]any{"contract_id": id, "ord": ord, "text": items[i].Text, "embedding": v})
	}
	if err != nil {
		return 0, fmt.Errorf("put embeddings: %w", err)
	}
	if len(rows) == 0 {
		return 0, nil
	}
	recs, err := s.run(ctx, neo4j.AccessModeWrite, statement{Cypher: putChunkEmbeddingsCypher, Params: map[string]any{"rows": rows, "model": model}})
	if err != nil {
		return 0, fmt.Errorf("put %s embeddings: %w", kind, err)
	}
	if err := s.ensureVectorIndex(ctx, dims); err != nil {
		return 0, fmt.Errorf("put %s embeddings: %w", kind, err)
	}
	return int(getInt(recs[0].AsMap(), "n")), nil
}

// SearchVectors ranks chunks by cosine similarity to q.Vector; see
// graph.VectorStore. A search over every contract asks the chunk vector
// index for candidates first, when the index has the query's dimension;
// should too few of them be of q.Model, and always under a filter, it
// scans the chunks of the contracts q.Filter matches (compileFilter, as
// for contract_search), as the embedded store does. Scores are cosine
// similarities, as in the embedded store.
func (s *Store) SearchVectors(ctx context.Context, q graph.VectorQuery) ([]graph.ClauseHit, error) {
	n, err := q.EffectiveLimit()
	if err != nil {
		return nil, fmt.Errorf("search vectors: %w", err)
	}
	if err := graph.CheckQueryVector(q.Vector); err != nil {
		return nil, fmt.Errorf("search vectors: %w", err)
	}
	if q.Filter, err = s.resolveFilter(ctx, q.Filter); err != nil {
		return nil, fmt.Errorf("search vectors: %w", err)
	}
	vec := make([]any, len(q.Vector))
	for i, f := range q.Vector {
		vec[i] = float64(f)
	}
	if s.chunkVectors.has(len(vec)) && q.Filter.Unrestricted() {
		// The index is approximate (HNSW): ask it for many more
		// candidates than wanted, which is what keeps its recall high
		// when a query lies far from most chunks.
		k := min(max(20*n, 100), 500)
		recs, err := s.run(ctx, neo4j.AccessModeRead, statement{Cypher: searchVectorIndexCypher,
			Params: map[string]any{"k": int64(k), "vector": vec, "model": q.Model}})
		if err != nil {
			return nil, fmt.Errorf("search vectors: %w", err)
		}
		if hits := vectorHits(recs); len(hits) >= n || len(recs) == 0 {
			return hits[:min(n, len(hits))], nil
		}
	}
	st, err := compileVectorScan(q.Filter, vec, q.Model, n)
	if err != nil {
		return nil, fmt.Errorf("search vectors: %w", err)
	}
	recs, err := s.run(ctx, neo4j.AccessModeRead, st)
	if err != nil {
		return nil, fmt.Errorf("search vectors: %w", err)
	}
	return vectorHits(recs), nil
}

// compileVectorScan ranks by a scan the chunks with an embedding of vec's
// dimension (and of model, when set) of the contracts f matches. Neo4j's
// cosine function maps cosine c to (1 + c) / 2, so the score is mapped back.
func compileVectorScan(f graph.Filter, vec []any, model string, limit int) (statement, error) {
	p := params{}
	cf, err := compileFilter(p, f, summaryAsCondition)
	if err != nil {
		return statement{}, err
	}
	cypher := cf.prelude + "MATCH (c:Contract)-[:HAS_CHUNK]->(x:Chunk)" +
		cf.where("x.embedding IS NOT NULL", "size(x.embedding) = "+p.add(int64(len(vec))))
	if model != "" {
		cypher += " AND x.embedding_model = " + p.add(model)
	}
	cypher += " WITH c, x, vector.similarity.cosine(x.embedding, " + p.add(vec) + ") AS sim" +
		" RETURN c.id AS contract_id, x.text AS text, x.start AS start, x.end AS end, x.verified AS verified, 2 * sim - 1 AS score" +
		" ORDER BY score DESC, contract_id, start LIMIT " + p.add(int64(limit))
	return statement{Cypher: cypher, Params: p}, nil
}

// vectorHits decodes and orders vector search records: score descending,
// then contract id and start, as in the embedded store.
func vectorHits(recs []*neo4j.Record) []graph.ClauseHit {
	hits := make([]graph.ClauseHit, 0, len(recs))
	for _, r := range recs {
		m := r.AsMap()
		v, _ := m["verified"].(bool)
		score, _ := m["score"].(float64)
		hits = append(hits, graph.ClauseHit{ContractID: getString(m, "contract_id"), Text: getString(m, "text"),
			Start: int(getInt(m, "start")), End: int(getInt(m, "end")), Verified: v, Score: score})
	}
	sort.SliceStable(hits, func(i, j int) bool {
		if hits[i].Score != hits[j].Score {
			return hits[i].Score > hits[j].Score
		}
		if hits[i].ContractID != hits[j].ContractID {
			return hits[i].ContractID < hits[j].ContractID
		}
		return hits[i].Start < hits[j].Start
	})
	return hits
}
