package neo4j

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/neo4j/neo4j-go-driver/v5/neo4j"

	"github.com/contractgraph/contractgraph/internal/contract"
	"github.com/contractgraph/contractgraph/internal/graph"
)

var (
	_ graph.StatuteStore       = (*Store)(nil)
	_ graph.StatuteVectorStore = (*Store)(nil)
)

// The statute knowledge base is (:Statute) nodes with no relationship: id,
// jurisdiction, code, number, heading, text, url and content_hash (of
// graph.PrepareStatute, as in the embedded store), plus embedding and
// embedding_model once embedded. Heading and text are in the full-text
// index statuteTextIndex, embeddings in the vector index statuteVectorIndex,
// created by the first write of vectors with their dimension.

// Names of the statute indexes.
const (
	statuteTextIndex   = "statute_text"
	statuteVectorIndex = "statute_embedding"
)

// putStatuteBatch is how many statutes one UNWIND writes; the batches of a
// PutStatutes call share its one transaction.
const putStatuteBatch = 500

// statuteProjection returns a statute bound to s.
const statuteProjection = `s.id AS id, s.jurisdiction AS jurisdiction, s.code AS code, s.number AS number,
 s.heading AS heading, s.text AS text, s.url AS url`

// Statute statements. Each value is a parameter.
const (
	lookupStatuteHashesCypher = `UNWIND $ids AS id MATCH (s:Statute {id: id}) RETURN s.id AS id, s.content_hash AS content_hash`

	// mergeStatutesCypher replaces every property of a new or changed
	// statute, so a changed statute loses its embedding.
	mergeStatutesCypher = `UNWIND $rows AS row MERGE (s:Statute {id: row.id}) SET s = row.props`

	getStatuteCypher = `MATCH (s:Statute {id: $id}) RETURN ` + statuteProjection

	countStatutesCypher               = `MATCH (s:Statute) RETURN count(s) AS n`
	countStatutesInJurisdictionCypher = `MATCH (s:Statute {jurisdiction: $jurisdiction}) RETURN count(s) AS n`

	statutesWithoutEmbeddingCypher = `MATCH (s:Statute) WHERE s.embedding IS NULL
RETURN ` + statuteProjection + ` ORDER BY id LIMIT $limit`

	// putStatuteEmbeddingsCypher stores vectors made by no recorded model
	// (StatuteVectorStore), so the backfill redoes them; it returns the ids
	// it found.
	putStatuteEmbeddingsCypher = `UNWIND $rows AS row
MATCH (s:Statute {id: row.id})
SET s.embedding = row.embedding
REMOVE s.embedding_model
RETURN collect(s.id) AS found`

	countStatuteEmbeddingsCypher = `MATCH (s:Statute)
RETURN count(s) AS total, count(CASE WHEN s.embedding_model = $model THEN 1 END) AS embedded`

	// missingStatuteEmbeddingsCypher pages through the statutes without a
	// vector by $model in id order.
	missingStatuteEmbeddingsCypher = `MATCH (s:Statute)
WHERE s.id > $after AND (s.embedding_model IS NULL OR s.embedding_model <> $model)
RETURN s.content_hash AS content_hash, ` + statuteProjection + ` ORDER BY id LIMIT $limit`

	// putStatuteVectorsCypher writes each vector where the statute still
	// has the content it was listed with.
	putStatuteVectorsCypher = `UNWIND $rows AS row
MATCH (s:Statute {id: row.id})
WHERE s.content_hash = row.content_hash
SET s.embedding = row.embedding, s.embedding_model = $model
RETURN count(s) AS n`

	// searchStatuteVectorIndexCypher asks the vector index for $k
	// candidates and returns those in $jurisdiction ("" = all), each with
	// how many candidates the index gave; with none in the jurisdiction, one
	// row of nulls says it. The index's scores are approximate (its vectors
	// may be quantized), so each candidate's similarity is computed anew;
	// Neo4j's cosine similarity is (1 + c) / 2.
	searchStatuteVectorIndexCypher = `CALL db.index.vector.queryNodes('` + statuteVectorIndex + `', $k, $vector) YIELD node
WITH collect(node) AS found
WITH size(found) AS candidates, [s IN found WHERE $jurisdiction = '' OR s.jurisdiction = $jurisdiction] AS kept
UNWIND CASE WHEN size(kept) = 0 THEN [null] ELSE kept END AS s
WITH candidates, s, 2 * vector.similarity.cosine(s.embedding, $vector) - 1 AS score
RETURN candidates, ` + statuteProjection + `, score
ORDER BY score DESC, id ASC LIMIT $limit`

	// awaitStatuteVectorIndexCypher waits until the statute vector index
	// is online.
	awaitStatuteVectorIndexCypher = "CALL db.awaitIndex('" + statuteVectorIndex + "', 300)"

	// statuteVectorIndexCypher reports the statute vector index's
	// dimension, if it exists.
	statuteVectorIndexCypher = "SHOW VECTOR INDEXES YIELD name, options WHERE name = '" + statuteVectorIndex +
		"' RETURN options.indexConfig['vector.dimensions'] AS dims"
)

