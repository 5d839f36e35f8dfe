package agent

import (
	"bytes"
	"encoding/json"
	"html"
	"regexp"
	"strings"

	"github.com/contractgraph/contractgraph/internal/llm"
)

// Small local models often write their tool calls into the reply text
// instead of the provider's tool-call channel: a JSON object
// {"name": ..., "arguments": {...}} in a ```json fence or bare, or the
// Hermes/Qwen <tool_call>...</tool_call> tags that the server failed to
// parse, or an XML element named after the tool with its arguments as
// attributes, child elements or JSON content (<contract_aggregate
// group_by="contract_type" limit="3"/>, as Qwen2.5-Coder-1.5B was seen to
// write, wrapped in <tools> tags, which are dropped). The callScanner
// finds such blocks so the agent can run them as real tool calls, and,
// while a reply streams, holds back any text that may still turn out to be
// one, so that a call is never shown as answer text.
//
// The scanner looks for openers: "```", "<tool_call>", "<" and a known
// tool's name, a "{" followed by a string key, and a "[" followed by such
// an object. Text before the first opener is prose and is shown at once;
// a block is held until it closes (the closing fence or tag, the end tag
// or "/>", or the balanced bracket) and is then either taken as
// calls or shown as prose after all. A block still open when the reply ends
// is parsed as it stands; if it is not a call, only its opener is prose and
// scanning resumes after it. Normal answers, which rarely contain braces,
// fences or tags, therefore stream without delay.
//
// Only objects naming one of the agent's tools count; any other JSON stays
// text. Prose after the first call is dropped: written before any tool ran,
// it can only be the model imagining the result (small models often write
// the call, then "There are 3 contracts"), so it is neither shown nor kept
// in the conversation. Every decision depends only on the text seen so far, so feeding a
// reply in any chunks yields the same prose and calls as feeding it whole.

// Opener kinds.
const (
	blockFence = iota + 1
	blockTag
	blockObject
	blockArray
	blockElement
	blockWrapper
)

const (
	fence    = "```"
	tagOpen  = "<tool_call>"
	tagClose = "</tool_call>"
)

// callScanner classifies one assistant reply, fed in chunks.
type callScanner struct {
	known   func(name string) bool
	show    func(prose string) // receives prose once it is safe to show; may be nil
	pending string             // text not yet classified
	waiting int                // kind of the unclosed block pending starts with, if any
	prose   strings.Builder
	calls   []parsedCall
}

// parsedCall is a tool call found in text. Arguments may be malformed
// JSON, which the agent reports back to the model like any bad arguments.
type parsedCall struct {
	Name      string
	Arguments json.RawMessage
}

func newCallScanner(known func(string) bool, show func(string)) *callScanner {
	return &callScanner{known: known, show: show}
}

// write adds the next chunk of the reply.
func (s *callScanner) write(chunk string) {
	s.pending += chunk
	if s.waiting != 0 && !strings.ContainsAny(chunk, closers[s.waiting]) {
		return // the held block cannot have closed: spare the rescan
	}
	s.scan(false)
}

// closers are the bytes that can end a block of each kind.
var closers = map[int]string{blockFence: "`", blockTag: "<>", blockObject: "}]", blockArray: "}]", blockElement: ">"}

// close classifies whatever is still held at the end of the reply.
func (s *callScanner) close() {
	s.scan(true)
}

func (s *callScanner) emit(text string) {
	if len(s.calls) > 0 || text == "" {
		return
	}
	s.prose.WriteString(text)
	if s.show != nil {
		s.show(text)
	}
}

