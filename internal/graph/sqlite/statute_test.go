package sqlite

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/contractgraph/contractgraph/internal/contract"
	"github.com/contractgraph/contractgraph/internal/graph"
	"github.com/contractgraph/contractgraph/internal/statute"
	"github.com/google/go-cmp/cmp"
)

// statuteDir returns ../shared/data/statutes from the module root, or skips.
func statuteDir(t testing.TB) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			break
		}
		if parent := filepath.Dir(dir); parent != dir {
			dir = parent
			continue
		}
		t.Skip("module root not found")
	}
	p := filepath.Join(dir, "..", "shared", "data", "statutes")
	if _, err := os.Stat(p); err != nil {
		t.Skipf("shared statute data not available: %v", err)
	}
	return p
}

func openStatuteStore(t *testing.T) *Store {
	t.Helper()
	s, err := Open(filepath.Join(t.TempDir(), "graph.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// loadShared imports both US Code titles and the Civil Code.
func loadShared(t *testing.T, s *Store) []contract.Statute {
	t.Helper()
	dir := statuteDir(t)
	sts, results := statute.Load([]string{
		filepath.Join(dir, "uscode", "usc09.xml"),
		filepath.Join(dir, "uscode", "usc17.xml"),
		filepath.Join(dir, "tw_moj", "ch", "B0000001.json"),
	})
	for _, r := range results {
		if r.Err != nil {
			t.Fatal(r.Err)
		}
	}
	counts, err := s.PutStatutes(context.Background(), sts)
	if err != nil {
		t.Fatal(err)
	}
	if want := (graph.StatuteCounts{Created: 31 + 140 + 1439}); counts != want {
		t.Fatalf("first import counts = %+v, want %+v", counts, want)
	}
	return sts
}

func TestStatutesImportIsIdempotent(t *testing.T) {
	ctx := context.Background()
	s := openStatuteStore(t)
	sts := loadShared(t, s)

	counts, err := s.PutStatutes(ctx, sts)
	if err != nil {
		t.Fatal(err)
	}
	if want := (graph.StatuteCounts{Unchanged: len(sts)}); counts != want {
		t.Errorf("re-import counts = %+v, want %+v", counts, want)
	}
	for _, j := range []struct {
		jurisdiction string
		want         int
	}{{"", 1610}, {"us", 171}, {"tw", 1439}, {"uk", 0}} {
		n, err := s.CountStatutes(ctx, j.jurisdiction)
		if err != nil || n != j.want {
			t.Errorf("CountStatutes(%q) = %d, %v; want %d", j.jurisdiction, n, err, j.want)
		}
	}

	changed := sts[1] // 9 U.S.C. § 2
	changed.Text += " Amended."
	counts, err = s.PutStatutes(ctx, []contract.Statute{changed, sts[0]})
	if err != nil {
		t.Fatal(err)
	}
	if want := (graph.StatuteCounts{Updated: 1, Unchanged: 1}); counts != want {
		t.Errorf("update counts = %+v, want %+v", counts, want)
	}
	got, err := s.GetStatute(ctx, "/us/usc/t9/s2")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(&changed, got); diff != "" {
		t.Errorf("GetStatute after update (-want +got):\n%s", diff)
	}
	// The index follows the update: the new word is found, in this section only.
	hits, err := s.SearchStatutes(ctx, graph.StatuteQuery{Query: "amended", Jurisdiction: "us", Limit: 50})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, h := range hits {
		if h.Statute.ID == "/us/usc/t9/s2" {
			n++
		}
	}
	if n != 1 {
		t.Errorf("updated section found %d times in %d hits, want once", n, len(hits))
	}
}

func TestSearchStatutes(t *testing.T) {
	ctx := context.Background()
	s := openStatuteStore(t)
	loadShared(t, s)
	tests := []struct {
		name    string
		q       graph.StatuteQuery
		wantTop string // must be among the first three hits
		wantJur string // every hit's jurisdiction
	}{
		{"FAA section 2", graph.StatuteQuery{Query: "arbitration agreement valid irrevocable enforceable", Jurisdiction: "us"}, "/us/usc/t9/s2", "us"},
		{"FAA section 2 any jurisdiction", graph.StatuteQuery{Query: "arbitration agreement valid irrevocable enforceable"}, "/us/usc/t9/s2", ""},
		{"fair use", graph.StatuteQuery{Query: "fair use criticism comment news reporting teaching", Jurisdiction: "us"}, "/us/usc/t17/s107", "us"},
		{"work made for hire transfer", graph.StatuteQuery{Query: "transfer of copyright ownership writing signed", Jurisdiction: "us"}, "/us/usc/t17/s204", "us"},
		{"civil code in Chinese", graph.StatuteQuery{Query: "違約金", Jurisdiction: "tw"}, "/tw/B0000001/a250", "tw"},
		{"civil code in English", graph.StatuteQuery{Query: "penalty for breach of contract agreed", Jurisdiction: "tw"}, "/tw/B0000001/a250", "tw"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			hits, err := s.SearchStatutes(ctx, tt.q)
			if err != nil {
				t.Fatal(err)
			}
			var ids []string
			for i, h := range hits {
				ids = append(ids, h.Statute.ID)
				if tt.wantJur != "" && h.Statute.Jurisdiction != tt.wantJur {
					t.Errorf("hit %s is in %s, want %s", h.Statute.ID, h.Statute.Jurisdiction, tt.wantJur)
				}
				if i > 0 && h.Score > hits[i-1].Score {
					t.Errorf("hits not ordered by score: %v", hits)
				}
			}
			if len(ids) > 3 {
				ids = ids[:3]
			}
			found := false
			for _, id := range ids {
				found = found || id == tt.wantTop
			}
			if !found {
				t.Errorf("top hits %v lack %s", ids, tt.wantTop)
			}
		})
	}
}

func TestSearchStatutesEdgeCases(t *testing.T) {
	ctx := context.Background()
	s := openStatuteStore(t)
	if _, err := s.PutStatutes(ctx, []contract.Statute{
		{ID: "x/1", Jurisdiction: "us", Text: "The licensee shall indemnify the licensor."},
		{ID: "x/2", Jurisdiction: "uk", Text: "The licensee shall not sublicense."},
	}); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		q    graph.StatuteQuery
		want []string
		err  string
	}{
		{"operators are text", graph.StatuteQuery{Query: `licensee* NEAR("indemnify" OR) AND -"`}, []string{"x/1", "x/2"}, ""},
		{"jurisdiction filter", graph.StatuteQuery{Query: "licensee", Jurisdiction: "uk"}, []string{"x/2"}, ""},
		{"no words", graph.StatuteQuery{Query: " ?! "}, nil, ""},
		{"no match", graph.StatuteQuery{Query: "copyright"}, nil, ""},
		{"limit keeps the best (shorter) match", graph.StatuteQuery{Query: "licensee", Limit: 1}, []string{"x/2"}, ""},
		{"bad limit", graph.StatuteQuery{Query: "licensee", Limit: 51}, nil, "outside 1..50"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			hits, err := s.SearchStatutes(ctx, tt.q)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("got %v, want error %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var ids []string
			for _, h := range hits {
				ids = append(ids, h.Statute.ID)
			}
			if diff := cmp.Diff(tt.want, ids); diff != "" {
				t.Errorf("ids (-want +got):\n%s", diff)
			}
		})
	}
}

func TestPutStatutesRejectsInvalidBatch(t *testing.T) {
	ctx := context.Background()
	s := openStatuteStore(t)
	_, err := s.PutStatutes(ctx, []contract.Statute{
		{ID: "ok/1", Jurisdiction: "us", Text: "fine"},
		{ID: "bad/2", Jurisdiction: "us", Text: "  "},
	})
	if err == nil || !strings.Contains(err.Error(), `statute 2 ("bad/2"): empty text`) {
		t.Fatalf("got %v, want an error naming statute 2", err)
	}
	_, err = s.PutStatutes(ctx, []contract.Statute{
		{ID: "ok/1", Jurisdiction: "us", Text: "fine"},
		{ID: "ok/1", Jurisdiction: "us", Text: "again"},
	})
	if err == nil || !strings.Contains(err.Error(), "repeats statute 1") {
		t.Fatalf("got %v, want a duplicate-id error", err)
	}
	if n, err := s.CountStatutes(ctx, ""); err != nil || n != 0 {
		t.Errorf("after rejected batches %d statutes are stored (err %v), want 0", n, err)
	}
	if _, err := s.GetStatute(ctx, "ok/1"); !errors.Is(err, graph.ErrNotFound) {
		t.Errorf("GetStatute of unwritten id = %v, want ErrNotFound", err)
	}
}

func TestStatuteMatch(t *testing.T) {
	tests := []struct{ in, want string }{
		{"Arbitration agreement", `"arbitration" OR "agreement"`},
		{"penalty for the breach of a contract", `"penalty" OR "breach" OR "contract"`},
		{"the of and", ""},
		{"違約金 penalty", `"違 約 金" OR "penalty"`},
		{"第250條", `"第" OR "250" OR "條"`},
		{`x"y`, `"x" OR "y"`},
		{"", ""},
	}
	for _, tt := range tests {
		if got := statuteMatch(tt.in); got != tt.want {
			t.Errorf("statuteMatch(%q) = %s, want %s", tt.in, got, tt.want)
		}
	}
}

// FuzzSearchStatutes checks that no query text, however hostile to FTS5
// syntax, makes the search fail.
func FuzzSearchStatutes(f *testing.F) {
	s, err := Open(filepath.Join(f.TempDir(), "graph.db"))
	if err != nil {
		f.Fatal(err)
	}
	defer s.Close()
	if _, err := s.PutStatutes(context.Background(), []contract.Statute{
		{ID: "x/1", Jurisdiction: "us", Heading: "Arbitration", Text: "A written agreement to arbitrate is valid."},
		{ID: "x/2", Jurisdiction: "tw", Heading: "違約金", Text: "當事人得約定債務人不履行債務時，應支付違約金。"},
	}); err != nil {
		f.Fatal(err)
	}
	for _, q := range []string{`"unbalanced`, "NEAR(a b, 3)", "a* OR -b AND NOT c", "{col}: ^x", "違約金 OR", ""} {
		f.Add(q)
	}
	f.Fuzz(func(t *testing.T, q string) {
		if _, err := s.SearchStatutes(context.Background(), graph.StatuteQuery{Query: q, Limit: 5}); err != nil {
			t.Fatalf("query %q: %v", q, err)
		}
	})
}

func BenchmarkSearchStatutes(b *testing.B) {
	dir := statuteDir(b)
	s, err := Open(filepath.Join(b.TempDir(), "graph.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	sts, results := statute.Load([]string{
		filepath.Join(dir, "uscode", "usc09.xml"),
		filepath.Join(dir, "uscode", "usc17.xml"),
		filepath.Join(dir, "tw_moj", "ch", "B0000001.json"),
	})
	for _, r := range results {
		if r.Err != nil {
			b.Fatal(r.Err)
		}
	}
	if _, err := s.PutStatutes(context.Background(), sts); err != nil {
		b.Fatal(err)
	}
	queries := []graph.StatuteQuery{
		{Query: "arbitration agreement valid irrevocable enforceable", Jurisdiction: "us", Limit: 5},
		{Query: "penalty for breach of contract", Limit: 5},
		{Query: "違約金", Jurisdiction: "tw", Limit: 5},
	}
	for i := 0; b.Loop(); i++ {
		if _, err := s.SearchStatutes(context.Background(), queries[i%len(queries)]); err != nil {
			b.Fatal(err)
		}
	}
}

func TestStatuteEmbeddings(t *testing.T) {
	ctx := context.Background()
	s := openStatuteStore(t)
	sts := []contract.Statute{
		{ID: "v/1", Jurisdiction: "us", Text: "one"},
		{ID: "v/2", Jurisdiction: "us", Text: "two"},
		{ID: "v/3", Jurisdiction: "tw", Text: "three"},
	}
	if _, err := s.PutStatutes(ctx, sts); err != nil {
		t.Fatal(err)
	}
	todo, err := s.StatutesWithoutEmbedding(ctx, 10)
	if err != nil || len(todo) != 3 {
		t.Fatalf("StatutesWithoutEmbedding = %d, %v; want 3", len(todo), err)
	}
	if err := s.PutStatuteEmbeddings(ctx, []string{"v/1", "v/2", "v/3"}, [][]float32{{1, 0}, {0.6, 0.8}, {1, 0.1}}); err != nil {
		t.Fatal(err)
	}
	if todo, _ := s.StatutesWithoutEmbedding(ctx, 10); len(todo) != 0 {
		t.Errorf("%d statutes still without embedding", len(todo))
	}
	hits, err := s.SearchStatuteVectors(ctx, []float32{0, 1}, "us", 5)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, h := range hits {
		ids = append(ids, h.Statute.ID)
	}
	if diff := cmp.Diff([]string{"v/2", "v/1"}, ids); diff != "" {
		t.Errorf("vector ranking (-want +got):\n%s", diff)
	}
	if hits[0].Score < 0.79 || hits[0].Score > 0.81 || hits[0].Statute.Text != "two" {
		t.Errorf("top hit = %+v, want v/2 with cosine 0.8", hits[0])
	}
	// Other dimensions are skipped, not compared.
	if hits, err := s.SearchStatuteVectors(ctx, []float32{1, 0, 0}, "", 5); err != nil || len(hits) != 0 {
		t.Errorf("3-d query: %d hits, %v", len(hits), err)
	}
	// A changed statute loses its embedding; an unchanged one keeps it.
	changed := sts[0]
	changed.Text = "one, amended"
	if _, err := s.PutStatutes(ctx, []contract.Statute{changed, sts[1]}); err != nil {
		t.Fatal(err)
	}
	todo, _ = s.StatutesWithoutEmbedding(ctx, 10)
	if len(todo) != 1 || todo[0].ID != "v/1" {
		t.Errorf("after update, without embedding: %+v, want v/1", todo)
	}
	if err := s.PutStatuteEmbeddings(ctx, []string{"v/9"}, [][]float32{{1}}); !errors.Is(err, graph.ErrNotFound) {
		t.Errorf("unknown id: %v, want ErrNotFound", err)
	}
	if _, err := s.SearchStatuteVectors(ctx, []float32{0, 0}, "", 5); err == nil {
		t.Error("zero query vector accepted")
	}
}
