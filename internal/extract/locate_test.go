package extract

import (
	"strings"
	"testing"
	"unicode/utf8"
)

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
		{"\u201cLaws of the State of New York.\u201d", "Laws of the State of New York", false},
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

func FuzzLocate(f *testing.F) {
	f.Add("The Licensor \u201cshall\u201d  PAY", "licensor \"shall\" pay", 0)
	f.Add("a\u00a0b\tc", "A B C", 1)
	f.Add("\xff\xfeabc", "ABC", 2)
	f.Fuzz(func(t *testing.T, text, quote string, cut int) {
		l := NewLocator(text)
		m, ok := l.Locate(quote)
		if ok {
			if m.Start < 0 || m.End > len(text) || m.Start >= m.End {
				t.Fatalf("bad span %+v for len %d", m, len(text))
			}
			if m.Exact && text[m.Start:m.End] != quote {
				t.Fatalf("exact match %q != %q", text[m.Start:m.End], quote)
			}
			if utf8.ValidString(text) && !utf8.ValidString(text[m.Start:m.End]) {
				t.Fatalf("span splits a character: %q", text[m.Start:m.End])
			}
			fq, _ := fold(text[m.Start:m.End])
			want, _ := fold(quote)
			if !m.Exact && !strings.Contains(want, fq) {
				t.Fatalf("folded span %q not within folded quote %q", fq, want)
			}
		}
		// Any substring of a valid text is found, at or before its position.
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
		sub := text[i:]
		if strings.TrimSpace(sub) == "" {
			return
		}
		m, ok = l.Locate(sub)
		if !ok || !m.Exact || m.Start > i {
			t.Fatalf("substring at %d not located exactly: %+v %v", i, m, ok)
		}
	})
}

// BenchmarkLocate locates a quote near the end of a 200 KB contract: once
// exactly, once only after folding (as with a model's reflowed quote).
func BenchmarkLocate(b *testing.B) {
	text := strings.Repeat("The Supplier shall deliver the Products in accordance with Schedule A.\n", 2800) +
		"This Agreement shall be governed by the laws of the State of New York."
	l := NewLocator(text)
	for _, bc := range []struct{ name, quote string }{
		{"exact", "governed by the laws of the State of New York."},
		{"folded", "GOVERNED BY THE LAWS OF\nTHE STATE OF NEW YORK"},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.SetBytes(int64(len(text)))
			for b.Loop() {
				if _, ok := l.Locate(bc.quote); !ok {
					b.Fatal("not found")
				}
			}
		})
	}
}
