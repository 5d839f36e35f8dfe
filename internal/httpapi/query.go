package httpapi

import (
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/contractgraph/contractgraph/internal/tools"
)

// schemaNode is the part of a tool's JSON Schema that query parsing needs.
type schemaNode struct {
	Type       json.RawMessage        `json:"type"`
	Properties map[string]*schemaNode `json:"properties"`
	Items      *schemaNode            `json:"items"`
}

// kind is the node's JSON type, ignoring "null" in a type list (pointer
// fields are nullable).
func (n *schemaNode) kind() string {
	var one string
	if json.Unmarshal(n.Type, &one) == nil {
		return one
	}
	var many []string
	if json.Unmarshal(n.Type, &many) == nil {
		for _, t := range many {
			if t != "null" {
				return t
			}
		}
	}
	return ""
}

// toolSchema returns the parsed input schema of the named tool.
func toolSchema(ts ToolSet, name string) (*schemaNode, error) {
	for _, t := range ts.Tools() {
		if t.Name == name {
			var n schemaNode
			if err := json.Unmarshal(t.InputSchema, &n); err != nil {
				return nil, fmt.Errorf("tool %s: parse input schema: %w", name, err)
			}
			return &n, nil
		}
	}
	return nil, fmt.Errorf("%w %q", tools.ErrUnknownTool, name)
}

// argsFromQuery turns URL query parameters into a tool's JSON arguments,
// guided by its input schema, so that the query API accepts exactly the
// tool's arguments under the same names:
//
//   - a string argument is the parameter's value: contract_type=Supply
//   - an array argument repeats the parameter: parties=Acme&parties=Globex
//   - booleans and numbers are parsed: active=true, limit=20
//   - an object argument's fields are dotted: monetary_value.operator=>&monetary_value.value=1e6
//
// Empty values are ignored (an untouched form field). Parameters listed in
// skip are left for the caller. An unknown parameter, a repeated scalar or
// an unparsable value is a *tools.ArgError naming the parameter.
func argsFromQuery(schema *schemaNode, q url.Values, skip ...string) (json.RawMessage, error) {
	args := map[string]any{}
	for _, key := range slices.Sorted(maps.Keys(q)) {
		if slices.Contains(skip, key) {
			continue
		}
		var values []string
		for _, v := range q[key] {
			if strings.TrimSpace(v) != "" {
				values = append(values, strings.TrimSpace(v))
			}
		}
		if len(values) == 0 {
			continue
		}
		if key == "" {
			return nil, &tools.ArgError{Msg: "a query parameter has no name"}
		}
		target, node, err := lookupParam(schema, args, key)
		if err != nil {
			return nil, err
		}
		leaf := key[strings.LastIndexByte(key, '.')+1:]
		if node.kind() == "array" {
			item := node.Items
			if item == nil {
				item = &schemaNode{}
			}
			list := make([]any, 0, len(values))
			for _, v := range values {
				x, err := parseScalar(key, item.kind(), v)
				if err != nil {
					return nil, err
				}
				list = append(list, x)
			}
			target[leaf] = list
			continue
		}
		if len(values) > 1 {
			return nil, &tools.ArgError{Field: key, Msg: fmt.Sprintf("given %d times; it takes one value", len(values))}
		}
		x, err := parseScalar(key, node.kind(), values[0])
		if err != nil {
			return nil, err
		}
		target[leaf] = x
	}
	return json.Marshal(args)
}

// lookupParam finds the schema of a (possibly dotted) parameter and the
// object in args that its value goes into.
func lookupParam(schema *schemaNode, args map[string]any, key string) (map[string]any, *schemaNode, error) {
	parts := strings.Split(key, ".")
	node, target := schema, args
	for i, p := range parts {
		child, ok := node.Properties[p]
		if !ok || child == nil {
			prefix := strings.Join(parts[:i], ".")
			valid := make([]string, 0, len(node.Properties))
			for name := range node.Properties {
				if prefix != "" {
					name = prefix + "." + name
				}
				valid = append(valid, name)
			}
			slices.Sort(valid)
			return nil, nil, &tools.ArgError{Field: key, Msg: "unknown query parameter", Valid: valid}
		}
		if i == len(parts)-1 {
			return target, child, nil
		}
		if child.kind() != "object" {
			return nil, nil, &tools.ArgError{Field: key, Msg: fmt.Sprintf("%s is not an object", strings.Join(parts[:i+1], "."))}
		}
		sub, _ := target[p].(map[string]any)
		if sub == nil {
			sub = map[string]any{}
			target[p] = sub
		}
		node, target = child, sub
	}
	panic("unreachable")
}

func parseScalar(key, kind, v string) (any, error) {
	switch kind {
	case "boolean":
		b, err := strconv.ParseBool(v)
		if err != nil {
			return nil, &tools.ArgError{Field: key, Msg: fmt.Sprintf("%q is not true or false", v)}
		}
		return b, nil
	case "integer":
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return nil, &tools.ArgError{Field: key, Msg: fmt.Sprintf("%q is not an integer", v)}
		}
		return n, nil
	case "number":
		f, err := strconv.ParseFloat(v, 64)
		if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
			return nil, &tools.ArgError{Field: key, Msg: fmt.Sprintf("%q is not a number", v)}
		}
		return f, nil
	case "object":
		return nil, &tools.ArgError{Field: key, Msg: "is an object: give its fields as " + key + ".FIELD"}
	}
	return v, nil
}

// intParam parses an optional non-negative integer query parameter.
func intParam(q url.Values, key string, def int) (int, error) {
	v := strings.TrimSpace(q.Get(key))
	if v == "" {
		return def, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 {
		return 0, &tools.ArgError{Field: key, Msg: fmt.Sprintf("%q is not a non-negative integer", v)}
	}
	return n, nil
}
