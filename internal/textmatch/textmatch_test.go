package textmatch

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestFindNear(t *testing.T) {
	text := "1. TERM.\n\nThis  Agreement shall\ncontinue for \u201ctwo years\u201d.\n\n" +
		"9. Term.\nThis Agreement shall continue for two years, and is non-\nexclusive and termi-\nnation free.\n" +
		"當事人得約定債務人不履行債務時，應支付違約金。 Die Straße führt ΟΔΟΣ nach Köln."
	second := strings.LastIndex(text, "This Agreement")
	tests := []struct {
		name  string
		quote string
		hint  int
		want  string // text[Start:End]; "" means not found
		start int    // checked when want is set
		exact bool
	}{
		{"exact", "Agreement shall continue for two years", 0, "Agreement shall continue for two years", second + 5, true},
		{"curly quotes and white space runs", `This Agreement shall continue for "two years".`, 0,
			"This  Agreement shall\ncontinue for \u201ctwo years\u201d.", 10, false},
		{"case", "1. term. this agreement", 0, "1. TERM.\n\nThis  Agreement", 0, false},
		{"a quote that appears twice: the first", "THIS AGREEMENT SHALL", 0, "This  Agreement shall", 10, false},
		{"a quote that appears twice: the one nearest the hint", "THIS AGREEMENT SHALL", second + 40, "This Agreement shall", second, false},
		{"an exact occurrence is preferred to a nearer folded one", "This Agreement shall continue", 0, "This Agreement shall continue", second, true},
		{"compound broken at a line end", "is non-exclusive and", 0, "is non-\nexclusive and", strings.Index(text, "is non-"), false},
		{"compound written whole", "nonexclusive and termination free", 0, "non-\nexclusive and termi-\nnation free", strings.Index(text, "non-"), false},
		{"hyphenated word", "and termination", 0, "and termi-\nnation", strings.Index(text, "and termi-"), false},
		{"wrapping quote marks and ellipsis", "\u201c...continue for two years, and\u2026\u201d", 0, "continue for two years, and", strings.Index(text, "continue for two years,"), false},
		{"the wrapping the text holds is kept", `'continue for "two years".'`, 0, "continue for \u201ctwo years\u201d.", strings.Index(text, "continue"), false},
		{"full-width punctuation", "不履行債務時,應支付違約金.", 0, "不履行債務時，應支付違約金", strings.Index(text, "不履行"), false},
		{"non-ASCII case", "STRASSE", 0, "", 0, false},
		{"non-ASCII case folding", "die straße führt οδος nach köln", 0, "Die Straße führt ΟΔΟΣ nach Köln", strings.Index(text, "Die"), false},
		{"final sigma", "ΟΔΟς", 0, "ΟΔΟΣ", strings.Index(text, "ΟΔΟΣ"), false},
		{"absent", "This Agreement terminates immediately", 0, "", 0, false},
		{"empty", "", 0, "", 0, false},
		{"blank", " \n\t", 0, "", 0, false},
		{"only wrapping", `"..."`, 0, "", 0, false},
		{"longer than the text", strings.Repeat(text, 2), 0, "", 0, false},
	}
	tx := New(text)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, ok := tx.FindNear(tt.quote, tt.hint)
			if tt.want == "" {
				if ok {
					t.Fatalf("found %q at %d..%d, want not found", text[s.Start:s.End], s.Start, s.End)
				}
				return
			}
			if !ok {
				t.Fatalf("not found, want %q", tt.want)
			}
			if got := text[s.Start:s.End]; got != tt.want || s.Start != tt.start || s.Exact != tt.exact {
				t.Errorf("found %q at %d exact=%v, want %q at %d exact=%v", got, s.Start, s.Exact, tt.want, tt.start, tt.exact)
			}
		})
	}
}

func TestFindIsFindNearTheStart(t *testing.T) {
	text := "Either party may terminate. EITHER PARTY MAY TERMINATE."
	s, ok := New(text).Find("either party may terminate")
	if !ok || s.Start != 0 || s.End != len("Either party may terminate") {
		t.Errorf("Find = %+v, %v; want the first occurrence", s, ok)
	}
}

