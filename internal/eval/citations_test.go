package eval

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestUnreturnedSources(t *testing.T) {
	ret := newReturned()
	ret.add("contract_search", json.RawMessage(`{"total_count":2,"examples":[{"contract_id":"ADMA BioManufacturing, LLC - Amendment #3","title":"Amendment #3"},{"contract_id":"demo-saas-kestrel","title":"Software as a Service Agreement"}]}`))
	ret.add("get_contract", json.RawMessage(`{"id":"demo-license-orchard","title":"Software License Agreement"}`))
	tools := []string{"contract_search", "get_contract"}
	tests := []struct {
		name, raw, question string
		want                []string
	}{
		{"returned ids, one with a comma", "Two.\nSources: ADMA BioManufacturing, LLC - Amendment #3, demo-saas-kestrel", "", nil},
		{"case and decoration", "x\n**Sources:** `DEMO-SAAS-KESTREL` (Software as a Service Agreement) and demo-license-orchard.", "", nil},
		{"none", "Nothing found.\nSources: none", "", nil},
		{"tool names", "x\nSources: contract_search, get_contract", "", nil},
		{"an invented id", "x\nSources: demo-saas-kestrel, acme-2021-001", "", []string{"acme-2021-001"}},
		{"a bulleted list", "x\nSources:\n- demo-saas-kestrel\n- ghost-contract\nThanks.", "", []string{"ghost-contract"}},
		{"the last Sources line counts", "Sources: ghost\nmore text\nSources: demo-saas-kestrel", "", nil},
		{"named in the question", "x\nSources: demo-transport-lumen", "Show me demo-transport-lumen", nil},
		{"no Sources line", "Just prose about acme-2021-001.", "", nil},
		// What a 1.5B model puts there: its call, field and result names.
		{"a call and field names", "x\nSources: contract_aggregate {\"governing_law_state\": \"US\", \"group_by\": \"governing_law_state\"}, party_id, contract_search_result, ghost-2020-1",
			"", []string{"ghost-2020-1"}},
		{"a tool named with its arguments", "x\nSources: contract_search with contract_type Distributor", "", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := unreturnedSources(tt.raw, ret, tt.question, tools)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("unreturned (-want +got):\n%s", diff)
			}
		})
	}
}

func TestUnreturnedMentions(t *testing.T) {
	ret := newReturned()
	ret.add("clause_search", json.RawMessage(`{"passages":[{"contract_id":"demo-saas-kestrel","start":1,"end":2}]}`))
	stored := map[string]bool{"demo-saas-kestrel": true, "demo-license-orchard": true, "gen-7-0000340": true}
	var looked []string
	lookup := func(_ context.Context, id string) bool {
		looked = append(looked, id)
		return stored[id]
	}
	body := "demo-saas-kestrel caps liability; so does demo-license-orchard, unlike gen-7-0000340. Dated 2024-02-01, a Sub-License of non_exclusive rights."
	got := unreturnedMentions(context.Background(), body, ret, "", lookup)
	if diff := cmp.Diff([]string{"demo-license-orchard", "gen-7-0000340"}, got); diff != "" {
		t.Errorf("mentions (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"demo-license-orchard", "gen-7-0000340", "Sub-License", "non_exclusive"}, looked); diff != "" {
		t.Errorf("looked up (-want +got):\n%s", diff)
	}
}
