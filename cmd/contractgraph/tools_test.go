package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/contractgraph/contractgraph/internal/contract"
	"github.com/contractgraph/contractgraph/internal/graph"
	"github.com/contractgraph/contractgraph/internal/graph/sqlite"
	"github.com/contractgraph/contractgraph/internal/importer"
	"github.com/contractgraph/contractgraph/internal/tools"
)

// runContractgraph runs the CLI in-process, as main does, and returns what
// it printed and its exit code.
func runContractgraph(t *testing.T, stdin string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	return runConfigured(t, stdin, nil, args...)
}

// runConfigured is runContractgraph with the app adjusted by configure
// (when not nil) before the command runs, e.g. to act as a terminal.
func runConfigured(t *testing.T, stdin string, configure func(*app), args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var out bytes.Buffer
	errFile, err := os.CreateTemp(t.TempDir(), "stderr")
	if err != nil {
		t.Fatal(err)
	}
	defer errFile.Close()
	a := newApp(strings.NewReader(stdin), &out, errFile)
	if configure != nil {
		configure(a)
	}
	root := newRootCmd(a)
	root.SetArgs(args)
	code = a.exitCode(a.execute(context.Background(), root), errFile)
	if _, err := errFile.Seek(0, io.SeekStart); err != nil {
		t.Fatal(err)
	}
	errBytes, err := io.ReadAll(errFile)
	if err != nil {
		t.Fatal(err)
	}
	return out.String(), string(errBytes), code
}

// sharedData returns ../shared beside the module root, or skips the test.
func sharedData(t *testing.T) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			break
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Skip("module root not found")
		}
		dir = parent
	}
	shared := filepath.Join(filepath.Dir(dir), "shared")
	if _, err := os.Stat(filepath.Join(shared, "questions", "dev_calls.json")); err != nil {
		t.Skipf("shared data not found at %s (../shared must sit beside the repository)", shared)
	}
	return shared
}

