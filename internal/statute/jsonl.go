package statute

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/contractgraph/contractgraph/internal/bounded"
	"github.com/contractgraph/contractgraph/internal/contract"
	"github.com/contractgraph/contractgraph/internal/graph"
	"github.com/contractgraph/contractgraph/internal/jsonmsg"
)

// MaxRecordBytes bounds one JSON Lines record (a statute with its text);
// a longer line fails alone.
const MaxRecordBytes = 16 << 20

// jsonlRecord is one line of the generic statute format.
type jsonlRecord struct {
	ID           string `json:"id"`
	Jurisdiction string `json:"jurisdiction"`
	Code         string `json:"code"`
	Number       string `json:"number"`
	Heading      string `json:"heading"`
	Text         string `json:"text"`
	URL          string `json:"url"`
}

// ParseJSONL reads the generic statute format: one JSON object per line with
// the fields id, jurisdiction, code, number, heading, text and url. Each
// record must pass graph.PrepareStatute, the rules every statute store
// applies: id, jurisdiction and text are required; url, when present, must
// be an absolute http(s) URL. Blank lines are skipped; unknown fields are
// errors, so a misspelt field is not silently dropped; a second record of
// an id is an error naming the first's line. file names the input in
// errors.
//
// With bad set, a bad record (malformed, invalid, a duplicate id, over
// MaxRecordBytes) fails alone: bad is called with its *ParseError and the
// other lines are read. With bad nil, the first bad record is the error.
// The error is otherwise for the file as a whole: unreadable, or without a
// single valid record.
func ParseJSONL(file string, r io.Reader, bad func(error)) ([]contract.Statute, error) {
	br, ok := r.(*bufio.Reader)
	if !ok {
		br = bufio.NewReaderSize(r, 64<<10)
	}
	var out []contract.Statute
	seen := map[string]int{}
	failed := 0
	for line := 1; ; line++ {
		raw, size, rerr := bounded.Line(br, MaxRecordBytes)
		if rerr != nil && !errors.Is(rerr, io.EOF) {
			return nil, &ParseError{File: file, Record: fmt.Sprintf("line %d", line), Err: rerr}
		}
		st, err := parseJSONLLine(file, line, raw, size, seen)
		switch {
		case err != nil && bad == nil:
			return nil, err
		case err != nil:
			failed++
			bad(err)
		case st != nil:
			seen[st.ID] = line
			out = append(out, *st)
		}
		if rerr != nil {
			break
		}
	}
	if len(out) == 0 {
		if failed > 0 {
			return nil, &ParseError{File: file, Err: fmt.Errorf("no valid statute records (%d bad)", failed)}
		}
		return nil, &ParseError{File: file, Err: errors.New("no statute records")}
	}
	return out, nil
}

// parseJSONLLine reads one line: nil and no error for a blank one.
func parseJSONLLine(file string, line int, raw []byte, size int64, seen map[string]int) (*contract.Statute, error) {
	rec := fmt.Sprintf("line %d", line)
	if raw == nil && size > 0 {
		return nil, &ParseError{File: file, Record: rec,
			Err: fmt.Errorf("the record is %d bytes, over the limit of %d MiB per record; skipped", size, MaxRecordBytes>>20)}
	}
	raw = bytes.TrimSpace(raw)
	if line == 1 {
		raw = bytes.TrimPrefix(raw, utf8BOM)
	}
	if len(raw) == 0 {
		return nil, nil
	}
	var r jsonlRecord
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&r); err != nil {
		return nil, jsonFieldError(file, rec, err)
	}
	if dec.More() {
		return nil, &ParseError{File: file, Record: rec, Err: errors.New("more than one JSON value on the line")}
	}
	st, err := r.statute()
	if err != nil {
		var pe *ParseError
		if errors.As(err, &pe) {
			pe.File, pe.Record = file, rec
		}
		return nil, err
	}
	if prev, ok := seen[st.ID]; ok {
		return nil, &ParseError{File: file, Record: rec, Field: "id", Err: fmt.Errorf("duplicate id %q (first on line %d)", st.ID, prev)}
	}
	return &st, nil
}

func (r *jsonlRecord) statute() (contract.Statute, error) {
	st, _, err := graph.PrepareStatute(contract.Statute{
		ID:           strings.TrimSpace(r.ID),
		Jurisdiction: r.Jurisdiction,
		Code:         collapseSpace(r.Code),
		Number:       r.Number,
		Heading:      collapseSpace(r.Heading),
		Text:         plainLines(strings.ReplaceAll(r.Text, "\r", "")),
		URL:          r.URL,
	})
	return st, fieldError(err)
}

// Validate checks st against the rules every statute store applies
// (graph.PrepareStatute). Its errors are *ParseError values naming the
// field (without file or record).
func Validate(st *contract.Statute) error {
	_, _, err := graph.PrepareStatute(*st)
	return fieldError(err)
}

// fieldError turns a *graph.StatuteFieldError into a *ParseError naming
// the field.
func fieldError(err error) error {
	var fe *graph.StatuteFieldError
	if errors.As(err, &fe) {
		return &ParseError{Field: fe.Field, Err: errors.New(fe.Reason)}
	}
	return err
}

// jsonFieldError turns a decoding error into a ParseError naming the field
// when the decoder knows it, in JSON's terms rather than Go's.
func jsonFieldError(file, rec string, err error) error {
	if field, msg, ok := jsonmsg.Describe(err); ok {
		return &ParseError{File: file, Record: rec, Field: field, Err: errors.New(msg)}
	}
	return &ParseError{File: file, Record: rec, Err: fmt.Errorf("malformed JSON: %w", err)}
}
