package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
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
		"$ contractgraph --db " + out + " tools call contract_search",
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
	if n := strings.Count(stdout, "$ contractgraph --db "+out+" tools call "); n < 5 {
		t.Errorf("tour shows %d tool calls, want at least 5", n)
	}

	// The demo's calendar is not empty from today: its samples renew
	// automatically, so a notice deadline always lies in the coming year.
	stdout, stderr, code = runContractgraph(t, "", "--db", out, "deadlines", "--within", "1y", "--kind", "notice")
	if code != 0 || !strings.Contains(stdout, "notice") || strings.HasPrefix(stdout, "0 deadlines") {
		t.Errorf("deadlines on the demo database: exit %d, %s\n%s", code, stderr, stdout)
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

// TestDemoNextSteps runs, in the demo's directory, every command the demo
// prints under "Next steps" and in its tour, as printed (the shell words
// split as a POSIX shell would): each must work. ask needs a model key,
// which the step says; without one it must fail only for that. serve is
// given a free port instead of 8080, which another program may hold.
func TestDemoNextSteps(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "")
	t.Setenv("OPENAI_BASE_URL", "")
	t.Setenv("CONTRACTGRAPH_MODEL", "")
	t.Setenv("CONTRACTGRAPH_DB", "")
	t.Chdir(t.TempDir())
	stdout, stderr, code := runContractgraph(t, "", "demo", "--contracts", "50")
	if code != 0 {
		t.Fatalf("demo: exit %d: %s", code, stderr)
	}
	if !strings.Contains(stderr, "Building the demo graph in contractgraph-demo.db") {
		t.Errorf("demo does not say what it is building: %q", stderr)
	}
	// Commands are printed as "$ contractgraph ..." in the tour and after a
	// label or an indent in the next steps.
	commandRE := regexp.MustCompile(`(?:^\s*\$ |:\s{2,}|^\s{10,})contractgraph (.*)$`)
	var steps [][]string
	for _, line := range strings.Split(stdout, "\n") {
		m := commandRE.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		words, err := shellWords(m[1])
		if err != nil {
			t.Fatalf("%q: %v", line, err)
		}
		steps = append(steps, words)
	}
	if len(steps) < 10 {
		t.Fatalf("found %d commands in the demo's output, want the tour's and the next steps:\n%s", len(steps), stdout)
	}
	for _, args := range steps {
		switch {
		case slices.Contains(args, "serve"):
			url, stop, wait := startCommand(t, false, urlRE, append(args, "--addr", "127.0.0.1:0")...)
			resp, err := http.Get(url + "api/contracts/demo-saas-kestrel")
			if err != nil || resp.StatusCode != 200 {
				t.Errorf("%q: GET a demo contract: %v %v", args, err, resp)
			}
			if resp != nil {
				resp.Body.Close()
			}
			stop()
			wait()
		case slices.Contains(args, "ask"):
			_, stderr, code := runContractgraph(t, "", args...)
			if code == 0 || !strings.Contains(stderr, "needs an API key: set OPENAI_API_KEY") {
				t.Errorf("%q without a key: exit %d, %q; want only the missing key reported", args, code, stderr)
			}
		default:
			if _, stderr, code := runContractgraph(t, "", args...); code != 0 {
				t.Errorf("%q: exit %d: %s", args, code, stderr)
			}
		}
	}
}

// shellWords splits a command line as a POSIX shell does for the quoting
// the demo prints: single quotes, double quotes and plain words.
func shellWords(s string) ([]string, error) {
	var words []string
	var cur strings.Builder
	inWord := false
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '\'' || c == '"':
			j := strings.IndexByte(s[i+1:], c)
			if j < 0 {
				return nil, fmt.Errorf("unclosed %c", c)
			}
			cur.WriteString(s[i+1 : i+1+j])
			i += j + 1
			inWord = true
		case c == ' ' || c == '\t':
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
				inWord = false
			}
		default:
			cur.WriteByte(c)
			inWord = true
		}
	}
	if inWord {
		words = append(words, cur.String())
	}
	return words, nil
}
