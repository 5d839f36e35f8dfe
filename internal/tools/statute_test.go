package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/contractgraph/contractgraph/internal/contract"
	"github.com/contractgraph/contractgraph/internal/graph"
	"github.com/contractgraph/contractgraph/internal/llm/llmtest"
)

// fakeStatutes is an in-memory graph.StatuteStore: a statute is a hit when
// its text contains any query word; hits keep insertion order. It records
// the last query so tests can see what the tool asked for.
type fakeStatutes struct {
	sts  []contract.Statute
	last graph.StatuteQuery
}

func (f *fakeStatutes) PutStatutes(ctx context.Context, sts []contract.Statute) (graph.StatuteCounts, error) {
	f.sts = append(f.sts, sts...)
	return graph.StatuteCounts{Created: len(sts)}, nil
}

func (f *fakeStatutes) GetStatute(ctx context.Context, id string) (*contract.Statute, error) {
	for i := range f.sts {
		if f.sts[i].ID == id {
			st := f.sts[i]
			return &st, nil
		}
	}
	return nil, fmt.Errorf("statute %q: %w", id, graph.ErrNotFound)
}

func (f *fakeStatutes) SearchStatutes(ctx context.Context, q graph.StatuteQuery) ([]graph.StatuteHit, error) {
	f.last = q
	var hits []graph.StatuteHit
	for _, st := range f.sts {
		if q.Jurisdiction != "" && st.Jurisdiction != q.Jurisdiction {
			continue
		}
		for _, w := range strings.Fields(strings.ToLower(q.Query)) {
			if strings.Contains(strings.ToLower(st.Text), w) {
				hits = append(hits, graph.StatuteHit{Statute: st, Score: float64(len(hits) + 1)})
				break
			}
		}
	}
	if len(hits) > q.Limit {
		hits = hits[:q.Limit]
	}
	return hits, nil
}

func (f *fakeStatutes) CountStatutes(ctx context.Context, jurisdiction string) (int, error) {
	return len(f.sts), nil
}

func newStatuteSet(t *testing.T) (*Set, *fakeStatutes) {
	t.Helper()
	long := strings.Repeat("Filler line about nothing in particular.\n", 200) + "The arbitration clause is enforceable."
	f := &fakeStatutes{sts: []contract.Statute{
		{ID: "/us/usc/t9/s2", Jurisdiction: "us", Code: "9 U.S.C.", Number: "2", Heading: "Validity of agreements to arbitrate",
			Text: "A written provision to settle by arbitration shall be valid, irrevocable, and enforceable.", URL: "https://uscode.house.gov/x"},
		{ID: "/us/usc/t9/s99", Jurisdiction: "us", Code: "9 U.S.C.", Number: "99", Text: long},
		{ID: "/tw/B0000001/a250", Jurisdiction: "tw", Code: "民法 (Civil Code)", Number: "250", Text: "當事人得約定債務人不履行債務時，應支付違約金。\n\nThe parties may agree on a penalty for breach (arbitration)."},
	}}
	s := &Set{}
	if err := NewStatuteTools(f, StatuteOptions{ExcerptBytes: 200}).AddTo(s); err != nil {
		t.Fatal(err)
	}
	return s, f
}

func TestStatuteSearchTool(t *testing.T) {
	s, f := newStatuteSet(t)
	out, err := s.Call(context.Background(), NameStatuteSearch, json.RawMessage(`{"query":"  arbitration ", "jurisdiction":"US"}`))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(graph.StatuteQuery{Query: "arbitration", Jurisdiction: "us", Limit: 5}, f.last); diff != "" {
		t.Errorf("store query (-want +got):\n%s", diff)
	}
	var res StatuteSearchResult
	if err := json.Unmarshal(out, &res); err != nil {
		t.Fatal(err)
	}
	want := StatuteSearchResult{Statutes: []StatutePassage{
		{StatuteID: "/us/usc/t9/s2", Citation: "9 U.S.C. § 2", Jurisdiction: "us", Heading: "Validity of agreements to arbitrate",
			URL: "https://uscode.house.gov/x", Text: "A written provision to settle by arbitration shall be valid, irrevocable, and enforceable.", Score: 1},
		{StatuteID: "/us/usc/t9/s99", Citation: "9 U.S.C. § 99", Jurisdiction: "us", TextTruncated: true, Score: 2},
	}, Ranking: "bm25"}
	// The long section's excerpt is checked on its own below.
	want.Statutes[1].Text = res.Statutes[1].Text
	if diff := cmp.Diff(want, res); diff != "" {
		t.Errorf("result (-want +got):\n%s", diff)
	}
	if got := res.Statutes[1].Text; len(got) > 200 || !strings.Contains(got, "The arbitration clause is enforceable.") {
		t.Errorf("long statute excerpt (%d bytes) lacks the matching line or exceeds 200 bytes:\n%s", len(got), got)
	}
}

