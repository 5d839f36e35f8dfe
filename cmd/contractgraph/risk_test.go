package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/contractgraph/contractgraph/internal/contract"
	"github.com/contractgraph/contractgraph/internal/graph"
	"github.com/contractgraph/contractgraph/internal/risk"
)

// fakeRiskServer speaks the OpenAI chat-completions wire format and plays
// every stage of the risk review from what each request contains: the
// response format names the stage; the analyst first calls statute_search,
// then quotes the contract and the statutes the search returned, and in
// its first draft also cites a statute that does not exist, which the
// reviewer's check catches and the revision drops.
type fakeRiskServer struct {
	mu     sync.Mutex
	stages []string
}

type oaRequest struct {
	Messages []struct {
		Role       string `json:"role"`
		Content    any    `json:"content"`
		ToolCallID string `json:"tool_call_id"`
	} `json:"messages"`
	Tools []struct {
		Function struct {
			Name string `json:"name"`
		} `json:"function"`
	} `json:"tools"`
	ResponseFormat struct {
		JSONSchema struct {
			Name string `json:"name"`
		} `json:"json_schema"`
	} `json:"response_format"`
}

func contentText(c any) string {
	switch v := c.(type) {
	case string:
		return v
	case []any:
		var b strings.Builder
		for _, part := range v {
			if m, ok := part.(map[string]any); ok {
				if s, ok := m["text"].(string); ok {
					b.WriteString(s)
				}
			}
		}
		return b.String()
	}
	return ""
}