// statuteVectorIndexStatement creates the statute vector index. The
// dimension is an integer formatted by Go (index options cannot be
// parameters).
func statuteVectorIndexStatement(dims int) statement {
	return statement{Cypher: "CREATE VECTOR INDEX " + statuteVectorIndex + " IF NOT EXISTS FOR (n:Statute) ON (n.embedding) " +
		"OPTIONS {indexConfig: {`vector.dimensions`: " + strconv.Itoa(dims) + ", `vector.similarity_function`: 'cosine'}}"}
}

// PutStatutes writes the statutes in one transaction, batched UNWIND
// MERGEs of the new and changed ones; see graph.StatuteStore.
func (s *Store) PutStatutes(ctx context.Context, sts []contract.Statute) (graph.StatuteCounts, error) {
	sts, hashes, err := graph.PrepareStatutes(sts)
	if err != nil {
		return graph.StatuteCounts{}, fmt.Errorf("put statutes: %w", err)
	}
	var counts graph.StatuteCounts
	err = s.tx(ctx, neo4j.AccessModeWrite, func(tx neo4j.ManagedTransaction) error {
		counts = graph.StatuteCounts{}
		for start := 0; start < len(sts); start += putStatuteBatch {
			end := min(start+putStatuteBatch, len(sts))
			c, err := putStatuteBatchTx(ctx, tx, sts[start:end], hashes[start:end])
			if err != nil {
				return err
			}
			counts.Created += c.Created
			counts.Updated += c.Updated
			counts.Unchanged += c.Unchanged
		}
		return nil
	})
	if err != nil {
		return graph.StatuteCounts{}, fmt.Errorf("put statutes: %w", err)
	}
	return counts, nil
}

// putStatuteBatchTx writes one batch of prepared statutes in tx.
func putStatuteBatchTx(ctx context.Context, tx neo4j.ManagedTransaction, sts []contract.Statute, hashes []string) (graph.StatuteCounts, error) {
	var counts graph.StatuteCounts
	recs, err := collect(ctx, tx, compileLookupStatuteHashes(sts))
	if err != nil {
		return counts, fmt.Errorf("look up stored statutes: %w", err)
	}
	stored := make(map[string]string, len(recs))
	for _, r := range recs {
		m := r.AsMap()
		stored[getString(m, "id")] = getString(m, "content_hash")
	}
	var write []contract.Statute
	var writeHashes []string
	for i, st := range sts {
		hash, exists := stored[st.ID]
		switch {
		case exists && hash == hashes[i]:
			counts.Unchanged++
			continue
		case exists:
			counts.Updated++
		default:
			counts.Created++
		}
		write = append(write, st)
		writeHashes = append(writeHashes, hashes[i])
	}
	if len(write) == 0 {
		return counts, nil
	}
	st := compileMergeStatutes(write, writeHashes)
	res, err := tx.Run(ctx, st.Cypher, st.Params)
	if err == nil {
		_, err = res.Consume(ctx)
	}
	if err != nil {
		return counts, fmt.Errorf("write statutes: %w", err)
	}
	return counts, nil
}

// compileLookupStatuteHashes reads the stored content hashes of sts.
func compileLookupStatuteHashes(sts []contract.Statute) statement {
	ids := make([]any, len(sts))
	for i, st := range sts {
		ids[i] = st.ID
	}
	return statement{Cypher: lookupStatuteHashesCypher, Params: map[string]any{"ids": ids}}
}