func (s *callScanner) scan(final bool) {
	s.waiting = 0
	for s.pending != "" {
		i, kind := findOpener(s.pending, s.known)
		if i < 0 {
			s.emit(s.pending)
			s.pending = ""
			return
		}
		s.emit(s.pending[:i])
		s.pending = s.pending[i:]
		if kind == 0 { // a partial opener at the end
			if !final {
				return
			}
			s.emit(s.pending)
			s.pending = ""
			return
		}
		if kind == blockWrapper {
			s.pending = s.pending[wrapperLen(s.pending):]
			continue
		}
		end, inner, closed := blockEnd(s.pending, kind)
		if !closed && !final {
			s.waiting = kind
			return
		}
		var calls []parsedCall
		if kind == blockElement {
			calls = elementCall(inner)
		} else {
			calls = s.parseBlock(inner)
		}
		switch {
		case len(calls) > 0:
			s.calls = append(s.calls, calls...)
			s.pending = s.pending[end:]
		case closed:
			s.emit(s.pending[:end])
			s.pending = s.pending[end:]
		default:
			// An unclosed block that is no call: only its opener is prose.
			n := openerLen(s.pending, kind)
			s.emit(s.pending[:n])
			s.pending = s.pending[n:]
		}
	}
}

// parseBlock returns the calls to known tools among the JSON values in a
// block's content.
func (s *callScanner) parseBlock(inner string) []parsedCall {
	var out []parsedCall
	for _, v := range jsonValues(inner) {
		out = append(out, decodeCalls(v, s.known, 0)...)
	}
	return out
}

// parseTextCalls splits a complete reply into its prose and the tool calls
// written in it.
func parseTextCalls(text string, known func(string) bool) (prose string, calls []parsedCall) {
	s := newCallScanner(known, nil)
	s.write(text)
	s.close()
	return s.prose.String(), s.calls
}

// findOpener returns the position and kind of the first opener in s, or the
// position of a partial opener at its end (kind 0), or -1.
func findOpener(s string, known func(string) bool) (int, int) {
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '`':
			if strings.HasPrefix(s[i:], fence) {
				return i, blockFence
			}
			if strings.HasPrefix(fence, s[i:]) {
				return i, 0
			}
		case '<':
			rest := s[i:]
			if len(rest) >= len(tagOpen) && strings.EqualFold(rest[:len(tagOpen)], tagOpen) {
				return i, blockTag
			}
			if len(rest) < len(tagOpen) && strings.EqualFold(rest, tagOpen[:len(rest)]) {
				return i, 0
			}
			for _, w := range callWrappers {
				if strings.HasPrefix(rest, w) {
					return i, blockWrapper
				}
				if len(rest) < len(w) && strings.HasPrefix(w, rest) {
					return i, 0
				}
			}
			switch name, complete := elementName(rest); {
			case !complete:
				return i, 0
			case name != "" && known(name):
				return i, blockElement
			}
		case '{':
			j := skipSpace(s, i+1)
			if j == len(s) {
				return i, 0
			}
			if s[j] == '"' {
				return i, blockObject
			}
		case '[':
			j := skipSpace(s, i+1)
			if j == len(s) {
				return i, 0
			}
			if s[j] != '{' {
				continue
			}
			k := skipSpace(s, j+1)
			if k == len(s) {
				return i, 0
			}
			if s[k] == '"' {
				return i, blockArray
			}
		}
	}
	return -1, 0
}

func skipSpace(s string, i int) int {
	for i < len(s) && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r') {
		i++
	}
	return i
}

// openerLen is the length of the opener a block of kind starts with.
func openerLen(s string, kind int) int {
	switch kind {
	case blockFence:
		return len(fence)
	case blockTag:
		return len(tagOpen)
	case blockElement:
		name, _ := elementName(s)
		return 1 + len(name)
	}
	return 1
}

// blockEnd finds where the block starting s ends and its content. A block
// that is not closed yet extends to the end of s.
func blockEnd(s string, kind int) (end int, inner string, closed bool) {
	switch kind {
	case blockFence:
		if i := strings.Index(s[len(fence):], fence); i >= 0 {
			end = len(fence) + i + len(fence)
			return end, s[len(fence) : end-len(fence)], true
		}
		return len(s), s[len(fence):], false
	case blockTag:
		body := s[len(tagOpen):]
		lower := asciiLower(body)
		c := strings.Index(lower, tagClose)
		n := strings.Index(lower, tagOpen)
		switch {
		case c >= 0 && (n < 0 || c < n):
			return len(tagOpen) + c + len(tagClose), body[:c], true
		case n >= 0:
			// The next call opens before this one closed.
			return len(tagOpen) + n, body[:n], true
		}
		return len(s), body, false
	case blockElement:
		return elementEnd(s)
	default:
		if n := balanced(s); n > 0 {
			return n, s[:n], true
		}
		return len(s), s, false
	}
}

