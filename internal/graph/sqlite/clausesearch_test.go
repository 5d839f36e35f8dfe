package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/contractgraph/contractgraph/internal/contract"
	"github.com/contractgraph/contractgraph/internal/graph"
	"github.com/contractgraph/contractgraph/internal/synth"
)

// clauseBenchQueries are issue 12's five clause searches and the dev set's
// x-clause, the searches BenchmarkClauseSearch measures.
var clauseBenchQueries = append(append([]struct{ id, query string }{}, scaleClauseQueries...),
	struct{ id, query string }{"x-clause", "termination for convenience written notice"})

// BenchmarkClauseSearch measures clause_search (limit 5, no filter) on the
// 100,000-contract store, or on the cached scale store when
// CONTRACTGRAPH_SCALE is set: p50/p95 wall time and thread CPU per query.
//
//	go test ./internal/graph/sqlite -run '^$' -bench ClauseSearch -benchtime 20x -timeout 1h
//	CONTRACTGRAPH_SCALE=1 go test ./internal/graph/sqlite -run '^$' -bench ClauseSearch -benchtime 20x -timeout 3h
func BenchmarkClauseSearch(b *testing.B) {
	var s *Store
	if testing.Short() {
		b.Skip("clause search benchmark skipped in -short mode")
	}
	if scaleAsked() {
		s, _ = scaleStore(b, scaleSize(b))
	} else {
		s = bigStore(b)
	}
	ctx := context.Background()
	for _, q := range clauseBenchQueries {
		b.Run(q.id, func(b *testing.B) {
			measureCall(b, func() error {
				_, err := s.SearchClauses(ctx, graph.ClauseQuery{Query: q.query, Limit: 5})
				return err
			})
		})
	}
}

// scaleAsked reports whether CONTRACTGRAPH_SCALE asks for the scale store.
func scaleAsked() bool { return strings.TrimSpace(os.Getenv(scaleEnv)) != "" }