// vectorStatutes adds a fixed vector ranking to fakeStatutes.
type vectorStatutes struct {
	*fakeStatutes
	near    []string // ids, best first
	queries int
}

func (v *vectorStatutes) StatutesWithoutEmbedding(ctx context.Context, limit int) ([]contract.Statute, error) {
	return nil, nil
}

func (v *vectorStatutes) PutStatuteEmbeddings(ctx context.Context, ids []string, vecs [][]float32) error {
	return nil
}

func (v *vectorStatutes) SearchStatuteVectors(ctx context.Context, vector []float32, jurisdiction string, limit int) ([]graph.StatuteHit, error) {
	v.queries++
	if len(vector) == 0 {
		return nil, errors.New("empty vector")
	}
	var hits []graph.StatuteHit
	for _, id := range v.near {
		st, err := v.GetStatute(ctx, id)
		if err != nil {
			return nil, err
		}
		hits = append(hits, graph.StatuteHit{Statute: *st, Score: 0.9})
	}
	return hits, nil
}

func TestStatuteSearchHybrid(t *testing.T) {
	f := &fakeStatutes{sts: []contract.Statute{
		{ID: "a", Jurisdiction: "us", Text: "arbitration one"},
		{ID: "b", Jurisdiction: "us", Text: "arbitration two"},
		{ID: "c", Jurisdiction: "us", Text: "unrelated words only"},
	}}
	vs := &vectorStatutes{fakeStatutes: f, near: []string{"c", "a"}}
	st := NewStatuteTools(vs, StatuteOptions{Embedder: &llmtest.Embedder{}})
	res, err := st.Search(context.Background(), StatuteSearchInput{Query: "arbitration", Limit: 3})
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, s := range res.Statutes {
		ids = append(ids, s.StatuteID)
	}
	// a is first in both lists; c (vector rank 1) beats b (BM25 rank 2).
	if diff := cmp.Diff([]string{"a", "c", "b"}, ids); diff != "" || res.Ranking != "hybrid" || vs.queries != 1 {
		t.Errorf("ids (-want +got):\n%s ranking=%s vector queries=%d", diff, res.Ranking, vs.queries)
	}
	if f.last.Limit != 9 {
		t.Errorf("BM25 depth = %d, want 3×limit", f.last.Limit)
	}
	// Without an embedder the same store is searched by BM25 only.
	res, err = NewStatuteTools(vs, StatuteOptions{}).Search(context.Background(), StatuteSearchInput{Query: "arbitration", Limit: 3})
	if err != nil || res.Ranking != "bm25" || len(res.Statutes) != 2 {
		t.Errorf("BM25-only: %+v, %v", res, err)
	}
}

func TestStatuteToolsErrors(t *testing.T) {
	s, _ := newStatuteSet(t)
	tests := []struct {
		tool, args string
		field      string
		notFound   bool
	}{
		{NameStatuteSearch, `{}`, "query", false},
		{NameStatuteSearch, `{"query":"x","limit":-1}`, "limit", false},
		{NameStatuteSearch, `{"query":"x","jurisdiction":"united states"}`, "jurisdiction", false},
		{NameStatuteSearch, `{"query":"x","juris":"us"}`, "juris", false},
		{NameGetStatute, `{"statute_id":" "}`, "statute_id", false},
		{NameGetStatute, `{"statute_id":"/us/usc/t9/s9999"}`, "", true},
	}
	for _, tt := range tests {
		t.Run(tt.tool+tt.args, func(t *testing.T) {
			_, err := s.Call(context.Background(), tt.tool, json.RawMessage(tt.args))
			if tt.notFound {
				if !errors.Is(err, graph.ErrNotFound) {
					t.Fatalf("got %v, want ErrNotFound", err)
				}
				return
			}
			var ae *ArgError
			if !errors.As(err, &ae) || ae.Field != tt.field {
				t.Fatalf("got %v, want an *ArgError for field %q", err, tt.field)
			}
		})
	}
}

func TestGetStatuteTool(t *testing.T) {
	s, _ := newStatuteSet(t)
	out, err := s.Call(context.Background(), NameGetStatute, json.RawMessage(`{"statute_id":"/tw/B0000001/a250"}`))
	if err != nil {
		t.Fatal(err)
	}
	var p StatutePassage
	if err := json.Unmarshal(out, &p); err != nil {
		t.Fatal(err)
	}
	if p.Citation != "民法 (Civil Code) art. 250" || !strings.Contains(p.Text, "違約金") || p.TextTruncated {
		t.Errorf("got %+v", p)
	}
}
