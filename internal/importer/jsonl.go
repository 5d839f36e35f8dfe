package importer

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/contractgraph/contractgraph/internal/contract"
	"github.com/contractgraph/contractgraph/internal/graph"
)

// ExportVersion is the version written in, and required of, a JSONL header.
const ExportVersion = 1

// Header is the optional first line of a JSONL file.
type Header struct {
	ContractGraphExport int    `json:"contractgraph_export"`
	Generator           string `json:"generator,omitempty"`
	Contracts           int    `json:"contracts,omitempty"`
}

// maxLine bounds one JSONL line (one contract with its full text).
const maxLine = 64 << 20

// readJSONL reads ContractGraph JSONL: one contract.Contract per line,
// decoded strictly (unknown fields are errors) and validated.
func readJSONL(ctx context.Context, path string, r *bufio.Reader, fn func(Record) error) error {
	first := true
	for lineNo := 1; ; lineNo++ {
		if err := ctx.Err(); err != nil {
			return err
		}
		line, err := readLine(r)
		if err != nil && !errors.Is(err, io.EOF) {
			return &RecordError{File: path, Record: recordLabel("line", lineNo, "", ""), Err: err}
		}
		done := errors.Is(err, io.EOF)
		line = bytes.TrimSpace(line)
		if len(line) > 0 {
			if first && bytes.Contains(line, []byte(`"contractgraph_export"`)) {
				if herr := checkHeader(line); herr != nil {
					return &RecordError{File: path, Record: "line 1", Field: "contractgraph_export", Err: herr}
				}
			} else {
				rec := Record{Source: path, Index: lineNo}
				rec.Contract, rec.Err = decodeJSONLLine(path, lineNo, line)
				if err := fn(rec); err != nil {
					return err
				}
			}
			first = false
		}
		if done {
			return nil
		}
	}
}

func readLine(r *bufio.Reader) ([]byte, error) {
	var buf []byte
	for {
		chunk, err := r.ReadSlice('\n')
		buf = append(buf, chunk...)
		if len(buf) > maxLine {
			return nil, fmt.Errorf("line longer than %d bytes", maxLine)
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		return buf, err
	}
}

func checkHeader(line []byte) error {
	var h Header
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&h); err != nil {
		return fmt.Errorf("malformed header: %w", err)
	}
	if h.ContractGraphExport != ExportVersion {
		return fmt.Errorf("unsupported export version %d (want %d)", h.ContractGraphExport, ExportVersion)
	}
	return nil
}

func decodeJSONLLine(path string, lineNo int, line []byte) (*contract.Contract, error) {
	var c contract.Contract
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.DisallowUnknownFields()
	err := dec.Decode(&c)
	id := c.ID
	if err != nil {
		var peek struct {
			ID any `json:"id"`
		}
		_ = json.Unmarshal(line, &peek)
		id, _ = peek.ID.(string)
	}
	label := recordLabel("line", lineNo, "id", id)
	fail := func(field string, err error) (*contract.Contract, error) {
		return nil, &RecordError{File: path, Record: label, Field: field, Err: err}
	}
	if err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			return fail(te.Field, fmt.Errorf("expected %s, got JSON %s", te.Type, te.Value))
		}
		if f, ok := strings.CutPrefix(err.Error(), "json: unknown field "); ok {
			return fail(strings.Trim(f, `"`), errors.New("unknown field"))
		}
		return fail("", fmt.Errorf("malformed JSON: %w", err))
	}
	if dec.More() {
		return fail("", errors.New("more than one JSON value on the line"))
	}
	if field, err := Validate(&c); err != nil {
		return fail(field, err)
	}
	return &c, nil
}

