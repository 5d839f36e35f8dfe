package agent

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"

	"github.com/contractgraph/contractgraph/internal/textnum"
)

// Every figure of an answer should come from a tool result: a small model
// reads "total_amount": 15208360 and writes "$1,000,000". The agent checks
// the numbers an answer states against the numbers of this run's tool
// results (values and numbers written inside returned text) and of the
// question, and lists those no result holds in Answer.UnsupportedFigures
// with a note for the reader. A figure rounded from a result is supported:
// within half a unit, or 5 % (so "1.5 million" for 1,542,900).

// maxFigureScan bounds the result bytes whose numbers are collected.
const maxFigureScan = 1 << 20

// figureTolerance is the relative difference still read as a rounding.
const figureTolerance = 0.05

// resultNumbers collects the numbers of a tool result: JSON numbers, and
// numbers written in its strings.
func resultNumbers(result json.RawMessage, into map[float64]bool) {
	dec := json.NewDecoder(bytes.NewReader(result))
	dec.UseNumber()
	var v any
	if dec.Decode(&v) != nil {
		return
	}
	var walk func(any)
	walk = func(v any) {
		switch x := v.(type) {
		case json.Number:
			if f, err := x.Float64(); err == nil {
				into[f] = true
			}
		case string:
			for _, n := range textnum.Find(x) {
				into[n] = true
			}
		case []any:
			for _, e := range x {
				walk(e)
			}
		case map[string]any:
			for _, e := range x {
				walk(e)
			}
		}
	}
	walk(v)
}

// unsupportedFigures returns the numbers body states that none of known
// holds, formatted as the answer might write them, in order, once each.
func unsupportedFigures(body string, known map[float64]bool) []string {
	var out []string
	seen := map[float64]bool{}
	for _, n := range textnum.Find(listMarker.ReplaceAllString(body, "")) {
		if seen[n] || supported(n, known) {
			continue
		}
		seen[n] = true
		out = append(out, formatFigure(n))
	}
	return out
}

// listMarker is the number of a numbered list item ("1. ", "2) "), which
// counts lines, not contracts.
var listMarker = regexp.MustCompile(`(?m)^[ \t]*\d{1,3}[.)][ \t]`)

func supported(n float64, known map[float64]bool) bool {
	if known[n] {
		return true
	}
	for k := range known {
		d := math.Abs(n - k)
		if d <= 0.5 || d <= figureTolerance*math.Abs(k) {
			return true
		}
	}
	return false
}

func formatFigure(n float64) string {
	if n == math.Trunc(n) && math.Abs(n) < 1e15 {
		s := strconv.FormatInt(int64(n), 10)
		// Thousands separators, as answers write amounts.
		var b strings.Builder
		for i, c := range s {
			if i > 0 && (len(s)-i)%3 == 0 && s[i-1] != '-' {
				b.WriteByte(',')
			}
			b.WriteRune(c)
		}
		return b.String()
	}
	return strconv.FormatFloat(n, 'f', -1, 64)
}

// unsupportedFiguresNote is the reader's warning about figures no tool
// result holds.
func unsupportedFiguresNote(figs []string, noResults bool) string {
	if noResults {
		return fmt.Sprintf("The answer states %s, but no tool returned a result in this run, so these figures do not come from the contracts.", strings.Join(figs, ", "))
	}
	return fmt.Sprintf("The answer states %s, which no tool result of this run contains; check it against the results.", strings.Join(figs, ", "))
}
