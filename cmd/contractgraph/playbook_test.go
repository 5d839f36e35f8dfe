package main

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/contractgraph/contractgraph/internal/playbook"
)

// playbookCUAD imports three CUAD contracts with their texts into a new
// database and returns it.
func playbookCUAD(t *testing.T) string {
	t.Helper()
	gold, texts := goldSubset(t, evalCUADFiles)
	db := filepath.Join(t.TempDir(), "cuad.db")
	if _, errOut, code := runContractgraph(t, "", "--db", db, "import", gold, "--texts", texts); code != 0 {
		t.Fatalf("import exited %d: %s", code, errOut)
	}
	return db
}

// cuadID is the stored id of a CUAD contract named in evalCUADFiles.
func cuadID(t *testing.T, db, name string) string {
	t.Helper()
	out, errOut, code := runContractgraph(t, "", "--db", db, "--json", "tools", "call", "contract_search", `{"limit":10}`)
	if code != 0 {
		t.Fatalf("contract_search exited %d: %s", code, errOut)
	}
	var res struct {
		Examples []struct {
			ContractID string `json:"contract_id"`
		} `json:"examples"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatal(err)
	}
	for _, e := range res.Examples {
		if strings.HasPrefix(e.ContractID, name[:20]) {
			return e.ContractID
		}
	}
	t.Fatalf("no stored id for %s in %s", name, out)
	return ""
}

// storedText is the contract text the clause spans refer to.
func storedText(t *testing.T, db, id string) string {
	t.Helper()
	args, _ := json.Marshal(map[string]any{"contract_id": id, "include_text": true})
	out, errOut, code := runContractgraph(t, "", "--db", db, "--json", "tools", "call", "get_contract", string(args))
	if code != 0 {
		t.Fatalf("get_contract exited %d: %s", code, errOut)
	}
	var c struct {
		Text string `json:"text"`
	}
	if err := json.Unmarshal([]byte(out), &c); err != nil || c.Text == "" {
		t.Fatalf("get_contract: %v %.300s", err, out)
	}
	return c.Text
}

// TestPlaybookCheckCUAD checks an imported CUAD contract against the
// example playbook in the three formats, without a model.
func TestPlaybookCheckCUAD(t *testing.T) {
	db := playbookCUAD(t)
	id := cuadID(t, db, evalCUADFiles[0])
	text := storedText(t, db, id)
	dir := t.TempDir()
	reports := map[string]string{}
	for _, format := range []string{"json", "md", "html"} {
		out := filepath.Join(dir, "check."+format)
		_, errOut, code := runContractgraph(t, "", "--db", db, "playbook", "check", id, "-o", out, "--viewer-url", "http://localhost:8080/")
		if code != 0 {
			t.Fatalf("playbook check -o %s exited %d: %s", out, code, errOut)
		}
		if !strings.Contains(errOut, "report written to "+out) {
			t.Errorf("stderr lacks the summary: %s", errOut)
		}
		b, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		reports[format] = string(b)
	}
	var rep playbook.Report
	if err := json.Unmarshal([]byte(reports["json"]), &rep); err != nil {
		t.Fatal(err)
	}
	pb, _ := playbook.ParseExample()
	if rep.ContractID != id || len(rep.Results) != len(pb.Entries) || rep.Judged {
		t.Fatalf("report on %q: %d results, judged %v", rep.ContractID, len(rep.Results), rep.Judged)
	}
	c := rep.Counts
	if c.MeetsStandard+c.AcceptableFallback+c.Deviation+c.RedFlag != len(pb.Entries) {
		t.Errorf("counts %+v do not add up to %d entries", c, len(pb.Entries))
	}
	present := 0
	for _, r := range rep.Results {
		if len(r.Reasons) == 0 {
			t.Errorf("%s: no reason for %s", r.EntryID, r.Verdict)
		}
		if r.Clause == nil {
			continue
		}
		present++
		if !r.Clause.Verified || text[r.Clause.Start:r.Clause.End] != r.Clause.Text {
			t.Errorf("%s: clause span %d-%d does not hold its text", r.EntryID, r.Clause.Start, r.Clause.End)
		}
		if r.Status == playbook.Present && r.Closest == nil && r.Verdict != playbook.Deviation {
			t.Errorf("%s: no applicable position but verdict %s", r.EntryID, r.Verdict)
		}
		for _, tc := range r.Terms {
			for _, tm := range tc.Found {
				if r.Clause.Text[tm.Start:tm.End] != tm.Text {
					t.Errorf("%s: term %q not at its span", r.EntryID, tm.Text)
				}
			}
		}
		link := "http://localhost:8080/contracts/"
		if !strings.Contains(reports["html"], link) || !strings.Contains(reports["md"], link) {
			t.Errorf("reports lack the clause links to the viewer")
		}
	}
	if present == 0 {
		t.Fatal("no playbook clause found in the contract")
	}
	html := reports["html"]
	for _, bad := range []string{"<script", "<link", "src="} {
		if strings.Contains(html, bad) {
			t.Errorf("HTML report is not self-contained: has %q", bad)
		}
	}
	for _, want := range []string{"<style>", "Playbook check", "deterministic (no model)", `id="entry-governing-law"`} {
		if !strings.Contains(html, want) {
			t.Errorf("HTML report lacks %q", want)
		}
	}
	for _, want := range []string{"# Playbook check: ", "| Entry | Clause type | Status | Closest position | Verdict |", "## Governing law"} {
		if !strings.Contains(reports["md"], want) {
			t.Errorf("Markdown report lacks %q", want)
		}
	}
	for _, r := range rep.Results {
		if !strings.Contains(reports["md"], r.Verdict.Label()) || !strings.Contains(html, r.Verdict.Label()) {
			t.Errorf("reports lack the verdict of %s", r.EntryID)
		}
	}

	// The same contract from an export file, without a database.
	export := filepath.Join(dir, "one.jsonl")
	one := filepath.Join(t.TempDir(), "one.db")
	gold, texts := goldSubset(t, evalCUADFiles[:1])
	runContractgraph(t, "", "--db", one, "import", gold, "--texts", texts)
	if _, errOut, code := runContractgraph(t, "", "--db", one, "export", "-o", export); code != 0 {
		t.Fatalf("export exited %d: %s", code, errOut)
	}
	out, errOut, code := runContractgraph(t, "", "--db", filepath.Join(t.TempDir(), "none.db"), "--json", "playbook", "check", export)
	if code != 0 {
		t.Fatalf("playbook check FILE exited %d: %s", code, errOut)
	}
	var fromFile playbook.Report
	if err := json.Unmarshal([]byte(out), &fromFile); err != nil {
		t.Fatal(err)
	}
	if fromFile.Counts != rep.Counts {
		t.Errorf("checked from its export: %+v, from the store: %+v", fromFile.Counts, rep.Counts)
	}
}

// fakeJudge speaks the OpenAI chat-completions wire format and answers
// every judgement request with a quote of the clause, a sentence that is
// not in the clause and a true playbook quote.
type fakeJudge struct {
	mu    sync.Mutex
	calls int
}

const inventedSentence = "The Supplier may terminate this Agreement at any time without notice."

func (f *fakeJudge) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var req oaRequest
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil || req.ResponseFormat.JSONSchema.Name != "modelJudgement" {
		http.Error(w, "unexpected request", http.StatusBadRequest)
		return
	}
	f.mu.Lock()
	f.calls++
	f.mu.Unlock()
	user := contentText(req.Messages[len(req.Messages)-1].Content)
	clause := user[strings.Index(user, "<clause>\n")+len("<clause>\n") : strings.Index(user, "\n</clause>")]
	words := strings.Fields(clause)
	standard := user[strings.Index(user, "Standard: ")+len("Standard: "):]
	swords := strings.Fields(standard)
	content, _ := json.Marshal(map[string]any{
		"assessment":      "The clause departs from the team's position.",
		"clause_quotes":   []string{strings.Join(words[:min(8, len(words))], " "), inventedSentence},
		"playbook_quotes": []string{strings.Join(swords[:min(6, len(swords))], " ")},
		"recommendation":  "Ask for the standard wording.",
	})
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(map[string]any{
		"id": "chatcmpl-1", "object": "chat.completion", "created": 1, "model": "fake",
		"choices": []map[string]any{{"index": 0, "message": map[string]any{"role": "assistant", "content": string(content)}, "finish_reason": "stop"}},
		"usage":   map[string]int{"prompt_tokens": 40, "completion_tokens": 10, "total_tokens": 50},
	})
}

// TestPlaybookCheckJudgement: with a fake model whose judgement quotes a
// sentence that is not in the clause, that quote is removed and listed in
// every format; the clause's own words are kept.
func TestPlaybookCheckJudgement(t *testing.T) {
	db := playbookCUAD(t)
	id := cuadID(t, db, evalCUADFiles[0])
	fake := &fakeJudge{}
	srv := httptest.NewServer(streamingAdapter{fake})
	defer srv.Close()
	t.Setenv("OPENAI_BASE_URL", srv.URL+"/v1")
	t.Setenv("OPENAI_API_KEY", "test-key")

	dir := t.TempDir()
	reports := map[string]string{}
	for _, format := range []string{"json", "md", "html"} {
		out := filepath.Join(dir, "judged."+format)
		_, errOut, code := runContractgraph(t, "", "--db", db, "--model", "openai:fake-model", "playbook", "check", id, "--format", format, "-o", out)
		if code != 0 {
			t.Fatalf("playbook check --format %s exited %d: %s", format, code, errOut)
		}
		b, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		reports[format] = string(b)
	}
	var rep playbook.Report
	if err := json.Unmarshal([]byte(reports["json"]), &rep); err != nil {
		t.Fatal(err)
	}
	judged := 0
	for _, r := range rep.Results {
		if !playbook.Judged(&r) {
			if r.Judgement != nil {
				t.Errorf("%s (%s) was judged", r.EntryID, r.Verdict)
			}
			continue
		}
		judged++
		j := r.Judgement
		if j == nil {
			t.Fatalf("%s (%s) has no judgement", r.EntryID, r.Verdict)
		}
		if len(j.ClauseQuotes) != 1 || r.Clause.Text[j.ClauseQuotes[0].Start:j.ClauseQuotes[0].End] == "" {
			t.Errorf("%s: clause quotes kept %+v", r.EntryID, j.ClauseQuotes)
		}
		for _, q := range j.ClauseQuotes {
			if q.Text == inventedSentence {
				t.Errorf("%s: the invented quote was kept", r.EntryID)
			}
		}
		if len(j.PlaybookQuotes) != 1 {
			t.Errorf("%s: playbook quotes kept %+v", r.EntryID, j.PlaybookQuotes)
		}
	}
	if judged == 0 {
		t.Fatal("nothing was judged; the contract should deviate somewhere")
	}
	if fake.calls != 3*judged {
		t.Errorf("%d model calls for %d judgements in 3 reports", fake.calls, judged)
	}
	removed := 0
	for _, q := range rep.RemovedQuotes {
		if q.Quote == inventedSentence && q.Source == playbook.SourceClause && q.Reason == "quote does not occur in the contract's clause" {
			removed++
		}
	}
	if removed != judged || len(rep.RemovedQuotes) != judged {
		t.Errorf("removed quotes %+v, want the invented sentence once per judgement (%d)", rep.RemovedQuotes, judged)
	}
	for _, format := range []string{"md", "html"} {
		for _, want := range []string{"Removed quotes", inventedSentence, "quote does not occur in the contract", "judged by openai:fake-model"} {
			if !strings.Contains(reports[format], want) {
				t.Errorf("%s report lacks %q", format, want)
			}
		}
	}
	if rep.Usage.InputTokens != 40*judged {
		t.Errorf("input tokens %d, want %d", rep.Usage.InputTokens, 40*judged)
	}

	// --no-model skips the judgement even with a model configured.
	out, errOut, code := runContractgraph(t, "", "--db", db, "--model", "openai:fake-model", "--json", "playbook", "check", id, "--no-model")
	if code != 0 || !strings.Contains(out, `"judged": false`) {
		t.Errorf("--no-model: exit %d, %s %.300s", code, errOut, out)
	}
}

func TestPlaybookUsageErrors(t *testing.T) {
	db := fixtureDB(t)
	bad := filepath.Join(t.TempDir(), "bad.yaml")
	os.WriteFile(bad, []byte("name: Bad\nentries:\n  - id: cap\n    clause_type: Liability Cap\n    requirement: required\n    standard: x\n"), 0o644)
	notRecords := filepath.Join(t.TempDir(), "contract.txt")
	os.WriteFile(notRecords, []byte("This Agreement is made between A and B."), 0o644)
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"invalid playbook", []string{"playbook", "check", "c01", "--playbook", bad}, bad + `:4: entry 1 ("cap"): clause_type: "Liability Cap" is not a CUAD clause category`},
		{"missing playbook", []string{"playbook", "check", "c01", "--playbook", "nope.yaml"}, "--playbook: open nope.yaml"},
		{"unknown contract", []string{"playbook", "check", "no-such-contract"}, `"no-such-contract" is neither a file nor a stored contract id`},
		{"plain document", []string{"playbook", "check", notRecords}, "is not a contract record file"},
		{"bad format", []string{"playbook", "check", "c01", "--format", "pdf"}, `unknown --format "pdf"`},
		{"no argument", []string{"playbook", "check"}, "accepts 1 arg"},
		{"serve with an invalid playbook", []string{"serve", "--addr", "127.0.0.1:0", "--playbook", bad}, bad + ":4: entry 1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, errOut, code := runContractgraph(t, "", append([]string{"--db", db}, tt.args...)...)
			if code != 2 || !strings.Contains(errOut, tt.want) {
				t.Errorf("exit %d, stderr %q; want 2 and %q", code, errOut, tt.want)
			}
		})
	}
}

// TestPlaybookExample prints the example, which checks a contract when
// passed back with --playbook.
func TestPlaybookExample(t *testing.T) {
	out, _, code := runContractgraph(t, "", "playbook", "example")
	if code != 0 || !strings.Contains(out, "entries:") {
		t.Fatalf("playbook example: exit %d, %.200s", code, out)
	}
	path := filepath.Join(t.TempDir(), "commercial.yaml")
	if err := os.WriteFile(path, []byte(out), 0o644); err != nil {
		t.Fatal(err)
	}
	db := fixtureDB(t)
	res, errOut, code := runContractgraph(t, "", "--db", db, "--json", "playbook", "check", "c01", "--playbook", path)
	if code != 0 {
		t.Fatalf("check with the printed example: exit %d: %s", code, errOut)
	}
	var rep playbook.Report
	if err := json.Unmarshal([]byte(res), &rep); err != nil || rep.PlaybookSource != path || len(rep.Results) == 0 {
		t.Errorf("report: %v %+v", err, rep)
	}
}
