package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
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

	// validArgs says Valid lists argument names rather than values.
	validArgs bool
}

// Is makes an ArgError match graph.ErrInvalidQuery, the one test the edges
// make for the caller's mistakes.
func (e *ArgError) Is(target error) bool { return target == graph.ErrInvalidQuery }

func (e *ArgError) Error() string {
	var b strings.Builder
	if e.Field != "" {
		b.WriteString(e.Field)
		b.WriteString(": ")
	}
	b.WriteString(e.Msg)
	if len(e.Valid) > 0 {
		if e.validArgs {
			b.WriteString("; valid arguments: ")
		} else {
			b.WriteString("; valid values: ")
		}
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
	tool    Tool // full
	compact Tool
	run     Handler
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
	// Schemas is how Tools describes the tools; the zero value is
	// SchemasFull.
	Schemas Schemas
	// ExactParties turns typo tolerance off: a parties entry (or a
	// party_search name) that no party name contains then matches nothing,
	// rather than the names within a typo or two of it
	// (graph.ResolveParties).
	ExactParties bool
	// Summaries, when set, makes summary_search hybrid: it also finds
	// contracts by the meaning of their summaries (cmd passes a
	// retrieve.SummaryFinder when the store keeps summary embeddings and an
	// embedding model is configured). Nil means words only.
	Summaries SummaryFinder
}

// SummaryFinder finds contracts for a filter's summary_search by meaning.
type SummaryFinder interface {
	// Find returns f with SummaryIDs set to the contracts found by meaning,
	// and those contracts with their similarity, best first; f unchanged
	// when it has no summary search or nothing is near. An error is the
	// embedding model's or the store's.
	Find(ctx context.Context, f graph.Filter) (graph.Filter, []graph.SummaryHit, error)
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
	schemas      Schemas
	parties      *graph.PartyResolver // nil with Options.ExactParties
	summaries    SummaryFinder        // nil: summary_search by words only
	entries      []entry
}

// errNoStore is returned by the contract tools of a Set made without a store.
var errNoStore = errors.New("no contract store configured")

// New returns a Set holding the seven contract tools over store. store may be
// nil for a set that is only listed; its contract tools then fail.
func New(store graph.Store, opts Options) *Set {
	s := &Set{store: store, clauses: opts.Clauses, now: opts.Now, maxTextBytes: opts.MaxTextBytes, schemas: opts.Schemas, summaries: opts.Summaries}
	if !opts.ExactParties {
		s.parties = graph.NewPartyResolver(store)
	}
	if s.now == nil {
		s.now = time.Now
	}
	if s.maxTextBytes <= 0 {
		s.maxTextBytes = DefaultMaxTextBytes
	}
	for _, err := range []error{
		RegisterCompact(s, NameContractSearch, contractSearchDescription, s.ContractSearch, tuneContractSearch, contractSearchCompact),
		RegisterCompact(s, NameContractAggregate, contractAggregateDescription, s.ContractAggregate, tuneContractAggregate, contractAggregateCompact),
		RegisterCompact(s, NamePartySearch, partySearchDescription, s.PartySearch, tunePartySearch, partySearchCompact),
		RegisterCompact(s, NameGetContract, getContractDescription, s.GetContract, tuneGetContract, getContractCompact),
		RegisterCompact(s, NameClauseSearch, clauseSearchDescription, s.ClauseSearch, tuneClauseSearch, clauseSearchCompact),
		RegisterCompact(s, NameDeadlineSearch, deadlineSearchDescription, s.DeadlineSearch, tuneDeadlineSearch, deadlineSearchCompact),
		RegisterCompact(s, NameClauseCompare, clauseCompareDescription, s.ClauseCompare, tuneClauseCompare, clauseCompareCompact),
	} {
		if err != nil {
			// The input types are fixed at compile time; a schema that does
			// not build is a programming error caught by every test.
			panic(err)
		}
	}
	return s
}

// Add adds a tool, described the same way in full and compact mode. It
// fails if the name is empty, already taken, or the schema is not a JSON
// object. Add must not be called concurrently with Call.
func (s *Set) Add(t Tool, h Handler) error {
	return s.add(t, t, h)
}

func (s *Set) add(full, compact Tool, h Handler) error {
	if full.Name == "" || h == nil {
		return errors.New("add tool: empty name or nil handler")
	}
	if compact.Name != full.Name {
		return fmt.Errorf("add tool %s: compact definition is named %q", full.Name, compact.Name)
	}
	if s.lookup(full.Name) != nil {
		return fmt.Errorf("add tool %s: name already taken", full.Name)
	}
	for _, schema := range []json.RawMessage{full.InputSchema, compact.InputSchema} {
		var obj map[string]json.RawMessage
		if err := json.Unmarshal(schema, &obj); err != nil || obj == nil {
			return fmt.Errorf("add tool %s: input schema is not a JSON object", full.Name)
		}
	}
	s.entries = append(s.entries, entry{tool: full, compact: compact, run: h})
	return nil
}

// Register adds a typed tool to s: its schema is generated from In (field
// descriptions come from `jsonschema:"..."` tags), its arguments are decoded
// into In by DecodeArgs (unknown fields are an *ArgError), and its Out is
// encoded as the JSON result. tune, when not nil, refines the generated
// schema, e.g. with enums, bounds and defaults. Its compact form is derived
// as Compact describes, with the default Compact.
func Register[In, Out any](s *Set, name, description string, fn func(context.Context, In) (Out, error), tune func(*jsonschema.Schema)) error {
	return RegisterCompact(s, name, description, fn, tune, Compact{})
}

// RegisterCompact is Register with the tool's compact definition spelled
// out (see Compact).
func RegisterCompact[In, Out any](s *Set, name, description string, fn func(context.Context, In) (Out, error), tune func(*jsonschema.Schema), compact Compact) error {
	schema, err := Schema[In](tune)
	if err != nil {
		return fmt.Errorf("register tool %s: %w", name, err)
	}
	small, err := compactSchema[In](tune, compact.Tune)
	if err != nil {
		return fmt.Errorf("register tool %s: compact: %w", name, err)
	}
	if compact.Description == "" {
		compact.Description = FirstSentence(description)
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
	return s.add(Tool{Name: name, Description: description, InputSchema: schema},
		Tool{Name: name, Description: compact.Description, InputSchema: small}, h)
}

// Tools lists the set's tools in the order they were added, described as
// s.Schemas() says.
func (s *Set) Tools() []Tool {
	out := make([]Tool, len(s.entries))
	for i, e := range s.entries {
		out[i] = e.tool
		if s.schemas == SchemasCompact {
			out[i] = e.compact
		}
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
