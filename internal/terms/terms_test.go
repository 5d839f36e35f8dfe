package terms

import (
	"math"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
)

// brief is a term without its offsets, for tables.
type brief struct {
	Kind     Kind
	Value    float64
	Unit     string
	Currency string
	Text     string
}

func briefs(ts []Term) []brief {
	var out []brief
	for _, t := range ts {
		out = append(out, brief{t.Kind, t.Value, t.Unit, t.Currency, t.Text})
	}
	return out
}

func TestExtract(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want []brief
	}{
		{"dollar amount", "a fee of $1,250,000.50 per year",
			[]brief{{Amount, 1250000.5, "USD", "USD", "$1,250,000.50"}}},
		{"scaled amount", "up to US$ 2.5 million in total",
			[]brief{{Amount, 2.5e6, "USD", "USD", "US$ 2.5 million"}}},
		{"euro code", "EUR 500 and 300 GBP and £10k",
			[]brief{{Amount, 500, "EUR", "EUR", "EUR 500"}, {Amount, 300, "GBP", "GBP", "300 GBP"}, {Amount, 10000, "GBP", "GBP", "£10k"}}},
		{"words with figure", "One Million Dollars ($1,000,000) shall be paid",
			[]brief{{Amount, 1e6, "USD", "USD", "One Million Dollars ($1,000,000)"}}},
		{"words alone", "five hundred dollars", []brief{{Amount, 500, "USD", "USD", "five hundred dollars"}}},
		{"figure without currency is no amount", "Section 12.3 of 1,000 units", nil},
		{"duration words and digits", "for a period of thirty (30) days",
			[]brief{{Duration, 30, "days", "", "thirty (30) days"}}},
		{"years", "an initial term of two (2) years", []brief{{Duration, 730, "days", "", "two (2) years"}}},
		{"notice", "Either party may terminate upon ninety (90) days prior written notice.",
			[]brief{{Notice, 90, "days", "", "ninety (90) days"}}},
		{"notice in months", "on six months' notice", []brief{{Notice, 180, "days", "", "six months"}}},
		{"annually is no duration", "fees are payable annually", nil},
		{"percent", "a royalty of 15% and ten percent (10%) of net sales, 2.5 per cent",
			[]brief{{Percent, 15, "percent", "", "15%"}, {Percent, 10, "percent", "", "ten percent (10%)"}, {Percent, 2.5, "percent", "", "2.5 per cent"}}},
		{"cap amount", "In no event shall either party's aggregate liability exceed $500,000.",
			[]brief{{Amount, 500000, "USD", "USD", "$500,000"}, {Cap, 500000, "amount", "USD", "$500,000"}}},
		{"cap months of fees", "Supplier's total liability shall not exceed the fees paid by Customer in the twelve (12) months preceding the claim.",
			[]brief{{Cap, 12, "months_fees", "", "fees paid by Customer in the twelve (12) months preceding"}, {Duration, 360, "days", "", "twelve (12) months"}}},
		{"cap months before", "liability is limited to the amounts paid hereunder during the preceding six (6) months",
			[]brief{{Cap, 6, "months_fees", "", "amounts paid hereunder during the preceding six (6) months"}, {Duration, 180, "days", "", "six (6) months"}}},
		{"cap multiple", "Licensor's liability shall not exceed two times the fees paid under this Agreement.",
			[]brief{{Cap, 2, "x_fees", "", "two times the fees"}}},
		{"cap twice", "liability in the aggregate is capped at twice the amounts paid",
			[]brief{{Cap, 2, "x_fees", "", "twice the amounts"}}},
		{"cap percent of fees", "liability shall not exceed 100% of the fees paid",
			[]brief{{Percent, 100, "percent", "", "100%"}, {Cap, 1, "x_fees", "", "100% of the fees"}}},
		{"cap whole fees", "in no event shall liability exceed the total fees actually paid to Vendor",
			[]brief{{Cap, 1, "x_fees", "", "exceed the total fees actually paid"}}},
		{"amount outside a cap sentence", "Customer shall pay $100. Neither party is liable for indirect damages.",
			[]brief{{Amount, 100, "USD", "USD", "$100"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Extract(tt.in)
			if diff := cmp.Diff(tt.want, briefs(got)); diff != "" {
				t.Errorf("Extract(%q) mismatch (-want +got):\n%s", tt.in, diff)
			}
			for _, g := range got {
				if tt.in[g.Start:g.End] != g.Text {
					t.Errorf("term %+v: text[%d:%d] = %q", g, g.Start, g.End, tt.in[g.Start:g.End])
				}
			}
		})
	}
}

func FuzzExtract(f *testing.F) {
	for _, s := range []string{
		"liability shall not exceed the fees paid in the twelve (12) months preceding",
		"One Million Dollars ($1,000,000)", "ninety (90) days prior written notice", "fifty per cent (50%)",
		"$", "US$ 9999999999999999999999999999 billion", "twice the fees liability exceed", "(((", "£\xff10",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := Extract(s)
		prev := -1
		for _, g := range got {
			if g.Start < 0 || g.End > len(s) || g.Start > g.End {
				t.Fatalf("term %+v out of bounds of %d bytes", g, len(s))
			}
			if s[g.Start:g.End] != g.Text {
				t.Fatalf("term %+v: text is %q", g, s[g.Start:g.End])
			}
			if g.Start < prev {
				t.Fatalf("terms out of order: %+v", got)
			}
			prev = g.Start
			if math.IsNaN(g.Value) || math.IsInf(g.Value, 0) || g.Value < 0 {
				t.Fatalf("term %+v has a bad value", g)
			}
			if utf8.ValidString(s) && !utf8.ValidString(g.Text) {
				t.Fatalf("term %+v splits a character", g)
			}
			if g.Unit == "" || strings.TrimSpace(g.Text) == "" {
				t.Fatalf("term %+v has no unit or text", g)
			}
		}
	})
}

// TestExtractLongText: a long text of many sentences yields every term of
// each, in order, once (the overlap resolution is linear and must not
// drop or repeat terms across sentences).
func TestExtractLongText(t *testing.T) {
	const sentence = "Liability shall not exceed twice the fees or $5,000. Notice is thirty (30) days prior written notice and 10% of sales. "
	const n = 400
	got := Extract(strings.Repeat(sentence, n))
	count := map[Kind]int{}
	for _, g := range got {
		count[g.Kind]++
	}
	want := map[Kind]int{Amount: n, Cap: 2 * n, Notice: n, Percent: n}
	if diff := cmp.Diff(want, count); diff != "" {
		t.Errorf("term counts (-want +got):\n%s", diff)
	}
}
