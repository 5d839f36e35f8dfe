package httpapi

import (
	"context"
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"github.com/contractgraph/contractgraph/internal/contract"
	"github.com/contractgraph/contractgraph/internal/graph"
	"github.com/contractgraph/contractgraph/internal/graph/sqlite"
	"github.com/contractgraph/contractgraph/internal/tools"
)

// scanFixture stores a two-page contract whose second page was
// recognised: "Governing Law" on one line, the clause's sentence over two.
func scanFixture(t *testing.T) (*sqlite.Store, *Server) {
	t.Helper()
	store, err := sqlite.Open(filepath.Join(t.TempDir(), "scan.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	page1 := "SUPPLY AGREEMENT between Halvorsen and Northgate."
	page2 := "7. Governing Law.\nOhio law governs\nthis Agreement."
	text := page1 + "\f" + page2
	p2 := len(page1) + 1
	clause := strings.Index(text, "Ohio")
	c := &contract.Contract{ID: "scan", Title: "Scanned supply", Text: text, SHA256: "feedface",
		Clauses: []contract.Clause{{Type: "Governing Law", Text: text[clause:], Start: clause, End: len(text), Verified: true}}}
	ctx := context.Background()
	if _, err := store.PutContracts(ctx, []*contract.Contract{c}); err != nil {
		t.Fatal(err)
	}
	word := func(w string, x, y int) contract.PageWord {
		i := strings.Index(text[p2:], w) + p2
		return contract.PageWord{Start: i, End: i + len(w), X: x, Y: y, W: 20 * len(w), H: 40, Conf: 95}
	}
	err = store.PutPages(ctx, graph.ContractPages{ContractID: "scan", SHA256: "feedface", Pages: []contract.Page{
		{Number: 1, Source: contract.PageText, Start: 0, End: len(page1)},
		{Number: 2, Source: contract.PageOCR, Start: p2, End: len(text), Confidence: 62, Width: 2000, Height: 3000, Image: []byte("\x89PNG\r\n\x1a\nfake"),
			Words: []contract.PageWord{word("7.", 200, 300), word("Governing", 260, 300), word("Law.", 460, 300),
				word("Ohio", 200, 400), word("law", 300, 402), word("governs", 380, 398), word("this", 200, 500), word("Agreement.", 300, 500)}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	s, err := New(Config{Store: store, Tools: tools.New(store, tools.Options{})})
	if err != nil {
		t.Fatal(err)
	}
	return store, s
}

func TestContractPageScanView(t *testing.T) {
	store, s := scanFixture(t)
	rec := do(t, s.Handler(), "GET", "/contracts/scan", "", nil)
	body := rec.Body.String()
	if rec.Code != 200 {
		t.Fatalf("status %d: %s", rec.Code, body)
	}
	for _, want := range []string{
		`<img src="/contracts/scan/pages/2?v=feedface" alt="Scanned page 2">`,
		// Two lines of the clause, "Ohio law governs" (x 200-520, y 398-442)
		// and "this Agreement." (x 200-500, y 500-540), in 2000×3000 pixels
		// with 7 pixels of room.
		`href="#clause-1" data-span="clause-1" title="Governing Law" aria-label="Governing Law" style="left:9.650%;top:13.033%;width:16.700%;height:1.933%"`,
		`style="left:9.650%;top:16.433%;width:15.700%;height:1.800%"`,
		`<a href="/contracts/scan/pages/2?v=feedface">Page 2</a> · OCR confidence 62%`, "low confidence",
	} {
		if !strings.Contains(body, want) {
			t.Errorf("contract page lacks %s in\n%s", want, body[strings.Index(body, "scan-frame"):])
		}
	}
	if n := strings.Count(body, `class="scan-box"`); n != 2 {
		t.Errorf("%d boxes, want 2 (one a line)", n)
	}
	if strings.Contains(body, "Scanned page 1") {
		t.Error("a text-layer page is shown as a scan")
	}
	// A cited span ("Governing Law." on page 2) gets boxes of its own.
	rec = do(t, s.Handler(), "GET", "/contracts/scan?span=53-67", "", nil)
	if !strings.Contains(rec.Body.String(), `class="scan-box cited" href="#cited"`) {
		t.Errorf("cited span has no box:\n%s", rec.Body.String())
	}

	rec = do(t, s.Handler(), "GET", "/contracts/scan/pages/2?v=feedface", "", nil)
	if rec.Code != 200 || rec.Header().Get("Content-Type") != "image/png" || !strings.HasPrefix(rec.Body.String(), "\x89PNG") {
		t.Errorf("page image: %d %s", rec.Code, rec.Header().Get("Content-Type"))
	}
	for _, path := range []string{"/contracts/scan/pages/1", "/contracts/scan/pages/9", "/contracts/scan/pages/x", "/contracts/nope/pages/2"} {
		if rec := do(t, s.Handler(), "GET", path, "", nil); rec.Code != http.StatusNotFound {
			t.Errorf("%s: status %d, want 404", path, rec.Code)
		}
	}

	// Pages read from another version of the source are not shown.
	ctx := context.Background()
	pages, err := store.Pages(ctx, "scan")
	if err != nil {
		t.Fatal(err)
	}
	pages.SHA256 = "0ther"
	if err := store.PutPages(ctx, *pages); err != nil {
		t.Fatal(err)
	}
	if body := do(t, s.Handler(), "GET", "/contracts/scan", "", nil).Body.String(); strings.Contains(body, "Scanned pages") {
		t.Error("pages of another source version are shown")
	}
}
