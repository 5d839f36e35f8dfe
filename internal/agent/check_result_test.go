package agent

import "testing"

func TestEmptyResult(t *testing.T) {
	tests := []struct {
		result string
		empty  bool
	}{
		{`{"total_count":0,"examples":[]}`, true},
		{`{"total_count":3,"examples":[]}`, false},
		{`{"total_groups":0,"groups":[]}`, true},
		{`{"total_groups":1,"groups":[{"key":"all","count":0,"value":0}]}`, true},
		{`{"total_groups":1,"groups":[{"key":"all","count":2,"value":10}]}`, false},
		{`{"passages":[]}`, true},
		{`{"passages":[{"contract_id":"c1"}]}`, false},
		{`{"statutes":[],"ranking":"bm25"}`, true},
		{`{"cypher":"MATCH ...","columns":["n"],"rows":[],"truncated":false}`, true},
		{`{"total_count":0,"from":"2026-01-01","to":"2026-03-31","deadlines":[]}`, true},
		{`{"contract_id":"c05","title":"Franchise","parties":[],"clauses":[]}`, false},
		{`[]`, false},
		{`not json`, false},
	}
	for _, tt := range tests {
		if got := emptyResult([]byte(tt.result)); got != tt.empty {
			t.Errorf("emptyResult(%s) = %v, want %v", tt.result, got, tt.empty)
		}
	}
}
