package main

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/contractgraph/contractgraph/internal/llm/llmtest"
	"github.com/contractgraph/contractgraph/internal/tools"
)

// importSharedStatutes imports both US Code titles and the Civil Code into
// a fresh database and returns its path.
func importSharedStatutes(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(sharedData(t), "data", "statutes")
	db := filepath.Join(t.TempDir(), "graph.db")
	out, errOut, code := runContractgraph(t, "", "--db", db, "--json", "statutes", "import",
		filepath.Join(dir, "uscode", "usc09.xml"), filepath.Join(dir, "uscode", "usc17.xml"),
		filepath.Join(dir, "tw_moj", "ch", "B0000001.json"))
	if code != 0 {
		t.Fatalf("statutes import exited %d: %s", code, errOut)
	}
	var sum statuteImportSummary
	if err := json.Unmarshal([]byte(out), &sum); err != nil {
		t.Fatalf("%v in %s", err, out)
	}
	var counts []int
	for _, f := range sum.Files {
		counts = append(counts, f.Statutes)
	}
	if len(counts) != 3 || counts[0] != 31 || counts[1] != 140 || counts[2] != 1439 || sum.Created != 1610 || sum.Failed != 0 {
		t.Fatalf("import summary = %+v", sum)
	}
	return db
}

func TestStatutesImportAndSearch(t *testing.T) {
	db := importSharedStatutes(t)
	dir := filepath.Join(sharedData(t), "data", "statutes")

	// Re-importing changes nothing; the text summary says so.
	out, _, code := runContractgraph(t, "", "--db", db, "statutes", "import", filepath.Join(dir, "uscode", "usc09.xml"))
	if code != 0 || !strings.Contains(out, "usc09.xml: 31 statutes (uslm)") || !strings.Contains(out, "0 created, 0 updated, 31 unchanged; 0 of 1 files failed") {
		t.Errorf("re-import: exit %d, output:\n%s", code, out)
	}

	out, errOut, code := runContractgraph(t, "", "--db", db, "--json", "statutes", "search", "arbitration agreement valid irrevocable enforceable", "--jurisdiction", "us")
	if code != 0 {
		t.Fatalf("search exited %d: %s", code, errOut)
	}
	var res tools.StatuteSearchResult
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatal(err)
	}
	top := []string{}
	for _, s := range res.Statutes[:min(3, len(res.Statutes))] {
		top = append(top, s.StatuteID)
	}
	if len(top) == 0 || top[0] != "/us/usc/t9/s2" {
		t.Errorf("top hits = %v, want /us/usc/t9/s2 first", top)
	}
	if s := res.Statutes[0]; s.Citation != "9 U.S.C. § 2" || !strings.Contains(s.Text, "valid, irrevocable, and enforceable") ||
		s.URL != "https://uscode.house.gov/view.xhtml?req=granuleid:USC-prelim-title9-section2&num=0&edition=prelim" {
		t.Errorf("top hit = %+v", s)
	}

	out, _, code = runContractgraph(t, "", "--db", db, "statutes", "search", "違約金", "--jurisdiction", "tw", "--limit", "3")
	if code != 0 || !strings.Contains(out, "/tw/B0000001/a250") || !strings.Contains(out, "law.moj.gov.tw") {
		t.Errorf("Chinese search: exit %d, output:\n%s", code, out)
	}

	out, _, code = runContractgraph(t, "", "--db", db, "statutes", "get", "/tw/B0000001/a15-1")
	if code != 0 || !strings.Contains(out, "民法 (Civil Code) art. 15-1") {
		t.Errorf("get: exit %d, output:\n%s", code, out)
	}
	_, errOut, code = runContractgraph(t, "", "--db", db, "statutes", "get", "/us/usc/t9/s999")
	if code != 2 || !strings.Contains(errOut, `statute "/us/usc/t9/s999" not found`) {
		t.Errorf("get missing: exit %d, stderr %s", code, errOut)
	}
}

