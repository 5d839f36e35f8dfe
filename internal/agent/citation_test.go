package agent

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestSplitSources(t *testing.T) {
	tests := []struct {
		name, in, body, sources string
	}{
		{"none", "Just text.", "Just text.", ""},
		{"plain", "Answer.\nSources: a, b", "Answer.", "a, b"},
		{"bold", "Answer.\n\n**Sources:** a; b\n", "Answer.", "a; b"},
		{"singular lower", "Answer.\nsource: a", "Answer.", "a"},
		{"bulleted", "Answer.\nSources:\n- a\n- b\n", "Answer.", "\n- a\n- b"},
		{"last wins", "Sources: x\nmore\nSources: y", "Sources: x\nmore", "y"},
		{"not a label", "Sources of revenue are listed.", "Sources of revenue are listed.", ""},
	}
	for _, tt := range tests {
		body, sources, _ := splitSources(tt.in)
		if body != tt.body || sources != tt.sources {
			t.Errorf("%s: splitSources(%q) = %q, %q; want %q, %q", tt.name, tt.in, body, sources, tt.body, tt.sources)
		}
	}
}

func intp(v int) *int { return &v }

func TestCite(t *testing.T) {
	s := newSeen()
	s.add("contract_search", json.RawMessage(`{"total_count":3,"examples":[
		{"contract_id":"ACME CORP - Supply Agreement","title":"Supply"},
		{"contract_id":"ACME CORP - Supply Agreement 2","title":"Supply II"},
		{"contract_id":"x1"}]}`))
	s.add("clause_search", json.RawMessage(`{"passages":[{"contract_id":"x1","clause_type":"Cap On Liability","text":"t","start":10,"end":20}]}`))
	s.add("get_contract", json.RawMessage(`{"id":"g7","title":"Got","clauses":[
		{"type":"Governing Law","start":1,"end":5},{"type":"Non-Compete","start":7,"end":9}]}`))
	s.add("contract_search", json.RawMessage(`not json`))

	tests := []struct {
		name, text, body string
		want             []Citation
	}{
		{
			name: "prefix ids and case", text: "See acme corp - supply agreement 2.\nSources: ACME CORP - Supply Agreement",
			body: "See acme corp - supply agreement 2.",
			want: []Citation{{ContractID: "ACME CORP - Supply Agreement", Title: "Supply"}, {ContractID: "ACME CORP - Supply Agreement 2", Title: "Supply II"}},
		},
		{
			name: "search spans always, record spans when named", text: "x1 caps liability; g7's governing law is NY.\nSources: x1, g7, made-up",
			body: "x1 caps liability; g7's governing law is NY.",
			want: []Citation{
				{ContractID: "x1"},
				{ContractID: "x1", ClauseType: "Cap On Liability", Start: intp(10), End: intp(20)},
				{ContractID: "g7", Title: "Got"},
				{ContractID: "g7", Title: "Got", ClauseType: "Governing Law", Start: intp(1), End: intp(5)},
			},
		},
		{name: "glued ids are not mentions", text: "ax1 and g77 are not ids here.", body: "ax1 and g77 are not ids here.", want: []Citation{}},
		{name: "sources none", text: "Nothing found.\nSources: none", body: "Nothing found.", want: []Citation{}},
	}
	for _, tt := range tests {
		body, got := s.cite(tt.text)
		if body != tt.body {
			t.Errorf("%s: body %q, want %q", tt.name, body, tt.body)
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("%s: citations (-want +got):\n%s", tt.name, diff)
		}
	}
}

func FuzzCite(f *testing.F) {
	f.Add("See c1.\nSources: c1, c2")
	f.Add("**Sources:**\n- c2\n")
	f.Fuzz(func(t *testing.T, text string) {
		s := newSeen()
		s.add("contract_search", json.RawMessage(`{"examples":[{"contract_id":"c1"},{"contract_id":"C1 b"}]}`))
		_, cites := s.cite(text)
		for _, c := range cites {
			if _, ok := s.contracts[c.ContractID]; !ok {
				t.Fatalf("cited %q, which no tool returned", c.ContractID)
			}
		}
	})
}

func TestUnverified(t *testing.T) {
	const cuad = "ORBSATCORP_08_17_2007-EX-7.3-STRATEGIC ALLIANCE AGREEMENT"
	s := newSeen()
	s.add("contract_search", json.RawMessage(`{"total_count":3,"examples":[{"contract_id":"c03"},{"contract_id":"`+cuad+`"},{"contract_id":"demo-saas-kestrel"}]}`))
	toolNames := []string{"contract_search", "get_contract"}
	tests := []struct {
		name, text string
		want       []string
	}{
		{name: "returned ids only", text: "c03 and " + cuad + " and demo-saas-kestrel.\nSources: c03, " + cuad, want: nil},
		{name: "invented id of a returned shape", text: "See c03 and c99; also C12.\nSources: c03", want: []string{"c99", "C12"}},
		{name: "invented EDGAR id in prose, sentence after it", text: "The deal is VNUE,INC_07_10_2015-EX-10.1-SPONSORSHIP AGREEMENT. The other is c03.",
			want: []string{"VNUE,INC_07_10_2015-EX-10.1-SPONSORSHIP AGREEMENT"}},
		{name: "invented EDGAR id of the second form", text: "(GridironBionutrientsInc_20171206_8-K_EX-10.1_10972555_EX-10.1_Endorsement Agreement) ends in 2020.",
			want: []string{"GridironBionutrientsInc_20171206_8-K_EX-10.1_10972555_EX-10.1_Endorsement Agreement"}},
		{name: "a truncated returned id is not invented", text: "ORBSATCORP_08_17_2007-EX-7.3 is the alliance.", want: nil},
		{name: "synthetic ids", text: "gen-42-0000017 has no end date.", want: []string{"gen-42-0000017"}},
		{name: "sources line leftovers", text: "Answer.\nSources: c03, invented-id, none, contract_search, the tool results, 2005-12-31, acme-nda-2019",
			want: []string{"invented-id", "acme-nda-2019"}},
		{name: "field and result names are not ids", text: "Answer.\nSources: party_id, contract_search_result, ghost_2020", want: []string{"ghost_2020"}},
		{name: "dates, amounts and clause names are not ids", text: "It ended on 2005-12-31 after 10 years, for USD 1,000,000; see the Non-Compete clause and Q4 2019.\nSources: none", want: nil},
		{name: "a glued mention is not an id", text: "abc03 and c03x are words here.", want: nil},
		{name: "duplicates once, in order", text: "c98, c97, c98.\nSources: c97, c96", want: []string{"c98", "c97", "c96"}},
	}
	for _, tt := range tests {
		body, sources, _ := splitSources(tt.text)
		got := s.unverified(body, sources, toolNames)
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("%s: unverified (-want +got):\n%s", tt.name, diff)
		}
	}
}
