package agent

import (
	"encoding/json"
	"strings"

	"github.com/contractgraph/contractgraph/internal/llm"
)

// A small model sometimes names its tool in prose and writes only the
// arguments as JSON ("I'll use `contract_search`:" then a fence holding
// {"contract_type": "Distributor"}). argsOnlyCall reads such a reply as a
// call when it is unambiguous: the prose names exactly one tool, and a JSON
// object in the reply has only keys that are properties of that tool.
// Everything else stays text, so an answer that merely quotes a call is
// not mistaken for one (the agent also refuses a call it has already run).

// maxArgsOnlyScan bounds the reply length argsOnlyCall looks at.
const maxArgsOnlyScan = 16 << 10

// argsOnlyCall returns the call a reply implies, if any.
func argsOnlyCall(text string, defs []llm.ToolDef) (parsedCall, bool) {
	if len(text) > maxArgsOnlyScan {
		return parsedCall{}, false
	}
	var named *llm.ToolDef
	for i := range defs {
		if mentionsName(text, defs[i].Name) {
			if named != nil {
				return parsedCall{}, false // two tools named: ambiguous
			}
			named = &defs[i]
		}
	}
	if named == nil {
		return parsedCall{}, false
	}
	props := schemaProperties(named.InputSchema)
	if len(props) == 0 {
		return parsedCall{}, false
	}
	for _, v := range jsonValues(text) {
		b := []byte(strings.TrimSpace(v))
		if !json.Valid(b) {
			b = repairJSON(b)
		}
		var obj map[string]json.RawMessage
		if json.Unmarshal(b, &obj) != nil || len(obj) == 0 {
			continue
		}
		ok := true
		for k := range obj {
			if !props[k] {
				ok = false
				break
			}
		}
		if ok {
			return parsedCall{Name: named.Name, Arguments: callArguments(b)}, true
		}
	}
	return parsedCall{}, false
}

// isWordByte reports an ASCII letter, digit or underscore: the bytes a
// tool name is glued to when it is part of a longer word.
func isWordByte(b byte) bool {
	return b == '_' || '0' <= b && b <= '9' || 'a' <= b|0x20 && b|0x20 <= 'z'
}

// mentionsName reports whether name occurs in text as a whole word.
func mentionsName(text, name string) bool {
	for from := 0; ; {
		i := strings.Index(text[from:], name)
		if i < 0 {
			return false
		}
		i += from
		end := i + len(name)
		before := i == 0 || !isWordByte(text[i-1])
		after := end == len(text) || !isWordByte(text[end])
		if before && after {
			return true
		}
		from = end
	}
}

// schemaProperties returns the property names of a JSON Schema object.
func schemaProperties(schema json.RawMessage) map[string]bool {
	var s struct {
		Properties map[string]json.RawMessage `json:"properties"`
	}
	if json.Unmarshal(schema, &s) != nil {
		return nil
	}
	out := make(map[string]bool, len(s.Properties))
	for k := range s.Properties {
		out[k] = true
	}
	return out
}
