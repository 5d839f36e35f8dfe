package ingest

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
)

func writeFile(t testing.TB, dir, name string, data []byte) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func utf16le(s string) []byte {
	out := []byte{0xFF, 0xFE}
	for _, r := range s {
		out = append(out, byte(r), byte(r>>8))
	}
	return out
}

func TestLoad(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name     string
		data     []byte
		format   string
		encoding string
		want     string
	}{
		{
			name:     "crlf.txt",
			data:     []byte("MASTER SERVICES AGREEMENT\r\n\r\n1.\u00a0Term. This Agreement\u200b begins on May 1, 2020.\r\n"),
			format:   "txt",
			encoding: EncUTF8,
			want:     "MASTER SERVICES AGREEMENT\n\n1. Term. This Agreement begins on May 1, 2020.\n",
		},
		{
			name:     "bom.txt",
			data:     []byte("\xEF\xBB\xBFSupply Agreement"),
			format:   "txt",
			encoding: EncUTF8,
			want:     "Supply Agreement",
		},
		{
			name:     "wide.txt",
			data:     utf16le("Société Générale\r\nLicence"),
			format:   "txt",
			encoding: EncUTF16LE,
			want:     "Société Générale\nLicence",
		},
		{
			name:     "legacy.md",
			data:     []byte("# Agreement\n\nThe \x93Licensor\x94 shall pay \x80100 to Caf\xe9 S.A.\n"),
			format:   "md",
			encoding: EncWindows1252,
			want:     "# Agreement\n\nThe \u201cLicensor\u201d shall pay \u20ac100 to Café S.A.\n",
		},
		{
			name: "page.html",
			data: []byte(`<!doctype html><html><head><title>x</title><style>p{}</style></head><body>
<h1>Distribution Agreement</h1>
<p>1. Term.&nbsp;This Agreement is made by <b>Acme, Inc.</b> and Beta LLC.</p>
<table><tr><th>Product</th><th>Price</th></tr><tr><td>Widget</td><td>$10</td></tr></table>
</body></html>`),
			format:   "html",
			encoding: EncUTF8,
			want:     "# Distribution Agreement\n\n1. Term. This Agreement is made by **Acme, Inc.** and Beta LLC.\n\n| Product | Price |\n|---------|-------|\n| Widget  | $10   |",
		},
		{
			name:   "scan.pdf",
			data:   makePDF(t, [][]string{{"LICENSE AGREEMENT", "This Agreement (the Agreement) is dated June 1, 2019."}, {"Governed by the laws of Delaware."}}, ""),
			format: "pdf",
			want:   "LICENSE AGREEMENT\nThis Agreement (the Agreement) is dated June 1, 2019.\n\nGoverned by the laws of Delaware.",
		},
		{
			name: "word.docx",
			data: makeDOCX(t, para("CONSULTING AGREEMENT")+
				para("1. Services.", " The Consultant shall provide\nadvice.")+
				wordTable([]string{"Fee", "Due"}, []string{"$5,000 & costs", "monthly"})+
				para("2.\tTerm. Two years.")),
			format: "docx",
			want:   "CONSULTING AGREEMENT\n\n1. Services. The Consultant shall provide\nadvice.\n\nFee | Due\n$5,000 & costs | monthly\n\n2.\tTerm. Two years.",
		},
	}
	l := NewLoader(LoaderOptions{})
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := writeFile(t, dir, tt.name, tt.data)
			doc, err := l.Load(context.Background(), p)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, doc.Text); diff != "" {
				t.Errorf("text (-want +got):\n%s", diff)
			}
			if doc.Format != tt.format || doc.Encoding != tt.encoding {
				t.Errorf("format, encoding = %q, %q; want %q, %q", doc.Format, doc.Encoding, tt.format, tt.encoding)
			}
			if doc.ID != strings.TrimSuffix(tt.name, filepath.Ext(tt.name)) {
				t.Errorf("id = %q", doc.ID)
			}
			if len(doc.SHA256) != 64 || doc.Size != int64(len(tt.data)) {
				t.Errorf("sha256 %q size %d", doc.SHA256, doc.Size)
			}
		})
	}
}

func TestLoadRejects(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name string
		data []byte
		want error
	}{
		{"sheet.xlsx", []byte("PK\x03\x04"), ErrUnsupported},
		{"blank.txt", []byte(" \r\n\t\n"), ErrEmpty},
		{"control.txt", []byte("\x00\x01\x02\x1b"), ErrEmpty},
		{"locked.pdf", makePDF(t, [][]string{{"secret"}}, "/Encrypt << /Filter /Standard /V 2 /R 3 /O (x) /U (y) /P -4 >> "), ErrEncrypted},
		{"locked.docx", append([]byte{0xD0, 0xCF, 0x11, 0xE0, 0xA1, 0xB1, 0x1A, 0xE1}, make([]byte, 512)...), ErrEncrypted},
		{"broken.pdf", []byte("%PDF-1.4\n1 0 obj << /Type /Catalog >> garbage"), ErrCorrupt},
		{"notpdf.pdf", []byte("hello, I am a text file"), ErrCorrupt},
		{"broken.docx", []byte("PK\x03\x04 truncated zip"), ErrCorrupt},
		{"nodoc.docx", func() []byte { d := makeDOCX(t, ""); return d }(), ErrEmpty},
		{"blankpages.pdf", makePDF(t, [][]string{{}}, ""), ErrEmpty},
		{"big.txt", []byte(strings.Repeat("a", 2048)), ErrTooLarge},
	}
	l := NewLoader(LoaderOptions{MaxBytes: 1024})
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := writeFile(t, dir, tt.name, tt.data)
			_, err := l.Load(context.Background(), p)
			if !errors.Is(err, tt.want) {
				t.Fatalf("err = %v, want %v", err, tt.want)
			}
			var fe *FileError
			if !errors.As(err, &fe) || fe.Path != p || !strings.Contains(err.Error(), tt.name) {
				t.Errorf("error %v does not name the file", err)
			}
		})
	}
}

