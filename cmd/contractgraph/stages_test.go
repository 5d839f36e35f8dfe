package main

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"

	"github.com/contractgraph/contractgraph/internal/contract"
	"github.com/contractgraph/contractgraph/internal/graph"
	"github.com/contractgraph/contractgraph/internal/graph/sqlite"
	"github.com/contractgraph/contractgraph/internal/tools"
)

func TestRetrievalStageFlags(t *testing.T) {
	db := filepath.Join(t.TempDir(), "empty.db")
	store, err := sqlite.Open(db)
	if err != nil {
		t.Fatal(err)
	}
	store.Close()
	t.Setenv("CONTRACTGRAPH_MODEL", "")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--rerank", "cross-encoder"}, `--rerank (CONTRACTGRAPH_RERANK) "cross-encoder": want off, lexical or model`},
		{[]string{"--expand", "wordnet"}, `--expand (CONTRACTGRAPH_EXPAND) "wordnet": want off, thesaurus or model`},
		{[]string{"--rerank", "model"}, "--rerank model: no model configured"},
		{[]string{"--expand", "model"}, "--expand model: no model configured"},
	} {
		args := append([]string{"--db", db}, tc.args...)
		args = append(args, "tools", "call", "clause_search", `{"query":"terminate"}`)
		_, errOut, code := runContractgraph(t, "", args...)
		if code != 2 || !strings.Contains(errOut, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", tc.args, code, errOut, tc.want)
		}
	}
	for _, args := range [][]string{{}, {"--rerank", "off", "--expand", "off", "--dedup=false"}, {"--sections"}} {
		args = append(append([]string{"--db", db, "--json"}, args...), "tools", "call", "clause_search", `{"query":"terminate"}`)
		out, errOut, code := runContractgraph(t, "", args...)
		var res tools.ClauseResult
		if code != 0 || json.Unmarshal([]byte(out), &res) != nil {
			t.Errorf("%v: exit %d, stdout %q, stderr %q", args, code, out, errOut)
		}
	}
}

// TestRiskClauseSearchRunsStages checks that the risk analyst's
// clause_search runs the agent's retrieval stages: with the default
// thesaurus expansion, "non-solicitation" finds a clause that says "hire
// any employee", which the store's plain BM25 cannot.
func TestRiskClauseSearchRunsStages(t *testing.T) {
	ctx := context.Background()
	store, err := sqlite.Open(filepath.Join(t.TempDir(), "risk.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	c := &contract.Contract{ID: "staged", Title: "Services Agreement", Chunks: []contract.Chunk{
		{Ord: 0, Text: "Neither party shall hire any employee of the other party during the term."},
		{Ord: 1, Text: "Payment is due within thirty days of the invoice date."},
	}}
	if _, err := store.PutContracts(ctx, []*contract.Contract{c}); err != nil {
		t.Fatal(err)
	}
	a := newApp(nil, io.Discard, io.Discard)
	a.log = slog.New(slog.DiscardHandler)
	deps, err := a.riskDeps(ctx, nil, store)
	if err != nil {
		t.Fatal(err)
	}
	q := graph.ClauseQuery{Query: "non-solicitation", Filter: graph.Filter{ContractIDs: []string{"staged"}}, Limit: 5}
	plain, err := store.SearchClauses(ctx, q)
	if err != nil {
		t.Fatal(err)
	}
	if len(plain) != 0 {
		t.Fatalf("plain BM25 found %d passages for %q; the test needs a query only expansion answers", len(plain), q.Query)
	}
	hits, err := deps.Clauses.SearchClauses(ctx, q)
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) == 0 || !strings.Contains(hits[0].Text, "hire any employee") {
		t.Fatalf("risk clause_search for %q: %+v; want the no-hire clause first (the thesaurus stage)", q.Query, hits)
	}
}
