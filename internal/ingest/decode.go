package ingest

import (
	"bytes"
	"fmt"
	"unicode/utf8"

	"golang.org/x/text/encoding/charmap"
	"golang.org/x/text/encoding/unicode"
)

// Encodings reported by Decode.
const (
	EncUTF8        = "utf-8"
	EncUTF16LE     = "utf-16le"
	EncUTF16BE     = "utf-16be"
	EncWindows1252 = "windows-1252"
)

// Decode turns raw text bytes into a Go string. A UTF-8 or UTF-16 byte-order
// mark decides the encoding; without one, valid UTF-8 is taken as is and
// anything else is read as Windows-1252 (which also covers Latin-1), the
// usual encoding of legacy contract files. The BOM is dropped.
func Decode(data []byte) (text, encoding string, err error) {
	switch {
	case bytes.HasPrefix(data, []byte{0xEF, 0xBB, 0xBF}):
		data = data[3:]
		if !utf8.Valid(data) {
			return "", EncUTF8, fmt.Errorf("invalid UTF-8 after a UTF-8 byte-order mark")
		}
		return string(data), EncUTF8, nil
	case bytes.HasPrefix(data, []byte{0xFF, 0xFE}):
		out, err := unicode.UTF16(unicode.LittleEndian, unicode.ExpectBOM).NewDecoder().Bytes(data)
		if err != nil {
			return "", EncUTF16LE, fmt.Errorf("decode UTF-16LE: %w", err)
		}
		return string(out), EncUTF16LE, nil
	case bytes.HasPrefix(data, []byte{0xFE, 0xFF}):
		out, err := unicode.UTF16(unicode.BigEndian, unicode.ExpectBOM).NewDecoder().Bytes(data)
		if err != nil {
			return "", EncUTF16BE, fmt.Errorf("decode UTF-16BE: %w", err)
		}
		return string(out), EncUTF16BE, nil
	case utf8.Valid(data):
		return string(data), EncUTF8, nil
	}
	out, err := charmap.Windows1252.NewDecoder().Bytes(data)
	if err != nil {
		return "", EncWindows1252, fmt.Errorf("decode Windows-1252: %w", err)
	}
	return string(out), EncWindows1252, nil
}
