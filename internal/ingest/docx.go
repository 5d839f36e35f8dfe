package ingest

import (
	"archive/zip"
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"strings"
)

// maxDocxXML bounds the uncompressed size of word/document.xml so that a zip
// bomb cannot exhaust memory.
const maxDocxXML = 64 << 20

// errTextLimit stops reading a document whose text is over the limit.
var errTextLimit = errors.New("text over the limit")

// oleMagic starts an OLE compound file: a password-protected Office file
// (or a legacy .doc renamed to .docx).
var oleMagic = []byte{0xD0, 0xCF, 0x11, 0xE0, 0xA1, 0xB1, 0x1A, 0xE1}

// docxText extracts the text of a Word document: paragraphs separated by a
// blank line, table rows one per line with cells separated by " | ", and
// line breaks and tabs kept. It stops with errTextLimit as soon as the
// text is over maxText bytes: a compressed document can hold far more text
// than its size says, and reading it all would be work for nothing.
func docxText(data []byte, maxText int) (string, error) {
	if bytes.HasPrefix(data, oleMagic) {
		return "", fmt.Errorf("%w: OLE container (password-protected or legacy .doc)", ErrEncrypted)
	}
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return "", fmt.Errorf("%w: docx: %v", ErrCorrupt, err)
	}
	var doc *zip.File
	for _, f := range zr.File {
		if f.Name == "word/document.xml" {
			doc = f
		}
		if f.Name == "EncryptionInfo" || f.Name == "EncryptedPackage" {
			return "", ErrEncrypted
		}
	}
	if doc == nil {
		return "", fmt.Errorf("%w: docx: no word/document.xml", ErrCorrupt)
	}
	rc, err := doc.Open()
	if err != nil {
		return "", fmt.Errorf("%w: docx: %v", ErrCorrupt, err)
	}
	defer rc.Close()
	text, err := wordXMLText(io.LimitReader(rc, maxDocxXML), maxText)
	if errors.Is(err, errTextLimit) {
		return "", err
	}
	if err != nil {
		return "", fmt.Errorf("%w: docx: %v", ErrCorrupt, err)
	}
	return text, nil
}

// wordXMLText walks WordprocessingML. Only the elements that carry text or
// structure matter; everything else (formatting, drawings) is passed over.
func wordXMLText(r io.Reader, maxText int) (string, error) {
	const w = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"
	dec := xml.NewDecoder(r)
	var (
		out       strings.Builder
		para      strings.Builder
		inText    bool
		tableRows int // depth of open table rows
		cells     [][]string
		cellDepth int
		// lastWasRow: the output ends with a row of the table being written.
		lastWasRow bool
	)
	flushPara := func() {
		p := para.String()
		para.Reset()
		if cellDepth > 0 && len(cells) > 0 {
			row := cells[len(cells)-1]
			if len(row) > 0 {
				if row[len(row)-1] != "" && p != "" {
					row[len(row)-1] += "\n"
				}
				row[len(row)-1] += p
			}
			return
		}
		if strings.TrimSpace(p) == "" {
			return
		}
		if out.Len() > 0 {
			out.WriteString("\n\n")
		}
		out.WriteString(p)
		lastWasRow = false
	}
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return "", err
		}
		switch t := tok.(type) {
		case xml.StartElement:
			if t.Name.Space != w {
				continue
			}
			switch t.Name.Local {
			case "t", "delText":
				inText = t.Name.Local == "t"
			case "tab":
				para.WriteByte('\t')
			case "br", "cr":
				para.WriteByte('\n')
			case "noBreakHyphen":
				para.WriteByte('-')
			case "tr":
				tableRows++
				cells = append(cells, nil)
			case "tc":
				cellDepth++
				if len(cells) > 0 {
					cells[len(cells)-1] = append(cells[len(cells)-1], "")
				}
			}
		case xml.EndElement:
			if t.Name.Space != w {
				continue
			}
			switch t.Name.Local {
			case "t", "delText":
				inText = false
			case "p":
				flushPara()
			case "tc":
				cellDepth--
			case "tr":
				tableRows--
				if len(cells) == 0 {
					continue
				}
				row := cells[len(cells)-1]
				cells = cells[:len(cells)-1]
				for i := range row {
					row[i] = strings.ReplaceAll(strings.TrimSpace(row[i]), "\n", " ")
				}
				line := strings.Join(row, " | ")
				if tableRows > 0 && len(cells) > 0 {
					// A nested table's row goes into the enclosing cell.
					outer := cells[len(cells)-1]
					if len(outer) > 0 {
						outer[len(outer)-1] += line + "\n"
					}
					continue
				}
				if strings.TrimSpace(strings.ReplaceAll(line, "|", "")) == "" {
					continue
				}
				if out.Len() > 0 {
					if lastWasRow {
						out.WriteString("\n")
					} else {
						out.WriteString("\n\n")
					}
				}
				lastWasRow = true
				out.WriteString(line)
			case "tbl":
				// The next table starts after a blank line.
				if tableRows == 0 {
					lastWasRow = false
				}
			}
		case xml.CharData:
			if inText {
				para.Write(t)
				if out.Len()+para.Len() > maxText {
					return "", errTextLimit
				}
			}
		}
	}
	return out.String(), nil
}
