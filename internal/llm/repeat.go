package llm

import (
	"bytes"
	"context"
	"errors"
	"strings"
)

// A small model decoding greedily (temperature 0) can fall into a loop:
// the same clause, party or line written again and again until the reply
// limit, which on a CPU costs minutes and yields nothing. At temperature 0
// such a loop is exact, so it shows as a reply whose tail is periodic.
// Complete stops a streamed reply whose tail repeats and returns the text
// up to the first repetition with FinishReason FinishRepetition, which
// callers treat like a reply cut off at its token limit.

// FinishRepetition is the FinishReason of a reply Complete stopped because
// it repeated itself.
const FinishRepetition = "repetition"

// AtTokenLimit reports whether a FinishReason means the reply stopped at
// its token limit, in any provider's words: OpenAI "length", Anthropic
// "max_tokens", Gemini "MAX_TOKENS".
func AtTokenLimit(reason string) bool {
	switch strings.ToLower(reason) {
	case "length", "max_tokens":
		return true
	}
	return false
}

const (
	// loopCheckEvery is how many new bytes arrive between checks.
	loopCheckEvery = 256
	// loopMinRun is the length a periodic tail must reach to count as a
	// loop: long enough that no answer repeats itself that much by accident.
	loopMinRun = 768
	// loopMinRunShort is the run required of a unit shorter than
	// loopShortUnit (a row of underscores in a quoted signature line).
	loopMinRunShort = 2048
	loopShortUnit   = 16
	// loopMinRunWord is the run required of a short unit of letters and
	// digits only ("0", "ab"): no answer writes hundreds of them in a row
	// (a small model writing "contract_1000…" until its token limit does).
	loopMinRunWord = 256
	// loopMinCopies of the unit must follow each other.
	loopMinCopies = 3
	// loopMaxUnit bounds the unit looked for.
	loopMaxUnit = 4096
)

// loopGuard watches a reply as it streams in.
type loopGuard struct {
	buf     []byte
	checked int
}

// StreamStoppingLoops streams req from s like s.Stream, calling fn with
// each delta, but stops a reply whose text falls into a loop and returns it
// up to the loop's first repetition, with FinishReason FinishRepetition and
// no usage (the server never finished the reply). fn does not see the
// delta that revealed the loop.
func StreamStoppingLoops(ctx context.Context, s Streamer, req *Request, fn func(Delta) error) (*Response, error) {
	var guard loopGuard
	cut := -1
	resp, err := s.Stream(ctx, req, func(d Delta) error {
		if d.Text != "" {
			if n, looping := guard.add(d.Text); looping {
				cut = n
				return errRepeating
			}
		}
		return fn(d)
	})
	if cut >= 0 && errors.Is(err, errRepeating) {
		return &Response{Message: Message{Role: RoleAssistant, Content: string(guard.buf[:cut])}, FinishReason: FinishRepetition}, nil
	}
	return resp, err
}

// errRepeating stops a stream that loops.
var errRepeating = errors.New("the reply repeats itself")

// add appends text and reports whether the reply now ends in a loop, and
// where the text should be cut to keep one copy of the repeated unit.
func (g *loopGuard) add(text string) (cut int, looping bool) {
	g.buf = append(g.buf, text...)
	if len(g.buf)-g.checked < loopCheckEvery {
		return 0, false
	}
	g.checked = len(g.buf)
	return repeatingTail(g.buf)
}

// repeatingTail reports whether b ends in at least loopMinCopies copies of
// one unit spanning the minimum run, and the length of b without all but
// the first of those copies (the unit taken from where the repetition
// began, so its phase may differ from the item the model repeats).
func repeatingTail(b []byte) (cut int, ok bool) {
	n := len(b)
	for unit := 1; unit <= loopMaxUnit && loopMinCopies*unit <= n; unit++ {
		word := unit < loopShortUnit && alnum(b[n-unit:])
		run := max(loopMinCopies*unit, loopMinRun)
		if word {
			run = max(loopMinCopies*unit, loopMinRunWord)
		}
		if run > n || !periodic(b[n-run:], unit) {
			continue
		}
		// The smallest unit found is the primitive one (any period of the
		// tail that is shorter would have matched first, unless its run
		// was too short). A short unit needs the longer run.
		start := n - run
		for start > 0 && b[start-1] == b[start-1+unit] {
			start--
		}
		p := unit
		for q := 1; q < unit; q++ {
			if unit%q == 0 && periodic(b[start:], q) {
				p = q
				break
			}
		}
		if !word && p < loopShortUnit && n-start < loopMinRunShort {
			return 0, false
		}
		return start + p, true
	}
	return 0, false
}

// alnum reports whether s is ASCII letters and digits only.
func alnum(s []byte) bool {
	for _, c := range s {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z') {
			return false
		}
	}
	return true
}

// periodic reports whether s equals itself shifted by unit bytes.
func periodic(s []byte, unit int) bool {
	return unit < len(s) && bytes.Equal(s[unit:], s[:len(s)-unit])
}
