package main

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/contractgraph/contractgraph/internal/agent"
)

// startCommand runs the CLI in the background until the returned cancel
// is called. It returns the first line matching re from the stream the
// command announces itself on (stdout, or stderr when onStderr), and a
// function waiting for the command's exit code.
func startCommand(t *testing.T, onStderr bool, re *regexp.Regexp, args ...string) (match string, cancel func(), wait func() int) {
	t.Helper()
	pr, pw := io.Pipe()
	errFile, err := os.CreateTemp(t.TempDir(), "stderr")
	if err != nil {
		t.Fatal(err)
	}
	var stdout io.Writer = pw
	var stderr io.Writer = errFile
	if onStderr {
		stdout, stderr = io.Discard, pw
	}
	ctx, stop := context.WithCancel(context.Background())
	a := newApp(strings.NewReader(""), stdout, stderr)
	root := newRootCmd(a)
	root.SetArgs(args)
	done := make(chan int, 1)
	go func() {
		code := a.exitCode(root.ExecuteContext(ctx), errFile)
		pw.Close()
		done <- code
	}()
	found := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(pr)
		for sc.Scan() {
			if m := re.FindString(sc.Text()); m != "" {
				found <- m
				break
			}
		}
		close(found)
		io.Copy(io.Discard, pr)
	}()
	select {
	case match = <-found:
	case <-time.After(20 * time.Second):
		t.Fatal("the command did not announce itself")
	}
	if match == "" {
		stop()
		code := <-done
		b, _ := os.ReadFile(errFile.Name())
		t.Fatalf("the command ended with code %d before announcing itself: %s", code, b)
	}
	var code int
	waited := false
	wait = func() int {
		if !waited {
			code, waited = <-done, true
		}
		return code
	}
	t.Cleanup(func() { stop(); wait() })
	return match, stop, wait
}

var urlRE = regexp.MustCompile(`http://127\.0\.0\.1:\d+/`)

