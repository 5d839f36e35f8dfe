package main

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/contractgraph/contractgraph/internal/eval"
)

func TestEvalRetrieval(t *testing.T) {
	cuad := filepath.Join(sharedData(t), "data", "cuad")
	srv := fakeEmbeddings(t)
	t.Setenv("OPENAI_BASE_URL", srv.URL+"/v1")
	t.Setenv("OPENAI_API_KEY", "test")
	t.Setenv("CONTRACTGRAPH_EMBED_MODEL", "")
	dir := filepath.Join(t.TempDir(), "out")

	// BM25 alone, readable output.
	out, errOut, code := runContractgraph(t, "", "eval", "retrieval", "--cuad", cuad, "--limit", "2")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if !strings.Contains(out, "Clause search on 2 CUAD contracts") || !strings.Contains(out, "bm25 recall@5") || strings.Contains(out, "hybrid") {
		t.Errorf("output:\n%s", out)
	}
	for _, want := range []string{"eval retrieval: measuring 2 contracts, k = 5, BM25", "2/2 contracts stored", "queries run"} {
		if !strings.Contains(errOut, want) {
			t.Errorf("progress lacks %q:\n%s", want, errOut)
		}
	}

	// BM25 and hybrid side by side, as JSON and files.
	out, errOut, code = runContractgraph(t, "", "--embed-model", "openai:fake-embed", "--json", "eval", "retrieval", "--cuad", cuad, "--limit", "2", "--k", "3", "-o", dir)
	if code != 0 {
		t.Fatalf("hybrid: exit %d: %s", code, errOut)
	}
	var rep eval.RetrievalReport
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("%v in %s", err, out)
	}
	if rep.K != 3 || rep.Contracts != 2 || len(rep.Overall) != 2 || rep.Overall[0].Method != "bm25" || rep.Overall[1].Method != "hybrid" ||
		rep.Overall[0].Queries != rep.Queries || rep.Overall[1].Queries != rep.Queries || rep.EmbedUsage.InputTokens == 0 {
		t.Fatalf("report: %+v", rep)
	}
	md, err := os.ReadFile(filepath.Join(dir, "retrieval.md"))
	if err != nil || !strings.Contains(string(md), "| bm25 recall@3 | bm25 MRR | hybrid recall@3 | hybrid MRR |") {
		t.Errorf("retrieval.md: %v\n%s", err, md)
	}
	for _, f := range []string{"retrieval.json", "retrieval.html"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Error(err)
		}
	}
}

func TestEvalRetrievalErrors(t *testing.T) {
	cuad := filepath.Join(sharedData(t), "data", "cuad")
	// An embedding server that fails is an error, not BM25 under another name.
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		w.Write([]byte(`{"error":{"message":"model multilingual-e5-small is not loaded","type":"invalid_request_error"}}`))
	}))
	defer srv.Close()
	t.Setenv("OPENAI_BASE_URL", srv.URL+"/v1")
	t.Setenv("OPENAI_API_KEY", "test")
	out, errOut, code := runContractgraph(t, "", "--embed-model", "openai:multilingual-e5-small", "eval", "retrieval", "--cuad", cuad, "--limit", "1")
	if code != 1 || !strings.Contains(errOut, "not loaded") || strings.Contains(out, "recall") {
		t.Errorf("failing embedder: exit %d, stdout %q, stderr %q", code, out, errOut)
	}

	bad := t.TempDir()
	os.Mkdir(filepath.Join(bad, "full_contract_txt"), 0o755)
	os.WriteFile(filepath.Join(bad, "cuad_spans_derived.jsonl"), []byte(`{"file":"a.txt","category":"Colour","byte_start":1,"byte_end":5}`+"\n"), 0o644)
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"eval", "retrieval"}, "--cuad is required"},
		{[]string{"eval", "retrieval", "--cuad", cuad, "--k", "0"}, "--k 0"},
		{[]string{"eval", "retrieval", "--cuad", t.TempDir()}, "full_contract_txt is not a directory"},
		{[]string{"eval", "retrieval", "--cuad", bad}, `cuad_spans_derived.jsonl:1: field category: "Colour" is not one of CUAD's 41 categories`},
	}
	for _, tt := range tests {
		if _, errOut, code := runContractgraph(t, "", tt.args...); code != 2 || !strings.Contains(errOut, tt.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", tt.args, code, errOut, tt.want)
		}
	}
}
