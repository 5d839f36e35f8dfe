package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/contractgraph/contractgraph/internal/contract"
	"github.com/contractgraph/contractgraph/internal/extract"
	"github.com/contractgraph/contractgraph/internal/extract/extracttest"
	"github.com/contractgraph/contractgraph/internal/graph/sqlite"
	"github.com/contractgraph/contractgraph/internal/ingest"
	"github.com/contractgraph/contractgraph/internal/ingest/scantest"
)

// needOCRTools skips without tesseract and pdftoppm, except in CI, whose
// .ci/run installs them.
func needOCRTools(t *testing.T) {
	t.Helper()
	if ingest.FindTesseract() == "" || ingest.FindPDFToPPM() == "" {
		if os.Getenv("CI") != "" {
			t.Fatal("tesseract or pdftoppm is missing; .ci/run installs tesseract-ocr and poppler-utils")
		}
		t.Skip("needs tesseract and pdftoppm: apt-get install tesseract-ocr tesseract-ocr-eng poppler-utils")
	}
}

// sourceQuotes is a fake model's reading of the sample contract: the
// heuristic's values plus clauses quoting sentences of the source text
// (not of the recognised text the model is sent), as a model that read
// the paper would.
func sourceQuotes(src string) extract.Extraction {
	x := extracttest.Heuristic(src)
	for typ, sentence := range map[string]string{
		"Exclusivity":                 "During the term Halvorsen Brewing Company shall buy all of its cans from Northgate Packaging LLC and from no other supplier.",
		"Cap On Liability":            "the liability of each party shall not exceed the fees paid in the twelve months before the claim.",
		"Anti-Assignment":             "Neither party may assign this Agreement without the prior written consent of the other party, which shall not be unreasonably withheld.",
		"Renewal Term":                "It renews automatically for further periods of one year unless either party gives written notice of non-renewal at least ninety days before the end of the current term.",
		"Termination For Convenience": "Either party may terminate this Agreement if the other party commits a material breach and fails to cure it within thirty days of written notice.",
	} {
		x.Clauses = append(x.Clauses, extract.ClauseValue{ClauseType: typ, Text: sentence, Summary: typ})
	}
	return x
}

// TestIngestScannedPDF ingests a noisy, slightly rotated scan of a sample
// contract: the values a fake model quotes from the source are verified
// against the recognised text, their spans slice the stored text, and the
// pages are stored with their words for the page view.
func TestIngestScannedPDF(t *testing.T) {
	needOCRTools(t)
	src, err := os.ReadFile(filepath.Join("..", "..", "internal", "ingest", "testdata", "scan", "supply-agreement.txt"))
	if err != nil {
		t.Fatal(err)
	}
	pdf, err := scantest.ScannedPDF(string(src), scantest.Options{Rotate: 0.6, Noise: 0.01, Seed: 11})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "supply-scan.pdf"), pdf, 0o644); err != nil {
		t.Fatal(err)
	}
	srv := extracttest.NewServer(t, func(n int, req extracttest.Request) extracttest.Reply {
		return extracttest.JSON(sourceQuotes(string(src)), extract.EstimateTokens(req.ContractText()), 100)
	})
	t.Setenv("OPENAI_BASE_URL", srv.URL)
	t.Setenv("OPENAI_API_KEY", "test")
	db := filepath.Join(t.TempDir(), "g.db")
	out, errOut, code := runContractgraph(t, "", "--db", db, "--model", "openai:gpt-fake", "ingest", "--no-resolve", dir)
	if code != 0 {
		t.Fatalf("exit %d; stdout %q stderr %q", code, out, errOut)
	}
	if !strings.Contains(out, "ocr:       "+filepath.Join(dir, "supply-scan.pdf")+": page 1 recognised, confidence ") || !strings.Contains(out, "ok 1, unchanged 0, failed 0") {
		t.Errorf("summary:\n%s", out)
	}

	s, err := sqlite.Open(db)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	c, err := s.GetContract(ctx, "supply-scan")
	if err != nil {
		t.Fatal(err)
	}
	if acc := scantest.WordAccuracy(string(src), c.Text); acc < 0.9 {
		t.Errorf("stored text word accuracy %.3f", acc)
	}
	verified := 0
	for _, cl := range c.Clauses {
		if !cl.Verified {
			t.Logf("unverified clause %s: %q", cl.Type, cl.Text)
			continue
		}
		verified++
		if c.Text[cl.Start:cl.End] != cl.Text {
			t.Errorf("clause %s [%d,%d) slices %q, stored %q", cl.Type, cl.Start, cl.End, c.Text[cl.Start:cl.End], cl.Text)
		}
	}
	if verified < 4 {
		t.Errorf("%d of %d clauses verified against the recognised text, want at least 4", verified, len(c.Clauses))
	}
	ev := 0
	for _, e := range c.Evidence {
		if e.Verified {
			ev++
			if c.Text[e.Start:e.End] != e.Quote {
				t.Errorf("evidence %s [%d,%d) slices %q, quote %q", e.Field, e.Start, e.End, c.Text[e.Start:e.End], e.Quote)
			}
		}
	}
	if ev < 3 || c.GoverningLaw == nil || c.GoverningLaw.State != "OH" || c.EffectiveDate != "2021-03-03" {
		t.Errorf("%d verified evidence, governing law %+v, effective %q", ev, c.GoverningLaw, c.EffectiveDate)
	}
	pages, err := s.Pages(ctx, "supply-scan")
	if err != nil {
		t.Fatal(err)
	}
	if pages.SHA256 != c.SHA256 || len(pages.Pages) != 1 || pages.Pages[0].Source != contract.PageOCR || len(pages.Pages[0].Words) < 250 {
		t.Fatalf("stored pages: sha %s (contract %s), %d pages", pages.SHA256, c.SHA256, len(pages.Pages))
	}
	for _, w := range pages.Pages[0].Words {
		if word := c.Text[w.Start:w.End]; strings.TrimSpace(word) != word || word == "" {
			t.Fatalf("stored word [%d,%d) slices %q", w.Start, w.End, word)
		}
	}
	if img, err := s.PageImage(ctx, "supply-scan", 1); err != nil || len(img) < 1000 {
		t.Errorf("page image: %d bytes, %v", len(img), err)
	}

	// Unchanged: no OCR and no model call the second time.
	before := len(srv.Requests())
	out, _, code = runContractgraph(t, "", "--db", db, "--model", "openai:gpt-fake", "ingest", "--no-resolve", dir)
	if code != 0 || !strings.Contains(out, "ok 0, unchanged 1") || len(srv.Requests()) != before {
		t.Errorf("second run: exit %d, %d new requests:\n%s", code, len(srv.Requests())-before, out)
	}
}

