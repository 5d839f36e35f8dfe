package textnum

import (
	"slices"
	"strings"
	"testing"
)

func TestFind(t *testing.T) {
	tests := []struct {
		text string
		want []float64
	}{
		{"There are 31 contracts worth $1,542,900.50.", []float64{31, 1542900.50}},
		{"about 1.5 million dollars", []float64{1.5, 1.5e6}},
		{"twenty-four of them, ended 2005-12-31", []float64{2005, 24}},
		{"Q4 and EX-10 are not figures", nil},
		{"Sources: contract_17, Contract_2", nil},
		// A looping model's run of digits overflows float64: no figure.
		{"$57,483,100 1" + strings.Repeat("0", 400), []float64{57483100}},
	}
	for _, tt := range tests {
		if got := Find(tt.text); !slices.Equal(got, tt.want) {
			t.Errorf("Find(%q) = %v, want %v", tt.text, got, tt.want)
		}
	}
	if v, dec, ok := Parse("$1,234.5"); !ok || v != 1234.5 || dec != 1 {
		t.Errorf("Parse = %v %d %v", v, dec, ok)
	}
	if Round(1542.94, 0) != 1543 {
		t.Error("Round")
	}
}
