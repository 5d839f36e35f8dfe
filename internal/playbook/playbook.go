package playbook

import (
	"bytes"
	_ "embed"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v4"

	"github.com/contractgraph/contractgraph/internal/contract"
	"github.com/contractgraph/contractgraph/internal/terms"
)

// Requirement is what a playbook entry asks of its clause type.
type Requirement string

// The requirements an entry can state.
const (
	// Required: the contract must have the clause, and it is judged
	// against the standard, the fallbacks and the red flags.
	Required Requirement = "required"
	// Forbidden: the contract must not have the clause at all.
	Forbidden Requirement = "forbidden"
)

// Playbook is a legal team's standard positions, one entry per clause
// type.
type Playbook struct {
	Name        string  `yaml:"name" json:"name"`
	Description string  `yaml:"description,omitempty" json:"description,omitempty"`
	Entries     []Entry `yaml:"entries" json:"entries"`

	// Source names where the playbook was read from (a file name), for
	// reports; it is not part of the format.
	Source string `yaml:"-" json:"source,omitempty"`
}

// Entry is the position on one clause type.
type Entry struct {
	// ID is short and unique in the playbook, e.g. "liability-cap".
	ID string `yaml:"id" json:"id"`
	// Title is what reports call the entry; it defaults to ClauseType.
	Title string `yaml:"title,omitempty" json:"title,omitempty"`
	// ClauseType is a CUAD clause category (contract.ClauseCategories), in
	// any case and punctuation; Parse stores its canonical name.
	ClauseType  string      `yaml:"clause_type" json:"clause_type"`
	Requirement Requirement `yaml:"requirement" json:"requirement"`
	// Standard is the team's preferred wording (required entries).
	Standard Position `yaml:"standard,omitempty" json:"standard,omitzero"`
	// Fallbacks are wordings the team accepts in place of the standard.
	Fallbacks []Position `yaml:"fallbacks,omitempty" json:"fallbacks,omitempty"`
	// RedFlags are what the team never accepts in this clause.
	RedFlags []RedFlag `yaml:"red_flags,omitempty" json:"red_flags,omitempty"`
	// Terms are the numeric terms the clause must state.
	Terms []TermRule `yaml:"terms,omitempty" json:"terms,omitempty"`
	// Guidance is free text for the reviewer and the model's judgement.
	Guidance string `yaml:"guidance,omitempty" json:"guidance,omitempty"`

	line int // where the entry starts in its file, 0 when unknown
}

// Position is a wording of a clause the team accepts. In a playbook file
// it is either the text alone or a mapping with text and require.
type Position struct {
	Text string `yaml:"text" json:"text"`
	// Require lists words the clause must contain (case and spacing
	// aside) for it to match this position, e.g. the state of a
	// governing-law clause: similar wording naming another state is not
	// the standard.
	Require []string `yaml:"require,omitempty" json:"require,omitempty"`
}

// IsZero reports whether p states nothing.
func (p Position) IsZero() bool { return strings.TrimSpace(p.Text) == "" && len(p.Require) == 0 }

// UnmarshalYAML reads a position written as its text alone or as a
// mapping with text and require.
func (p *Position) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind == yaml.ScalarNode {
		return n.Decode(&p.Text)
	}
	if n.Kind != yaml.MappingNode {
		return fmt.Errorf("line %d: a position is a text or a mapping with text and require", n.Line)
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		switch k := n.Content[i].Value; k {
		case "text":
			if err := n.Content[i+1].Decode(&p.Text); err != nil {
				return err
			}
		case "require":
			if err := n.Content[i+1].Decode(&p.Require); err != nil {
				return err
			}
		default:
			return fmt.Errorf("line %d: unknown field %q in a position; valid fields: text, require", n.Content[i].Line, k)
		}
	}
	return nil
}

// RedFlag is something the team never accepts. Description says what, in
// words for a person and the model; Text, when given, is a sample wording
// the deterministic check compares the clause with.
type RedFlag struct {
	Description string `yaml:"description" json:"description"`
	Text        string `yaml:"text,omitempty" json:"text,omitempty"`
}

