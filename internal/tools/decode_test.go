package tools

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/contractgraph/contractgraph/internal/contract"
)

// compiled calls tool with args on a recording store and returns what the
// store was asked (or, for get_contract, what the tool answered), so that
// two spellings of a call can be compared.
func compiled(t *testing.T, tool, args string) any {
	t.Helper()
	rec := &recorder{contracts: map[string]*contract.Contract{"c1": {ID: "c1", Title: "One", Text: "Some text."}}}
	s := New(rec, Options{Now: fixedNow})
	statutes := &fakeStatutes{}
	if err := NewStatuteTools(statutes, StatuteOptions{}).AddTo(s); err != nil {
		t.Fatal(err)
	}
	out, err := s.Call(context.Background(), tool, json.RawMessage(args))
	if err != nil {
		t.Fatalf("%s %s: %v", tool, args, err)
	}
	switch tool {
	case NameContractSearch:
		return *rec.contractQ
	case NameContractAggregate:
		return *rec.aggregateQ
	case NamePartySearch:
		return *rec.partyQ
	case NameClauseSearch:
		return *rec.clauseQ
	case NameDeadlineSearch:
		return *rec.deadlineQ
	case NameStatuteSearch:
		return statutes.last
	}
	return string(out)
}

// Small models write arguments in shapes the schema does not allow but
// whose meaning is plain; each must run as its canonical form does.
func TestLenientArgumentsMeanTheCanonicalCall(t *testing.T) {
	tests := []struct {
		name, tool, lenient, canonical string
	}{
		// null for an optional argument means absent
		{"null filter", NameContractSearch, `{"contract_type":null,"parties":null,"active":null,"monetary_value":null,"limit":null}`, `{}`},
		{"null in aggregate", NameContractAggregate, `{"group_by":null,"metric":"count","party_country":null}`, `{"metric":"count"}`},
		{"null party filters", NamePartySearch, `{"name":null,"country":null,"min_contracts":null}`, `{}`},
		{"null optional with required", NameClauseSearch, `{"query":"audit","contract_id":null,"clause_types":null}`, `{"query":"audit"}`},
		{"null statute jurisdiction", NameStatuteSearch, `{"query":"arbitration","jurisdiction":null}`, `{"query":"arbitration"}`},
		{"null include_text", NameGetContract, `{"contract_id":"c1","include_text":null,"text_offset":null}`, `{"contract_id":"c1"}`},

		// a list of one where one value is expected is that value
		{"one-element contract_type", NameContractSearch, `{"contract_type":["License Agreement"]}`, `{"contract_type":"License Agreement"}`},
		{"one-element in aggregate", NameContractAggregate, `{"contract_type":["Strategic Alliance"],"group_by":["party"]}`, `{"contract_type":"Strategic Alliance","group_by":"party"}`},
		{"one-element party country", NamePartySearch, `{"country":["CA"]}`, `{"country":"CA"}`},
		{"one-element contract_id", NameClauseSearch, `{"query":["audit rights"],"contract_id":["c1"]}`, `{"query":"audit rights","contract_id":"c1"}`},
		{"one-element get_contract id", NameGetContract, `{"contract_id":["c1"]}`, `{"contract_id":"c1"}`},
		{"repeated value is one", NameContractSearch, `{"contract_type":["Service","service"]}`, `{"contract_type":"Service"}`},
		{"one-element bool", NameContractSearch, `{"active":[true]}`, `{"active":true}`},

		// empty lists and strings for optional filters mean absent
		{"empty list country", NameContractSearch, `{"party_country":[],"governing_law_state":[]}`, `{}`},
		{"empty string and list filters", NameContractAggregate, `{"party_country":"","clause_types":[],"parties":[""],"as_of":""}`, `{}`},
		{"empty monetary object", NameContractSearch, `{"monetary_value":{}}`, `{}`},
		{"monetary of nulls", NameContractSearch, `{"monetary_value":{"operator":null,"value":null}}`, `{}`},
		{"empty string limit", NameContractSearch, `{"limit":""}`, `{}`},
		{"empty string bool", NameContractSearch, `{"active":""}`, `{}`},

		// a string where a list is expected is a list of one
		{"parties as a string", NameContractSearch, `{"parties":"Acme"}`, `{"parties":["Acme"]}`},
		{"clause types as a string", NameContractAggregate, `{"clause_types":"Governing Law"}`, `{"clause_types":["Governing Law"]}`},
		{"clause_search clause types as a string", NameClauseSearch, `{"query":"cap","clause_types":"Cap On Liability"}`, `{"query":"cap","clause_types":["Cap On Liability"]}`},

		// numbers and booleans as strings
		{"limit as a string", NameContractSearch, `{"limit":"5","offset":" 10 "}`, `{"limit":5,"offset":10}`},
		{"integral float limit", NameContractAggregate, `{"limit":3.0}`, `{"limit":3}`},
		{"min_contracts as a string", NamePartySearch, `{"min_contracts":"2","limit":"3"}`, `{"min_contracts":2,"limit":3}`},
		{"statute limit as a string", NameStatuteSearch, `{"query":"penalty","limit":"2"}`, `{"query":"penalty","limit":2}`},
		{"text_offset as a string", NameGetContract, `{"contract_id":"c1","include_text":"true","text_offset":"5"}`, `{"contract_id":"c1","include_text":true,"text_offset":5}`},
		{"amount as a string", NameContractSearch, `{"monetary_value":{"operator":">","value":"1,000,000"}}`, `{"monetary_value":{"operator":">","value":1000000}}`},
		{"active as a string", NameContractSearch, `{"active":"False"}`, `{"active":false}`},

		// argument names in another case or style
		{"camel case names", NameContractSearch, `{"contractType":"Service","OrderBy":"end_date","min-end-date":"2020-01-01"}`, `{"contract_type":"Service","order_by":"end_date","min_end_date":"2020-01-01"}`},
		{"nested camel case", NameContractSearch, `{"monetaryValue":{"Operator":">=","VALUE":5}}`, `{"monetary_value":{"operator":">=","value":5}}`},

		// arguments sent as a JSON string holding the object
		{"stringified arguments", NameContractSearch, `"{\"contract_type\":\"Service\"}"`, `{"contract_type":"Service"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := compiled(t, tt.tool, tt.lenient)
			want := compiled(t, tt.tool, tt.canonical)
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("%s %s runs differently from %s (-canonical +lenient):\n%s", tt.tool, tt.lenient, tt.canonical, diff)
			}
		})
	}
}

// Where the meaning is not plain, the error says what to do instead.
func TestLenientDecodingErrorsNameTheFix(t *testing.T) {
	tests := []struct {
		tool, args string
		field      string
		contains   []string
	}{
		{NameContractSearch, `{"contract_type":["License Agreement","Service"]}`, "contract_type",
			[]string{"takes one value", "list of 2", `"License Agreement"`, "call once per contract type"}},
		{NameContractAggregate, `{"party_country":["US","GB","CN","DE"]}`, "party_country",
			[]string{"takes one value", "list of 4", "…", "call once per country"}},
		{NamePartySearch, `{"limit":[5,10]}`, "limit", []string{"takes one value", "call once per value"}},
		{NameClauseSearch, `{"query":"x","contract_id":["a","b"]}`, "contract_id", []string{"call once per contract"}},
		{NameStatuteSearch, `{"query":["arbitration","penalty"]}`, "query", []string{"call once per search"}},
		{NameContractSearch, `{"contract_typ":"Service"}`, "contract_typ",
			[]string{"unknown argument", "did you mean contract_type?", "valid arguments: ", "party_country", "summary_search"}},
		{NamePartySearch, `{"party_name":"Acme"}`, "party_name", []string{"did you mean name?", "valid arguments: contract_type, country, limit"}},
		{NameContractSearch, `{"monetary_value":{"op":">","value":1}}`, "monetary_value.op",
			[]string{"unknown argument", "did you mean operator?", "valid arguments: operator, value"}},
		{NameGetContract, `{"foo":1,"contract_id":"c1"}`, "foo", []string{"unknown argument", "valid arguments: contract_id, include_text, text_offset"}},
		{NameContractSearch, `{"contract_type":"Service","contractType":"Supply"}`, "contract_type", []string{"given twice", "contractType"}},
		{NameContractSearch, `{"limit":"five"}`, "limit", []string{"expected an integer"}},
		{NameContractSearch, `{"limit":2.5}`, "limit", []string{"expected an integer"}},
		{NameContractSearch, `{"active":"yes"}`, "active", []string{"expected true or false"}},
		{NameContractSearch, `{"monetary_value":{"operator":">","value":"10M"}}`, "monetary_value.value", []string{"expected a number"}},
		{NameClauseSearch, `{"query":null}`, "query", []string{"missing"}},
		{NameGetContract, `{"contract_id":[]}`, "contract_id", []string{"missing"}},
		{NameContractSearch, `"not an object"`, "", []string{"must be a JSON object"}},
	}
	for _, tt := range tests {
		t.Run(tt.tool+" "+tt.args, func(t *testing.T) {
			s := New(&recorder{}, Options{Now: fixedNow})
			if err := NewStatuteTools(&fakeStatutes{}, StatuteOptions{}).AddTo(s); err != nil {
				t.Fatal(err)
			}
			_, err := s.Call(context.Background(), tt.tool, json.RawMessage(tt.args))
			var ae *ArgError
			if !errors.As(err, &ae) {
				t.Fatalf("error = %v (%T), want *ArgError", err, err)
			}
			if ae.Field != tt.field {
				t.Errorf("field = %q, want %q (%v)", ae.Field, tt.field, err)
			}
			for _, want := range tt.contains {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("message %q lacks %q", err.Error(), want)
				}
			}
		})
	}
}

func TestClosestArgumentName(t *testing.T) {
	names := []string{"contract_type", "governing_law_state", "limit", "name", "order", "order_by", "parties"}
	tests := map[string]string{
		"contract_typ":   "contract_type",
		"Contract-Types": "contract_type",
		"governing_law":  "governing_law_state",
		"partys":         "parties",
		"lmit":           "limit",
		"sort":           "",
		"xyzzy":          "",
	}
	for key, want := range tests {
		if got := closest(key, names); got != want {
			t.Errorf("closest(%q) = %q, want %q", key, got, want)
		}
	}
}
