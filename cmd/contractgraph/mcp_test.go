package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/contractgraph/contractgraph/internal/agent"
	"github.com/contractgraph/contractgraph/internal/mcpserver"
)

// mcpContractSearch lists the tools and calls contract_search with askArgs
// over session, returning the tool names and the call's text.
func mcpContractSearch(t *testing.T, cs *mcp.ClientSession) ([]string, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	lt, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range lt.Tools {
		names = append(names, tl.Name)
	}
	slices.Sort(names)
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "contract_search", Arguments: rawJSONArgs(askArgs)})
	if err != nil {
		t.Fatal(err)
	}
	if res.IsError || len(res.Content) != 1 {
		t.Fatalf("contract_search over MCP: %+v", res)
	}
	return names, res.Content[0].(*mcp.TextContent).Text
}

func rawJSONArgs(s string) any {
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		panic(err)
	}
	return v
}

// TestMCPStdioMatchesCLI runs `contractgraph mcp` on stdio pipes and checks
// that an MCP client gets the same contract_search JSON as `tools call`.
func TestMCPStdioMatchesCLI(t *testing.T) {
	db := fixtureDB(t)
	cli, _, code := runContractgraph(t, "", "--db", db, "--json", "tools", "call", "contract_search", askArgs)
	if code != 0 {
		t.Fatalf("tools call exited %d", code)
	}
	toServer, clientOut := io.Pipe()
	clientIn, fromServer := io.Pipe()
	a := newApp(toServer, fromServer, io.Discard)
	root := newRootCmd(a)
	root.SetArgs([]string{"--db", db, "mcp"})
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
	names, got := mcpContractSearch(t, cs)
	if got != strings.TrimSpace(cli) {
		t.Errorf("contract_search over MCP stdio:\n%s\nwant the CLI's:\n%s", got, cli)
	}
	for _, want := range []string{"clause_compare", "clause_search", "contract_aggregate", "contract_search", "get_contract", "party_search"} {
		if !slices.Contains(names, want) {
			t.Errorf("tool %s missing from %v", want, names)
		}
	}
	// clause_compare answers over MCP as `tools call` does.
	const compareArgs = `{"clause_type":"Liability & Indemnification","threshold":0.15}`
	cliCompare, _, code := runContractgraph(t, "", "--db", db, "--json", "tools", "call", "clause_compare", compareArgs)
	if code != 0 {
		t.Fatalf("tools call clause_compare exited %d", code)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "clause_compare", Arguments: rawJSONArgs(compareArgs)})
	if err != nil {
		t.Fatal(err)
	}
	if res.IsError || len(res.Content) != 1 || res.Content[0].(*mcp.TextContent).Text != strings.TrimSpace(cliCompare) {
		t.Errorf("clause_compare over MCP: %+v\nwant the CLI's:\n%s", res, cliCompare)
	}
	// Closing the client ends the session: the command returns.
	cs.Close()
	clientOut.Close()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("mcp ended with %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("mcp did not end when the client closed stdin")
	}
}

// TestMCPHTTPMatchesCLI does the same over `mcp --http`.
func TestMCPHTTPMatchesCLI(t *testing.T) {
	db := fixtureDB(t)
	t.Setenv("CONTRACTGRAPH_TOKEN", "")
	cli, _, _ := runContractgraph(t, "", "--db", db, "--json", "tools", "call", "contract_search", askArgs)
	url, stop, wait := startCommand(t, true, regexp.MustCompile(`http://127\.0\.0\.1:\d+/`), "--db", db, "mcp", "--http", "127.0.0.1:0")
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(context.Background(),
		&mcp.StreamableClientTransport{Endpoint: url, DisableStandaloneSSE: true, MaxRetries: -1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	_, got := mcpContractSearch(t, cs)
	if got != strings.TrimSpace(cli) {
		t.Errorf("contract_search over MCP HTTP:\n%s\nwant the CLI's:\n%s", got, cli)
	}
	rr, err := cs.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: mcpserver.URIPrefix + "nonexistent"})
	if err == nil {
		t.Errorf("reading a missing contract gave %+v", rr)
	}
	cs.Close()
	stop()
	if code := wait(); code != 0 {
		t.Errorf("mcp --http exited %d after interruption", code)
	}
}

