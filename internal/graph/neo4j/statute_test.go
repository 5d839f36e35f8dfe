package neo4j_test

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	driver "github.com/neo4j/neo4j-go-driver/v5/neo4j"

	"github.com/contractgraph/contractgraph/internal/contract"
	"github.com/contractgraph/contractgraph/internal/graph"
	"github.com/contractgraph/contractgraph/internal/graph/neo4j"
	"github.com/contractgraph/contractgraph/internal/graph/neo4j/neo4jtest"
)

// TestStatuteVectorIndex: the statute vector index is created with the
// dimension of the first vectors stored, and a search through it returns
// what an exact scan would, within a jurisdiction too, even when the
// index's nearest candidates are mostly of other jurisdictions.
func TestStatuteVectorIndex(t *testing.T) {
	ctx := context.Background()
	cfg := neo4jtest.Config(t)
	neo4jtest.Open(t) // locks and empties the database
	// A fresh index: drop the one earlier tests may have made with
	// another dimension, then open a store that has not seen it.
	d, err := driver.NewDriverWithContext(cfg.URI, driver.BasicAuth(cfg.Username, cfg.Password, ""))
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close(ctx)
	if _, err := driver.ExecuteQuery(ctx, d, "DROP INDEX statute_embedding IF EXISTS", nil,
		driver.EagerResultTransformer, driver.ExecuteQueryWithDatabase(cfg.Database)); err != nil {
		t.Fatal(err)
	}
	s, err := neo4j.Open(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()

	// 600 statutes: 590 in "us" with vectors far from the query (distinct,
	// leaning a little towards it as real ones do), five near ones in
	// "us" and five nearer ones in "tw", so that a "us" search must look
	// past the "tw" candidates.
	rng := rand.New(rand.NewPCG(3, 4))
	vecAt := func(deg float64) []float32 {
		r := deg * math.Pi / 180
		return []float32{float32(math.Cos(r)), float32(math.Sin(r)), 0, 0, 0, 0, 0, 0}
	}
	var sts []contract.Statute
	var ids []string
	var vecs [][]float32
	wantUS, wantAll := []string{}, []string{}
	for i := range 600 {
		st := contract.Statute{ID: fmt.Sprintf("/us/x/s%03d", i), Jurisdiction: "us", Text: fmt.Sprintf("Section %d.", i)}
		v := []float32{float32(0.3 * math.Abs(rng.NormFloat64())), 0, 0, 0, 0, 0, 0, 0}
		for d := 1; d < len(v); d++ {
			v[d] = float32(rng.NormFloat64())
		}
		switch {
		case i%100 == 7: // s007, s107, ..., s507: 10 to 35 degrees away in us
			v = vecAt(float64(10 + 5*(i/100)))
		case i >= 590: // 1 to 5 degrees away in tw
			st.ID, st.Jurisdiction = fmt.Sprintf("/tw/x/a%03d", i), "tw"
			v = vecAt(float64(i - 589))
		}
		sts, ids, vecs = append(sts, st), append(ids, st.ID), append(vecs, v)
	}
	for i := 590; i < 600; i++ {
		wantAll = append(wantAll, fmt.Sprintf("/tw/x/a%03d", i))
	}
	for i := 7; i < 600; i += 100 {
		wantUS = append(wantUS, fmt.Sprintf("/us/x/s%03d", i))
	}
	if _, err := s.PutStatutes(ctx, sts); err != nil {
		t.Fatal(err)
	}
	if err := s.PutStatuteEmbeddings(ctx, ids, vecs); err != nil {
		t.Fatal(err)
	}
	res, err := driver.ExecuteQuery(ctx, d, "SHOW VECTOR INDEXES YIELD name, options WHERE name = 'statute_embedding' "+
		"RETURN options.indexConfig['vector.dimensions'] AS dims", nil, driver.EagerResultTransformer, driver.ExecuteQueryWithDatabase(cfg.Database))
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Records) != 1 || res.Records[0].AsMap()["dims"] != int64(8) {
		t.Fatalf("statute vector index: %v, want one of 8 dimensions", res.Records)
	}

	q := vecAt(0)
	for _, tt := range []struct {
		jur   string
		limit int
		want  []string
	}{
		{"", 10, wantAll},
		{"", 3, wantAll[:3]},
		{"tw", 5, wantAll[:5]},
		{"us", 6, wantUS},
		{"us", 2, wantUS[:2]},
		// 500 candidates hold all ten tw statutes but not 50: the scan
		// finds that there are no more.
		{"tw", 50, wantAll},
	} {
		hits, err := s.SearchStatuteVectors(ctx, q, tt.jur, tt.limit)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for i, h := range hits {
			got = append(got, h.Statute.ID)
			var deg float64
			if _, err := fmt.Sscanf(h.Statute.ID[7:], "%f", &deg); err != nil {
				t.Fatal(err)
			}
			if h.Statute.Jurisdiction == "tw" {
				deg -= 589
			} else {
				deg = float64(10 + 5*(int(deg)/100))
			}
			if want := math.Cos(deg * math.Pi / 180); math.Abs(h.Score-want) > 1e-5 {
				t.Errorf("%q hit %d %s: score %v, want the exact cosine %v", tt.jur, i, h.Statute.ID, h.Score, want)
			}
		}
		if !slices.Equal(got, tt.want) {
			t.Errorf("SearchStatuteVectors(%q, %d) = %v, want %v", tt.jur, tt.limit, got, tt.want)
		}
	}

	// The backfill's vectors (by model) are searched the same way.
	page, err := s.MissingEmbeddings(ctx, graph.EmbeddingQuery{Kind: graph.EmbedStatutes, Model: "m", Limit: 1})
	if err != nil || len(page.Items) != 1 || page.Items[0].Statute == nil || page.Items[0].Statute.ID != "/tw/x/a590" {
		t.Fatalf("first statute missing a vector by m: %+v, %v", page, err)
	}
	if n, err := s.PutEmbeddings(ctx, graph.EmbedStatutes, "m", page.Items, [][]float32{vecAt(90)}); err != nil || n != 1 {
		t.Fatalf("PutEmbeddings = %d, %v", n, err)
	}
	if hits, err := s.SearchStatuteVectors(ctx, vecAt(90), "tw", 1); err != nil || len(hits) != 1 || hits[0].Statute.ID != "/tw/x/a590" {
		t.Errorf("after re-embedding a590 at 90 degrees, the nearest tw statute to it: %v, %v", hits, err)
	}
}
