package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/contractgraph/contractgraph/internal/eval"
)

// evalFake is an OpenAI-compatible server (Chat Completions, not
// streamed) playing three models: "good" calls each question's expected
// tool and reports its result, "sloppy" calls contract_search without
// filters for every question, and "judge" grades answers, with broken JSON
// for questions about Distributor contracts.
type evalFake struct {
	t        *testing.T
	expected map[string]eval.Expected // question text → expected call
	mu       sync.Mutex
	requests map[string]int // model → requests
}

func (f *evalFake) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != "/v1/chat/completions" {
		http.NotFound(w, r)
		return
	}
	raw, _ := io.ReadAll(r.Body)
	var body struct {
		Model    string `json:"model"`
		Stream   bool   `json:"stream"`
		Messages []struct {
			Role    string `json:"role"`
			Content string `json:"content"`
		} `json:"messages"`
		ResponseFormat json.RawMessage `json:"response_format"`
		Temperature    *float64        `json:"temperature"`
	}
	if err := json.Unmarshal(raw, &body); err != nil {
		f.t.Errorf("request: %v: %s", err, raw)
	}
	if body.Temperature == nil || *body.Temperature != 0 {
		f.t.Errorf("model %s called with temperature %v, want 0", body.Model, body.Temperature)
	}
	f.mu.Lock()
	f.requests[body.Model]++
	f.mu.Unlock()
	var question string
	var results []string
	for _, m := range body.Messages {
		switch m.Role {
		case "user":
			question = m.Content
		case "tool":
			results = append(results, m.Content)
		}
	}
	msg := map[string]any{"role": "assistant"}
	switch {
	case body.Model == "judge":
		if body.ResponseFormat == nil {
			f.t.Error("judge call without a response format")
		}
		if strings.Contains(question, "Distributor") || strings.Contains(question, "not valid for the required JSON schema") {
			msg["content"] = "The answer looks fine to me."
		} else {
			msg["content"] = `{"reason":"Matches the tool result.","correctness":5,"faithfulness":5,"satisfactory":true}`
		}
	case len(results) == 0:
		exp, ok := f.expected[question]
		if !ok {
			f.t.Errorf("unexpected question %q", question)
		}
		args := string(exp.Args)
		if body.Model == "sloppy" {
			exp.Tool, args = "contract_search", "{}"
		}
		msg["tool_calls"] = []any{map[string]any{"id": "call_1", "type": "function", "function": map[string]any{"name": exp.Tool, "arguments": args}}}
	default:
		msg["content"] = reportResult(f.t, results[len(results)-1])
	}
	usage := map[string]any{"prompt_tokens": 100, "completion_tokens": 20, "total_tokens": 120}
	if !body.Stream {
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{"id": "x", "object": "chat.completion", "created": 1, "model": body.Model,
			"choices": []any{map[string]any{"index": 0, "message": msg, "finish_reason": "stop"}}, "usage": usage})
		return
	}
	// Streamed (the judge's structured calls may stream): the whole
	// message as one delta, then the usage.
	w.Header().Set("Content-Type", "text/event-stream")
	chunk := func(v any) {
		b, _ := json.Marshal(v)
		fmt.Fprintf(w, "data: %s\n\n", b)
	}
	if calls, ok := msg["tool_calls"].([]any); ok {
		for i, c := range calls {
			c.(map[string]any)["index"] = i
		}
	}
	chunk(map[string]any{"id": "x", "object": "chat.completion.chunk", "created": 1, "model": body.Model,
		"choices": []any{map[string]any{"index": 0, "delta": msg, "finish_reason": nil}}})
	chunk(map[string]any{"id": "x", "object": "chat.completion.chunk", "created": 1, "model": body.Model, "choices": []any{}, "usage": usage})
	fmt.Fprint(w, "data: [DONE]\n\n")
}

