package tools

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestFirstSentence(t *testing.T) {
	tests := []struct{ in, want string }{
		{"Find contracts. Returns more.", "Find contracts."},
		{`Search statutes (e.g. "9 U.S.C. § 2") and more. Then.`, `Search statutes (e.g. "9 U.S.C. § 2") and more.`},
		{"Use it, e.g. for counts. Next.", "Use it, e.g. for counts."},
		{"No stop at all", "No stop at all"},
		{"Version 1.5 is here. Next.", "Version 1.5 is here."},
	}
	for _, tt := range tests {
		if got := FirstSentence(tt.in); got != tt.want {
			t.Errorf("FirstSentence(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// A tool WriteText has no case for (here a made-up deadline_search) is laid
// out generically: its scalars as lines, its list of objects as a table
// with every field, nested objects as sections.
func TestWriteTextGeneric(t *testing.T) {
	result := `{"total_count":2,"as_of":"2026-01-01","deadlines":[` +
		`{"contract_id":"c1","kind":"notice","date":"2026-03-01","days_left":59,"parties":["Acme","Beta"]},` +
		`{"contract_id":"c2","kind":"renewal","date":"2026-06-30","days_left":180,"parties":["Gamma"]}],` +
		`"window":{"from":"2026-01-01","to":"2026-12-31"}}`
	var b strings.Builder
	if err := WriteText(&b, "deadline_search", nil, json.RawMessage(result), TextOptions{}); err != nil {
		t.Fatal(err)
	}
	got := b.String()
	for _, want := range []string{
		"total count  2\n",
		"as of        2026-01-01\n",
		"deadlines (2)\n",
		"CONTRACT ID  DATE        DAYS LEFT  KIND     PARTIES\n",
		"c1           2026-03-01  59         notice   Acme, Beta\n",
		"c2           2026-06-30  180        renewal  Gamma\n",
		"window\n  from  2026-01-01\n  to    2026-12-31\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("generic layout lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "{") {
		t.Errorf("generic layout shows JSON:\n%s", got)
	}
}

// A known tool's result with a field WriteText does not know (a result
// that has grown) is shown generically, so the new field is not hidden.
func TestWriteTextGrownResult(t *testing.T) {
	result := `{"total_groups":1,"groups":[{"key":"Service","value":3,"count":3,"share":"EUR-0.25"}]}`
	var b strings.Builder
	if err := WriteText(&b, NameContractAggregate, json.RawMessage(`{"group_by":"contract_type"}`), json.RawMessage(result), TextOptions{}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "EUR") {
		t.Errorf("the grown field is hidden:\n%s", b.String())
	}
}

// Tables fit the width by shortening the long columns, never the ids.
func TestWriteTextFitsWidth(t *testing.T) {
	long := strings.Repeat("Very Long Title ", 8)
	result := `{"total_count":1,"examples":[{"contract_id":"an-id-that-must-stay-whole-2019","title":"` + long +
		`","contract_type":"Service","parties":[{"name":"` + long + `"},{"name":"B"}],"clause_types":[]}]}`
	for _, width := range []int{80, 100} {
		var b strings.Builder
		if err := WriteText(&b, NameContractSearch, nil, json.RawMessage(result), TextOptions{Width: width, Indent: "  "}); err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(strings.TrimRight(b.String(), "\n"), "\n") {
			if n := len([]rune(line)); n > width {
				t.Errorf("width %d: line of %d columns: %q", width, n, line)
			}
		}
		if !strings.Contains(b.String(), "an-id-that-must-stay-whole-2019") || !strings.Contains(b.String(), "…") {
			t.Errorf("width %d: want the whole id and shortened titles:\n%s", width, b.String())
		}
	}
	// Without a width (a pipe or a file) nothing is cut.
	var b strings.Builder
	if err := WriteText(&b, NameContractSearch, nil, json.RawMessage(result), TextOptions{}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), strings.TrimSpace(long)) {
		t.Errorf("unbounded width cut the title:\n%s", b.String())
	}
}

// Amount groups are printed with their currency, one row per currency.
func TestWriteTextAmountsInCurrencies(t *testing.T) {
	result := `{"total_groups":3,"groups":[{"key":"all","currency":"EUR","value":6000000,"count":1},{"key":"all","currency":"CAD","value":1280000,"count":1},{"key":"all","currency":"","value":5,"count":4}]}`
	var b strings.Builder
	if err := WriteText(&b, NameContractAggregate, json.RawMessage(`{"metric":"sum_amount"}`), json.RawMessage(result), TextOptions{}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"EUR 6,000,000", "CAD 1,280,000", "5 (no currency)"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("no %q in:\n%s", want, b.String())
		}
	}
	if strings.Contains(b.String(), "7,280,000") {
		t.Errorf("amounts summed across currencies:\n%s", b.String())
	}
}
