package httpapi

import (
	"context"
	"errors"
	"fmt"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/contractgraph/contractgraph/internal/agent"
	"github.com/contractgraph/contractgraph/internal/llm/llmtest"
	"github.com/contractgraph/contractgraph/internal/risk"
)

// findChromium returns the browser the tests drive: $CONTRACTGRAPH_CHROMIUM,
// else chromium (Debian's package, which .ci/run installs) on PATH. Without
// one the browser tests skip, except in CI (CI=true), where they fail.
func findChromium(t *testing.T) string {
	t.Helper()
	if p := os.Getenv("CONTRACTGRAPH_CHROMIUM"); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	msg := "browser tests need chromium: apt-get install -y chromium (or set CONTRACTGRAPH_CHROMIUM)"
	if os.Getenv("CI") == "true" {
		t.Fatal(msg)
	}
	t.Skip(msg)
	return ""
}

// The test binary's one browser, started by the first browser test and
// closed by TestMain: each test gets a tab of its own in a fresh browser
// context (no cookies or storage shared between tests), which costs far
// less than a browser per test.
var shared struct {
	once   sync.Once
	ctx    context.Context // the browser's first tab; tabs are its children
	cancel func()
	err    error
}

func TestMain(m *testing.M) {
	code := m.Run()
	if shared.cancel != nil {
		shared.cancel()
	}
	os.Exit(code)
}

// browser returns a new tab of the shared headless chromium, with a 1280 ×
// 900 viewport and its steps bounded by timeout.
func browser(t *testing.T, timeout time.Duration) context.Context {
	t.Helper()
	path := findChromium(t)
	shared.once.Do(func() {
		dir, err := os.MkdirTemp("", "contractgraph-chromium-")
		if err != nil {
			shared.err = err
			return
		}
		allocCtx, cancelAlloc := chromedp.NewExecAllocator(context.Background(),
			chromedp.ExecPath(path),
			chromedp.Headless,
			chromedp.NoSandbox,
			chromedp.DisableGPU,
			chromedp.NoFirstRun,
			chromedp.NoDefaultBrowserCheck,
			chromedp.Flag("disable-background-networking", true),
			chromedp.Flag("disable-component-update", true),
			chromedp.Flag("disable-sync", true),
			chromedp.Flag("disable-quic", true),
			chromedp.Flag("disable-dev-shm-usage", true),
			chromedp.Flag("disable-extensions", true),
			chromedp.Flag("hide-scrollbars", true),
			chromedp.UserDataDir(dir),
			chromedp.WindowSize(1280, 900),
		)
		ctx, cancelTab := chromedp.NewContext(allocCtx)
		shared.ctx = ctx
		shared.cancel = func() { cancelTab(); cancelAlloc(); os.RemoveAll(dir) }
		// Start the browser with a context without deadline (see chromedp.Run).
		if err := chromedp.Do(ctx); err != nil {
			shared.err = fmt.Errorf("start %s: %w", path, err)
		}
	})
	if shared.err != nil {
		t.Fatal(shared.err)
	}
	tab, cancelTab := chromedp.NewContext(shared.ctx, chromedp.WithNewBrowserContext())
	if err := chromedp.Do(tab, chromedp.EmulateViewport(1280, 900)); err != nil {
		cancelTab()
		t.Fatalf("open a tab: %v", err)
	}
	stepCtx, cancelSteps := context.WithTimeout(tab, timeout)
	t.Cleanup(func() {
		cancelSteps()
		cancelTab()
	})
	return stepCtx
}

// screenshot saves the viewport as name.png in the test's temporary
// directory, or in $CONTRACTGRAPH_SCREENSHOTS when set (to look at them).
func screenshot(t *testing.T, ctx context.Context, dir, name string) {
	t.Helper()
	png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatalf("screenshot %s: %v", name, err)
	}
	path := filepath.Join(dir, name+".png")
	if err := os.WriteFile(path, png, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot: %s", path)
}

// must runs browser steps and fails the test with what was being done.
func must(t *testing.T, ctx context.Context, what string, steps ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	if err := chromedp.Do(ctx, steps...); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

func eval[T any](t *testing.T, ctx context.Context, expr string) T {
	t.Helper()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](expr))
	if err != nil {
		t.Fatalf("evaluate %s: %v", expr, err)
	}
	return v
}

