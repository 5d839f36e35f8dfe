package ingest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/contractgraph/contractgraph/internal/contract"
	"github.com/contractgraph/contractgraph/internal/ingest/scantest"
)

// needOCR returns the paths of tesseract and pdftoppm, skipping the test
// when they are not installed, except in CI, whose .ci/run installs them.
func needOCR(t *testing.T) (tesseract, pdftoppm string) {
	t.Helper()
	tesseract, pdftoppm = FindTesseract(), FindPDFToPPM()
	if tesseract == "" || pdftoppm == "" {
		if os.Getenv("CI") != "" {
			t.Fatal("tesseract or pdftoppm is missing; .ci/run installs tesseract-ocr and poppler-utils")
		}
		t.Skip("needs tesseract and pdftoppm: apt-get install tesseract-ocr tesseract-ocr-eng poppler-utils")
	}
	return tesseract, pdftoppm
}

func sampleContract(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "scan", "supply-agreement.txt"))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// checkPages asserts what every caller of the page view relies on: pages
// tile the text in order, and every word's offsets slice a word of the
// stored text that lies inside its page.
func checkPages(t *testing.T, doc *Document) {
	t.Helper()
	prev := 0
	for _, p := range doc.Pages {
		if p.Start < prev || p.End < p.Start || p.End > len(doc.Text) {
			t.Fatalf("page %d spans [%d,%d) after %d in %d bytes", p.Number, p.Start, p.End, prev, len(doc.Text))
		}
		prev = p.End
		for _, w := range p.Words {
			if w.Start < p.Start || w.End > p.End {
				t.Fatalf("page %d: word [%d,%d) outside the page", p.Number, w.Start, w.End)
			}
			word := doc.Text[w.Start:w.End]
			if word == "" || strings.ContainsAny(word, " \n\t") {
				t.Fatalf("page %d: word [%d,%d) slices %q", p.Number, w.Start, w.End, word)
			}
			if w.W <= 0 || w.H <= 0 || w.X+w.W > p.Width || w.Y+w.H > p.Height {
				t.Fatalf("page %d: word %q box %+v outside the %dx%d image", p.Number, word, w, p.Width, p.Height)
			}
		}
	}
}

func TestParseTSVAndLayout(t *testing.T) {
	tsv := "level\tpage_num\tblock_num\tpar_num\tline_num\tword_num\tleft\ttop\twidth\theight\tconf\ttext\n" +
		"1\t1\t0\t0\t0\t0\t0\t0\t2550\t3300\t-1\t\n" +
		"4\t1\t1\t1\t1\t0\t300\t300\t500\t50\t-1\t\n" +
		"5\t1\t1\t1\t1\t1\t300\t300\t200\t40\t95.5\tSUPPLY\n" +
		"5\t1\t1\t1\t1\t2\t520\t300\t280\t40\t90\tAGREEMENT\n" +
		"5\t1\t1\t1\t1\t3\t827\t335\t2\t2\t0\t-\n" +
		"5\t1\t2\t1\t1\t1\t300\t400\t80\t40\t96\tThis\n" +
		"5\t1\t2\t1\t1\t2\t400\t400\t80\t40\t92\tis\n" +
		"5\t1\t2\t1\t2\t1\t300\t460\t80\t40\t-1\t \n" +
		"5\t1\t2\t1\t2\t2\t300\t460\t80\t40\t88.5\tmade.\n"
	pages, err := parseTSV(strings.NewReader(tsv))
	if err != nil {
		t.Fatal(err)
	}
	if len(pages) != 1 || pages[0].width != 2550 || pages[0].height != 3300 || len(pages[0].words) != 5 {
		t.Fatalf("pages = %+v", pages)
	}
	text, starts := pages[0].layout()
	if want := "SUPPLY AGREEMENT\n\nThis is\nmade."; text != want {
		t.Errorf("layout = %q, want %q", text, want)
	}
	for i, w := range pages[0].words {
		if got := text[starts[i] : starts[i]+len(w.text)]; got != w.text {
			t.Errorf("word %d at %d slices %q, want %q", i, starts[i], got, w.text)
		}
	}
	if c := pages[0].confidence(); c < 92.3 || c > 92.5 {
		t.Errorf("confidence = %v, want the mean 92.4", c)
	}
	for _, bad := range []string{"", "not tsv\n", "level\tx\n5\t1\n", "level\n5\t1\t1\t1\t1\t1\t1\t1\t1\t1\tx\tw\n", "level\n5\t1\t1\t1\t1\t1\t1\t1\t1\t1\t90\tw\n"} {
		if _, err := parseTSV(strings.NewReader(bad)); err == nil && bad != "" {
			t.Errorf("parseTSV(%q) = nil error", bad)
		}
	}
}