// reportResult states a tool result as a model would: the count or the
// top group, and the example ids as sources.
func reportResult(t *testing.T, result string) string {
	var r struct {
		TotalCount *int `json:"total_count"`
		Examples   []struct {
			ContractID string `json:"contract_id"`
		} `json:"examples"`
		Groups []struct {
			Key   string  `json:"key"`
			Value float64 `json:"value"`
		} `json:"groups"`
	}
	if err := json.Unmarshal([]byte(result), &r); err != nil {
		t.Errorf("tool result %q: %v", result, err)
	}
	var ids []string
	for _, e := range r.Examples {
		ids = append(ids, e.ContractID)
	}
	sources := "none"
	if len(ids) > 0 {
		sources = strings.Join(ids, ", ")
	}
	if r.TotalCount != nil {
		return fmt.Sprintf("%d contracts match.\nSources: %s", *r.TotalCount, sources)
	}
	if len(r.Groups) > 0 {
		return fmt.Sprintf("%s leads with %s.\nSources: %s", r.Groups[0].Key, strconv.FormatFloat(r.Groups[0].Value, 'f', -1, 64), sources)
	}
	return "Nothing found.\nSources: none"
}

func TestEvalAnswersEndToEnd(t *testing.T) {
	shared := sharedData(t)
	db := referenceDB(t, shared)
	questions := filepath.Join(shared, "questions", "dev_questions.jsonl")
	qs, err := eval.ReadQuestionFile(questions)
	if err != nil {
		t.Fatal(err)
	}
	fake := &evalFake{t: t, expected: map[string]eval.Expected{}, requests: map[string]int{}}
	for _, q := range qs {
		fake.expected[q.Question] = *q.Expected
	}
	srv := httptest.NewServer(fake)
	defer srv.Close()
	t.Setenv("OPENAI_BASE_URL", srv.URL+"/v1")
	t.Setenv("OPENAI_API_KEY", "")
	out := filepath.Join(t.TempDir(), "reports")

	stdout, stderr, code := runContractgraph(t, "", "--db", db, "eval", "answers", "--questions", questions, "--limit", "3", "--no-stream",
		"--model", "openai:good", "--model", "openai:sloppy", "--judge", "openai:judge", "-o", out, "--min-score", "0.5")
	if code != 1 {
		t.Fatalf("exit %d, want 1 (sloppy is below --min-score); stderr:\n%s", code, stderr)
	}
	if !strings.Contains(stderr, "contractgraph: below --min-score 0.5: openai:sloppy scored 0.000\n") || strings.Contains(stderr, "openai:good scored") {
		t.Errorf("stderr should name the model below the threshold:\n%s", stderr)
	}
	// Progress from the first question to the last, for each model.
	for _, want := range []string{
		"eval answers: 3 questions × 2 model(s) from " + questions + "; reports in " + out + "\n",
		"[1/3] openai:good d01: How many Distributor contracts ended in 2005?\n",
		"[1/3] openai:good d01: pass (judge failed) · 2 model calls · ",
		"[3/3] openai:good d03: pass · 2 model calls · ",
		"[3/3] openai:sloppy d03: fail (tool result wrong, figures missing) · ",
	} {
		if !strings.Contains(stderr, want) {
			t.Errorf("progress lacks %q:\n%s", want, stderr)
		}
	}
	for _, want := range []string{"Answer evaluation of 3 questions from " + questions,
		"openai:good ", "3/3 (100.0%)", "openai:sloppy ", "0/3 (0.0%)", "2/2 (100.0%)", // the judge graded two of good's answers
		"Reports in " + out + ":\n  " + filepath.Join(out, "answers.html")} {
		if !strings.Contains(stdout, want) {
			t.Errorf("summary lacks %q:\n%s", want, stdout)
		}
	}
	// 2 models × 3 questions × 2 calls; the judge: 3 + 3 answers plus one
	// repair round for each broken reply.
	if fake.requests["good"] != 6 || fake.requests["sloppy"] != 6 || fake.requests["judge"] != 8 {
		t.Errorf("requests per model: %v", fake.requests)
	}

	var good eval.Run
	raw, err := os.ReadFile(filepath.Join(out, "answers-openai-good.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, &good); err != nil {
		t.Fatal(err)
	}
	if good.Summary.Passed != 3 || good.Summary.JudgeErrors != 1 || good.Questions != questions || len(good.Results) != 3 {
		t.Errorf("good run summary %+v", good.Summary)
	}
	d03 := good.Results[2]
	if d03.ID != "d03" || !strings.HasPrefix(d03.Answer, "31 contracts match.") || d03.FiguresOK == nil || !*d03.FiguresOK || d03.Judge == nil {
		t.Errorf("d03: answer %q, figures %v, judge %+v (%s)", d03.Answer, d03.Figures, d03.Judge, d03.JudgeError)
	}
	for _, f := range []string{"answers-openai-sloppy.json", "answers.md", "answers.html"} {
		if fi, err := os.Stat(filepath.Join(out, f)); err != nil || fi.Size() == 0 {
			t.Errorf("report %s: %v", f, err)
		}
	}
	html, _ := os.ReadFile(filepath.Join(out, "answers.html"))
	if !strings.Contains(string(html), "openai:sloppy") || !strings.Contains(string(html), "<svg") {
		t.Error("the HTML report lacks the sloppy model or the chart")
	}

	// --json prints the summary for machines; without --min-score the
	// exit status is 0 even for a weak model.
	stdout, stderr, code = runContractgraph(t, "", "--db", db, "--json", "eval", "answers", "--questions", questions, "--limit", "1", "--no-stream",
		"--model", "openai:sloppy", "-o", out)
	if code != 0 {
		t.Fatalf("--json: exit %d: %s", code, stderr)
	}
	var summary evalAnswersOutput
	if err := json.Unmarshal([]byte(stdout), &summary); err != nil {
		t.Fatalf("--json output: %v\n%s", err, stdout)
	}
	if summary.Dir != out || len(summary.Runs) != 1 || summary.Runs[0].Summary.Questions != 1 || summary.Runs[0].Summary.ToolCorrect != 0 || summary.Files.HTML == "" {
		t.Errorf("--json summary %+v", summary)
	}

	// --resume reuses good's three answers in out and asks only the fourth
	// question: one question, two model calls.
	before := fake.requests["good"]
	_, stderr, code = runContractgraph(t, "", "--db", db, "eval", "answers", "--questions", questions, "--limit", "4", "--no-stream",
		"--model", "openai:good", "-o", out, "--resume")
	if code != 0 {
		t.Fatalf("--resume: exit %d: %s", code, stderr)
	}
	if n := fake.requests["good"] - before; n != 2 {
		t.Errorf("--resume made %d model calls, want 2 (the fourth question only)", n)
	}
	raw, err = os.ReadFile(filepath.Join(out, "answers-openai-good.json"))
	if err != nil {
		t.Fatal(err)
	}
	var resumed eval.Run
	if err := json.Unmarshal(raw, &resumed); err != nil {
		t.Fatal(err)
	}
	if len(resumed.Results) != 4 || resumed.Summary.Resumed != 3 || !resumed.Results[0].Resumed || resumed.Results[3].Resumed || resumed.Summary.Passed != 4 {
		t.Errorf("resumed run: %d results, summary %+v", len(resumed.Results), resumed.Summary)
	}
	md, _ := os.ReadFile(filepath.Join(out, "answers.md"))
	if !strings.Contains(string(md), "3 of the 4 results are from an earlier run") {
		t.Errorf("answers.md does not say which results were resumed:\n%s", md)
	}
	// Another seed is not the same run.
	_, stderr, code = runContractgraph(t, "", "--db", db, "eval", "answers", "--questions", questions, "--limit", "4", "--no-stream",
		"--model", "openai:good", "-o", out, "--resume", "--seed", "7")
	if code == 0 || !strings.Contains(stderr, "was run with --seed 1, not 7") {
		t.Errorf("--resume with another seed: exit %d: %s", code, stderr)
	}
}

func TestEvalAnswersUnreachableModel(t *testing.T) {
	db := fixtureDB(t)
	closed := httptest.NewServer(http.NotFoundHandler())
	url := closed.URL
	closed.Close()
	t.Setenv("OPENAI_BASE_URL", url+"/v1")
	dir := t.TempDir()
	questions := filepath.Join(dir, "q.csv")
	os.WriteFile(questions, []byte("id,question\na,How many contracts?\nb,Which parties?\n"), 0o644)
	stdout, stderr, code := runContractgraph(t, "", "--db", db, "eval", "answers", "--questions", questions, "--model", "openai:local", "-o", filepath.Join(dir, "out"))
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	sentence := "contractgraph: openai:local: cannot reach the openai server at " + url + "/v1: start it or set OPENAI_BASE_URL to where it runs (2 of 2 questions not answered)\n"
	if !strings.Contains(stderr, sentence) || strings.Count(stderr, "contractgraph:") != 1 {
		t.Errorf("stderr should say once that the model cannot be reached:\n%s", stderr)
	}
	if !strings.Contains(stdout, "0/2 (0.0%)") {
		t.Errorf("summary:\n%s", stdout)
	}
	md, _ := os.ReadFile(filepath.Join(dir, "out", "answers.md"))
	if !strings.Contains(string(md), "fail: error: not run: cannot reach the openai server") {
		t.Errorf("answers.md does not record the error per question:\n%s", md)
	}
}

func TestEvalAnswersUsageErrors(t *testing.T) {
	db := fixtureDB(t)
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	good := write("good.jsonl", `{"id":"a","question":"How many?"}`+"\n")
	badLine := write("bad.jsonl", `{"id":"a","question":"How many?"}`+"\n"+`{"id":"b","question":"Which?","expected":{"tool":"contract_search","args":"none"}}`+"\n")
	badCall := write("badcall.csv", "id,question,expected\n"+`c,Which?,"{""tool"":""contract_search"",""args"":{""contract_type"":""Lease""}}"`+"\n")
	t.Setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")
	t.Setenv("CONTRACTGRAPH_MODEL", "")
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"no questions", []string{"--model", "openai:x"}, "--questions is required"},
		{"missing file", []string{"--questions", filepath.Join(dir, "none.jsonl"), "--model", "openai:x"}, "none.jsonl: no such file"},
		{"bad line", []string{"--questions", badLine, "--model", "openai:x"}, `bad.jsonl: line 2 (id "b"): field expected.args: expected a JSON object of tool arguments, got a string`},
		{"bad expected call", []string{"--questions", badCall, "--model", "openai:x"}, `badcall.csv: line 2 (id "c"): field expected.args: the expected call fails: contract_type: unknown contract type "Lease"`},
		{"no model", []string{"--questions", good}, "no model configured: pass --model provider:model"},
		{"bad judge", []string{"--questions", good, "--model", "openai:x", "--judge", "gpt-4o"}, "--judge: "},
		{"min-score out of range", []string{"--questions", good, "--model", "openai:x", "--min-score", "50"}, "--min-score 50: give a share between 0 and 1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args := append([]string{"--db", db, "eval", "answers", "-o", filepath.Join(dir, "out-"+tt.name)}, tt.args...)
			_, stderr, code := runContractgraph(t, "", args...)
			if code != 2 || !strings.Contains(stderr, tt.want) || strings.Count(strings.TrimSpace(stderr), "\n") != 0 {
				t.Errorf("exit %d, stderr %q; want exit 2 and one line containing %q", code, stderr, tt.want)
			}
			if _, err := os.Stat(filepath.Join(dir, "out-"+tt.name)); err == nil {
				t.Error("a failed start wrote a report directory")
			}
		})
	}
}