func (f *fakeRiskServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || !strings.HasSuffix(r.URL.Path, "/chat/completions") {
		http.Error(w, "not found", http.StatusNotFound)
		return
	}
	var req oaRequest
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	stage := req.ResponseFormat.JSONSchema.Name
	if stage == "" && len(req.Tools) > 0 {
		stage = "AnalystTools" // the analyst's tool loop sends tools and no schema
	}
	f.mu.Lock()
	f.stages = append(f.stages, stage)
	f.mu.Unlock()
	var content string
	var toolCalls []map[string]any
	switch stage {
	case "RuleSet":
		content = `{"contract_type":"Commercial Agreement","rules":[
			{"id":"R1","title":"Dispute resolution","severity":"High","description":"How disputes are resolved and whether arbitration is binding.","keywords":["arbitration","dispute","court"]},
			{"id":"R2","title":"Termination","severity":"Medium","description":"Rights to terminate and their notice.","keywords":["terminate","termination","notice"]}]}`
	case "Analysis": // batch mode: one passage, statutes inline, schema enforced
		content = batchAnalysis(contentText(req.Messages[1].Content))
	case "AnalystTools":
		var toolResult string
		for _, m := range req.Messages {
			if m.Role == "tool" {
				toolResult = contentText(m.Content)
			}
		}
		if toolResult == "" {
			hasSearch := slices.ContainsFunc(req.Tools, func(t struct {
				Function struct {
					Name string `json:"name"`
				} `json:"function"`
			}) bool {
				return t.Function.Name == "statute_search"
			})
			if !hasSearch {
				http.Error(w, "analyst request without statute_search", http.StatusBadRequest)
				return
			}
			toolCalls = []map[string]any{{"id": "call_1", "type": "function",
				"function": map[string]any{"name": "statute_search", "arguments": `{"query":"arbitration agreement valid irrevocable enforceable","limit":3}`}}}
			break
		}
		var res struct {
			Statutes []struct {
				StatuteID string `json:"statute_id"`
				Text      string `json:"text"`
			} `json:"statutes"`
		}
		if err := json.Unmarshal([]byte(toolResult), &res); err != nil || len(res.Statutes) == 0 {
			http.Error(w, "unexpected tool result: "+toolResult, http.StatusBadRequest)
			return
		}
		user := contentText(req.Messages[1].Content)
		clause := firstSentence(user[strings.Index(user, "<contract>")+len("<contract>"):])
		st := res.Statutes[0]
		words := strings.Fields(st.Text)
		quote := strings.Join(words[:min(12, len(words))], " ")
		citations := []map[string]string{{"statute_id": st.StatuteID, "quote": quote}}
		if !strings.Contains(user, "Revise it") {
			citations = append(citations, map[string]string{"statute_id": "/us/usc/t9/s999", "quote": "an arbitration clause may be revoked at will"})
		}
		analysis := map[string]any{"notes": "", "items": []map[string]any{{
			"rule_id": "R1", "clause_quote": clause, "clause_start": 0, "clause_end": 0, "risk_level": "High",
			"reasoning": "The clause shapes how disputes are resolved.", "affected_party": "Both parties",
			"citations":   citations,
			"legal_basis": "", "recommendation": "Confirm the forum and the enforceability of the clause.",
		}}}
		b, _ := json.Marshal(analysis)
		content = string(b)
	case "ReviewDecision":
		content = `{"decision":"approve","problems":[],"items":[]}`
	case "Summary":
		content = `{"core_issues":["Dispute resolution terms need attention."],"conclusion":"Review the dispute clause before signing."}`
	default:
		http.Error(w, "unexpected response format "+stage, http.StatusBadRequest)
		return
	}
	msg := map[string]any{"role": "assistant", "content": content}
	finish := "stop"
	if toolCalls != nil {
		msg = map[string]any{"role": "assistant", "content": nil, "tool_calls": toolCalls}
		finish = "tool_calls"
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(map[string]any{
		"id": "chatcmpl-1", "object": "chat.completion", "created": 1, "model": "fake",
		"choices": []map[string]any{{"index": 0, "message": msg, "finish_reason": finish}},
		"usage":   map[string]int{"prompt_tokens": 50, "completion_tokens": 5, "total_tokens": 55},
	})
}

var statuteBlockRE = regexp.MustCompile(`(?s)<statute id="([^"]+)"[^>]*>\n(.*?)\n</statute>`)

// batchAnalysis answers a batch-mode passage prompt: the first rule listed,
// the passage's first sentence, citing the first statute listed in the prompt (if any) by the
// first words of its text.
func batchAnalysis(user string) string {
	start, end := strings.Index(user, "<passage>"), strings.Index(user, "</passage>")
	if start < 0 || end < start {
		return `{"items":[],"notes":"no passage"}`
	}
	citations := []map[string]string{}
	if m := statuteBlockRE.FindStringSubmatch(user); m != nil {
		words := strings.Fields(m[2])
		citations = append(citations, map[string]string{"statute_id": m[1], "quote": strings.Join(words[:min(10, len(words))], " ")})
	}
	rule := "R1"
	if m := regexp.MustCompile(`(?m)^- (R\d+) \[`).FindStringSubmatch(user); m != nil {
		rule = m[1]
	}
	item := map[string]any{
		"rule_id": rule, "clause_quote": firstSentence(user[start+len("<passage>") : end]), "clause_start": 0, "clause_end": 0,
		"risk_level": "Medium", "reasoning": "The passage bears on the rule.", "affected_party": "Both parties",
		"citations": citations, "legal_basis": "", "recommendation": "Review the passage.",
	}
	b, _ := json.Marshal(map[string]any{"items": []any{item}, "notes": ""})
	return string(b)
}

var sentenceRE = regexp.MustCompile(`[A-Z][^.;:\n]{40,300}[.;]`)

// firstSentence returns the first long sentence of text, verbatim.
func firstSentence(text string) string {
	if m := sentenceRE.FindString(text); m != "" {
		return m
	}
	return strings.TrimSpace(text[:min(200, len(text))])
}

// cuadContract reads one CUAD contract from the shared data.
func cuadContract(t *testing.T) *contract.Contract {
	t.Helper()
	dir := filepath.Join(sharedData(t), "data", "cuad", "full_contract_txt")
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Skipf("CUAD texts not available: %v", err)
	}
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".txt") {
			continue
		}
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if len(b) > 20000 {
			continue // a short one keeps the test quick
		}
		return &contract.Contract{ID: strings.TrimSuffix(e.Name(), ".txt"), Title: strings.TrimSuffix(e.Name(), ".txt"), Text: string(b)}
	}
	t.Skip("no short CUAD contract found")
	return nil
}

// loadForReview imports the shared statutes and one CUAD contract, which
// it returns, into the store flags select and open opens.
func loadForReview(t *testing.T, flags []string, open func() graph.Store) *contract.Contract {
	t.Helper()
	importStatutes(t, flags)
	c := cuadContract(t)
	store := open()
	defer store.Close()
	outcomes, err := store.PutContracts(context.Background(), []*contract.Contract{c})
	if err != nil || outcomes[0].Err != nil {
		t.Fatalf("put contract: %v %v", err, outcomes)
	}
	return c
}