// TestSearchClausesMatchesExhaustiveBM25 checks that SearchClauses returns
// exactly the top k of an exhaustive ranking: every passage matching any
// query word scored by FTS5's bm25, filtered, and ordered by score, then
// contract id, offset and clause id. The corpus is synthetic contracts put
// in shuffled order, so that passage rowids do not follow contract ids and
// the many passages with the same text (and so the same score) are only
// ordered right if ties are broken by contract id across the whole match,
// not by whichever tied passages an index scan meets first.
func TestSearchClausesMatchesExhaustiveBM25(t *testing.T) {
	defer smallBlocks()()
	ctx := context.Background()
	s, err := Open(filepath.Join(t.TempDir(), "exhaustive.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var cs []*contract.Contract
	if err := synth.Generate(7, 400, func(c *contract.Contract) error { cs = append(cs, c); return nil }); err != nil {
		t.Fatal(err)
	}
	rand.New(rand.NewPCG(7, 11)).Shuffle(len(cs), func(i, j int) { cs[i], cs[j] = cs[j], cs[i] })
	for i := 0; i < len(cs); i += 100 {
		out, err := s.PutContracts(ctx, cs[i:min(i+100, len(cs))])
		if err != nil {
			t.Fatal(err)
		}
		for _, o := range out {
			if o.Status == graph.PutFailed {
				t.Fatalf("put %s: %v", o.ID, o.Err)
			}
		}
	}
	ids := []string{cs[3].ID, cs[50].ID, cs[120].ID}
	filters := []struct {
		name string
		f    graph.Filter
		// selective, when set, is selectiveFilter for the case: 1 makes
		// every filter selective enough to be applied inside topK (the
		// governing-law filter keeps more passages than the restricted
		// path takes, so it is ranked through topK).
		selective int64
	}{
		{"none", graph.Filter{}, 0},
		{"few contracts", graph.Filter{ContractIDs: ids}, 0},
		{"many contracts", graph.Filter{ContractType: cs[0].ContractType}, 0},
		{"many contracts of a law ranked inside", graph.Filter{GoverningLawState: "NY"}, 1},
	}
	for _, q := range clauseBenchQueries {
		for _, f := range filters {
			for _, n := range []int{1, 5, 20} {
				t.Run(fmt.Sprintf("%s/%s/%d", q.id, f.name, n), func(t *testing.T) {
					if f.selective != 0 {
						old := selectiveFilter
						selectiveFilter = f.selective
						defer func() { selectiveFilter = old }()
					}
					if n := compareWithExhaustive(t, s, q.query, f.f, n); n == 0 && f.name == "none" {
						t.Fatalf("exhaustive ranking found nothing for %q: the corpus does not exercise the search", q.query)
					}
				})
			}
		}
		// The unfiltered and many-contract cases above must have gone
		// through the passage index, not FTS5.
		if !usesIndex(t, s, q.query) {
			t.Errorf("%s: the passage index does not answer %q", q.id, q.query)
		}
	}
}

// usesIndex reports whether the passage index ranks query.
func usesIndex(t *testing.T, s *Store, query string) bool {
	t.Helper()
	var r *indexRanking
	err := s.readTx(context.Background(), func(tx *sql.Tx) error {
		var err error
		r, err = newIndexRanking(context.Background(), tx, query)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return r != nil
}

// compareWithExhaustive checks SearchClauses against
// exhaustiveClauseSearch and returns how many hits there were.
func compareWithExhaustive(t *testing.T, s *Store, query string, f graph.Filter, n int) int {
	t.Helper()
	got, err := s.SearchClauses(context.Background(), graph.ClauseQuery{Query: query, Filter: f, Limit: n})
	if err != nil {
		t.Fatal(err)
	}
	want := exhaustiveClauseSearch(t, s, query, f, n)
	if len(got) != len(want) {
		t.Fatalf("%q: got %d hits, want %d", query, len(got), len(want))
	}
	for i := range want {
		g, w := got[i], want[i]
		if g.ContractID != w.ContractID || g.ClauseID != w.ClauseID || g.Start != w.Start || g.Score != w.Score {
			t.Errorf("%q hit %d = %s/%s@%d score %v, want %s/%s@%d score %v",
				query, i, g.ContractID, g.ClauseID, g.Start, g.Score, w.ContractID, w.ClauseID, w.Start, w.Score)
		}
	}
	return len(want)
}

// exhaustiveClauseSearch is the reference ranking of
// TestSearchClausesMatchesExhaustiveBM25: it scores every matching passage
// and sorts them all.
func exhaustiveClauseSearch(t *testing.T, s *Store, query string, f graph.Filter, n int) []graph.ClauseHit {
	t.Helper()
	ctx := context.Background()
	w, err := compileFilter(ctx, s.rdb, f)
	if err != nil {
		t.Fatal(err)
	}
	var hits []graph.ClauseHit
	err = s.readTx(ctx, func(tx *sql.Tx) error {
		ranked, err := rankPassages(ctx, tx, `SELECT rowid, -bm25(passage_fts) FROM passage_fts WHERE passage_fts MATCH ?`,
			[]any{ftsQuery(query, " OR ")})
		if err != nil {
			return err
		}
		hits, err = resolvePassages(ctx, tx, ranked, w, nil)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Slice(hits, func(i, j int) bool {
		a, b := hits[i], hits[j]
		switch {
		case a.Score != b.Score:
			return a.Score > b.Score
		case a.ContractID != b.ContractID:
			return a.ContractID < b.ContractID
		case a.Start != b.Start:
			return a.Start < b.Start
		}
		return a.ClauseID < b.ClauseID
	})
	return hits[:min(n, len(hits))]
}

// TestScoreIDsMatchesFTS5 checks the passage index's scoring of given
// passages, which a clause search restricted to a few contracts uses,
// against FTS5's rank of the same passages to the last bit: queries with a
// repeated word, a word no passage holds and words only some passages hold,
// candidates from contracts far apart (one range query each) and close
// together (one for all), clauses and chunks.
func TestScoreIDsMatchesFTS5(t *testing.T) {
	defer smallBlocks()()
	ctx := context.Background()
	s, err := Open(filepath.Join(t.TempDir(), "scoped.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var cs []*contract.Contract
	if err := synth.Generate(5, 300, func(c *contract.Contract) error { cs = append(cs, c); return nil }); err != nil {
		t.Fatal(err)
	}
	cs[7].Text = "This Agreement may be terminated for convenience. Notice notice notice shall be written."
	cs[7].Chunks = []contract.Chunk{{Ord: 0, ID: cs[7].ID + "#chunk-0", Text: cs[7].Text, Start: 0, End: len(cs[7].Text)}}
	if _, err := s.PutContracts(ctx, cs); err != nil {
		t.Fatal(err)
	}
	queries := []string{
		"terminate for convenience",
		"notice notice written",
		"limitation of liability consequential damages zzzzqx",
		"governing law New York",
		"zzzzqx",
	}
	scopes := [][]string{{cs[7].ID}, {cs[0].ID, cs[299].ID}, {cs[10].ID, cs[11].ID, cs[12].ID, cs[150].ID}}
	for _, gap := range []int64{passageRunGap, 1} {
		old := passageRunGap
		passageRunGap = gap
		for _, q := range queries {
			for _, scope := range scopes {
				tx, err := s.rdb.BeginTx(ctx, nil)
				if err != nil {
					t.Fatal(err)
				}
				in := "'" + strings.Join(scope, "','") + "'"
				cands := `SELECT cl.pk FROM clauses cl JOIN contracts c ON c.pk = cl.contract_pk WHERE c.id IN (` + in + `)
					UNION ALL SELECT -ch.pk FROM chunks ch JOIN contracts c ON c.pk = ch.contract_pk WHERE c.id IN (` + in + `)`
				want, err := rankPassages(ctx, tx, `SELECT rowid, -rank FROM passage_fts WHERE passage_fts MATCH ? AND rowid IN (`+cands+`)`, []any{ftsQuery(q, " OR ")})
				if err != nil {
					t.Fatal(err)
				}
				r, err := newIndexQuery(ctx, tx, q)
				if err != nil || r == nil {
					t.Fatalf("%q: index query %v, %v", q, r, err)
				}
				var ids []int64
				if err := eachRow(ctx, tx, cands, nil, func(rows *sql.Rows) error {
					var id int64
					err := rows.Scan(&id)
					ids = append(ids, id)
					return err
				}); err != nil {
					t.Fatal(err)
				}
				got, err := r.scoreIDs(ctx, tx, ids)
				tx.Rollback()
				if err != nil {
					t.Fatal(err)
				}
				if len(got) != len(want) {
					t.Errorf("gap %d, %q in %v: %d passages scored, FTS5 %d", gap, q, scope, len(got), len(want))
				}
				for id, w := range want {
					if g, ok := got[id]; !ok || g != w {
						t.Errorf("gap %d, %q in %v: passage %d scored %v (%v), FTS5 %v", gap, q, scope, id, g, ok, w)
					}
				}
			}
		}
		passageRunGap = old
	}
}
