package tools

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/contractgraph/contractgraph/internal/graph"
)

// sqliteToolSet is the tool set `ask` sends on the SQLite backend with a
// statute knowledge base: the five contract tools and the two statute tools.
func sqliteToolSet(t *testing.T, m Schemas) *Set {
	t.Helper()
	s := New(&recorder{}, Options{Now: fixedNow, Schemas: m})
	if err := NewStatuteTools(&fakeStatutes{}, StatuteOptions{}).AddTo(s); err != nil {
		t.Fatal(err)
	}
	return s
}

// requestBytes is the size of tools as an OpenAI-compatible chat request
// carries them, {"type":"function","function":{...}} each.
func requestBytes(t *testing.T, tools []Tool) int {
	t.Helper()
	type function struct {
		Name        string          `json:"name"`
		Description string          `json:"description"`
		Parameters  json.RawMessage `json:"parameters"`
	}
	type def struct {
		Type     string   `json:"type"`
		Function function `json:"function"`
	}
	defs := make([]def, len(tools))
	for i, tl := range tools {
		defs[i] = def{Type: "function", Function: function{tl.Name, tl.Description, tl.InputSchema}}
	}
	b, err := json.Marshal(defs)
	if err != nil {
		t.Fatal(err)
	}
	return len(b)
}

// compactBudgetBytes bounds the compact tool definitions of the SQLite tool
// set in a request. Counted with the tokenizer of the local model
// (Qwen2.5-Coder-1.5B in llama-server, its chat template applied), 5,346
// bytes of them were 1,626 prompt tokens, and the agent's whole first
// request 1,980 tokens; the full definitions were 22,953 bytes, 6,391
// tokens, and the first request 6,745. deadline_search (its compact form
// takes from, to, kinds, parties, renewal_kind and limit, the other filters
// being left to its description) and the renewal_kind filter and grouping
// added about 830 bytes, some 250 tokens at the same ratio: the budget
// grew from 5,500 bytes by that much, no more; without_clause_types (in
// contract_search and contract_aggregate) added 208 bytes more;
// clause_compare (clause_type, parties and contract_type) 533 bytes more.
const compactBudgetBytes = 7095

func TestCompactToolsFitTheBudget(t *testing.T) {
	full := requestBytes(t, sqliteToolSet(t, SchemasFull).Tools())
	compact := requestBytes(t, sqliteToolSet(t, SchemasCompact).Tools())
	t.Logf("tool definitions: full %d bytes (~%d tokens), compact %d bytes (~%d tokens)", full, full*10/36, compact, compact*10/33)
	if compact > compactBudgetBytes {
		t.Errorf("compact tool definitions are %d bytes, over the budget of %d: a small local model pays for every byte on each request", compact, compactBudgetBytes)
	}
	if compact*3 > full {
		t.Errorf("compact tool definitions (%d bytes) are more than a third of the full ones (%d bytes)", compact, full)
	}
}

// schemaView is the part of a generated schema these tests compare.
type schemaView struct {
	Properties map[string]struct {
		Type        string          `json:"type"`
		Description string          `json:"description"`
		Enum        []string        `json:"enum"`
		Default     json.RawMessage `json:"default"`
		Maximum     *float64        `json:"maximum"`
		Items       *struct {
			Type string   `json:"type"`
			Enum []string `json:"enum"`
		} `json:"items"`
	} `json:"properties"`
	Required []string `json:"required"`
}

func parseSchema(t *testing.T, tl Tool) schemaView {
	t.Helper()
	var v schemaView
	if err := json.Unmarshal(tl.InputSchema, &v); err != nil {
		t.Fatalf("%s: %v", tl.Name, err)
	}
	return v
}