// balanced returns the length of the bracketed JSON-like value s starts
// with, or 0 when it does not close. Brackets inside strings do not count.
func balanced(s string) int {
	depth := 0
	var str llm.JSONStrings
	for i := 0; i < len(s); i++ {
		c := s[i]
		if str.Step(c) {
			continue
		}
		switch c {
		case '{', '[':
			depth++
		case '}', ']':
			depth--
			if depth == 0 {
				return i + 1
			}
		}
	}
	return 0
}

// jsonValues returns the top-level objects and arrays in s, in order; a
// value that does not close runs to the end of s.
func jsonValues(s string) []string {
	var out []string
	for i := 0; i < len(s); i++ {
		if s[i] != '{' && s[i] != '[' {
			continue
		}
		n := balanced(s[i:])
		if n == 0 {
			out = append(out, s[i:])
			break
		}
		out = append(out, s[i:i+n])
		i += n - 1
	}
	return out
}

// Keys that name the tool and hold its arguments, in order of preference.
var (
	nameKeys = []string{"name", "tool_name", "tool", "function"}
	argKeys  = []string{"arguments", "parameters", "args", "input"}
)

// maxCallDepth bounds the nesting decodeCalls follows ({"tool_calls": [...]}
// and {"function": {...}}), so hostile input cannot recurse deeply.
const maxCallDepth = 4

// decodeCalls reads the calls in one JSON value: a call object, an array of
// them, or an object with a "tool_calls" array. Objects whose name is not
// a known tool yield nothing.
func decodeCalls(raw string, known func(string) bool, depth int) []parsedCall {
	if depth > maxCallDepth {
		return nil
	}
	b := []byte(strings.TrimSpace(raw))
	if !json.Valid(b) {
		if r := repairJSON(b); json.Valid(r) {
			b = r
		} else {
			if c, ok := salvageCall(string(b), known); ok {
				return []parsedCall{c}
			}
			return nil
		}
	}
	if len(b) > 0 && b[0] == '[' {
		var items []json.RawMessage
		if json.Unmarshal(b, &items) != nil {
			return nil
		}
		var out []parsedCall
		for _, it := range items {
			out = append(out, decodeCalls(string(it), known, depth+1)...)
		}
		return out
	}
	var obj map[string]json.RawMessage
	if json.Unmarshal(b, &obj) != nil {
		return nil
	}
	if tc, ok := obj["tool_calls"]; ok {
		return decodeCalls(string(tc), known, depth+1)
	}
	if fn, ok := obj["function"]; ok && len(fn) > 0 && fn[0] == '{' {
		inner := decodeCalls(string(fn), known, depth+1)
		if len(inner) == 1 && isEmptyArgs(inner[0].Arguments) {
			if args, ok := firstKey(obj, argKeys); ok {
				inner[0].Arguments = callArguments(args)
			}
		}
		return inner
	}
	name := ""
	for _, k := range nameKeys {
		var s string
		if v, ok := obj[k]; ok && json.Unmarshal(v, &s) == nil && strings.TrimSpace(s) != "" {
			name = strings.TrimSpace(s)
			break
		}
	}
	if name == "" || !known(name) {
		return nil
	}
	if args, ok := firstKey(obj, argKeys); ok {
		return []parsedCall{{Name: name, Arguments: callArguments(args)}}
	}
	// No arguments key: the other keys are the arguments
	// ({"name": "contract_search", "contract_type": "Distributor"}).
	rest := map[string]json.RawMessage{}
	for k, v := range obj {
		if k != "name" && k != "tool_name" && k != "tool" && k != "type" && k != "id" {
			rest[k] = v
		}
	}
	args, _ := json.Marshal(rest)
	return []parsedCall{{Name: name, Arguments: args}}
}