func TestOffsetMapNormInvertsSource(t *testing.T) {
	src := "A\r\nB\u200bC\u00a0D\x01E\r\n\r\nF"
	norm, m := Normalize(src)
	for off := 0; off <= len(norm); off++ {
		if got := m.Norm(m.Source(off)); got != off {
			t.Errorf("Norm(Source(%d)) = %d", off, got)
		}
	}
	// A source offset inside a removed character lands where it was.
	if i := strings.Index(src, "\u200b"); m.Norm(i+1) != strings.Index(norm, "C") {
		t.Errorf("Norm inside a removed character = %d, want %d", m.Norm(i+1), strings.Index(norm, "C"))
	}
}

func TestLoadScannedPDF(t *testing.T) {
	tess, ppm := needOCR(t)
	src := sampleContract(t)
	pdf, err := scantest.ScannedPDF(src, scantest.Options{Rotate: 0.5, Noise: 0.01, Seed: 7})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	path := writeFile(t, dir, "scan.pdf", pdf)
	ctx := context.Background()
	for _, pdftotext := range []string{FindPDFToText(), ""} {
		l := NewLoader(LoaderOptions{PDFToText: pdftotext, Tesseract: tess, PDFToPPM: ppm})
		doc, err := l.Load(ctx, path)
		if err != nil {
			t.Fatalf("pdftotext %q: %v", pdftotext, err)
		}
		if len(doc.Pages) == 0 || doc.Pages[0].Source != contract.PageOCR {
			t.Fatalf("pages = %+v, want recognised pages", doc.Pages)
		}
		checkPages(t, doc)
		if acc := scantest.WordAccuracy(src, doc.Text); acc < 0.9 {
			t.Errorf("word accuracy %.3f, want at least 0.9; text:\n%s", acc, doc.Text)
		}
		if doc.OCR == nil || doc.OCR.Confidence < 70 || len(doc.OCR.Pages) != len(doc.Pages) {
			t.Errorf("OCR report = %+v", doc.OCR)
		}
		img, err := png.DecodeConfig(bytes.NewReader(doc.Pages[0].Image))
		if err != nil {
			t.Fatalf("page image: %v", err)
		}
		// 100 DPI for display, and the proportions of the recognised image.
		if img.Width != 850 || doc.Pages[0].Width*img.Height/img.Width != doc.Pages[0].Height {
			t.Errorf("page image %dx%d for a %dx%d scan", img.Width, img.Height, doc.Pages[0].Width, doc.Pages[0].Height)
		}
		if !strings.Contains(doc.Text, "Governing Law") {
			t.Errorf("recognised text lacks the governing law heading:\n%s", doc.Text)
		}
		if pdftotext == "" {
			break
		}
	}
}

