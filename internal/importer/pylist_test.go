package importer

import (
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
)

func TestParsePyStringList(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{`[]`, []string{}},
		{` [ ] `, []string{}},
		{`['a']`, []string{"a"}},
		{`['a', "b's"]`, []string{"a", "b's"}},
		{`['it\'s', "say \"hi\""]`, []string{"it's", `say "hi"`}},
		{`['back\\slash', 'tab\there', 'nl\nx']`, []string{`back\slash`, "tab\there", "nl\nx"}},
		{`['\x41\u00e9\U0001F600\101']`, []string{"Aé😀A"}},
		{`['unknown \d escape']`, []string{`unknown \d escape`}},
		{"['multi\nline']", nil},
		{`['a',]`, []string{"a"}},
		{`['天下女人', "中国"]`, []string{"天下女人", "中国"}},
	}
	for _, tt := range tests {
		got, err := ParsePyStringList(tt.in)
		if tt.want == nil {
			if err == nil {
				t.Errorf("ParsePyStringList(%q) = %q, want error", tt.in, got)
			}
			continue
		}
		if err != nil {
			t.Errorf("ParsePyStringList(%q): %v", tt.in, err)
			continue
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("ParsePyStringList(%q) (-want +got):\n%s", tt.in, diff)
		}
	}
}

func TestParsePyStringListErrors(t *testing.T) {
	tests := []struct{ in, want string }{
		{``, "python list literal at byte 0: expected '['"},
		{`['a'`, "python list literal at byte 4: expected ',' or ']'"},
		{`['a`, "python list literal at byte 1: unterminated string"},
		{`['a' 'b']`, "python list literal at byte 5: expected ',' or ']'"},
		{`[1]`, "python list literal at byte 1: expected a string literal"},
		{`['a'] x`, "python list literal at byte 6: unexpected text after ']'"},
		{`['\xZZ']`, `python list literal at byte 4: invalid \x escape "ZZ"`},
		{`['\u12']`, `python list literal at byte 4: invalid \u escape "12']"`},
	}
	for _, tt := range tests {
		_, err := ParsePyStringList(tt.in)
		if err == nil || err.Error() != tt.want {
			t.Errorf("ParsePyStringList(%q) error = %v, want %q", tt.in, err, tt.want)
		}
	}
}

// pyRepr writes s the way Python's repr does for printable text.
func pyRepr(s string) string {
	q := "'"
	if strings.Contains(s, "'") && !strings.Contains(s, `"`) {
		q = `"`
	}
	var b strings.Builder
	b.WriteString(q)
	for _, r := range s {
		switch {
		case r == '\\':
			b.WriteString(`\\`)
		case string(r) == q:
			b.WriteString(`\` + q)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\x%02x`, r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteString(q)
	return b.String()
}

func FuzzParsePyStringList(f *testing.F) {
	f.Add("a", "b's", `say "x"`)
	f.Add("", "\\", "\n\t")
	f.Add("<omitted>", "天下", "'\"")
	f.Fuzz(func(t *testing.T, a, b, c string) {
		// Any input: no panic.
		_, _ = ParsePyStringList(a)
		if !utf8.ValidString(a) || !utf8.ValidString(b) || !utf8.ValidString(c) {
			return
		}
		lit := "[" + pyRepr(a) + ", " + pyRepr(b) + ", " + pyRepr(c) + "]"
		got, err := ParsePyStringList(lit)
		if err != nil {
			t.Fatalf("ParsePyStringList(%q): %v", lit, err)
		}
		if diff := cmp.Diff([]string{a, b, c}, got); diff != "" {
			t.Fatalf("round trip of %q (-want +got):\n%s", lit, diff)
		}
	})
}
