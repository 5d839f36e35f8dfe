package tools_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/jsonschema-go/jsonschema"

	"github.com/contractgraph/contractgraph/internal/contract"
	"github.com/contractgraph/contractgraph/internal/graph"
	"github.com/contractgraph/contractgraph/internal/graph/sqlite"
	"github.com/contractgraph/contractgraph/internal/importer"
	"github.com/contractgraph/contractgraph/internal/sharedtest"
	"github.com/contractgraph/contractgraph/internal/tools"
)

// referenceStore imports the reference extraction (510 contracts) into a
// real SQLite store in a temporary directory.
func referenceStore(t testing.TB, shared string) graph.Store {
	t.Helper()
	ctx := context.Background()
	store, err := sqlite.Open(filepath.Join(t.TempDir(), "reference.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	path := filepath.Join(shared, "data", "legal-tech-chat", "contract_data.json")
	var batch []*contract.Contract
	flush := func() {
		outs, err := store.PutContracts(ctx, batch)
		if err != nil {
			t.Fatalf("put: %v", err)
		}
		for _, o := range outs {
			if o.Status == graph.PutFailed {
				t.Errorf("put %s: %v", o.ID, o.Err)
			}
		}
		batch = batch[:0]
	}
	n := 0
	err = importer.Read(ctx, path, importer.Options{}, func(r importer.Record) error {
		if r.Err != nil {
			t.Errorf("read %s: %v", path, r.Err)
			return nil
		}
		n++
		batch = append(batch, r.Contract)
		if len(batch) == 100 {
			flush()
		}
		return nil
	})
	if err != nil {
		t.Fatalf("read %s: %v", path, err)
	}
	flush()
	if n != 510 {
		t.Fatalf("imported %d contracts, want 510", n)
	}
	return store
}

// devCall is one entry of dev_gold.json: a question, its tool call, what to
// check and the gold result computed from the raw reference data.
type devCall struct {
	ID         string          `json:"id"`
	Q          string          `json:"q"`
	Tool       string          `json:"tool"`
	Args       json.RawMessage `json:"args"`
	Check      string          `json:"check"`
	AcceptKeys []string        `json:"accept_keys"`
	Result     goldResult      `json:"result"`
}

type goldResult struct {
	TotalCount  int `json:"total_count"`
	TotalGroups int `json:"total_groups"`
	Examples    []struct {
		ContractID string `json:"contract_id"`
		Name       string `json:"name"`
	} `json:"examples"`
	Groups []goldGroup `json:"groups"`
}

type goldGroup struct {
	Key   any      `json:"key"` // end_year keys are numbers in the gold file
	Value *float64 `json:"value"`
	Count int      `json:"count"`
}

func (g goldGroup) key() string { return fmt.Sprint(g.Key) }

func readDevCalls(t testing.TB, shared string) []devCall {
	t.Helper()
	var calls, gold []devCall
	for _, f := range []struct {
		name string
		v    *[]devCall
	}{{"dev_calls.json", &calls}, {"dev_gold.json", &gold}} {
		b, err := os.ReadFile(filepath.Join(shared, "questions", f.name))
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(b, f.v); err != nil {
			t.Fatalf("%s: %v", f.name, err)
		}
	}
	if len(calls) != 22 || len(gold) != len(calls) {
		t.Fatalf("got %d calls and %d gold answers, want 22 each", len(calls), len(gold))
	}
	for i := range calls {
		if calls[i].ID != gold[i].ID || !jsonEqual(calls[i].Args, gold[i].Args) {
			t.Fatalf("dev_calls.json and dev_gold.json disagree at %d (%s)", i, calls[i].ID)
		}
	}
	return gold
}

func jsonEqual(a, b json.RawMessage) bool {
	var x, y any
	return json.Unmarshal(a, &x) == nil && json.Unmarshal(b, &y) == nil && cmp.Equal(x, y)
}

// result is the union of the tool results the checks look at.
type result struct {
	TotalCount  int           `json:"total_count"`
	TotalGroups int           `json:"total_groups"`
	Examples    []examplerRow `json:"examples"`
	Groups      []graph.Group `json:"groups"`
}

type examplerRow struct {
	ContractID    string `json:"contract_id"`
	Name          string `json:"name"`
	ContractCount int    `json:"contract_count"`
}

// normalised explains, for the calls whose right answer differs from the
// raw-data gold because the store normalises values, what the normalised
// answer must satisfy. The raw gold counts "NY" and "New York" apart and
// treats each spelling of a party as a different party.
var normalised = map[string]func(t *testing.T, gold devCall, got result){
	// Governing-law states: the raw data has "NY" (57) and "New York" (24) as
	// two states; normalised they are one, so NY leads with at least 81.
	"d02": func(t *testing.T, gold devCall, got result) {
		if len(got.Groups) == 0 || got.Groups[0].Key != "NY" {
			t.Fatalf("top state = %+v, want NY", got.Groups)
		}
		var ny, newYork int
		for _, g := range gold.Result.Groups {
			switch g.key() {
			case "NY":
				ny = g.Count
			case "New York":
				newYork = g.Count
			}
		}
		if got.Groups[0].Count < ny+newYork {
			t.Errorf("NY count = %d, want at least %d (NY) + %d (New York)", got.Groups[0].Count, ny, newYork)
		}
		for _, g := range got.Groups {
			if g.Key == "New York" {
				t.Errorf("the state New York is still a group of its own: %+v", got.Groups)
			}
		}
		if got.TotalGroups >= gold.Result.TotalGroups {
			t.Errorf("total_groups = %d, want fewer than the raw %d once spellings merge", got.TotalGroups, gold.Result.TotalGroups)
		}
	},
	// Top party: merged spellings can only add contracts to a party, so the
	// leader is one of the accepted keys with at least the raw count. The
	// store merges "Franchisee" and "franchisee" and shows the party as
	// "Franchisee" (contract.PreferredName), whichever spelling it saw
	// first, so the key must match an accepted one exactly.
	"d05": func(t *testing.T, gold devCall, got result) {
		if len(got.Groups) == 0 || !slices.Contains(gold.AcceptKeys, got.Groups[0].Key) {
			t.Fatalf("top party = %+v, want one of %q", got.Groups, gold.AcceptKeys)
		}
		if got.Groups[0].Count < gold.Result.Groups[0].Count {
			t.Errorf("top party count = %d, want at least %d", got.Groups[0].Count, gold.Result.Groups[0].Count)
		}
	},
	// Parties in Canada: duplicate spellings of one party merge, so there
	// are at most as many as in the raw data, and not many fewer.
	"d10": func(t *testing.T, gold devCall, got result) {
		want := gold.Result.TotalCount
		if got.TotalCount > want || got.TotalCount < want*8/10 {
			t.Errorf("parties in CA = %d, want between %d and %d (raw %d, less merged duplicates)", got.TotalCount, want*8/10, want, want)
		}
	},
	// Party countries count contracts. The raw data has one contract whose
	// only US party is the redacted name "[ * * * ]", which the importer
	// drops (it names no party), so US is recomputed from the raw data
	// counting only parties with a name.
	"d16": func(t *testing.T, gold devCall, got result) {
		wantUS := 0
		for _, c := range rawContracts(t) {
			for _, p := range c.Parties {
				if p.Location != nil && p.Location.Country == "US" && contract.MatchKey(p.Name) != "" {
					wantUS++
					break
				}
			}
		}
		if len(got.Groups) == 0 || got.Groups[0].Key != "US" || got.Groups[0].Count != wantUS {
			t.Errorf("top group = %+v, want US with %d contracts", got.Groups, wantUS)
		}
		var gotKeys, goldKeys []string
		for _, g := range got.Groups {
			gotKeys = append(gotKeys, g.Key)
		}
		for _, g := range gold.Result.Groups {
			goldKeys = append(goldKeys, g.key())
		}
		if diff := cmp.Diff(goldKeys, gotKeys); diff != "" {
			t.Errorf("top party countries (-gold +got):\n%s", diff)
		}
		for i, g := range got.Groups[1:] {
			if w := gold.Result.Groups[i+1]; g.Count != w.Count {
				t.Errorf("%s: %d contracts, want %d", g.Key, g.Count, w.Count)
			}
		}
	},
	// Delaware law: the raw data spells the state "Delaware" (21 contracts)
	// and "DE" (17); normalised they are one state, so more contracts match.
	// The expected count is recomputed from the raw data with the two
	// spellings merged.
	"d17": func(t *testing.T, gold devCall, got result) {
		want := 0
		for _, c := range rawContracts(t) {
			if c.GoverningLaw == nil || c.GoverningLaw.Country != "US" || !slices.Contains(c.clauseTypes(), contract.GroupLiability) {
				continue
			}
			if st, ok := contract.NormalizeUSState(c.GoverningLaw.State); ok && st == "DE" {
				want++
			}
		}
		if got.TotalCount != want || want <= gold.Result.TotalCount {
			t.Errorf("total_count = %d, want %d (raw \"Delaware\" alone: %d)", got.TotalCount, want, gold.Result.TotalCount)
		}
	},
	// Average Franchise term: the gold script measures a term as end_date
	// minus effective_date, which counts one contract whose end date
	// precedes its start as -225 days; the store uses the contract's stated
	// ISO 8601 duration. Recomputed from the raw durations.
	"d07": func(t *testing.T, gold devCall, got result) {
		var sum float64
		var n, count int
		for _, c := range rawContracts(t) {
			if c.contractType() != "Franchise" {
				continue
			}
			count++
			if days, err := contract.ParseISODuration(c.Duration); c.Duration != "" && err == nil {
				sum += float64(days)
				n++
			}
		}
		want := sum / float64(n)
		if len(got.Groups) != 1 || got.Groups[0].Count != count || count != gold.Result.Groups[0].Count || !approx(got.Groups[0].Value, &want) {
			t.Errorf("groups = %+v, want one group of %d contracts with value %v", got.Groups, count, want)
		}
	},
	// Highest average amount by type: the reference's fused type "Affiliate
	// AgreementDevelopment" is split (by title) into Affiliate Agreement and
	// Development, so the averages are recomputed from the raw data with
	// contract.ParseContractType, the mapping the importer applies.
	"d09": func(t *testing.T, gold devCall, got result) {
		sums, counts := map[string]float64{}, map[string]int{}
		for _, c := range rawContracts(t) {
			if c.TotalAmount != nil && c.contractType() != "" {
				sums[c.contractType()] += *c.TotalAmount
				counts[c.contractType()]++
			}
		}
		best := ""
		for k := range sums {
			if best == "" || sums[k]/float64(counts[k]) > sums[best]/float64(counts[best]) {
				best = k
			}
		}
		want := sums[best] / float64(counts[best])
		if len(got.Groups) == 0 || got.Groups[0].Key != best || !approx(got.Groups[0].Value, &want) {
			t.Errorf("top group = %+v, want %s with %v", got.Groups, best, want)
		}
	},
	// Parties with 4+ contracts: merging spellings can only add parties
	// that reach 4 contracts.
	"d18": func(t *testing.T, gold devCall, got result) {
		if got.TotalCount < gold.Result.TotalCount {
			t.Errorf("parties with 4+ contracts = %d, want at least %d", got.TotalCount, gold.Result.TotalCount)
		}
		names := map[string]bool{}
		for _, e := range got.Examples {
			names[e.Name] = true
			if e.ContractCount < 4 {
				t.Errorf("party %s has %d contracts, fewer than min_contracts 4", e.Name, e.ContractCount)
			}
		}
		// The gold spellings are the display names a user expects
		// ("Franchisee", not the "franchisee" some contracts write).
		for _, e := range gold.Result.Examples {
			if !names[e.Name] {
				t.Errorf("party %q missing from the parties with 4+ contracts, got %+v", e.Name, got.Examples)
			}
		}
	},
}

func checkGold(t *testing.T, gold devCall, out json.RawMessage) {
	t.Helper()
	var got result
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("result %s: %v", out, err)
	}
	if fn, ok := normalised[gold.ID]; ok {
		fn(t, gold, got)
		return
	}
	want := gold.Result
	switch gold.Check {
	case "total_count":
		if got.TotalCount != want.TotalCount {
			t.Errorf("total_count = %d, want %d", got.TotalCount, want.TotalCount)
		}
	case "first_id":
		if len(got.Examples) == 0 || got.Examples[0].ContractID != want.Examples[0].ContractID {
			t.Errorf("first example = %+v, want %s", got.Examples, want.Examples[0].ContractID)
		}
	case "top_group":
		if len(got.Groups) == 0 {
			t.Fatalf("no groups, want top %v", want.Groups[0].key())
		}
		top, wantTop := got.Groups[0], want.Groups[0]
		if top.Key != wantTop.key() || top.Count != wantTop.Count || !approx(top.Value, wantTop.Value) {
			t.Errorf("top group = %s, want %s", groupString(top), groupString(graph.Group{Key: wantTop.key(), Value: wantTop.Value, Count: wantTop.Count}))
		}
	case "single_value", "all_groups":
		if got.TotalGroups != want.TotalGroups || len(got.Groups) != len(want.Groups) {
			t.Fatalf("groups = %+v, want %+v", got.Groups, want.Groups)
		}
		for i, g := range got.Groups {
			w := want.Groups[i]
			if g.Key != w.key() || g.Count != w.Count || !approx(g.Value, w.Value) {
				t.Errorf("group %d = %s, want key %s value %v count %d", i, groupString(g), w.key(), deref(w.Value), w.Count)
			}
		}
	default:
		t.Fatalf("check %q has no rule here", gold.Check)
	}
}

func approx(a, b *float64) bool {
	if a == nil || b == nil {
		return a == b
	}
	return math.Abs(*a-*b) <= 1e-6*math.Max(1, math.Abs(*b))
}

func deref(v *float64) any {
	if v == nil {
		return nil
	}
	return *v
}

func groupString(g graph.Group) string {
	return fmt.Sprintf("{key %s value %v count %d}", g.Key, deref(g.Value), g.Count)
}

// TestDevCalls runs the 22 dev calls through the same entry point the agent,
// the API and MCP use, on the reference data in a real SQLite store, and
// compares each with the gold answer by its check kind.
func TestDevCalls(t *testing.T) {
	shared := sharedtest.Dir(t)
	store := referenceStore(t, shared)
	set := tools.New(store, tools.Options{Now: func() time.Time { return time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC) }})
	for _, gold := range readDevCalls(t, shared) {
		t.Run(gold.ID, func(t *testing.T) {
			out, err := set.Call(context.Background(), gold.Tool, gold.Args)
			if err != nil {
				t.Fatalf("%s (%s %s): %v", gold.Q, gold.Tool, gold.Args, err)
			}
			checkGold(t, gold, out)
		})
	}
}

