package textmatch

import (
	"slices"
	"testing"
)

func TestSearchWords(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string
	}{
		{"Terminate for CONVENIENCE, terminate!", []string{"terminate", "convenience"}},
		{`"a" AND (beta OR gamma*)~`, []string{"beta", "gamma"}},
		{"the of", []string{"the", "of"}},
		{"Müller GmbH 2019", []string{"müller", "gmbh", "2019"}},
		{"?!", nil},
		{"the party's term of 5 years", []string{"party", "term", "5", "years"}},
		{"a b", []string{"a", "b"}},
	} {
		if got := SearchWords(tc.in); !slices.Equal(got, tc.want) {
			t.Errorf("SearchWords(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
