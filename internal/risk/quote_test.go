package risk

import (
	"strings"
	"testing"
)

func TestLocate(t *testing.T) {
	text := "1. Term.\n\nThis  Agreement shall\ncontinue for “two years”.\n\n9. Term.\nThis Agreement shall continue for two years."
	second := strings.LastIndex(text, "This Agreement")
	tests := []struct {
		name      string
		quote     string
		hint      int
		wantStart int
		wantSpan  string // text[start:end]
		ok        bool
	}{
		{"exact", "Agreement shall continue for two years", second, second + 5, "Agreement shall continue for two years", true},
		{"whitespace and typographic quotes", `"This Agreement shall continue for "two years"."`, 0, 10, "This  Agreement shall\ncontinue for “two years”.", true},
		{"nearest occurrence", "This Agreement shall continue", second - 5, second, "This Agreement shall continue", true},
		{"first occurrence", "This Agreement shall continue", 0, 10, "This  Agreement shall\ncontinue", true},
		{"ellipsis trimmed", "...shall continue for two years...", second, second + 15, "shall continue for two years", true},
		{"absent", "This Agreement terminates immediately", 0, 0, "", false},
		{"too short", "Term.", 0, 0, "", false},
		{"empty", "  ", 0, 0, "", false},
	}
	f := fold(text)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			start, end, ok := f.locate(tt.quote, tt.hint)
			if ok != tt.ok || start != tt.wantStart || text[start:end] != tt.wantSpan {
				t.Errorf("locate = %d, %q, %v; want %d, %q, %v", start, text[start:end], ok, tt.wantStart, tt.wantSpan, tt.ok)
			}
		})
	}
}

func TestContainsChinese(t *testing.T) {
	f := fold("當事人得約定債務人不履行債務時，應支付違約金。\n\nThe parties may agree on a penalty.")
	for quote, want := range map[string]bool{
		"應支付違約金":                   true,
		"違約金":                      false, // too short to mean anything
		"應支付損害賠償":                  false,
		"may   agree on a penalty": true,
	} {
		if got := f.contains(quote); got != want {
			t.Errorf("contains(%q) = %v, want %v", quote, got, want)
		}
	}
}

func FuzzLocate(f *testing.F) {
	f.Add("This  Agreement\nshall continue “for two years”.", "Agreement shall continue", 3)
	f.Add("a\u00adb c d e", "ab c d", 0)
	f.Fuzz(func(t *testing.T, text, quote string, hint int) {
		fl := fold(text)
		start, end, ok := fl.locate(quote, hint)
		if !ok {
			return
		}
		if start < 0 || end > len(text) || start > end {
			t.Fatalf("span %d..%d outside text of %d bytes", start, end, len(text))
		}
		// The located span must itself fold to the quote.
		if got, want := foldQuote(text[start:end]), foldQuote(quote); got != want {
			t.Fatalf("span %q folds to %q, quote folds to %q", text[start:end], got, want)
		}
	})
}
