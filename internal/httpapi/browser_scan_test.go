package httpapi

import (
	"context"
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/contractgraph/contractgraph/internal/contract"
	"github.com/contractgraph/contractgraph/internal/extract"
	"github.com/contractgraph/contractgraph/internal/graph"
	"github.com/contractgraph/contractgraph/internal/graph/sqlite"
	"github.com/contractgraph/contractgraph/internal/ingest"
	"github.com/contractgraph/contractgraph/internal/ingest/scantest"
	"github.com/contractgraph/contractgraph/internal/tools"
)

// scannedStore recognises a generated scan of the sample contract with the
// real loader (Tesseract) and stores it with two clauses located in the
// recognised text and its pages, as ingest would.
func scannedStore(t *testing.T) *sqlite.Store {
	t.Helper()
	tess, ppm := ingest.FindTesseract(), ingest.FindPDFToPPM()
	if tess == "" || ppm == "" {
		msg := "needs tesseract and pdftoppm: apt-get install tesseract-ocr tesseract-ocr-eng poppler-utils"
		if os.Getenv("CI") != "" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	src, err := os.ReadFile(filepath.Join("..", "ingest", "testdata", "scan", "supply-agreement.txt"))
	if err != nil {
		t.Fatal(err)
	}
	pdf, err := scantest.ScannedPDF(string(src), scantest.Options{Rotate: 0.5, Noise: 0.005, Seed: 21})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "supply-scan.pdf")
	if err := os.WriteFile(path, pdf, 0o644); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	doc, err := ingest.NewLoader(ingest.LoaderOptions{PDFToText: ingest.FindPDFToText(), Tesseract: tess, PDFToPPM: ppm}).Load(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	c := &contract.Contract{ID: doc.ID, Title: "Supply Agreement (scan)", Text: doc.Text, SHA256: doc.SHA256, SourcePath: path}
	loc := extract.NewLocator(doc.Text)
	for _, q := range []struct{ typ, quote string }{
		{"Exclusivity", "During the term Halvorsen Brewing Company shall buy all of its cans from Northgate Packaging LLC and from no other supplier."},
		{"Governing Law", "This Agreement is governed by the laws of the State of Ohio"},
	} {
		m, ok := loc.Locate(q.quote)
		if !ok {
			t.Fatalf("%s: %q not in the recognised text:\n%s", q.typ, q.quote, doc.Text)
		}
		c.Clauses = append(c.Clauses, contract.Clause{Type: q.typ, Text: doc.Text[m.Start:m.End], Start: m.Start, End: m.End, Verified: true})
	}
	store, err := sqlite.Open(filepath.Join(t.TempDir(), "scan.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	if _, err := store.PutContracts(ctx, []*contract.Contract{c}); err != nil {
		t.Fatal(err)
	}
	if err := store.PutPages(ctx, graph.ContractPages{ContractID: doc.ID, SHA256: doc.SHA256, Pages: doc.Pages}); err != nil {
		t.Fatal(err)
	}
	return store
}

// inkInBoxes measures, for the boxes of one span, the share of dark pixels
// of the page image under each box, by drawing the image on a canvas.
const inkInBoxes = `((span) => {
	const img = document.querySelector('#scan img');
	const cv = document.createElement('canvas');
	cv.width = img.naturalWidth; cv.height = img.naturalHeight;
	const g = cv.getContext('2d');
	g.drawImage(img, 0, 0);
	const frame = img.getBoundingClientRect();
	return [...document.querySelectorAll('.scan-box[data-span="' + span + '"]')].map(b => {
		const r = b.getBoundingClientRect();
		const sx = img.naturalWidth / frame.width, sy = img.naturalHeight / frame.height;
		const x = Math.round((r.left - frame.left) * sx), y = Math.round((r.top - frame.top) * sy);
		const w = Math.max(1, Math.round(r.width * sx)), h = Math.max(1, Math.round(r.height * sy));
		const d = g.getImageData(x, y, w, h).data;
		let dark = 0;
		for (let i = 0; i < d.length; i += 4) if (d[i] < 110) dark++;
		return dark / (w * h);
	});
})`

// TestBrowserScannedContract opens a contract recognised from a scan: the
// page image is shown with boxes around each clause's words, the boxes lie
// on the words' ink, and selecting a box shows its clause in the text.
func TestBrowserScannedContract(t *testing.T) {
	if testing.Short() {
		t.Skip("browser tests are slow; skipped with -short")
	}
	store := scannedStore(t)
	s, err := New(Config{Store: store, Tools: tools.New(store, tools.Options{})})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(s.Handler())
	defer ts.Close()
	shots := shotsDir(t)
	ctx := browser(t, 2*time.Minute)

	must(t, ctx, "open the scanned contract", chromedp.Navigate(ts.URL+"/contracts/supply-scan"), chromedp.WaitVisible(chromedp.CSS("#scan img")))
	waitFor(t, ctx, "the page image", `document.querySelector('#scan img').complete && document.querySelector('#scan img').naturalWidth > 0`)
	if w := eval[int](t, ctx, `document.querySelector('#scan img').naturalWidth`); w != 850 {
		t.Errorf("page image %d pixels wide, want 850 (100 DPI)", w)
	}
	if got := eval[string](t, ctx, `document.querySelector('#scan figcaption').textContent`); !regexp.MustCompile(`^Page 1 · OCR confidence [89]\d%$`).MatchString(got) {
		t.Errorf("caption = %q", got)
	}
	// Exclusivity spans two lines of the page, governing law one or two;
	// every box sits on ink (a box on blank paper would be a few specks).
	for _, span := range []string{"clause-1", "clause-2"} {
		ink := eval[[]float64](t, ctx, inkInBoxes+fmt.Sprintf("(%q)", span))
		if len(ink) == 0 || len(ink) > 3 {
			t.Errorf("%s: %d boxes, want one a line", span, len(ink))
		}
		for i, share := range ink {
			if share < 0.04 {
				t.Errorf("%s box %d: %.1f%% dark pixels, want the words' ink under it", span, i, 100*share)
			}
		}
	}
	// The governing-law clause (section 7) is boxed below exclusivity (4).
	if !eval[bool](t, ctx, `document.querySelector('.scan-box[data-span="clause-2"]').getBoundingClientRect().top > document.querySelector('.scan-box[data-span="clause-1"]').getBoundingClientRect().bottom`) {
		t.Error("the governing-law boxes are not below the exclusivity boxes")
	}

	must(t, ctx, "select a governing-law box", chromedp.ScrollIntoView(chromedp.CSS(`.scan-box[data-span="clause-2"]`)), chromedp.Click(chromedp.CSS(`.scan-box[data-span="clause-2"]`)))
	waitFor(t, ctx, "the clause in the text", `location.hash === '#clause-2' && document.querySelector('mark#clause-2.current') !== null`)
	if got := eval[string](t, ctx, `document.querySelector('mark#clause-2').textContent.replace(/\s+/g, ' ')`); got != "This Agreement is governed by the laws of the State of Ohio" {
		t.Errorf("highlighted text = %q", got)
	}
	if n := eval[int](t, ctx, `document.querySelectorAll('.scan-box.current[data-span="clause-2"]').length`); n == 0 {
		t.Error("the selected clause's boxes are not marked current")
	}
	must(t, ctx, "scroll to the scan", chromedp.ScrollIntoView(chromedp.CSS(`#scan`)))
	viewportShot(t, ctx, shots, "8-scanned-contract")
}
