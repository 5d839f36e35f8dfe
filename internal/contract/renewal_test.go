package contract

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestParseDuration(t *testing.T) {
	tests := []struct{ in, want string }{
		{"successive 1 year", "P1Y"}, {"90 days", "P90D"}, {"6 months", "P6M"}, {"0.5 year", "P6M"},
		{"60) days", "P60D"}, {"four successive 10 years", "P10Y"}, {"6 weeks", "P6W"},
		{"thirty (30) days", "P30D"}, {"5 years; 2 years", "P5Y"},
		{"ninety (90) days prior written notice", "P90D"},
		{"one hundred twenty (120) days", "P120D"},
		{"forty-five days", "P45D"},
		{"successive one-year terms", "P1Y"},
		{"twelve (12) months' notice", "P12M"},
		{"additional 3~year periods", "P3Y"},
		{"half a year", "P6M"},
		{"on a year to year basis", "P1Y"},
		{"month-to-month", "P1M"},
		{"P90D", "P90D"},
		{"six (6) calendar months", "P6M"},
		{"thirty (60) days", "P60D"}, // the figure in parentheses wins
	}
	for _, tt := range tests {
		if got, ok := ParseDuration(tt.in); !ok || got != tt.want {
			t.Errorf("ParseDuration(%q) = %q, %v; want %q", tt.in, got, ok, tt.want)
		}
	}
	for _, bad := range []string{"successive []", "[]", "perpetual", "", "0 days", "500 years", "Section 12"} {
		if got, ok := ParseDuration(bad); ok {
			t.Errorf("ParseDuration(%q) = %q, want none", bad, got)
		}
	}
}

func TestParseNoticePeriod(t *testing.T) {
	tests := []struct{ in, want string }{
		{"30 days", "P30D"},
		{"180 days / 6 months", "P180D"},
		{"60 days; 180 days", "P60D"},
		{"This Agreement shall automatically renew for successive one (1) year periods unless either party gives notice at least ninety (90) days before the end of the then-current term.", "P90D"},
		{"unless either party gives notice at least 3 months before the end of the then-current term", "P3M"},
		{"Either party may terminate this Agreement for convenience upon sixty (60) days prior written notice.", "P60D"},
		{"The Agreement shall automatically renew for successive one year additional terms unless terminated by either party at least six months prior to the expiration of the then-current term.", "P6M"},
		{"Following the Initial Term, either Party may terminate this Agreement without cause upon written notice to the other Party of at least 3 months.", "P3M"},
		{"by either party giving at least twelve (12) months' prior written notice to expire on or after the expiry date of the initial term of one (1) years", "P12M"},
	}
	for _, tt := range tests {
		if got, ok := ParseNoticePeriod(tt.in); !ok || got != tt.want {
			t.Errorf("ParseNoticePeriod(%q) = %q, %v; want %q", tt.in, got, ok, tt.want)
		}
	}
	for _, bad := range []string{"", "[]", "This Agreement shall renew automatically for successive one (1) year terms."} {
		if got, ok := ParseNoticePeriod(bad); ok {
			t.Errorf("ParseNoticePeriod(%q) = %q, want none", bad, got)
		}
	}
}