func TestWalk(t *testing.T) {
	dir := t.TempDir()
	for _, n := range []string{"b.txt", "a/c.PDF", "a/d.docx", "a/e.xlsx", ".git/x.txt", "a/.hidden.txt", "f.htm"} {
		writeFile(t, dir, n, []byte("x"))
	}
	single := writeFile(t, t.TempDir(), "z.md", []byte("x"))
	files, skipped, err := Walk([]string{dir, single, filepath.Join(dir, "b.txt")})
	if err != nil {
		t.Fatal(err)
	}
	rel := func(p string) string {
		if r, err := filepath.Rel(dir, p); err == nil && !strings.HasPrefix(r, "..") {
			return r
		}
		return filepath.Base(p)
	}
	var got []string
	for _, f := range files {
		got = append(got, rel(f))
	}
	want := []string{"a/c.PDF", "a/d.docx", "b.txt", "f.htm", "z.md"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("files (-want +got):\n%s", diff)
	}
	if len(skipped) != 1 || rel(skipped[0].Path) != "a/e.xlsx" || !errors.Is(skipped[0], ErrUnsupported) {
		t.Errorf("skipped = %v", skipped)
	}
	if _, _, err := Walk([]string{filepath.Join(dir, "missing")}); err == nil {
		t.Error("missing path: no error")
	}
}

func TestNormalizeOffsets(t *testing.T) {
	src := "\ufeffA\r\nB\u00a0C\u200bD\x00E\rF"
	got, m := Normalize(src)
	if want := "A\nB C" + "DE\nF"; got != want {
		t.Fatalf("Normalize = %q, want %q", got, want)
	}
	// Every kept letter maps back to the same letter in the source.
	for i := 0; i < len(got); i++ {
		c := got[i]
		if c < 'A' || c > 'F' {
			continue
		}
		if s := m.Source(i); src[s] != c {
			t.Errorf("Source(%d) = %d (%q), want %q", i, s, src[s], c)
		}
	}
	if s := m.Source(len(got)); s != len(src) {
		t.Errorf("Source(end) = %d, want %d", s, len(src))
	}
}

func FuzzNormalize(f *testing.F) {
	for _, s := range []string{"a\r\nb", "x\u00a0y\u200bz", "\xff\xfe", "\ufeffA\rB\fC", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		got, m := Normalize(src)
		if !utf8.ValidString(got) {
			t.Fatalf("invalid UTF-8 %q", got)
		}
		if strings.ContainsAny(got, "\r\u00a0\ufeff\x00") {
			t.Fatalf("not normalised: %q", got)
		}
		prev := 0
		for i := 0; i <= len(got); i++ {
			s := m.Source(i)
			if s < prev || s > len(src) {
				t.Fatalf("Source(%d) = %d, prev %d, len %d", i, s, prev, len(src))
			}
			prev = s
			if i < len(got) && got[i] >= 'a' && got[i] <= 'z' && src[s] != got[i] {
				t.Fatalf("Source(%d) = %d: %q != %q", i, s, src[s], got[i])
			}
		}
		if again, _ := Normalize(got); again != got {
			t.Fatalf("not idempotent: %q -> %q", got, again)
		}
	})
}

func FuzzDecode(f *testing.F) {
	for _, s := range [][]byte{utf16le("hé"), []byte("caf\xe9"), []byte("\xEF\xBB\xBFok"), {0xFE, 0xFF, 0, 'a', 0}} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		text, _, err := Decode(data)
		if err == nil && !utf8.ValidString(text) {
			t.Fatalf("Decode(%q) = invalid UTF-8 %q", data, text)
		}
	})
}

func FuzzDocx(f *testing.F) {
	f.Add([]byte(makeDOCX(f, para("a\nb")+wordTable([]string{"x", "y"}))))
	f.Add([]byte("PK\x03\x04"))
	f.Fuzz(func(t *testing.T, data []byte) {
		text, err := docxText(data, DefaultMaxTextBytes)
		if err != nil && !errors.Is(err, ErrCorrupt) && !errors.Is(err, ErrEncrypted) {
			t.Fatalf("unexpected error class: %v", err)
		}
		if err == nil && !utf8.ValidString(text) {
			t.Fatalf("invalid UTF-8 %q", text)
		}
	})
}

func FuzzPDF(f *testing.F) {
	f.Add(makePDF(f, [][]string{{"Hello (world)"}}, ""))
	f.Add([]byte("%PDF-1.7\ntrailer << /Root 1 0 R >>"))
	f.Fuzz(func(t *testing.T, data []byte) {
		_, err := pdfText(data)
		if err != nil && !errors.Is(err, ErrCorrupt) && !errors.Is(err, ErrEncrypted) {
			t.Fatalf("unexpected error class: %v", err)
		}
	})
}
