package ingest

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/color"
	_ "image/jpeg" // scans are often JPEG
	"image/png"
	"os"
	"strings"

	"golang.org/x/image/draw"
	_ "golang.org/x/image/tiff" // and faxes TIFF

	"github.com/contractgraph/contractgraph/internal/contract"
)

// OCRReport is what OCR did to one file: the pages it recognised, their
// mean word confidence, and those under the loader's minimum confidence.
type OCRReport struct {
	Pages         []int            `json:"pages"`
	Confidence    float64          `json:"confidence"`
	LowConfidence []PageConfidence `json:"low_confidence,omitempty"`
	MinConfidence float64          `json:"min_confidence"`
}

// PageConfidence is one recognised page's mean word confidence, 0 to 100.
type PageConfidence struct {
	Page       int     `json:"page"`
	Confidence float64 `json:"confidence"`
}

// scanPDF returns the raw text of a PDF page by page: the text layer of a
// page that has one, the recognised words of one that does not (or of
// every page with OCRAlways). Pages is nil when no page was recognised,
// and the text is then exactly what the PDF reader gave before OCR
// existed; otherwise it describes every page, with byte ranges in the
// returned text.
func (l *Loader) scanPDF(ctx context.Context, path string, data []byte) (string, []contract.Page, error) {
	var (
		texts    []string
		layout   = l.pdftotext != "" // pdftotext ends each page with a form feed
		trailing bool
	)
	if layout {
		out, err := pdfToTextCmd(ctx, l.pdftotext, path)
		if err != nil {
			return "", nil, err
		}
		texts = strings.Split(out, "\f")
		if n := len(texts); n > 1 && texts[n-1] == "" {
			texts, trailing = texts[:n-1], true
		}
	} else {
		var err error
		if texts, err = pdfPageTexts(data); err != nil {
			return "", nil, err
		}
	}
	var scanned []int
	var images map[int]bool
	for i, t := range texts {
		if l.ocr.mode != OCRAlways && usableText(t) {
			continue
		}
		if l.ocr.mode != OCRAlways {
			// A short page is a scan only if it shows an image: a blank
			// page or one that says "Page two." is not.
			// When the pure-Go reader cannot tell, a page without a letter
			// or digit is taken for a scan.
			if images == nil {
				var ok bool
				if images, ok = pdfImagePages(data, len(texts)); !ok {
					images = map[int]bool{}
					for j, t := range texts {
						images[j] = !hasAlnum(t)
					}
				}
			}
			if !images[i] {
				continue
			}
		}
		scanned = append(scanned, i)
	}
	join := func() string {
		if layout {
			s := strings.Join(texts, "\f")
			if trailing {
				s += "\f"
			}
			return s
		}
		return joinPDFPages(texts)
	}
	switch {
	case len(scanned) == 0:
		return join(), nil, nil
	case l.ocr.mode == OCRNever:
		if len(scanned) == len(texts) {
			return "", nil, fmt.Errorf("%w: no page has a text layer, and OCR is turned off", ErrNeedsOCR)
		}
		return join(), nil, nil
	case len(scanned) > l.ocr.maxPages:
		return "", nil, fmt.Errorf("%w: %d pages need OCR, the limit is %d a file", ErrTooLarge, len(scanned), l.ocr.maxPages)
	}
	if err := l.ocr.ready(ctx, true); err != nil {
		return "", nil, err
	}
	dir, err := os.MkdirTemp("", "contractgraph-ocr-*")
	if err != nil {
		return "", nil, fmt.Errorf("ocr: %w", err)
	}
	defer os.RemoveAll(dir)

	recognised := map[int]ocrPage{}
	views := map[int][]byte{}
	for n, i := range scanned {
		if n == 0 {
			l.ocr.report(path, 0, len(scanned))
		}
		img, err := l.ocr.renderPDFPage(ctx, path, i+1, l.ocr.dpi, dir)
		if err != nil {
			return "", nil, err
		}
		got, err := l.ocr.recognize(ctx, img, l.ocr.dpi)
		if err != nil {
			return "", nil, fmt.Errorf("page %d: %w", i+1, err)
		}
		if len(got) != 1 {
			return "", nil, fmt.Errorf("page %d: tesseract returned %d pages for one image", i+1, len(got))
		}
		recognised[i] = got[0]
		os.Remove(img)
		view, err := l.ocr.renderPDFPage(ctx, path, i+1, l.ocr.viewDPI, dir)
		if err != nil {
			return "", nil, err
		}
		if views[i], err = os.ReadFile(view); err != nil {
			return "", nil, fmt.Errorf("page %d image: %w", i+1, err)
		}
		l.ocr.report(path, n+1, len(scanned))
	}

	// Rebuild the text with the recognised pages in place, recording where
	// every page and word lands.
	var b strings.Builder
	pages := make([]contract.Page, len(texts))
	wrote := false
	for i, t := range texts {
		p := contract.Page{Number: i + 1, Source: contract.PageText}
		var starts []int
		op, isOCR := recognised[i]
		if isOCR {
			t, starts = op.layout()
			p.Source, p.Confidence, p.Width, p.Height, p.Image = contract.PageOCR, op.confidence(), op.width, op.height, views[i]
		}
		switch {
		case layout && i > 0:
			b.WriteByte('\f')
		case !layout && t != "" && wrote:
			b.WriteString("\n\n")
		}
		p.Start = b.Len()
		b.WriteString(t)
		wrote = wrote || t != ""
		p.End = b.Len()
		for j, w := range op.words {
			p.Words = append(p.Words, contract.PageWord{Start: p.Start + starts[j], End: p.Start + starts[j] + len(w.text),
				X: w.x, Y: w.y, W: w.w, H: w.h, Conf: w.conf})
		}
		pages[i] = p
	}
	if layout && trailing {
		b.WriteByte('\f')
	}
	return b.String(), pages, nil
}

