// Package importer reads contracts from the formats ContractGraph accepts —
// the reference extraction JSON array, CUAD's master_clauses.csv with its
// text files, and ContractGraph's own JSONL export — detecting the format
// from the content, and writes the JSONL export. A bad record is reported on
// its own, naming the file, the record and the field, and the rest of the
// input is still read.
package importer

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"unicode"

	"github.com/contractgraph/contractgraph/internal/contract"
	"github.com/contractgraph/contractgraph/internal/graph"
)

// Format is an input format.
type Format string

// The formats Detect recognises.
const (
	FormatReference Format = "reference" // JSON array of reference extraction records
	FormatCUAD      Format = "cuad"      // CUAD master_clauses.csv
	FormatJSONL     Format = "jsonl"     // ContractGraph JSONL export
)

// ErrUnknownFormat is returned by Detect when the content matches no format.
var ErrUnknownFormat = errors.New("unknown input format: want a JSON array of reference records, ContractGraph JSONL or CUAD master_clauses.csv")

// detectPeek is how many bytes Detect looks at.
const detectPeek = 64 << 10

// Detect tells the format of the input from its first bytes (skipping a
// UTF-8 byte order mark and leading white space): "[" starts a reference
// JSON array, "{" a JSONL stream, and a CSV header whose first columns are
// Filename and Document Name is CUAD's master_clauses.csv.
func Detect(r io.Reader) (Format, error) {
	buf := make([]byte, detectPeek)
	n, err := io.ReadFull(r, buf)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
		return "", fmt.Errorf("detect format: %w", err)
	}
	return detect(buf[:n])
}

func detect(b []byte) (Format, error) {
	b = bytes.TrimPrefix(b, []byte("\xef\xbb\xbf"))
	b = bytes.TrimLeft(b, " \t\r\n")
	if len(b) == 0 {
		return "", fmt.Errorf("%w (the input is empty)", ErrUnknownFormat)
	}
	switch b[0] {
	case '[':
		return FormatReference, nil
	case '{':
		line, _, found := bytes.Cut(b, []byte("\n"))
		if (found || len(b) < detectPeek) && !json.Valid(line) {
			return "", fmt.Errorf("%w (the first line is not a whole JSON object: JSONL holds one object per line)", ErrUnknownFormat)
		}
		return FormatJSONL, nil
	}
	line, _, _ := bytes.Cut(b, []byte("\n"))
	line = bytes.TrimRight(line, "\r")
	if bytes.HasPrefix(line, []byte("Filename,")) && bytes.Contains(line, []byte("Parties-Answer")) {
		return FormatCUAD, nil
	}
	return "", ErrUnknownFormat
}

// Options adjust Read.
type Options struct {
	// TextsDir is the directory of CUAD's full_contract_txt files. When empty
	// and the input is CUAD, a full_contract_txt directory next to the CSV is
	// used if it exists; without texts, contracts are imported without text
	// and clause spans stay unverified.
	TextsDir string
	// Progress, when set, is called as the input file is read with the
	// bytes read so far and the file's size.
	Progress func(read, total int64)
	// Limits bound one record; the zero value means the defaults.
	Limits Limits
}

// countingReader reports progress through the input file.
type countingReader struct {
	r     io.Reader
	read  int64
	total int64
	fn    func(read, total int64)
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.read += int64(n)
	c.fn(c.read, c.total)
	return n, err
}

// Record is one contract read from an input, or the failure to read one.
type Record struct {
	Contract *contract.Contract // nil when Err is set
	// Prepared is what graph.Prepare made of Contract, when the reader
	// validated it that way (JSONL), for a graph.PreparedPutter; nil
	// otherwise. It no longer holds once Contract is changed.
	Prepared *graph.Prepared
	Source   string // the input file
	Index    int    // 1-based position in the input (record, row or line)
	// Err is a *RecordError when the record could not be read; the contract
	// is then left out.
	Err error
	// Warnings are values that were dropped because they could not be
	// normalised (each a *RecordError); the contract itself is fine.
	Warnings []error
}

// RecordError locates a problem in the input: the file, the record (its
// position and id when known) and the field.
type RecordError struct {
	File   string // input path as given
	Record string // e.g. `record 17 (id "X")`, `row 5 (file "Y.pdf")`, `line 3`
	Field  string // e.g. "effective_date", "parties[1].location.country"; "" for the whole record
	Err    error
}

// Error reads like `file: record 17 (id "X"): field effective_date: invalid date "2019-02-30": ...`.
func (e *RecordError) Error() string {
	var b strings.Builder
	b.WriteString(e.File)
	if e.Record != "" {
		b.WriteString(": ")
		b.WriteString(e.Record)
	}
	if e.Field != "" {
		b.WriteString(": field ")
		b.WriteString(e.Field)
	}
	b.WriteString(": ")
	b.WriteString(e.Err.Error())
	return b.String()
}

// Unwrap returns the underlying error.
func (e *RecordError) Unwrap() error { return e.Err }

// recordLabel names a record for RecordError.Record.
func recordLabel(kind string, index int, idKind, id string) string {
	if id == "" {
		return fmt.Sprintf("%s %d", kind, index)
	}
	return fmt.Sprintf("%s %d (%s %q)", kind, index, idKind, id)
}

