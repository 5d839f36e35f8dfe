package extract

import (
	"testing"
)

// TestLocate pins what evidence location accepts; the matcher itself
// (textmatch) has its own table and fuzz tests.
func TestLocate(t *testing.T) {
	text := "1. TERM.\nThis Agreement shall commence on\n  January 1, 2020 (the \u201cEffective Date\u201d) and continue for two\u2014years.\nGOVERNING LAW. Laws of the State of New York."
	tests := []struct {
		quote string
		want  string // the located words; "" means not found
		exact bool
	}{
		{"shall commence on", "shall commence on", true},
		{"This Agreement shall commence on January 1, 2020", "This Agreement shall commence on\n  January 1, 2020", false},
		{`the "Effective Date"`, "the \u201cEffective Date\u201d", false},
		{"continue for two-years", "continue for two\u2014years", false},
		{"governing law. laws of the state of new york.", "GOVERNING LAW. Laws of the State of New York.", false},
		{"\u201cLaws of the State of New York.\u201d", "Laws of the State of New York.", false},
		{"Laws of the State of New York;", "Laws of the State of New York", false},
		{"State of California", "", false},
		{"   ", "", false},
	}
	l := NewLocator(text)
	for _, tt := range tests {
		m, ok := l.Locate(tt.quote)
		if tt.want == "" {
			if ok {
				t.Errorf("Locate(%q) = %q, want not found", tt.quote, text[m.Start:m.End])
			}
			continue
		}
		if !ok {
			t.Errorf("Locate(%q) not found", tt.quote)
			continue
		}
		if got := text[m.Start:m.End]; got != tt.want || m.Exact != tt.exact {
			t.Errorf("Locate(%q) = %q exact=%v, want %q exact=%v", tt.quote, got, m.Exact, tt.want, tt.exact)
		}
	}
}
