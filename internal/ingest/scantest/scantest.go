// Package scantest makes scanned documents for tests: it types a text onto
// letter-sized page images in the Go font, degrades them like a scanner or
// fax does (speckle noise and a slight rotation), and wraps pages in a PDF
// without a text layer, or with one for the born-digital pages of a mixed
// document. Everything is generated from the text, so tests and the
// accuracy measurement in docs/EVALUATION.md reproduce without shipping
// binary fixtures. WordAccuracy scores recognised text against the source.
package scantest

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"image/jpeg"
	"math"
	"math/rand/v2"
	"strings"
	"unicode"

	"golang.org/x/image/font"
	"golang.org/x/image/font/gofont/goregular"
	"golang.org/x/image/font/opentype"
	"golang.org/x/image/math/fixed"
)

// Options says how pages are typed and degraded.
type Options struct {
	// DPI is the scan's resolution; 0 means 300.
	DPI int
	// FontSize is in points; 0 means 11.
	FontSize float64
	// Rotate turns the page by this many degrees (a sheet fed askew).
	Rotate float64
	// Noise is the share of pixels flipped to black or white, 0 to 1.
	Noise float64
	// Seed makes the noise reproducible.
	Seed uint64
}

func (o Options) withDefaults() Options {
	if o.DPI <= 0 {
		o.DPI = 300
	}
	if o.FontSize <= 0 {
		o.FontSize = 11
	}
	return o
}

// Pages types text onto as many US-letter pages as it needs, with
// one-inch margins, wrapping words at the margin and leaving a blank line
// between paragraphs (blank lines in text), and degrades each page as o
// says.
func Pages(text string, o Options) ([]*image.Gray, error) {
	o = o.withDefaults()
	f, err := opentype.Parse(goregular.TTF)
	if err != nil {
		return nil, fmt.Errorf("parse font: %w", err)
	}
	face, err := opentype.NewFace(f, &opentype.FaceOptions{Size: o.FontSize, DPI: float64(o.DPI), Hinting: font.HintingFull})
	if err != nil {
		return nil, fmt.Errorf("font face: %w", err)
	}
	defer face.Close()
	w, h := o.DPI*17/2, o.DPI*11
	margin := o.DPI
	lineH := face.Metrics().Height.Ceil() * 13 / 10
	var pages []*image.Gray
	var page *image.Gray
	y := 0
	newPage := func() {
		page = image.NewGray(image.Rect(0, 0, w, h))
		for i := range page.Pix {
			page.Pix[i] = 0xff
		}
		pages = append(pages, page)
		y = margin + face.Metrics().Ascent.Ceil()
	}
	newPage()
	d := &font.Drawer{Src: image.NewUniform(color.Black), Face: face}
	space := d.MeasureString(" ")
	for _, para := range paragraphs(text) {
		for _, line := range wrap(d, para, fixed.I(w-2*margin), space) {
			if y > h-margin {
				newPage()
			}
			d.Dst = page
			d.Dot = fixed.P(margin, y)
			d.DrawString(line)
			y += lineH
		}
		y += lineH
	}
	rng := rand.New(rand.NewPCG(o.Seed, o.Seed^0x9e3779b97f4a7c15))
	for i, p := range pages {
		if o.Rotate != 0 {
			p = rotate(p, o.Rotate)
		}
		if o.Noise > 0 {
			speckle(p, o.Noise, rng)
		}
		pages[i] = p
	}
	return pages, nil
}

