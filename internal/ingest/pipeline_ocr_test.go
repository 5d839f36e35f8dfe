package ingest_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/contractgraph/contractgraph/internal/contract"
	"github.com/contractgraph/contractgraph/internal/extract"
	"github.com/contractgraph/contractgraph/internal/graph"
	"github.com/contractgraph/contractgraph/internal/ingest"
	"github.com/contractgraph/contractgraph/internal/ingest/scantest"
)

// plainStore hides the optional capabilities of the store it wraps, as a
// backend without them (Neo4j has no graph.PageStore) would be.
type plainStore struct{ graph.Store }

// TestPipelineStoresScanPages ingests a poor (fax-like) scan: the file's
// result reports the recognised page and its low confidence, the pages go
// to a store that keeps them, a store that does not says so, and a second
// run finds the file unchanged without recognising it again.
func TestPipelineStoresScanPages(t *testing.T) {
	tess, ppm := ingest.FindTesseract(), ingest.FindPDFToPPM()
	if tess == "" || ppm == "" {
		if os.Getenv("CI") != "" {
			t.Fatal("tesseract or pdftoppm is missing; .ci/run installs tesseract-ocr and poppler-utils")
		}
		t.Skip("needs tesseract and pdftoppm")
	}
	src, err := os.ReadFile(filepath.Join("testdata", "scan", "supply-agreement.txt"))
	if err != nil {
		t.Fatal(err)
	}
	pdf, err := scantest.ScannedPDF(string(src), scantest.Options{DPI: 200, Noise: 0.03, Rotate: 1.5, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "fax.pdf")
	if err := os.WriteFile(path, pdf, 0o644); err != nil {
		t.Fatal(err)
	}
	srv := heuristicServer(t)
	loader := ingest.NewLoader(ingest.LoaderOptions{PDFToText: ingest.FindPDFToText(), Tesseract: tess, PDFToPPM: ppm})
	ext, err := extract.New(srv.Model(t), extract.Options{})
	if err != nil {
		t.Fatal(err)
	}
	run := func(store graph.Store) ingest.FileResult {
		t.Helper()
		p := ingest.NewPipeline(loader, ext, store, ingest.Options{Model: "openai:gpt-fake"})
		sum, err := p.Run(context.Background(), []string{dir})
		if err != nil || len(sum.Files) != 1 {
			t.Fatalf("run: %v, %+v", err, sum)
		}
		return sum.Files[0]
	}
	ctx := context.Background()
	store := openStore(t)
	r := run(store)
	if r.Status != ingest.StatusOK || r.OCR == nil || len(r.OCR.Pages) != 1 || len(r.OCR.LowConfidence) != 1 {
		t.Fatalf("result = %+v, OCR %+v", r, r.OCR)
	}
	if !hasWarning(r.Warnings, "page 1: OCR confidence") {
		t.Errorf("warnings = %q, want page 1's low confidence", r.Warnings)
	}
	pages, err := store.Pages(ctx, "fax")
	if err != nil || len(pages.Pages) != 1 || pages.Pages[0].Source != contract.PageOCR || len(pages.Pages[0].Image) != 0 {
		t.Fatalf("stored pages: %+v, %v", pages, err)
	}
	c, err := store.GetContract(ctx, "fax")
	if err != nil {
		t.Fatal(err)
	}
	// The page is the whole text but the form feed after it.
	if pages.SHA256 != c.SHA256 || pages.Pages[0].Start != 0 || strings.TrimSpace(c.Text[pages.Pages[0].End:]) != "" {
		t.Errorf("pages (sha %s, end %d) do not match the contract (sha %s, %d bytes)", pages.SHA256, pages.Pages[0].End, c.SHA256, len(c.Text))
	}
	if img, err := store.PageImage(ctx, "fax", 1); err != nil || len(img) == 0 {
		t.Errorf("page image: %v", err)
	}

	calls := len(srv.Requests())
	if r := run(store); r.Status != ingest.StatusUnchanged || len(srv.Requests()) != calls {
		t.Errorf("second run: %s with %d model calls", r.Status, len(srv.Requests())-calls)
	}

	other := openStore(t)
	if r := run(plainStore{other}); r.Status != ingest.StatusOK || !hasWarning(r.Warnings, "keeps no page images") {
		t.Errorf("store without pages: %s, warnings %q", r.Status, r.Warnings)
	}
}

func hasWarning(warns []string, part string) bool {
	for _, w := range warns {
		if strings.Contains(w, part) {
			return true
		}
	}
	return false
}