// TestIngestScanWithoutTesseract runs ingest with a PATH that has poppler
// but no tesseract: the scan fails naming the install command, and the
// text file in the same batch is ingested.
func TestIngestScanWithoutTesseract(t *testing.T) {
	bin := t.TempDir()
	for _, name := range []string{"pdftotext", "pdftoppm"} {
		if p, err := exec.LookPath(name); err == nil {
			if err := os.Symlink(p, filepath.Join(bin, name)); err != nil {
				t.Fatal(err)
			}
		}
	}
	imgs, err := scantest.Pages("A scanned amendment.", scantest.Options{DPI: 100})
	if err != nil {
		t.Fatal(err)
	}
	jpg, err := scantest.JPEG(imgs[0])
	if err != nil {
		t.Fatal(err)
	}
	pdf, err := scantest.PDF([]scantest.Page{{JPEG: jpg}})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "scan.pdf"), pdf, 0o644)
	os.WriteFile(filepath.Join(dir, "lease.txt"), []byte("LEASE AGREEMENT\n\nThis Lease is made on January 5, 2022 between Acme Corp., a Delaware corporation, and Bolt LLC, a Texas limited liability company.\n"), 0o644)
	srv := extracttest.NewServer(t, func(n int, req extracttest.Request) extracttest.Reply {
		text := req.ContractText()
		return extracttest.JSON(extracttest.Heuristic(text), extract.EstimateTokens(text), 100)
	})
	t.Setenv("OPENAI_BASE_URL", srv.URL)
	t.Setenv("OPENAI_API_KEY", "test")
	t.Setenv("PATH", bin)
	db := filepath.Join(t.TempDir(), "g.db")
	out, errOut, code := runContractgraph(t, "", "--db", db, "--model", "openai:gpt-fake", "ingest", "--no-resolve", dir)
	if code != 1 {
		t.Fatalf("exit %d, want 1; stdout %q stderr %q", code, out, errOut)
	}
	want := "failed:    " + filepath.Join(dir, "scan.pdf") + ": scanned pages need OCR: install Tesseract with: apt-get install tesseract-ocr\n"
	if ingest.FindPDFToPPM() == "" { // no poppler on this machine either
		want = "failed:    " + filepath.Join(dir, "scan.pdf") + ": scanned pages need OCR: install Tesseract and poppler with: apt-get install tesseract-ocr poppler-utils\n"
	}
	if !strings.Contains(out, want) || !strings.Contains(out, "ok 1, unchanged 0, failed 1") {
		t.Errorf("summary:\n%s\nwant the line %q", out, want)
	}
	if _, errOut, code := runContractgraph(t, "", "--db", db, "--model", "openai:gpt-fake", "ingest", "--ocr", "sometimes", dir); code != 2 || !strings.Contains(errOut, "--ocr") {
		t.Errorf("--ocr sometimes: exit %d, %s", code, errOut)
	}
	if _, errOut, code := runContractgraph(t, "", "--db", db, "--model", "openai:gpt-fake", "ingest", "--ocr-lang", "eng;rm", dir); code != 2 || !strings.Contains(errOut, "--ocr-lang") {
		t.Errorf("--ocr-lang eng;rm: exit %d, %s", code, errOut)
	}
}

func TestPageList(t *testing.T) {
	for want, pages := range map[string][]int{"page 2": {2}, "pages 1-3, 5": {1, 2, 3, 5}, "pages 1, 3": {1, 3}} {
		if got := pageList(pages); got != want {
			t.Errorf("pageList(%v) = %q, want %q", pages, got, want)
		}
	}
}

func TestIngestBarShowsOCRPages(t *testing.T) {
	var buf strings.Builder
	b := &ingestBar{w: &buf, enabled: true, width: 100}
	b.recognising("/scans/lease.pdf", 2, 12)
	if !strings.Contains(buf.String(), "lease: OCR page 3/12") {
		t.Errorf("bar = %q, want the page being recognised", buf.String())
	}
}
