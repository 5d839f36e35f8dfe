package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

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
