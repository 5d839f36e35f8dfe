// Package bounded reads input in pieces of bounded size and words sizes
// for the messages that say a piece was too large. It uses only the
// standard library.
package bounded

import (
	"bufio"
	"errors"
	"fmt"
)

// Line reads one line (with its newline) of at most limit bytes. A longer
// line is read to its end and dropped, never held whole: it comes back nil
// with its size, so that the caller can report it and read on. err is
// r's, io.EOF at the end of the input.
func Line(r *bufio.Reader, limit int64) (line []byte, size int64, err error) {
	var buf []byte
	for {
		chunk, err := r.ReadSlice('\n')
		size += int64(len(chunk))
		if size <= limit {
			buf = append(buf, chunk...)
		} else {
			buf = nil
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if size > limit {
			return nil, size, err
		}
		return buf, size, err
	}
}

// Size writes n bytes for people: "64 MiB", "200.1 MiB", "1 KiB",
// "4.9 KiB", "512 bytes".
func Size(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d bytes", n)
}
