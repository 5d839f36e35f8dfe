package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/contractgraph/contractgraph/internal/contract"
	"github.com/contractgraph/contractgraph/internal/graph"
	"github.com/contractgraph/contractgraph/internal/graph/neo4j/neo4jtest"
	"github.com/contractgraph/contractgraph/internal/graph/sqlite"
	"github.com/contractgraph/contractgraph/internal/llm/llmtest"
	"github.com/contractgraph/contractgraph/internal/retrieve"
)

// embedServer is a fake OpenAI /v1/embeddings server with llmtest's
// deterministic vectors. Requests after the first okRequests fail with 500
// (okRequests < 0: never).
type embedServer struct {
	*httptest.Server
	okRequests atomic.Int64
	requests   atomic.Int64
	texts      atomic.Int64
}

func newEmbedServer(t *testing.T, okRequests int64) *embedServer {
	t.Helper()
	emb := &llmtest.Embedder{Dim: 64}
	s := &embedServer{}
	s.okRequests.Store(okRequests)
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := s.requests.Add(1)
		if !strings.HasSuffix(r.URL.Path, "/embeddings") {
			http.Error(w, "not found", http.StatusNotFound)
			return
		}
		if ok := s.okRequests.Load(); ok >= 0 && n > ok {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusInternalServerError)
			fmt.Fprint(w, `{"error":{"message":"model crashed","type":"server_error"}}`)
			return
		}
		var req struct {
			Input []string `json:"input"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		s.texts.Add(int64(len(req.Input)))
		vecs, _, _ := emb.Embed(r.Context(), req.Input)
		data := make([]map[string]any, len(vecs))
		for i, v := range vecs {
			data[i] = map[string]any{"object": "embedding", "index": i, "embedding": v}
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{"object": "list", "data": data, "model": "fake-embed",
			"usage": map[string]int{"prompt_tokens": len(req.Input), "total_tokens": len(req.Input)}})
	}))
	t.Cleanup(s.Close)
	t.Setenv("OPENAI_BASE_URL", s.URL+"/v1")
	t.Setenv("OPENAI_API_KEY", "test-key")
	t.Setenv("CONTRACTGRAPH_EMBED_BASE_URL", "")
	return s
}

// contractsJSONL writes n ContractGraph JSONL contracts with a text of
// three clauses each (six chunks at the default size), returning the path.
func contractsJSONL(t *testing.T, n int) string {
	t.Helper()
	var b strings.Builder
	b.WriteString(`{"contractgraph_export":1}` + "\n")
	for i := range n {
		text := fmt.Sprintf("MASTER SERVICES AGREEMENT %d\n\n1. Term. %s\n\n2. Termination. %s\n\n3. Payment. %s", i,
			strings.Repeat("The term is two years and renews for one more. ", 20),
			strings.Repeat("Either party may terminate on thirty days notice. ", 20),
			strings.Repeat("Invoices are payable within sixty days. ", 20))
		line, err := json.Marshal(contract.Contract{ID: fmt.Sprintf("msa-%02d", i), ContractType: "Service", Text: text})
		if err != nil {
			t.Fatal(err)
		}
		b.Write(line)
		b.WriteByte('\n')
	}
	path := filepath.Join(t.TempDir(), "contracts.jsonl")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func chunkCount(t *testing.T, db, model string) graph.EmbeddingCount {
	t.Helper()
	s, err := sqlite.Open(db)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	c, err := s.CountEmbeddings(context.Background(), graph.EmbedChunks, model)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestImportEmbedsChunks(t *testing.T) {
	srv := newEmbedServer(t, -1)
	db := filepath.Join(t.TempDir(), "g.db")
	in := contractsJSONL(t, 5)

	out, errOut, code := runContractgraph(t, "", "--db", db, "--embed-model", "openai:fake-embed", "import", in)
	if code != 0 {
		t.Fatalf("import: exit %d\n%s\n%s", code, out, errOut)
	}
	c := chunkCount(t, db, "openai:fake-embed")
	if c.Total == 0 || c.Embedded != c.Total {
		t.Fatalf("after import: %+v, want every chunk embedded", c)
	}
	if want := fmt.Sprintf("embedded %d chunks with openai:fake-embed\n", c.Total); !strings.Contains(out, want) {
		t.Errorf("stdout %q does not say %q", out, want)
	}
	// In batches of 64 texts, not one request per chunk.
	if n := srv.requests.Load(); n != int64((c.Total+63)/64) {
		t.Errorf("%d embedding requests for %d chunks, want batches of 64", n, c.Total)
	}

	// Importing again embeds nothing; --json says so.
	out, _, code = runContractgraph(t, "", "--db", db, "--embed-model", "openai:fake-embed", "--json", "import", in)
	var sum importSummary
	if err := json.Unmarshal([]byte(out), &sum); err != nil || code != 0 {
		t.Fatalf("--json re-import: exit %d, %v\n%s", code, err, out)
	}
	if diff := cmp.Diff(&importEmbeddings{Model: "openai:fake-embed"}, sum.Embeddings); diff != "" || sum.Unchanged != 5 {
		t.Errorf("re-import embeddings (-want +got):\n%s", diff)
	}

	// clause_search with the same model runs hybrid, without a warning.
	out, errOut, code = runContractgraph(t, "", "--db", db, "--embed-model", "openai:fake-embed", "--json", "tools", "call", "clause_search", `{"query":"terminate on notice","limit":3}`)
	if code != 0 || !strings.Contains(out, "Termination") || strings.Contains(errOut, "BM25 alone") {
		t.Errorf("hybrid clause_search: exit %d\n%s\n%s", code, out, errOut)
	}
	// statute_search says in its result why it ranks by BM25 alone.
	out, errOut, code = runContractgraph(t, "", "--db", db, "--embed-model", "openai:fake-embed", "--json", "statutes", "search", "arbitration")
	if code != 0 || !strings.Contains(out, `"ranking": "bm25"`) || !strings.Contains(out, "no statute here has a vector by this embedding model") {
		t.Errorf("statutes search without statute vectors: exit %d\n%s\n%s", code, out, errOut)
	}
	// With another model the store has no vectors: said once, on stderr.
	_, errOut, code = runContractgraph(t, "", "--db", db, "--embed-model", "openai:other-embed", "--json", "tools", "call", "clause_search", `{"query":"terminate on notice"}`)
	if code != 0 || strings.Count(errOut, "no chunk has a vector by this embedding model") != 1 || !strings.Contains(errOut, "reindex --embeddings") {
		t.Errorf("clause_search with a model without vectors: exit %d, stderr %q", code, errOut)
	}
}

func TestImportEmbeddingServerFails(t *testing.T) {
	srv := newEmbedServer(t, 0)
	db := filepath.Join(t.TempDir(), "g db") // a path that needs quoting
	in := contractsJSONL(t, 3)

	out, errOut, code := runContractgraph(t, "", "--db", db, "--embed-model", "openai:fake-embed", "import", in)
	if code != 1 {
		t.Fatalf("import with a failing embedding server: exit %d, want 1\n%s\n%s", code, out, errOut)
	}
	for _, want := range []string{
		"embedding server at " + srv.URL + "/v1 failed",
		"OPENAI_BASE_URL",
		"The contracts are imported; add the vectors with:\n  contractgraph reindex --embeddings --embed-model openai:fake-embed --db '" + db + "'\n",
	} {
		if !strings.Contains(errOut, want) {
			t.Errorf("stderr lacks %q:\n%s", want, errOut)
		}
	}
	if !strings.HasPrefix(out, "imported 3, updated 0, unchanged 0, failed 0") {
		t.Errorf("stdout %q", out)
	}
	c := chunkCount(t, db, "openai:fake-embed")
	if c.Total == 0 || c.Embedded != 0 {
		t.Fatalf("chunks after the failed embedding: %+v, want all imported, none embedded", c)
	}
	if !strings.Contains(out, fmt.Sprintf("embedded 0 chunks with openai:fake-embed; %d chunks have no vector", c.Total)) {
		t.Errorf("stdout does not count the missing vectors: %q", out)
	}

	// hybrid clause_search and statute_search fail with the server's error
	// rather than answering by BM25 alone.
	out, errOut, code = runContractgraph(t, "", "--db", db, "--embed-model", "openai:fake-embed", "--json", "tools", "call", "clause_search", `{"query":"terminate"}`)
	if code != 1 || !strings.Contains(errOut, "clause_search: embed the query for hybrid search: embedding server at "+srv.URL+"/v1 failed") {
		t.Errorf("clause_search with a failing server: exit %d\n%s\n%s", code, out, errOut)
	}
	out, errOut, code = runContractgraph(t, "", "--db", db, "--embed-model", "openai:fake-embed", "statutes", "search", "arbitration")
	if code != 1 || !strings.Contains(errOut, "embedding server at "+srv.URL+"/v1 failed") {
		t.Errorf("statutes search with a failing server: exit %d\n%s\n%s", code, out, errOut)
	}

	// The printed command, with the server back, adds every vector.
	srv.okRequests.Store(-1)
	out, errOut, code = runContractgraph(t, "", "--db", db, "--embed-model", "openai:fake-embed", "reindex", "--embeddings")
	if code != 0 || !strings.Contains(out, fmt.Sprintf("embeddings: %d of %d chunks have a vector by openai:fake-embed (%d added now)", c.Total, c.Total, c.Total)) {
		t.Errorf("reindex after the failure: exit %d\n%s\n%s", code, out, errOut)
	}
}

// putUnchunked stores contracts with texts but no chunks, as an import of
// an older export would have.
func putUnchunked(t *testing.T, s graph.Store, n int) {
	t.Helper()
	var cs []*contract.Contract
	for i := range n {
		text := fmt.Sprintf("SUPPLY AGREEMENT %d\n\n1. Delivery. %s\n\n2. Warranty. %s", i,
			strings.Repeat("Supplier delivers the goods to the buyer's plant. ", 25),
			strings.Repeat("Goods are free of defects for one year. ", 25))
		cs = append(cs, &contract.Contract{ID: fmt.Sprintf("sup-%02d", i), ContractType: "Supply", Text: text})
	}
	cs = append(cs, &contract.Contract{ID: "no-text", ContractType: "Supply"})
	if _, err := s.PutContracts(context.Background(), cs); err != nil {
		t.Fatal(err)
	}
}

func TestReindexChunksAndEmbeddings(t *testing.T) {
	db := filepath.Join(t.TempDir(), "g.db")
	s, err := sqlite.Open(db)
	if err != nil {
		t.Fatal(err)
	}
	putUnchunked(t, s, 4)
	if _, err := s.PutStatutes(context.Background(), []contract.Statute{
		{ID: "/us/usc/t9/s2", Jurisdiction: "us", Code: "9 U.S.C.", Number: "2", Text: "A written provision to settle by arbitration shall be valid."},
	}); err != nil {
		t.Fatal(err)
	}
	s.Close()

	// Usage errors.
	for _, args := range [][]string{
		{"reindex", "--embeddings"},
		{"--embed-model", "openai:fake-embed", "reindex", "--batch", "0"},
		{"reindex", "extra"},
	} {
		if _, errOut, code := runContractgraph(t, "", append([]string{"--db", db}, args...)...); code != 2 {
			t.Errorf("%v: exit %d, want 2 (%s)", args, code, errOut)
		}
	}
	if _, errOut, _ := runContractgraph(t, "", "--db", db, "reindex", "--embeddings"); !strings.Contains(errOut, "CONTRACTGRAPH_EMBED_MODEL") {
		t.Errorf("--embeddings without a model does not say how to set one: %s", errOut)
	}

	// Chunks first; the embedding model configured but not asked for is a hint.
	t.Setenv("CONTRACTGRAPH_EMBED_MODEL", "openai:fake-embed")
	srv := newEmbedServer(t, 1)
	out, errOut, code := runContractgraph(t, "", "--db", db, "reindex")
	if code != 0 || !strings.Contains(out, "chunks: 4 contracts had a text without chunks; 4 chunked into ") {
		t.Fatalf("reindex: exit %d\n%s\n%s", code, out, errOut)
	}
	c := chunkCount(t, db, "openai:fake-embed")
	if c.Total < 8 || c.Embedded != 0 {
		t.Fatalf("chunks after reindex: %+v", c)
	}
	if want := fmt.Sprintf("%d of %d chunks have no vector by openai:fake-embed: `contractgraph reindex --embeddings --embed-model openai:fake-embed --db %s` adds them", c.Total, c.Total, db); !strings.Contains(out, want) {
		t.Errorf("no hint %q in\n%s", want, out)
	}
	if srv.requests.Load() != 0 {
		t.Errorf("reindex without --embeddings called the embedding server")
	}
	// clause_search finds the new chunks.
	if out, _, _ := runContractgraph(t, "", "--db", db, "--embed-model", "", "--json", "tools", "call", "clause_search", `{"query":"defects warranty"}`); !strings.Contains(out, "sup-0") {
		t.Errorf("clause_search after chunking: %s", out)
	}

	// The server fails after one batch of 4: the run stops with the
	// server's error and keeps those 4.
	out, errOut, code = runContractgraph(t, "", "--db", db, "reindex", "--embeddings", "--batch", "4")
	if code != 1 || !strings.Contains(errOut, "embedding server at "+srv.URL+"/v1 failed") {
		t.Fatalf("reindex with a failing server: exit %d\n%s\n%s", code, out, errOut)
	}
	if got := chunkCount(t, db, "openai:fake-embed"); got.Embedded != 4 {
		t.Fatalf("after the failure %d chunks are embedded, want the first batch's 4", got.Embedded)
	}

	// The next run continues: only the rest are sent.
	srv.okRequests.Store(-1)
	before := srv.texts.Load()
	out, errOut, code = runContractgraph(t, "", "--db", db, "--json", "reindex", "--embeddings")
	if code != 0 {
		t.Fatalf("resumed reindex: exit %d\n%s\n%s", code, out, errOut)
	}
	var sum reindexSummary
	if err := json.Unmarshal([]byte(out), &sum); err != nil {
		t.Fatal(err)
	}
	if sent := srv.texts.Load() - before; sent != int64(c.Total-4+1) {
		t.Errorf("the resumed run embedded %d texts, want the %d chunks left and the statute", sent, c.Total-4)
	}
	want := []retrieve.EmbedReport{
		{Kind: graph.EmbedChunks, Model: "openai:fake-embed", Total: c.Total, Before: 4, Embedded: c.Total - 4, Tokens: c.Total - 4},
		// The texts reindexed here have no title, summary or scope.
		{Kind: graph.EmbedSummaries, Model: "openai:fake-embed"},
		{Kind: graph.EmbedStatutes, Model: "openai:fake-embed", Total: 1, Embedded: 1, Tokens: 1},
	}
	if diff := cmp.Diff(want, sum.Embeddings); diff != "" || sum.UpToDate || sum.Chunks.Contracts != 0 {
		t.Errorf("resumed reindex summary (-want +got):\n%s\n%+v", diff, sum)
	}

	// Up to date: a no-op that says so and calls no server.
	before = srv.requests.Load()
	out, _, code = runContractgraph(t, "", "--db", db, "reindex", "--embeddings")
	if code != 0 || !strings.Contains(out, "up to date: nothing to recompute") {
		t.Errorf("up-to-date reindex: exit %d\n%s", code, out)
	}
	if srv.requests.Load() != before {
		t.Error("an up-to-date reindex called the embedding server")
	}

	// A new model re-embeds everything.
	out, _, code = runContractgraph(t, "", "--db", db, "--embed-model", "openai:fake-embed-2", "reindex", "--embeddings")
	if code != 0 || !strings.Contains(out, fmt.Sprintf("embeddings: %d of %d chunks have a vector by openai:fake-embed-2 (%d added now)", c.Total, c.Total, c.Total)) {
		t.Errorf("reindex with a new model: exit %d\n%s", code, out)
	}
}

func TestReindexNeo4j(t *testing.T) {
	s := neo4jtest.Open(t) // skips without NEO4J_URI; empties and locks the database
	putUnchunked(t, s, 3)
	srv := newEmbedServer(t, -1)
	out, errOut, code := runContractgraph(t, "", "--store", "neo4j", "--embed-model", "openai:fake-embed", "--json", "reindex", "--embeddings", "--batch", "5")
	if code != 0 {
		t.Fatalf("reindex on neo4j: exit %d\n%s\n%s", code, out, errOut)
	}
	var sum reindexSummary
	if err := json.Unmarshal([]byte(out), &sum); err != nil {
		t.Fatal(err)
	}
	c, err := s.CountEmbeddings(context.Background(), graph.EmbedChunks, "openai:fake-embed")
	if err != nil {
		t.Fatal(err)
	}
	// Neo4j keeps statutes too, none here: their backfill has nothing to do.
	if sum.Chunks.Chunked != 3 || len(sum.Embeddings) != 2 || sum.Embeddings[0].Embedded != c.Total || c.Embedded != c.Total || c.Total < 6 ||
		sum.Embeddings[1].Kind != graph.EmbedStatutes || sum.Embeddings[1].Total != 0 {
		t.Errorf("neo4j reindex: %+v, count %+v", sum, c)
	}
	if srv.texts.Load() != int64(c.Total) {
		t.Errorf("sent %d texts for %d chunks", srv.texts.Load(), c.Total)
	}
	out, _, code = runContractgraph(t, "", "--store", "neo4j", "--embed-model", "openai:fake-embed", "reindex", "--embeddings")
	if code != 0 || !strings.Contains(out, "up to date") {
		t.Errorf("second neo4j reindex: exit %d\n%s", code, out)
	}
	// Hybrid clause_search on Neo4j uses the vectors.
	out, errOut, code = runContractgraph(t, "", "--store", "neo4j", "--embed-model", "openai:fake-embed", "--json", "tools", "call", "clause_search", `{"query":"defects warranty","limit":2}`)
	if code != 0 || !strings.Contains(out, "Warranty") || strings.Contains(errOut, "BM25 alone") {
		t.Errorf("hybrid clause_search on neo4j: exit %d\n%s\n%s", code, out, errOut)
	}
}