// referenceDB imports contract_data.json into a fresh SQLite file and
// returns its path.
func referenceDB(t *testing.T, shared string) string {
	t.Helper()
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "reference.db")
	store, err := sqlite.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	var all []*contract.Contract
	src := filepath.Join(shared, "data", "legal-tech-chat", "contract_data.json")
	err = importer.Read(ctx, src, importer.Options{}, func(r importer.Record) error {
		if r.Err != nil {
			return r.Err
		}
		all = append(all, r.Contract)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	outs, err := store.PutContracts(ctx, all)
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range outs {
		if o.Status == graph.PutFailed {
			t.Fatalf("put %s: %v", o.ID, o.Err)
		}
	}
	return path
}

type devCallEntry struct {
	ID     string          `json:"id"`
	Tool   string          `json:"tool"`
	Args   json.RawMessage `json:"args"`
	Result struct {
		TotalCount int `json:"total_count"`
		Examples   []struct {
			ContractID string `json:"contract_id"`
		} `json:"examples"`
		Groups []struct {
			Key   any `json:"key"`
			Count int `json:"count"`
		} `json:"groups"`
	} `json:"result"`
}

// TestToolsCallDevCalls runs every dev call through `contractgraph tools
// call` and checks that it prints exactly the tool's JSON result; a few
// calls whose gold answer is unaffected by normalisation are compared with
// the gold values too (all 22 are checked in internal/tools).
func TestToolsCallDevCalls(t *testing.T) {
	shared := sharedData(t)
	db := referenceDB(t, shared)
	b, err := os.ReadFile(filepath.Join(shared, "questions", "dev_gold.json"))
	if err != nil {
		t.Fatal(err)
	}
	var calls []devCallEntry
	if err := json.Unmarshal(b, &calls); err != nil {
		t.Fatal(err)
	}
	store, err := sqlite.Open(db)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	set := tools.New(store, tools.Options{})
	for _, c := range calls {
		stdout, stderr, code := runContractgraph(t, "", "--db", db, "--json", "tools", "call", c.Tool, string(c.Args))
		if code != 0 {
			t.Errorf("%s: exit %d: %s", c.ID, code, stderr)
			continue
		}
		want, err := set.Call(context.Background(), c.Tool, c.Args)
		if err != nil {
			t.Fatal(err)
		}
		if stdout != string(want)+"\n" {
			t.Errorf("%s: stdout is not exactly the tool result:\n got %s\nwant %s", c.ID, stdout, want)
		}
		var got struct {
			TotalCount int `json:"total_count"`
			Examples   []struct {
				ContractID string `json:"contract_id"`
			} `json:"examples"`
			Groups []graph.Group `json:"groups"`
		}
		if err := json.Unmarshal([]byte(stdout), &got); err != nil {
			t.Fatalf("%s: %v", c.ID, err)
		}
		switch c.ID {
		case "d01", "d03", "d06", "d11", "d14", "d20", "d22":
			if got.TotalCount != c.Result.TotalCount {
				t.Errorf("%s: total_count %d, gold %d", c.ID, got.TotalCount, c.Result.TotalCount)
			}
		case "d12", "d13":
			if len(got.Examples) == 0 || got.Examples[0].ContractID != c.Result.Examples[0].ContractID {
				t.Errorf("%s: first example %+v, gold %s", c.ID, got.Examples, c.Result.Examples[0].ContractID)
			}
		case "d21":
			if len(got.Groups) != 1 || got.Groups[0].Key != c.Result.Groups[0].Key || got.Groups[0].Count != c.Result.Groups[0].Count {
				t.Errorf("%s: groups %+v, gold %+v", c.ID, got.Groups, c.Result.Groups)
			}
		}
	}

	// Arguments from stdin.
	stdout, stderr, code := runContractgraph(t, `{"contract_type":"Distributor","min_end_date":"2005-01-01","max_end_date":"2005-12-31"}`,
		"--db", db, "--json", "tools", "call", "contract_search", "-")
	if code != 0 || !strings.HasPrefix(stdout, `{"total_count":1,`) {
		t.Errorf("stdin arguments: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}

	// The stats of the same store.
	stdout, stderr, code = runContractgraph(t, "", "--db", db, "stats", "--json")
	var st graph.Stats
	if code != 0 || json.Unmarshal([]byte(stdout), &st) != nil || st.Nodes["Contract"] != 510 || st.Relationships["PARTY_TO"] == 0 {
		t.Errorf("stats --json: exit %d, %q, %q", code, stdout, stderr)
	}
	var caps struct {
		Backend      string             `json:"backend"`
		Capabilities []graph.Capability `json:"capabilities"`
	}
	json.Unmarshal([]byte(stdout), &caps)
	supported := map[string]bool{}
	for _, c := range caps.Capabilities {
		supported[c.Name] = c.Supported
	}
	if caps.Backend != "sqlite" || !supported["statutes"] || !supported["entity resolution"] || !supported["vector search"] || supported["text2cypher"] {
		t.Errorf("stats --json capabilities: %+v", caps)
	}
	stdout, _, code = runContractgraph(t, "", "--db", db, "stats")
	if code != 0 || !strings.Contains(stdout, "Nodes\n") || !strings.Contains(stdout, "Relationships\n") ||
		!strings.Contains(stdout, "Capabilities (sqlite store)\n") || !regexp.MustCompile(`(?m)^  text2cypher +no `).MatchString(stdout) {
		t.Errorf("stats: exit %d, %q", code, stdout)
	}
	for _, line := range strings.Split(stdout, "\n") {
		if f := strings.Fields(line); len(f) == 2 && f[0] == "Contract" && f[1] != "510" {
			t.Errorf("stats table says %s contracts, want 510", f[1])
		}
	}
}

// TestToolsCallErrors checks the exit codes and messages of bad calls.
func TestToolsCallErrors(t *testing.T) {
	db := filepath.Join(t.TempDir(), "empty.db")
	store, err := sqlite.Open(db)
	if err != nil {
		t.Fatal(err)
	}
	store.Close()
	tests := []struct {
		name     string
		args     []string
		code     int
		contains []string
	}{
		{"bad contract type", []string{"--db", db, "tools", "call", "contract_search", `{"contract_type":"Lease"}`}, 2,
			[]string{"contract_type", `"Lease"`, "valid values:", "Distributor"}},
		{"bad group_by", []string{"--db", db, "tools", "call", "contract_aggregate", `{"group_by":"colour"}`}, 2,
			[]string{"group_by", "valid values:", "governing_law_state"}},
		{"bad date", []string{"--db", db, "tools", "call", "contract_search", `{"as_of":"01/02/2020"}`}, 2,
			[]string{"as_of", "YYYY-MM-DD"}},
		{"unknown argument", []string{"--db", db, "tools", "call", "party_search", `{"nam":"x"}`}, 2,
			[]string{"nam", "unknown argument", "name"}},
		{"not JSON", []string{"--db", db, "tools", "call", "contract_search", `{contract_type: Service}`}, 2,
			[]string{"not valid JSON"}},
		{"unknown tool", []string{"--db", db, "tools", "call", "drop_tables", `{}`}, 2,
			[]string{"unknown tool", "contract_search", "clause_search"}},
		{"missing contract", []string{"--db", db, "tools", "call", "get_contract", `{"contract_id":"nope"}`}, 1,
			[]string{"nope", "not found"}},
		{"missing database", []string{"--db", filepath.Join(t.TempDir(), "absent.db"), "tools", "call", "contract_search"}, 2,
			[]string{"no database at", "contractgraph demo"}},
		{"missing database stats", []string{"--db", filepath.Join(t.TempDir(), "absent.db"), "stats"}, 2,
			[]string{"no database at"}},
		{"unknown store", []string{"--db", db, "--store", "postgres", "tools", "call", "contract_search"}, 2,
			[]string{"postgres", "sqlite, neo4j"}},
		{"no tool name", []string{"--db", db, "tools", "call"}, 2, []string{"arg"}},
		{"unknown tools subcommand", []string{"--db", db, "tools", "run"}, 2, []string{"unknown command"}},
		{"extra stats argument", []string{"--db", db, "stats", "everything"}, 2, []string{"unknown command"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			stdout, stderr, code := runContractgraph(t, "", tt.args...)
			if code != tt.code {
				t.Errorf("exit code %d, want %d (stderr %q)", code, tt.code, stderr)
			}
			if stdout != "" {
				t.Errorf("stdout = %q, want nothing", stdout)
			}
			for _, s := range tt.contains {
				if !strings.Contains(stderr, s) {
					t.Errorf("stderr %q lacks %q", stderr, s)
				}
			}
		})
	}
}

// TestToolsList checks the listing works without a database and describes
// every tool with a JSON Schema.
func TestToolsList(t *testing.T) {
	absent := filepath.Join(t.TempDir(), "absent.db")
	stdout, stderr, code := runContractgraph(t, "", "--db", absent, "--json", "tools", "list")
	if _, err := os.Stat(absent); err == nil {
		t.Errorf("tools list created the database %s", absent)
	}
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var list []struct {
		Name        string         `json:"name"`
		Description string         `json:"description"`
		InputSchema map[string]any `json:"input_schema"`
	}
	if err := json.Unmarshal([]byte(stdout), &list); err != nil {
		t.Fatalf("tools list is not a JSON array of tools: %v\n%s", err, stdout)
	}
	names := map[string]bool{}
	for _, tool := range list {
		names[tool.Name] = true
		if tool.Description == "" || tool.InputSchema["type"] != "object" {
			t.Errorf("%s: description %q, schema type %v", tool.Name, tool.Description, tool.InputSchema["type"])
		}
	}
	for _, want := range []string{"contract_search", "contract_aggregate", "party_search", "get_contract", "clause_search", "statute_search", "get_statute"} {
		if !names[want] {
			t.Errorf("tools list lacks %s", want)
		}
	}
}

// listedTools parses `tools list` output into name → tool.
func listedTools(t *testing.T, stdout string) (map[string]tools.Tool, int) {
	t.Helper()
	var list []tools.Tool
	if err := json.Unmarshal([]byte(stdout), &list); err != nil {
		t.Fatalf("tools list is not a JSON array of tools: %v\n%s", err, stdout)
	}
	byName := map[string]tools.Tool{}
	size := 0
	for _, tl := range list {
		byName[tl.Name] = tl
		size += len(tl.Description) + len(tl.InputSchema)
	}
	return byName, size
}

// hasContractTypeEnum reports whether a tool's schema lists the contract
// types as an enum, which only the full schemas do.
func hasContractTypeEnum(t *testing.T, tl tools.Tool) bool {
	t.Helper()
	var s struct {
		Properties map[string]struct {
			Enum []string `json:"enum"`
		} `json:"properties"`
	}
	if err := json.Unmarshal(tl.InputSchema, &s); err != nil {
		t.Fatalf("%s schema: %v", tl.Name, err)
	}
	return len(s.Properties["contract_type"].Enum) > 0
}

// TestToolsListSchemas checks --tool-schemas and its variable on the
// listing: full by default, even with a local --model; compact on request.
func TestToolsListSchemas(t *testing.T) {
	absent := filepath.Join(t.TempDir(), "absent.db")
	_, fullSize := listedTools(t, mustRun(t, "--db", absent, "--tool-schemas", "full", "--json", "tools", "list"))
	tests := []struct {
		name        string
		env         map[string]string
		args        []string
		wantCompact bool
	}{
		{"default", nil, nil, false},
		{"local model, auto", map[string]string{"CONTRACTGRAPH_MODEL": "ollama:qwen2.5:7b"}, nil, false},
		{"flag compact", nil, []string{"--tool-schemas", "compact"}, true},
		{"variable compact", map[string]string{"CONTRACTGRAPH_TOOL_SCHEMAS": "compact"}, nil, true},
		{"flag over variable", map[string]string{"CONTRACTGRAPH_TOOL_SCHEMAS": "compact"}, []string{"--tool-schemas", "FULL"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("CONTRACTGRAPH_MODEL", "")
			t.Setenv("CONTRACTGRAPH_TOOL_SCHEMAS", "")
			for k, v := range tt.env {
				t.Setenv(k, v)
			}
			args := append(append([]string{"--db", absent}, tt.args...), "--json", "tools", "list")
			byName, size := listedTools(t, mustRun(t, args...))
			cs, ok := byName["contract_search"]
			if !ok || len(byName) < 7 {
				t.Fatalf("listed %d tools, contract_search %v", len(byName), ok)
			}
			if got := !hasContractTypeEnum(t, cs); got != tt.wantCompact {
				t.Errorf("compact = %v, want %v (listing %d bytes, full %d)", got, tt.wantCompact, size, fullSize)
			}
			if tt.wantCompact && size*3 > fullSize {
				t.Errorf("compact listing is %d bytes, more than a third of the full %d", size, fullSize)
			}
		})
	}
	_, stderr, code := runContractgraph(t, "", "--db", absent, "--tool-schemas", "tiny", "tools", "list")
	if code != 2 || !strings.Contains(stderr, "--tool-schemas") || !strings.Contains(stderr, "auto, full or compact") {
		t.Errorf("--tool-schemas tiny: exit %d, stderr %q; want 2 naming the valid values", code, stderr)
	}
}

func mustRun(t *testing.T, args ...string) string {
	t.Helper()
	stdout, stderr, code := runContractgraph(t, "", args...)
	if code != 0 {
		t.Fatalf("%v: exit %d: %s", args, code, stderr)
	}
	return stdout
}

// TestToolsSchemasAuto checks the auto rule: compact for a model on a local
// server, full for a hosted one, whatever was asked for explicitly.
func TestToolsSchemasAuto(t *testing.T) {
	tests := []struct {
		flag, model, openAIBase, ollamaHost string
		want                                tools.Schemas
	}{
		{"auto", "ollama:qwen2.5:7b", "", "", tools.SchemasCompact},
		{"auto", "ollama:qwen2.5:7b", "", "http://gpu-box.internal:11434", tools.SchemasCompact},
		{"auto", "openai:qwen", "http://127.0.0.1:18080/v1", "", tools.SchemasCompact},
		{"", "openai:qwen", "http://localhost:8000/v1", "", tools.SchemasCompact},
		{"auto", "openai:gpt-4o-mini", "", "", tools.SchemasFull},
		{"auto", "openai:qwen", "https://llm.example.com/v1", "", tools.SchemasFull},
		{"auto", "anthropic:claude-sonnet-4-5", "", "", tools.SchemasFull},
		{"auto", "gemini:gemini-2.5-flash", "", "", tools.SchemasFull},
		{"auto", "", "http://127.0.0.1:18080/v1", "", tools.SchemasFull},
		{"auto", "not a model name", "", "", tools.SchemasFull},
		{"full", "ollama:qwen2.5:7b", "", "", tools.SchemasFull},
		{"compact", "openai:gpt-4o", "", "", tools.SchemasCompact},
		{" Compact ", "anthropic:x", "", "", tools.SchemasCompact},
	}
	for _, tt := range tests {
		t.Run(tt.flag+" "+tt.model+" "+tt.openAIBase+tt.ollamaHost, func(t *testing.T) {
			t.Setenv("OPENAI_BASE_URL", tt.openAIBase)
			t.Setenv("OLLAMA_HOST", tt.ollamaHost)
			a := newApp(nil, io.Discard, io.Discard)
			a.cfg.ToolSchemas = tt.flag
			got, err := a.toolSchemasFor(tt.model)
			if err != nil || got != tt.want {
				t.Errorf("toolSchemasFor(%q) with --tool-schemas %q = %v, %v; want %v", tt.model, tt.flag, got, err, tt.want)
			}
		})
	}
}

// TestToolsAskSendsCompactSchemasToLocalModel runs ask against a fake
// OpenAI-compatible server on 127.0.0.1, as a local llama-server would be,
// and checks the size and content of the first request: the compact tool
// definitions under auto, the full ones with --tool-schemas full.
func TestToolsAskSendsCompactSchemasToLocalModel(t *testing.T) {
	db := fixtureDB(t)
	tests := []struct {
		mode        string
		wantCompact bool
		maxBytes    int
		minBytes    int
	}{
		// The whole first request (system prompt, question and tool
		// definitions, with the prompt's two worked calls) at ~3.7 bytes
		// per token: about 2,350 tokens (deadline_search among the
		// tools, without_clause_types ~210 bytes and clause_compare ~410),
		// a third of the full request.
		{"auto", true, 9420, 0},
		{"full", false, 0, 20000},
	}
	for _, tt := range tests {
		t.Run(tt.mode, func(t *testing.T) {
			f := &providerFake{t: t}
			var mu sync.Mutex
			var first []byte
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				body, _ := io.ReadAll(r.Body)
				mu.Lock()
				if first == nil {
					first = body
				}
				mu.Unlock()
				r.Body = io.NopCloser(bytes.NewReader(body))
				f.openAI(w, r)
			}))
			defer srv.Close()
			t.Setenv("OPENAI_BASE_URL", srv.URL+"/v1")
			t.Setenv("OPENAI_API_KEY", "")
			stdout, stderr, code := runContractgraph(t, "", "--db", db, "--model", "openai:local", "--tool-schemas", tt.mode, "ask", "--json", "--no-stream", askQuestion)
			if code != 0 {
				t.Fatalf("exit %d: %s\n%s", code, stderr, stdout)
			}
			var req struct {
				Tools []struct {
					Function struct {
						Name        string          `json:"name"`
						Description string          `json:"description"`
						Parameters  json.RawMessage `json:"parameters"`
					} `json:"function"`
				} `json:"tools"`
			}
			if err := json.Unmarshal(first, &req); err != nil || len(req.Tools) < 5 {
				t.Fatalf("first request: %v, %d tools", err, len(req.Tools))
			}
			t.Logf("--tool-schemas %s: first request %d bytes (~%d tokens)", tt.mode, len(first), len(first)*10/37)
			if tt.maxBytes > 0 && len(first) > tt.maxBytes {
				t.Errorf("first request is %d bytes, over %d", len(first), tt.maxBytes)
			}
			if len(first) < tt.minBytes {
				t.Errorf("first request is %d bytes, under %d", len(first), tt.minBytes)
			}
			for _, tl := range req.Tools {
				if tl.Function.Name != "contract_search" {
					continue
				}
				got := !hasContractTypeEnum(t, tools.Tool{Name: tl.Function.Name, InputSchema: tl.Function.Parameters})
				if got != tt.wantCompact {
					t.Errorf("contract_search sent compact = %v, want %v", got, tt.wantCompact)
				}
			}
			// The answer is the same either way: the tools run the same.
			if !strings.Contains(stdout, `"answer"`) {
				t.Errorf("no answer event:\n%s", stdout)
			}
		})
	}
}

