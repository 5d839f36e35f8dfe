package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/contractgraph/contractgraph/internal/graph"
)

// ErrUnknownTool is returned by [Set.Call] for a tool name the set does not hold.
var ErrUnknownTool = errors.New("unknown tool")

// MaxArgsBytes bounds the size of one call's JSON arguments.
const MaxArgsBytes = 64 << 10

// ArgError reports an invalid argument: which field, what is wrong with it
// and, when the field takes one of a closed set of values, which values are
// valid. Callers at the edges map it to exit code 2, HTTP 400 or an MCP tool
// error; the agent hands its message back to the model.
type ArgError struct {
	Field string   // JSON name of the argument, "" when the arguments as a whole are malformed
	Msg   string   // what is wrong
	Valid []string // the valid values, when the set is closed
}

func (e *ArgError) Error() string {
	var b strings.Builder
	if e.Field != "" {
		b.WriteString(e.Field)
		b.WriteString(": ")
	}
	b.WriteString(e.Msg)
	if len(e.Valid) > 0 {
		b.WriteString("; valid values: ")
		b.WriteString(strings.Join(e.Valid, ", "))
	}
	return b.String()
}

// Tool describes one tool to a caller: its name, what it does and the JSON
// Schema of its arguments.
type Tool struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	InputSchema json.RawMessage `json:"input_schema"`
}

// Handler runs one tool on raw JSON arguments and returns its JSON result.
// Invalid arguments are reported as *ArgError.
type Handler func(ctx context.Context, args json.RawMessage) (json.RawMessage, error)

type entry struct {
	tool Tool
	run  Handler
}

// Options configure a Set.
type Options struct {
	// Now is the clock that gives as_of its default: the date of Now() in
	// its own location (local time for time.Now). Nil means time.Now.
	Now func() time.Time
	// MaxTextBytes bounds the contract text get_contract returns in one call.
	// Zero means DefaultMaxTextBytes.
	MaxTextBytes int
	// Clauses ranks clause_search passages. Nil means the store's own
	// full-text ranking; cmd passes a hybrid BM25 + vector searcher when an
	// embedding model is configured.
	Clauses ClauseSearcher
}

// ClauseSearcher ranks clause and chunk passages for clause_search.
type ClauseSearcher interface {
	// Search returns the best passages for q, best first, or an error.
	Search(ctx context.Context, q graph.ClauseQuery) ([]graph.ClauseHit, error)
}

// DefaultMaxTextBytes is get_contract's default text window.
const DefaultMaxTextBytes = 24 << 10

// Set is a collection of tools over one store. It is safe for concurrent
// calls once every tool has been added.
type Set struct {
	store        graph.Store
	clauses      ClauseSearcher
	now          func() time.Time
	maxTextBytes int
	entries      []entry
}

// errNoStore is returned by the contract tools of a Set made without a store.
var errNoStore = errors.New("no contract store configured")

// New returns a Set holding the five contract tools over store. store may be
// nil for a set that is only listed; its contract tools then fail.
func New(store graph.Store, opts Options) *Set {
	s := &Set{store: store, clauses: opts.Clauses, now: opts.Now, maxTextBytes: opts.MaxTextBytes}
	if s.now == nil {
		s.now = time.Now
	}
	if s.maxTextBytes <= 0 {
		s.maxTextBytes = DefaultMaxTextBytes
	}
	for _, err := range []error{
		Register(s, NameContractSearch, contractSearchDescription, s.ContractSearch, tuneContractSearch),
		Register(s, NameContractAggregate, contractAggregateDescription, s.ContractAggregate, tuneContractAggregate),
		Register(s, NamePartySearch, partySearchDescription, s.PartySearch, tunePartySearch),
		Register(s, NameGetContract, getContractDescription, s.GetContract, tuneGetContract),
		Register(s, NameClauseSearch, clauseSearchDescription, s.ClauseSearch, tuneClauseSearch),
	} {
		if err != nil {
			// The input types are fixed at compile time; a schema that does
			// not build is a programming error caught by every test.
			panic(err)
		}
	}
	return s
}

