package main

import (
	"bufio"
	"fmt"
	"os"

	"github.com/spf13/pflag"

	"github.com/contractgraph/contractgraph/internal/importer"
)

// defaultMaxErrors is how many failures a command keeps and prints by
// default; the rest are counted, and written to --errors FILE if given.
const defaultMaxErrors = 100

// importLimits are the flags that bound what one input may make large
// (README, "Limits").
type importLimits struct {
	importer.Limits
	maxErrors  int
	errorsFile string
}

// register adds the limit flags to fs.
func (l *importLimits) register(fs *pflag.FlagSet) {
	fs.Int64Var(&l.RecordBytes, "max-record-bytes", importer.DefaultRecordBytes, "largest record in bytes (a reference array element, a JSONL line, a CSV row, a CUAD text file); a larger one fails alone")
	fs.IntVar(&l.NameChars, "max-name-chars", importer.DefaultNameChars, "longest name in characters (party name and role, location, title)")
	fs.IntVar(&l.SummaryChars, "max-summary-chars", importer.DefaultSummaryChars, "longest summary or scope in characters")
	fs.IntVar(&l.ClauseChars, "max-clause-chars", importer.DefaultClauseChars, "longest clause text or evidence quote in characters")
	fs.IntVar(&l.Parties, "max-parties", importer.DefaultParties, "most parties on one contract")
	l.registerErrors(fs)
}

// registerErrors adds --max-errors and --errors to fs.
func (l *importLimits) registerErrors(fs *pflag.FlagSet) {
	fs.IntVar(&l.maxErrors, "max-errors", defaultMaxErrors, "failures kept and printed; the rest are counted (and written to --errors)")
	fs.StringVar(&l.errorsFile, "errors", "", "write every failure, one per line, to `FILE`")
}

// validate refuses limits that are not positive.
func (l *importLimits) validate() error {
	for _, f := range []struct {
		name string
		v    int64
	}{
		{"--max-record-bytes", l.RecordBytes}, {"--max-name-chars", int64(l.NameChars)}, {"--max-summary-chars", int64(l.SummaryChars)},
		{"--max-clause-chars", int64(l.ClauseChars)}, {"--max-parties", int64(l.Parties)},
	} {
		if f.v <= 0 {
			return usageError(fmt.Errorf("%s %d: must be positive", f.name, f.v))
		}
	}
	if l.maxErrors < 0 {
		return usageError(fmt.Errorf("--max-errors %d: must not be negative", l.maxErrors))
	}
	return nil
}

// errorLog counts failures, keeps the first few with their location for
// the summary and writes every one to a file when asked, so that a file
// of millions of bad records takes neither the memory nor the terminal.
type errorLog struct {
	max   int
	count int
	kept  []string
	path  string
	f     *os.File
	w     *bufio.Writer
	werr  error // the first write error; reported by close
}

// newErrorLog keeps max failures and, with path, writes all of them there.
func newErrorLog(max int, path string) (*errorLog, error) {
	e := &errorLog{max: max, kept: []string{}, path: path}
	if path != "" {
		f, err := os.Create(path)
		if err != nil {
			return nil, usageError(fmt.Errorf("--errors: %w", err))
		}
		e.f, e.w = f, bufio.NewWriterSize(f, 64<<10)
	}
	return e, nil
}

// add records one failure.
func (e *errorLog) add(msg string) {
	e.count++
	if len(e.kept) < e.max {
		e.kept = append(e.kept, msg)
	}
	if e.w != nil && e.werr == nil {
		if _, err := fmt.Fprintln(e.w, msg); err != nil {
			e.werr = err
		}
	}
}

// omitted is how many failures were counted but not kept.
func (e *errorLog) omitted() int { return e.count - len(e.kept) }

// close flushes and closes the file, if any.
func (e *errorLog) close() error {
	if e.f == nil {
		return nil
	}
	err := e.werr
	if ferr := e.w.Flush(); err == nil {
		err = ferr
	}
	if cerr := e.f.Close(); err == nil {
		err = cerr
	}
	e.f, e.w = nil, nil
	if err != nil {
		return fmt.Errorf("--errors %s: %w", e.path, err)
	}
	return nil
}

// more says where the failures that were not printed are, or "".
func (e *errorLog) more() string {
	switch {
	case e.omitted() == 0:
		return ""
	case e.path != "":
		return fmt.Sprintf("… and %d more failures; all %d are in %s", e.omitted(), e.count, e.path)
	}
	return fmt.Sprintf("… and %d more failures (--errors FILE writes all of them; --max-errors shows more)", e.omitted())
}
