package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/contractgraph/contractgraph/internal/graph"
)

// TestDemo runs the demo as a user would on a fresh machine (no --db, no
// configuration), then explores its database with other commands.
func TestDemo(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "demo.db")
	// A file that is not a demo database is never replaced.
	other := filepath.Join(dir, "mine.db")
	if err := os.WriteFile(other, []byte("precious"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, stderr, code := runContractgraph(t, "", "demo", "--out", other, "--contracts", "10")
	if b, _ := os.ReadFile(other); code != 2 || string(b) != "precious" || !strings.Contains(stderr, "not a demo database") {
		t.Errorf("demo over another file: exit %d, %q; file now %q", code, stderr, b)
	}
	stdout, stderr, code := runContractgraph(t, "", "demo", "--out", out, "--contracts", "200")
	if code != 0 {
		t.Fatalf("demo: exit %d: %s", code, stderr)
	}
	for _, want := range []string{
		"Built a demo graph of 206 contracts (6 sample contracts with full text, 200 generated)",
		out,
		"1. What kinds of contracts are in the graph?",
		"$ contractgraph tools call contract_search",
		"demo-transport-lumen",
		"Cap On Liability",
		"--model openai:gpt-4o-mini",
		"ollama:qwen2.5:7b",
		" serve",
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("demo output lacks %q:\n%s", want, stdout)
		}
	}
	if n := strings.Count(stdout, "$ contractgraph tools call "); n < 5 {
		t.Errorf("tour shows %d tool calls, want at least 5", n)
	}

	// The printed tool calls work on the demo database.
	stdout, stderr, code = runContractgraph(t, "", "--db", out, "tools", "call", "get_contract", `{"contract_id":"demo-saas-kestrel","include_text":true}`)
	if code != 0 || !strings.Contains(stdout, "Software as a Service Agreement") {
		t.Errorf("get_contract on the demo database: exit %d, %s", code, stderr)
	}
	stdout, _, code = runContractgraph(t, "", "--db", out, "stats", "--json")
	var st graph.Stats
	if code != 0 || json.Unmarshal([]byte(stdout), &st) != nil || st.Nodes["Contract"] != 206 {
		t.Errorf("stats of the demo database: exit %d, %s", code, stdout)
	}

	// --json gives the same tour as data; running again replaces the
	// earlier demo database.
	stdout, stderr, code = runContractgraph(t, "", "--json", "demo", "--out", out, "--contracts", "0")
	if code != 0 {
		t.Fatalf("demo --json: exit %d: %s", code, stderr)
	}
	var res struct {
		Database  string `json:"database"`
		Samples   int    `json:"samples"`
		Generated int    `json:"generated"`
		Tour      []struct {
			Question string          `json:"question"`
			Tool     string          `json:"tool"`
			Args     json.RawMessage `json:"args"`
			Result   json.RawMessage `json:"result"`
		} `json:"tour"`
	}
	if err := json.Unmarshal([]byte(stdout), &res); err != nil {
		t.Fatalf("demo --json: %v\n%s", err, stdout)
	}
	stdout, _, _ = runContractgraph(t, "", "--db", out, "stats", "--json")
	if json.Unmarshal([]byte(stdout), &st) != nil || st.Nodes["Contract"] != 6 {
		t.Errorf("after a second demo without generated contracts: %s", stdout)
	}
	if res.Samples != 6 || res.Generated != 0 || len(res.Tour) < 5 || !filepath.IsAbs(res.Database) {
		t.Errorf("demo --json: %+v", res)
	}
	for _, step := range res.Tour {
		if step.Question == "" || step.Tool == "" || len(step.Result) == 0 {
			t.Errorf("incomplete tour step %+v", step)
		}
	}

	_, stderr, code = runContractgraph(t, "", "demo", "--out", out, "--contracts", "-5")
	if code != 2 || !strings.Contains(stderr, "--contracts") {
		t.Errorf("negative --contracts: exit %d, %q", code, stderr)
	}
}
