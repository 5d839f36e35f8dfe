package statute

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"strings"

	"github.com/contractgraph/contractgraph/internal/contract"
)

// maxJSONLLine bounds one JSON Lines record.
const maxJSONLLine = 16 << 20

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
// the fields id, jurisdiction, code, number, heading, text and url. id,
// jurisdiction and text are required; url, when present, must be an absolute
// http(s) URL. Blank lines are skipped; unknown fields are errors, so a
// misspelt field is not silently dropped. file names the input in errors.
func ParseJSONL(file string, r io.Reader) ([]contract.Statute, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), maxJSONLLine)
	var out []contract.Statute
	seen := map[string]int{}
	line := 0
	for sc.Scan() {
		line++
		raw := bytes.TrimSpace(sc.Bytes())
		if line == 1 {
			raw = bytes.TrimPrefix(raw, utf8BOM)
		}
		if len(raw) == 0 {
			continue
		}
		rec := fmt.Sprintf("line %d", line)
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
		seen[st.ID] = line
		out = append(out, st)
	}
	if err := sc.Err(); err != nil {
		return nil, &ParseError{File: file, Record: fmt.Sprintf("line %d", line+1), Err: err}
	}
	if len(out) == 0 {
		return nil, &ParseError{File: file, Err: errors.New("no statute records")}
	}
	return out, nil
}

func (r *jsonlRecord) statute() (contract.Statute, error) {
	st := contract.Statute{
		ID:           strings.TrimSpace(r.ID),
		Jurisdiction: strings.ToLower(strings.TrimSpace(r.Jurisdiction)),
		Code:         collapseSpace(r.Code),
		Number:       strings.TrimSpace(r.Number),
		Heading:      collapseSpace(r.Heading),
		Text:         plainLines(strings.ReplaceAll(r.Text, "\r", "")),
		URL:          strings.TrimSpace(r.URL),
	}
	if err := Validate(&st); err != nil {
		return contract.Statute{}, err
	}
	return st, nil
}

// Validate checks the fields every stored statute must satisfy. Its errors
// are *ParseError values naming the field (without file or record).
func Validate(st *contract.Statute) error {
	switch {
	case st.ID == "":
		return &ParseError{Field: "id", Err: errors.New("missing")}
	case strings.ContainsFunc(st.ID, isSpace):
		return &ParseError{Field: "id", Err: fmt.Errorf("%q contains white space", st.ID)}
	case len(st.ID) > 200:
		return &ParseError{Field: "id", Err: errors.New("longer than 200 bytes")}
	case st.Jurisdiction == "":
		return &ParseError{Field: "jurisdiction", Err: errors.New("missing")}
	case strings.ContainsFunc(st.Jurisdiction, isSpace):
		return &ParseError{Field: "jurisdiction", Err: fmt.Errorf("%q contains white space", st.Jurisdiction)}
	case strings.TrimSpace(st.Text) == "":
		return &ParseError{Field: "text", Err: errors.New("missing")}
	}
	if st.URL != "" {
		u, err := url.Parse(st.URL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return &ParseError{Field: "url", Err: fmt.Errorf("%q is not an absolute http(s) URL", st.URL)}
		}
	}
	return nil
}

func isSpace(r rune) bool { return r == ' ' || r == '\t' || r == '\n' || r == '\r' }

// jsonFieldError turns a decoding error into a ParseError naming the field
// when the decoder knows it.
func jsonFieldError(file, rec string, err error) error {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		return &ParseError{File: file, Record: rec, Field: te.Field, Err: fmt.Errorf("want a %s, got JSON %s", te.Type, te.Value)}
	}
	const unknown = "json: unknown field "
	if msg := err.Error(); strings.HasPrefix(msg, unknown) {
		return &ParseError{File: file, Record: rec, Field: strings.Trim(strings.TrimPrefix(msg, unknown), `"`), Err: errors.New("unknown field")}
	}
	return &ParseError{File: file, Record: rec, Err: fmt.Errorf("malformed JSON: %w", err)}
}