// waitFor polls a JavaScript condition.
func waitFor(t *testing.T, ctx context.Context, what, expr string) {
	t.Helper()
	if _, err := chromedp.Run(ctx, chromedp.Poll[chromedp.Void](expr, chromedp.WithPollingTimeout(30*time.Second))); err != nil {
		t.Fatalf("waiting for %s (%s): %v", what, expr, err)
	}
}

// TestBrowser drives the web app in headless chromium: the dashboard, the
// filtered contracts list, a contract with highlighted clauses, the graph,
// and a streamed chat answer from the real agent over a scripted model
// whose citation link opens the contract.
func TestBrowser(t *testing.T) {
	if testing.Short() {
		t.Skip("browser tests are slow; skipped with -short")
	}
	model := llmtest.NewScripted(
		llmtest.Calls(llmtest.Call("c1", "contract_search", `{"contract_type":"Distributor"}`)),
		llmtest.Text("There is one distribution agreement: acme-distribution, between Globex Ltd and Acme Corp. It ends on 2026-12-31."),
	)
	s, _ := newTestServer(t, func(c *Config) {
		c.Agent = &agent.Agent{Model: model.Streaming(), Tools: c.Tools, Now: func() time.Time { return testNow }}
		c.ModelName = "scripted:test"
		c.Ingester = textIngester{c.Store}
	})
	ts := httptest.NewServer(s.Handler())
	defer ts.Close()
	shots := os.Getenv("CONTRACTGRAPH_SCREENSHOTS")
	if shots == "" {
		shots = t.TempDir()
	}
	ctx := browser(t, 3*time.Minute)

	// Dashboard.
	must(t, ctx, "open the dashboard", chromedp.Navigate(ts.URL+"/"), chromedp.WaitVisible(chromedp.CSS(".counts")))
	counts, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(".counts")))
	if err != nil || !strings.Contains(counts, "63") {
		t.Errorf("dashboard counts = %q, %v; want 63 contracts", counts, err)
	}
	if n := eval[int](t, ctx, `document.querySelectorAll('.bars li').length`); n < 3 {
		t.Errorf("dashboard shows %d bars, want the type and year charts", n)
	}
	if got := eval[string](t, ctx, `document.querySelector('#expiring').parentElement.innerText`); !strings.Contains(got, "Acme Distribution Agreement") {
		t.Errorf("expiring soon = %q, want the Acme distribution agreement", got)
	}
	// Act on these: the notice deadline comes first, before the renewal
	// that falls earlier in the window's order of dates, and the panel
	// offers the calendar feed.
	actOn := eval[[]string](t, ctx, `[...document.querySelectorAll('#act-on tbody tr')].map(r => r.innerText)`)
	if len(actOn) != 2 || !strings.Contains(actOn[0], "Notice deadline") || !strings.Contains(actOn[0], "Initech Software License") ||
		!strings.Contains(actOn[0], "2026-12-30") || !strings.Contains(actOn[1], "Renews") {
		t.Errorf("act on these = %q, want Initech's notice deadline first, then Acme's renewal", actOn)
	}
	if href := eval[string](t, ctx, `document.querySelector('#act-on a[href$=".ics"]').getAttribute('href')`); href != "/api/deadlines.ics" {
		t.Errorf("calendar link %q", href)
	}
	screenshot(t, ctx, shots, "1-dashboard")

	// Contracts: filter by party with the form; htmx swaps the results in
	// place (the page is not reloaded) and updates the address.
	must(t, ctx, "open the contracts list",
		chromedp.Navigate(ts.URL+"/contracts"),
		chromedp.WaitVisible(chromedp.ID("f-party")),
	)
	eval[bool](t, ctx, `window.__notReloaded = true`)
	must(t, ctx, "filter by party",
		chromedp.SendKeys(chromedp.ID("f-party"), "Initech"),
		chromedp.Click(chromedp.CSS(`form.filters button[type=submit]`)),
	)
	waitFor(t, ctx, "the filtered results", `document.querySelector('#results h2').textContent.trim() === '1 contract'`)
	if !eval[bool](t, ctx, `window.__notReloaded === true`) {
		t.Error("filtering reloaded the page instead of swapping the results")
	}
	if loc := eval[string](t, ctx, `location.search`); !strings.Contains(loc, "parties=Initech") {
		t.Errorf("address after filtering = %q, want parties=Initech", loc)
	}
	screenshot(t, ctx, shots, "2-contracts-filtered")

	// The contract page: clause highlighted in the text, linked from the list.
	must(t, ctx, "open the contract",
		chromedp.Click(chromedp.CSS(`#results a[href="/contracts/initech-license"]`)),
		chromedp.WaitVisible(chromedp.CSS(`mark#clause-2`)),
	)
	mark, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`mark#clause-2`)))
	if err != nil || mark != "Liability of either party is capped at the fees paid in the preceding twelve months." {
		t.Errorf("highlighted clause = %q, %v", mark, err)
	}
	must(t, ctx, "follow the clause link", chromedp.Click(chromedp.CSS(`a[href="#clause-2"]`)))
	waitFor(t, ctx, "the clause anchor", `location.hash === '#clause-2'`)
	screenshot(t, ctx, shots, "3-contract")

	// The graph of a contract's neighbourhood, drawn by cytoscape.
	must(t, ctx, "open the graph", chromedp.Navigate(ts.URL+"/contracts/acme-distribution/graph"))
	waitFor(t, ctx, "the graph", `document.getElementById('cy').dataset.ready === 'true'`)
	if n := eval[int](t, ctx, `document.querySelectorAll('#cy canvas').length`); n == 0 {
		t.Error("cytoscape drew no canvas")
	}
	screenshot(t, ctx, shots, "4-graph")

	// Chat: the answer streams in token by token, the tool call is shown,
	// and the citation opens the contract.
	must(t, ctx, "open the chat", chromedp.Navigate(ts.URL+"/chat"), chromedp.WaitVisible(chromedp.ID("question")))
	eval[bool](t, ctx, `(() => { window.__textChanges = 0;
		new MutationObserver(rs => { window.__textChanges += rs.length; })
			.observe(document.getElementById('chat-log'), {subtree: true, childList: true, characterData: true});
		return true; })()`)
	must(t, ctx, "ask a question",
		chromedp.SendKeys(chromedp.ID("question"), "How many distribution agreements are there?"),
		chromedp.Click(chromedp.ID("ask-button")),
	)
	waitFor(t, ctx, "the answer's citation", `document.querySelector('.msg.assistant .citations a.citation') !== null`)
	answer := eval[string](t, ctx, `document.querySelector('.msg.assistant .text').textContent`)
	if !strings.Contains(answer, "There is one distribution agreement") {
		t.Errorf("answer text = %q", answer)
	}
	if n := eval[int](t, ctx, `window.__textChanges`); n < 10 {
		t.Errorf("the chat log changed %d times; a streamed answer changes it once per token", n)
	}
	tool := eval[string](t, ctx, `document.querySelector('.msg.assistant details.tool summary').textContent`)
	if !strings.Contains(tool, "contract_search") || !strings.Contains(tool, "1 match") {
		t.Errorf("tool call shown as %q, want contract_search with 1 match", tool)
	}
	screenshot(t, ctx, shots, "5-chat")
	must(t, ctx, "follow the citation",
		chromedp.Click(chromedp.CSS(`.citations a.citation`)),
		chromedp.WaitVisible(chromedp.CSS(`.contract-text`)),
	)
	if loc := eval[string](t, ctx, `location.pathname`); loc != "/contracts/acme-distribution" {
		t.Errorf("citation opened %s", loc)
	}
	if h1 := eval[string](t, ctx, `document.querySelector('h1').textContent`); h1 != "Acme Distribution Agreement" {
		t.Errorf("citation opened %q", h1)
	}
	if n := len(model.Requests()); n != 2 {
		t.Errorf("the model was called %d times, want 2", n)
	}

	// Upload: two documents, progress per file, then the summary and a link
	// to the stored contract.
	docs := t.TempDir()
	lease := filepath.Join(docs, "office-lease.txt")
	blank := filepath.Join(docs, "blank.txt")
	os.WriteFile(lease, []byte("Office Lease\nThe landlord leases the office to the tenant."), 0o644)
	os.WriteFile(blank, []byte("   "), 0o644)
	must(t, ctx, "upload documents",
		chromedp.Navigate(ts.URL+"/upload"),
		chromedp.WaitVisible(chromedp.ID("files")),
		chromedp.SetUploadFiles(chromedp.ID("files"), []string{lease, blank}),
		chromedp.Click(chromedp.CSS(`#upload-form button[type=submit]`)),
	)
	waitFor(t, ctx, "the upload summary", `document.getElementById('upload-summary').textContent.includes('stored')`)
	if got := eval[string](t, ctx, `document.getElementById('upload-summary').textContent`); got != "1 stored, 0 unchanged, 1 failed." {
		t.Errorf("upload summary = %q", got)
	}
	rows := eval[string](t, ctx, `document.getElementById('upload-progress').innerText`)
	if !strings.Contains(rows, "office-lease.txt: ok") || !strings.Contains(rows, "blank.txt: failed") || !strings.Contains(rows, "no text in the document") {
		t.Errorf("upload progress = %q", rows)
	}
	screenshot(t, ctx, shots, "6-upload")
	must(t, ctx, "open the uploaded contract",
		chromedp.Click(chromedp.CSS(`#upload-progress a[href="/contracts/office-lease"]`)),
		chromedp.WaitVisible(chromedp.CSS(`.contract-text`)),
	)
	if h1 := eval[string](t, ctx, `document.querySelector('h1').textContent`); h1 != "Office Lease" {
		t.Errorf("uploaded contract page shows %q", h1)
	}
}

