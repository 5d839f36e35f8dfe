package tools

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/contractgraph/contractgraph/internal/contract"
	"github.com/contractgraph/contractgraph/internal/graph"
)

var update = flag.Bool("update", false, "rewrite golden files")

// recorder is a graph.Store that records the queries it receives and
// answers with fixed results; it lets the tests see exactly what the tools
// layer compiles a call into.
type recorder struct {
	contractQ  *graph.ContractQuery
	aggregateQ *graph.AggregateQuery
	partyQ     *graph.PartyQuery
	clauseQ    *graph.ClauseQuery
	deadlineQ  *graph.DeadlineQuery
	contracts  map[string]*contract.Contract
	err        error
}

func (r *recorder) PutContracts(context.Context, []*contract.Contract) ([]graph.PutOutcome, error) {
	return nil, errors.New("recorder: read-only")
}

func (r *recorder) GetContract(_ context.Context, id string) (*contract.Contract, error) {
	if c, ok := r.contracts[id]; ok {
		cp := *c
		return &cp, nil
	}
	return nil, graph.ErrNotFound
}

func (r *recorder) Contracts(context.Context, func(*contract.Contract) error) error { return nil }

func (r *recorder) SearchDeadlines(_ context.Context, q graph.DeadlineQuery) (graph.DeadlineResult, error) {
	r.deadlineQ = &q
	return graph.DeadlineResult{From: q.From, To: q.To, Deadlines: []graph.DeadlineHit{}}, r.err
}

func (r *recorder) SearchContracts(_ context.Context, q graph.ContractQuery) (graph.ContractResult, error) {
	r.contractQ = &q
	return graph.ContractResult{TotalCount: 7}, r.err
}

func (r *recorder) AggregateContracts(_ context.Context, q graph.AggregateQuery) (graph.AggregateResult, error) {
	r.aggregateQ = &q
	return graph.AggregateResult{}, r.err
}

func (r *recorder) SearchParties(_ context.Context, q graph.PartyQuery) (graph.PartyResult, error) {
	r.partyQ = &q
	return graph.PartyResult{}, r.err
}

func (r *recorder) SearchClauses(_ context.Context, q graph.ClauseQuery) ([]graph.ClauseHit, error) {
	r.clauseQ = &q
	return nil, r.err
}

func (r *recorder) Stats(context.Context) (graph.Stats, error) { return graph.Stats{}, nil }
func (r *recorder) Close() error                               { return nil }

var fixedNow = func() time.Time { return time.Date(2026, 3, 14, 15, 9, 26, 0, time.UTC) }