// TestNormalisedFilters checks on real data that spellings of one value give
// one answer, that party filters ignore case and punctuation, and that
// as_of makes "active" reproducible.
func TestNormalisedFilters(t *testing.T) {
	shared := sharedtest.Dir(t)
	store := referenceStore(t, shared)
	ctx := context.Background()
	clock := time.Date(2015, 6, 30, 12, 0, 0, 0, time.UTC)
	set := tools.New(store, tools.Options{Now: func() time.Time { return clock }})

	call := func(tool, args string) json.RawMessage {
		t.Helper()
		out, err := set.Call(ctx, tool, json.RawMessage(args))
		if err != nil {
			t.Fatalf("%s %s: %v", tool, args, err)
		}
		return out
	}
	same := []struct {
		tool string
		args []string
	}{
		{tools.NameContractSearch, []string{`{"governing_law_state":"New York"}`, `{"governing_law_state":"NY"}`, `{"governing_law_country":"United States","governing_law_state":"new york"}`}},
		{tools.NameContractAggregate, []string{`{"governing_law_country":"United States","group_by":"governing_law_state"}`, `{"governing_law_country":"US","group_by":"governing_law_state"}`, `{"governing_law_country":"USA","group_by":"governing_law_state"}`}},
		{tools.NameContractSearch, []string{`{"parties":["Excite"]}`, `{"parties":["excite"]}`, `{"parties":["EXCITE"]}`, `{"parties":["  Excite "]}`}},
		{tools.NameContractSearch, []string{`{"parties":["VerticalNet, Inc."]}`, `{"parties":["verticalnet inc"]}`, `{"parties":["VERTICALNET INC."]}`}},
		{tools.NamePartySearch, []string{`{"country":"Canada"}`, `{"country":"CA"}`}},
		// With as_of omitted, "active" is judged on the clock's today.
		{tools.NameContractSearch, []string{`{"active":true}`, `{"active":true,"as_of":"2015-06-30"}`}},
	}
	for _, tt := range same {
		first := call(tt.tool, tt.args[0])
		var r result
		if err := json.Unmarshal(first, &r); err != nil || (r.TotalCount == 0 && len(r.Groups) == 0) {
			t.Errorf("%s %s: empty answer %s, so the comparison would prove nothing", tt.tool, tt.args[0], first)
		}
		for _, args := range tt.args[1:] {
			if got := call(tt.tool, args); string(got) != string(first) {
				t.Errorf("%s: %s and %s answer differently:\n%s\n%s", tt.tool, tt.args[0], args, first, got)
			}
		}
	}

	// as_of reproducibility: the same call on two different days gives the
	// same answer when as_of is fixed, and a different one when it is not.
	fixed := `{"active":true,"as_of":"2015-06-30"}`
	before := call(tools.NameContractSearch, fixed)
	beforeToday := call(tools.NameContractSearch, `{"active":true}`)
	clock = time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	if after := call(tools.NameContractSearch, fixed); string(after) != string(before) {
		t.Errorf("fixed as_of answers changed with the clock:\n%s\n%s", before, after)
	}
	if afterToday := call(tools.NameContractSearch, `{"active":true}`); string(afterToday) == string(beforeToday) {
		t.Errorf("default as_of did not follow the clock: both %s", afterToday)
	}
}