// TestBrowserWithoutModel checks that the chat page explains how to
// configure a model when there is none.
func TestBrowserWithoutModel(t *testing.T) {
	if testing.Short() {
		t.Skip("browser tests are slow; skipped with -short")
	}
	s, _ := newTestServer(t, nil)
	ts := httptest.NewServer(s.Handler())
	defer ts.Close()
	ctx := browser(t, time.Minute)
	must(t, ctx, "open the chat", chromedp.Navigate(ts.URL+"/chat"), chromedp.WaitVisible(chromedp.ID("no-model")))
	note, err := chromedp.Run(ctx, chromedp.Text(chromedp.ID("no-model")))
	if err != nil || !strings.Contains(note, "contractgraph serve --model ollama:qwen2.5:7b") {
		t.Errorf("no-model note = %q, %v", note, err)
	}
	if !eval[bool](t, ctx, `document.getElementById('ask-button').disabled`) {
		t.Error("the ask button is enabled without a model")
	}
	// Keyboard: the skip link is the first stop and moves focus to main.
	must(t, ctx, "tab to the skip link", chromedp.KeyEvent("\t"))
	if got := eval[string](t, ctx, `document.activeElement.className`); got != "skip-link" {
		t.Errorf("first tab stop = %q, want the skip link", got)
	}
	must(t, ctx, "activate the skip link", chromedp.KeyEvent("\r"))
	waitFor(t, ctx, "focus on main", `document.activeElement && document.activeElement.id === 'main'`)
}

