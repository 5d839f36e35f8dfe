package importer

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strings"
)

// arrayReader splits a JSON array into its elements as raw bytes, one at a
// time, without decoding them: it tracks only nesting and strings, so an
// element that is malformed inside still ends where its brackets say and
// fails alone, and an element longer than the limit is skipped to its end
// without being kept in memory.
type arrayReader struct {
	r     *bufio.Reader
	limit int64
	off   int64 // bytes consumed
	first bool  // no element read yet
}

// errNotArray is returned when the input does not start with "[".
var errNotArray = errors.New("not a JSON array")

// newArrayReader consumes the opening bracket (after a UTF-8 byte order
// mark and white space).
func newArrayReader(r *bufio.Reader, limit int64) (*arrayReader, error) {
	a := &arrayReader{r: r, limit: limit, first: true}
	if b, err := r.Peek(3); err == nil && string(b) == "\xef\xbb\xbf" {
		_, _ = r.Discard(3)
		a.off = 3
	}
	c, err := a.skipSpace()
	if err != nil {
		return nil, a.syntax("the input is empty", err)
	}
	if c != '[' {
		return nil, errNotArray
	}
	return a, nil
}

// element is one element of the array.
type element struct {
	raw   []byte // nil when the element was over the limit
	start int64  // byte offset of its first byte
	size  int64
}

// next returns the next element, or io.EOF after the closing bracket. An
// error other than io.EOF means the array's structure is broken there and
// nothing after it can be read.
func (a *arrayReader) next() (element, error) {
	c, err := a.skipSpace()
	if err != nil {
		return element{}, a.syntax("the array is not closed", err)
	}
	if c == ']' {
		return element{}, io.EOF
	}
	if !a.first {
		if c != ',' {
			return element{}, a.syntaxAt(a.off-1, fmt.Sprintf("expected , or ] between records, found %q", c))
		}
		if c, err = a.skipSpace(); err != nil {
			return element{}, a.syntax("the array is not closed", err)
		}
	}
	a.first = false
	if c == ']' || c == ',' {
		return element{}, a.syntaxAt(a.off-1, fmt.Sprintf("expected a record, found %q", c))
	}
	el := element{start: a.off - 1}
	buf := []byte{c}
	keep := true
	depth, inString, escaped := 0, c == '"', false
	switch c {
	case '{', '[':
		depth = 1
	}
	scalar := depth == 0 && !inString
	done := false
	for !done {
		// Scan what is buffered in one tight loop, then keep it in bulk.
		if a.r.Buffered() == 0 {
			if _, err := a.r.Peek(1); err != nil {
				if scalar && errors.Is(err, io.EOF) {
					break
				}
				return element{}, a.syntax(fmt.Sprintf("the record starting at byte %d is not closed", el.start), err)
			}
		}
		chunk, _ := a.r.Peek(a.r.Buffered())
		n := 0
	scan:
		for ; n < len(chunk); n++ {
			b := chunk[n]
			switch {
			case scalar:
				if strings.IndexByte(",]}[{\":  \t\r\n", b) >= 0 {
					done = true
					break scan
				}
			case escaped:
				escaped = false
			case inString:
				switch b {
				case '\\':
					escaped = true
				case '"':
					inString = false
					if depth == 0 {
						n++
						done = true
						break scan
					}
				}
			case b == '"':
				inString = true
			case b == '{' || b == '[':
				depth++
			case b == '}' || b == ']':
				if depth--; depth == 0 {
					n++
					done = true
					break scan
				}
			}
		}
		if keep {
			if int64(len(buf)+n) > a.limit {
				keep, buf = false, nil
			} else {
				buf = append(buf, chunk[:n]...)
			}
		}
		_, _ = a.r.Discard(n)
		a.off += int64(n)
	}
	el.size = a.off - el.start
	if keep {
		el.raw = buf
	}
	return el, nil
}

func (a *arrayReader) skipSpace() (byte, error) {
	for {
		b, err := a.r.ReadByte()
		if err != nil {
			return 0, err
		}
		a.off++
		switch b {
		case ' ', '\t', '\r', '\n':
			continue
		}
		return b, nil
	}
}

// syntax reports a broken array at the current offset; an I/O error other
// than the end of the input is returned as it is.
func (a *arrayReader) syntax(msg string, err error) error {
	if err != nil && !errors.Is(err, io.EOF) {
		return err
	}
	return a.syntaxAt(a.off, msg)
}

func (a *arrayReader) syntaxAt(off int64, msg string) error {
	return fmt.Errorf("malformed JSON at byte %d: %s", off, msg)
}