// TestArgErrorsOnRealStore checks that invalid arguments are refused before
// reaching the store, naming the field and the valid values.
func TestArgErrorsOnRealStore(t *testing.T) {
	shared := sharedtest.Dir(t)
	set := tools.New(referenceStore(t, shared), tools.Options{})
	for _, tt := range []struct{ tool, args, field, valid string }{
		{tools.NameContractSearch, `{"contract_type":"Distribution Deal"}`, "contract_type", "Distributor"},
		{tools.NameContractAggregate, `{"group_by":"country"}`, "group_by", "party_country"},
		{tools.NameContractSearch, `{"max_end_date":"31/12/2020"}`, "max_end_date", ""},
	} {
		_, err := set.Call(context.Background(), tt.tool, json.RawMessage(tt.args))
		var ae *tools.ArgError
		if !errors.As(err, &ae) || ae.Field != tt.field {
			t.Errorf("%s %s: error %v, want ArgError on %s", tt.tool, tt.args, err, tt.field)
			continue
		}
		if tt.valid != "" && !strings.Contains(err.Error(), tt.valid) {
			t.Errorf("%s: message %q does not list %q", tt.args, err, tt.valid)
		}
	}
	_, err := set.Call(context.Background(), tools.NameGetContract, json.RawMessage(`{"contract_id":"no such contract"}`))
	if !errors.Is(err, graph.ErrNotFound) {
		t.Errorf("get_contract of a missing id: %v, want ErrNotFound", err)
	}
}