// Add adds a tool. It fails if the name is empty, already taken, or the
// schema is not a JSON object. Add must not be called concurrently with Call.
func (s *Set) Add(t Tool, h Handler) error {
	if t.Name == "" || h == nil {
		return errors.New("add tool: empty name or nil handler")
	}
	if s.lookup(t.Name) != nil {
		return fmt.Errorf("add tool %s: name already taken", t.Name)
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(t.InputSchema, &obj); err != nil || obj == nil {
		return fmt.Errorf("add tool %s: input schema is not a JSON object", t.Name)
	}
	s.entries = append(s.entries, entry{tool: t, run: h})
	return nil
}

// Register adds a typed tool to s: its schema is generated from In (field
// descriptions come from `jsonschema:"..."` tags), its arguments are decoded
// strictly into In (unknown fields are an *ArgError), and its Out is encoded
// as the JSON result. tune, when not nil, refines the generated schema, e.g.
// with enums, bounds and defaults.
func Register[In, Out any](s *Set, name, description string, fn func(context.Context, In) (Out, error), tune func(*jsonschema.Schema)) error {
	schema, err := Schema[In](tune)
	if err != nil {
		return fmt.Errorf("register tool %s: %w", name, err)
	}
	h := func(ctx context.Context, args json.RawMessage) (json.RawMessage, error) {
		var in In
		if err := DecodeArgs(args, &in); err != nil {
			return nil, err
		}
		out, err := fn(ctx, in)
		if err != nil {
			return nil, err
		}
		b, err := json.Marshal(out)
		if err != nil {
			return nil, fmt.Errorf("%s: encode result: %w", name, err)
		}
		return b, nil
	}
	return s.Add(Tool{Name: name, Description: description, InputSchema: schema}, h)
}

// Tools lists the set's tools in the order they were added.
func (s *Set) Tools() []Tool {
	out := make([]Tool, len(s.entries))
	for i, e := range s.entries {
		out[i] = e.tool
	}
	return out
}

// Names lists the set's tool names in the order they were added.
func (s *Set) Names() []string {
	out := make([]string, len(s.entries))
	for i, e := range s.entries {
		out[i] = e.tool.Name
	}
	return out
}

func (s *Set) lookup(name string) *entry {
	for i := range s.entries {
		if s.entries[i].tool.Name == name {
			return &s.entries[i]
		}
	}
	return nil
}

// Call runs the named tool on JSON arguments (empty or null means {}) and
// returns its JSON result. An unknown name is ErrUnknownTool (the message
// lists the valid names); invalid arguments are *ArgError; other errors come
// from the store (graph.ErrNotFound for a missing contract).
func (s *Set) Call(ctx context.Context, name string, args json.RawMessage) (json.RawMessage, error) {
	e := s.lookup(name)
	if e == nil {
		return nil, fmt.Errorf("%w %q; valid tools: %s", ErrUnknownTool, name, strings.Join(s.Names(), ", "))
	}
	if len(args) > MaxArgsBytes {
		return nil, &ArgError{Msg: fmt.Sprintf("arguments are %d bytes, more than the limit of %d", len(args), MaxArgsBytes)}
	}
	return e.run(ctx, args)
}

// DecodeArgs decodes JSON arguments strictly into v, a pointer to a struct:
// empty or null arguments leave v zero, unknown fields and wrongly typed
// values are *ArgError naming the field, and trailing data is rejected.
func DecodeArgs(args json.RawMessage, v any) error {
	trimmed := bytes.TrimSpace(args)
	if len(trimmed) == 0 || bytes.Equal(trimmed, []byte("null")) {
		return nil
	}
	if trimmed[0] != '{' {
		return &ArgError{Msg: "arguments must be a JSON object"}
	}
	dec := json.NewDecoder(bytes.NewReader(trimmed))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return decodeError(err, v)
	}
	if _, err := dec.Token(); err != io.EOF {
		return &ArgError{Msg: "unexpected data after the JSON arguments object"}
	}
	return nil
}

func decodeError(err error, v any) error {
	var typeErr *json.UnmarshalTypeError
	var syntaxErr *json.SyntaxError
	switch {
	case errors.As(err, &typeErr):
		field := jsonPath(typeErr.Field, reflect.TypeOf(v))
		if field == "" {
			return &ArgError{Msg: fmt.Sprintf("arguments must be a JSON object, not %s", typeErr.Value)}
		}
		return &ArgError{Field: field, Msg: fmt.Sprintf("expected %s, got %s", jsonKind(typeErr.Type), typeErr.Value)}
	case errors.As(err, &syntaxErr):
		return &ArgError{Msg: fmt.Sprintf("invalid JSON at byte %d: %v", syntaxErr.Offset, err)}
	case errors.Is(err, io.ErrUnexpectedEOF):
		return &ArgError{Msg: "invalid JSON: unexpected end of input"}
	}
	// encoding/json reports unknown fields only as text: `json: unknown field "x"`.
	if name, ok := strings.CutPrefix(err.Error(), "json: unknown field "); ok {
		name = strings.Trim(name, `"`)
		return &ArgError{Field: name, Msg: "unknown argument", Valid: fieldNames(reflect.TypeOf(v))}
	}
	var argErr *ArgError
	if errors.As(err, &argErr) {
		return argErr
	}
	return &ArgError{Msg: fmt.Sprintf("invalid arguments: %v", err)}
}

// jsonPath removes from an encoding/json field path the Go names of
// embedded structs (such as Filters), which callers never see.
func jsonPath(path string, t reflect.Type) string {
	if path == "" {
		return ""
	}
	embedded := map[string]bool{}
	seen := map[reflect.Type]bool{}
	var walk func(reflect.Type)
	walk = func(t reflect.Type) {
		for t != nil && t.Kind() == reflect.Pointer {
			t = t.Elem()
		}
		if t == nil || t.Kind() != reflect.Struct || seen[t] {
			return
		}
		seen[t] = true
		for i := range t.NumField() {
			f := t.Field(i)
			if f.Anonymous {
				embedded[f.Name] = true
			}
			walk(f.Type)
		}
	}
	walk(t)
	var parts []string
	for _, p := range strings.Split(path, ".") {
		if !embedded[p] {
			parts = append(parts, p)
		}
	}
	return strings.Join(parts, ".")
}

// jsonKind names the JSON type a Go type decodes from.
func jsonKind(t reflect.Type) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "an integer"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Slice, reflect.Array:
		return "an array"
	case reflect.Struct, reflect.Map:
		return "an object"
	}
	return t.String()
}

// fieldNames lists the JSON argument names of a struct type, sorted.
func fieldNames(t reflect.Type) []string {
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == nil || t.Kind() != reflect.Struct {
		return nil
	}
	var names []string
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
		names = append(names, name)
	}
	slices.Sort(names)
	return slices.Compact(names)
}