func firstKey(obj map[string]json.RawMessage, keys []string) (json.RawMessage, bool) {
	for _, k := range keys {
		if v, ok := obj[k]; ok {
			return v, true
		}
	}
	return nil, false
}

func isEmptyArgs(a json.RawMessage) bool {
	s := string(bytes.TrimSpace(a))
	return s == "" || s == "{}" || s == "null"
}

// callArguments turns a call's arguments value into the JSON object the
// tool receives: null means none, and a string holding JSON (OpenAI's
// wire form, which models imitate) is unwrapped.
func callArguments(v json.RawMessage) json.RawMessage {
	v = normalizeArgs(v)
	var buf bytes.Buffer
	if json.Compact(&buf, v) == nil {
		return buf.Bytes()
	}
	return v
}

// normalizeArgs prepares the arguments of any tool call, native or written
// as text, for the toolbox: empty or null arguments are an empty object, a
// JSON string holding an object is unwrapped, and trailing commas are
// removed. Null and empty values of single fields are left as they are;
// the tools treat them as absent.
func normalizeArgs(args json.RawMessage) json.RawMessage {
	s := bytes.TrimSpace(args)
	if len(s) == 0 || string(s) == "null" {
		return json.RawMessage("{}")
	}
	if s[0] == '"' {
		var str string
		if json.Unmarshal(s, &str) == nil {
			inner := strings.TrimSpace(str)
			switch {
			case inner == "" || inner == "null":
				return json.RawMessage("{}")
			case json.Valid([]byte(inner)) && inner[0] == '{':
				return json.RawMessage(inner)
			case inner[0] == '{':
				if r := repairJSON([]byte(inner)); json.Valid(r) {
					return r
				}
				return json.RawMessage(inner)
			}
		}
		return s
	}
	if !json.Valid(s) {
		if r := repairJSON(s); json.Valid(r) {
			return r
		}
	}
	return s
}

// repairJSON removes trailing commas before a closing bracket, the one
// slip small models make most, ignoring commas inside strings.
func repairJSON(b []byte) []byte {
	out := make([]byte, 0, len(b))
	var str llm.JSONStrings
	for i := 0; i < len(b); i++ {
		c := b[i]
		if str.Step(c) {
			out = append(out, c)
			continue
		}
		if c == ',' {
			j := skipSpace(string(b), i+1)
			if j < len(b) && (b[j] == '}' || b[j] == ']') {
				continue
			}
		}
		out = append(out, c)
	}
	return out
}

var (
	salvageName = regexp.MustCompile(`"(?:name|tool_name|tool|function)"\s*:\s*"([^"\\]{1,100})"`)
	salvageArgs = regexp.MustCompile(`"(?:arguments|parameters|args|input)"\s*:\s*`)
)

// salvageCall reads the tool name from a call object that is not valid
// JSON, with its arguments as written, so the model learns from the
// tool's error what to fix rather than seeing its call ignored.
func salvageCall(s string, known func(string) bool) (parsedCall, bool) {
	m := salvageName.FindStringSubmatch(s)
	if m == nil || !known(strings.TrimSpace(m[1])) {
		return parsedCall{}, false
	}
	c := parsedCall{Name: strings.TrimSpace(m[1]), Arguments: json.RawMessage("{}")}
	if loc := salvageArgs.FindStringIndex(s); loc != nil {
		rest := strings.TrimSpace(s[loc[1]:])
		if rest != "" && (rest[0] == '{' || rest[0] == '[') {
			if n := balanced(rest); n > 0 {
				rest = rest[:n]
			}
		}
		c.Arguments = json.RawMessage(rest)
	}
	return c, true
}

// wrapperLen is the length of the call wrapper tag s starts with.
func wrapperLen(s string) int {
	for _, w := range callWrappers {
		if strings.HasPrefix(s, w) {
			return len(w)
		}
	}
	return 0
}