// Read reads every contract of the file at path, whatever its format, and
// calls fn for each record in input order, including records that failed
// (Record.Err set). A directory holding master_clauses.csv is read as CUAD.
// Read stops and returns fn's error if fn returns one. It returns an error
// for failures that end the file early (unreadable file, unknown format,
// malformed JSON that cannot be resynchronised); such an error is a
// *RecordError when it can be located, and the records before it have been
// delivered.
func Read(ctx context.Context, path string, opts Options, fn func(Record) error) error {
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		csvPath := filepath.Join(path, "master_clauses.csv")
		if _, err := os.Stat(csvPath); err != nil {
			return fmt.Errorf("%s: is a directory without master_clauses.csv", path)
		}
		if opts.TextsDir == "" {
			opts.TextsDir = filepath.Join(path, "full_contract_txt")
		}
		path = csvPath
	}
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	var in io.Reader = f
	if opts.Progress != nil {
		var size int64
		if fi, err := f.Stat(); err == nil {
			size = fi.Size()
		}
		in = &countingReader{r: f, total: size, fn: opts.Progress}
	}
	br := bufio.NewReaderSize(in, 1<<20)
	head, err := br.Peek(detectPeek)
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, bufio.ErrBufferFull) {
		return fmt.Errorf("%s: %w", path, err)
	}
	format, err := detect(head)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	opts.Limits = opts.Limits.withDefaults()
	fn = checkRecords(format, opts.Limits, fn)
	switch format {
	case FormatReference:
		return readReference(ctx, path, br, opts.Limits, fn)
	case FormatJSONL:
		return readJSONL(ctx, path, br, opts.Limits, fn)
	default:
		if opts.TextsDir == "" {
			if dir := filepath.Join(filepath.Dir(path), "full_contract_txt"); isDir(dir) {
				opts.TextsDir = dir
			}
		}
		return readCUAD(ctx, path, br, opts, fn)
	}
}

// checkRecords wraps fn with what every format shares: a contract over one
// of lim's limits fails, and so does one whose id an earlier record of the
// same file had (naming both; the first is kept).
func checkRecords(format Format, lim Limits, fn func(Record) error) func(Record) error {
	seen := newIDSet()
	kind := recordKind(format)
	return func(r Record) error {
		if r.Err == nil && r.Contract != nil {
			c := r.Contract
			if field, err := lim.check(c); err != nil {
				r.Err = &RecordError{File: r.Source, Record: recordLabel(kind, r.Index, "id", c.ID), Field: field, Err: err}
			} else if first, dup := seen.add(c.ID, r.Index); dup {
				r.Err = &RecordError{File: r.Source, Record: recordLabel(kind, r.Index, "id", c.ID), Field: "id",
					Err: fmt.Errorf("duplicate id %q: %s of this file has it too, and that one is kept", c.ID, recordLabel(kind, first, "", ""))}
			}
			if r.Err != nil {
				r.Contract, r.Warnings = nil, nil
			}
		}
		return fn(r)
	}
}

// recordKind is what a format calls its records: line 3 of JSONL, row 3
// of CUAD, record 3 otherwise.
func recordKind(format Format) string {
	switch format {
	case FormatJSONL:
		return "line"
	case FormatCUAD:
		return "row"
	}
	return "record"
}

func isDir(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}

// placeholders are values extraction tools write for "unknown"; they are
// dropped rather than stored.
var placeholders = map[string]bool{
	"": true, "n/a": true, "na": true, "none": true, "null": true, "nil": true,
	"unknown": true, "not specified": true, "not applicable": true, "-": true, "tbd": true,
}

// isPlaceholder reports whether s carries no value: a known placeholder word
// or something without a single letter or digit, such as "[***]" or "[ ]".
func isPlaceholder(s string) bool {
	t := strings.ToLower(strings.TrimSpace(s))
	return placeholders[t] || strings.IndexFunc(t, isAlnum) < 0
}

func isAlnum(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }

// warner collects the warnings of one record.
type warner struct {
	file, record string
	list         []error
}

func (w *warner) add(field string, err error) {
	w.list = append(w.list, &RecordError{File: w.file, Record: w.record, Field: field, Err: err})
}

// normalizeLocation turns raw location parts into a contract.Location,
// dropping placeholders and countries that are not recognised (with a
// warning). It returns nil when nothing is left.
func normalizeLocation(w *warner, field string, country, state, city, address string) *contract.Location {
	loc := &contract.Location{}
	if !isPlaceholder(country) {
		if c, ok := contract.NormalizeCountry(country); ok {
			loc.Country = c
		} else {
			w.add(field+".country", fmt.Errorf("unknown country %q dropped", country))
		}
	}
	if !isPlaceholder(state) && strings.IndexFunc(state, unicode.IsLetter) < 0 {
		w.add(field+".state", fmt.Errorf("state %q has no letters, dropped", state))
	} else if !isPlaceholder(state) {
		if loc.Country == "" {
			if st, ok := contract.NormalizeUSState(state); ok && country == "" {
				// A US state with no country is in the US.
				loc.Country, loc.State = "US", st
			} else {
				loc.State = contract.CleanPartyName(state)
			}
		} else {
			loc.State = contract.NormalizeState(loc.Country, state)
		}
	}
	if !isPlaceholder(city) {
		loc.City = contract.CleanPartyName(city)
	}
	if !isPlaceholder(address) {
		loc.Address = contract.CleanPartyName(address)
	}
	if loc.IsZero() {
		return nil
	}
	return loc
}