// Validate checks a contract read from JSONL and canonicalises its clause
// types. It returns the offending field (JSON path) and what is wrong.
func Validate(c *contract.Contract) (field string, err error) {
	switch {
	case strings.TrimSpace(c.ID) == "":
		return "id", errors.New("missing")
	case c.ID != strings.TrimSpace(c.ID):
		return "id", errors.New("has surrounding white space")
	case !utf8.ValidString(c.ID):
		return "id", errors.New("not valid UTF-8")
	}
	for _, d := range []struct{ field, v string }{{"effective_date", c.EffectiveDate}, {"end_date", c.EndDate}} {
		if d.v == "" {
			continue
		}
		if _, err := time.Parse(time.DateOnly, d.v); err != nil {
			if n, nerr := contract.NormalizeDate(d.v); nerr != nil {
				return d.field, nerr
			} else {
				return d.field, fmt.Errorf("date %q must be written YYYY-MM-DD (%s)", d.v, n)
			}
		}
	}
	if c.ContractType != "" {
		t, err := contract.ParseContractType(c.ContractType, "")
		if err != nil {
			return "contract_type", err
		}
		c.ContractType = t
	}
	if c.Duration != "" {
		if _, err := contract.ParseISODuration(c.Duration); err != nil {
			return "duration", err
		}
	}
	if c.DurationDays != nil && *c.DurationDays < 0 {
		return "duration_days", fmt.Errorf("negative (%d)", *c.DurationDays)
	}
	if c.TotalAmount != nil && (*c.TotalAmount != *c.TotalAmount || *c.TotalAmount > 1e18 || *c.TotalAmount < -1e18) {
		return "total_amount", errors.New("not a finite number")
	}
	if c.Currency != "" {
		if cur, ok := contract.NormalizeCurrency(c.Currency); !ok || cur != c.Currency {
			return "currency", fmt.Errorf("%q is not an ISO 4217 code", c.Currency)
		}
	}
	if f, err := validLocation("governing_law", c.GoverningLaw); err != nil {
		return f, err
	}
	for i, p := range c.Parties {
		if strings.IndexFunc(p.Name, isAlnum) < 0 {
			return fmt.Sprintf("parties[%d].name", i), fmt.Errorf("%q holds no letter or digit", p.Name)
		}
		if f, err := validLocation(fmt.Sprintf("parties[%d].location", i), p.Location); err != nil {
			return f, err
		}
	}
	for i := range c.Clauses {
		cl := &c.Clauses[i]
		f := fmt.Sprintf("clauses[%d]", i)
		typ, group, err := contract.ParseClauseType(cl.Type)
		if err != nil {
			return f + ".type", err
		}
		if cl.Group != "" && cl.Group != group {
			return f + ".group", fmt.Errorf("%q is not the group of %q (%q)", cl.Group, typ, group)
		}
		cl.Type, cl.Group = typ, group
		if err := validSpan(c.Text, cl.Start, cl.End); err != nil {
			return f, err
		}
		if cl.Verified && c.Text[cl.Start:cl.End] != cl.Text {
			return f + ".verified", errors.New("true but the text at [start,end) differs from the clause text")
		}
	}
	for i, ev := range c.Evidence {
		if err := validSpan(c.Text, ev.Start, ev.End); err != nil {
			return fmt.Sprintf("evidence[%d]", i), err
		}
		if ev.Verified && c.Text[ev.Start:ev.End] != ev.Quote {
			return fmt.Sprintf("evidence[%d].verified", i), errors.New("true but the text at [start,end) differs from the quote")
		}
	}
	for i, ch := range c.Chunks {
		if err := validSpan(c.Text, ch.Start, ch.End); err != nil {
			return fmt.Sprintf("chunks[%d]", i), err
		}
	}
	return "", nil
}

func validSpan(text string, start, end int) error {
	if start < 0 || end < start || end > len(text) {
		return fmt.Errorf("span [%d,%d) lies outside the %d-byte text", start, end, len(text))
	}
	return nil
}

func validLocation(field string, l *contract.Location) (string, error) {
	if l == nil || l.Country == "" {
		return "", nil
	}
	if c, ok := contract.NormalizeCountry(l.Country); !ok || c != l.Country {
		return field + ".country", fmt.Errorf("%q is not an ISO 3166-1 alpha-2 code", l.Country)
	}
	if l.Country == "US" && l.State != "" {
		if s, ok := contract.NormalizeUSState(l.State); !ok || s != l.State {
			return field + ".state", fmt.Errorf("%q is not a USPS state code", l.State)
		}
	}
	return "", nil
}

// Export writes every contract of store as ContractGraph JSONL: a header
// line, then one contract per line (text included) in id order. Party ids
// are left out because they belong to the store, not the contract.
func Export(ctx context.Context, store graph.Store, w io.Writer) error {
	bw := bufio.NewWriterSize(w, 1<<20)
	enc := json.NewEncoder(bw)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(Header{ContractGraphExport: ExportVersion, Generator: "contractgraph export"}); err != nil {
		return fmt.Errorf("export: %w", err)
	}
	err := store.Contracts(ctx, func(c *contract.Contract) error {
		cc := *c
		cc.Parties = append([]contract.PartyRole(nil), c.Parties...)
		for i := range cc.Parties {
			cc.Parties[i].PartyID = ""
		}
		return enc.Encode(&cc)
	})
	if err != nil {
		return fmt.Errorf("export: %w", err)
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("export: %w", err)
	}
	return nil
}
