package agent

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestComposeAnswer(t *testing.T) {
	tests := []struct {
		name, tool, args, result, want string
	}{
		{
			name: "search with more matches than rows", tool: "contract_search", args: `{"contract_type": "Strategic Alliance"}`,
			result: `{"total_count":72,"examples":[{"contract_id":"a1","title":"Alliance","contract_type":"Strategic Alliance","effective_date":"2019-01-01","end_date":"2021-12-31","parties":[],"clause_types":[]},
				{"contract_id":"a2","parties":[],"clause_types":[]}]}`,
			want: composedLead + "\ncontract_search {\"contract_type\":\"Strategic Alliance\"} found 72 contracts; the first 2:\n" +
				"- a1: Alliance (Strategic Alliance; effective 2019-01-01; ends 2021-12-31)\n- a2",
		},
		{
			name: "search with no match", tool: "contract_search", args: `{"min_end_date":"2990-01-01"}`, result: `{"total_count":0,"examples":[]}`,
			want: composedLead + "\ncontract_search {\"min_end_date\":\"2990-01-01\"} found no contracts.",
		},
		{
			name: "count only", tool: "contract_search", args: `{"limit":0}`, result: `{"total_count":510,"examples":[]}`,
			want: composedLead + "\ncontract_search {\"limit\":0} found 510 contracts.",
		},
		{
			name: "aggregate", tool: "contract_aggregate", args: `{"group_by":"governing_law_state","metric":"count"}`,
			result: `{"total_groups":2,"groups":[{"key":"NY","value":12,"count":12},{"key":"","value":3,"count":3}]}`,
			want:   composedLead + "\ncontract_aggregate {\"group_by\":\"governing_law_state\",\"metric\":\"count\"} returned 2 groups:\n- NY: 12 contracts\n- (none): 3 contracts",
		},
		{
			name: "aggregate of amounts", tool: "contract_aggregate", args: `{"metric":"sum_amount"}`,
			result: `{"total_groups":1,"groups":[{"key":"all","value":1250000.5,"count":4}]}`,
			want:   composedLead + "\ncontract_aggregate {\"metric\":\"sum_amount\"} returned 1 group:\n- all: 1250000.5 (4 contracts)",
		},
		{
			name: "parties", tool: "party_search", args: `{"name":"acme"}`,
			result: `{"total_count":1,"examples":[{"party_id":"p1","name":"Acme Corp","aliases":[],"country":"US","contract_count":3,"contract_types":["Supply","Service"]}]}`,
			want:   composedLead + "\nparty_search {\"name\":\"acme\"} found 1 party:\n- Acme Corp (US; 3 contracts; Supply, Service)",
		},
		{
			name: "record", tool: "get_contract", args: `{"contract_id":"c03"}`,
			result: `{"id":"c03","title":"Distribution","contract_type":"Distributor","end_date":"2005-12-31","governing_law":{"country":"US","state":"NY"},"parties":[{"name":"A"},{"name":"B"}],"text_length":10}`,
			want:   composedLead + "\nget_contract {\"contract_id\":\"c03\"} returned c03: Distribution (Distributor; ends 2005-12-31; governing law US-NY; parties A; B)",
		},
		{
			name: "passages", tool: "clause_search", args: `{"query":"terminate"}`,
			result: `{"passages":[{"contract_id":"c02","clause_type":"Termination For Convenience","text":"Either party may\nterminate.","start":1,"end":30,"verified":true,"score":2}]}`,
			want:   composedLead + "\nclause_search {\"query\":\"terminate\"} returned 1 passage:\n- c02 (Termination For Convenience): \"Either party may terminate.\"",
		},
		{
			name: "comparison", tool: "clause_compare", args: `{"clause_type":"Cap On Liability"}`,
			result: `{"clause_type":"Cap On Liability","total_contracts":3,"total_clauses":4,"compared":4,"threshold":0.3,"total_groups":1,
				"groups":[{"id":1,"size":3,"contracts":3,"cohesion":0.5,"representative":{"contract_id":"c01","clause_type":"Cap On Liability","text":"Liability shall not\nexceed the fees paid.","start":5,"end":45,"verified":true,"terms":[],"similarity":1},"members":[],"more_members":2,"key_terms":[]}],
				"total_outliers":1,"outlier_reasons":{"unique":1},"outliers":[]}`,
			want: composedLead + "\nclause_compare {\"clause_type\":\"Cap On Liability\"} compared 4 clauses of Cap On Liability in 3 contracts: 1 group and 1 outlier.\n" +
				"- group 1, 3 clauses, like c01: \"Liability shall not exceed the fees paid.\"",
		},
		{
			name: "any other tool", tool: "custom", args: `{}`, result: `{"rows": [1, 2]}`,
			want: composedLead + "\ncustom {} returned: {\"rows\":[1,2]}",
		},
	}
	for _, tt := range tests {
		got := composeAnswer(tt.tool, json.RawMessage(tt.args), json.RawMessage(tt.result))
		if got != tt.want {
			t.Errorf("%s:\ngot:\n%s\nwant:\n%s", tt.name, got, tt.want)
		}
		if !hasAnswerText(got) || !strings.Contains(got, "composed from the last tool result") {
			t.Errorf("%s: a composed answer must say what it is: %q", tt.name, got)
		}
	}
}

func TestHasAnswerTextIgnoresMarkup(t *testing.T) {
	for _, tt := range []struct {
		text string
		want bool
	}{
		{"<tools>\n  \n</tools>", false},
		{"<|im_end|>", false},
		{"<tool_response></tool_response>\nSources: none", false},
		{"Sources: X_01_01_2000-EX-1", false},
		{"There is <b>1</b> contract.", true},
		{"1 contract (a < b).", true},
	} {
		if got := hasAnswerText(tt.text); got != tt.want {
			t.Errorf("hasAnswerText(%q) = %v, want %v", tt.text, got, tt.want)
		}
	}
}