// TermRule is a numeric term a clause must state within bounds, e.g. a
// liability cap of at least 12 months' fees or a notice period of at most
// 90 days.
type TermRule struct {
	// Kind is the term's kind: cap, notice, duration, amount or percent.
	Kind terms.Kind `yaml:"kind" json:"kind"`
	// Unit is the term's unit (terms.Term's): for cap, months_fees,
	// x_fees or amount; days for notice and duration (the default);
	// percent for percent; a currency code for amount.
	Unit string `yaml:"unit,omitempty" json:"unit,omitempty"`
	// Currency restricts amount-valued terms to one ISO 4217 code.
	Currency string   `yaml:"currency,omitempty" json:"currency,omitempty"`
	Min      *float64 `yaml:"min,omitempty" json:"min,omitempty"`
	Max      *float64 `yaml:"max,omitempty" json:"max,omitempty"`
	// RedLine makes a term outside the bounds a red flag rather than a
	// deviation.
	RedLine bool `yaml:"red_line,omitempty" json:"red_line,omitempty"`
}

// Label is the entry's title, or its clause type.
func (e *Entry) Label() string {
	if e.Title != "" {
		return e.Title
	}
	return e.ClauseType
}

// FieldError is one problem in a playbook file: the file, the line when
// known, the entry and the field.
type FieldError struct {
	File  string
	Line  int    // 0 when unknown
	Entry string // e.g. `entry 3 ("liability-cap")`; "" for the playbook itself
	Field string
	Msg   string
}

func (e *FieldError) Error() string {
	var b strings.Builder
	b.WriteString(e.File)
	if e.Line > 0 {
		fmt.Fprintf(&b, ":%d", e.Line)
	}
	b.WriteString(": ")
	if e.Entry != "" {
		b.WriteString(e.Entry + ": ")
	}
	if e.Field != "" {
		b.WriteString(e.Field + ": ")
	}
	b.WriteString(e.Msg)
	return b.String()
}

// ErrInvalid is wrapped by every error Parse returns for a playbook that
// is not valid (not for a file that cannot be read).
var ErrInvalid = errors.New("invalid playbook")

// maxFile bounds a playbook file.
const maxFile = 4 << 20

// Read parses the playbook in r; name is the file name errors give.
func Read(r io.Reader, name string) (*Playbook, error) {
	b, err := io.ReadAll(io.LimitReader(r, maxFile+1))
	if err != nil {
		return nil, fmt.Errorf("read playbook %s: %w", name, err)
	}
	if len(b) > maxFile {
		return nil, fmt.Errorf("%w: %s is larger than %d MiB", ErrInvalid, name, maxFile>>20)
	}
	return Parse(b, name)
}

// Parse reads a playbook written in YAML or JSON (JSON is YAML too) and
// validates it: every problem is reported, each naming the file, the line,
// the entry and the field, joined in one error wrapping ErrInvalid.
func Parse(data []byte, name string) (*Playbook, error) {
	var pb Playbook
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&pb); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("%w: %s is empty", ErrInvalid, name)
		}
		return nil, fmt.Errorf("%w: %s: %s", ErrInvalid, name, strings.TrimPrefix(err.Error(), "yaml: "))
	}
	var root yaml.Node
	if err := yaml.Unmarshal(data, &root); err == nil {
		lines := entryLines(&root)
		for i := range pb.Entries {
			if i < len(lines) {
				pb.Entries[i].line = lines[i].line
			}
		}
		pb.Source = name
		if errs := pb.validate(lines); len(errs) > 0 {
			return nil, fmt.Errorf("%w: %w", ErrInvalid, errors.Join(errs...))
		}
		return &pb, nil
	}
	pb.Source = name
	if errs := pb.validate(nil); len(errs) > 0 {
		return nil, fmt.Errorf("%w: %w", ErrInvalid, errors.Join(errs...))
	}
	return &pb, nil
}

// lineInfo is where an entry and each of its fields start.
type lineInfo struct {
	line   int
	fields map[string]*yaml.Node // key → value
}

