package contract

import (
	"errors"
	"strings"
	"testing"
	"unicode"

	"github.com/google/go-cmp/cmp"
)

func TestCleanPartyName(t *testing.T) {
	tests := []struct{ in, want string }{
		{"  Acme   Corp.  ", "Acme Corp."},
		{"\"Acme, Inc.\"", "Acme, Inc."},
		{"“ Beta\tLLC ”", "Beta LLC"},
		{"'\"Nested\"'", "Nested"},
		{"O'Reilly Media", "O'Reilly Media"},
		{"\"", "\""},
		{"", ""},
	}
	for _, tt := range tests {
		if got := CleanPartyName(tt.in); got != tt.want {
			t.Errorf("CleanPartyName(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestMatchKey(t *testing.T) {
	tests := []struct{ in, want string }{
		{"C.M. Oliver", "cm oliver"},
		{"  Acme,   Inc. ", "acme inc"},
		{"AT&T Corp.", "att corp"},
		{"Coca-Cola", "cocacola"},
		{"Société Générale S.A.", "société générale sa"},
		{"...", ""},
	}
	for _, tt := range tests {
		if got := MatchKey(tt.in); got != tt.want {
			t.Errorf("MatchKey(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestPartyKey(t *testing.T) {
	tests := []struct{ in, want string }{
		{"Acme Inc.", "acme"},
		{"ACME, INC", "acme"},
		{"Acme Incorporated", "acme"},
		{"The Acme Corporation", "acme"},
		{"Foo Co., Ltd.", "foo"},
		{"Foo Holdings Co. Ltd", "foo holdings"},
		{"Bar L.L.C.", "bar"},
		{"Bar, LLC", "bar"},
		{"UBS ONCOLOGY IMPACT FUND L.P.", "ubs oncology impact fund"},
		{"Siemens AG", "siemens"},
		{"Müller GmbH & Co. KG", "muller"},
		{"Société Générale S.A.", "societe generale"},
		{"VÄRDE PARTNERS, INC.", "varde partners"},
		{"Straße AG", "strasse"},
		{"Grupo Bimbo, S.A.B. de C.V.", "grupo bimbo sab"},
		{"Procter & Gamble Company", "procter and gamble"},
		{"Limited", "limited"},
		{"Company Limited", "company"},
		{"The", "the"},
		{"Inc.", "inc"},
		{"", ""},
		{"!!!", ""},
	}
	for _, tt := range tests {
		if got := PartyKey(tt.in); got != tt.want {
			t.Errorf("PartyKey(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestPartyKeyMergesSpellings(t *testing.T) {
	groups := [][]string{
		{"Acme Corp.", "ACME CORPORATION", "Acme Corp", "acme, corp.", "The Acme Corporation"},
		{"Beta Pharma Ltd", "Beta Pharma Limited", "BETA PHARMA, LTD."},
	}
	for _, g := range groups {
		want := PartyKey(g[0])
		for _, n := range g[1:] {
			if got := PartyKey(n); got != want {
				t.Errorf("PartyKey(%q) = %q, want %q like %q", n, got, want, g[0])
			}
		}
	}
}

func TestNormalizeDate(t *testing.T) {
	tests := []struct{ in, want string }{
		{"2010-01-05", "2010-01-05"},
		{"2010-1-5", "2010-01-05"},
		{"2010/01/05", "2010-01-05"},
		{"2010-01-05T10:00:00Z", "2010-01-05"},
		{"1/5/10", "2010-01-05"},
		{"1/5/2010", "2010-01-05"},
		{"01-05-2010", "2010-01-05"},
		{"12.31.1999", "1999-12-31"},
		{"3/4/99", "1999-03-04"},
		{"25/12/2001", "2001-12-25"},
		{"January 5, 2010", "2010-01-05"},
		{"january 5 2010", "2010-01-05"},
		{"5 January 2010", "2010-01-05"},
		{"5th January, 2010", "2010-01-05"},
		{"the 5th day of January, 2010", "2010-01-05"},
		{"this 21st day of March, 2003", "2003-03-21"},
		{"Jan. 5, 2010", "2010-01-05"},
		{"Sept. 30, 2015", "2015-09-30"},
		{"Dec 1st, 1998", "1998-12-01"},
		{"February 29, 2000", "2000-02-29"},
		{"5-Jan-10", "2010-01-05"},
		{"Dated as of June 1, 2019", "2019-06-01"},
	}
	for _, tt := range tests {
		got, err := NormalizeDate(tt.in)
		if err != nil || got != tt.want {
			t.Errorf("NormalizeDate(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
		}
	}
}

func TestNormalizeDateErrors(t *testing.T) {
	tests := []struct{ in, wantErr string }{
		{"2019-02-30", `invalid date "2019-02-30": day 30 does not exist in 2019-02`},
		{"February 29, 2001", `invalid date "February 29, 2001": day 29 does not exist in 2001-02`},
		{"2019-13-01", `invalid date "2019-13-01": month 13 out of range`},
		{"13/13/2010", `invalid date "13/13/2010": month 13 out of range`},
		{"0001-01-01", `invalid date "0001-01-01": year 1 out of range 1800-2199`},
		{"", "invalid date: empty"},
		{"soon", `invalid date "soon": unrecognised format`},
		{"March 2010", `invalid date "March 2010": unrecognised format`},
		{"[●], 2010", `invalid date "[●], 2010": unrecognised format`},
		{"2010-01-05-07", `invalid date "2010-01-05-07": unrecognised format`},
		{"January 5 and 6, 2010", `invalid date "January 5 and 6, 2010": unrecognised format`},
	}
	for _, tt := range tests {
		got, err := NormalizeDate(tt.in)
		if err == nil {
			t.Errorf("NormalizeDate(%q) = %q, want error", tt.in, got)
			continue
		}
		if err.Error() != tt.wantErr {
			t.Errorf("NormalizeDate(%q) error = %q, want %q", tt.in, err, tt.wantErr)
		}
		if !errors.Is(err, ErrInvalidDate) {
			t.Errorf("NormalizeDate(%q) error does not wrap ErrInvalidDate", tt.in)
		}
	}
}

func TestParseISODuration(t *testing.T) {
	tests := []struct {
		in   string
		want int
	}{
		{"P1Y", 365},
		{"P1Y2M10D", 365 + 60 + 10},
		{"P6M", 180},
		{"P2W", 14},
		{"P365D", 365},
		{"p10y", 3650},
		{"PT48H", 2},
		{"P1DT12H", 1},
		{"P0D", 0},
	}
	for _, tt := range tests {
		got, err := ParseISODuration(tt.in)
		if err != nil || got != tt.want {
			t.Errorf("ParseISODuration(%q) = %d, %v; want %d", tt.in, got, err, tt.want)
		}
	}
}

func TestParseISODurationErrors(t *testing.T) {
	tests := []struct{ in, wantErr string }{
		{"P", `invalid ISO 8601 duration "P": must start with P and hold at least one component, e.g. P1Y6M`},
		{"PUN", `invalid ISO 8601 duration "PUN": expected a number at "UN"`},
		{"P[*****]Y", `invalid ISO 8601 duration "P[*****]Y": expected a number at "[*****]Y"`},
		{"PInfinite", `invalid ISO 8601 duration "PInfinite": expected a number at "INFINITE"`},
		{"P5", `invalid ISO 8601 duration "P5": number 5 has no unit`},
		{"P1.5Y", `invalid ISO 8601 duration "P1.5Y": fractional values are not supported; use a smaller unit, e.g. P18M for P1.5Y`},
		{"P1D2Y", `invalid ISO 8601 duration "P1D2Y": unexpected unit "Y"`},
		{"P1Y1Y", `invalid ISO 8601 duration "P1Y1Y": unexpected unit "Y"`},
		{"PT", `invalid ISO 8601 duration "PT": T without a time component`},
		{"P1H", `invalid ISO 8601 duration "P1H": unexpected unit "H"`},
		{"P9999999D", `invalid ISO 8601 duration "P9999999D": number 9999999 too large`},
		{"two years", `invalid ISO 8601 duration "two years": must start with P and hold at least one component, e.g. P1Y6M`},
		{"From the first day of the Warranty Period", `invalid ISO 8601 duration "From the first day of the Warranty Period": must start with P and hold at least one component, e.g. P1Y6M`},
	}
	for _, tt := range tests {
		got, err := ParseISODuration(tt.in)
		if err == nil {
			t.Errorf("ParseISODuration(%q) = %d, want error", tt.in, got)
			continue
		}
		if err.Error() != tt.wantErr {
			t.Errorf("ParseISODuration(%q) error = %q, want %q", tt.in, err, tt.wantErr)
		}
		if !errors.Is(err, ErrInvalidDuration) {
			t.Errorf("ParseISODuration(%q) does not wrap ErrInvalidDuration", tt.in)
		}
	}
}

func TestDurationEnd(t *testing.T) {
	tests := []struct{ start, dur, want string }{
		{"2010-01-05", "P1Y", "2011-01-05"},
		{"2010-01-05", "P1Y2M10D", "2011-03-15"},
		{"2020-02-29", "P1Y", "2021-03-01"},
		{"2020-01-31", "P1M", "2020-03-02"},
		{"2020-01-01", "P2W", "2020-01-15"},
		{"2020-01-01", "PT36H", "2020-01-02"},
		{"January 5, 2010", "P5Y", "2015-01-05"},
	}
	for _, tt := range tests {
		got, err := DurationEnd(tt.start, tt.dur)
		if err != nil || got != tt.want {
			t.Errorf("DurationEnd(%q, %q) = %q, %v; want %q", tt.start, tt.dur, got, err, tt.want)
		}
	}
	if _, err := DurationEnd("2019-02-30", "P1Y"); err == nil || !strings.HasPrefix(err.Error(), "start: invalid date") {
		t.Errorf("DurationEnd with bad start: err = %v", err)
	}
	if _, err := DurationEnd("2019-02-01", "PUN"); !errors.Is(err, ErrInvalidDuration) {
		t.Errorf("DurationEnd with bad duration: err = %v", err)
	}
}

func TestNormalizeCountry(t *testing.T) {
	tests := []struct {
		in   string
		want string
	}{
		{"United States", "US"}, {"USA", "US"}, {"U.S.A.", "US"}, {"U.S.", "US"},
		{"United States of America", "US"}, {"the United States", "US"}, {"us", "US"},
		{"UK", "GB"}, {"England", "GB"}, {"Great Britain", "GB"}, {"United Kingdom", "GB"},
		{"England and Wales", "GB"}, {"GBR", "GB"},
		{"PRC", "CN"}, {"People's Republic of China", "CN"}, {"China", "CN"}, {"CHN", "CN"},
		{"Hong Kong", "HK"}, {"Hong Kong SAR", "HK"}, {"Korea", "KR"}, {"Republic of Korea", "KR"},
		{"Cayman Islands", "KY"}, {"KY", "KY"}, {"British Virgin Islands", "VG"},
		{"Germany", "DE"}, {"DEU", "DE"}, {"Japan", "JP"}, {"Canada", "CA"}, {"Israel", "IL"},
		{"Côte d’Ivoire", "CI"}, {"Cote d'Ivoire", "CI"}, {"Curaçao", "CW"},
		{"Bosnia and Herzegovina", "BA"}, {"Bosnia & Herzegovina", "BA"},
		{"Saint Kitts and Nevis", "KN"}, {"Netherlands", "NL"}, {"The Netherlands", "NL"},
		{"Taiwan", "TW"}, {"Singapore", "SG"}, {"Switzerland", "CH"}, {"Bermuda", "BM"},
	}
	for _, tt := range tests {
		got, ok := NormalizeCountry(tt.in)
		if !ok || got != tt.want {
			t.Errorf("NormalizeCountry(%q) = %q, %v; want %q", tt.in, got, ok, tt.want)
		}
	}
	for _, bad := range []string{"", "[***]", "Narnia", "Delaware", "XX", "N/A"} {
		if got, ok := NormalizeCountry(bad); ok {
			t.Errorf("NormalizeCountry(%q) = %q, want not ok", bad, got)
		}
	}
}

func TestCountryTableComplete(t *testing.T) {
	if len(countries) != 249 {
		t.Errorf("country table has %d entries, want the 249 ISO 3166-1 assignments", len(countries))
	}
	seen2, seen3 := map[string]bool{}, map[string]bool{}
	for _, c := range countries {
		if len(c.alpha2) != 2 || len(c.alpha3) != 3 || c.name == "" {
			t.Errorf("malformed entry %+v", c)
		}
		if seen2[c.alpha2] || seen3[c.alpha3] {
			t.Errorf("duplicate code in %+v", c)
		}
		seen2[c.alpha2], seen3[c.alpha3] = true, true
		for _, in := range []string{c.alpha2, c.alpha3, c.name, strings.ToUpper(c.name)} {
			if got, ok := NormalizeCountry(in); !ok || got != c.alpha2 {
				t.Errorf("NormalizeCountry(%q) = %q, %v; want %q", in, got, ok, c.alpha2)
			}
		}
		if CountryName(c.alpha2) != c.name {
			t.Errorf("CountryName(%q) = %q", c.alpha2, CountryName(c.alpha2))
		}
	}
}

func TestNormalizeUSState(t *testing.T) {
	tests := []struct{ in, want string }{
		{"New York", "NY"}, {"NY", "NY"}, {"N.Y.", "NY"}, {"ny", "NY"}, {"State of New York", "NY"},
		{"Delaware", "DE"}, {"Del.", "DE"}, {"California", "CA"}, {"Calif.", "CA"},
		{"District of Columbia", "DC"}, {"Washington, D.C.", "DC"}, {"D.C.", "DC"},
		{"Puerto Rico", "PR"}, {"Commonwealth of Massachusetts", "MA"}, {"Texas", "TX"},
	}
	for _, tt := range tests {
		got, ok := NormalizeUSState(tt.in)
		if !ok || got != tt.want {
			t.Errorf("NormalizeUSState(%q) = %q, %v; want %q", tt.in, got, ok, tt.want)
		}
	}
	for _, bad := range []string{"", "Ontario", "Bavaria", "XX", "[***]"} {
		if got, ok := NormalizeUSState(bad); ok {
			t.Errorf("NormalizeUSState(%q) = %q, want not ok", bad, got)
		}
	}
	for code, name := range usStates {
		if got, _ := NormalizeUSState(name); got != code {
			t.Errorf("NormalizeUSState(%q) = %q, want %q", name, got, code)
		}
		if USStateName(code) != name {
			t.Errorf("USStateName(%q) = %q", code, USStateName(code))
		}
	}
}

func TestNormalizeState(t *testing.T) {
	tests := []struct{ country, in, want string }{
		{"US", "New York", "NY"},
		{"us", "Delaware", "DE"},
		{"US", "Unknown County", "Unknown County"},
		{"CA", "Ontario", "ON"},
		{"CA", "Québec", "QC"},
		{"CA", "British Columbia", "BC"},
		{"DE", "  Bavaria ", "Bavaria"},
		{"", "New York", "New York"},
	}
	for _, tt := range tests {
		if got := NormalizeState(tt.country, tt.in); got != tt.want {
			t.Errorf("NormalizeState(%q, %q) = %q, want %q", tt.country, tt.in, got, tt.want)
		}
	}
}

func TestNormalizeCurrency(t *testing.T) {
	tests := []struct{ in, want string }{
		{"USD", "USD"}, {"$", "USD"}, {"US dollars", "USD"}, {"U.S. Dollars", "USD"},
		{"EUR", "EUR"}, {"€", "EUR"}, {"euros", "EUR"}, {"GBP", "GBP"}, {"£", "GBP"},
		{"pounds sterling", "GBP"}, {"RMB", "CNY"}, {"CNY", "CNY"}, {"JPY", "JPY"}, {"yen", "JPY"},
	}
	for _, tt := range tests {
		got, ok := NormalizeCurrency(tt.in)
		if !ok || got != tt.want {
			t.Errorf("NormalizeCurrency(%q) = %q, %v; want %q", tt.in, got, ok, tt.want)
		}
	}
	if got, ok := NormalizeCurrency("doubloons"); ok {
		t.Errorf("NormalizeCurrency(doubloons) = %q, want not ok", got)
	}
}

func FuzzNormalizeDate(f *testing.F) {
	for _, s := range []string{"2010-01-05", "1/5/10", "the 5th day of January, 2010", "Jan. 5, 2010", "2019-02-30", "", "5-Jan-10", "2010-01-05T10:00"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, err := NormalizeDate(s)
		if err != nil {
			if !errors.Is(err, ErrInvalidDate) {
				t.Fatalf("NormalizeDate(%q) error %v does not wrap ErrInvalidDate", s, err)
			}
			return
		}
		again, err := NormalizeDate(got)
		if err != nil || again != got {
			t.Fatalf("NormalizeDate(%q) = %q, but NormalizeDate(%q) = %q, %v", s, got, got, again, err)
		}
	})
}

func FuzzParseISODuration(f *testing.F) {
	for _, s := range []string{"P1Y2M10D", "P6M", "P2W", "P365D", "P", "PUN", "P[*****]Y", "PT48H", "P1DT"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		days, err := ParseISODuration(s)
		if err != nil {
			if !errors.Is(err, ErrInvalidDuration) {
				t.Fatalf("ParseISODuration(%q) error %v does not wrap ErrInvalidDuration", s, err)
			}
			return
		}
		if days < 0 {
			t.Fatalf("ParseISODuration(%q) = %d, negative", s, days)
		}
		if _, err := DurationEnd("2000-01-01", s); err != nil {
			t.Fatalf("DurationEnd(2000-01-01, %q) failed after ParseISODuration succeeded: %v", s, err)
		}
	})
}

func FuzzPartyKey(f *testing.F) {
	for _, s := range []string{"Acme Inc.", "The Co", "Limited", "C.M. Oliver", "Foo Co., Ltd.", "the the inc", "AB AB"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		k := PartyKey(s)
		if again := PartyKey(k); again != k {
			t.Fatalf("PartyKey not idempotent: PartyKey(%q) = %q, PartyKey(%q) = %q", s, k, k, again)
		}
		if mk := MatchKey(s); MatchKey(mk) != mk {
			t.Fatalf("MatchKey not idempotent on %q", s)
		}
		hasAlnum := strings.IndexFunc(s, func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }) >= 0
		if hasAlnum && k == "" {
			t.Fatalf("PartyKey(%q) is empty", s)
		}
		if c := CleanPartyName(s); CleanPartyName(c) != c {
			t.Fatalf("CleanPartyName not idempotent on %q: %q then %q", s, c, CleanPartyName(c))
		}
	})
}

func TestCleanPartyNameKeepsMeaning(t *testing.T) {
	got := []string{CleanPartyName("  A  B "), CleanPartyName("\u00a0A\u00a0")}
	if diff := cmp.Diff([]string{"A B", "A"}, got); diff != "" {
		t.Errorf("CleanPartyName (-want +got):\n%s", diff)
	}
}

func FuzzNormalizeCountry(f *testing.F) {
	for _, s := range []string{"United States", "U.S.A.", "N/A", "Republic of Korea", "Côte d’Ivoire", "[***]", "Ontario"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if c, ok := NormalizeCountry(s); ok {
			if CountryName(c) == "" {
				t.Fatalf("NormalizeCountry(%q) = %q, not an assigned code", s, c)
			}
			if again, ok := NormalizeCountry(c); !ok || again != c {
				t.Fatalf("NormalizeCountry(%q) = %q but NormalizeCountry(%q) = %q", s, c, c, again)
			}
		}
		if st, ok := NormalizeUSState(s); ok {
			if USStateName(st) == "" || NormalizeState("US", s) != st {
				t.Fatalf("NormalizeUSState(%q) = %q inconsistent", s, st)
			}
		}
	})
}

func TestNormalizePartialDate(t *testing.T) {
	tests := []struct{ in, iso, precision string }{
		{"2019", "2019", PrecisionYear},
		{"fiscal year 2019", "2019", PrecisionYear},
		{"March 2019", "2019-03", PrecisionMonth},
		{"Mar. 2019", "2019-03", PrecisionMonth},
		{"2019-03", "2019-03", PrecisionMonth},
		{"03/2019", "2019-03", PrecisionMonth},
		{"January, 2010", "2010-01", PrecisionMonth},
		{"March 5, 2019", "", ""}, // a full date: NormalizeDate's
		{"13/2019", "", ""},
		{"1799", "", ""},
		{"[***]", "", ""},
	}
	for _, tt := range tests {
		iso, precision, ok := NormalizePartialDate(tt.in)
		if iso != tt.iso || precision != tt.precision || ok != (tt.iso != "") {
			t.Errorf("NormalizePartialDate(%q) = %q, %q, %v; want %q, %q", tt.in, iso, precision, ok, tt.iso, tt.precision)
		}
	}
}