// compileMergeStatutes writes sts (prepared) with their content hashes.
func compileMergeStatutes(sts []contract.Statute, hashes []string) statement {
	rows := make([]any, len(sts))
	for i, st := range sts {
		rows[i] = map[string]any{"id": st.ID, "props": map[string]any{
			"id": st.ID, "jurisdiction": st.Jurisdiction, "code": st.Code, "number": st.Number,
			"heading": st.Heading, "text": st.Text, "url": st.URL, "content_hash": hashes[i],
		}}
	}
	return statement{Cypher: mergeStatutesCypher, Params: map[string]any{"rows": rows}}
}

// decodeStatute reads a statuteProjection record.
func decodeStatute(m map[string]any) contract.Statute {
	return contract.Statute{ID: getString(m, "id"), Jurisdiction: getString(m, "jurisdiction"), Code: getString(m, "code"),
		Number: getString(m, "number"), Heading: getString(m, "heading"), Text: getString(m, "text"), URL: getString(m, "url")}
}

// GetStatute returns one statute; see graph.StatuteStore.
func (s *Store) GetStatute(ctx context.Context, id string) (*contract.Statute, error) {
	recs, err := s.run(ctx, neo4j.AccessModeRead, statement{Cypher: getStatuteCypher, Params: map[string]any{"id": id}})
	if err != nil {
		return nil, fmt.Errorf("get statute %q: %w", id, err)
	}
	if len(recs) == 0 {
		return nil, fmt.Errorf("statute %q: %w", id, graph.ErrNotFound)
	}
	st := decodeStatute(recs[0].AsMap())
	return &st, nil
}

// compileCountStatutes counts the statutes of jurisdiction ("" = all),
// through the jurisdiction index when there is one.
func compileCountStatutes(jurisdiction string) statement {
	if jurisdiction == "" {
		return statement{Cypher: countStatutesCypher}
	}
	return statement{Cypher: countStatutesInJurisdictionCypher, Params: map[string]any{"jurisdiction": jurisdiction}}
}

// CountStatutes counts stored statutes; see graph.StatuteStore.
func (s *Store) CountStatutes(ctx context.Context, jurisdiction string) (int, error) {
	recs, err := s.run(ctx, neo4j.AccessModeRead, compileCountStatutes(jurisdiction))
	if err != nil {
		return 0, fmt.Errorf("count statutes: %w", err)
	}
	return int(getInt(recs[0].AsMap(), "n")), nil
}

// compileStatuteSearch compiles q into a query of the statute full-text
// index: the graph.StatuteTerms of q.Query, each a quoted Lucene phrase (a
// Han run is analysed into a phrase of its characters, as the embedded
// store matches it), ORed. Terms hold only letters, digits and marks, so no
// Lucene syntax survives. ok is false when the query has no searchable word.
func compileStatuteSearch(q graph.StatuteQuery) (st statement, ok bool, err error) {
	n, err := q.EffectiveLimit()
	if err != nil {
		return statement{}, false, err
	}
	terms := graph.StatuteTerms(q.Query)
	if len(terms) == 0 {
		return statement{}, false, nil
	}
	phrases := make([]string, len(terms))
	for i, t := range terms {
		phrases[i] = `"` + t.Text + `"`
	}
	p := params{}
	cypher := "CALL db.index.fulltext.queryNodes('" + statuteTextIndex + "', " + p.add(strings.Join(phrases, " OR ")) + ") YIELD node AS s, score"
	if q.Jurisdiction != "" {
		cypher += " WHERE s.jurisdiction = " + p.add(q.Jurisdiction)
	}
	// Ordered and cut before the projection, which then reads the
	// properties of the hits returned only.
	cypher += " WITH s, score ORDER BY score DESC, s.id ASC LIMIT " + p.add(int64(n)) +
		" RETURN " + statuteProjection + ", score ORDER BY score DESC, id ASC"
	return statement{Cypher: cypher, Params: p}, true, nil
}