// TestBrowserRiskReview opens the risk review from a contract page, runs
// it over the scripted model and 9 U.S.C., watches the stages arrive and
// checks the rendered report: its table, the statute's official link and
// the clause link that opens the span on the contract page.
func TestBrowserRiskReview(t *testing.T) {
	if testing.Short() {
		t.Skip("browser tests are slow; skipped with -short")
	}
	store := riskStore(t)
	ts := riskServer(t, store, &risk.Deps{Model: scriptedRiskModel(t)})
	shots := os.Getenv("CONTRACTGRAPH_SCREENSHOTS")
	if shots == "" {
		shots = t.TempDir()
	}
	ctx := browser(t, 2*time.Minute)

	must(t, ctx, "open the risk page from the contract",
		chromedp.Navigate(ts.URL+"/contracts/hooli-supply"),
		chromedp.WaitVisible(chromedp.ID("risk-link")),
		chromedp.Click(chromedp.ID("risk-link")),
		chromedp.WaitVisible(chromedp.ID("risk-start")),
	)
	must(t, ctx, "start the review",
		chromedp.SetValue(chromedp.ID("jurisdiction"), "us"),
		chromedp.Click(chromedp.ID("risk-start")),
	)
	const report = `document.querySelector('.risk-report-host').shadowRoot`
	waitFor(t, ctx, "the report table", `document.querySelector('.risk-report-host') !== null && `+report+`.querySelector('tbody tr') !== null`)

	stages := eval[string](t, ctx, `document.getElementById('risk-stages').innerText`)
	for _, want := range []string{"Risk rules", "Analysis", "Senior review (round 1)", "Citation check", "Executive summary", "Done"} {
		if !strings.Contains(stages, want) {
			t.Errorf("progress lacks %q:\n%s", want, stages)
		}
	}
	if n := eval[int](t, ctx, `document.querySelectorAll('#risk-stages li.finished').length`); n != 6 {
		t.Errorf("%d stages shown finished, want 6:\n%s", n, stages)
	}
	if got := eval[string](t, ctx, `document.getElementById('risk-counts').textContent`); !strings.HasPrefix(got, "5 model calls · 1 tool call (statute_search 1)") {
		t.Errorf("call counts = %q", got)
	}
	row := eval[string](t, ctx, report+`.querySelector('tbody tr').innerText`)
	for _, want := range []string{"High", "9 U.S.C. § 2", riskClauseQuote, "Negotiate a carve-out"} {
		if !strings.Contains(row, want) {
			t.Errorf("report row lacks %q:\n%s", want, row)
		}
	}
	if href := eval[string](t, ctx, report+`.querySelector('tbody a[href^="https://uscode.house.gov"]').href`); !strings.Contains(href, "section2") {
		t.Errorf("statute link = %q", href)
	}
	if got := eval[string](t, ctx, report+`.textContent`); !strings.Contains(got, "Executive summary") || !strings.Contains(got, "Acceptable after negotiating a court carve-out.") || !strings.Contains(got, "Round 1: approve") {
		t.Errorf("report lacks the summary or the review trail")
	}
	if !eval[bool](t, ctx, `document.getElementById('risk-error').hidden`) {
		t.Errorf("an error is shown: %s", eval[string](t, ctx, `document.getElementById('risk-error').textContent`))
	}
	screenshot(t, ctx, shots, "7-risk-review")

	// The clause reference opens the span on the contract page.
	must(t, ctx, "open the clause in the contract",
		chromedp.Click(chromedp.JSPath(report+`.querySelector('tbody a[href^="/contracts/hooli-supply?span="]')`)),
		chromedp.WaitVisible(chromedp.CSS(`mark#cited`)),
	)
	if got := eval[string](t, ctx, `document.querySelector('mark#cited').textContent`); got != riskClauseQuote {
		t.Errorf("cited span = %q", got)
	}
}