func TestStatutesImportReportsBadFiles(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.jsonl")
	bad := filepath.Join(dir, "bad.jsonl")
	if err := os.WriteFile(good, []byte(`{"id":"/xx/1","jurisdiction":"xx","text":"Contracts bind."}`+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bad, []byte(`{"id":"/xx/2","jurisdiction":"xx"}`+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	db := filepath.Join(dir, "graph.db")
	out, errOut, code := runContractgraph(t, "", "--db", db, "statutes", "import", good, bad)
	if code != 1 {
		t.Errorf("exit code %d, want 1", code)
	}
	if !strings.Contains(errOut, bad+`: line 1: field "text": missing`) || !strings.Contains(out, "1 created, 0 updated, 0 unchanged; 1 of 2 files failed") {
		t.Errorf("stdout:\n%s\nstderr:\n%s", out, errOut)
	}
	out, _, code = runContractgraph(t, "", "--db", db, "statutes", "search", "contracts")
	if code != 0 || !strings.Contains(out, "/xx/1") {
		t.Errorf("the good file was not imported: exit %d\n%s", code, out)
	}
	if _, _, code := runContractgraph(t, "", "--db", db, "statutes", "import"); code != 2 {
		t.Errorf("import without files exited %d, want 2", code)
	}
}

// fakeEmbeddings speaks OpenAI's /embeddings wire format with the
// deterministic bag-of-words vectors of llmtest.Embedder.
func fakeEmbeddings(t *testing.T) *httptest.Server {
	t.Helper()
	emb := &llmtest.Embedder{Dim: 64}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !strings.HasSuffix(r.URL.Path, "/embeddings") {
			http.Error(w, "not found", http.StatusNotFound)
			return
		}
		var req struct {
			Input []string `json:"input"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		vecs, _, err := emb.Embed(r.Context(), req.Input)
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		data := make([]map[string]any, len(vecs))
		for i, v := range vecs {
			data[i] = map[string]any{"object": "embedding", "index": i, "embedding": v}
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{"object": "list", "data": data, "model": "fake-embed",
			"usage": map[string]int{"prompt_tokens": len(req.Input), "total_tokens": len(req.Input)}})
	}))
	t.Cleanup(srv.Close)
	return srv
}

func TestStatutesHybridSearch(t *testing.T) {
	usc09 := filepath.Join(sharedData(t), "data", "statutes", "uscode", "usc09.xml")
	srv := fakeEmbeddings(t)
	t.Setenv("OPENAI_BASE_URL", srv.URL+"/v1")
	t.Setenv("OPENAI_API_KEY", "test-key")
	db := filepath.Join(t.TempDir(), "graph.db")
	out, errOut, code := runContractgraph(t, "", "--db", db, "--embed-model", "openai:fake-embed", "statutes", "import", usc09)
	if code != 0 || !strings.Contains(out, "31 statutes embedded with openai:fake-embed") {
		t.Fatalf("import: exit %d\n%s\n%s", code, out, errOut)
	}
	// A re-import has nothing new to embed.
	out, _, _ = runContractgraph(t, "", "--db", db, "--embed-model", "openai:fake-embed", "statutes", "import", usc09)
	if !strings.Contains(out, "0 statutes embedded") {
		t.Errorf("re-import embedded again:\n%s", out)
	}
	out, errOut, code = runContractgraph(t, "", "--db", db, "--embed-model", "openai:fake-embed", "--json", "statutes", "search",
		"arbitration agreement valid irrevocable enforceable", "--jurisdiction", "us", "--limit", "3")
	if code != 0 {
		t.Fatalf("search: exit %d: %s", code, errOut)
	}
	var res tools.StatuteSearchResult
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatal(err)
	}
	if res.Ranking != "hybrid" || len(res.Statutes) == 0 || !slices.ContainsFunc(res.Statutes, func(s tools.StatutePassage) bool { return s.StatuteID == "/us/usc/t9/s2" }) {
		t.Errorf("hybrid search: ranking %q, hits %d, want /us/usc/t9/s2 in the top 3", res.Ranking, len(res.Statutes))
	}
}
