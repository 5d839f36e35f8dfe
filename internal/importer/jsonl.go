package importer

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"

	jsonv2 "github.com/go-json-experiment/json"

	"github.com/contractgraph/contractgraph/internal/bounded"
	"github.com/contractgraph/contractgraph/internal/contract"
	"github.com/contractgraph/contractgraph/internal/graph"
	"github.com/contractgraph/contractgraph/internal/jsonmsg"
)

// ExportVersion is the version written in, and required of, a JSONL header.
const ExportVersion = 1

// Header is the optional first line of a JSONL file.
type Header struct {
	ContractGraphExport int    `json:"contractgraph_export"`
	Generator           string `json:"generator,omitempty"`
	Contracts           int    `json:"contracts,omitempty"`
}

// readJSONL reads ContractGraph JSONL: one contract.Contract per line,
// decoded strictly (unknown fields are errors) and validated. A line over
// lim.RecordBytes fails alone, without being held in memory.
func readJSONL(ctx context.Context, path string, r *bufio.Reader, lim Limits, fn func(Record) error) error {
	first := true
	for lineNo := 1; ; lineNo++ {
		if err := ctx.Err(); err != nil {
			return err
		}
		line, size, err := bounded.Line(r, lim.RecordBytes)
		if err != nil && !errors.Is(err, io.EOF) {
			return &RecordError{File: path, Record: recordLabel("line", lineNo, "", ""), Err: err}
		}
		done := errors.Is(err, io.EOF)
		if line == nil && size > 0 {
			rec := Record{Source: path, Index: lineNo,
				Err: &RecordError{File: path, Record: recordLabel("line", lineNo, "", ""), Err: recordTooLarge(size, lim.RecordBytes)}}
			if err := fn(rec); err != nil {
				return err
			}
			first = false
		} else if line = bytes.TrimSpace(line); len(line) > 0 {
			if first && bytes.Contains(line, []byte(`"contractgraph_export"`)) {
				if herr := checkHeader(line); herr != nil {
					return &RecordError{File: path, Record: "line 1", Field: "contractgraph_export", Err: herr}
				}
			} else {
				rec := Record{Source: path, Index: lineNo}
				rec.Contract, rec.Prepared, rec.Err = decodeJSONLLine(path, lineNo, line)
				if at := invalidUTF8(line); at >= 0 && rec.Err == nil {
					rec.Warnings = append(rec.Warnings, &RecordError{File: path, Record: recordLabel("line", lineNo, "id", rec.Contract.ID), Err: replacedUTF8(at)})
				}
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

// strictV2 are the options of decodeContract's first attempt: unknown
// members fail, and so, by the package's defaults, do duplicate members,
// invalid UTF-8 and names that match a field only when case is ignored.
var strictV2 = jsonv2.RejectUnknownMembers(true)

// decodeContract decodes one JSONL record into c, as encoding/json's
// Decoder with DisallowUnknownFields does, and reports trailing values.
//
// encoding/json takes ~55 µs for a typical record, a tenth of what an
// import spends on it; the v2 decoder (github.com/go-json-experiment/json,
// what encoding/json/v2 is built from) takes ~15 µs. It is used only where
// it cannot change the outcome: it decodes strictly, and whatever it
// refuses, a record encoding/json would accept differently (a duplicate
// member, invalid UTF-8 replaced by U+FFFD, a member's name in another
// case) as much as a malformed one, is decoded again by encoding/json,
// whose result and error words are then the ones used.
// FuzzDecodeContract checks that the two agree wherever v2 succeeds.
func decodeContract(line []byte, c *contract.Contract) (more bool, err error) {
	if jsonv2.Unmarshal(line, c, strictV2) == nil {
		return false, nil
	}
	*c = contract.Contract{}
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.DisallowUnknownFields()
	if err := dec.Decode(c); err != nil {
		return false, err
	}
	return dec.More(), nil
}

func decodeJSONLLine(path string, lineNo int, line []byte) (*contract.Contract, *graph.Prepared, error) {
	var c contract.Contract
	more, err := decodeContract(line, &c)
	id := c.ID
	if err != nil {
		var peek struct {
			ID any `json:"id"`
		}
		_ = json.Unmarshal(line, &peek)
		id, _ = peek.ID.(string)
	}
	label := recordLabel("line", lineNo, "id", id)
	fail := func(field string, err error) (*contract.Contract, *graph.Prepared, error) {
		return nil, nil, &RecordError{File: path, Record: label, Field: field, Err: err}
	}
	if err != nil {
		if field, msg, ok := jsonmsg.Describe(err); ok {
			return fail(field, errors.New(msg))
		}
		return fail("", fmt.Errorf("malformed JSON: %w", err))
	}
	if more {
		return fail("", errors.New("more than one JSON value on the line"))
	}
	p, field, err := validate(&c)
	if err != nil {
		return fail(field, err)
	}
	return &c, p, nil
}

// Validate checks a contract read from JSONL and canonicalises its clause
// types. It returns the offending field (JSON path) and what is wrong.
//
// What every stored contract must satisfy (ids, dates, amounts, party
// names, spans and their verification) is graph.Prepare's, the one write
// validation every backend applies; Validate runs it and adds only what
// JSONL, a canonical format, also requires: values already in canonical
// form (ISO codes, known contract and clause types, parseable durations),
// so that an export re-imports unchanged and a typo is not stored.
func Validate(c *contract.Contract) (field string, err error) {
	_, field, err = validate(c)
	return field, err
}

// validate is Validate, returning also what graph.Prepare made of c.
func validate(c *contract.Contract) (*graph.Prepared, string, error) {
	for _, d := range []struct{ field, v string }{{"effective_date", c.EffectiveDate}, {"end_date", c.EndDate}} {
		if d.v == "" {
			continue
		}
		if _, err := time.Parse(time.DateOnly, d.v); err != nil {
			// Say why it is no date, or what it is in canonical form.
			n, nerr := contract.NormalizeDate(d.v)
			if nerr != nil {
				return nil, d.field, nerr
			}
			return nil, d.field, fmt.Errorf("date %q must be written YYYY-MM-DD (%s)", d.v, n)
		}
	}
	if c.ContractType != "" {
		t, err := contract.ParseContractType(c.ContractType, "")
		if err != nil {
			return nil, "contract_type", err
		}
		c.ContractType = t
	}
	if c.Duration != "" {
		if _, err := contract.ParseISODuration(c.Duration); err != nil {
			return nil, "duration", err
		}
	}
	if c.Currency != "" {
		if cur, ok := contract.NormalizeCurrency(c.Currency); !ok || cur != c.Currency {
			return nil, "currency", fmt.Errorf("%q is not an ISO 4217 code", c.Currency)
		}
	}
	if f, err := validLocation("governing_law", c.GoverningLaw); err != nil {
		return nil, f, err
	}
	for i, p := range c.Parties {
		if f, err := validLocation(fmt.Sprintf("parties[%d].location", i), p.Location); err != nil {
			return nil, f, err
		}
	}
	for i := range c.Clauses {
		cl := &c.Clauses[i]
		f := fmt.Sprintf("clauses[%d]", i)
		typ, group, err := contract.ParseClauseType(cl.Type)
		if err != nil {
			return nil, f + ".type", err
		}
		if cl.Group != "" && cl.Group != group {
			return nil, f + ".group", fmt.Errorf("%q is not the group of %q (%q)", cl.Group, typ, group)
		}
		cl.Type, cl.Group = typ, group
	}
	p, err := graph.Prepare(c)
	if err != nil {
		var fe *graph.FieldError
		if errors.As(err, &fe) {
			return nil, fe.Field, errors.New(fe.Reason)
		}
		return nil, "", err
	}
	return p, "", nil
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
