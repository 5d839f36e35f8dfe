package tools

import (
	"encoding/json"
	"fmt"
	"slices"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/contractgraph/contractgraph/internal/graph"
)

// Schema generates the JSON Schema of a tool's input type T. Optional
// arguments (pointers, slices) are described by their value type alone,
// without the "null" alternative jsonschema-go adds, because some model
// providers reject type unions and an omitted argument already means "not
// set". tune, when not nil, then refines the schema.
func Schema[T any](tune func(*jsonschema.Schema)) (json.RawMessage, error) {
	s, err := jsonschema.For[T](nil)
	if err != nil {
		return nil, fmt.Errorf("generate schema: %w", err)
	}
	dropNull(s)
	if tune != nil {
		tune(s)
	}
	b, err := json.Marshal(s)
	if err != nil {
		return nil, fmt.Errorf("encode schema: %w", err)
	}
	return b, nil
}

func dropNull(s *jsonschema.Schema) {
	if s == nil {
		return
	}
	if len(s.Types) == 2 && slices.Contains(s.Types, "null") {
		for _, t := range s.Types {
			if t != "null" {
				s.Type = t
			}
		}
		s.Types = nil
	}
	for _, p := range s.Properties {
		dropNull(p)
	}
	dropNull(s.Items)
}

// property returns the schema of s's property name; it panics when there is
// none, which only a mistyped name in this package can cause.
func property(s *jsonschema.Schema, name string) *jsonschema.Schema {
	p, ok := s.Properties[name]
	if !ok {
		panic(fmt.Sprintf("tools: schema has no property %q", name))
	}
	return p
}

// setEnum restricts a string property (or the items of a string-array
// property) to values.
func setEnum(s *jsonschema.Schema, name string, values []string) {
	p := property(s, name)
	if p.Items != nil {
		p = p.Items
	}
	p.Enum = make([]any, len(values))
	for i, v := range values {
		p.Enum[i] = v
	}
}

// setRange bounds an integer or number property and records its default.
func setRange(s *jsonschema.Schema, name string, minimum, maximum float64, def any) {
	p := property(s, name)
	p.Minimum = &minimum
	if maximum > minimum {
		p.Maximum = &maximum
	}
	setDefault(s, name, def)
}

// setLimit bounds the "limit" property to 1..l.Max with l's default.
func setLimit(s *jsonschema.Schema, l graph.Limit) {
	setRange(s, "limit", 1, float64(l.Max), l.Default)
}

func setDefault(s *jsonschema.Schema, name string, def any) {
	if def == nil {
		return
	}
	b, err := json.Marshal(def)
	if err != nil {
		panic(fmt.Sprintf("tools: default of %s: %v", name, err))
	}
	property(s, name).Default = b
}

// datePattern is the schema pattern of a YYYY-MM-DD date.
const datePattern = `^[0-9]{4}-[0-9]{2}-[0-9]{2}$`

func setDate(s *jsonschema.Schema, names ...string) {
	for _, n := range names {
		p := property(s, n)
		p.Format = "date"
		p.Pattern = datePattern
	}
}