func TestContractSearchCompilesQuery(t *testing.T) {
	yes := true
	tests := []struct {
		name string
		args string
		want graph.ContractQuery
	}{
		{
			name: "defaults",
			args: `{}`,
			want: graph.ContractQuery{Filter: graph.Filter{AsOf: "2026-03-14"}, OrderBy: "effective_date", Desc: true, Limit: 5},
		},
		{
			name: "null args",
			args: `null`,
			want: graph.ContractQuery{Filter: graph.Filter{AsOf: "2026-03-14"}, OrderBy: "effective_date", Desc: true, Limit: 5},
		},
		{
			name: "names normalised",
			args: `{"contract_type":"distributor","governing_law_country":"United States","governing_law_state":"New York",
				"party_country":"People's Republic of China","clause_types":["confidentiality & non-disclosure","cap on liability"],
				"parties":["  Acme Corp. ", "Globex"],"order_by":"TOTAL_AMOUNT","order":"asc","limit":50}`,
			want: graph.ContractQuery{
				Filter: graph.Filter{
					ContractType: "Distributor", GoverningLawCountry: "US", GoverningLawState: "NY", PartyCountry: "CN",
					ClauseTypes: []string{"Confidentiality & Non-Disclosure", "Cap On Liability"},
					Parties:     []string{"Acme Corp.", "Globex"}, AsOf: "2026-03-14",
				},
				OrderBy: "total_amount", Limit: 50,
			},
		},
		{
			name: "paging",
			args: `{"limit":10,"offset":20}`,
			want: graph.ContractQuery{Filter: graph.Filter{AsOf: "2026-03-14"}, OrderBy: "effective_date", Desc: true, Limit: 10, Offset: 20},
		},
		{
			name: "state without country",
			args: `{"governing_law_state":"delaware"}`,
			want: graph.ContractQuery{Filter: graph.Filter{GoverningLawState: "DE", AsOf: "2026-03-14"}, OrderBy: "effective_date", Desc: true, Limit: 5},
		},
		{
			name: "canadian province",
			args: `{"governing_law_country":"Canada","governing_law_state":"Ontario"}`,
			want: graph.ContractQuery{Filter: graph.Filter{GoverningLawCountry: "CA", GoverningLawState: "ON", AsOf: "2026-03-14"}, OrderBy: "effective_date", Desc: true, Limit: 5},
		},
		{
			name: "legacy fused contract type",
			args: `{"contract_type":"Affiliate AgreementDevelopment"}`,
			want: graph.ContractQuery{Filter: graph.Filter{ContractType: "Affiliate Agreement", AsOf: "2026-03-14"}, OrderBy: "effective_date", Desc: true, Limit: 5},
		},
		{
			name: "dates active monetary",
			args: `{"min_effective_date":"2019-10-01","max_effective_date":"2019-12-31","min_end_date":"2020-01-01",
				"active":true,"as_of":"2015-06-30","monetary_value":{"operator":">=","value":1e7},"summary_search":"  cloud   hosting "}`,
			want: graph.ContractQuery{
				Filter: graph.Filter{
					MinEffectiveDate: "2019-10-01", MaxEffectiveDate: "2019-12-31", MinEndDate: "2020-01-01",
					Active: &yes, AsOf: "2015-06-30", Monetary: &graph.Monetary{Op: ">=", Value: new(1e7)}, SummarySearch: "cloud hosting",
				},
				OrderBy: "effective_date", Desc: true, Limit: 5,
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := &recorder{}
			s := New(rec, Options{Now: fixedNow})
			out, err := s.Call(context.Background(), NameContractSearch, json.RawMessage(tt.args))
			if err != nil {
				t.Fatalf("Call: %v", err)
			}
			if diff := cmp.Diff(tt.want, *rec.contractQ); diff != "" {
				t.Errorf("query (-want +got):\n%s", diff)
			}
			if got, want := string(out), `{"total_count":7,"examples":[]}`; got != want {
				t.Errorf("result = %s, want %s", got, want)
			}
		})
	}
}

// The same question asked with a name or a code must compile to the same
// query, so it gets the same answer.
func TestSpellingsGiveSameQuery(t *testing.T) {
	pairs := [][2]string{
		{`{"governing_law_state":"New York"}`, `{"governing_law_state":"NY"}`},
		{`{"governing_law_country":"United States"}`, `{"governing_law_country":"US"}`},
		{`{"governing_law_country":"USA","governing_law_state":"new york"}`, `{"governing_law_country":"us","governing_law_state":"N.Y."}`},
		{`{"party_country":"United Kingdom"}`, `{"party_country":"GB"}`},
		{`{"clause_types":["governing law"]}`, `{"clause_types":["Governing Law"]}`},
		{`{"contract_type":"license"}`, `{"contract_type":"License Agreement"}`},
	}
	for _, p := range pairs {
		var got [2]graph.AggregateQuery
		for i, args := range p {
			rec := &recorder{}
			if _, err := New(rec, Options{Now: fixedNow}).Call(context.Background(), NameContractAggregate, json.RawMessage(args)); err != nil {
				t.Fatalf("%s: %v", args, err)
			}
			got[i] = *rec.aggregateQ
		}
		if diff := cmp.Diff(got[0], got[1]); diff != "" {
			t.Errorf("%s and %s differ (-first +second):\n%s", p[0], p[1], diff)
		}
	}
}

// A limit above a tool's maximum asks for the most examples there are; it
// never changes a count, so the call runs with the maximum.
func TestLimitAboveMaximumIsLowered(t *testing.T) {
	ctx := context.Background()
	rec := &recorder{}
	s := New(rec, Options{Now: fixedNow})
	for _, tc := range []struct {
		tool, args string
		got        func() int
		want       int
	}{
		{NameContractSearch, `{"contract_type":"Distributor","limit":100}`, func() int { return rec.contractQ.Limit }, graph.ContractLimits.Max},
		{NameContractAggregate, `{"group_by":"party","limit":1000}`, func() int { return rec.aggregateQ.Limit }, graph.AggregateLimits.Max},
		{NamePartySearch, `{"country":"CA","limit":500}`, func() int { return rec.partyQ.Limit }, graph.PartyLimits.Max},
		{NameClauseSearch, `{"query":"termination","limit":99}`, func() int { return rec.clauseQ.Limit }, graph.ClauseLimits.Max},
	} {
		if _, err := s.Call(ctx, tc.tool, json.RawMessage(tc.args)); err != nil {
			t.Errorf("%s %s: %v", tc.tool, tc.args, err)
			continue
		}
		if got := tc.got(); got != tc.want {
			t.Errorf("%s %s: limit %d, want the maximum %d", tc.tool, tc.args, got, tc.want)
		}
	}
}