// openStatutes opens the store open opens as a statute store; t closes it.
func openStatutes(t *testing.T, open func() graph.Store) graph.StatuteStore {
	t.Helper()
	store := open()
	t.Cleanup(func() { store.Close() })
	ss, ok := store.(graph.StatuteStore)
	if !ok {
		t.Fatalf("%T keeps no statutes", store)
	}
	return ss
}

// TestRiskEndToEnd reviews a CUAD contract on every backend with a scripted
// model and checks that every citation in the report resolves to a stored
// statute that holds its quote.
func TestRiskEndToEnd(t *testing.T) {
	forEachBackend(t, testRiskEndToEnd)
}

func testRiskEndToEnd(t *testing.T, flags []string, open func() graph.Store) {
	c := loadForReview(t, flags, open)

	fake := &fakeRiskServer{}
	srv := httptest.NewServer(streamingAdapter{fake})
	defer srv.Close()
	t.Setenv("OPENAI_BASE_URL", srv.URL+"/v1")
	t.Setenv("OPENAI_API_KEY", "test-key")

	dir := t.TempDir()
	reports := map[string]string{}
	for _, format := range []string{"json", "md", "html"} {
		out := filepath.Join(dir, "report."+format)
		_, errOut, code := runOn(t, flags, "--model", "openai:fake-model", "risk", c.ID, "--jurisdiction", "us", "--format", format, "-o", out,
			"--viewer-url", "http://localhost:8080/")
		if code != 0 {
			t.Fatalf("risk --format %s exited %d: %s", format, code, errOut)
		}
		b, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		reports[format] = string(b)
	}
	wantStages := []string{"RuleSet", "AnalystTools", "AnalystTools", "ReviewDecision", "AnalystTools", "AnalystTools", "ReviewDecision", "Summary"}
	if got := fake.stages[:len(wantStages)]; !slices.Equal(got, wantStages) {
		t.Errorf("model calls %v, want %v per report", got, wantStages)
	}

	var rep risk.Report
	if err := json.Unmarshal([]byte(reports["json"]), &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Partial || !rep.CitationsChecked || len(rep.Items) != 1 || rep.Summary == nil {
		t.Fatalf("report: partial=%v checked=%v items=%d notices=%q", rep.Partial, rep.CitationsChecked, len(rep.Items), rep.Notices)
	}
	store := openStatutes(t, open)
	cited := 0
	for _, it := range rep.Items {
		if got := c.Text[it.ClauseStart:it.ClauseEnd]; strings.Join(strings.Fields(got), " ") != strings.Join(strings.Fields(it.ClauseQuote), " ") {
			t.Errorf("item %d span holds %q, not its clause quote", it.Number, got)
		}
		for _, cit := range it.Citations {
			cited++
			st, err := store.GetStatute(context.Background(), cit.StatuteID)
			if err != nil {
				t.Fatalf("citation %s does not resolve: %v", cit.StatuteID, err)
			}
			if !strings.Contains(strings.Join(strings.Fields(st.Text), " "), strings.Join(strings.Fields(cit.Quote), " ")) {
				t.Errorf("quote %q is not in %s", cit.Quote, cit.StatuteID)
			}
			if cit.URL != st.URL || !strings.HasPrefix(cit.URL, "https://uscode.house.gov/") {
				t.Errorf("citation url %q", cit.URL)
			}
			for _, format := range []string{"md", "html"} {
				if !strings.Contains(reports[format], cit.Citation) || !strings.Contains(reports[format], strings.ReplaceAll(cit.URL, "&", amp(format))) {
					t.Errorf("%s report lacks citation %s with its link", format, cit.Citation)
				}
			}
		}
	}
	if cited == 0 {
		t.Error("no citation survived; the fake analyst cites a statute statute_search returned")
	}
	wantProblem := `item 1 (rule R1): citation /us/usc/t9/s999 "an arbitration clause may be revoked at will": statute not found`
	if len(rep.ReviewTrail) != 2 || !slices.Contains(rep.ReviewTrail[0].Problems, wantProblem) || rep.ReviewTrail[1].Decision != "approve" {
		t.Errorf("review trail = %+v", rep.ReviewTrail)
	}
	if want := 8 * 50; rep.Usage.InputTokens != want {
		t.Errorf("input tokens = %d, want %d", rep.Usage.InputTokens, want)
	}
	html := reports["html"]
	for _, bad := range []string{"<script", "<link", `href="/us/usc/t9/s999"`} {
		if strings.Contains(html, bad) {
			t.Errorf("HTML report contains %q", bad)
		}
	}
	viewer := fmt.Sprintf(`href="http://localhost:8080/contracts/%s?span=%d-%d#cited"`, strings.ReplaceAll(url.PathEscape(c.ID), "&", "&amp;"), rep.Items[0].ClauseStart, rep.Items[0].ClauseEnd)
	for _, want := range []string{viewer, "<style>", `id="clause-1"`, `href="#clause-1"`, "statute not found", "Review trail", "Round 2: approve", "Token usage"} {
		if !strings.Contains(html, want) {
			t.Errorf("HTML report lacks %q", want)
		}
	}
	for _, want := range []string{"## Executive summary", "## Removed citations", "statute not found", "](#clause-1)", "400 input tokens"} {
		if !strings.Contains(reports["md"], want) {
			t.Errorf("Markdown report lacks %q", want)
		}
	}
}

func TestRiskBatchSeveralContracts(t *testing.T) {
	forEachBackend(t, testRiskBatchSeveralContracts)
}

func testRiskBatchSeveralContracts(t *testing.T, flags []string, open func() graph.Store) {
	c := loadForReview(t, flags, open)
	file := filepath.Join(t.TempDir(), "other-contract.txt")
	if err := os.WriteFile(file, []byte(c.Text), 0o600); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(streamingAdapter{&fakeRiskServer{}})
	defer srv.Close()
	t.Setenv("OPENAI_BASE_URL", srv.URL+"/v1")
	t.Setenv("OPENAI_API_KEY", "test-key")

	out := filepath.Join(t.TempDir(), "reports")
	_, errOut, code := runOn(t, flags, "--model", "openai:fake-model", "risk", c.ID, "no-such-contract", file,
		"--batch", "--concurrency", "3", "--jurisdiction", "us", "--format", "json", "-o", out)
	if code != 1 || !strings.Contains(errOut, `risk no-such-contract: "no-such-contract" is neither a file nor a stored contract id`) {
		t.Fatalf("risk --batch with one bad id exited %d (want 1): %s", code, errOut)
	}
	store := openStatutes(t, open)
	cited := 0
	for _, id := range []string{c.ID, "other-contract"} {
		b, err := os.ReadFile(filepath.Join(out, id+".json"))
		if err != nil {
			t.Fatal(err)
		}
		var rep risk.Report
		if err := json.Unmarshal(b, &rep); err != nil {
			t.Fatal(err)
		}
		if rep.Mode != "batch" || rep.Partial || len(rep.Items) == 0 || len(rep.ReviewTrail) != 0 {
			t.Errorf("%s: mode=%s partial=%v items=%d trail=%d notices=%q", id, rep.Mode, rep.Partial, len(rep.Items), len(rep.ReviewTrail), rep.Notices)
		}
		for _, it := range rep.Items {
			for _, cit := range it.Citations {
				cited++
				st, err := store.GetStatute(context.Background(), cit.StatuteID)
				if err != nil || !strings.Contains(strings.Join(strings.Fields(st.Text), " "), cit.Quote) {
					t.Errorf("%s item %d: citation %s %q does not resolve to a statute holding the quote (%v)", id, it.Number, cit.StatuteID, cit.Quote, err)
				}
			}
		}
	}
	if cited == 0 {
		t.Error("no citation survived in batch mode; the fake cites the statutes retrieved for each passage")
	}
}

func amp(format string) string {
	if format == "html" {
		return "&amp;"
	}
	return "&"
}

func TestRiskUsageErrors(t *testing.T) {
	db := filepath.Join(t.TempDir(), "graph.db")
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"risk", "a", "b"}, "several contracts need -o DIR"},
		{[]string{"risk", "a", "--format", "pdf"}, `unknown --format "pdf"`},
		{[]string{"risk", "no-such-contract"}, "neither a file nor"},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprint(tt.args), func(t *testing.T) {
			t.Setenv("OPENAI_BASE_URL", "http://127.0.0.1:1/v1")
			args := append([]string{"--db", db, "--model", "openai:fake"}, tt.args...)
			_, errOut, code := runContractgraph(t, "", args...)
			if code != 2 || !strings.Contains(errOut, tt.want) {
				t.Errorf("exit %d, stderr %q; want 2 and %q", code, errOut, tt.want)
			}
		})
	}
}
