package agent

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func knownTool(name string) bool {
	switch name {
	case "contract_search", "contract_aggregate", "get_contract", "party_search":
		return true
	}
	return false
}

func call(name, args string) parsedCall {
	return parsedCall{Name: name, Arguments: json.RawMessage(args)}
}

func TestParseTextCalls(t *testing.T) {
	tests := []struct {
		name  string
		in    string
		prose string
		calls []parsedCall
	}{
		{
			name:  "json fence, as Qwen2.5-Coder writes it",
			in:    "```json\n{\"name\": \"contract_search\", \"arguments\": {\"min_end_date\": \"1990-01-02\"}}\n```",
			calls: []parsedCall{call("contract_search", `{"min_end_date":"1990-01-02"}`)},
		},
		{
			name:  "prose around a fence stays prose",
			in:    "Let me look that up.\n```json\n{\"name\": \"contract_search\", \"arguments\": {}}\n```\n",
			prose: "Let me look that up.\n",
			calls: []parsedCall{call("contract_search", `{}`)},
		},
		{
			name:  "bare object",
			in:    `{"name": "get_contract", "arguments": {"contract_id": "c03"}}`,
			calls: []parsedCall{call("get_contract", `{"contract_id":"c03"}`)},
		},
		{
			name: "hermes tags, two calls",
			in: "<tool_call>\n{\"name\": \"contract_search\", \"arguments\": {\"contract_type\": \"Distributor\"}}\n</tool_call>\n" +
				"<tool_call>\n{\"name\": \"party_search\", \"arguments\": {\"name\": \"Acme\"}}\n</tool_call>",
			calls: []parsedCall{call("contract_search", `{"contract_type":"Distributor"}`), call("party_search", `{"name":"Acme"}`)},
		},
		{
			name:  "tag left open at the end of the reply",
			in:    "<tool_call>\n{\"name\": \"contract_search\", \"arguments\": {\"limit\": 3}}",
			calls: []parsedCall{call("contract_search", `{"limit":3}`)},
		},
		{
			name:  "tags opened twice without closing",
			in:    `<tool_call>{"name": "get_contract", "arguments": {"contract_id": "a"}}<tool_call>{"name": "get_contract", "arguments": {"contract_id": "b"}}`,
			calls: []parsedCall{call("get_contract", `{"contract_id":"a"}`), call("get_contract", `{"contract_id":"b"}`)},
		},
		{
			name:  "parameters instead of arguments",
			in:    `{"name": "contract_search", "parameters": {"contract_type": "Franchise"}}`,
			calls: []parsedCall{call("contract_search", `{"contract_type":"Franchise"}`)},
		},
		{
			name:  "openai function nesting with arguments as a JSON string",
			in:    `{"type": "function", "function": {"name": "contract_search", "arguments": "{\"contract_type\": \"Franchise\"}"}}`,
			calls: []parsedCall{call("contract_search", `{"contract_type":"Franchise"}`)},
		},
		{
			name:  "tool_calls wrapper",
			in:    `{"tool_calls": [{"function": {"name": "get_contract", "arguments": {"contract_id": "c05"}}}]}`,
			calls: []parsedCall{call("get_contract", `{"contract_id":"c05"}`)},
		},
		{
			name:  "array of calls in a fence",
			in:    "```\n[{\"name\": \"get_contract\", \"arguments\": {\"contract_id\": \"c01\"}}, {\"name\": \"get_contract\", \"arguments\": {\"contract_id\": \"c02\"}}]\n```",
			calls: []parsedCall{call("get_contract", `{"contract_id":"c01"}`), call("get_contract", `{"contract_id":"c02"}`)},
		},
		{
			name:  "null arguments are none",
			in:    `{"name": "contract_search", "arguments": null}`,
			calls: []parsedCall{call("contract_search", `{}`)},
		},
		{
			name:  "missing arguments key: the other keys are the arguments",
			in:    `{"name": "contract_search", "contract_type": "Distributor"}`,
			calls: []parsedCall{call("contract_search", `{"contract_type":"Distributor"}`)},
		},
		{
			name:  "trailing comma repaired",
			in:    "```json\n{\"name\": \"contract_search\", \"arguments\": {\"contract_type\": \"Distributor\",},}\n```",
			calls: []parsedCall{call("contract_search", `{"contract_type":"Distributor"}`)},
		},
		{
			name:  "broken arguments reach the tool as written",
			in:    `<tool_call>{"name": "contract_search", "arguments": {"contract_type": 'Distributor'}}</tool_call>`,
			calls: []parsedCall{call("contract_search", `{"contract_type": 'Distributor'}`)},
		},
		{
			name:  "optional fields null or empty are kept",
			in:    `{"name": "contract_search", "arguments": {"contract_type": null, "party_country": "", "parties": []}}`,
			calls: []parsedCall{call("contract_search", `{"contract_type":null,"party_country":"","parties":[]}`)},
		},
		{
			name: "prose after a call is the model imagining its result: dropped",
			in: "I'll use contract_aggregate:\n```json\n{\"name\": \"contract_aggregate\", \"arguments\": {\"group_by\": \"contract_type\"}}\n```\n" +
				"The three most common types are Consulting, Franchise and Endorsement.\nSources: c01",
			prose: "I'll use contract_aggregate:\n",
			calls: []parsedCall{call("contract_aggregate", `{"group_by":"contract_type"}`)},
		},
		{
			name: "an element named after the tool, arguments as attributes, in a tools wrapper",
			in: "I will use contract_aggregate:\n<tools>\n  <contract_aggregate contract_type=\"\" active=\"true\" limit=\"3\" group_by=\"contract_type\"/>\n</tools>\n" +
				"Sources: None",
			prose: "I will use contract_aggregate:\n\n  ",
			calls: []parsedCall{call("contract_aggregate", `{"active":"true","contract_type":"","group_by":"contract_type","limit":"3"}`)},
		},
		{
			name:  "an element with child elements and an entity",
			in:    "<party_search>\n<name>Smith &amp; Co</name>\n<limit>5</limit>\n</party_search>",
			calls: []parsedCall{call("party_search", `{"limit":"5","name":"Smith \u0026 Co"}`)},
		},
		{
			name:  "an element holding JSON arguments, with > inside an attribute",
			in:    `<get_contract note="a>b">{"contract_id": "c07"}</get_contract>`,
			calls: []parsedCall{call("get_contract", `{"contract_id":"c07","note":"a\u003eb"}`)},
		},
		{
			name:  "an element left open at the end of the reply",
			in:    `<contract_search contract_type="Franchise">`,
			calls: []parsedCall{call("contract_search", `{"contract_type":"Franchise"}`)},
		},
		{
			name:  "elements that are not tools stay text",
			in:    "<b>Note</b>: <contract> and <search_x a=\"1\"/> are not tools; 3<4.",
			prose: "<b>Note</b>: <contract> and <search_x a=\"1\"/> are not tools; 3<4.",
		},
		{
			name:  "unknown tool stays text",
			in:    "```json\n{\"name\": \"cypher_query\", \"arguments\": {\"q\": \"MATCH (n)\"}}\n```",
			prose: "```json\n{\"name\": \"cypher_query\", \"arguments\": {\"q\": \"MATCH (n)\"}}\n```",
		},
		{
			name:  "JSON that is data, not a call, stays text",
			in:    `The record is {"name": "Acme Corp", "contracts": 3}.`,
			prose: `The record is {"name": "Acme Corp", "contracts": 3}.`,
		},
		{
			name:  "a plain answer is untouched",
			in:    "There are 72 Strategic Alliance contracts [1].\nSources: c01, c02",
			prose: "There are 72 Strategic Alliance contracts [1].\nSources: c01, c02",
		},
		{
			name:  "braces, tags and fences that are not calls",
			in:    "Use {placeholders} and <b>bold</b>; x < y.\n```python\nprint({'a': 1})\n```\nunclosed { brace and ``` fence",
			prose: "Use {placeholders} and <b>bold</b>; x < y.\n```python\nprint({'a': 1})\n```\nunclosed { brace and ``` fence",
		},
		{
			name:  "a call after an unclosed brace is still found",
			in:    "a { b <tool_call>{\"name\": \"get_contract\", \"arguments\": {\"contract_id\": \"c1\"}}</tool_call> c",
			prose: "a { b ",
			calls: []parsedCall{call("get_contract", `{"contract_id":"c1"}`)},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			prose, calls := parseTextCalls(tt.in, knownTool)
			if prose != tt.prose {
				t.Errorf("prose %q, want %q", prose, tt.prose)
			}
			if diff := cmp.Diff(tt.calls, calls, cmp.Comparer(func(a, b json.RawMessage) bool { return string(a) == string(b) })); diff != "" {
				t.Errorf("calls (-want +got):\n%s", diff)
			}
			// Streamed a byte at a time, the scanner shows exactly the prose.
			var shown strings.Builder
			s := newCallScanner(knownTool, func(p string) { shown.WriteString(p) })
			for i := range len(tt.in) {
				s.write(tt.in[i : i+1])
			}
			s.close()
			if shown.String() != tt.prose {
				t.Errorf("streamed prose %q, want %q", shown.String(), tt.prose)
			}
		})
	}
}