func TestAggregatePartyClauseQueries(t *testing.T) {
	ctx := context.Background()
	rec := &recorder{}
	s := New(rec, Options{Now: fixedNow})

	if _, err := s.Call(ctx, NameContractAggregate, json.RawMessage(`{"group_by":"party","order":"asc"}`)); err != nil {
		t.Fatal(err)
	}
	wantAgg := graph.AggregateQuery{Filter: graph.Filter{AsOf: "2026-03-14"}, GroupBy: "party", Metric: "count", Asc: true, Limit: 10}
	if diff := cmp.Diff(wantAgg, *rec.aggregateQ); diff != "" {
		t.Errorf("aggregate (-want +got):\n%s", diff)
	}

	if _, err := s.Call(ctx, NamePartySearch, json.RawMessage(`{"country":"Canada","min_contracts":2,"contract_type":"supply"}`)); err != nil {
		t.Fatal(err)
	}
	wantParty := graph.PartyQuery{Country: "CA", ContractType: "Supply", MinContracts: 2, OrderBy: "contract_count", Desc: true, Limit: 10}
	if diff := cmp.Diff(wantParty, *rec.partyQ); diff != "" {
		t.Errorf("party (-want +got):\n%s", diff)
	}
	if _, err := s.Call(ctx, NamePartySearch, json.RawMessage(`{"order_by":"name"}`)); err != nil {
		t.Fatal(err)
	}
	if rec.partyQ.Desc {
		t.Errorf("order_by name defaults to descending; want ascending")
	}

	out, err := s.Call(ctx, NameClauseSearch, json.RawMessage(`{"query":"terminate  for convenience","contract_id":"c1","clause_types":["termination for convenience"],"contract_type":"Service","limit":3}`))
	if err != nil {
		t.Fatal(err)
	}
	wantClause := graph.ClauseQuery{
		Query:       "terminate for convenience",
		Filter:      graph.Filter{ContractType: "Service", AsOf: "2026-03-14", ContractIDs: []string{"c1"}},
		ClauseTypes: []string{"Termination For Convenience"},
		Limit:       3,
	}
	if diff := cmp.Diff(wantClause, *rec.clauseQ); diff != "" {
		t.Errorf("clause (-want +got):\n%s", diff)
	}
	if string(out) != `{"passages":[]}` {
		t.Errorf("clause result = %s", out)
	}
}