// fieldLine is the line of a field such as "terms[1].min": the item of a
// sequence when the field names one, else the field's key.
func (li lineInfo) fieldLine(field string) int {
	name, rest, _ := strings.Cut(field, "[")
	v, ok := li.fields[strings.SplitN(name, ".", 2)[0]]
	if !ok {
		return li.line
	}
	line := v.Line
	if idx, _, ok := strings.Cut(rest, "]"); ok && v.Kind == yaml.SequenceNode {
		if n, err := strconv.Atoi(idx); err == nil && 0 <= n && n < len(v.Content) {
			line = v.Content[n].Line
		}
	} else if v.Kind == yaml.MappingNode || v.Kind == yaml.SequenceNode {
		line = v.Line - 1 // the key's line: the value starts on the next
	}
	return line
}

// entryLines finds the line of each entry of the document and of its
// fields.
func entryLines(root *yaml.Node) []lineInfo {
	doc := root
	if doc.Kind == yaml.DocumentNode && len(doc.Content) > 0 {
		doc = doc.Content[0]
	}
	if doc.Kind != yaml.MappingNode {
		return nil
	}
	var out []lineInfo
	for i := 0; i+1 < len(doc.Content); i += 2 {
		if doc.Content[i].Value != "entries" || doc.Content[i+1].Kind != yaml.SequenceNode {
			continue
		}
		for _, e := range doc.Content[i+1].Content {
			li := lineInfo{line: e.Line, fields: map[string]*yaml.Node{}}
			for j := 0; j+1 < len(e.Content); j += 2 {
				v := *e.Content[j+1]
				if v.Kind == yaml.ScalarNode {
					v.Line = e.Content[j].Line
				}
				li.fields[e.Content[j].Value] = &v
			}
			out = append(out, li)
		}
	}
	return out
}

// validate checks the playbook and normalises clause types and units.
func (pb *Playbook) validate(lines []lineInfo) []error {
	var errs []error
	top := func(field, msg string) {
		errs = append(errs, &FieldError{File: pb.Source, Field: field, Msg: msg})
	}
	if strings.TrimSpace(pb.Name) == "" {
		top("name", "missing; name the playbook, e.g. name: Commercial agreements")
	}
	if len(pb.Entries) == 0 {
		top("entries", "no entries; a playbook states at least one position")
	}
	ids := map[string]int{}
	for i := range pb.Entries {
		e := &pb.Entries[i]
		label := fmt.Sprintf("entry %d", i+1)
		if e.ID != "" {
			label += fmt.Sprintf(" (%q)", e.ID)
		}
		fail := func(field, format string, args ...any) {
			fe := &FieldError{File: pb.Source, Line: e.line, Entry: label, Field: field, Msg: fmt.Sprintf(format, args...)}
			if i < len(lines) {
				fe.Line = lines[i].fieldLine(field)
			}
			errs = append(errs, fe)
		}
		switch {
		case strings.TrimSpace(e.ID) == "":
			fail("id", "missing; give each entry a short unique id, e.g. liability-cap")
		case ids[e.ID] > 0:
			fail("id", "%q is also the id of entry %d", e.ID, ids[e.ID])
		default:
			ids[e.ID] = i + 1
		}
		typ, _, err := contract.ParseClauseType(e.ClauseType)
		switch {
		case strings.TrimSpace(e.ClauseType) == "":
			fail("clause_type", "missing; use a CUAD clause category, e.g. Cap On Liability")
		case err != nil || contract.IsClauseGroup(typ):
			fail("clause_type", "%q is not a CUAD clause category; valid values: %s", e.ClauseType, categoryNames())
		default:
			e.ClauseType = typ
		}
		switch e.Requirement {
		case Required:
			if strings.TrimSpace(e.Standard.Text) == "" {
				fail("standard", "missing; a required entry states the standard wording")
			}
		case Forbidden:
			if !e.Standard.IsZero() || len(e.Fallbacks) > 0 || len(e.Terms) > 0 {
				fail("requirement", "a forbidden clause has no standard, fallbacks or terms: any such clause is a red flag")
			}
		case "":
			fail("requirement", "missing; want required or forbidden")
		default:
			fail("requirement", "%q: want required or forbidden", e.Requirement)
		}
		for j, f := range e.Fallbacks {
			if strings.TrimSpace(f.Text) == "" {
				fail(fmt.Sprintf("fallbacks[%d].text", j), "empty; a fallback states the wording the team accepts")
			}
		}
		for j, rf := range e.RedFlags {
			if strings.TrimSpace(rf.Description) == "" {
				fail(fmt.Sprintf("red_flags[%d].description", j), "empty; say what the team never accepts")
			}
		}
		for j := range e.Terms {
			tr := &e.Terms[j]
			field := fmt.Sprintf("terms[%d]", j)
			if msg := tr.normalise(); msg != "" {
				fail(field, "%s", msg)
			}
		}
	}
	return errs
}

