package httpapi

import (
	"context"
	"fmt"
	"net/http/httptest"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/contractgraph/contractgraph/internal/contract"
	"github.com/contractgraph/contractgraph/internal/llm"
	"github.com/contractgraph/contractgraph/internal/llm/llmtest"
	"github.com/contractgraph/contractgraph/internal/risk"
	"github.com/contractgraph/contractgraph/internal/web"
)

// shotsDir is where a browser test writes its screenshots: the test's
// temporary directory, or $CONTRACTGRAPH_SCREENSHOTS to keep them.
func shotsDir(t *testing.T) string {
	if d := os.Getenv("CONTRACTGRAPH_SCREENSHOTS"); d != "" {
		return d
	}
	return t.TempDir()
}

// viewportShot saves what the viewport shows (not the whole page) as
// name.png in dir.
func viewportShot(t *testing.T, ctx context.Context, dir, name string) {
	t.Helper()
	png, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
	if err != nil {
		t.Fatalf("screenshot %s: %v", name, err)
	}
	path := dir + "/" + name + ".png"
	if err := os.WriteFile(path, png, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot: %s", path)
}

// graphLayout is what the drawn graph looks like, measured from the
// positions and bounding boxes (labels included) cytoscape gives.
type graphLayout struct {
	Nodes    int      `json:"nodes"`
	Labels   []string `json:"labels"`
	Overlaps []string `json:"overlaps"` // pairs of nodes whose boxes intersect
	Zoom     float64  `json:"zoom"`
	Outside  []string `json:"outside"` // nodes drawn outside the canvas
}

const measureGraph = `(() => {
	const box = document.getElementById('cy'), cy = box._cy;
	const nodes = cy.nodes().toArray();
	const boxes = nodes.map(n => n.boundingBox({includeLabels: true}));
	const overlaps = [];
	for (let i = 0; i < nodes.length; i++) for (let j = i + 1; j < nodes.length; j++) {
		const a = boxes[i], b = boxes[j];
		if (a.x1 < b.x2 && b.x1 < a.x2 && a.y1 < b.y2 && b.y1 < a.y2) overlaps.push(nodes[i].data('label') + ' / ' + nodes[j].data('label'));
	}
	const outside = nodes.filter(n => { const b = n.renderedBoundingBox({includeLabels: true});
		return b.x1 < 0 || b.y1 < 0 || b.x2 > box.clientWidth || b.y2 > box.clientHeight; }).map(n => n.data('label'));
	return {nodes: nodes.length, labels: nodes.map(n => n.data('label')), overlaps: overlaps, zoom: cy.zoom(), outside: outside};
})()`

// waitNavigated polls a JavaScript condition across a navigation, during
// which evaluating fails.
func waitNavigated(t *testing.T, ctx context.Context, what, expr string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		ok, err := chromedp.Run(ctx, chromedp.Evaluate[bool](expr))
		if err == nil && ok {
			return
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			t.Fatalf("waiting for %s (%s): %v", what, expr, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// clickNode clicks the graph node whose label starts with label, with the
// mouse, where it is drawn.
func clickNode(t *testing.T, ctx context.Context, label string) {
	t.Helper()
	xy := eval[[]float64](t, ctx, fmt.Sprintf(`(() => {
		const box = document.getElementById('cy'), cy = box._cy;
		const n = cy.nodes().filter(n => n.data('label').startsWith(%q))[0];
		if (!n) return [];
		const p = n.renderedPosition(), r = box.getBoundingClientRect();
		return [r.left + p.x, r.top + p.y];
	})()`, label))
	if len(xy) != 2 {
		t.Fatalf("no graph node labelled %q", label)
	}
	must(t, ctx, "click node "+label, chromedp.MouseClickXY(xy[0], xy[1]))
}

func checkLayout(t *testing.T, what string, l graphLayout, maxNodes int) {
	t.Helper()
	if l.Nodes == 0 || l.Nodes > maxNodes {
		t.Errorf("%s: %d nodes, want 1..%d", what, l.Nodes, maxNodes)
	}
	if len(l.Overlaps) > 0 {
		t.Errorf("%s: %d overlapping labels: %s", what, len(l.Overlaps), strings.Join(l.Overlaps, "; "))
	}
	if len(l.Outside) > 0 {
		t.Errorf("%s: drawn outside the canvas: %s", what, strings.Join(l.Outside, "; "))
	}
	// 11 px labels at this zoom: below 0.7 they are too small to read.
	if l.Zoom < 0.7 {
		t.Errorf("%s: drawn at zoom %.2f, labels unreadably small", what, l.Zoom)
	}
}

// TestBrowserGraphViews draws the graph of a CUAD contract with 46 clauses
// and of a party with 50 contracts, measures that the nodes are few and no
// two labels overlap, and follows nodes to their own graphs.
func TestBrowserGraphViews(t *testing.T) {
	if testing.Short() {
		t.Skip("browser tests are slow; skipped with -short")
	}
	s, _ := newTestServer(t, nil)
	putCUADContract(t, s.store, limeID)
	northwind, contoso := putNorthwind(t, s.store)
	ts := httptest.NewServer(s.Handler())
	defer ts.Close()
	shots := shotsDir(t)
	ctx := browser(t, 2*time.Minute)

	must(t, ctx, "open the CUAD contract's graph", chromedp.Navigate(ts.URL+web.ContractGraphURL(limeID)))
	waitFor(t, ctx, "the graph", `document.getElementById('cy').dataset.ready === 'true'`)
	l := eval[graphLayout](t, ctx, measureGraph)
	checkLayout(t, "46-clause contract", l, 30)
	t.Logf("46-clause contract: %d nodes at zoom %.2f", l.Nodes, l.Zoom)
	if !slices.ContainsFunc(l.Labels, func(s string) bool { return strings.HasPrefix(s, "Warranty Duration\n8 clauses") }) {
		t.Errorf("no node for the 8 Warranty Duration clauses: %q", l.Labels)
	}
	screenshot(t, ctx, shots, "graph-cuad-46-clauses")

	// A clause type opens its first clause in the text.
	clickNode(t, ctx, "Warranty Duration")
	waitNavigated(t, ctx, "the contract page at the clause", `document.readyState === 'complete' && !location.pathname.endsWith('/graph') && location.hash.startsWith('#clause-')`)
	if got := eval[string](t, ctx, `document.getElementById(location.hash.slice(1)).title`); !strings.Contains(got, "Warranty Duration") {
		t.Errorf("the clause node opened %s, a highlight of %q", eval[string](t, ctx, `location.hash`), got)
	}

	must(t, ctx, "open the party's graph", chromedp.Navigate(ts.URL+web.PartyGraphURL(northwind)))
	waitFor(t, ctx, "the graph", `document.getElementById('cy').dataset.ready === 'true'`)
	l = eval[graphLayout](t, ctx, measureGraph)
	checkLayout(t, "party with 50 contracts", l, 1+maxClusters+maxCounterparties)
	t.Logf("party with 50 contracts: %d nodes at zoom %.2f", l.Nodes, l.Zoom)
	contosos := 0
	for _, label := range l.Labels {
		if strings.Contains(label, "ontoso") {
			contosos++
		}
	}
	if contosos != 1 {
		t.Errorf("Contoso, resolved from three spellings, is drawn %d times: %q", contosos, l.Labels)
	}
	screenshot(t, ctx, shots, "graph-party-50-contracts")

	// By year, then through a counterparty to its own graph.
	must(t, ctx, "group by year", chromedp.Click(chromedp.CSS(`a[href$="?by=year"]`)))
	waitNavigated(t, ctx, "the graph by year", `location.search === '?by=year' && document.getElementById('cy').dataset.ready === 'true'`)
	l = eval[graphLayout](t, ctx, measureGraph)
	checkLayout(t, "party with 50 contracts by year", l, 1+maxClusters+maxCounterparties)
	screenshot(t, ctx, shots, "graph-party-50-contracts-by-year")
	clickNode(t, ctx, "Contoso")
	waitNavigated(t, ctx, "Contoso's own graph", fmt.Sprintf(`location.pathname === %q && document.getElementById('cy').dataset.ready === 'true'`, web.PartyGraphURL(contoso)))

	// A cluster opens the list of its contracts: as many as it counts.
	must(t, ctx, "back to Northwind", chromedp.Navigate(ts.URL+web.PartyGraphURL(northwind)))
	waitFor(t, ctx, "the graph", `document.getElementById('cy').dataset.ready === 'true'`)
	count := eval[int](t, ctx, `document.getElementById('cy')._cy.nodes().filter(n => n.data('label').startsWith('Supply\n'))[0].data('label').split('\n')[1].split(' ')[0] * 1`)
	clickNode(t, ctx, "Supply")
	waitNavigated(t, ctx, "the Supply contracts", `location.pathname === '/contracts' && document.querySelector('#results h2') !== null`)
	if got, want := eval[string](t, ctx, `document.querySelector('#results h2').textContent`), fmt.Sprintf("%d contracts", count); got != want || count == 0 {
		t.Errorf("the Supply cluster opened a list of %q, want %q", got, want)
	}
}

// TestBrowserPhoneLayout opens the contracts list and the chat on a
// 390 px wide phone: nothing is wider than the screen, the filters start
// folded, rows are compact and dates do not wrap.
func TestBrowserPhoneLayout(t *testing.T) {
	if testing.Short() {
		t.Skip("browser tests are slow; skipped with -short")
	}
	s, _ := newTestServer(t, func(c *Config) { c.Agent = &scriptAsker{}; c.ModelName = "scripted:test" })
	ts := httptest.NewServer(s.Handler())
	defer ts.Close()
	shots := shotsDir(t)
	ctx := browser(t, time.Minute)
	must(t, ctx, "emulate a phone", chromedp.EmulateViewport(390, 844, chromedp.EmulateMobile))

	must(t, ctx, "open the contracts list", chromedp.Navigate(ts.URL+"/contracts"), chromedp.WaitVisible(chromedp.CSS("#results")))
	if w := eval[int](t, ctx, `document.scrollingElement.scrollWidth`); w > 390 {
		t.Errorf("the list is %d px wide on a 390 px screen", w)
	}
	if eval[bool](t, ctx, `document.getElementById('filter-panel').open`) {
		t.Error("the filters are open on a phone")
	}
	if h := eval[float64](t, ctx, `document.getElementById('filter-panel').getBoundingClientRect().height`); h > 80 {
		t.Errorf("the folded filters are %.0f px tall", h)
	}
	if top := eval[float64](t, ctx, `document.querySelector('#results tbody tr').getBoundingClientRect().top`); top > 400 {
		t.Errorf("the first contract starts %.0f px down the screen", top)
	}
	rows := eval[[]float64](t, ctx, `[...document.querySelectorAll('#results tbody tr')].map(r => r.getBoundingClientRect().height)`)
	for i, h := range rows {
		if h > 220 {
			t.Errorf("row %d is %.0f px tall", i, h)
		}
	}
	// A date is one line: all of its characters sit on one line box.
	lines := eval[[]int](t, ctx, `[...document.querySelectorAll('#results td.date')].filter(td => td.textContent.trim()).map(td => {
		const r = document.createRange(); r.selectNodeContents(td);
		return new Set([...r.getClientRects()].map(x => Math.round(x.top))).size; })`)
	for i, n := range lines {
		if n != 1 {
			t.Errorf("date %d is on %d lines", i, n)
			break
		}
	}
	screenshot(t, ctx, shots, "phone-contracts")

	must(t, ctx, "open the filters", chromedp.Click(chromedp.CSS(`#filter-panel > summary`)))
	waitFor(t, ctx, "the open filters", `document.getElementById('filter-panel').open && document.getElementById('f-party').getBoundingClientRect().height > 0`)
	must(t, ctx, "filter by party",
		chromedp.SendKeys(chromedp.ID("f-party"), "Initech"),
		chromedp.Click(chromedp.CSS(`form.filters button[type=submit]`)),
	)
	waitFor(t, ctx, "the filtered results", `document.querySelector('#results h2').textContent.trim() === '1 contract'`)
	if w := eval[int](t, ctx, `document.scrollingElement.scrollWidth`); w > 390 {
		t.Errorf("the open filters are %d px wide on a 390 px screen", w)
	}
	screenshot(t, ctx, shots, "phone-filters")

	must(t, ctx, "open the chat", chromedp.Navigate(ts.URL+"/chat"), chromedp.WaitVisible(chromedp.ID("question")))
	if w := eval[int](t, ctx, `document.scrollingElement.scrollWidth`); w > 390 {
		t.Errorf("the chat is %d px wide on a 390 px screen", w)
	}
	if right := eval[float64](t, ctx, `Math.max(...[...document.querySelectorAll('#chat-form *')].map(e => e.getBoundingClientRect().right))`); right > 390 {
		t.Errorf("the chat form reaches %.0f px on a 390 px screen", right)
	}
	screenshot(t, ctx, shots, "phone-chat")
}

// TestBrowserStickyTextPane reads a CUAD contract: the text pane stays in
// view while the clause list scrolls, a clause link scrolls the pane (not
// the page) to its highlight, and the page shows durations in words and
// the source's file name only; a Markdown contract is rendered.
func TestBrowserStickyTextPane(t *testing.T) {
	if testing.Short() {
		t.Skip("browser tests are slow; skipped with -short")
	}
	s, _ := newTestServer(t, nil)
	putCUADContract(t, s.store, limeID)
	c, err := s.store.GetContract(context.Background(), limeID) // with the clause ids the API gives
	if err != nil {
		t.Fatal(err)
	}
	md := "# Office Lease\n\nThe **Landlord** leases the office to the *Tenant*.\n\n## 2. Term\n\n- The lease runs for two years.\n- <script>alert(1)</script>\n"
	if _, err := s.store.PutContracts(context.Background(), []*contract.Contract{{ID: "office-lease-md", Title: "Office Lease", SourcePath: "/home/counsel/leases/office.md", Text: md}}); err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(s.Handler())
	defer ts.Close()
	shots := shotsDir(t)
	ctx := browser(t, time.Minute)

	must(t, ctx, "open the contract", chromedp.Navigate(ts.URL+web.ContractURL(limeID)), chromedp.WaitVisible(chromedp.ID("contract-text")))
	meta := eval[string](t, ctx, `document.querySelector('dl.meta').innerText`)
	if !strings.Contains(meta, "1 year") || strings.Contains(meta, "P1Y") {
		t.Errorf("the renewal term is not in words:\n%s", meta)
	}
	if strings.Contains(meta, "/") || !strings.Contains(meta, "LIMEENERGYCO_09_09_1999-EX-10-DISTRIBUTOR AGREEMENT.txt") {
		t.Errorf("Source is not the file's name alone:\n%s", meta)
	}
	// Scroll the page to the end of the clause list: the pane stays.
	last := eval[string](t, ctx, `[...document.querySelectorAll('.clause-list a[href^="#clause-"]')].pop().getAttribute('href')`)
	eval[bool](t, ctx, `document.querySelector('.clause-list a[href="`+last+`"]').scrollIntoView({block: 'center'}), true`)
	scrolled := eval[float64](t, ctx, `window.scrollY`)
	if scrolled < 1000 {
		t.Fatalf("the clause list is too short to test scrolling (scrolled %.0f px)", scrolled)
	}
	pane := eval[[]float64](t, ctx, `(() => { const r = document.getElementById('contract-text').getBoundingClientRect(); return [r.top, r.bottom, innerHeight]; })()`)
	if pane[0] < 0 || pane[0] > 120 || pane[1] > pane[2]+1 {
		t.Errorf("after scrolling %.0f px the text pane spans %.0f..%.0f px of a %.0f px window", scrolled, pane[0], pane[1], pane[2])
	}
	must(t, ctx, "click the last clause", chromedp.Click(chromedp.CSS(`.clause-list a[href="`+last+`"]`)))
	waitFor(t, ctx, "the clause anchor", `location.hash === '`+last+`'`)
	if d := eval[float64](t, ctx, `window.scrollY`) - scrolled; d > 2 || d < -2 {
		t.Errorf("clicking a clause scrolled the page by %.0f px", d)
	}
	in := eval[[]float64](t, ctx, `(() => { const p = document.getElementById('contract-text').getBoundingClientRect();
		const m = document.querySelector('#contract-text mark.current').getBoundingClientRect(); return [m.top - p.top, p.bottom - m.top]; })()`)
	if in[0] < 0 || in[1] < 20 {
		t.Errorf("the clicked clause is not in view in the pane (%.0f px from its top, %.0f px from its bottom)", in[0], in[1])
	}
	// The anchor is the API's clause id after "#".
	n := 0
	fmt.Sscanf(last, "#clause-%d", &n)
	if n < 1 || n > len(c.Clauses) || c.Clauses[n-1].ID != limeID+last {
		t.Errorf("page anchor %s is not the API's clause id", last)
	}
	viewportShot(t, ctx, shots, "contract-sticky-pane")

	must(t, ctx, "open the Markdown contract", chromedp.Navigate(ts.URL+web.ContractURL("office-lease-md")), chromedp.WaitVisible(chromedp.ID("contract-text")))
	if got := eval[string](t, ctx, `document.querySelector('#contract-text h3').textContent + '|' + document.querySelector('#contract-text strong').textContent`); got != "Office Lease|Landlord" {
		t.Errorf("Markdown rendered as %q", got)
	}
	text := eval[string](t, ctx, `document.getElementById('contract-text').innerText`)
	if strings.Contains(text, "**") || strings.Contains(text, "## ") || !strings.Contains(text, "<script>alert(1)</script>") {
		t.Errorf("Markdown text shows its markup or hides the raw HTML it quotes:\n%s", text)
	}
	if n := eval[int](t, ctx, `document.querySelectorAll('#contract-text script').length`); n != 0 {
		t.Errorf("the Markdown's <script> became %d script elements", n)
	}
	viewportShot(t, ctx, shots, "contract-markdown")
}

// TestBrowserRiskReviewFailure runs a review whose model fails: the page
// says it did not complete, in red, and shows no "✓ Done".
func TestBrowserRiskReviewFailure(t *testing.T) {
	if testing.Short() {
		t.Skip("browser tests are slow; skipped with -short")
	}
	store := riskStore(t)
	ts := riskServer(t, store, &risk.Deps{Model: llmtest.NewScripted(llmtest.Fail(fmt.Errorf("openai: %w", llm.ErrUnavailable)))})
	shots := shotsDir(t)
	ctx := browser(t, time.Minute)
	must(t, ctx, "start the review",
		chromedp.Navigate(ts.URL+"/contracts/hooli-supply/risk"),
		chromedp.WaitVisible(chromedp.ID("risk-start")),
		chromedp.Click(chromedp.ID("risk-start")),
	)
	waitFor(t, ctx, "the end of the review", `!document.getElementById('risk-error').hidden && document.querySelector('#risk-stages li[data-stage="done"]') !== null`)
	done := eval[string](t, ctx, `(() => { const li = document.querySelector('#risk-stages li[data-stage="done"]');
		return li.className + '|' + li.innerText + '|' + getComputedStyle(li.querySelector('strong'), '::before').content; })()`)
	if !strings.Contains(done, "failed") || strings.Contains(done, "finished") || !strings.Contains(done, "Not completed") || strings.Contains(done, "Done") || strings.Contains(done, "✓") {
		t.Errorf("the last stage of a failed review shows %q", done)
	}
	if got := eval[string](t, ctx, `document.getElementById('risk-error').textContent`); !strings.Contains(got, "model unavailable") {
		t.Errorf("error shown: %q", got)
	}
	viewportShot(t, ctx, shots, "risk-review-failed")
}