// rawContract is a contract of contract_data.json as the gold script sees it.
type rawContract struct {
	FileID       string   `json:"file_id"`
	ContractType string   `json:"contract_type"`
	Duration     string   `json:"duration"`
	TotalAmount  *float64 `json:"total_amount"`
	GoverningLaw *struct {
		Country string `json:"country"`
		State   string `json:"state"`
	} `json:"governing_law"`
	Parties []struct {
		Name     string `json:"name"`
		Location *struct {
			Country string `json:"country"`
		} `json:"location"`
	} `json:"parties"`
	Clauses []struct {
		ClauseType string `json:"clause_type"`
	} `json:"clauses"`
}

func (c rawContract) contractType() string {
	t, _ := contract.ParseContractType(c.ContractType, c.FileID)
	return t
}

func (c rawContract) clauseTypes() []string {
	var out []string
	for _, cl := range c.Clauses {
		out = append(out, cl.ClauseType)
	}
	return out
}

// rawContracts reads contract_data.json directly, for the answers that are
// recomputed under the store's normalisation.
func rawContracts(t *testing.T) []rawContract {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(sharedtest.Dir(t), "data", "legal-tech-chat", "contract_data.json"))
	if err != nil {
		t.Fatal(err)
	}
	var out []rawContract
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatalf("contract_data.json: %v", err)
	}
	return out
}

