package graph

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestNormalize(t *testing.T) {
	yes := true
	for _, tc := range []struct {
		name string
		in   Filter
		want Filter
	}{
		{"defaults as_of", Filter{}, Filter{AsOf: "2026-12-01"}},
		{"canonical values", Filter{
			MinEffectiveDate: " 2019-10-01 ", ContractType: "supply", Parties: []string{" Acme ", "Acme"},
			PartyCountry: "United States", GoverningLawCountry: "us", GoverningLawState: "New York", Active: &yes,
			AsOf: "2020-01-01", Currency: " € ", ClauseTypes: []string{"cap on liability", "Cap On Liability"},
			WithoutClauseTypes: []string{"governing law"},
			SummarySearch:      "  cloud   hosting ", RenewalKind: "Auto-renewal", MaxNoticeDeadline: "2020-06-30",
		}, Filter{
			MinEffectiveDate: "2019-10-01", ContractType: "Supply", Parties: []string{"Acme"},
			PartyCountry: "US", GoverningLawCountry: "US", GoverningLawState: "NY", Active: &yes,
			AsOf: "2020-01-01", Currency: "EUR", ClauseTypes: []string{"Cap On Liability"},
			WithoutClauseTypes: []string{"Governing Law"},
			SummarySearch:      "cloud hosting", RenewalKind: "automatic", MaxNoticeDeadline: "2020-06-30",
		}},
		{"monetary ==", Filter{Monetary: &Monetary{Op: "==", Value: new(5.0)}}, Filter{AsOf: "2026-12-01", Monetary: &Monetary{Op: "=", Value: new(5.0)}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := tc.in.Normalize("2026-12-01")
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestNormalizeRefuses(t *testing.T) {
	for _, tc := range []struct {
		in    Filter
		field string
	}{
		{Filter{MinEffectiveDate: "01/10/2019"}, "min_effective_date"},
		{Filter{MinEndDate: "2021-01-01", MaxEndDate: "2020-01-01"}, "max_end_date"},
		{Filter{ContractType: "Spaceship Lease"}, "contract_type"},
		{Filter{Parties: []string{"?!"}}, "parties[0]"},
		{Filter{PartyCountry: "Atlantis"}, "party_country"},
		{Filter{GoverningLawCountry: "US", GoverningLawState: "Bavaria"}, "governing_law_state"},
		{Filter{Monetary: &Monetary{Op: "!=", Value: new(1.0)}}, "monetary_value.operator"},
		{Filter{Monetary: &Monetary{Op: ">"}}, "monetary_value.value"},
		{Filter{Currency: "zorkmid"}, "currency"},
		{Filter{ClauseTypes: []string{"Teleportation"}}, "clause_types"},
		{Filter{WithoutClauseTypes: []string{"Teleportation"}}, "without_clause_types"},
		{Filter{RenewalKind: "sometimes"}, "renewal_kind"},
		{Filter{MinNoticeDeadline: "2021-01-01", MaxNoticeDeadline: "2020-01-01"}, "max_notice_deadline"},
		{Filter{MinNoticeDeadline: "next week"}, "min_notice_deadline"},
	} {
		got, err := tc.in.Normalize("2026-12-01")
		var ae *ArgError
		if !errors.As(err, &ae) || ae.Field != tc.field || !errors.Is(err, ErrInvalidQuery) {
			t.Errorf("Normalize(%+v) = %v, want an ArgError on %s matching ErrInvalidQuery", tc.in, err, tc.field)
		}
		if !cmp.Equal(got, Filter{}) {
			t.Errorf("Normalize(%+v) returned %+v with its error, want the zero Filter", tc.in, got)
		}
	}
}

func TestWithNoticeMatches(t *testing.T) {
	f := Filter{MinNoticeDeadline: "2020-01-01", ContractIDs: []string{"a", "b"}}
	if got := f.WithNoticeMatches([]string{"b", "c"}); !cmp.Equal(got, Filter{ContractIDs: []string{"b"}}) {
		t.Errorf("intersection: %+v", got)
	}
	if got := f.WithNoticeMatches([]string{"c"}); !cmp.Equal(got.ContractIDs, []string{""}) {
		t.Errorf("no match must keep no contract, got ids %q", got.ContractIDs)
	}
	if got := (Filter{MaxNoticeDeadline: "2020-01-01"}).WithNoticeMatches([]string{"x"}); !cmp.Equal(got, Filter{ContractIDs: []string{"x"}}) {
		t.Errorf("no restriction before: %+v", got)
	}
}

// Misspelled states, provinces and countries are errors that suggest the
// nearest name instead of filters that silently match nothing; real
// regions elsewhere, with their country, stay free text.
func TestNormalizePlaceSuggestions(t *testing.T) {
	tests := []struct {
		f       Filter
		field   string
		wantMsg string // "" means no error
		want    string // the normalised state or country
	}{
		{Filter{GoverningLawState: "Nwe York"}, "governing_law_state", `"Nwe York" is not a US state or Canadian province (did you mean New York, NY?)`, ""},
		{Filter{GoverningLawCountry: "US", GoverningLawState: "Texsa"}, "governing_law_state", `"Texsa" is not a US state name or USPS code (did you mean Texas, TX?)`, ""},
		{Filter{GoverningLawCountry: "Canada", GoverningLawState: "Ontaro"}, "governing_law_state", `"Ontaro" is not a Canadian province or territory name or code (did you mean Ontario, ON?)`, ""},
		{Filter{GoverningLawState: "England"}, "governing_law_state", `"England" is not a US state or Canadian province; it is a country: use governing_law_country "GB"`, ""},
		{Filter{GoverningLawState: "Xyzzyland"}, "governing_law_state", `"Xyzzyland" is not a US state or Canadian province; for a region of another country, give governing_law_country too`, ""},
		{Filter{GoverningLawCountry: "Untied States"}, "governing_law_country", `"Untied States" is not a country name or ISO 3166-1 alpha-2 code (such as US, GB, CN, DE) (did you mean United States, US?)`, ""},
		{Filter{PartyCountry: "Germny"}, "party_country", `(did you mean Germany, DE?)`, ""},
		{Filter{GoverningLawState: "New York"}, "", "", "NY"},
		{Filter{GoverningLawState: "ontario"}, "", "", "ON"},
		{Filter{GoverningLawCountry: "DE", GoverningLawState: "Bavaria"}, "", "", "Bavaria"},
	}
	for _, tt := range tests {
		g, err := tt.f.Normalize("2026-01-01")
		if tt.wantMsg == "" {
			if err != nil || g.GoverningLawState != tt.want {
				t.Errorf("%+v: %v, state %q; want %q", tt.f, err, g.GoverningLawState, tt.want)
			}
			continue
		}
		var ae *ArgError
		if !errors.As(err, &ae) || ae.Field != tt.field || !strings.Contains(ae.Msg, tt.wantMsg) || !errors.Is(err, ErrInvalidQuery) {
			t.Errorf("%+v: error %v; want on %s: %s", tt.f, err, tt.field, tt.wantMsg)
		}
	}
}

// A summary-only clause hit is marked as such in JSON: no text, no span.
func TestClauseHitJSON(t *testing.T) {
	b, err := json.Marshal(ClauseHit{ContractID: "c1", ClauseID: "3", ClauseType: "Insurance", Summary: "Keeps insurance.", Score: 1.5})
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"contract_id":"c1","clause_id":"3","clause_type":"Insurance","summary":"Keeps insurance.","verified":false,"score":1.5}`; string(b) != want {
		t.Errorf("summary hit JSON %s, want %s", b, want)
	}
	b, _ = json.Marshal(ClauseHit{ContractID: "c1", Text: "words", Start: 0, End: 5, Verified: true, Score: 2})
	if want := `{"contract_id":"c1","text":"words","start":0,"end":5,"verified":true,"score":2}`; string(b) != want {
		t.Errorf("text hit JSON %s, want %s", b, want)
	}
}

// TestSummaryGroups checks how many words a summary search needs.
func TestSummaryGroups(t *testing.T) {
	cases := []struct {
		text string
		all  bool
		want [][]string
	}{
		{"software hosting for hospitals", false, [][]string{{"software", "hosting"}, {"software", "hospitals"}, {"hosting", "hospitals"}}},
		{"software hosting for hospitals", true, [][]string{{"software", "hosting", "hospitals"}}},
		{"solar farms", false, [][]string{{"solar", "farms"}}},
		{"the", false, [][]string{{"the"}}},
		{"?!", false, nil},
	}
	for _, c := range cases {
		if got := SummaryGroups(c.text, c.all); !reflect.DeepEqual(got, c.want) {
			t.Errorf("SummaryGroups(%q, %v) = %q, want %q", c.text, c.all, got, c.want)
		}
	}
	// Four of five words: five groups of four.
	if g := SummaryGroups("alpha beta gamma delta epsilon", false); len(g) != 5 || len(g[0]) != 4 {
		t.Errorf("five words: %q", g)
	}
	// Nine words would need 84 groups of six: every word instead.
	if g := SummaryGroups("a1 b2 c3 d4 e5 f6 g7 h8 i9", false); len(g) != 1 || len(g[0]) != 9 {
		t.Errorf("nine words: %q", g)
	}
}