func TestInvalidArguments(t *testing.T) {
	tests := []struct {
		tool      string
		args      string
		field     string
		msg       string // substring of the message
		wantValid string // one of the valid values listed, if any
	}{
		{NameContractSearch, `{"contract_type":"Lease"}`, "contract_type", `unknown contract type "Lease"`, "Distributor"},
		{NameContractSearch, `{"min_effective_date":"2019/10/01"}`, "min_effective_date", "YYYY-MM-DD", ""},
		{NameContractSearch, `{"max_end_date":"2019-02-30"}`, "max_end_date", "YYYY-MM-DD", ""},
		{NameContractSearch, `{"as_of":"yesterday"}`, "as_of", "YYYY-MM-DD", ""},
		{NameContractSearch, `{"min_effective_date":"2020-01-01","max_effective_date":"2019-01-01"}`, "max_effective_date", "before min_effective_date", ""},
		{NameContractSearch, `{"min_end_date":"2020-01-01","max_end_date":"2019-01-01"}`, "max_end_date", "before min_end_date", ""},
		{NameContractSearch, `{"order_by":"price"}`, "order_by", `unknown value "price"`, "total_amount"},
		{NameContractSearch, `{"order":"up"}`, "order", `unknown order "up"`, "asc"},
		{NameContractSearch, `{"limit":-1}`, "limit", "1 to 50", ""},
		{NameContractSearch, `{"limit":"five"}`, "limit", "expected an integer", ""},
		{NameContractSearch, `{"offset":-1}`, "offset", "0 to 10000", ""},
		{NameContractSearch, `{"offset":10001}`, "offset", "0 to 10000", ""},
		{NameContractSearch, `{"clause_types":["Force Majeure"]}`, "clause_types", `unknown clause type "Force Majeure"`, "Cap On Liability"},
		{NameContractSearch, `{"clause_types":{"type":"Governing Law"}}`, "clause_types", "expected an array", ""},
		{NameContractSearch, `{"party_country":"Atlantis"}`, "party_country", "not a country", ""},
		{NameContractSearch, `{"governing_law_country":"US","governing_law_state":"Bavaria"}`, "governing_law_state", "not a US state", "NY"},
		{NameContractSearch, `{"monetary_value":{"operator":"~","value":1}}`, "monetary_value.operator", `unknown operator "~"`, ">="},
		{NameContractSearch, `{"monetary_value":{"operator":">"}}`, "monetary_value.value", "missing", ""},
		{NameContractSearch, `{"monetary_value":{"operator":">","value":"10M"}}`, "monetary_value.value", "expected a number", ""},
		{NameContractSearch, `{"parties":["..."]}`, "parties[0]", "no letters or digits", ""},
		{NameContractSearch, `{"contract_typ":"Service"}`, "contract_typ", "unknown argument", "contract_type"},
		{NameContractSearch, `{"active":"yes"}`, "active", "expected true or false", ""},
		{NameContractSearch, `[1,2]`, "", "must be a JSON object", ""},
		{NameContractSearch, `{"limit":5`, "", "invalid JSON", ""},
		{NameContractSearch, `{"limit":5} {}`, "", "after the JSON arguments", ""},
		{NameContractAggregate, `{"group_by":"vendor"}`, "group_by", `unknown value "vendor"`, "governing_law_state"},
		{NameContractAggregate, `{"metric":"median_amount"}`, "metric", `unknown value "median_amount"`, "avg_amount"},
		{NameContractAggregate, `{"limit":-3}`, "limit", "1 to 100", ""},
		{NamePartySearch, `{"min_contracts":-2}`, "min_contracts", "negative", ""},
		{NamePartySearch, `{"order_by":"country"}`, "order_by", `unknown value "country"`, "contract_count"},
		{NamePartySearch, `{"contract_type":"Lease"}`, "contract_type", "unknown contract type", "Supply"},
		{NameGetContract, `{}`, "contract_id", "missing", ""},
		{NameGetContract, `{"contract_id":"x","text_offset":-1}`, "text_offset", "negative", ""},
		{NameClauseSearch, `{"query":"   "}`, "query", "missing", ""},
		{NameClauseSearch, `{"query":"x","clause_types":["nope"]}`, "clause_types", "unknown clause type", "Governing Law"},
		{NameClauseSearch, `{"query":"` + strings.Repeat("a ", 300) + `"}`, "query", "more than the limit", ""},
	}
	for _, tt := range tests {
		t.Run(tt.tool+" "+tt.args, func(t *testing.T) {
			s := New(&recorder{}, Options{Now: fixedNow})
			_, err := s.Call(context.Background(), tt.tool, json.RawMessage(tt.args))
			var ae *ArgError
			if !errors.As(err, &ae) {
				t.Fatalf("error = %v (%T), want *ArgError", err, err)
			}
			if ae.Field != tt.field {
				t.Errorf("field = %q, want %q (error: %v)", ae.Field, tt.field, err)
			}
			if !strings.Contains(ae.Error(), tt.msg) {
				t.Errorf("message %q does not contain %q", ae.Error(), tt.msg)
			}
			if tt.field != "" && !strings.HasPrefix(ae.Error(), tt.field+": ") {
				t.Errorf("message %q does not start with the field name", ae.Error())
			}
			if tt.wantValid != "" {
				if !slices.Contains(ae.Valid, tt.wantValid) || !strings.Contains(ae.Error(), "valid values: ") && !strings.Contains(ae.Error(), "valid arguments: ") {
					t.Errorf("valid values %v (message %q) lack %q", ae.Valid, ae.Error(), tt.wantValid)
				}
			}
		})
	}
}