// TestDevCallArgsMatchSchemas checks that the schema an LLM is given
// accepts every dev call's arguments, so a model that follows the schema
// can ask each of the 22 questions.
func TestDevCallArgsMatchSchemas(t *testing.T) {
	shared := sharedtest.Dir(t)
	set := tools.New(nil, tools.Options{})
	resolved := map[string]*jsonschema.Resolved{}
	for _, tool := range set.Tools() {
		var s jsonschema.Schema
		if err := json.Unmarshal(tool.InputSchema, &s); err != nil {
			t.Fatalf("%s: %v", tool.Name, err)
		}
		rs, err := s.Resolve(nil)
		if err != nil {
			t.Fatalf("%s: resolve schema: %v", tool.Name, err)
		}
		resolved[tool.Name] = rs
	}
	for _, c := range readDevCalls(t, shared) {
		var args map[string]any
		if err := json.Unmarshal(c.Args, &args); err != nil {
			t.Fatal(err)
		}
		if err := resolved[c.Tool].Validate(args); err != nil {
			t.Errorf("%s: %s arguments %s do not match the schema: %v", c.ID, c.Tool, c.Args, err)
		}
	}
	// And the schema refuses what the tools refuse.
	for _, bad := range []string{`{"contract_type":"Lease"}`, `{"limit":51}`, `{"order_by":"price"}`, `{"min_end_date":"2020/01/01"}`, `{"colour":"red"}`} {
		var args map[string]any
		if err := json.Unmarshal([]byte(bad), &args); err != nil {
			t.Fatal(err)
		}
		if err := resolved[tools.NameContractSearch].Validate(args); err == nil {
			t.Errorf("contract_search schema accepts %s", bad)
		}
	}
}
