package graph

import (
	"fmt"
	"slices"
	"testing"

	"github.com/contractgraph/contractgraph/internal/contract"
)

func names(ns ...string) []PartyName {
	out := make([]PartyName, len(ns))
	for i, n := range ns {
		out[i] = PartyName{ID: PartyID(contract.PartyKey(n)), Name: n, Keys: []string{contract.MatchKey(n)}}
	}
	return out
}

// TestMatchPartyNames covers the edit bounds, word windows and ties.
func TestMatchPartyNames(t *testing.T) {
	stored := names("Excite, Inc.", "Excel Industries", "Microsoft Corporation", "Acme Corp.", "Acne Labs", "International Business Machines", "IBM Japan")
	cases := []struct {
		entry string
		want  []string
		edits int
	}{
		{"Excte", []string{"Excite, Inc."}, 1},
		{"Excite Incc", []string{"Excite, Inc."}, 1},
		{"Micro Soft", []string{"Microsoft Corporation"}, 0}, // spaces aside
		{"Microsfot", []string{"Microsoft Corporation"}, 1},
		{"Acpe", []string{"Acme Corp.", "Acne Labs"}, 1}, // a tie: both, by name
		{"Internatinal Busines", []string{"International Business Machines"}, 2},
		{"IBN", nil, 0}, // three letters allow no typo
		{"Zyxwvut", nil, 0},
	}
	for _, c := range cases {
		m := MatchPartyNames(stored, c.entry)
		var got []string
		for _, p := range m.Parties {
			got = append(got, p.Name)
		}
		if !slices.Equal(got, c.want) || m.Edits != c.edits || m.Contained {
			t.Errorf("%q: %v at %d edits (contained %v), want %v at %d", c.entry, got, m.Edits, m.Contained, c.want, c.edits)
		}
	}
	if m := MatchPartyNames(stored, "excite"); !m.Contained || len(m.Parties) > 0 {
		t.Errorf("excite: %+v, want contained", m)
	}
}

// BenchmarkMatchPartyNames matches a misspelt name against 23,500
// generated names, the party count of the 100,000-contract corpus.
func BenchmarkMatchPartyNames(b *testing.B) {
	var ns []string
	for i := range 23500 {
		ns = append(ns, fmt.Sprintf("Company%05d Holdings %c%c Inc.", i, 'a'+i%26, 'a'+i/26%26))
	}
	prepared := prepareNames(names(ns...))
	for b.Loop() {
		if m := matchPrepared(prepared, "Compnay12345 Holdings"); len(m.Parties) == 0 {
			b.Fatal("no match")
		}
	}
}
