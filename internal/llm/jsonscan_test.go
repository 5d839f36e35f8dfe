package llm

import "testing"

func TestJSONStrings(t *testing.T) {
	for _, tt := range []struct {
		text string
		want string // 's' for a byte inside a string literal, '.' outside
	}{
		{`{"a":[1]}`, `.sss.....`},
		{`{"b\"}":"x"}`, `.ssssss.sss.`},
		{`["\\",{}]`, `.ssss....`},
		{`"cut \`, `ssssss`},
	} {
		var s JSONStrings
		got := make([]byte, len(tt.text))
		for i := 0; i < len(tt.text); i++ {
			got[i] = '.'
			if s.Step(tt.text[i]) {
				got[i] = 's'
			}
		}
		if string(got) != tt.want {
			t.Errorf("%s:\n got  %s\n want %s", tt.text, got, tt.want)
		}
	}
}
