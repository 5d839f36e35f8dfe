package ingest

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/contractgraph/contractgraph/internal/bounded"
	"github.com/contractgraph/contractgraph/internal/contract"
)

// Reasons a file is skipped. Load wraps one of them in a *FileError.
var (
	ErrUnsupported = errors.New("unsupported file type")
	ErrEmpty       = errors.New("no text")
	ErrEncrypted   = errors.New("encrypted or password-protected")
	ErrCorrupt     = errors.New("corrupt or unreadable")
	ErrTooLarge    = errors.New("file too large")
	// ErrTextTooLarge is a file whose extracted text is over the limit.
	ErrTextTooLarge = errors.New("too much text")
)

// FileError says why one file could not be loaded.
type FileError struct {
	Path string
	Err  error
}

func (e *FileError) Error() string { return e.Path + ": " + e.Err.Error() }

// Unwrap returns the reason.
func (e *FileError) Unwrap() error { return e.Err }

// Formats are the supported file formats, by lower-case extension.
var Formats = map[string]string{
	".txt":      "txt",
	".text":     "txt",
	".md":       "md",
	".markdown": "md",
	".html":     "html",
	".htm":      "html",
	".pdf":      "pdf",
	".docx":     "docx",
	".png":      "image",
	".jpg":      "image",
	".jpeg":     "image",
	".tif":      "image",
	".tiff":     "image",
}

// DefaultMaxBytes is the default limit on a file's size.
const DefaultMaxBytes = 50 << 20

// DefaultMaxTextBytes is the default limit on the text extracted from one
// file: 4 MiB, fourteen times CUAD's longest contract. A small compressed
// file (a DOCX) can hold far more text than its size says, and every part
// of it costs model calls.
const DefaultMaxTextBytes = 4 << 20

// Document is one loaded document. Text is normalised; all offsets computed
// later refer to it.
type Document struct {
	Path     string
	ID       string // the file name without its extension
	Format   string // txt, md, html, pdf, docx or image
	Encoding string // character set of text formats
	SHA256   string // hex digest of the raw file bytes
	Size     int64
	Text     string
	// Offsets maps offsets in Text to offsets in the decoded source text.
	Offsets OffsetMap
	// Pages describes each page of a PDF any page of which was recognised
	// by OCR, and of an image, with byte ranges in Text; nil otherwise.
	Pages []contract.Page
	// OCR summarises the recognised pages; nil when there are none.
	OCR *OCRReport
}

// Loader reads documents. The zero value is not usable; use NewLoader.
type Loader struct {
	maxBytes     int64
	maxTextBytes int
	pdftotext    string
	ocr          *ocr
}

// LoaderOptions configures a Loader.
type LoaderOptions struct {
	// MaxBytes limits a file's size; 0 means DefaultMaxBytes.
	MaxBytes int64
	// MaxTextBytes limits the text extracted from a file; 0 means
	// DefaultMaxTextBytes.
	MaxTextBytes int
	// PDFToText is the path of poppler's pdftotext. Empty means the
	// pure-Go PDF reader is used. FindPDFToText looks it up on PATH.
	PDFToText string

	// OCR says when pages are recognised from their image; "" is OCRAuto.
	OCR OCRMode
	// OCRLang is Tesseract's language list, "eng" or "eng+deu"; "" is eng.
	OCRLang string
	// Tesseract and PDFToPPM are the paths of tesseract and poppler's
	// pdftoppm (FindTesseract and FindPDFToPPM look them up on PATH).
	// Empty, or a path that is not there, makes a file that needs OCR fail
	// with ErrNeedsOCR naming the command that installs it.
	Tesseract string
	PDFToPPM  string
	// OCRDPI is the resolution PDF pages are recognised at, PageImageDPI
	// that of the page images kept for display; 0 means DefaultOCRDPI and
	// DefaultPageImageDPI.
	OCRDPI       int
	PageImageDPI int
	// MinOCRConfidence is the mean word confidence under which a page is
	// reported as low-confidence; 0 means DefaultMinOCRConfidence.
	MinOCRConfidence float64
	// MaxOCRPages limits the pages recognised in one file; 0 means
	// DefaultMaxOCRPages.
	MaxOCRPages int
	// OCRProgress, when set, is called after each page OCR recognises,
	// with the file, the pages done and the pages to do; files load
	// concurrently, so it must be safe for concurrent use.
	OCRProgress func(path string, done, total int)
}

// NewLoader returns a Loader.
func NewLoader(opts LoaderOptions) *Loader {
	if opts.MaxBytes <= 0 {
		opts.MaxBytes = DefaultMaxBytes
	}
	if opts.MaxTextBytes <= 0 {
		opts.MaxTextBytes = DefaultMaxTextBytes
	}
	o := &ocr{mode: opts.OCR, lang: opts.OCRLang, tesseract: opts.Tesseract, pdftoppm: opts.PDFToPPM,
		dpi: opts.OCRDPI, viewDPI: opts.PageImageDPI, minConf: opts.MinOCRConfidence, maxPages: opts.MaxOCRPages, progress: opts.OCRProgress}
	if o.mode == "" {
		o.mode = OCRAuto
	}
	if o.lang == "" {
		o.lang = "eng"
	}
	if o.dpi <= 0 {
		o.dpi = DefaultOCRDPI
	}
	if o.viewDPI <= 0 {
		o.viewDPI = DefaultPageImageDPI
	}
	if o.minConf <= 0 {
		o.minConf = DefaultMinOCRConfidence
	}
	if o.maxPages <= 0 {
		o.maxPages = DefaultMaxOCRPages
	}
	return &Loader{maxBytes: opts.MaxBytes, maxTextBytes: opts.MaxTextBytes, pdftotext: opts.PDFToText, ocr: o}
}