// TestBrowserRiskReviewStop stops a running review with the Stop button:
// the page says so and the server cancels the model call in flight.
func TestBrowserRiskReviewStop(t *testing.T) {
	if testing.Short() {
		t.Skip("browser tests are slow; skipped with -short")
	}
	store := riskStore(t)
	model := &blockingModel{started: make(chan struct{}), ended: make(chan error, 1)}
	ts := riskServer(t, store, &risk.Deps{Model: model})
	ctx := browser(t, time.Minute)

	must(t, ctx, "start the review",
		chromedp.Navigate(ts.URL+"/contracts/hooli-supply/risk"),
		chromedp.WaitVisible(chromedp.ID("risk-start")),
		chromedp.Click(chromedp.ID("risk-start")),
	)
	waitFor(t, ctx, "the first stage", `document.querySelector('#risk-stages li[data-stage="rules"]') !== null`)
	select {
	case <-model.started:
	case <-time.After(10 * time.Second):
		t.Fatal("the model was never called")
	}
	must(t, ctx, "stop the review", chromedp.Click(chromedp.ID("risk-stop")))
	waitFor(t, ctx, "the stopped message", `document.getElementById('risk-error').textContent.startsWith('Stopped.')`)
	select {
	case err := <-model.ended:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("model call ended with %v, want context.Canceled", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("stopping in the browser did not cancel the review on the server")
	}
	if eval[bool](t, ctx, `document.getElementById('risk-start').disabled`) {
		t.Error("the start button stays disabled after stopping")
	}
}
