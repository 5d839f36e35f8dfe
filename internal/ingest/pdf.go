package ingest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strings"

	"github.com/ledongthuc/pdf"
)

// FindPDFToText returns the path of poppler's pdftotext on PATH, or "".
func FindPDFToText() string {
	p, err := exec.LookPath("pdftotext")
	if err != nil {
		return ""
	}
	return p
}

// pdfToTextCmd runs `pdftotext -layout -enc UTF-8 path -`. Its exit status 1
// means the file could not be opened or parsed, 3 a permissions problem
// (an encrypted file).
func pdfToTextCmd(ctx context.Context, bin, path string) (string, error) {
	var stdout, stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, bin, "-layout", "-enc", "UTF-8", "-q", path, "-")
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil {
			return "", ctx.Err()
		}
		var ee *exec.ExitError
		msg := strings.TrimSpace(stderr.String())
		if errors.As(err, &ee) {
			switch ee.ExitCode() {
			case 1:
				if strings.Contains(strings.ToLower(msg), "password") || strings.Contains(strings.ToLower(msg), "encrypt") {
					return "", fmt.Errorf("%w: %s", ErrEncrypted, msg)
				}
				return "", fmt.Errorf("%w: pdftotext: %s", ErrCorrupt, msg)
			case 3:
				return "", fmt.Errorf("%w: %s", ErrEncrypted, msg)
			}
		}
		return "", fmt.Errorf("pdftotext: %v: %s", err, msg)
	}
	return stdout.String(), nil
}

// pdfText extracts the text of a PDF with the pure-Go reader, page by page,
// pages separated by a blank line.
func pdfText(data []byte) (string, error) {
	pages, err := pdfPageTexts(data)
	if err != nil {
		return "", err
	}
	return joinPDFPages(pages), nil
}

// joinPDFPages joins the pure-Go reader's page texts as pdfText does:
// the pages with text, separated by a blank line.
func joinPDFPages(pages []string) string {
	var b strings.Builder
	for _, t := range pages {
		if t == "" {
			continue
		}
		if b.Len() > 0 {
			b.WriteString("\n\n")
		}
		b.WriteString(t)
	}
	return b.String()
}

// pdfPageTexts returns the text of each page of a PDF read with the pure-Go
// reader, trimmed of blank lines around it, "" for a page without text.
// The reader panics on some malformed files; that becomes ErrCorrupt.
func pdfPageTexts(data []byte) (pages []string, err error) {
	defer func() {
		if r := recover(); r != nil {
			pages, err = nil, fmt.Errorf("%w: pdf: %v", ErrCorrupt, r)
		}
	}()
	if !bytes.HasPrefix(bytes.TrimLeft(data, "\x00\t\n\r "), []byte("%PDF-")) {
		return nil, fmt.Errorf("%w: not a PDF file (no %%PDF- header)", ErrCorrupt)
	}
	r, err := pdf.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		if errors.Is(err, pdf.ErrInvalidPassword) || bytes.Contains(data, []byte("/Encrypt")) {
			return nil, ErrEncrypted
		}
		return nil, fmt.Errorf("%w: pdf: %v", ErrCorrupt, err)
	}
	if !r.Trailer().Key("Encrypt").IsNull() {
		return nil, ErrEncrypted
	}
	n := r.NumPage()
	if n <= 0 {
		return nil, fmt.Errorf("%w: pdf has no pages", ErrCorrupt)
	}
	pages = make([]string, n)
	for i := 1; i <= n; i++ {
		p := r.Page(i)
		if p.V.IsNull() {
			continue
		}
		t, err := p.GetPlainText(nil)
		if err != nil {
			return nil, fmt.Errorf("%w: pdf page %d: %v", ErrCorrupt, i, err)
		}
		pages[i-1] = strings.TrimRight(strings.TrimLeft(t, "\n"), "\n ")
	}
	return pages, nil
}

// pdfImagePages returns the 0-based numbers of the pages that draw an
// image (directly or in a form), for telling a scanned page from a blank
// one, and false when the pure-Go reader cannot read the file's n pages.
func pdfImagePages(data []byte, n int) (pages map[int]bool, ok bool) {
	defer func() {
		if r := recover(); r != nil {
			pages, ok = nil, false
		}
	}()
	r, err := pdf.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil || r.NumPage() != n {
		return nil, false
	}
	pages = map[int]bool{}
	for i := range n {
		if p := r.Page(i + 1); !p.V.IsNull() && hasImage(p.Resources(), 2) {
			pages[i] = true
		}
	}
	return pages, true
}

// hasImage reports whether a resource dictionary holds an image XObject,
// looking depth levels into form XObjects.
func hasImage(res pdf.Value, depth int) bool {
	xo := res.Key("XObject")
	for _, k := range xo.Keys() {
		v := xo.Key(k)
		switch v.Key("Subtype").Name() {
		case "Image":
			return true
		case "Form":
			if depth > 0 && hasImage(v.Key("Resources"), depth-1) {
				return true
			}
		}
	}
	return false
}