// TestServeAnswersWithFakeOpenAIModel is the acceptance check:
// serve on an imported store answers the API, and the chat streams an
// answer from an OpenAI-compatible model (a fake speaking the wire format).
func TestServeAnswersWithFakeOpenAIModel(t *testing.T) {
	db := fixtureDB(t)
	fake := &providerFake{t: t}
	model := httptest.NewServer(http.HandlerFunc(fake.openAI))
	defer model.Close()
	t.Setenv("OPENAI_BASE_URL", model.URL+"/v1")
	t.Setenv("OPENAI_API_KEY", "test-key")
	t.Setenv("CONTRACTGRAPH_TOKEN", "")

	url, stop, wait := startCommand(t, false, urlRE, "--db", db, "--model", "openai:any", "serve", "--addr", "127.0.0.1:0", "--upload-dir", t.TempDir())

	get := func(path string) (int, string) {
		resp, err := http.Get(url + strings.TrimPrefix(path, "/"))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	if code, body := get("/healthz"); code != 200 {
		t.Fatalf("healthz: %d %s", code, body)
	}
	if code, body := get("/chat"); code != 200 || !strings.Contains(body, "<code>openai:any</code>") {
		t.Errorf("chat page: %d, model not named", code)
	}

	// The tool route gives exactly what `tools call` prints.
	want, ids := realResult(t, db)
	cli, _, code := runContractgraph(t, "", "--db", db, "--json", "tools", "call", "contract_search", askArgs)
	if code != 0 || strings.TrimSpace(cli) != string(want) {
		t.Fatalf("tools call: %d %s", code, cli)
	}
	resp, err := http.Post(url+"api/tools/contract_search", "application/json", strings.NewReader(askArgs))
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if strings.TrimSpace(string(body)) != strings.TrimSpace(cli) {
		t.Errorf("POST /api/tools/contract_search = %s\nwant the CLI's %s", body, cli)
	}

	// The chat: SSE events from the agent over the fake OpenAI server.
	resp, err = http.Post(url+"api/ask", "application/json", strings.NewReader(`{"question":"`+askQuestion+`"}`))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		t.Fatalf("ask: %d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	var names []string
	var tokens int
	var answer *agent.Answer
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		data, ok := strings.CutPrefix(sc.Text(), "data: ")
		if !ok {
			continue
		}
		var ev agent.Event
		if err := json.Unmarshal([]byte(data), &ev); err != nil {
			t.Fatal(err)
		}
		if ev.Type == agent.EventToken {
			tokens++
			if len(names) > 0 && names[len(names)-1] == "token" {
				continue
			}
		}
		names = append(names, string(ev.Type))
		switch ev.Type {
		case agent.EventToolResult:
			var got, exp any
			json.Unmarshal(ev.ToolResult.Result, &got)
			json.Unmarshal(want, &exp)
			if diff := cmp.Diff(exp, got); diff != "" {
				t.Errorf("tool result (-tool +streamed):\n%s", diff)
			}
		case agent.EventAnswer:
			answer = ev.Answer
		}
	}
	if diff := cmp.Diff([]string{"tool_call", "tool_result", "token", "answer", "done"}, names); diff != "" {
		t.Errorf("event order (-want +got, token runs folded):\n%s", diff)
	}
	if tokens < 5 {
		t.Errorf("%d token events; the answer should stream word by word", tokens)
	}
	var cited []string
	if answer != nil {
		for _, c := range answer.Citations {
			cited = append(cited, c.ContractID)
		}
	}
	if diff := cmp.Diff(ids, cited); diff != "" {
		t.Errorf("citations (-tool result ids +cited):\n%s", diff)
	}
	if len(fake.turns) != 2 || !fake.turns[0].stream {
		t.Errorf("model turns = %+v, want two streamed requests", fake.turns)
	}

	stop()
	if code := wait(); code != 0 {
		t.Errorf("serve exited with %d after interruption, want 0", code)
	}
}

func TestServeWithoutModel(t *testing.T) {
	db := fixtureDB(t)
	t.Setenv("CONTRACTGRAPH_MODEL", "")
	t.Setenv("CONTRACTGRAPH_TOKEN", "")
	url, _, _ := startCommand(t, false, urlRE, "--db", db, "serve", "--addr", "127.0.0.1:0")
	resp, err := http.Post(url+"api/ask", "application/json", strings.NewReader(`{"question":"q"}`))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 503 || !strings.Contains(string(b), `"code":"no_model"`) || !strings.Contains(string(b), "--model") {
		t.Errorf("ask without a model: %d %s", resp.StatusCode, b)
	}
	resp, err = http.Get(url + "api/contracts?limit=2")
	if err != nil {
		t.Fatal(err)
	}
	var page struct {
		TotalCount int               `json:"total_count"`
		Examples   []json.RawMessage `json:"examples"`
	}
	json.NewDecoder(resp.Body).Decode(&page)
	resp.Body.Close()
	if resp.StatusCode != 200 || page.TotalCount == 0 || len(page.Examples) != 2 {
		t.Errorf("contracts without a model: %d, %+v", resp.StatusCode, page)
	}
}

func TestServeRefusesPublicAddressWithoutToken(t *testing.T) {
	t.Setenv("CONTRACTGRAPH_TOKEN", "")
	_, stderr, code := runContractgraph(t, "", "--db", fixtureDB(t), "serve", "--addr", "0.0.0.0:0")
	if code != 2 || !strings.Contains(stderr, "CONTRACTGRAPH_TOKEN") {
		t.Errorf("serve on 0.0.0.0 without a token: exit %d, %q", code, stderr)
	}
	_, stderr, code = runContractgraph(t, "", "--db", fixtureDB(t), "mcp", "--http", "0.0.0.0:0")
	if code != 2 || !strings.Contains(stderr, "CONTRACTGRAPH_TOKEN") {
		t.Errorf("mcp --http on 0.0.0.0 without a token: exit %d, %q", code, stderr)
	}
}

// TestDemoServes checks that demo --serve starts the web app on a free
// loopback port over the demo graph and prints its URL.
func TestDemoServes(t *testing.T) {
	t.Setenv("CONTRACTGRAPH_MODEL", "")
	out := t.TempDir() + "/demo.db"
	url, stop, wait := startCommand(t, false, regexp.MustCompile(`running on (http://127\.0\.0\.1:\d+/)`), "demo", "--out", out, "--contracts", "10", "--serve")
	url = strings.TrimPrefix(url, "running on ")
	resp, err := http.Get(url + "api/contracts/demo-saas-kestrel")
	if err != nil {
		t.Fatal(err)
	}
	var c struct {
		ID   string `json:"id"`
		Text string `json:"text"`
	}
	json.NewDecoder(resp.Body).Decode(&c)
	resp.Body.Close()
	if resp.StatusCode != 200 || c.ID != "demo-saas-kestrel" || c.Text == "" {
		t.Errorf("demo server: GET a sample contract = %d %+v", resp.StatusCode, c.ID)
	}
	stop()
	if code := wait(); code != 0 {
		t.Errorf("demo exited %d after Ctrl+C", code)
	}
}

// TestServeRefusesMissingDatabase checks that serve, like every other
// command, does not turn a mistyped --db into an empty graph, and that
// --create asks for one.
func TestServeRefusesMissingDatabase(t *testing.T) {
	t.Setenv("CONTRACTGRAPH_MODEL", "")
	db := filepath.Join(t.TempDir(), "typo.db")
	_, stderr, code := runContractgraph(t, "", "--db", db, "serve", "--addr", "127.0.0.1:0")
	if code != 2 || !strings.Contains(stderr, "no database at "+db) || !strings.Contains(stderr, "--create") {
		t.Errorf("serve on a missing database: exit %d, %q", code, stderr)
	}
	if _, err := os.Stat(db); err == nil {
		t.Errorf("serve created %s without --create", db)
	}
	url, stop, wait := startCommand(t, false, urlRE, "--db", db, "serve", "--create", "--addr", "127.0.0.1:0")
	resp, err := http.Get(url + "api/contracts")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Errorf("serve --create: GET /api/contracts = %d", resp.StatusCode)
	}
	if _, err := os.Stat(db); err != nil {
		t.Errorf("serve --create made no database: %v", err)
	}
	stop()
	wait()
}
