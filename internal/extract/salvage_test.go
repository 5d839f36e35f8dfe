package extract

import (
	"encoding/json"
	"testing"
)

func TestSalvageJSON(t *testing.T) {
	tests := []struct {
		name, in, want string
		ok             bool
	}{
		{"complete", `{"a":1,"b":[2]}`, `{"a":1,"b":[2]}`, true},
		{"cut in a string", `{"a":"x","b":"unfin`, `{"a":"x"}`, true},
		{"cut in the list", `{"a":"x","clauses":[{"t":"A","s":"one"},{"t":"B","s":"tw`, `{"a":"x","clauses":[{"t":"A","s":"one"},{"t":"B"}]}`, true},
		{"cut after a comma", `{"a":"x","clauses":[{"t":"A"},`, `{"a":"x","clauses":[{"t":"A"}]}`, true},
		{"escaped quote", `{"a":"say \"hi\", then","b":"cu`, `{"a":"say \"hi\", then"}`, true},
		{"brackets in strings", `{"a":"[{,}]","b":[`, `{"a":"[{,}]","b":[]}`, true},
		{"fenced", "```json\n{\"a\":\"x\",\"b\":\"y", `{"a":"x"}`, true},
		{"nothing complete", `{"summary": "cut`, "", false},
		{"not json", `I cannot do that.`, "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := salvageJSON(tt.in)
			if got != tt.want || ok != tt.ok {
				t.Errorf("salvageJSON(%q) = %q, %v; want %q, %v", tt.in, got, ok, tt.want, tt.ok)
			}
		})
	}
}

// Whatever prefix of a reply the token limit leaves, a salvaged result is
// valid JSON.
func FuzzSalvageJSON(f *testing.F) {
	f.Add(`{"summary":"s","parties":[{"name":"Acme, Inc.","role":"Supplier"}],"clauses":[{"clause_type":"Governing Law","text":"The \"laws\" of [New York]."}]}`, 40)
	f.Add(`{"a":{"b":{"c":[1,2,{"d":"e"}]}}}`, 20)
	f.Fuzz(func(t *testing.T, whole string, cut int) {
		if cut < 0 {
			cut = -cut
		}
		cut %= len(whole) + 1
		got, ok := salvageJSON(whole[:cut])
		if ok && !json.Valid([]byte(got)) {
			t.Fatalf("salvageJSON(%q) = %q, not valid JSON", whole[:cut], got)
		}
	})
}
