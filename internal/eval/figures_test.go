package eval

import (
	"testing"

	"github.com/contractgraph/contractgraph/internal/textnum"
)

func TestStatesFigure(t *testing.T) {
	tests := []struct {
		answer, want string
		ok           bool
	}{
		{"There are 1,234 contracts.", "1234", true},
		{"There are 1234 contracts.", "1,234", true},
		{"Total: $15,208,360.00", "15208360", true},
		{"Total: USD 15\u00a0208\u202f360", "15208360", true},
		{"Total: USD 15 208 360", "15208360", false}, // plain spaces separate numbers
		{"Total: 15’208’360", "15208360", false},     // typographic apostrophe is not a separator
		{"Total: 15'208'360", "15208360", true},
		{"worth 10 million dollars", "10000000", true},
		{"worth $1.5 billion", "1500000000", true},
		{"on average 1,542.9 days", "1543", true},
		{"on average 4411.142857 days", "4411.14", true},
		{"on average 4,411 days", "4411.14", false},
		{"31 contracts", "31", true},
		{"310 contracts", "31", false},
		{"2031 contracts", "31", false},
		{"in Q4 of 2019", "4", false},
		{"exhibit EX-10 says", "10", false},
		{"31%", "31%", true},
		{"signed 2019-10-16", "16", false},
		{"signed 2019-10-16", "2019", true},
		{"no numbers here", "31", false},
		{"Three contracts end in 2026.", "3", true},
		{"for twenty-four months", "24", true},
		{"for twenty four months", "24", true},
		{"for twenty months", "24", false},
		{"someone at Acme", "1", false},
		{"It ends on 2026-04-30.", "2026-04-30", true},
		{"It ends on April 30, 2026.", "2026-04-30", true},
		{"It ends on 30 April 2026.", "2026-04-30", true},
		{"It ends on the 30th of Apr. 2026.", "2026-04-30", true},
		{"It ends on Sept 9, 2026.", "2026-09-09", true},
		{"It ends on April 3, 2026.", "2026-04-30", false},
		{"It ends on 30 April 2027.", "2026-04-30", false},
		{"Governed by   New York law", "new york", true},
		{"Governed by NY law", "New York", false},
		{"anything", "", true},
	}
	for _, tt := range tests {
		if got := statesFigure(tt.answer, tt.want); got != tt.ok {
			t.Errorf("statesFigure(%q, %q) = %v, want %v", tt.answer, tt.want, got, tt.ok)
		}
	}
}

func FuzzStatesFigure(f *testing.F) {
	f.Add("There are 1,234 contracts, 2019-10-16, 1.5 million", "1234")
	f.Add("30th of Apr. 2026", "2026-04-30")
	f.Fuzz(func(t *testing.T, answer, want string) {
		statesFigure(answer, want) // must not panic
		if v, _, ok := textnum.Parse(want); ok && v >= 0 && !statesFigure(want, want) {
			t.Errorf("a figure %q does not state itself", want)
		}
	})
}
