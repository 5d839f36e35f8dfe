package httpapi

import (
	"encoding/json"
	"errors"
	"net/url"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/contractgraph/contractgraph/internal/tools"
)

// testSchema has the shapes the tool schemas use: strings, nullable
// booleans, integers, arrays and a nested object.
const testSchema = `{"type":"object","properties":{
	"contract_type":{"type":"string"},
	"active":{"type":["null","boolean"]},
	"limit":{"type":"integer"},
	"parties":{"type":"array","items":{"type":"string"}},
	"monetary_value":{"type":["null","object"],"properties":{"operator":{"type":"string"},"value":{"type":["null","number"]}}}
}}`

func parsedTestSchema(t testing.TB) *schemaNode {
	var n schemaNode
	if err := json.Unmarshal([]byte(testSchema), &n); err != nil {
		t.Fatal(err)
	}
	return &n
}

func TestArgsFromQuery(t *testing.T) {
	schema := parsedTestSchema(t)
	tests := []struct {
		query     string
		want      string
		wantField string
	}{
		{"", `{}`, ""},
		{"contract_type=Supply&limit=3", `{"contract_type":"Supply","limit":3}`, ""},
		{"active=false", `{"active":false}`, ""},
		{"parties=Acme&parties=Globex%2C+Inc.", `{"parties":["Acme","Globex, Inc."]}`, ""},
		{"monetary_value.operator=%3E&monetary_value.value=1e6", `{"monetary_value":{"operator":">","value":1000000}}`, ""},
		{"contract_type=&active=", `{}`, ""},
		{"offset=5", ``, "offset"},
		{"active=yes", ``, "active"},
		{"limit=2.5", ``, "limit"},
		{"monetary_value.value=lots", ``, "monetary_value.value"},
		{"monetary_value.currency=USD", ``, "monetary_value.currency"},
		{"monetary_value=5", ``, "monetary_value"},
		{"contract_type.x=1", ``, "contract_type.x"},
		{"limit=1&limit=2", ``, "limit"},
	}
	for _, tt := range tests {
		t.Run(tt.query, func(t *testing.T) {
			q, err := url.ParseQuery(tt.query)
			if err != nil {
				t.Fatal(err)
			}
			got, err := argsFromQuery(schema, q)
			if tt.wantField != "" {
				var ae *tools.ArgError
				if !errors.As(err, &ae) || ae.Field != tt.wantField {
					t.Fatalf("error = %v, want an ArgError for %s", err, tt.wantField)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var gv, wv any
			json.Unmarshal(got, &gv)
			json.Unmarshal([]byte(tt.want), &wv)
			if diff := cmp.Diff(wv, gv); diff != "" {
				t.Errorf("args (-want +got):\n%s", diff)
			}
		})
	}
}

// FuzzArgsFromQuery checks that any query either becomes a JSON object or
// is refused with an ArgError naming a parameter, never anything else.
func FuzzArgsFromQuery(f *testing.F) {
	for _, s := range []string{"contract_type=Supply", "parties=a&parties=b", "monetary_value.value=1", "a.b.c=1", "limit=-1", "%zz"} {
		f.Add(s)
	}
	schema := parsedTestSchema(f)
	f.Fuzz(func(t *testing.T, raw string) {
		q, err := url.ParseQuery(raw)
		if err != nil {
			return
		}
		out, err := argsFromQuery(schema, q)
		if err != nil {
			var ae *tools.ArgError
			_, nameless := q[""]
			if !errors.As(err, &ae) || (ae.Field == "" && !nameless) {
				t.Fatalf("query %q: error %v is not an ArgError naming a field", raw, err)
			}
			return
		}
		var obj map[string]any
		if err := json.Unmarshal(out, &obj); err != nil {
			t.Fatalf("query %q gave %s, not a JSON object", raw, out)
		}
	})
}

func TestParseSpan(t *testing.T) {
	type span struct {
		start, end int
		ok         bool
	}
	for in, want := range map[string]span{
		"10-20": {10, 20, true}, "0-1": {0, 1, true},
		"20-10": {0, 0, false}, "5-5": {0, 0, false}, "-1-4": {0, 0, false}, "a-b": {0, 0, false}, "": {0, 0, false},
	} {
		s, e, ok := parseSpan(in)
		if ok != want.ok || (ok && (s != want.start || e != want.end)) {
			t.Errorf("parseSpan(%q) = %d, %d, %v; want %+v", in, s, e, ok, want)
		}
	}
}