// Load reads, decodes and normalises one file. Errors are *FileError
// wrapping ErrUnsupported, ErrEmpty, ErrEncrypted, ErrCorrupt, ErrTooLarge,
// ErrTextTooLarge, ErrNeedsOCR, or an I/O error.
func (l *Loader) Load(ctx context.Context, path string) (*Document, error) {
	doc, err := l.load(ctx, path)
	if err != nil {
		return nil, &FileError{Path: path, Err: err}
	}
	return doc, nil
}

func (l *Loader) load(ctx context.Context, path string) (*Document, error) {
	format, ok := Formats[strings.ToLower(filepath.Ext(path))]
	if !ok {
		return nil, ErrUnsupported
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if st.Size() > l.maxBytes {
		return nil, fmt.Errorf("%w: %d bytes, limit %d", ErrTooLarge, st.Size(), l.maxBytes)
	}
	data, err := io.ReadAll(io.LimitReader(f, l.maxBytes+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > l.maxBytes {
		return nil, fmt.Errorf("%w: limit %d bytes", ErrTooLarge, l.maxBytes)
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, ErrEmpty
	}
	doc := &Document{Path: path, ID: stem(path), Format: format, Size: int64(len(data))}
	sum := sha256.Sum256(data)
	doc.SHA256 = hex.EncodeToString(sum[:])

	raw, enc, pages, err := l.extract(ctx, format, path, data)
	if errors.Is(err, errTextLimit) {
		return nil, fmt.Errorf("%w: the %s file holds more than %s of text, the limit per file", ErrTextTooLarge, bounded.Size(int64(len(data))), bounded.Size(int64(l.maxTextBytes)))
	}
	if err != nil {
		return nil, err
	}
	if len(raw) > l.maxTextBytes {
		return nil, fmt.Errorf("%w: the %s file holds %s of text, over the limit of %s per file", ErrTextTooLarge, bounded.Size(int64(len(data))), bounded.Size(int64(len(raw))), bounded.Size(int64(l.maxTextBytes)))
	}
	doc.Encoding = enc
	doc.Text, doc.Offsets = Normalize(raw)
	if strings.TrimSpace(doc.Text) == "" {
		if pages != nil {
			return nil, fmt.Errorf("%w: OCR recognised no words", ErrEmpty)
		}
		return nil, ErrEmpty
	}
	if pages != nil {
		remapPages(pages, doc.Offsets)
		doc.Pages = pages
		doc.OCR = ocrReport(pages, l.ocr.minConf)
	}
	return doc, nil
}

// extract returns the text of data in the given format, for text formats
// the character set it was decoded from, and for a scan its pages.
func (l *Loader) extract(ctx context.Context, format, path string, data []byte) (string, string, []contract.Page, error) {
	switch format {
	case "pdf":
		text, pages, err := l.scanPDF(ctx, path, data)
		return text, "", pages, err
	case "image":
		text, pages, err := l.scanImage(ctx, path, data)
		return text, "", pages, err
	}
	text, enc, err := l.extractText(ctx, format, data)
	return text, enc, nil, err
}

// extractText returns the text of a document that is not a scan.
func (l *Loader) extractText(ctx context.Context, format string, data []byte) (string, string, error) {
	switch format {
	case "txt", "md":
		text, enc, err := Decode(data)
		if err != nil {
			return "", "", fmt.Errorf("%w: %v", ErrCorrupt, err)
		}
		return text, enc, nil
	case "html":
		text, enc, err := Decode(data)
		if err != nil {
			return "", "", fmt.Errorf("%w: %v", ErrCorrupt, err)
		}
		md, err := htmlToText(ctx, text)
		return md, enc, err
	case "docx":
		text, err := docxText(data, l.maxTextBytes)
		return text, "", err
	}
	return "", "", ErrUnsupported
}

// fileSHA256 is the hex SHA-256 of the file at path, as Load computes it,
// for a file of at most maxBytes.
func fileSHA256(path string, maxBytes int64) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	n, err := io.Copy(h, io.LimitReader(f, maxBytes+1))
	if err != nil {
		return "", err
	}
	if n > maxBytes {
		return "", ErrTooLarge
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// stem is the file name without directory and extension, trimmed of
// surrounding spaces (some CUAD names end in one): the contract id.
func stem(path string) string {
	base := filepath.Base(path)
	return strings.TrimSpace(strings.TrimSuffix(base, filepath.Ext(base)))
}

// Walk expands paths (files and directories, walked recursively) into the
// files to load, sorted, and the files it skipped because their type is not
// supported. Hidden files and directories (a leading dot) inside a walked
// directory are ignored. A path that does not exist is an error.
func Walk(paths []string) (files []string, skipped []*FileError, err error) {
	seen := map[string]bool{}
	add := func(p string) {
		if seen[p] {
			return
		}
		seen[p] = true
		if _, ok := Formats[strings.ToLower(filepath.Ext(p))]; ok {
			files = append(files, p)
		} else {
			skipped = append(skipped, &FileError{Path: p, Err: ErrUnsupported})
		}
	}
	for _, root := range paths {
		st, err := os.Stat(root)
		if err != nil {
			return nil, nil, err
		}
		if !st.IsDir() {
			add(root)
			continue
		}
		err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if p != root && strings.HasPrefix(d.Name(), ".") {
				if d.IsDir() {
					return filepath.SkipDir
				}
				return nil
			}
			if d.Type().IsRegular() {
				add(p)
			}
			return nil
		})
		if err != nil {
			return nil, nil, fmt.Errorf("walk %s: %w", root, err)
		}
	}
	sort.Strings(files)
	return files, skipped, nil
}