func TestFold(t *testing.T) {
	for in, want := range map[string]string{
		"  The \u201cParty\u201d\u00a0\u2014 its\tAGENTS\n": `the "party" - its agents`,
		"co-\n  operate, non-exclusive, 2019-2020, -5":      "cooperate, nonexclusive, 2019-2020, -5",
		"word -\nnext, word- next":                          "word - next, word- next",
		"in\u00advisible\u200b and \ufeffgone":              "invisible and gone",
		"\ufb01nal \ufb02oor, ＡＢＣ（１）":                       "final floor, abc(1)",
		"wait\u2026 it\u2019s `so` \u00abquoted\u00bb":      `wait... it's 'so' "quoted"`,
		"\xff\xfe": "\ufffd\ufffd",
		"":         "",
	} {
		if got := Fold(in); got != want {
			t.Errorf("Fold(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestEqual(t *testing.T) {
	for _, tt := range []struct {
		a, b string
		want bool
	}{
		{"shall be settled by binding\n arbitration", "Shall be settled by binding arbitration", true},
		{"\u201cthe award shall be final.\u201d", "the award shall be final", true},
		{"the award shall be final", "the award shall not be final", false},
		{"", "  ", true},
	} {
		if got := Equal(tt.a, tt.b); got != tt.want {
			t.Errorf("Equal(%q, %q) = %v, want %v", tt.a, tt.b, got, tt.want)
		}
	}
}

func TestStopWord(t *testing.T) {
	for w, want := range map[string]bool{"the": true, "a": true, "their": true, "shall": false, "arbitration": false, "The": false} {
		if got := StopWord(w); got != want {
			t.Errorf("StopWord(%q) = %v, want %v", w, got, want)
		}
	}
}

func FuzzFindNear(f *testing.F) {
	f.Add("The Licensor \u201cshall\u201d  PAY", "licensor \"shall\" pay", 0, 3)
	f.Add("a\u00a0b\tc", "A B C", 1, 0)
	f.Add("\xff\xfeabc", "ABC", 2, 1)
	f.Add("non-\nexclusive termi-\nnation", "nonexclusive termination", 0, 5)
	f.Add("a\u00adb c d e", "ab c d", 0, 0)
	f.Fuzz(func(t *testing.T, text, quote string, hint, cut int) {
		tx := New(text)
		s, ok := tx.FindNear(quote, hint)
		if ok {
			if s.Start < 0 || s.End > len(text) || s.Start >= s.End {
				t.Fatalf("bad span %+v for a text of %d bytes", s, len(text))
			}
			got := text[s.Start:s.End]
			if s.Exact && got != strings.TrimSpace(quote) {
				t.Fatalf("exact span %q is not the quote %q", got, quote)
			}
			if utf8.ValidString(text) && !utf8.ValidString(got) {
				t.Fatalf("span splits a character: %q", got)
			}
			if !Equal(got, quote) {
				t.Fatalf("span %q and quote %q are not Equal", got, quote)
			}
		}
		// Any substring of a valid text is found exactly, at or before
		// where it was cut.
		if !utf8.ValidString(text) || len(text) == 0 {
			return
		}
		if cut < 0 {
			cut = -cut
		}
		i := cut % len(text)
		for i > 0 && !utf8.RuneStart(text[i]) {
			i--
		}
		sub := strings.TrimSpace(text[i:])
		if sub == "" {
			return
		}
		s, ok = tx.Find(sub)
		if !ok || !s.Exact || s.Start > i+len(text[i:])-len(strings.TrimLeft(text[i:], " \t\n\v\f\r\u0085\u00a0")) {
			t.Fatalf("substring at %d not found exactly: %+v %v", i, s, ok)
		}
	})
}

// BenchmarkFind finds a quote near the end of a 200 KB contract: once
// exactly, once only after folding (as with a model's reflowed quote).
func BenchmarkFind(b *testing.B) {
	text := strings.Repeat("The Supplier shall deliver the Products in accordance with Schedule A.\n", 2800) +
		"This Agreement shall be governed by the laws of the State of New York."
	tx := New(text)
	for _, bc := range []struct{ name, quote string }{
		{"exact", "governed by the laws of the State of New York."},
		{"folded", "GOVERNED BY THE LAWS OF\nTHE STATE OF NEW YORK"},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.SetBytes(int64(len(text)))
			for b.Loop() {
				if _, ok := tx.Find(bc.quote); !ok {
					b.Fatal("not found")
				}
			}
		})
	}
}
