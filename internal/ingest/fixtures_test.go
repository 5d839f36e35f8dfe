package ingest

import (
	"archive/zip"
	"bytes"
	"fmt"
	"strings"
	"testing"
)

// makePDF writes a minimal valid PDF with one page per entry of pages; each
// page shows its lines with the standard Helvetica font. The cross-reference
// table's offsets are computed, so the file is well-formed.
func makePDF(t testing.TB, pages [][]string, extraTrailer string) []byte {
	t.Helper()
	var b bytes.Buffer
	var offsets []int
	obj := func(body string) {
		offsets = append(offsets, b.Len())
		fmt.Fprintf(&b, "%d 0 obj\n%s\nendobj\n", len(offsets), body)
	}
	b.WriteString("%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
	n := len(pages)
	// 1: catalog, 2: pages, 3: font, then per page: page object, content stream.
	obj("<< /Type /Catalog /Pages 2 0 R >>")
	var kids []string
	for i := range pages {
		kids = append(kids, fmt.Sprintf("%d 0 R", 4+2*i))
	}
	obj(fmt.Sprintf("<< /Type /Pages /Kids [%s] /Count %d >>", strings.Join(kids, " "), n))
	obj("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>")
	for i, lines := range pages {
		var cs strings.Builder
		for j, l := range lines {
			l = strings.NewReplacer(`\`, `\\`, "(", `\(`, ")", `\)`).Replace(l)
			fmt.Fprintf(&cs, "BT /F1 12 Tf 72 %d Td (%s) Tj ET\n", 720-16*j, l)
		}
		obj(fmt.Sprintf("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >> /Contents %d 0 R >>", 5+2*i))
		obj(fmt.Sprintf("<< /Length %d >>\nstream\n%sendstream", cs.Len(), cs.String()))
	}
	xref := b.Len()
	fmt.Fprintf(&b, "xref\n0 %d\n0000000000 65535 f \n", len(offsets)+1)
	for _, o := range offsets {
		fmt.Fprintf(&b, "%010d 00000 n \n", o)
	}
	fmt.Fprintf(&b, "trailer\n<< /Size %d /Root 1 0 R %s>>\nstartxref\n%d\n%%%%EOF\n", len(offsets)+1, extraTrailer, xref)
	return b.Bytes()
}

// makeDOCX writes a minimal Word document whose body is the given
// WordprocessingML (the children of w:body).
func makeDOCX(t testing.TB, body string) []byte {
	t.Helper()
	var b bytes.Buffer
	zw := zip.NewWriter(&b)
	files := []struct{ name, body string }{
		{"[Content_Types].xml", `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>`},
		{"_rels/.rels", `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/></Relationships>`},
		{"word/document.xml", `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><w:body>` + body + `<w:sectPr/></w:body></w:document>`},
	}
	for _, f := range files {
		w, err := zw.Create(f.name)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write([]byte(f.body)); err != nil {
			t.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// para is a WordprocessingML paragraph of runs; "\n" in a run becomes a
// line break and "\t" a tab.
func para(runs ...string) string {
	var b strings.Builder
	b.WriteString("<w:p><w:pPr><w:jc w:val=\"both\"/></w:pPr>")
	for _, r := range runs {
		b.WriteString("<w:r><w:rPr><w:b/></w:rPr>")
		for i, line := range strings.Split(r, "\n") {
			if i > 0 {
				b.WriteString("<w:br/>")
			}
			for j, part := range strings.Split(line, "\t") {
				if j > 0 {
					b.WriteString("<w:tab/>")
				}
				fmt.Fprintf(&b, `<w:t xml:space="preserve">%s</w:t>`, xmlEscape(part))
			}
		}
		b.WriteString("</w:r>")
	}
	b.WriteString("</w:p>")
	return b.String()
}

func wordTable(rows ...[]string) string {
	var b strings.Builder
	b.WriteString("<w:tbl><w:tblPr/>")
	for _, row := range rows {
		b.WriteString("<w:tr>")
		for _, c := range row {
			b.WriteString("<w:tc><w:tcPr/>" + para(c) + "</w:tc>")
		}
		b.WriteString("</w:tr>")
	}
	b.WriteString("</w:tbl>")
	return b.String()
}

func xmlEscape(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;").Replace(s)
}
