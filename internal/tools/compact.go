package tools

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/contractgraph/contractgraph/internal/contract"
)

// Schemas selects how a Set describes its tools to a caller: the same
// tools, names, arguments and behaviour either way, described at length or
// briefly.
type Schemas int

const (
	// SchemasFull gives every tool its full description and every argument
	// its description, enums, formats and bounds: for capable models,
	// people reading `tools list`, and MCP clients.
	SchemasFull Schemas = iota
	// SchemasCompact gives short tool descriptions, argument descriptions
	// only where a name does not say enough, and no long enums (an invalid
	// value's *ArgError lists the valid ones): for small local models,
	// whose prompt processing the full schemas would dominate.
	SchemasCompact
)

func (m Schemas) String() string {
	if m == SchemasCompact {
		return "compact"
	}
	return "full"
}

// maxCompactEnum is the longest enum a compact schema keeps; longer ones
// (contract types, clause types) cost more prompt than they save.
const maxCompactEnum = 12

// Compact is the compact form of a tool's definition (see SchemasCompact).
// The compact input schema is generated from the same input struct as the
// full one, with the same required fields, maximums and short enums;
// argument descriptions come from `compact:"..."` struct tags (an argument
// without one has none), and defaults, formats, patterns, minimum lengths,
// minimums of 0 or 1, and enums of more than a dozen values are dropped.
type Compact struct {
	// Description replaces the tool's description; empty means the first
	// sentence of the full description.
	Description string
	// Tune, when not nil, refines the compact schema after that.
	Tune func(*jsonschema.Schema)
}

// compactSchema generates the compact input schema of T: the full schema
// (tuned with tune), compacted, then refined by compactTune.
func compactSchema[T any](tune, compactTune func(*jsonschema.Schema)) (json.RawMessage, error) {
	s, err := jsonschema.For[T](nil)
	if err != nil {
		return nil, fmt.Errorf("generate schema: %w", err)
	}
	dropNull(s)
	if tune != nil {
		tune(s)
	}
	compactify(s, reflect.TypeFor[T]())
	if compactTune != nil {
		compactTune(s)
	}
	b, err := json.Marshal(s)
	if err != nil {
		return nil, fmt.Errorf("encode schema: %w", err)
	}
	return b, nil
}

// compactify rewrites the schema s of Go type t in place for compact mode.
func compactify(s *jsonschema.Schema, t reflect.Type) {
	t = deref(t)
	if s == nil || t == nil {
		return
	}
	if t.Kind() == reflect.Slice {
		compactify(s.Items, t.Elem())
		return
	}
	if t.Kind() != reflect.Struct {
		return
	}
	// A compact schema leaves unknown arguments to DecodeArgs, which names
	// the valid ones.
	s.AdditionalProperties = nil
	tags := compactTags(t)
	for name, p := range s.Properties {
		p.Description = tags[name].desc
		p.Format, p.Pattern, p.MinLength = "", "", nil
		if p.Minimum != nil && (*p.Minimum == 0 || *p.Minimum == 1) {
			p.Minimum = nil // what a count or an offset obviously is
		}
		if len(p.Enum) > maxCompactEnum {
			p.Enum = nil
		}
		// What an argument defaults to is what leaving it out means; the
		// model need not be told.
		p.Default = nil
		if p.Items != nil && len(p.Items.Enum) > maxCompactEnum {
			p.Items.Enum = nil
		}
		if typ := tags[name].typ; typ != nil {
			compactify(p, typ)
		}
	}
}

type compactTag struct {
	desc string
	typ  reflect.Type
}

// compactTags maps the JSON argument names of struct t to their compact
// descriptions and Go types.
func compactTags(t reflect.Type) map[string]compactTag {
	out := map[string]compactTag{}
	for _, f := range reflect.VisibleFields(t) {
		if f.Anonymous || !f.IsExported() {
			continue
		}
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" {
			continue
		}
		if name == "" {
			name = f.Name
		}
		if _, taken := out[name]; taken {
			continue
		}
		out[name] = compactTag{desc: f.Tag.Get("compact"), typ: f.Type}
	}
	return out
}

// Schemas reports how s describes its tools.
func (s *Set) Schemas() Schemas { return s.schemas }

// WithSchemas returns a view of s that describes its tools in mode m; it
// shares s's tools and handlers. Make it after every tool has been added:
// tools added to either afterwards may be missing from the other.
func (s *Set) WithSchemas(m Schemas) *Set {
	v := *s
	v.schemas = m
	v.entries = s.entries[:len(s.entries):len(s.entries)]
	return &v
}

// compactFilters shortens the shared filters: the contract types are
// listed once, in contract_search (listTypes), instead of as an enum in
// every tool, and monetary_value is described in a line instead of a
// nested schema.
func compactFilters(s *jsonschema.Schema, listTypes bool) {
	ct := property(s, "contract_type")
	ct.Description = "as listed in contract_search"
	if listTypes {
		ct.Description = "one of: " + strings.Join(contract.ContractTypes, ", ")
	}
	property(s, "monetary_value").Properties = nil
	property(s, "monetary_value").Required = nil
	property(s, "monetary_value").Description = `{operator: = > < >= <=, value: number} vs total_amount`
	// deadline_search answers notice-deadline questions; the range filter
	// is still taken here, but not spelled out for a small model.
	delete(s.Properties, "min_notice_deadline")
	delete(s.Properties, "max_notice_deadline")
	// Unverified values are for a person who asks for them; a small
	// model's answers rest on the verified ones (still accepted here).
	delete(s.Properties, "include_unverified")
	// Either-or party questions are rare enough that a small model is
	// not told of parties_match; the argument is still taken.
	delete(s.Properties, "parties_match")
	// Most words is the sensible default; asking for every word is not a
	// small model's choice to make.
	delete(s.Properties, "summary_match")
}

// filterNames are the JSON names of the shared filters.
var filterNames = argFields(reflect.TypeFor[Filters]()).names