func TestUnknownToolAndStoreErrors(t *testing.T) {
	ctx := context.Background()
	rec := &recorder{}
	s := New(rec, Options{Now: fixedNow})
	_, err := s.Call(ctx, "contract_delete", nil)
	if !errors.Is(err, ErrUnknownTool) || !strings.Contains(err.Error(), "contract_search") {
		t.Errorf("unknown tool error = %v; want ErrUnknownTool listing the tools", err)
	}
	_, err = s.Call(ctx, NameGetContract, json.RawMessage(`{"contract_id":"nope"}`))
	if !errors.Is(err, graph.ErrNotFound) || !strings.Contains(err.Error(), `"nope"`) {
		t.Errorf("missing contract error = %v; want ErrNotFound naming the id", err)
	}
	rec.err = errors.New("disk on fire")
	_, err = s.Call(ctx, NameContractSearch, nil)
	var ae *ArgError
	if err == nil || errors.As(err, &ae) || !strings.Contains(err.Error(), "disk on fire") {
		t.Errorf("store error = %v; want it wrapped, not an ArgError", err)
	}
	for name, args := range map[string]string{
		NameContractSearch: `{}`, NameContractAggregate: `{}`, NamePartySearch: `{}`,
		NameGetContract: `{"contract_id":"x"}`, NameClauseSearch: `{"query":"x"}`,
	} {
		if _, err := New(nil, Options{}).Call(ctx, name, json.RawMessage(args)); !errors.Is(err, errNoStore) {
			t.Errorf("%s without a store: %v, want errNoStore", name, err)
		}
	}
	_, err = s.Call(ctx, NameContractSearch, json.RawMessage(`{"summary_search":"`+strings.Repeat("x", MaxArgsBytes)+`"}`))
	if !errors.As(err, &ae) {
		t.Errorf("oversized arguments error = %v; want *ArgError", err)
	}
}