func (o *ocr) report(path string, done, total int) {
	if o.progress != nil {
		o.progress(path, done, total)
	}
}

// scanImage recognises an image file (PNG, JPEG, TIFF; a multi-page TIFF
// gives several pages) and returns its text and pages.
func (l *Loader) scanImage(ctx context.Context, path string, data []byte) (string, []contract.Page, error) {
	if l.ocr.mode == OCRNever {
		return "", nil, fmt.Errorf("%w: an image has no text layer, and OCR is turned off", ErrNeedsOCR)
	}
	cfg, _, err := image.DecodeConfig(bytes.NewReader(data))
	if err != nil {
		return "", nil, fmt.Errorf("%w: image: %v", ErrCorrupt, err)
	}
	if cfg.Width*cfg.Height > maxImagePixels {
		return "", nil, fmt.Errorf("%w: the image is %d×%d pixels, the limit is %d megapixels", ErrTooLarge, cfg.Width, cfg.Height, maxImagePixels/1_000_000)
	}
	if err := l.ocr.ready(ctx, false); err != nil {
		return "", nil, err
	}
	l.ocr.report(path, 0, 1)
	got, err := l.ocr.recognize(ctx, path, 0)
	if err != nil {
		return "", nil, err
	}
	l.ocr.report(path, 1, 1)
	if len(got) > l.ocr.maxPages {
		return "", nil, fmt.Errorf("%w: %d pages need OCR, the limit is %d a file", ErrTooLarge, len(got), l.ocr.maxPages)
	}
	// The display image is the first page, scaled down; the Go decoders
	// read only the first page of a multi-page TIFF.
	view, err := viewImage(data, l.ocr.viewDPI)
	if err != nil {
		return "", nil, err
	}
	var b strings.Builder
	pages := make([]contract.Page, len(got))
	for i, op := range got {
		if i > 0 {
			b.WriteString("\n\n")
		}
		t, starts := op.layout()
		p := contract.Page{Number: i + 1, Source: contract.PageOCR, Confidence: op.confidence(), Width: op.width, Height: op.height, Start: b.Len()}
		if i == 0 {
			p.Image = view
		}
		b.WriteString(t)
		p.End = b.Len()
		for j, w := range op.words {
			p.Words = append(p.Words, contract.PageWord{Start: p.Start + starts[j], End: p.Start + starts[j] + len(w.text),
				X: w.x, Y: w.y, W: w.w, H: w.h, Conf: w.conf})
		}
		pages[i] = p
	}
	return b.String(), pages, nil
}

// viewImage decodes an image and returns it as a grey PNG scaled to the
// width of a letter page at dpi (never enlarged).
func viewImage(data []byte, dpi int) ([]byte, error) {
	src, _, err := image.Decode(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("%w: image: %v", ErrCorrupt, err)
	}
	sb := src.Bounds()
	w, h := sb.Dx(), sb.Dy()
	if maxW := dpi * 17 / 2; w > maxW {
		w, h = maxW, max(1, h*maxW/w)
	}
	dst := image.NewGray(image.Rect(0, 0, w, h))
	draw.Draw(dst, dst.Bounds(), image.NewUniform(color.White), image.Point{}, draw.Src)
	draw.ApproxBiLinear.Scale(dst, dst.Bounds(), src, sb, draw.Over, nil)
	var buf bytes.Buffer
	if err := png.Encode(&buf, dst); err != nil {
		return nil, fmt.Errorf("page image: %w", err)
	}
	return buf.Bytes(), nil
}

// remapPages turns the byte ranges of pages, offsets in the raw text,
// into offsets in the normalised text by m, dropping words that
// normalisation emptied.
func remapPages(pages []contract.Page, m OffsetMap) {
	for i := range pages {
		p := &pages[i]
		p.Start, p.End = m.Norm(p.Start), m.Norm(p.End)
		words := p.Words[:0]
		for _, w := range p.Words {
			w.Start, w.End = m.Norm(w.Start), m.Norm(w.End)
			if w.End > w.Start {
				words = append(words, w)
			}
		}
		p.Words = words
	}
}

// ocrReport summarises the recognised pages; nil when there are none.
func ocrReport(pages []contract.Page, minConf float64) *OCRReport {
	var r OCRReport
	words := 0
	sum := 0.0
	for _, p := range pages {
		if p.Source != contract.PageOCR {
			continue
		}
		r.Pages = append(r.Pages, p.Number)
		for _, w := range p.Words {
			sum += w.Conf
		}
		words += len(p.Words)
		if len(p.Words) > 0 && p.Confidence < minConf {
			r.LowConfidence = append(r.LowConfidence, PageConfidence{Page: p.Number, Confidence: p.Confidence})
		}
	}
	if len(r.Pages) == 0 {
		return nil
	}
	if words > 0 {
		r.Confidence = sum / float64(words)
	}
	r.MinConfidence = minConf
	return &r
}