func TestParseRenewal(t *testing.T) {
	tests := []struct {
		in   string
		want Renewal
	}{
		{"successive 1 year", Renewal{Term: "P1Y"}},
		{"3 successive 1 year", Renewal{Term: "P1Y", Count: 3}},
		{"2 5 years", Renewal{Term: "P5Y", Count: 2}},
		{"four successive 10 years", Renewal{Term: "P10Y", Count: 4}},
		{"4 years, 6 months", Renewal{Term: "P54M"}},
		{"perpetual", Renewal{Kind: RenewalEvergreen}},
		{"This agreement shall begin upon the date of its execution and shall be automatically renewed for successive one (1) year periods unless otherwise terminated.",
			Renewal{Kind: RenewalAutomatic, Term: "P1Y"}},
		{"Thereafter, this Agreement shall renew automatically for one (1) additional three (3) year period unless either party provides the other with written notice of non-renewal at least ninety (90) days before the expiration of the Initial Term.",
			Renewal{Kind: RenewalAutomatic, Term: "P3Y", Count: 1, Notice: "P90D"}},
		{"At Rogers' option, this Agreement shall renew for a subsequent term of two (2) years on the terms and conditions herein.",
			Renewal{Kind: RenewalOption, Term: "P2Y"}},
		{"At any time prior to the end of the Term, the Parties may agree in writing to extend the Agreement for successive One (1) Year periods.",
			Renewal{Kind: RenewalOption, Term: "P1Y"}},
		{"This agreement begins on the Commencement Date and shall continue indefinitely until terminated by either party giving at least twelve (12) months' prior written notice.",
			Renewal{Kind: RenewalEvergreen, Notice: "P12M"}},
		{"It is established by calendar year and renewed tacitly every year.", Renewal{Kind: RenewalAutomatic, Term: "P1Y"}},
		{"This Agreement will automatically renew at the end of the Initial Term on a year to year basis unless either Party notifies the other at least 30 days prior to the end of the Initial Term.",
			Renewal{Kind: RenewalAutomatic, Term: "P1Y", Notice: "P30D"}},
		{"This Agreement shall not be renewed.", Renewal{Kind: RenewalNone}},
		{"", Renewal{}},
	}
	for _, tt := range tests {
		if got := ParseRenewal(tt.in); got != tt.want {
			t.Errorf("ParseRenewal(%q)\n = %+v\nwant %+v", tt.in, got, tt.want)
		}
	}
}

func TestParseRenewalKind(t *testing.T) {
	tests := []struct{ in, want string }{
		{"automatic", RenewalAutomatic}, {"Auto-renewal", RenewalAutomatic}, {"evergreen", RenewalEvergreen},
		{"perpetual", RenewalEvergreen}, {"by option", RenewalOption}, {"mutual agreement", RenewalOption},
		{"none", RenewalNone}, {"renews automatically for successive one-year terms", RenewalAutomatic},
	}
	for _, tt := range tests {
		if got, ok := ParseRenewalKind(tt.in); !ok || got != tt.want {
			t.Errorf("ParseRenewalKind(%q) = %q, %v; want %q", tt.in, got, ok, tt.want)
		}
	}
	if got, ok := ParseRenewalKind("the parties"); ok {
		t.Errorf("ParseRenewalKind(%q) = %q, want none", "the parties", got)
	}
}

// FuzzParseRenewal checks that no text makes the parsers fail or return
// a value the timeline cannot use.
func FuzzParseRenewal(f *testing.F) {
	for _, s := range []string{"successive 1 year", "ninety (90) days prior written notice", "perpetual",
		"one hundred and twenty (120) days", "3 successive 1 year", "P1Y2M", "half a year", "\xff days"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		r := ParseRenewal(s)
		for _, iso := range []string{r.Term, r.Notice} {
			if iso == "" {
				continue
			}
			if d, err := ParseISODuration(iso); err != nil || d <= 0 || d > maxParsedDays {
				t.Fatalf("ParseRenewal(%q) period %q: %d days, %v", s, iso, d, err)
			}
		}
		if r.Kind != "" && !strings.Contains(strings.Join(RenewalKinds, " "), r.Kind) {
			t.Fatalf("ParseRenewal(%q) kind %q", s, r.Kind)
		}
		if r.Count < 0 || r.Count > 50 {
			t.Fatalf("ParseRenewal(%q) count %d", s, r.Count)
		}
		if iso, ok := ParseNoticePeriod(s); ok && !utf8.ValidString(iso) {
			t.Fatalf("ParseNoticePeriod(%q) = %q", s, iso)
		}
	})
}