func TestGetContractTextWindow(t *testing.T) {
	text := strings.Repeat("é", 10) + "END" // 20 bytes of two-byte runes, then 3 ASCII bytes
	rec := &recorder{contracts: map[string]*contract.Contract{
		"c1": {
			ID: "c1", Title: "Sample", Text: text,
			Clauses: []contract.Clause{{ID: "c1/1", Type: "Governing Law", Text: "END", Start: 20, End: 23, Verified: true}},
			Chunks:  []contract.Chunk{{Ord: 0, Text: text, End: len(text)}},
		},
	}}
	s := New(rec, Options{Now: fixedNow, MaxTextBytes: 7})
	ctx := context.Background()

	var rec0 ContractRecord
	mustCall(t, s, NameGetContract, `{"contract_id":"c1"}`, &rec0)
	if rec0.Text != "" || rec0.TextLength != 23 || len(rec0.Chunks) != 0 || len(rec0.Clauses) != 1 || !rec0.Clauses[0].Verified {
		t.Errorf("without include_text: %+v", rec0)
	}

	// Windows of 7 bytes never split a rune: 6 bytes of é, and offsets
	// inside a rune move forward to the next rune.
	var all string
	offset := 0
	for i := 0; ; i++ {
		var r ContractRecord
		mustCall(t, s, NameGetContract, `{"contract_id":"c1","include_text":true,"text_offset":`+itoa(offset)+`}`, &r)
		if r.TextOffset != offset || r.Text == "" {
			t.Fatalf("window %d: offset %d text %q", i, r.TextOffset, r.Text)
		}
		all += r.Text
		offset = r.TextOffset + len(r.Text)
		if !r.TextTruncated {
			break
		}
		if i > 10 {
			t.Fatal("no end of text")
		}
	}
	if all != text {
		t.Errorf("paged text = %q, want %q", all, text)
	}
	var mid ContractRecord
	mustCall(t, s, NameGetContract, `{"contract_id":"c1","include_text":true,"text_offset":1}`, &mid)
	if mid.TextOffset != 2 || !strings.HasPrefix(mid.Text, "é") {
		t.Errorf("offset inside a rune: got offset %d text %q", mid.TextOffset, mid.Text)
	}
	_, err := s.Call(ctx, NameGetContract, json.RawMessage(`{"contract_id":"c1","include_text":true,"text_offset":24}`))
	var ae *ArgError
	if !errors.As(err, &ae) || ae.Field != "text_offset" {
		t.Errorf("offset past the end: %v", err)
	}
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

func mustCall(t *testing.T, s *Set, name, args string, out any) {
	t.Helper()
	b, err := s.Call(context.Background(), name, json.RawMessage(args))
	if err != nil {
		t.Fatalf("%s %s: %v", name, args, err)
	}
	if err := json.Unmarshal(b, out); err != nil {
		t.Fatalf("%s result %s: %v", name, b, err)
	}
}

func TestRegisterAndAdd(t *testing.T) {
	s := New(&recorder{}, Options{})
	type echoIn struct {
		Word string `json:"word" jsonschema:"A word to echo."`
	}
	type echoOut struct {
		Echo string `json:"echo"`
	}
	err := Register(s, "echo", "Echoes a word.", func(_ context.Context, in echoIn) (echoOut, error) {
		return echoOut{Echo: in.Word}, nil
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	out, err := s.Call(context.Background(), "echo", json.RawMessage(`{"word":"hi"}`))
	if err != nil || string(out) != `{"echo":"hi"}` {
		t.Errorf("echo = %s, %v", out, err)
	}
	if err := Register(s, "echo", "again", func(context.Context, echoIn) (echoOut, error) { return echoOut{}, nil }, nil); err == nil {
		t.Error("registering a taken name succeeded")
	}
	if err := s.Add(Tool{Name: "bad", InputSchema: json.RawMessage(`[]`)}, func(context.Context, json.RawMessage) (json.RawMessage, error) { return nil, nil }); err == nil {
		t.Error("adding a tool whose schema is not an object succeeded")
	}
	names := s.Names()
	want := []string{NameContractSearch, NameContractAggregate, NamePartySearch, NameGetContract, NameClauseSearch, NameDeadlineSearch, NameClauseCompare, "echo"}
	if diff := cmp.Diff(want, names); diff != "" {
		t.Errorf("names (-want +got):\n%s", diff)
	}
}

// TestToolsGolden pins the tool list an LLM sees (names, descriptions,
// schemas). Refresh with: go test ./internal/tools -run Golden -update
func TestToolsGolden(t *testing.T) {
	s := New(&recorder{}, Options{})
	got, err := json.MarshalIndent(s.Tools(), "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	got = append(got, '\n')
	path := filepath.Join("testdata", "tools.golden.json")
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if diff := cmp.Diff(string(want), string(got)); diff != "" {
		t.Errorf("tool list changed (-golden +got); run with -update if intended:\n%s", diff)
	}
}

// Every argument of every tool carries a description, so a model knows what
// to put there, and every closed set is an enum.
func TestSchemasDescribeEveryArgument(t *testing.T) {
	s := New(&recorder{}, Options{})
	for _, tool := range s.Tools() {
		var sch struct {
			Type                 string `json:"type"`
			AdditionalProperties *bool  `json:"additionalProperties"`
			Properties           map[string]struct {
				Description string `json:"description"`
				Enum        []string
				Items       *struct{ Enum []string }
			} `json:"properties"`
		}
		if err := json.Unmarshal(tool.InputSchema, &sch); err != nil {
			t.Fatalf("%s: %v", tool.Name, err)
		}
		if sch.Type != "object" || sch.AdditionalProperties == nil || *sch.AdditionalProperties {
			t.Errorf("%s: schema is not a closed object", tool.Name)
		}
		if len(tool.Description) < 100 {
			t.Errorf("%s: description too short to choose the tool by: %q", tool.Name, tool.Description)
		}
		for name, p := range sch.Properties {
			if p.Description == "" {
				t.Errorf("%s.%s has no description", tool.Name, name)
			}
		}
		for _, enumProp := range []string{"contract_type", "order", "order_by", "group_by", "metric", "clause_types"} {
			p, ok := sch.Properties[enumProp]
			if !ok {
				continue
			}
			if len(p.Enum) == 0 && (p.Items == nil || len(p.Items.Enum) == 0) {
				t.Errorf("%s.%s has no enum", tool.Name, enumProp)
			}
		}
	}
}

func FuzzCall(f *testing.F) {
	for _, seed := range []string{
		`{}`, `{"contract_type":"Service","limit":3}`, `{"monetary_value":{"operator":">","value":1}}`,
		`{"parties":["Acme"],"active":false,"as_of":"2020-01-01"}`, `[`, `{"group_by":"party"}`, `{"query":"x"}`,
	} {
		for _, tool := range []string{NameContractSearch, NameContractAggregate, NamePartySearch, NameClauseSearch, NameGetContract} {
			f.Add(tool, seed)
		}
	}
	s := New(&recorder{}, Options{Now: fixedNow})
	f.Fuzz(func(t *testing.T, tool, args string) {
		out, err := s.Call(context.Background(), tool, json.RawMessage(args))
		if err != nil {
			var ae *ArgError
			if !errors.As(err, &ae) && !errors.Is(err, ErrUnknownTool) && !errors.Is(err, graph.ErrNotFound) {
				t.Fatalf("unexpected error kind %T: %v", err, err)
			}
			return
		}
		if !json.Valid(out) {
			t.Fatalf("result is not JSON: %q", out)
		}
	})
}