// A normal answer streams word by word; a call is held back until it is
// complete and never shown.
func TestCallScannerStreaming(t *testing.T) {
	var shown strings.Builder
	s := newCallScanner(knownTool, func(p string) { shown.WriteString(p) })
	for _, w := range []string{"There ", "are ", "72 ", "contracts."} {
		s.write(w)
	}
	if shown.String() != "There are 72 contracts." {
		t.Errorf("plain answer shown as %q before the reply ended; it should stream", shown.String())
	}

	shown.Reset()
	s = newCallScanner(knownTool, func(p string) { shown.WriteString(p) })
	parts := []string{"Checking.\n", "```", "json\n{\"na", "me\": \"contract_search\", ", "\"arguments\": {}}\n", "```"}
	for i, p := range parts {
		s.write(p)
		if i > 0 && shown.String() != "Checking.\n" {
			t.Fatalf("after %q the stream shows %q: part of a tool call leaked", p, shown.String())
		}
	}
	s.close()
	if shown.String() != "Checking.\n" || len(s.calls) != 1 {
		t.Errorf("shown %q, calls %+v", shown.String(), s.calls)
	}
}

func TestNormalizeArgs(t *testing.T) {
	tests := []struct{ in, want string }{
		{"", "{}"},
		{"  null ", "{}"},
		{`"{\"contract_type\":\"Franchise\"}"`, `{"contract_type":"Franchise"}`},
		{`""`, "{}"},
		{`{"a":1,}`, `{"a":1}`},
		{`{"contract_type":null,"title":""}`, `{"contract_type":null,"title":""}`},
		{`{"contract_type":`, `{"contract_type":`},
		{`{"text":"a, }"}`, `{"text":"a, }"}`},
	}
	for _, tt := range tests {
		if got := string(normalizeArgs(json.RawMessage(tt.in))); got != tt.want {
			t.Errorf("normalizeArgs(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// dropWrappers removes the call wrapper tags from s, as the scanner does.
func dropWrappers(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); {
		if n := wrapperLen(s[i:]); n > 0 {
			i += n
			continue
		}
		b.WriteByte(s[i])
		i++
	}
	return b.String()
}

func FuzzTextCalls(f *testing.F) {
	f.Add("```json\n{\"name\": \"contract_search\", \"arguments\": {}}\n```", uint64(7))
	f.Add("ok <tool_call>{\"name\": \"get_contract\", \"arguments\": \"{\\\"contract_id\\\": \\\"c1\\\"}\"}</tool_call> done", uint64(3))
	f.Add("[{\"function\": {\"name\": \"party_search\"}}] and {\"name\": \"x\"} `` <tool", uint64(1))
	f.Add("The answer is {42} < 43.\nSources: c1", uint64(12345))
	f.Add("<tools><contract_search a=\"x>y\" limit='3'/></tools> <party_search><name>A</name></party_search> <b>x</b>", uint64(99))
	f.Fuzz(func(t *testing.T, text string, seed uint64) {
		prose, calls := parseTextCalls(text, knownTool)
		if len(calls) == 0 && prose != dropWrappers(text) {
			t.Fatalf("no calls, but the prose %q differs from the reply %q", prose, text)
		}
		if len(prose) > len(text) {
			t.Fatalf("prose %q longer than the reply %q", prose, text)
		}
		for _, c := range calls {
			if !knownTool(c.Name) {
				t.Fatalf("call to unknown tool %q", c.Name)
			}
		}
		// Any chunking gives the same prose, shown as it streams, and calls.
		var shown strings.Builder
		s := newCallScanner(knownTool, func(p string) { shown.WriteString(p) })
		for rest := text; rest != ""; {
			seed = seed*6364136223846793005 + 1442695040888963407
			n := 1 + int(seed>>33)%8
			n = min(n, len(rest))
			s.write(rest[:n])
			rest = rest[n:]
		}
		s.close()
		if shown.String() != prose {
			t.Fatalf("streamed prose %q, whole-reply prose %q", shown.String(), prose)
		}
		if len(s.calls) != len(calls) {
			t.Fatalf("streamed %d calls, whole reply %d", len(s.calls), len(calls))
		}
		for i := range calls {
			if s.calls[i].Name != calls[i].Name || string(s.calls[i].Arguments) != string(calls[i].Arguments) {
				t.Fatalf("call %d streamed %+v, whole %+v", i, s.calls[i], calls[i])
			}
		}
	})
}
