package sqlite

import (
	"database/sql"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

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

// TestTokenizerMatchesFTS5 compares ftsTokens with FTS5's own tokenizer on
// every code point of the ranges it claims to handle (each inside and
// between ASCII words, so that separators, token characters, folding and
// diacritics all show), on English words that exercise every porter rule,
// and on the shared CUAD contract texts (ten of them under -race).
func TestTokenizerMatchesFTS5(t *testing.T) {
	var docs []string
	for _, rg := range checkedRanges {
		for r := rg[0]; r <= rg[1]; r++ {
			if !checkedRune(r) {
				continue
			}
			docs = append(docs, "zq"+string(r)+"zq "+string(r)+"x "+string(r)+string(r)+" ab"+string(r))
		}
	}
	codePoints := len(docs)
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
	bad := 0
	for i, d := range docs {
		got, checked := goTerms(d)
		if !slices.Equal(got, want[i]) {
			bad++
			if bad <= 20 {
				j := 0
				for j < min(len(got), len(want[i])) && got[j] == want[i][j] {
					j++
				}
				t.Errorf("doc %d (%.40q): term %d: go %q, fts5 %q", i, d, j, got[j:min(j+3, len(got))], want[i][j:min(j+3, len(want[i]))])
			}
		}
		if !checked && i <= codePoints {
			t.Errorf("doc %d (%q) reported unchecked characters", i, d)
		}
	}
	if bad > 0 {
		t.Errorf("%d of %d documents tokenized differently", bad, len(docs))
	}
}

// TestTokenizerFlagsUncheckedText checks that text with characters outside
// the compared ranges, or invalid UTF-8, is reported as unchecked.
func TestTokenizerFlagsUncheckedText(t *testing.T) {
	for _, s := range []string{"plain words", "naïve café", "§ 5 — “quoted”", "中国"} {
		if _, checked := goTerms(s); !checked {
			t.Errorf("%q reported unchecked", s)
		}
	}
	for _, s := range []string{"emoji \U0001F600", "bad \xff utf8", "Hangul 한국", "dotless ı", "new \u20bf"} {
		if _, checked := goTerms(s); checked {
			t.Errorf("%q reported checked", s)
		}
	}
}
