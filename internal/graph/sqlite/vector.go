package sqlite

import (
	"context"
	"database/sql"
	"encoding/binary"
	"fmt"
	"math"
	"sort"

	"github.com/contractgraph/contractgraph/internal/graph"
)

var _ graph.VectorStore = (*Store)(nil)

// SearchVectors scans the stored chunk embeddings (float32 blobs) in Go and
// returns the chunks most similar to q.Vector by cosine similarity, among
// the chunks of the contracts q.Filter matches (the same conditions as
// contract_search, compiled by compileFilter). A full
// scan is fast enough for an embedded store: 100,000 chunks of 1,536
// dimensions are about 600 MB of arithmetic, well under a second per query
// on one core; larger collections belong in the Neo4j backend's vector index.
func (s *Store) SearchVectors(ctx context.Context, q graph.VectorQuery) ([]graph.ClauseHit, error) {
	n, err := q.EffectiveLimit()
	if err != nil {
		return nil, fmt.Errorf("search vectors: %w", err)
	}
	if err := graph.CheckQueryVector(q.Vector); err != nil {
		return nil, fmt.Errorf("search vectors: %w", err)
	}
	qn := norm(q.Vector)
	w, err := compileFilter(ctx, s.rdb, q.Filter)
	if err != nil {
		return nil, fmt.Errorf("search vectors: %w", err)
	}
	w.add("ch.embedding IS NOT NULL AND length(ch.embedding) = ?", 4*len(q.Vector))
	if q.Model != "" {
		w.add("ch.embedding_model = ?", q.Model)
	}
	query := `SELECT c.id, ch.text, ch.start, ch."end", ch.verified, ch.embedding
		FROM chunks ch JOIN contracts c ON c.pk = ch.contract_pk` + w.sql()
	args := w.args
	var hits []graph.ClauseHit
	err = eachRow(ctx, s.rdb, query, args, func(r *sql.Rows) error {
		var h graph.ClauseHit
		var blob []byte
		if err := r.Scan(&h.ContractID, &h.Text, &h.Start, &h.End, &h.Verified, &blob); err != nil {
			return err
		}
		h.Score = cosine(q.Vector, qn, blob)
		hits = append(hits, h)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("search vectors: %w", err)
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
	if len(hits) > n {
		hits = hits[:n]
	}
	if hits == nil {
		hits = []graph.ClauseHit{}
	}
	return hits, nil
}

func norm(v []float32) float64 {
	var s float64
	for _, f := range v {
		s += float64(f) * float64(f)
	}
	return math.Sqrt(s)
}

// cosine is the cosine similarity of q (with norm qn) and the little-endian
// float32 vector in blob, which has q's dimension; 0 for a zero vector.
func cosine(q []float32, qn float64, blob []byte) float64 {
	var dot, bn float64
	for i, f := range q {
		b := float64(math.Float32frombits(binary.LittleEndian.Uint32(blob[4*i:])))
		dot += float64(f) * b
		bn += b * b
	}
	if bn == 0 {
		return 0
	}
	return dot / (qn * math.Sqrt(bn))
}
