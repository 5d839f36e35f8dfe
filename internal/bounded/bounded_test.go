package bounded

import (
	"bufio"
	"errors"
	"io"
	"strings"
	"testing"
)

func TestLine(t *testing.T) {
	in := "short\n" + strings.Repeat("x", 100) + "\nlast"
	r := bufio.NewReaderSize(strings.NewReader(in), 16)
	type got struct {
		line string
		size int64
		eof  bool
	}
	var lines []got
	for {
		l, n, err := Line(r, 20)
		lines = append(lines, got{string(l), n, errors.Is(err, io.EOF)})
		if err != nil {
			break
		}
	}
	want := []got{{"short\n", 6, false}, {"", 101, false}, {"last", 4, true}}
	if len(lines) != len(want) {
		t.Fatalf("lines %+v", lines)
	}
	for i := range want {
		if lines[i] != want[i] {
			t.Errorf("line %d = %+v, want %+v", i, lines[i], want[i])
		}
	}
}

func TestSize(t *testing.T) {
	for n, want := range map[int64]string{512: "512 bytes", 1024: "1 KiB", 5000: "4.9 KiB", 64 << 20: "64 MiB", 209780803: "200.1 MiB"} {
		if got := Size(n); got != want {
			t.Errorf("Size(%d) = %q, want %q", n, got, want)
		}
	}
}