// The compact tools are the same tools: same names in the same order, the
// same arguments of the same types (clause_search's shared filters are
// named in its description instead), the same required arguments and the
// same short enums and limits.
func TestCompactToolsAreTheSameTools(t *testing.T) {
	full := sqliteToolSet(t, SchemasFull).Tools()
	compact := sqliteToolSet(t, SchemasCompact).Tools()
	if len(full) != len(compact) {
		t.Fatalf("%d full tools, %d compact", len(full), len(compact))
	}
	for i := range full {
		f, c := full[i], compact[i]
		if f.Name != c.Name {
			t.Fatalf("tool %d: full %s, compact %s", i, f.Name, c.Name)
		}
		if c.Description == "" || len(c.Description) >= len(f.Description) {
			t.Errorf("%s: compact description (%d bytes) is not shorter than the full one (%d)", c.Name, len(c.Description), len(f.Description))
		}
		fs, cs := parseSchema(t, f), parseSchema(t, c)
		if diff := cmp.Diff(fs.Required, cs.Required); diff != "" {
			t.Errorf("%s: required arguments differ (-full +compact):\n%s", c.Name, diff)
		}
		for name, fp := range fs.Properties {
			cp, ok := cs.Properties[name]
			if !ok {
				if (c.Name == NameClauseSearch || c.Name == NameDeadlineSearch) && slices.Contains(filterNames, name) {
					continue
				}
				if c.Name == NameClauseCompare && (slices.Contains(filterNames, name) || slices.Contains(compareTuning, name)) {
					continue // clause_compare's compact schema keeps clause_type, parties and contract_type
				}
				if name == "min_notice_deadline" || name == "max_notice_deadline" {
					continue // compactFilters leaves them to deadline_search
				}
				if name == "include_unverified" {
					continue // compactFilters leaves it to a person who asks for unverified values
				}
				if name == "parties_match" || name == "summary_match" {
					continue // either-or party questions are left out for small models
				}
				if c.Name == NameContractAggregate && (name == "convert_to" || name == "rates") {
					continue // currency conversion with a caller's rates is left out for small models
				}
				t.Errorf("%s: compact schema lacks argument %s", c.Name, name)
				continue
			}
			if cp.Type != fp.Type {
				t.Errorf("%s.%s: type %q in compact, %q in full", c.Name, name, cp.Type, fp.Type)
			}
			if len(fp.Enum) > 0 && len(fp.Enum) <= maxCompactEnum && !slices.Equal(fp.Enum, cp.Enum) {
				t.Errorf("%s.%s: compact enum %v, full %v", c.Name, name, cp.Enum, fp.Enum)
			}
			if len(cp.Enum) > maxCompactEnum || cp.Items != nil && len(cp.Items.Enum) > maxCompactEnum {
				t.Errorf("%s.%s: compact schema repeats a long enum", c.Name, name)
			}
			if name == "limit" && (cp.Maximum == nil || *cp.Maximum != *fp.Maximum) {
				t.Errorf("%s.limit: compact maximum %v, full %v", c.Name, cp.Maximum, *fp.Maximum)
			}
			if cp.Default != nil {
				t.Errorf("%s.%s: compact schema gives a default (%s): leaving the argument out says as much", c.Name, name, cp.Default)
			}
		}
		if c.Name == NameClauseSearch {
			if !containsAll(c.Description, "contract_search", "filters") {
				t.Errorf("clause_search's compact description does not say it takes the contract filters: %q", c.Description)
			}
		}
	}
	// The contract types, dropped as enums, are listed once.
	cs := parseSchema(t, compact[0])
	for _, typ := range []string{"License Agreement", "Strategic Alliance", "Distributor"} {
		if !containsAll(cs.Properties["contract_type"].Description, typ) {
			t.Errorf("contract_search's compact contract_type does not list %q: %q", typ, cs.Properties["contract_type"].Description)
		}
	}
}

func containsAll(s string, subs ...string) bool {
	for _, sub := range subs {
		if !strings.Contains(s, sub) {
			return false
		}
	}
	return true
}

// A compact set runs calls exactly as a full one: the modes differ only in
// how the tools are described.
func TestCompactSetRunsTheSameCalls(t *testing.T) {
	ctx := context.Background()
	full, compact := &recorder{}, &recorder{}
	fs := New(full, Options{Now: fixedNow})
	cs := New(compact, Options{Now: fixedNow, Schemas: SchemasCompact})
	args := json.RawMessage(`{"query":"audit","contract_type":"Service","min_end_date":"2020-01-01"}`)
	for _, s := range []*Set{fs, cs} {
		if _, err := s.Call(ctx, NameClauseSearch, args); err != nil {
			t.Fatal(err)
		}
	}
	if diff := cmp.Diff(*full.clauseQ, *compact.clauseQ); diff != "" {
		t.Errorf("clause_search differs (-full +compact):\n%s", diff)
	}
}

func TestWithSchemasIsAView(t *testing.T) {
	s := sqliteToolSet(t, SchemasFull)
	v := s.WithSchemas(SchemasCompact)
	if s.Schemas() != SchemasFull || v.Schemas() != SchemasCompact {
		t.Fatalf("modes: set %v, view %v", s.Schemas(), v.Schemas())
	}
	if requestBytes(t, v.Tools()) >= requestBytes(t, s.Tools()) {
		t.Error("the compact view describes the tools at full length")
	}
	if diff := cmp.Diff(s.Names(), v.Names()); diff != "" {
		t.Errorf("names differ (-set +view):\n%s", diff)
	}
	if _, err := v.Call(context.Background(), NameStatuteSearch, json.RawMessage(`{"query":"arbitration"}`)); err != nil {
		t.Errorf("calling through the view: %v", err)
	}
	if got := v.WithSchemas(SchemasFull).Tools(); !cmp.Equal(got, s.Tools()) {
		t.Error("a full view of the compact view differs from the set")
	}
}

