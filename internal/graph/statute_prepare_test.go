package graph

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/contractgraph/contractgraph/internal/contract"
)

func TestPrepareStatute(t *testing.T) {
	ok := contract.Statute{ID: "/us/usc/t9/s2", Jurisdiction: "us", Code: "9 U.S.C.", Number: "2", Heading: "Validity",
		Text: "A written provision ...", URL: "https://uscode.house.gov/view.xhtml?req=granuleid:USC-prelim-title9-section2"}
	with := func(f func(*contract.Statute)) contract.Statute {
		st := ok
		f(&st)
		return st
	}
	tests := []struct {
		name         string
		in           contract.Statute
		want         contract.Statute // when valid
		field, error string           // when not
	}{
		{"valid", ok, ok, "", ""},
		{"canonical form", with(func(s *contract.Statute) {
			s.Jurisdiction, s.Code, s.Number, s.Heading, s.URL = " US\t", " 9 U.S.C. ", "2 ", "\nValidity ", " "+ok.URL
		}), ok, "", ""},
		{"text kept as given", with(func(s *contract.Statute) { s.Text = "  two\n\nlines " }),
			with(func(s *contract.Statute) { s.Text = "  two\n\nlines " }), "", ""},
		{"no id", with(func(s *contract.Statute) { s.ID = "" }), contract.Statute{}, "id", "missing"},
		{"space in id", with(func(s *contract.Statute) { s.ID = " /us/x" }), contract.Statute{}, "id", "white space"},
		{"long id", with(func(s *contract.Statute) { s.ID = strings.Repeat("x", MaxStatuteIDLen+1) }), contract.Statute{}, "id", "longer than 200 bytes"},
		{"id not UTF-8", with(func(s *contract.Statute) { s.ID = "/x/\xff" }), contract.Statute{}, "id", "invalid UTF-8 at byte 3"},
		{"no jurisdiction", with(func(s *contract.Statute) { s.Jurisdiction = " " }), contract.Statute{}, "jurisdiction", "missing"},
		{"space in jurisdiction", with(func(s *contract.Statute) { s.Jurisdiction = "u s" }), contract.Statute{}, "jurisdiction", "white space"},
		{"blank text", with(func(s *contract.Statute) { s.Text = " \n\t" }), contract.Statute{}, "text", "missing"},
		{"heading not UTF-8", with(func(s *contract.Statute) { s.Heading = "\xc3" }), contract.Statute{}, "heading", "invalid UTF-8 at byte 0"},
		{"NUL in text", with(func(s *contract.Statute) { s.Text = "A written\x00 provision" }), contract.Statute{}, "text", "NUL character at byte 9"},
		{"NUL in heading", with(func(s *contract.Statute) { s.Heading = "\x00" }), contract.Statute{}, "heading", "NUL character at byte 0"},
		{"script url", with(func(s *contract.Statute) { s.URL = "javascript:alert(1)" }), contract.Statute{}, "url", "not an absolute http(s) URL"},
		{"relative url", with(func(s *contract.Statute) { s.URL = "/view" }), contract.Statute{}, "url", "not an absolute"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, hash, err := PrepareStatute(tt.in)
			if tt.field != "" {
				var fe *StatuteFieldError
				if !errors.As(err, &fe) || fe.Field != tt.field || fe.StatuteID != tt.in.ID || !strings.Contains(err.Error(), tt.error) {
					t.Fatalf("error %v, want a *StatuteFieldError for %s of %q saying %q", err, tt.field, tt.in.ID, tt.error)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("canonical form (-want +got):\n%s", diff)
			}
			// The hash is of the canonical form.
			if _, again, _ := PrepareStatute(got); again != hash || len(hash) != 64 {
				t.Errorf("hash %q of the input, %q of its canonical form", hash, again)
			}
		})
	}
	_, h1, _ := PrepareStatute(ok)
	_, h2, _ := PrepareStatute(with(func(s *contract.Statute) { s.Code, s.Number = "9 U.S.C. 2", "" }))
	if h1 == h2 {
		t.Error("moving text from one field to the next keeps the hash")
	}
}

func TestPrepareStatutes(t *testing.T) {
	a := contract.Statute{ID: "a", Jurisdiction: "xx", Text: "t"}
	b := contract.Statute{ID: "b", Jurisdiction: "xx", Text: " "}
	if _, _, err := PrepareStatutes([]contract.Statute{a, b}); err == nil || err.Error() != `statutes[1]: statute "b": text: missing` {
		t.Errorf("invalid second statute: %v", err)
	}
	if _, _, err := PrepareStatutes([]contract.Statute{a, a}); err == nil || err.Error() != `statutes[1]: statute "a": id: repeats statutes[0]` {
		t.Errorf("repeated id: %v", err)
	}
	out, hashes, err := PrepareStatutes([]contract.Statute{a})
	if err != nil || len(out) != 1 || len(hashes) != 1 || out[0] != a {
		t.Errorf("PrepareStatutes([a]) = %v, %v, %v", out, hashes, err)
	}
}

func TestStatuteTerms(t *testing.T) {
	w := func(s string) StatuteTerm { return StatuteTerm{Text: s} }
	han := func(s string) StatuteTerm { return StatuteTerm{Text: s, Han: true} }
	tests := []struct {
		in   string
		want []StatuteTerm
	}{
		{"Arbitration agreement", []StatuteTerm{w("arbitration"), w("agreement")}},
		{"penalty for the breach of a contract", []StatuteTerm{w("penalty"), w("breach"), w("contract")}},
		{"the of and if not", nil},
		{"違約金 penalty", []StatuteTerm{han("違約金"), w("penalty")}},
		{"第250條", []StatuteTerm{han("第"), w("250"), han("條")}},
		{"契約契約 contract Contract", []StatuteTerm{han("契約契約"), w("contract")}},
		{`"stay" AND (proceedings* OR ~court) \ -NOT: && || ! ^ [x TO y]`, []StatuteTerm{w("stay"), w("proceedings"), w("court")}},
		{"the party's term of 5 years", []StatuteTerm{w("party"), w("term"), w("5"), w("years")}},
		{"a b c", nil},
		{"FAIR-USE!", []StatuteTerm{w("fair"), w("use")}},
		{"café naïve", []StatuteTerm{w("café"), w("naïve")}},
		{"", nil},
		{"word Word WORD", []StatuteTerm{w("word")}},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, StatuteTerms(tt.in)); diff != "" {
			t.Errorf("StatuteTerms(%q) (-want +got):\n%s", tt.in, diff)
		}
	}
	var many []string
	for i := range 40 {
		many = append(many, "w"+strings.Repeat("x", i))
	}
	if got := StatuteTerms(strings.Join(many, " ")); len(got) != maxStatuteTerms {
		t.Errorf("%d terms of 40 words, want at most %d", len(got), maxStatuteTerms)
	}
}