// SearchStatutes ranks statutes by Lucene's BM25 over heading and text;
// see graph.StatuteStore and compileStatuteSearch.
func (s *Store) SearchStatutes(ctx context.Context, q graph.StatuteQuery) ([]graph.StatuteHit, error) {
	st, ok, err := compileStatuteSearch(q)
	if err != nil {
		return nil, fmt.Errorf("search statutes: %w", err)
	}
	if !ok {
		return nil, nil
	}
	recs, err := s.run(ctx, neo4j.AccessModeRead, st)
	if err != nil {
		return nil, fmt.Errorf("search statutes: %w", err)
	}
	return statuteHits(recs), nil
}

// statuteHits decodes scored statute records in their order.
func statuteHits(recs []*neo4j.Record) []graph.StatuteHit {
	hits := make([]graph.StatuteHit, 0, len(recs))
	for _, r := range recs {
		m := r.AsMap()
		if m["id"] == nil {
			continue
		}
		score, _ := m["score"].(float64)
		hits = append(hits, graph.StatuteHit{Statute: decodeStatute(m), Score: score})
	}
	return hits
}

// StatutesWithoutEmbedding lists statutes to embed; see
// graph.StatuteVectorStore.
func (s *Store) StatutesWithoutEmbedding(ctx context.Context, limit int) ([]contract.Statute, error) {
	if limit < 1 {
		return nil, fmt.Errorf("statutes without embedding: %w: limit %d is below 1", graph.ErrInvalidQuery, limit)
	}
	recs, err := s.run(ctx, neo4j.AccessModeRead, statement{Cypher: statutesWithoutEmbeddingCypher, Params: map[string]any{"limit": int64(limit)}})
	if err != nil {
		return nil, fmt.Errorf("statutes without embedding: %w", err)
	}
	out := make([]contract.Statute, 0, len(recs))
	for _, r := range recs {
		out = append(out, decodeStatute(r.AsMap()))
	}
	return out, nil
}

// floatList turns a vector into a Cypher list of floats.
func floatList(v []float32) []any {
	out := make([]any, len(v))
	for i, f := range v {
		out[i] = float64(f)
	}
	return out
}