// A tool registered without a Compact gets a derived one: the first
// sentence of its description, arguments without descriptions.
func TestRegisterDerivesCompact(t *testing.T) {
	type in struct {
		Word string `json:"word" jsonschema:"A word to echo back, exactly as given."`
		Loud bool   `json:"loud,omitempty" jsonschema:"Shout it." compact:"upper case"`
	}
	s := New(nil, Options{Schemas: SchemasCompact})
	err := Register(s, "echo", "Echoes a word. It is useful for testing and for nothing else.",
		func(_ context.Context, in in) (in, error) { return in, nil }, nil)
	if err != nil {
		t.Fatal(err)
	}
	tl := s.Tools()[len(s.Tools())-1]
	if tl.Description != "Echoes a word." {
		t.Errorf("compact description = %q", tl.Description)
	}
	sch := parseSchema(t, tl)
	if d := sch.Properties["word"].Description; d != "" {
		t.Errorf("word has description %q in compact mode", d)
	}
	if d := sch.Properties["loud"].Description; d != "upper case" {
		t.Errorf("loud's compact description = %q", d)
	}
}

// TestCompactToolsGolden pins what a small model sees. Refresh with:
// go test ./internal/tools -run Golden -update
func TestCompactToolsGolden(t *testing.T) {
	got, err := json.MarshalIndent(sqliteToolSet(t, SchemasCompact).Tools(), "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	got = append(got, '\n')
	path := filepath.Join("testdata", "tools.compact.golden.json")
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if diff := cmp.Diff(string(want), string(got)); diff != "" {
		t.Errorf("compact tool list changed (-golden +got); run with -update if intended:\n%s", diff)
	}
}

// The limit a schema announces as its default is the one the tool applies
// when the caller leaves it out, and the one the store would apply to a
// query without one. (Compact schemas announce no defaults.)
func TestSchemaLimitDefaultsMatchCode(t *testing.T) {
	required := map[string]string{
		NameClauseSearch: `{"query":"x"}`, NameStatuteSearch: `{"query":"x"}`,
	}
	// What each store backend applies to a zero Limit.
	storeDefault := map[string]func() (int, error){
		NameContractSearch:    graph.ContractQuery{}.EffectiveLimit,
		NameContractAggregate: graph.AggregateQuery{}.EffectiveLimit,
		NamePartySearch:       graph.PartyQuery{}.EffectiveLimit,
		NameClauseSearch:      graph.ClauseQuery{}.EffectiveLimit,
		NameDeadlineSearch:    graph.DeadlineQuery{}.EffectiveLimit,
	}
	checked := 0
	for _, tl := range sqliteToolSet(t, SchemasFull).Tools() {
		p, ok := parseSchema(t, tl).Properties["limit"]
		if !ok {
			continue
		}
		var schemaDefault int
		if err := json.Unmarshal(p.Default, &schemaDefault); err != nil {
			t.Errorf("%s: limit has no integer default: %s", tl.Name, p.Default)
			continue
		}
		args := `{}`
		if r, ok := required[tl.Name]; ok {
			args = r
		}
		var applied int
		switch q := compiled(t, tl.Name, args).(type) {
		case graph.ContractQuery:
			applied = q.Limit
		case graph.AggregateQuery:
			applied = q.Limit
		case graph.PartyQuery:
			applied = q.Limit
		case graph.ClauseQuery:
			applied = q.Limit
		case graph.StatuteQuery:
			applied = q.Limit
		case graph.DeadlineQuery:
			applied = q.Limit
		default:
			t.Fatalf("%s: no query recorded", tl.Name)
		}
		if applied != schemaDefault {
			t.Errorf("%s: schema says limit defaults to %d, the tool applies %d", tl.Name, schemaDefault, applied)
		}
		if f := storeDefault[tl.Name]; f != nil {
			if n, err := f(); err != nil || n != schemaDefault {
				t.Errorf("%s: schema default %d, store default %d (%v)", tl.Name, schemaDefault, n, err)
			}
		}
		checked++
	}
	if checked != 6 {
		t.Errorf("checked %d limits, want 6", checked)
	}
}
