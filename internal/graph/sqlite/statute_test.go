package sqlite

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/contractgraph/contractgraph/internal/contract"
	"github.com/contractgraph/contractgraph/internal/graph"
	"github.com/contractgraph/contractgraph/internal/graph/graphtest"
)

func TestStatuteMatch(t *testing.T) {
	tests := []struct{ in, want string }{
		{"Arbitration agreement", `"arbitration" OR "agreement"`},
		{"penalty for the breach of a contract", `"penalty" OR "breach" OR "contract"`},
		{"the of and", ""},
		{"if not such", ""},
		{"違約金 penalty", `"違 約 金" OR "penalty"`},
		{"第250條", `"第" OR "250" OR "條"`},
		{`xx"yy`, `"xx" OR "yy"`},
		{`NEAR(a* OR -bb) AND "cc`, `"near" OR "bb" OR "cc"`},
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
	sts := graphtest.SharedStatutes(b)
	s, err := Open(filepath.Join(b.TempDir(), "graph.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
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
