package ingest

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"unicode/utf8"
)

// fakePDFToText writes a shell script standing in for poppler's pdftotext:
// it checks the arguments the loader passes and answers like poppler for a
// good file, a password-protected one and a broken one.
func fakePDFToText(t *testing.T) string {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("shell script stand-in needs a POSIX shell")
	}
	script := `#!/bin/sh
[ "$1" = "-layout" ] && [ "$2" = "-enc" ] && [ "$3" = "UTF-8" ] && [ "$4" = "-q" ] && [ "$6" = "-" ] || { echo "bad arguments: $*" >&2; exit 99; }
case "$5" in
*locked*) echo "Command Line Error: Incorrect password" >&2; exit 1 ;;
*perm*) echo "Permission Error" >&2; exit 3 ;;
*broken*) echo "Syntax Error: Couldn't find trailer dictionary" >&2; exit 1 ;;
esac
printf 'LICENSE AGREEMENT\r\n\r\n1.  Grant.\tLicensor grants\fPage two.\n'
`
	p := filepath.Join(t.TempDir(), "pdftotext")
	if err := os.WriteFile(p, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestPDFToTextCommand(t *testing.T) {
	bin := fakePDFToText(t)
	dir := t.TempDir()
	l := NewLoader(LoaderOptions{PDFToText: bin})
	ctx := context.Background()
	doc, err := l.Load(ctx, writeFile(t, dir, "deal.pdf", []byte("%PDF-1.7 whatever")))
	if err != nil {
		t.Fatal(err)
	}
	if want := "LICENSE AGREEMENT\n\n1.  Grant.\tLicensor grants\nPage two.\n"; doc.Text != want {
		t.Errorf("text = %q, want %q", doc.Text, want)
	}
	for name, want := range map[string]error{"locked.pdf": ErrEncrypted, "perm.pdf": ErrEncrypted, "broken.pdf": ErrCorrupt} {
		_, err := l.Load(ctx, writeFile(t, dir, name, []byte("%PDF-1.7")))
		if !errors.Is(err, want) {
			t.Errorf("%s: err = %v, want %v", name, err, want)
		}
	}
}

func FuzzHTML(f *testing.F) {
	f.Add("<table><tr><td>a</td></tr></table><p>x&nbsp;y</p>")
	f.Add("<html><body><h1>T</h1><ul><li>1</li></ul>")
	f.Fuzz(func(t *testing.T, html string) {
		text, err := htmlToText(context.Background(), html)
		if err != nil && !errors.Is(err, ErrCorrupt) {
			t.Fatalf("unexpected error class: %v", err)
		}
		if err == nil && utf8.ValidString(html) && !utf8.ValidString(text) {
			t.Fatalf("invalid UTF-8 from valid input: %q", text)
		}
	})
}
