package httpapi

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"html"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/contractgraph/contractgraph/internal/contract"
	"github.com/contractgraph/contractgraph/internal/graph/sqlite"
	"github.com/contractgraph/contractgraph/internal/llm"
	"github.com/contractgraph/contractgraph/internal/llm/llmtest"
	"github.com/contractgraph/contractgraph/internal/risk"
	"github.com/contractgraph/contractgraph/internal/sharedtest"
	"github.com/contractgraph/contractgraph/internal/statute"
	"github.com/contractgraph/contractgraph/internal/tools"
)

// riskContractText is a short supply agreement with an arbitration clause,
// which the scripted analyst quotes.
const riskContractText = `SUPPLY AGREEMENT

This Supply Agreement is made between Hooli Inc. ("Supplier") and Pied Piper LLC ("Buyer").

1. Supply. Supplier shall deliver the Products ordered by Buyer within thirty days of each order.

2. Disputes. Any controversy arising out of this Agreement shall be settled by binding arbitration in San Francisco, and judgment on the award may be entered in any court.

3. Term. This Agreement continues for three years.
`

const riskClauseQuote = "Any controversy arising out of this Agreement shall be settled by binding arbitration in San Francisco"

// riskStore is a real SQLite store holding 9 U.S.C. (Arbitration) from the
// shared statute files, a contract with text and one without. It skips
// when the shared data is missing.
func riskStore(t *testing.T) *sqlite.Store {
	t.Helper()
	usc09 := filepath.Join(sharedtest.Dir(t), "data", "statutes", "uscode", "usc09.xml")
	sts, results := statute.Load([]string{usc09})
	for _, r := range results {
		if r.Err != nil {
			t.Fatalf("load %s: %v", usc09, r.Err)
		}
	}
	store, err := sqlite.Open(filepath.Join(t.TempDir(), "risk.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	ctx := context.Background()
	if _, err := store.PutStatutes(ctx, sts); err != nil {
		t.Fatal(err)
	}
	out, err := store.PutContracts(ctx, []*contract.Contract{
		{ID: "hooli-supply", Title: "Hooli Supply Agreement", ContractType: "Supply", Text: riskContractText},
		{ID: "no-text", Title: "Metadata only"},
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range out {
		if o.Err != nil {
			t.Fatalf("put %s: %v", o.ID, o.Err)
		}
	}
	return store
}

func riskServer(t *testing.T, store *sqlite.Store, deps *risk.Deps) *httptest.Server {
	t.Helper()
	s, err := New(Config{Store: store, Tools: tools.New(store, tools.Options{}), Risk: deps, ModelName: "scripted"})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(s.Handler())
	t.Cleanup(ts.Close)
	return ts
}

// jsonStep is a scripted reply whose content is v as JSON.
func jsonStep(t *testing.T, v any) llmtest.Step {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return llmtest.Text(string(b))
}

// scriptedRiskModel plays a whole review: rules, one statute_search, an
// analysis citing the first statute the search returned (quoting its
// first words), the reviewer's approval and the summary.
func scriptedRiskModel(t *testing.T) *llmtest.Scripted {
	t.Helper()
	analysis := llmtest.Step{Func: func(req *llm.Request) (*llm.Response, error) {
		var found tools.StatuteSearchResult
		for _, m := range req.Messages {
			if m.Role == llm.RoleTool {
				if err := json.Unmarshal([]byte(m.Content), &found); err != nil {
					return nil, fmt.Errorf("statute_search result: %w", err)
				}
			}
		}
		if len(found.Statutes) == 0 {
			return nil, errors.New("the analyst saw no statute_search result")
		}
		st := found.Statutes[0]
		words := strings.Fields(st.Text)
		item := risk.Item{
			RuleID: "R1", ClauseQuote: riskClauseQuote, RiskLevel: "High",
			Reasoning: "Disputes go to binding arbitration, which the Federal Arbitration Act enforces.", AffectedParty: "Buyer",
			Citations:      []risk.Citation{{StatuteID: st.StatuteID, Quote: strings.Join(words[:min(12, len(words))], " ")}},
			Recommendation: "Negotiate a carve-out for injunctive relief in court.",
		}
		b, err := json.Marshal(risk.Analysis{Items: []risk.Item{item}})
		if err != nil {
			return nil, err
		}
		return &llm.Response{Message: llm.Message{Role: llm.RoleAssistant, Content: string(b)}, Usage: llm.Usage{InputTokens: 10, OutputTokens: 20}}, nil
	}}
	return llmtest.NewScripted(
		jsonStep(t, risk.RuleSet{ContractType: "Supply", Rules: []risk.Rule{
			{ID: "R1", Title: "Mandatory arbitration", Severity: "High", Description: "Disputes must go to arbitration.", Keywords: []string{"arbitration", "dispute"}},
		}}),
		llmtest.Calls(llmtest.Call("call-1", tools.NameStatuteSearch, `{"query":"arbitration agreement valid irrevocable enforceable"}`)),
		analysis,
		jsonStep(t, risk.ReviewDecision{Decision: risk.DecisionApprove, Problems: []string{}, Items: []risk.Item{}}),
		jsonStep(t, risk.Summary{CoreIssues: []string{"Disputes go to binding arbitration."}, Conclusion: "Acceptable after negotiating a court carve-out."}),
	)
}

func postRisk(t *testing.T, ctx context.Context, url, body string) *http.Response {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx, "POST", url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

func TestRiskStreamsProgressThenReport(t *testing.T) {
	store := riskStore(t)
	model := scriptedRiskModel(t)
	ts := riskServer(t, store, &risk.Deps{Model: model})

	resp := postRisk(t, context.Background(), ts.URL+"/api/risk/hooli-supply", `{"jurisdiction":"us"}`)
	if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		t.Fatalf("status %d, content type %q", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	events := readEvents(t, resp.Body)

	// The order of stages, statuses and call counts.
	var got []string
	var report riskReportEvent
	for _, ev := range events {
		switch ev.Name {
		case riskEventStage:
			var st riskStageEvent
			if err := json.Unmarshal([]byte(ev.Data), &st); err != nil {
				t.Fatalf("stage event %s: %v", ev.Data, err)
			}
			line := fmt.Sprintf("stage %s %s", st.Stage, st.Status)
			if st.Iteration > 0 {
				line += fmt.Sprintf(" round %d", st.Iteration)
			}
			got = append(got, line+fmt.Sprintf(" (%d model, %d tool)", st.ModelCalls, st.ToolCalls))
		case riskEventCalls:
			var c riskCallsEvent
			if err := json.Unmarshal([]byte(ev.Data), &c); err != nil {
				t.Fatalf("calls event %s: %v", ev.Data, err)
			}
			got = append(got, fmt.Sprintf("calls %d model, %d tool, %d statute_search", c.ModelCalls, c.ToolCalls, c.Tools[tools.NameStatuteSearch]))
		case riskEventReport:
			if err := json.Unmarshal([]byte(ev.Data), &report); err != nil {
				t.Fatalf("report event: %v", err)
			}
			got = append(got, "report")
		default:
			got = append(got, ev.Name+" "+ev.Data)
		}
	}
	want := []string{
		"stage rules started (0 model, 0 tool)",
		"calls 1 model, 0 tool, 0 statute_search",
		"stage rules finished (1 model, 0 tool)",
		"stage analysis started (1 model, 0 tool)",
		"calls 2 model, 1 tool, 1 statute_search",
		"calls 3 model, 1 tool, 1 statute_search",
		"stage analysis finished (3 model, 1 tool)",
		"stage review started round 1 (3 model, 1 tool)",
		"calls 4 model, 1 tool, 1 statute_search",
		"stage review finished round 1 (4 model, 1 tool)",
		"stage gate started (4 model, 1 tool)",
		"stage gate finished (4 model, 1 tool)",
		"stage summary started (4 model, 1 tool)",
		"calls 5 model, 1 tool, 1 statute_search",
		"stage summary finished (5 model, 1 tool)",
		"stage done finished (5 model, 1 tool)",
		"report",
		"done {}",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("events (-want +got):\n%s", diff)
	}
	if model.Remaining() != 0 {
		t.Errorf("%d scripted steps unused", model.Remaining())
	}

	rep := report.Report
	if rep == nil || rep.Partial || !rep.CitationsChecked || rep.Jurisdiction != "us" || rep.ContractID != "hooli-supply" {
		t.Fatalf("report = %+v", rep)
	}
	if len(rep.Items) != 1 || len(rep.Items[0].Citations) != 1 {
		t.Fatalf("items = %+v", rep.Items)
	}
	// Every citation resolves to a stored statute that holds its quote.
	it := rep.Items[0]
	c := it.Citations[0]
	st, err := store.GetStatute(context.Background(), c.StatuteID)
	if err != nil {
		t.Fatalf("citation %s: %v", c.StatuteID, err)
	}
	if !strings.Contains(strings.Join(strings.Fields(st.Text), " "), c.Quote) {
		t.Errorf("quote %q is not in %s", c.Quote, c.StatuteID)
	}
	if c.StatuteID != "/us/usc/t9/s2" || c.URL == "" || c.URL != st.URL {
		t.Errorf("citation %+v, statute url %q; want 9 U.S.C. § 2 with its official url", c, st.URL)
	}
	if got := riskContractText[it.ClauseStart:it.ClauseEnd]; got != riskClauseQuote {
		t.Errorf("clause span %d–%d holds %q", it.ClauseStart, it.ClauseEnd, got)
	}
	// The HTML is the risk package's report, each clause linked to its span
	// on the contract page.
	spanLink := fmt.Sprintf(`href="/contracts/hooli-supply?span=%d-%d#cited"`, it.ClauseStart, it.ClauseEnd)
	for _, want := range []string{"<h1>Contract risk review</h1>", spanLink, `href="` + html.EscapeString(c.URL) + `"`, "Review trail", "Removed citations", "Token usage", "Acceptable after negotiating a court carve-out."} {
		if !strings.Contains(report.HTML, want) {
			t.Errorf("report html lacks %s", want)
		}
	}
}

func TestRiskRefusalsBeforeStreaming(t *testing.T) {
	store := riskStore(t)
	withModel := riskServer(t, store, &risk.Deps{Model: llmtest.NewScripted()})
	noModel := riskServer(t, store, nil)
	tests := []struct {
		name   string
		url    string
		body   string
		status int
		code   string
		field  string
		msg    string
	}{
		{"no model", noModel.URL + "/api/risk/hooli-supply", "", 503, codeNoModel, "", "--model"},
		{"unknown contract", withModel.URL + "/api/risk/nope", "", 404, codeNotFound, "", `contract "nope"`},
		// What is wrong with the contract is said whether or not a model
		// is configured (the README promises the 404).
		{"unknown contract without a model", noModel.URL + "/api/risk/nope", "", 404, codeNotFound, "", `contract "nope"`},
		{"no text without a model", noModel.URL + "/api/risk/no-text", "", 422, codeNoText, "", "no stored text"},
		{"no text", withModel.URL + "/api/risk/no-text", "", 422, codeNoText, "", "no stored text"},
		{"bad jurisdiction", withModel.URL + "/api/risk/hooli-supply", `{"jurisdiction":"u s"}`, 400, codeInvalidArgument, "jurisdiction", "not a jurisdiction code"},
		{"unknown field", withModel.URL + "/api/risk/hooli-supply", `{"jurisdictions":"us"}`, 400, codeInvalidArgument, "jurisdictions", "unknown field"},
		{"bad json", withModel.URL + "/api/risk/hooli-supply", `{"batch":`, 400, codeInvalidArgument, "", "invalid JSON"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp := postRisk(t, context.Background(), tt.url, tt.body)
			if resp.StatusCode != tt.status || !strings.HasPrefix(resp.Header.Get("Content-Type"), "application/json") {
				t.Fatalf("status %d (%s), want %d JSON", resp.StatusCode, resp.Header.Get("Content-Type"), tt.status)
			}
			var body errorBody
			if err := json.NewDecoder(resp.Body).Decode(&body); err != nil || body.Error == nil {
				t.Fatalf("error body: %v", err)
			}
			if e := body.Error; e.Code != tt.code || e.Field != tt.field || !strings.Contains(e.Message, tt.msg) {
				t.Errorf("error = %+v, want code %s field %q message containing %q", e, tt.code, tt.field, tt.msg)
			}
		})
	}
}

func TestRiskDisconnectCancelsReview(t *testing.T) {
	store := riskStore(t)
	model := &blockingModel{started: make(chan struct{}), ended: make(chan error, 1)}
	ts := riskServer(t, store, &risk.Deps{Model: model})

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	resp := postRisk(t, ctx, ts.URL+"/api/risk/hooli-supply", "")
	buf := make([]byte, 512)
	n, err := resp.Body.Read(buf)
	if err != nil || !strings.Contains(string(buf[:n]), `"stage":"rules","status":"started"`) {
		t.Fatalf("first read = %q, %v", buf[:n], err)
	}
	select {
	case <-model.started:
	case <-time.After(10 * time.Second):
		t.Fatal("the model was never called")
	}
	cancel() // the client goes away
	select {
	case err := <-model.ended:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("model call ended with %v, want context.Canceled", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the review was not cancelled after the client disconnected")
	}
}

func TestRiskTimeoutEndsWithPartialReportAndError(t *testing.T) {
	store := riskStore(t)
	model := &blockingModel{started: make(chan struct{}), ended: make(chan error, 1)}
	s, err := New(Config{Store: store, Tools: tools.New(store, tools.Options{}), Risk: &risk.Deps{Model: model}, RiskTimeout: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	rec := do(t, s.Handler(), "POST", "/api/risk/hooli-supply", "", nil)
	var names []string
	var errEv riskErrorEvent
	var report riskReportEvent
	for _, ev := range readEvents(t, rec.Body) {
		names = append(names, ev.Name)
		switch ev.Name {
		case riskEventError:
			json.Unmarshal([]byte(ev.Data), &errEv)
		case riskEventReport:
			json.Unmarshal([]byte(ev.Data), &report)
		}
	}
	if n := len(names); n < 3 || names[n-3] != riskEventReport || names[n-2] != riskEventError || names[n-1] != riskEventDone {
		t.Fatalf("events %v, want … report error done", names)
	}
	if !strings.Contains(errEv.Error, "took longer than 50ms") {
		t.Errorf("error = %q", errEv.Error)
	}
	if report.Report == nil || !report.Report.Partial || !strings.Contains(report.HTML, "Partial report") {
		t.Errorf("report = %+v, want a partial report", report.Report)
	}
}

func TestRiskPage(t *testing.T) {
	store := riskStore(t)
	withModel := riskServer(t, store, &risk.Deps{Model: llmtest.NewScripted()})
	noModel := riskServer(t, store, nil)
	get := func(url string) (int, string) {
		t.Helper()
		resp, err := http.Get(url)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		if err != nil {
			t.Fatal(err)
		}
		return resp.StatusCode, string(b)
	}
	status, body := get(withModel.URL + "/contracts/hooli-supply")
	if status != 200 || !strings.Contains(body, `href="/contracts/hooli-supply/risk"`) {
		t.Errorf("contract page (%d) has no link to the risk review", status)
	}
	status, body = get(withModel.URL + "/contracts/hooli-supply/risk")
	for _, want := range []string{`data-api="/api/risk/hooli-supply"`, `<button type="submit" id="risk-start" >`, `<option value="us">`, "/static/risk.js", "Hooli Supply Agreement"} {
		if status != 200 || !strings.Contains(body, want) {
			t.Errorf("risk page (%d) lacks %s", status, want)
		}
	}
	status, body = get(noModel.URL + "/contracts/hooli-supply/risk")
	if status != 200 || !strings.Contains(body, `id="no-model"`) || !strings.Contains(body, "--model ollama:") || !strings.Contains(body, `id="risk-start" disabled`) {
		t.Errorf("risk page without a model (%d) does not explain how to configure one", status)
	}
	status, body = get(withModel.URL + "/contracts/no-text/risk")
	if status != 200 || !strings.Contains(body, `id="no-text"`) || !strings.Contains(body, `id="risk-start" disabled`) {
		t.Errorf("risk page of a contract without text (%d) does not say so", status)
	}
	if status, _ = get(withModel.URL + "/contracts/nope/risk"); status != 404 {
		t.Errorf("risk page of an unknown contract: %d, want 404", status)
	}
}

// batchModel answers each stage of a batch review from the request's
// response format, so that concurrent passage calls may come in any order.
type batchModel struct{}

func (batchModel) Generate(ctx context.Context, req *llm.Request) (*llm.Response, error) {
	var v any
	switch name := req.ResponseFormat.Name; name {
	case "RuleSet":
		v = risk.RuleSet{ContractType: "Supply", Rules: []risk.Rule{
			{ID: "R1", Title: "Mandatory arbitration", Severity: "High", Description: "Disputes must go to arbitration.", Keywords: []string{"arbitration", "dispute"}},
			{ID: "R2", Title: "Delivery", Severity: "Low", Description: "Delivery obligations.", Keywords: []string{"deliver", "products"}},
		}}
	case "Analysis":
		v = risk.Analysis{Items: []risk.Item{}, Notes: "nothing risky in this passage"}
	case "Summary":
		v = risk.Summary{CoreIssues: []string{}, Conclusion: "No risk found."}
	default:
		return nil, fmt.Errorf("unexpected response format %q", name)
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return &llm.Response{Message: llm.Message{Role: llm.RoleAssistant, Content: string(b)}, Usage: llm.Usage{InputTokens: 5, OutputTokens: 5}}, nil
}

func TestRiskBatchStreamsPassageProgress(t *testing.T) {
	store := riskStore(t)
	ts := riskServer(t, store, &risk.Deps{Model: batchModel{}})
	resp := postRisk(t, context.Background(), ts.URL+"/api/risk/hooli-supply", `{"batch":true}`)
	var batch []riskStageEvent
	var report riskReportEvent
	for _, ev := range readEvents(t, resp.Body) {
		switch ev.Name {
		case riskEventStage:
			var st riskStageEvent
			if err := json.Unmarshal([]byte(ev.Data), &st); err != nil {
				t.Fatal(err)
			}
			if st.Stage == "batch" {
				batch = append(batch, st)
			}
		case riskEventReport:
			if err := json.Unmarshal([]byte(ev.Data), &report); err != nil {
				t.Fatal(err)
			}
		case riskEventError:
			t.Errorf("error event: %s", ev.Data)
		}
	}
	if len(batch) < 3 {
		t.Fatalf("batch stage events = %+v, want started, one progress per passage, finished", batch)
	}
	first, last := batch[0], batch[len(batch)-1]
	total := first.Total
	if first.Status != stageStarted || total < 1 || len(batch) != total+2 || last.Status != stageFinished {
		t.Errorf("batch stage events = %+v", batch)
	}
	for i, ev := range batch[1 : len(batch)-1] {
		if ev.Status != stageProgress || ev.Done != i+1 || ev.Total != total {
			t.Errorf("passage event %d = %+v, want progress %d of %d", i, ev, i+1, total)
		}
	}
	if report.Report == nil || report.Report.Mode != "batch" || report.Report.Partial || !strings.Contains(report.HTML, "Batch mode has no review loop.") {
		t.Errorf("report = %+v", report.Report)
	}
}

func TestRiskModelFailureEndsWithPartialReportAndError(t *testing.T) {
	store := riskStore(t)
	model := llmtest.NewScripted(llmtest.Fail(fmt.Errorf("openai: %w", llm.ErrUnavailable)))
	ts := riskServer(t, store, &risk.Deps{Model: model})
	resp := postRisk(t, context.Background(), ts.URL+"/api/risk/hooli-supply", "")
	var names []string
	var errEv riskErrorEvent
	var report riskReportEvent
	var last riskStageEvent
	for _, ev := range readEvents(t, resp.Body) {
		names = append(names, ev.Name)
		switch ev.Name {
		case riskEventStage:
			if err := json.Unmarshal([]byte(ev.Data), &last); err != nil {
				t.Fatal(err)
			}
		case riskEventError:
			if err := json.Unmarshal([]byte(ev.Data), &errEv); err != nil {
				t.Fatal(err)
			}
		case riskEventReport:
			if err := json.Unmarshal([]byte(ev.Data), &report); err != nil {
				t.Fatal(err)
			}
		}
	}
	if n := len(names); n < 3 || names[n-3] != riskEventReport || names[n-2] != riskEventError || names[n-1] != riskEventDone {
		t.Fatalf("events %v, want … report error done", names)
	}
	if want := "the report is partial: rule generation failed: openai: model unavailable"; !strings.Contains(errEv.Error, want) {
		t.Errorf("error = %q, want it to contain %q", errEv.Error, want)
	}
	if report.Report == nil || !report.Report.Partial || len(report.Report.Items) != 0 {
		t.Errorf("report = %+v, want a partial report without items", report.Report)
	}
	// The last stage is not reported done: the review failed.
	if last.Stage != "done" || last.Status != stageFailed {
		t.Errorf("last stage %s %s, want done failed", last.Stage, last.Status)
	}
}
