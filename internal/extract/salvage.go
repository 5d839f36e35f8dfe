package extract

import (
	"encoding/json"
	"strings"

	"github.com/contractgraph/contractgraph/internal/llm"
)

// salvageJSON turns a JSON object cut off mid-way (a reply that hit its
// token limit) into the longest valid JSON object it begins with: the text
// up to its last complete value, with the open arrays and objects closed.
// A value cut mid-way is left out whole, so every string, number and
// nested object in the result is one the model finished writing. ok is
// false when no member of the object was complete.
func salvageJSON(text string) (string, bool) {
	body := strings.TrimSpace(text)
	if strings.HasPrefix(body, "```") {
		// A fenced reply cut off before its closing fence.
		if nl := strings.IndexByte(body, '\n'); nl >= 0 {
			body = body[nl+1:]
		}
		body = strings.TrimSuffix(strings.TrimSpace(body), "```")
	}
	start := strings.IndexByte(body, '{')
	if start < 0 {
		return "", false
	}
	body = body[start:]

	// Walk the text once, outside strings keeping the stack of open
	// brackets. In JSON a ',' outside strings always follows a complete
	// value, so the text before it can be closed; so can the text just
	// after an opening bracket or after a closing one. Each cut remembers
	// the closers it needs.
	type cut struct {
		at      int
		closers string
	}
	var (
		stack []byte
		cuts  []cut
		str   llm.JSONStrings
	)
	closers := func() string {
		b := make([]byte, 0, len(stack))
		for i := len(stack) - 1; i >= 0; i-- {
			if stack[i] == '{' {
				b = append(b, '}')
			} else {
				b = append(b, ']')
			}
		}
		return string(b)
	}
	for i := 0; i < len(body); i++ {
		c := body[i]
		if str.Step(c) {
			continue
		}
		switch c {
		case '{', '[':
			stack = append(stack, c)
			cuts = append(cuts, cut{at: i + 1, closers: closers()})
		case ',':
			if len(stack) > 0 {
				cuts = append(cuts, cut{at: i, closers: closers()})
			}
		case '}', ']':
			if len(stack) == 0 || (c == '}') != (stack[len(stack)-1] == '{') {
				return "", false // not JSON: mismatched brackets
			}
			stack = stack[:len(stack)-1]
			if len(stack) == 0 {
				// The object is complete after all, if it is JSON.
				if !json.Valid([]byte(body[:i+1])) {
					return "", false
				}
				return body[:i+1], true
			}
			cuts = append(cuts, cut{at: i + 1, closers: closers()})
		}
	}
	// Try the latest cuts first; json.Valid rejects the rare one that is
	// not a value boundary after all (a key without its value).
	for i := len(cuts) - 1; i >= 0 && i >= len(cuts)-64; i-- {
		c := cuts[i]
		candidate := strings.TrimRight(body[:c.at], " \t\r\n") + c.closers
		if json.Valid([]byte(candidate)) && candidate != "{}" {
			return candidate, true
		}
	}
	return "", false
}
