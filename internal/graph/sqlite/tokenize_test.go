package sqlite

import (
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode"

	"github.com/contractgraph/contractgraph/internal/sharedtest"
)

// fts5Terms tokenizes each doc with FTS5 itself (passage_fts's tokenizer,
// through an fts5vocab instance table) and returns each doc's terms in
// order.
func fts5Terms(t *testing.T, docs []string) [][]string {
	t.Helper()
	db, err := sql.Open("sqlite", filepath.Join(t.TempDir(), "tok.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, q := range []string{
		`CREATE VIRTUAL TABLE t USING fts5(x, tokenize = 'porter unicode61 remove_diacritics 2')`,
		`CREATE VIRTUAL TABLE v USING fts5vocab(t, instance)`,
	} {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	tx, err := db.Begin()
	if err != nil {
		t.Fatal(err)
	}
	for i, d := range docs {
		if _, err := tx.Exec(`INSERT INTO t(rowid, x) VALUES (?, ?)`, i+1, d); err != nil {
			t.Fatal(err)
		}
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	out := make([][]string, len(docs))
	rows, err := db.Query(`SELECT doc, term FROM v ORDER BY doc, offset`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var doc int
		var term string
		if err := rows.Scan(&doc, &term); err != nil {
			t.Fatal(err)
		}
		out[doc-1] = append(out[doc-1], term)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

func goTerms(s string) (terms []string, checked bool) {
	checked = ftsTokens(s, func(b []byte) { terms = append(terms, string(b)) })
	return terms, checked
}

// codePointProbe puts r inside and between ASCII words, so that
// separators, token characters, folding and diacritics all show.
func codePointProbe(r rune) string {
	c := string(r)
	return "zq" + c + "zq " + c + "x " + c + c + " ab" + c + "\n"
}

// TestTokenizerMatchesFTS5 compares ftsTokens with FTS5's own tokenizer on
// every code point checkedRune accepts (in groups of 256 probes a document;
// a group that differs is probed again code point by code point, and the
// test prints the differing ones as ranges for fts5Differs), on English
// words that exercise every porter rule, and on the shared CUAD contract
// texts (under -race: one in eight code points above the BMP and ten
// texts).
func TestTokenizerMatchesFTS5(t *testing.T) {
	var runes []rune
	for r := rune(0x80); r <= unicode.MaxRune; r++ {
		// Under -race, where the walk is slow, every BMP code point and
		// one in eight above it.
		if checkedRune(r) && (!raceEnabled || r < 0x10000 || r%8 == 0) {
			runes = append(runes, r)
		}
	}
	const group = 256
	var docs []string
	for i := 0; i < len(runes); i += group {
		var b strings.Builder
		for _, r := range runes[i:min(i+group, len(runes))] {
			b.WriteString(codePointProbe(r))
		}
		docs = append(docs, b.String())
	}
	groups := len(docs)
	words := strings.Fields(`caresses ponies ties caress cats feed agreed plastered bled motoring sing
		conflated troubled sized hopping tanned falling hissing fizzed failing filing happy sky
		relational conditional rational valenci hesitanci digitizer conformabli radicalli differentli
		vileli analogousli vietnamization predication operator feudalism decisiveness hopefulness
		callousness formaliti sensitiviti sensibiliti triplicate formative formalize electriciti
		electrical hopeful goodness revival allowance inference airliner gyroscopic adjustable
		defensible irritant replacement adjustment dependent adoption homologou communism activate
		angulariti homologous effective bowdlerize probate rate cease controll roll terminate
		termination convenience consequential damages exclusive distributor territory governing
		non-solicitation employees indemnification assignment liability limitation aed eed ied ees
		agreement agreements yyy aaaing bbbed eying dying lying generously generalization
		TERMINATION Ünited Straße naïve café résumé façade`)
	docs = append(docs, strings.Join(words, " "))
	if !testing.Short() {
		dir := filepath.Join(sharedtest.Dir(t), "data", "cuad", "full_contract_txt")
		files, err := os.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		if raceEnabled {
			files = files[:10]
		}
		for _, f := range files {
			b, err := os.ReadFile(filepath.Join(dir, f.Name()))
			if err != nil {
				t.Fatal(err)
			}
			docs = append(docs, string(b))
		}
	}
	want := fts5Terms(t, docs)
	var suspects []rune
	bad := 0
	for i, d := range docs {
		got, checked := goTerms(d)
		if !checked && i < groups {
			t.Errorf("code point group %d (from %U) reported unchecked characters", i, runes[i*group])
		}
		if slices.Equal(got, want[i]) {
			continue
		}
		bad++
		if i < groups {
			suspects = append(suspects, runes[i*group:min(i*group+group, len(runes))]...)
			continue
		}
		j := 0
		for j < min(len(got), len(want[i])) && got[j] == want[i][j] {
			j++
		}
		t.Errorf("doc %d (%.40q): term %d: go %q, fts5 %q", i, d, j, got[j:min(j+3, len(got))], want[i][j:min(j+3, len(want[i]))])
	}
	if len(suspects) > 0 {
		probes := make([]string, len(suspects))
		for i, r := range suspects {
			probes[i] = codePointProbe(r)
		}
		want := fts5Terms(t, probes)
		var ranges []string
		differ := 0
		for i, p := range probes {
			got, _ := goTerms(p)
			if slices.Equal(got, want[i]) {
				continue
			}
			if differ++; differ <= 20 {
				t.Errorf("%U: go %q, fts5 %q", suspects[i], got, want[i])
			}
			r := suspects[i]
			if n := len(ranges); n > 0 && strings.HasSuffix(ranges[n-1], fmt.Sprintf("0x%x}", r-1)) {
				ranges[n-1] = ranges[n-1][:strings.LastIndex(ranges[n-1], " ")] + fmt.Sprintf(" 0x%x}", r)
			} else {
				ranges = append(ranges, fmt.Sprintf("{0x%x, 0x%x}", r, r))
			}
		}
		t.Errorf("code points where the tokenizers differ, to add to fts5Differs: %s", strings.Join(ranges, ", "))
	}
	if bad > 0 {
		t.Errorf("%d of %d documents tokenized differently", bad, len(docs))
	}
}

// TestFTS5DiffersSorted checks that fts5Differs is sorted and its ranges
// disjoint, which checkedSlow's binary search relies on.
func TestFTS5DiffersSorted(t *testing.T) {
	for i, rg := range fts5Differs {
		if rg[0] > rg[1] || i > 0 && rg[0] <= fts5Differs[i-1][1] {
			t.Fatalf("fts5Differs[%d] = {%#x, %#x} after {%#x, %#x}", i, rg[0], rg[1], fts5Differs[max(i-1, 0)][0], fts5Differs[max(i-1, 0)][1])
		}
	}
}

// TestTokenizerFlagsUncheckedText checks that text in other scripts is
// checked, and that text with a code point unassigned in Go's tables, one
// where the tokenizers differ, or invalid UTF-8 is reported as unchecked.
func TestTokenizerFlagsUncheckedText(t *testing.T) {
	for _, s := range []string{"plain words", "naïve café", "§ 5 — “quoted”", "中国", "Hangul 한국", "かな カナ", "العربية", "emoji \U0001F600", "Word's bullet \uf0b7"} {
		if _, checked := goTerms(s); !checked {
			t.Errorf("%q reported unchecked", s)
		}
	}
	for _, s := range []string{"newer emoji \U0001F970", "bad \xff utf8", "unassigned \u0378", "dotless ı", "new \u20bf"} {
		if _, checked := goTerms(s); checked {
			t.Errorf("%q reported checked", s)
		}
	}
}

// TestStemmerMatchesFTS5 checks the passage index's memoized stemming
// against FTS5 on words seen for the first time and again (each is stemmed
// in place, so a memo keyed by the stemmed bytes would answer wrongly the
// second time), with a memo that fills up on the way.
func TestStemmerMatchesFTS5(t *testing.T) {
	words := strings.Fields("relational conditional rational valenci hesitanci digitizer conformabli " +
		"radicalli differentli vileli analogousli vietnamization predication operator feudalism " +
		"decisiveness hopefulness callousness formaliti sensitiviti sensibiliti Terminate terminated " +
		"terminating termination TERMINATIONS liabilities liability Indemnify indemnified caresses ponies ties")
	doc := strings.Join(append(slices.Clone(words), words...), " ")
	want := fts5Terms(t, []string{doc})[0]
	for _, limit := range []int{maxStems, 5} {
		m := stemmer{}
		var got []string
		foldedTokens(doc, func(tok []byte) {
			if len(m.stems) >= limit {
				got = append(got, string(porterStem(tok)))
				return
			}
			got = append(got, m.stem(tok))
		})
		if !slices.Equal(got, want) {
			t.Errorf("memo of %d: stems %q, FTS5 %q", limit, got, want)
		}
		if d := m.tokenizePassage(doc, "Terminate"); d.length != uint32(len(want)+1) || d.tf("termin") != 11 {
			t.Errorf("tokenizePassage: length %d, %d × termin; want %d, 11", d.length, d.tf("termin"), len(want)+1)
		}
	}
}