// elementName reads the element name after the "<" that s starts with.
// complete is false when s ends inside the name, so that more text could
// still make it a tool's name; name is "" when no name follows the "<" or
// the name is not followed by a space, "/" or ">".
func elementName(s string) (name string, complete bool) {
	i := 1
	for i < len(s) && (s[i] == '_' || s[i] >= 'a' && s[i] <= 'z' || s[i] >= 'A' && s[i] <= 'Z' || i > 1 && s[i] >= '0' && s[i] <= '9') {
		i++
	}
	if i == len(s) {
		return "", false
	}
	if i == 1 {
		return "", true
	}
	switch s[i] {
	case ' ', '\t', '\n', '\r', '/', '>':
		return s[1:i], true
	}
	return "", true
}

// elementEnd finds the end of the element s starts with: after its start
// tag when that closes itself ("/>"), else after the matching end tag. An
// element still open extends to the end of s.
func elementEnd(s string) (end int, inner string, closed bool) {
	i := startTagEnd(s)
	if i < 0 {
		return len(s), s, false
	}
	if s[i-1] == '/' {
		return i + 1, s[:i+1], true
	}
	name, _ := elementName(s)
	closeTag := "</" + asciiLower(name) + ">"
	if j := strings.Index(asciiLower(s[i+1:]), closeTag); j >= 0 {
		end = i + 1 + j + len(closeTag)
		return end, s[:end], true
	}
	return len(s), s, false
}

// startTagEnd returns the index of the ">" that ends the start tag s
// begins with, or -1. Quoted attribute values may hold ">".
func startTagEnd(s string) int {
	var quote byte
	for i := 1; i < len(s); i++ {
		switch c := s[i]; {
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case c == '"' || c == '\'':
			quote = c
		case c == '>':
			return i
		}
	}
	return -1
}

// callWrappers are the tags small models wrap their calls in, never part of
// an answer: the scanner drops them.
var callWrappers = []string{"<tools>", "</tools>", "<tool_calls>", "</tool_calls>", "<function_calls>", "</function_calls>"}

var (
	elementAttr  = regexp.MustCompile(`([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(?:"([^"]*)"|'([^']*)')`)
	elementChild = regexp.MustCompile(`<([A-Za-z_][A-Za-z0-9_]*)>([^<]*)</([A-Za-z_][A-Za-z0-9_]*)>`)
)

// elementCall reads a call written as an XML element: attributes and
// simple child elements are arguments, as strings (the toolbox accepts
// numbers and booleans written as strings); a JSON object as the element's
// content is taken as the arguments, merged over the attributes.
func elementCall(el string) []parsedCall {
	name, _ := elementName(el)
	if name == "" {
		return nil
	}
	startEnd := startTagEnd(el)
	if startEnd < 0 {
		startEnd = len(el) - 1 // an unclosed start tag: its attributes as far as they go
	}
	args := map[string]any{}
	for _, m := range elementAttr.FindAllStringSubmatch(el[:startEnd+1], -1) {
		args[m[1]] = html.UnescapeString(m[2] + m[3])
	}
	body := ""
	if startEnd+1 < len(el) {
		body = el[startEnd+1:]
		if i := strings.LastIndex(asciiLower(body), "</"+asciiLower(name)+">"); i >= 0 {
			body = body[:i]
		}
	}
	body = strings.TrimSpace(body)
	if strings.HasPrefix(body, "{") {
		var obj map[string]any
		if json.Unmarshal(normalizeArgs(json.RawMessage(body)), &obj) == nil {
			for k, v := range obj {
				args[k] = v
			}
		}
	} else {
		for _, m := range elementChild.FindAllStringSubmatch(body, -1) {
			if m[1] == m[3] {
				args[m[1]] = html.UnescapeString(strings.TrimSpace(m[2]))
			}
		}
	}
	b, err := json.Marshal(args)
	if err != nil {
		return nil
	}
	return []parsedCall{{Name: name, Arguments: b}}
}
