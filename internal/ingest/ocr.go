package ingest

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode"

	"github.com/contractgraph/contractgraph/internal/contract"
)

// OCRMode says when the loader recognises text in page images.
type OCRMode string

// OCR modes.
const (
	// OCRAuto recognises the PDF pages without a usable text layer, and
	// image files.
	OCRAuto OCRMode = "auto"
	// OCRAlways recognises every PDF page, even one with a text layer
	// (for a scan whose hidden text layer is poor).
	OCRAlways OCRMode = "always"
	// OCRNever recognises nothing: a scanned page stays without text, and
	// a scanned PDF or an image fails with ErrNeedsOCR.
	OCRNever OCRMode = "never"
)

// ParseOCRMode reads auto, always or never; "" is auto.
func ParseOCRMode(s string) (OCRMode, error) {
	switch m := OCRMode(strings.ToLower(strings.TrimSpace(s))); m {
	case "":
		return OCRAuto, nil
	case OCRAuto, OCRAlways, OCRNever:
		return m, nil
	}
	return "", fmt.Errorf("OCR mode %q: want auto, always or never", s)
}

// ErrNeedsOCR is a file with scanned pages (or an image) that could not be
// recognised: OCR is turned off, or Tesseract, poppler's pdftoppm or a
// language's data is not installed. The message names the command that
// installs what is missing.
var ErrNeedsOCR = errors.New("scanned pages need OCR")

// OCR defaults.
const (
	// DefaultOCRDPI is the resolution PDF pages are rendered at for
	// recognition: Tesseract reads 300 DPI text best.
	DefaultOCRDPI = 300
	// DefaultPageImageDPI is the resolution of the page images kept for
	// display, about 100 KB a page of grey PNG.
	DefaultPageImageDPI = 100
	// DefaultMinOCRConfidence is the mean word confidence (0 to 100) under
	// which a recognised page is reported as low-confidence.
	DefaultMinOCRConfidence = contract.LowOCRConfidence
	// DefaultMaxOCRPages limits the pages recognised in one file.
	DefaultMaxOCRPages = 300
	// ocrPageTimeout bounds one page's rendering or recognition.
	ocrPageTimeout = 3 * time.Minute
	// minTextLayer is how many letters and digits a PDF page's text layer
	// needs to count as text; a page with fewer (none, a stamp, a page
	// number) is treated as a scan.
	minTextLayer = 20
	// maxImagePixels refuses images that would take gigabytes to decode.
	maxImagePixels = 120_000_000
)

// FindTesseract returns the path of tesseract on PATH, or "".
func FindTesseract() string { return lookPath("tesseract") }

// FindPDFToPPM returns the path of poppler's pdftoppm on PATH, or "".
func FindPDFToPPM() string { return lookPath("pdftoppm") }

func lookPath(name string) string {
	p, err := exec.LookPath(name)
	if err != nil {
		return ""
	}
	return p
}

// ocr runs poppler's pdftoppm and Tesseract for a Loader.
type ocr struct {
	mode      OCRMode
	lang      string
	tesseract string
	pdftoppm  string
	dpi       int
	viewDPI   int
	minConf   float64
	maxPages  int
	progress  func(path string, done, total int)

	langsOnce sync.Once
	langs     map[string]bool
	langsErr  error
}

// ready says why pages cannot be recognised, or nil: OCR is off, a
// program is missing (with the command that installs it), or a language
// is not installed. pdf says whether pdftoppm is needed too.
func (o *ocr) ready(ctx context.Context, pdf bool) error {
	if o.mode == OCRNever {
		return fmt.Errorf("%w: OCR is turned off", ErrNeedsOCR)
	}
	tess := o.tesseract != "" && executable(o.tesseract)
	ppm := !pdf || (o.pdftoppm != "" && executable(o.pdftoppm))
	switch {
	case !tess && !ppm:
		return fmt.Errorf("%w: install Tesseract and poppler with: apt-get install tesseract-ocr poppler-utils", ErrNeedsOCR)
	case !tess:
		return fmt.Errorf("%w: install Tesseract with: apt-get install tesseract-ocr", ErrNeedsOCR)
	case !ppm:
		return fmt.Errorf("%w: install poppler's pdftoppm with: apt-get install poppler-utils", ErrNeedsOCR)
	}
	return o.checkLangs(ctx)
}

