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
// pages separated by a blank line. The reader panics on some malformed
// files; that becomes ErrCorrupt.
func pdfText(data []byte) (text string, err error) {
	defer func() {
		if r := recover(); r != nil {
			text, err = "", fmt.Errorf("%w: pdf: %v", ErrCorrupt, r)
		}
	}()
	if !bytes.HasPrefix(bytes.TrimLeft(data, "\x00\t\n\r "), []byte("%PDF-")) {
		return "", fmt.Errorf("%w: not a PDF file (no %%PDF- header)", ErrCorrupt)
	}
	r, err := pdf.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		if errors.Is(err, pdf.ErrInvalidPassword) || bytes.Contains(data, []byte("/Encrypt")) {
			return "", ErrEncrypted
		}
		return "", fmt.Errorf("%w: pdf: %v", ErrCorrupt, err)
	}
	if !r.Trailer().Key("Encrypt").IsNull() {
		return "", ErrEncrypted
	}
	n := r.NumPage()
	if n <= 0 {
		return "", fmt.Errorf("%w: pdf has no pages", ErrCorrupt)
	}
	var b strings.Builder
	for i := 1; i <= n; i++ {
		p := r.Page(i)
		if p.V.IsNull() {
			continue
		}
		t, err := p.GetPlainText(nil)
		if err != nil {
			return "", fmt.Errorf("%w: pdf page %d: %v", ErrCorrupt, i, err)
		}
		t = strings.TrimLeft(t, "\n")
		if t == "" {
			continue
		}
		if b.Len() > 0 {
			b.WriteString("\n\n")
		}
		b.WriteString(strings.TrimRight(t, "\n "))
	}
	return b.String(), nil
}