// normalise fills a term rule's default unit and says what is wrong with
// it, or "".
func (tr *TermRule) normalise() string {
	tr.Kind = terms.Kind(strings.ToLower(string(tr.Kind)))
	tr.Unit = strings.ToLower(tr.Unit)
	switch tr.Kind {
	case terms.Notice, terms.Duration:
		if tr.Unit == "" {
			tr.Unit = terms.UnitDays
		}
		if tr.Unit != terms.UnitDays {
			return fmt.Sprintf("unit %q: %s terms are in days", tr.Unit, tr.Kind)
		}
	case terms.Percent:
		if tr.Unit == "" {
			tr.Unit = terms.UnitPercent
		}
		if tr.Unit != terms.UnitPercent {
			return fmt.Sprintf("unit %q: percent terms are in percent", tr.Unit)
		}
	case terms.Cap:
		if tr.Unit == "" {
			return fmt.Sprintf("unit missing; a cap is in %s, %s or %s", terms.UnitMonthsFees, terms.UnitFees, terms.UnitAmount)
		}
		if !slices.Contains([]string{terms.UnitMonthsFees, terms.UnitFees, terms.UnitAmount}, tr.Unit) {
			return fmt.Sprintf("unit %q: a cap is in %s, %s or %s", tr.Unit, terms.UnitMonthsFees, terms.UnitFees, terms.UnitAmount)
		}
	case terms.Amount:
		if tr.Unit != "" {
			tr.Currency = tr.Unit
		}
		tr.Currency = strings.ToUpper(tr.Currency)
		tr.Unit = tr.Currency
	case "":
		return "kind missing; want cap, notice, duration, amount or percent"
	default:
		return fmt.Sprintf("kind %q: want cap, notice, duration, amount or percent", tr.Kind)
	}
	if tr.Kind == terms.Cap {
		tr.Currency = strings.ToUpper(tr.Currency)
	}
	if tr.Min == nil && tr.Max == nil {
		return "neither min nor max; a term rule bounds the term"
	}
	for _, v := range []*float64{tr.Min, tr.Max} {
		if v != nil && (math.IsNaN(*v) || math.IsInf(*v, 0) || *v < 0) {
			return "min and max are numbers of at least 0"
		}
	}
	if tr.Min != nil && tr.Max != nil && *tr.Min > *tr.Max {
		return fmt.Sprintf("min %g is above max %g", *tr.Min, *tr.Max)
	}
	return ""
}

func categoryNames() string {
	names := make([]string, len(contract.ClauseCategories))
	for i, c := range contract.ClauseCategories {
		names[i] = c.Name
	}
	return strings.Join(names, ", ")
}

//go:embed examples/commercial.yaml
var commercialExample []byte

// ExampleName is the file name of the example playbook.
const ExampleName = "commercial.yaml"

// Example returns the example playbook for commercial agreements, as its
// YAML source: `contractgraph playbook example` prints it.
func Example() []byte { return bytes.Clone(commercialExample) }

// ParseExample parses the example playbook.
func ParseExample() (*Playbook, error) { return Parse(commercialExample, ExampleName) }