// TestMCPListsFullSchemasByDefault checks that MCP clients see the full
// schemas even when --model is a local one, and compact ones on request.
func TestMCPListsFullSchemasByDefault(t *testing.T) {
	db := fixtureDB(t)
	t.Setenv("CONTRACTGRAPH_TOOL_SCHEMAS", "")
	for _, tt := range []struct {
		args        []string
		wantCompact bool
	}{
		{[]string{"--model", "ollama:qwen2.5:7b"}, false},
		{[]string{"--tool-schemas", "compact"}, true},
	} {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			toServer, clientOut := io.Pipe()
			clientIn, fromServer := io.Pipe()
			a := newApp(toServer, fromServer, io.Discard)
			root := newRootCmd(a)
			root.SetArgs(append(append([]string{"--db", db}, tt.args...), "mcp"))
			done := make(chan error, 1)
			go func() {
				done <- root.ExecuteContext(context.Background())
				fromServer.Close()
			}()
			cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(context.Background(),
				&mcp.IOTransport{Reader: clientIn, Writer: clientOut}, nil)
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			lt, err := cs.ListTools(ctx, nil)
			if err != nil {
				t.Fatal(err)
			}
			found := false
			for _, tl := range lt.Tools {
				if tl.Name != "contract_search" {
					continue
				}
				found = true
				schema, err := json.Marshal(tl.InputSchema)
				if err != nil {
					t.Fatal(err)
				}
				if got := !hasContractTypeEnum(t, tools.Tool{Name: tl.Name, InputSchema: schema}); got != tt.wantCompact {
					t.Errorf("contract_search over MCP compact = %v, want %v", got, tt.wantCompact)
				}
			}
			if !found {
				t.Error("contract_search not listed over MCP")
			}
			cs.Close()
			clientOut.Close()
			select {
			case <-done:
			case <-time.After(10 * time.Second):
				t.Fatal("mcp did not end when the client closed stdin")
			}
		})
	}
}