// PutStatuteEmbeddings stores embeddings in one transaction; see
// graph.StatuteVectorStore. It records no model, so the backfill
// (PutEmbeddings) redoes them, as in the embedded store.
func (s *Store) PutStatuteEmbeddings(ctx context.Context, ids []string, vecs [][]float32) error {
	if len(ids) != len(vecs) {
		return fmt.Errorf("put statute embeddings: %d ids but %d vectors", len(ids), len(vecs))
	}
	rows := make([]any, len(ids))
	for i, v := range vecs {
		if len(v) == 0 {
			return fmt.Errorf("put statute embeddings: statute %q: empty vector", ids[i])
		}
		rows[i] = map[string]any{"id": ids[i], "embedding": floatList(v)}
	}
	if len(rows) == 0 {
		return nil
	}
	err := s.tx(ctx, neo4j.AccessModeWrite, func(tx neo4j.ManagedTransaction) error {
		recs, err := collect(ctx, tx, statement{Cypher: putStatuteEmbeddingsCypher, Params: map[string]any{"rows": rows}})
		if err != nil {
			return err
		}
		found := map[string]bool{}
		for _, id := range getStrings(recs[0].AsMap(), "found") {
			found[id] = true
		}
		for _, id := range ids {
			if !found[id] {
				// Failing the transaction function rolls the writes back.
				return fmt.Errorf("statute %q: %w", id, graph.ErrNotFound)
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("put statute embeddings: %w", err)
	}
	if err := s.createVectorIndex(ctx, s.statuteVectors, len(vecs[0])); err != nil {
		return fmt.Errorf("put statute embeddings: %w", err)
	}
	return nil
}

// compileStatuteVectorScan ranks the statutes with an embedding of the
// query's dimension by cosine similarity, exactly, by a scan (of the
// jurisdiction's statutes, through its index, when one is given).
func compileStatuteVectorScan(vec []any, jurisdiction string, limit int) statement {
	p := params{}
	match := "MATCH (s:Statute)"
	if jurisdiction != "" {
		match = "MATCH (s:Statute {jurisdiction: " + p.add(jurisdiction) + "})"
	}
	dims, v := p.add(int64(len(vec))), p.add(vec)
	return statement{Cypher: match + " WHERE s.embedding IS NOT NULL AND size(s.embedding) = " + dims +
		" WITH s, vector.similarity.cosine(s.embedding, " + v + ") AS sim WHERE sim IS NOT NULL" +
		" RETURN " + statuteProjection + ", 2 * sim - 1 AS score ORDER BY score DESC, id ASC LIMIT " + p.add(int64(limit)),
		Params: p}
}

// vectorCandidates is how many candidates to ask an approximate (HNSW)
// vector index for to return n: many more than wanted, which keeps its
// recall high when a query lies far from most vectors.
func vectorCandidates(n int) int { return min(max(20*n, 100), 500) }

// SearchStatuteVectors ranks statutes by cosine similarity; see
// graph.StatuteVectorStore. When the statute vector index has the query's
// dimension it asks the index for candidates and keeps those of the
// jurisdiction; should they be too few while the index had more to give,
// or should there be no index of that dimension, it scans, as the embedded
// store does.
func (s *Store) SearchStatuteVectors(ctx context.Context, vector []float32, jurisdiction string, limit int) ([]graph.StatuteHit, error) {
	n, err := graph.StatuteVectorLimit(limit)
	if err == nil {
		err = graph.CheckQueryVector(vector)
	}
	if err != nil {
		return nil, fmt.Errorf("search statute vectors: %w", err)
	}
	vec := floatList(vector)
	if s.statuteVectors.has(len(vec)) {
		k := vectorCandidates(n)
		recs, err := s.run(ctx, neo4j.AccessModeRead, statement{Cypher: searchStatuteVectorIndexCypher, Params: map[string]any{
			"k": int64(k), "vector": vec, "jurisdiction": jurisdiction, "limit": int64(n)}})
		if err != nil {
			return nil, fmt.Errorf("search statute vectors: %w", err)
		}
		hits := statuteHits(recs)
		// Fewer candidates than asked for means the index gave all it
		// holds, so the hits are complete.
		if len(recs) > 0 && (len(hits) >= n || getInt(recs[0].AsMap(), "candidates") < int64(k)) {
			return hits, nil
		}
	}
	recs, err := s.run(ctx, neo4j.AccessModeRead, compileStatuteVectorScan(vec, jurisdiction, n))
	if err != nil {
		return nil, fmt.Errorf("search statute vectors: %w", err)
	}
	return statuteHits(recs), nil
}

// statuteKey is a statute's key in EmbeddingItem: "content hash:id", so
// that a vector is written only over the content it was made from.
func statuteKey(hash, id string) string { return hash + ":" + id }

// countStatuteEmbeddings counts statutes and their vectors by model, for
// CountEmbeddings.
func (s *Store) countStatuteEmbeddings(ctx context.Context, model string) (graph.EmbeddingCount, error) {
	recs, err := s.run(ctx, neo4j.AccessModeRead, statement{Cypher: countStatuteEmbeddingsCypher, Params: map[string]any{"model": model}})
	if err != nil {
		return graph.EmbeddingCount{}, fmt.Errorf("count %s embeddings: %w", graph.EmbedStatutes, err)
	}
	m := recs[0].AsMap()
	return graph.EmbeddingCount{Total: int(getInt(m, "total")), Embedded: int(getInt(m, "embedded"))}, nil
}

// missingStatuteEmbeddings returns statutes without a vector by q.Model in
// id order after the cursor q.After (a statute id), for MissingEmbeddings.
func (s *Store) missingStatuteEmbeddings(ctx context.Context, q graph.EmbeddingQuery) (graph.EmbeddingPage, error) {
	recs, err := s.run(ctx, neo4j.AccessModeRead, statement{Cypher: missingStatuteEmbeddingsCypher, Params: map[string]any{
		"after": q.After, "model": q.Model, "limit": int64(q.Limit)}})
	if err != nil {
		return graph.EmbeddingPage{}, fmt.Errorf("missing %s embeddings: %w", q.Kind, err)
	}
	var page graph.EmbeddingPage
	for _, r := range recs {
		m := r.AsMap()
		st := decodeStatute(m)
		page.Items = append(page.Items, graph.EmbeddingItem{Key: statuteKey(getString(m, "content_hash"), st.ID), Statute: &st})
		page.Next = st.ID
	}
	return page, nil
}

// putStatuteVectors stores statute vectors with their model, each only
// where the statute still has the content it was listed with, for
// PutEmbeddings.
func (s *Store) putStatuteVectors(ctx context.Context, model string, items []graph.EmbeddingItem, vecs [][]float32) (int, error) {
	rows := make([]any, len(items))
	for i, it := range items {
		hash, id, ok := strings.Cut(it.Key, ":")
		switch {
		case len(vecs[i]) == 0:
			return 0, fmt.Errorf("put embeddings: item %d (key %q): empty vector", i, it.Key)
		case !ok || id == "":
			return 0, fmt.Errorf("put embeddings: item %d: key %q is not one of this store's", i, it.Key)
		}
		rows[i] = map[string]any{"id": id, "content_hash": hash, "embedding": floatList(vecs[i])}
	}
	if len(rows) == 0 {
		return 0, nil
	}
	recs, err := s.run(ctx, neo4j.AccessModeWrite, statement{Cypher: putStatuteVectorsCypher, Params: map[string]any{"rows": rows, "model": model}})
	if err != nil {
		return 0, fmt.Errorf("put %s embeddings: %w", graph.EmbedStatutes, err)
	}
	if err := s.createVectorIndex(ctx, s.statuteVectors, len(vecs[0])); err != nil {
		return 0, fmt.Errorf("put %s embeddings: %w", graph.EmbedStatutes, err)
	}
	return int(getInt(recs[0].AsMap(), "n")), nil
}

// statuteStatements are the fixed statute statements with the parameters
// a real call passes, for the Cypher lint.
func statuteStatements() []namedStatementT {
	vec := []any{0.1, 0.2}
	sts := []contract.Statute{{ID: "/us/usc/t9/s2", Jurisdiction: "us", Code: "9 U.S.C.", Number: "2", Heading: "H", Text: "T", URL: "https://x.y/"}}
	search, _, _ := compileStatuteSearch(graph.StatuteQuery{Query: "arbitration 違約金", Jurisdiction: "us", Limit: 5})
	searchAll, _, _ := compileStatuteSearch(graph.StatuteQuery{Query: "arbitration"})
	out := []namedStatementT{
		{"statute vector index create", statuteVectorIndexStatement(384)},
		{"await the statute vector index", statement{Cypher: awaitStatuteVectorIndexCypher}},
		{"statute vector index lookup", statement{Cypher: statuteVectorIndexCypher}},
		{"lookup statute hashes", compileLookupStatuteHashes(sts)},
		{"merge statutes", compileMergeStatutes(sts, []string{"h"})},
		{"get statute", statement{Cypher: getStatuteCypher, Params: map[string]any{"id": "/us/usc/t9/s2"}}},
		{"count statutes", compileCountStatutes("")},
		{"count statutes of a jurisdiction", compileCountStatutes("us")},
		{"search statutes", search},
		{"search statutes, any jurisdiction", searchAll},
		{"statutes without embedding", statement{Cypher: statutesWithoutEmbeddingCypher, Params: map[string]any{"limit": int64(10)}}},
		{"put statute embeddings", statement{Cypher: putStatuteEmbeddingsCypher, Params: map[string]any{
			"rows": []any{map[string]any{"id": "/us/usc/t9/s2", "embedding": vec}}}}},
		{"search statute vector index", statement{Cypher: searchStatuteVectorIndexCypher, Params: map[string]any{
			"k": int64(100), "vector": vec, "jurisdiction": "us", "limit": int64(5)}}},
		{"scan statute vectors", compileStatuteVectorScan(vec, "", 5)},
		{"scan statute vectors of a jurisdiction", compileStatuteVectorScan(vec, "us", 5)},
		{"count statute embeddings", statement{Cypher: countStatuteEmbeddingsCypher, Params: map[string]any{"model": "m"}}},
		{"missing statute embeddings", statement{Cypher: missingStatuteEmbeddingsCypher, Params: map[string]any{
			"after": "", "model": "m", "limit": int64(64)}}},
		{"put statute vectors", statement{Cypher: putStatuteVectorsCypher, Params: map[string]any{"model": "m",
			"rows": []any{map[string]any{"id": "/us/usc/t9/s2", "content_hash": "h", "embedding": vec}}}}},
	}
	return out
}