func executable(path string) bool {
	_, err := exec.LookPath(path)
	return err == nil
}

// checkLangs asks Tesseract once which languages it has and reports the
// first of o.lang ("eng+deu") it lacks with the Debian package to install.
func (o *ocr) checkLangs(ctx context.Context) error {
	o.langsOnce.Do(func() {
		ctx, cancel := context.WithTimeout(ctx, time.Minute)
		defer cancel()
		var out, errb bytes.Buffer
		cmd := exec.CommandContext(ctx, o.tesseract, "--list-langs")
		cmd.Stdout, cmd.Stderr = &out, &errb
		if err := cmd.Run(); err != nil {
			o.langsErr = fmt.Errorf("tesseract --list-langs: %v: %s", err, strings.TrimSpace(errb.String()))
			return
		}
		o.langs = map[string]bool{}
		for i, line := range strings.Split(out.String(), "\n") {
			if line = strings.TrimSpace(line); i > 0 && line != "" {
				o.langs[line] = true
			}
		}
	})
	if o.langsErr != nil {
		return o.langsErr
	}
	for _, l := range strings.Split(o.lang, "+") {
		if !o.langs[l] {
			return fmt.Errorf("%w: the OCR language %q is not installed: install it with: apt-get install %s", ErrNeedsOCR, l, LanguagePackage(l))
		}
	}
	return nil
}

// LanguagePackage is the Debian package with Tesseract's data for the
// language code lang: tesseract-ocr-eng for eng, tesseract-ocr-chi-sim
// for chi_sim.
func LanguagePackage(lang string) string {
	return "tesseract-ocr-" + strings.ReplaceAll(strings.ToLower(lang), "_", "-")
}

// ValidOCRLang reports whether s is a Tesseract language list such as
// "eng" or "eng+deu".
func ValidOCRLang(s string) bool {
	if s == "" {
		return false
	}
	for _, l := range strings.Split(s, "+") {
		if l == "" {
			return false
		}
		for _, r := range l {
			if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-') {
				return false
			}
		}
	}
	return true
}

// ocrWord is one word of Tesseract's TSV output.
type ocrWord struct {
	text             string
	block, par, line int
	x, y, w, h       int
	conf             float64
}

// ocrPage is one page of Tesseract's TSV output: its size in pixels and
// its words in reading order.
type ocrPage struct {
	width, height int
	words         []ocrWord
}

// recognize runs Tesseract on an image file and returns its pages (a
// multi-page TIFF has several). dpi is the image's resolution when known.
func (o *ocr) recognize(ctx context.Context, image string, dpi int) ([]ocrPage, error) {
	ctx, cancel := context.WithTimeout(ctx, ocrPageTimeout)
	defer cancel()
	args := []string{image, "stdout", "-l", o.lang}
	if dpi > 0 {
		args = append(args, "--dpi", strconv.Itoa(dpi))
	}
	args = append(args, "tsv")
	var out, errb bytes.Buffer
	cmd := exec.CommandContext(ctx, o.tesseract, args...)
	// One thread a page: the pipeline already loads several files at once.
	cmd.Env = append(os.Environ(), "OMP_THREAD_LIMIT=1")
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil {
			return nil, fmt.Errorf("tesseract: %w", ctx.Err())
		}
		return nil, fmt.Errorf("%w: tesseract: %v: %s", ErrCorrupt, err, lastLine(errb.String()))
	}
	pages, err := parseTSV(&out)
	if err != nil {
		return nil, fmt.Errorf("tesseract output: %w", err)
	}
	return pages, nil
}

func lastLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		s = s[i+1:]
	}
	return s
}