func TestLoadMixedPDFPageByPage(t *testing.T) {
	tess, ppm := needOCR(t)
	src := sampleContract(t)
	first, second, _ := strings.Cut(src, "5. Termination.")
	second = "5. Termination." + second
	imgs, err := scantest.Pages(second, scantest.Options{Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	scan, err := scantest.JPEG(imgs[0])
	if err != nil {
		t.Fatal(err)
	}
	pdf, err := scantest.PDF([]scantest.Page{{Text: first}, {JPEG: scan}})
	if err != nil {
		t.Fatal(err)
	}
	path := writeFile(t, t.TempDir(), "mixed.pdf", pdf)
	var progress []string
	doc, err := NewLoader(LoaderOptions{PDFToText: FindPDFToText(), Tesseract: tess, PDFToPPM: ppm, OCRProgress: func(p string, done, total int) {
		progress = append(progress, fmt.Sprintf("%s %d/%d", filepath.Base(p), done, total))
	}}).Load(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(progress, ", "); got != "mixed.pdf 0/1, mixed.pdf 1/1" {
		t.Errorf("OCR progress = %s, want the one scanned page", got)
	}
	if len(doc.Pages) != 2 || doc.Pages[0].Source != contract.PageText || doc.Pages[1].Source != contract.PageOCR {
		t.Fatalf("pages = %+v, want a text page then a recognised one", doc.Pages)
	}
	checkPages(t, doc)
	p1, p2 := doc.Text[doc.Pages[0].Start:doc.Pages[0].End], doc.Text[doc.Pages[1].Start:doc.Pages[1].End]
	if !strings.Contains(p1, "Halvorsen Brewing Company") || len(doc.Pages[0].Words) != 0 || doc.Pages[0].Image != nil {
		t.Errorf("text page: %q with %d words", p1, len(doc.Pages[0].Words))
	}
	if acc := scantest.WordAccuracy(second, p2); acc < 0.95 {
		t.Errorf("recognised page accuracy %.3f:\n%s", acc, p2)
	}
	if doc.OCR == nil || len(doc.OCR.Pages) != 1 || doc.OCR.Pages[0] != 2 {
		t.Errorf("OCR report = %+v, want page 2 only", doc.OCR)
	}
}

func TestLoadImageFile(t *testing.T) {
	tess, _ := needOCR(t)
	imgs, err := scantest.Pages("AMENDMENT NO. 1\n\nThe notice period in section 3 is changed to sixty days.", scantest.Options{Rotate: -0.4, Seed: 5})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, imgs[0]); err != nil {
		t.Fatal(err)
	}
	path := writeFile(t, t.TempDir(), "amendment.png", buf.Bytes())
	doc, err := NewLoader(LoaderOptions{Tesseract: tess}).Load(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	if doc.Format != "image" || len(doc.Pages) != 1 || !strings.Contains(doc.Text, "notice period in section 3 is changed to sixty days") {
		t.Fatalf("format %s, %d pages, text %q", doc.Format, len(doc.Pages), doc.Text)
	}
	checkPages(t, doc)
	if _, err := png.DecodeConfig(bytes.NewReader(doc.Pages[0].Image)); err != nil {
		t.Errorf("page image: %v", err)
	}
}

// TestScannedWithoutTesseract points the loader at a tesseract that is not
// there: a scanned file fails naming the install command, a born-digital
// one still loads.
func TestScannedWithoutTesseract(t *testing.T) {
	imgs, err := scantest.Pages("A short scanned page of a contract.", scantest.Options{DPI: 100})
	if err != nil {
		t.Fatal(err)
	}
	scan, err := scantest.JPEG(imgs[0])
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	scanPDF, _ := scantest.PDF([]scantest.Page{{JPEG: scan}})
	textPDF, _ := scantest.PDF([]scantest.Page{{Text: "This Agreement is governed by the laws of the State of Ohio."}})
	scanPath := writeFile(t, dir, "scan.pdf", scanPDF)
	textPath := writeFile(t, dir, "text.pdf", textPDF)
	pngPath := writeFile(t, dir, "fax.png", encodePNG(t, imgs[0]))
	missing := filepath.Join(dir, "no-such-dir", "tesseract")
	ctx := context.Background()
	l := NewLoader(LoaderOptions{Tesseract: missing, PDFToPPM: FindPDFToPPM()})
	for _, p := range []string{scanPath, pngPath} {
		_, err := l.Load(ctx, p)
		want := p + ": scanned pages need OCR: install Tesseract with: apt-get install tesseract-ocr"
		if !errors.Is(err, ErrNeedsOCR) || (err.Error() != want && !strings.Contains(err.Error(), "poppler")) {
			t.Errorf("err = %v, want %q", err, want)
		}
	}
	doc, err := l.Load(ctx, textPath)
	if err != nil || !strings.Contains(doc.Text, "State of Ohio") || doc.Pages != nil {
		t.Errorf("born-digital PDF without tesseract: %v, %+v", err, doc)
	}
	never := NewLoader(LoaderOptions{OCR: OCRNever, Tesseract: FindTesseract(), PDFToPPM: FindPDFToPPM()})
	if _, err := never.Load(ctx, scanPath); !errors.Is(err, ErrNeedsOCR) || !strings.Contains(err.Error(), "turned off") {
		t.Errorf("--ocr never on a scan: %v", err)
	}
	if tess := FindTesseract(); tess != "" && FindPDFToPPM() != "" {
		l := NewLoader(LoaderOptions{Tesseract: tess, PDFToPPM: FindPDFToPPM(), OCRLang: "eng+zzz"})
		if _, err := l.Load(ctx, scanPath); !errors.Is(err, ErrNeedsOCR) || !strings.Contains(err.Error(), "apt-get install tesseract-ocr-zzz") {
			t.Errorf("missing language: %v", err)
		}
	}
}

func TestParseOCRMode(t *testing.T) {
	for in, want := range map[string]OCRMode{"": OCRAuto, "AUTO": OCRAuto, "always": OCRAlways, " never ": OCRNever} {
		if got, err := ParseOCRMode(in); err != nil || got != want {
			t.Errorf("ParseOCRMode(%q) = %q, %v", in, got, err)
		}
	}
	if _, err := ParseOCRMode("sometimes"); err == nil {
		t.Error("ParseOCRMode(sometimes) = nil error")
	}
	for in, want := range map[string]bool{"eng": true, "eng+deu": true, "chi_sim": true, "": false, "eng+": false, "eng;rm": false} {
		if ValidOCRLang(in) != want {
			t.Errorf("ValidOCRLang(%q) != %v", in, want)
		}
	}
}

func TestWordAccuracy(t *testing.T) {
	for _, c := range []struct {
		ref, hyp string
		want     float64
	}{
		{"The Supplier shall deliver.", "the supplier shall deliver", 1},
		{"one two three four", "one too three four", 0.75},
		{"one two three four", "one two four", 0.75},
		{"one two", "one two three four five six", 0},
		{"", "", 1},
	} {
		if got := scantest.WordAccuracy(c.ref, c.hyp); got != c.want {
			t.Errorf("WordAccuracy(%q, %q) = %v, want %v", c.ref, c.hyp, got, c.want)
		}
	}
}

func encodePNG(t *testing.T, img image.Image) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestOCRWordAccuracy measures word accuracy (1 − word error rate) of the
// recognised text against the source on generated scans of the sample
// contract, from clean to fax-like; docs/EVALUATION.md reports its log
// (go test -count=1 -v -run TestOCRWordAccuracy ./internal/ingest/).
func TestOCRWordAccuracy(t *testing.T) {
	tess, ppm := needOCR(t)
	src := sampleContract(t)
	l := NewLoader(LoaderOptions{PDFToText: FindPDFToText(), Tesseract: tess, PDFToPPM: ppm})
	for _, c := range []struct {
		name    string
		opts    scantest.Options
		atLeast float64
		low     bool // reported as low-confidence
	}{
		{"clean, 300 DPI", scantest.Options{Seed: 1}, 0.97, false},
		{"noisy 1%, rotated 0.6°, 300 DPI", scantest.Options{Noise: 0.01, Rotate: 0.6, Seed: 2}, 0.93, false},
		// Tesseract does not despeckle: heavy noise ruins the text, and the
		// summary must say so.
		{"fax-like: noisy 3%, rotated 1.5°, 200 DPI", scantest.Options{DPI: 200, Noise: 0.03, Rotate: 1.5, Seed: 3}, 0.2, true},
	} {
		pdf, err := scantest.ScannedPDF(src, c.opts)
		if err != nil {
			t.Fatal(err)
		}
		path := writeFile(t, t.TempDir(), "scan.pdf", pdf)
		doc, err := l.Load(context.Background(), path)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		checkPages(t, doc)
		acc := scantest.WordAccuracy(src, doc.Text)
		t.Logf("%-45s word accuracy %.3f (%d source words), mean confidence %.1f", c.name, acc, len(scantest.Words(src)), doc.OCR.Confidence)
		if acc < c.atLeast {
			t.Errorf("%s: word accuracy %.3f, want at least %.2f", c.name, acc, c.atLeast)
		}
		if low := len(doc.OCR.LowConfidence) > 0; low != c.low {
			t.Errorf("%s: low-confidence pages %v, want reported: %v", c.name, doc.OCR.LowConfidence, c.low)
		}
	}
}