// TestHelpListsServedTools checks that the help texts name exactly the
// tools the MCP server serves on a SQLite store (text2cypher, Neo4j's
// alone, is named as such).
func TestHelpListsServedTools(t *testing.T) {
	db := fixtureDB(t)
	listed, _, code := runContractgraph(t, "", "--db", db, "--json", "tools", "list")
	var list []struct {
		Name string `json:"name"`
	}
	if code != 0 || json.Unmarshal([]byte(listed), &list) != nil || len(list) == 0 {
		t.Fatalf("tools list: exit %d, %s", code, listed)
	}
	for _, cmd := range []string{"mcp", "tools"} {
		help, _, _ := runContractgraph(t, "", "help", cmd)
		text := strings.Join(strings.Fields(help), " ")
		for _, tool := range list {
			if !strings.Contains(text, tool.Name) {
				t.Errorf("help %s does not name %s, which the server serves:\n%s", cmd, tool.Name, help)
			}
		}
		if !strings.Contains(text, "text2cypher on Neo4j") {
			t.Errorf("help %s does not name text2cypher", cmd)
		}
	}
}

// TestMCPAskWithCritic runs `contractgraph mcp --critic` with a model (a
// fake OpenAI-compatible server): the ask tool is offered, runs the agent
// with the critic by default, and its result shows the critic's follow-up.
func TestMCPAskWithCritic(t *testing.T) {
	var mu sync.Mutex
	var kinds []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body := readJSON(t, r)
		msgs := body["messages"].([]any)
		last := msgs[len(msgs)-1].(map[string]any)
		kind := "tools"
		if rf, ok := body["response_format"].(map[string]any); ok {
			kind = rf["json_schema"].(map[string]any)["name"].(string)
		} else if last["role"] == "tool" {
			kind = "answer"
		}
		mu.Lock()
		kinds = append(kinds, kind)
		passes := strings.Count(strings.Join(kinds, " "), "answer")
		mu.Unlock()
		msg := map[string]any{"role": "assistant"}
		switch kind {
		case "critique":
			msg["content"] = `{"complete":false,"follow_ups":["When does the Festival Deal end?"]}`
		case "tools":
			name, args := "contract_search", `{"contract_type":"Sponsorship"}`
			if passes == 1 {
				name, args = "get_contract", `{"contract_id":"c09"}`
			}
			msg["tool_calls"] = []any{map[string]any{"id": "t", "type": "function", "function": map[string]any{"name": name, "arguments": args}}}
		case "answer":
			msg["content"] = fmt.Sprintf("Answer after pass %d.\nSources: c08, c09", passes)
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{"id": "x", "object": "chat.completion", "created": 1, "model": "any",
			"choices": []any{map[string]any{"index": 0, "message": msg, "finish_reason": "stop"}}})
	}))
	defer srv.Close()
	t.Setenv("OPENAI_BASE_URL", srv.URL+"/v1")
	t.Setenv("CONTRACTGRAPH_TOKEN", "")
	url, stop, wait := startCommand(t, true, regexp.MustCompile(`http://127\.0\.0\.1:\d+/`),
		"--db", fixtureDB(t), "--model", "openai:any", "mcp", "--http", "127.0.0.1:0", "--critic")
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(context.Background(),
		&mcp.StreamableClientTransport{Endpoint: url, DisableStandaloneSSE: true, MaxRetries: -1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: mcpserver.AskToolName, Arguments: map[string]any{"question": "sponsorships and their end dates?"}})
	if err != nil {
		t.Fatal(err)
	}
	if res.IsError || res.Content[0].(*mcp.TextContent).Text != "Answer after pass 2." {
		t.Fatalf("ask over MCP: %+v", res.Content)
	}
	var out struct {
		Trace []agent.Event `json:"trace"`
	}
	raw, _ := json.Marshal(res.StructuredContent)
	if err := json.Unmarshal(raw, &out); err != nil {
		t.Fatal(err)
	}
	var followUps []string
	for _, ev := range out.Trace {
		if ev.Type == agent.EventCritique {
			followUps = append(followUps, ev.Critique.FollowUps...)
		}
	}
	if diff := cmp.Diff([]string{"When does the Festival Deal end?"}, followUps); diff != "" {
		t.Errorf("critic follow-ups in the trace (-want +got):\n%s", diff)
	}
	mu.Lock()
	if diff := cmp.Diff([]string{"tools", "answer", "critique", "tools", "answer"}, kinds); diff != "" {
		t.Errorf("model calls (-want +got):\n%s", diff)
	}
	mu.Unlock()
	cs.Close()
	stop()
	if code := wait(); code != 0 {
		t.Errorf("mcp --http exited %d after interruption", code)
	}
}
