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

	"github.com/contractgraph/contractgraph/internal/graph"
	"github.com/contractgraph/contractgraph/internal/graph/sqlite"
	"github.com/contractgraph/contractgraph/internal/llm/llmtest"
	"github.com/contractgraph/contractgraph/internal/tools"
)

// cliBackend is a storage backend the CLI tests run against.
type cliBackend struct {
	name string
	// newStore makes a new, empty store of the backend, or skips t, and
	// returns the global flags that select it and a function that opens it
	// for the test to write or check directly (the test closes it).
	newStore func(t *testing.T) (flags []string, open func() graph.Store)
}

// sqliteBackend runs the CLI on a SQLite file in t.TempDir().
var sqliteBackend = cliBackend{name: "sqlite", newStore: func(t *testing.T) ([]string, func() graph.Store) {
	db := filepath.Join(t.TempDir(), "graph.db")
	return []string{"--db", db}, func() graph.Store {
		s, err := sqlite.Open(db)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
}}

// cliBackends are the backends the table-driven CLI tests run against.
var cliBackends = []cliBackend{sqliteBackend, neo4jBackend}

// forEachBackend runs test once per backend, each with a new, empty store.
func forEachBackend(t *testing.T, test func(t *testing.T, flags []string, open func() graph.Store)) {
	for _, b := range cliBackends {
		t.Run(b.name, func(t *testing.T) {
			flags, open := b.newStore(t)
			test(t, flags, open)
		})
	}
}

// runOn runs the CLI with the global flags that select a backend's store
// followed by args.
func runOn(t *testing.T, flags []string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	return runContractgraph(t, "", slices.Concat(flags, args)...)
}

// importSharedStatutes imports both US Code titles and the Civil Code into
// a fresh database and returns its path.
func importSharedStatutes(t *testing.T) string {
	t.Helper()
	flags, _ := sqliteBackend.newStore(t)
	importStatutes(t, flags)
	return flags[1]
}

// importStatutes imports both US Code titles and the Civil Code into the
// store flags select and checks the summary.
func importStatutes(t *testing.T, flags []string) {
	t.Helper()
	dir := filepath.Join(sharedData(t), "data", "statutes")
	out, errOut, code := runOn(t, flags, "--json", "statutes", "import",
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
}

func TestStatutesImportAndSearch(t *testing.T) {
	forEachBackend(t, testStatutesImportAndSearch)
}

func testStatutesImportAndSearch(t *testing.T, flags []string, _ func() graph.Store) {
	importStatutes(t, flags)
	dir := filepath.Join(sharedData(t), "data", "statutes")
	cg := func(args ...string) (string, string, int) { return runOn(t, flags, args...) }

	// Re-importing changes nothing; the text summary says so.
	out, _, code := cg("statutes", "import", filepath.Join(dir, "uscode", "usc09.xml"))
	if code != 0 || !strings.Contains(out, "usc09.xml: 31 statutes (uslm)") || !strings.Contains(out, "0 created, 0 updated, 31 unchanged; 0 of 1 files failed") {
		t.Errorf("re-import: exit %d, output:\n%s", code, out)
	}

	out, errOut, code := cg("--json", "statutes", "search", "arbitration agreement valid irrevocable enforceable", "--jurisdiction", "us")
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

	out, _, code = cg("statutes", "search", "違約金", "--jurisdiction", "tw", "--limit", "3")
	if code != 0 || !strings.Contains(out, "/tw/B0000001/a250") || !strings.Contains(out, "law.moj.gov.tw") {
		t.Errorf("Chinese search: exit %d, output:\n%s", code, out)
	}

	out, _, code = cg("statutes", "get", "/tw/B0000001/a15-1")
	if code != 0 || !strings.Contains(out, "民法 (Civil Code) art. 15-1") {
		t.Errorf("get: exit %d, output:\n%s", code, out)
	}
	_, errOut, code = cg("statutes", "get", "/us/usc/t9/s999")
	if code != 2 || !strings.Contains(errOut, `statute "/us/usc/t9/s999" not found`) {
		t.Errorf("get missing: exit %d, stderr %s", code, errOut)
	}

	// The statute tools are on every surface of a store with statutes.
	out, errOut, code = cg("--json", "tools", "list")
	var listed []tools.Tool
	if err := json.Unmarshal([]byte(out), &listed); code != 0 || err != nil {
		t.Fatalf("tools list: exit %d, %v: %s", code, err, errOut)
	}
	var names []string
	for _, l := range listed {
		names = append(names, l.Name)
	}
	for _, name := range []string{tools.NameStatuteSearch, tools.NameGetStatute} {
		if !slices.Contains(names, name) {
			t.Errorf("tools list lacks %s: %v", name, names)
		}
	}
	out, errOut, code = cg("--json", "tools", "call", tools.NameGetStatute, `{"statute_id":"/us/usc/t9/s2"}`)
	if code != 0 || !strings.Contains(out, "valid, irrevocable, and enforceable") {
		t.Errorf("tools call get_statute: exit %d, %s%s", code, out, errOut)
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

	// One bad line of a file fails alone: the file's other lines import.
	mixed := filepath.Join(dir, "mixed.jsonl")
	if err := os.WriteFile(mixed, []byte(`{"id":"/xx/3","jurisdiction":"xx","text":"Offers lapse."}`+"\n"+`{"id":"/xx/4",`+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	out, errOut, code = runContractgraph(t, "", "--db", db, "statutes", "import", mixed)
	if code != 1 || !strings.Contains(out, "mixed.jsonl: 1 statutes (jsonl)") || !strings.Contains(out, "1 created, 0 updated, 0 unchanged; 0 of 1 files failed, 1 bad records skipped") ||
		!strings.Contains(errOut, "failed  "+mixed+": line 2: malformed JSON: unexpected EOF") {
		t.Errorf("one bad line: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
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
	forEachBackend(t, testStatutesHybridSearch)
}

func testStatutesHybridSearch(t *testing.T, flags []string, _ func() graph.Store) {
	usc09 := filepath.Join(sharedData(t), "data", "statutes", "uscode", "usc09.xml")
	srv := fakeEmbeddings(t)
	t.Setenv("OPENAI_BASE_URL", srv.URL+"/v1")
	t.Setenv("OPENAI_API_KEY", "test-key")
	cg := func(args ...string) (string, string, int) { return runOn(t, flags, args...) }
	out, errOut, code := cg("--embed-model", "openai:fake-embed", "statutes", "import", usc09)
	if code != 0 || !strings.Contains(out, "31 statutes embedded with openai:fake-embed") {
		t.Fatalf("import: exit %d\n%s\n%s", code, out, errOut)
	}
	// A re-import has nothing new to embed.
	out, _, _ = cg("--embed-model", "openai:fake-embed", "statutes", "import", usc09)
	if !strings.Contains(out, "0 statutes embedded") {
		t.Errorf("re-import embedded again:\n%s", out)
	}
	out, errOut, code = cg("--embed-model", "openai:fake-embed", "--json", "statutes", "search",
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

// TestStatutesImportDirectory imports the shared statutes by naming their
// directory: every statute file below it is imported (the MOJ's ch/ and
// en/ files joined), and a directory without one is the caller's mistake.
func TestStatutesImportDirectory(t *testing.T) {
	flags, _ := sqliteBackend.newStore(t)
	out, errOut, code := runOn(t, flags, "--json", "statutes", "import", filepath.Join(sharedData(t), "data", "statutes"))
	var sum statuteImportSummary
	if code != 0 || json.Unmarshal([]byte(out), &sum) != nil {
		t.Fatalf("statutes import DIR: exit %d, %s %s", code, out, errOut)
	}
	if len(sum.Files) != 4 || sum.Created != 1610 || sum.Failed != 0 {
		t.Errorf("import summary = %+v, want 4 files and 1610 statutes", sum)
	}
	_, errOut, code = runOn(t, flags, "statutes", "import", t.TempDir())
	if code != 2 || !strings.Contains(errOut, "holds no statute file") {
		t.Errorf("empty directory: exit %d, %q", code, errOut)
	}
}