// paragraphs splits text at blank lines and joins each paragraph's lines.
func paragraphs(text string) []string {
	var out []string
	for _, p := range strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n\n") {
		if p = strings.Join(strings.Fields(p), " "); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// wrap breaks a paragraph into lines no wider than width.
func wrap(d *font.Drawer, para string, width, space fixed.Int26_6) []string {
	var lines []string
	var cur []string
	curW := fixed.Int26_6(0)
	for _, word := range strings.Fields(para) {
		ww := d.MeasureString(word)
		if len(cur) > 0 && curW+space+ww > width {
			lines = append(lines, strings.Join(cur, " "))
			cur, curW = nil, 0
		}
		if len(cur) > 0 {
			curW += space
		}
		cur = append(cur, word)
		curW += ww
	}
	if len(cur) > 0 {
		lines = append(lines, strings.Join(cur, " "))
	}
	return lines
}

// rotate turns img by deg degrees about its centre, bilinearly, with white
// where the turned page does not reach.
func rotate(img *image.Gray, deg float64) *image.Gray {
	b := img.Bounds()
	out := image.NewGray(b)
	sin, cos := math.Sincos(deg * math.Pi / 180)
	cx, cy := float64(b.Dx())/2, float64(b.Dy())/2
	at := func(x, y int) float64 {
		if x < 0 || y < 0 || x >= b.Dx() || y >= b.Dy() {
			return 255
		}
		return float64(img.Pix[y*img.Stride+x])
	}
	for y := 0; y < b.Dy(); y++ {
		for x := 0; x < b.Dx(); x++ {
			// The source point that lands on (x, y).
			dx, dy := float64(x)-cx, float64(y)-cy
			sx, sy := cos*dx+sin*dy+cx, -sin*dx+cos*dy+cy
			x0, y0 := int(math.Floor(sx)), int(math.Floor(sy))
			fx, fy := sx-float64(x0), sy-float64(y0)
			v := at(x0, y0)*(1-fx)*(1-fy) + at(x0+1, y0)*fx*(1-fy) + at(x0, y0+1)*(1-fx)*fy + at(x0+1, y0+1)*fx*fy
			out.Pix[y*out.Stride+x] = uint8(math.Round(v))
		}
	}
	return out
}

// speckle flips a share of the pixels to black or white, like dust on the
// scanner glass and a fax line's dropouts, and greys the paper a little.
func speckle(img *image.Gray, share float64, rng *rand.Rand) {
	for i := range img.Pix {
		r := rng.Float64()
		switch {
		case r < share/2:
			img.Pix[i] = 0
		case r < share:
			img.Pix[i] = 0xff
		case img.Pix[i] > 200:
			img.Pix[i] -= uint8(rng.IntN(24))
		}
	}
}

// JPEG encodes a page as a scanner would, at quality 80.
func JPEG(img image.Image) ([]byte, error) {
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, img, &jpeg.Options{Quality: 80}); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// Page is one page of a PDF: a scanned image (JPEG bytes) or, when JPEG
// is nil, born-digital Text typed in Helvetica with a text layer.
type Page struct {
	JPEG []byte
	Text string
}

// PDF writes a PDF of US-letter pages. A scanned page's image fills the
// page and has no text behind it.
func PDF(pages []Page) ([]byte, error) {
	var buf bytes.Buffer
	var offsets []int
	obj := func(body string, stream []byte) int {
		offsets = append(offsets, buf.Len())
		n := len(offsets)
		fmt.Fprintf(&buf, "%d 0 obj\n%s", n, body)
		if stream != nil {
			buf.WriteString("\nstream\n")
			buf.Write(stream)
			buf.WriteString("\nendstream")
		}
		buf.WriteString("\nendobj\n")
		return n
	}
	buf.WriteString("%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
	// Objects 1 and 2 are the catalog and the page tree, 3 the font; the
	// pages follow.
	obj("<< /Type /Catalog /Pages 2 0 R >>", nil)
	first := 4
	kids := make([]string, len(pages))
	for i := range pages {
		kids[i] = fmt.Sprintf("%d 0 R", first+3*i)
	}
	obj(fmt.Sprintf("<< /Type /Pages /Kids [%s] /Count %d >>", strings.Join(kids, " "), len(pages)), nil)
	obj("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>", nil)
	for i, p := range pages {
		pageN := first + 3*i
		var content []byte
		var res, xobj string
		if p.JPEG != nil {
			cfg, err := jpeg.DecodeConfig(bytes.NewReader(p.JPEG))
			if err != nil {
				return nil, fmt.Errorf("page %d: %w", i+1, err)
			}
			space := "/DeviceGray"
			if cfg.ColorModel != color.GrayModel {
				space = "/DeviceRGB"
			}
			content = []byte("q 612 0 0 792 0 0 cm /Im0 Do Q")
			xobj = fmt.Sprintf("<< /Type /XObject /Subtype /Image /Width %d /Height %d /ColorSpace %s /BitsPerComponent 8 /Filter /DCTDecode /Length %d >>",
				cfg.Width, cfg.Height, space, len(p.JPEG))
			res = fmt.Sprintf("<< /XObject << /Im0 %d 0 R >> >>", pageN+2)
		} else {
			content = textContent(p.Text)
			res = "<< /Font << /F1 3 0 R >> >>"
		}
		obj(fmt.Sprintf("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources %s /Contents %d 0 R >>", res, pageN+1), nil)
		obj(fmt.Sprintf("<< /Length %d >>", len(content)), content)
		if p.JPEG != nil {
			obj(xobj, p.JPEG)
		} else {
			obj("<< >>", nil) // keeps three objects a page
		}
	}
	xref := buf.Len()
	fmt.Fprintf(&buf, "xref\n0 %d\n0000000000 65535 f \n", len(offsets)+1)
	for _, off := range offsets {
		fmt.Fprintf(&buf, "%010d 00000 n \n", off)
	}
	fmt.Fprintf(&buf, "trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n", len(offsets)+1, xref)
	return buf.Bytes(), nil
}

// textContent types text in 11 pt Helvetica, wrapped at about 90
// characters, one paragraph per blank-line-separated block.
func textContent(text string) []byte {
	var b strings.Builder
	b.WriteString("BT /F1 11 Tf 14 TL 72 720 Td\n")
	for _, para := range paragraphs(text) {
		line := ""
		for _, w := range strings.Fields(para) {
			if line != "" && len(line)+1+len(w) > 90 {
				fmt.Fprintf(&b, "(%s) Tj T*\n", pdfEscape(line))
				line = ""
			}
			if line != "" {
				line += " "
			}
			line += w
		}
		if line != "" {
			fmt.Fprintf(&b, "(%s) Tj T*\n", pdfEscape(line))
		}
		b.WriteString("T*\n")
	}
	b.WriteString("ET")
	return []byte(b.String())
}

func pdfEscape(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == '(' || r == ')' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r > 126 || r < 32:
			b.WriteByte('?')
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// Words splits text into words for scoring: runs of letters and digits
// with the punctuation inside them (3.2, non-compete), lower-cased, with
// the punctuation around them dropped.
func Words(text string) []string {
	var out []string
	for _, f := range strings.Fields(text) {
		f = strings.TrimFunc(f, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
		if f != "" {
			out = append(out, strings.ToLower(f))
		}
	}
	return out
}

// WordAccuracy is 1 − the word error rate of hyp against ref: the word
// edit distance (substitutions, insertions, deletions) over the number of
// reference words, floored at 0. Words are compared as Words makes them.
func WordAccuracy(ref, hyp string) float64 {
	r, h := Words(ref), Words(hyp)
	if len(r) == 0 {
		if len(h) == 0 {
			return 1
		}
		return 0
	}
	prev := make([]int, len(h)+1)
	cur := make([]int, len(h)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(r); i++ {
		cur[0] = i
		for j := 1; j <= len(h); j++ {
			sub := prev[j-1]
			if r[i-1] != h[j-1] {
				sub++
			}
			cur[j] = min(sub, prev[j]+1, cur[j-1]+1)
		}
		prev, cur = cur, prev
	}
	return max(0, 1-float64(prev[len(h)])/float64(len(r)))
}

// ScannedPDF types text onto pages, degrades them as o says and returns
// a PDF of the page images, without a text layer.
func ScannedPDF(text string, o Options) ([]byte, error) {
	imgs, err := Pages(text, o)
	if err != nil {
		return nil, err
	}
	pages := make([]Page, len(imgs))
	for i, img := range imgs {
		if pages[i].JPEG, err = JPEG(img); err != nil {
			return nil, fmt.Errorf("page %d: %w", i+1, err)
		}
	}
	return PDF(pages)
}