// parseTSV reads Tesseract's TSV: a header, then rows of level, page_num,
// block_num, par_num, line_num, word_num, left, top, width, height, conf
// and text. Level 1 rows are pages, level 5 rows words.
func parseTSV(r io.Reader) ([]ocrPage, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	var pages []ocrPage
	n := 0
	for sc.Scan() {
		n++
		line := sc.Text()
		if n == 1 {
			if !strings.HasPrefix(line, "level\t") {
				return nil, fmt.Errorf("no TSV header: %.40q", line)
			}
			continue
		}
		if line == "" {
			continue
		}
		f := strings.SplitN(line, "\t", 12)
		if len(f) < 11 {
			return nil, fmt.Errorf("line %d: %d fields, want 12", n, len(f))
		}
		var v [10]int
		for i := range v {
			x, err := strconv.Atoi(f[i])
			if err != nil {
				return nil, fmt.Errorf("line %d: field %d: %q is not a number", n, i+1, f[i])
			}
			v[i] = x
		}
		conf, err := strconv.ParseFloat(f[10], 64)
		if err != nil {
			return nil, fmt.Errorf("line %d: confidence %q is not a number", n, f[10])
		}
		switch v[0] {
		case 1:
			pages = append(pages, ocrPage{width: v[8], height: v[9]})
		case 5:
			if len(pages) == 0 {
				return nil, fmt.Errorf("line %d: a word before any page", n)
			}
			text := ""
			if len(f) == 12 {
				text = strings.TrimSpace(f[11])
			}
			if text == "" || conf < 0 || (conf < noiseConfidence && !hasAlnum(text)) {
				// Layout rows, and specks read as punctuation.
				continue
			}
			p := &pages[len(pages)-1]
			p.words = append(p.words, ocrWord{text: text, block: v[2], par: v[3], line: v[4],
				x: v[6], y: v[7], w: v[8], h: v[9], conf: conf})
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	return pages, nil
}

// layout writes the page's words as text: words of a line separated by a
// space, lines by a newline and paragraphs by a blank line. starts[i] is
// the byte offset of word i in the text.
func (p ocrPage) layout() (text string, starts []int) {
	var b strings.Builder
	starts = make([]int, len(p.words))
	for i, w := range p.words {
		if i > 0 {
			prev := p.words[i-1]
			switch {
			case prev.block == w.block && prev.par == w.par && prev.line == w.line:
				b.WriteByte(' ')
			case prev.block == w.block && prev.par == w.par:
				b.WriteByte('\n')
			default:
				b.WriteString("\n\n")
			}
		}
		starts[i] = b.Len()
		b.WriteString(w.text)
	}
	return b.String(), starts
}

// confidence is the mean confidence of the page's words, 0 without words.
func (p ocrPage) confidence() float64 {
	if len(p.words) == 0 {
		return 0
	}
	sum := 0.0
	for _, w := range p.words {
		sum += w.conf
	}
	return sum / float64(len(p.words))
}

// renderPDFPage renders page (1-based) of the PDF at path into a grey PNG
// at dpi in dir and returns the image's path.
func (o *ocr) renderPDFPage(ctx context.Context, path string, page, dpi int, dir string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, ocrPageTimeout)
	defer cancel()
	prefix := filepath.Join(dir, fmt.Sprintf("p%d-%d", page, dpi))
	n := strconv.Itoa(page)
	var errb bytes.Buffer
	cmd := exec.CommandContext(ctx, o.pdftoppm, "-f", n, "-l", n, "-r", strconv.Itoa(dpi), "-gray", "-png", "-singlefile", path, prefix)
	cmd.Stderr = &errb
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil {
			return "", fmt.Errorf("pdftoppm: %w", ctx.Err())
		}
		return "", fmt.Errorf("%w: pdftoppm page %d: %v: %s", ErrCorrupt, page, err, lastLine(errb.String()))
	}
	return prefix + ".png", nil
}

// noiseConfidence is the confidence under which a "word" without a
// letter or digit is taken for a speck of dirt and dropped.
const noiseConfidence = 30

func hasAlnum(s string) bool {
	return strings.IndexFunc(s, func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }) >= 0
}

// usableText reports whether a PDF page's text layer holds enough letters
// and digits to be the page's text rather than a scan's leftovers.
func usableText(s string) bool {
	n := 0
	for _, r := range s {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			if n++; n >= minTextLayer {
				return true
			}
		}
	}
	return false
}
