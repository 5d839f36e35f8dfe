package contract

import "testing"

func TestDurationWords(t *testing.T) {
	for in, want := range map[string]string{
		"P1Y":       "1 year",
		"P10Y":      "10 years",
		"P1Y6M":     "1 year and 6 months",
		"P90D":      "90 days",
		"P2W":       "2 weeks",
		"P1Y2M10D":  "1 year, 2 months and 10 days",
		"PT48H":     "48 hours",
		"P0D":       "no time",
		"p6m":       "6 months",
		"perpetual": "perpetual", // not a duration: shown as stored
		"":          "",
	} {
		if got := DurationWords(in); got != want {
			t.Errorf("DurationWords(%q) = %q, want %q", in, got, want)
		}
	}
}
