package graph

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/url"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/contractgraph/contractgraph/internal/contract"
	"github.com/contractgraph/contractgraph/internal/textmatch"
)

// This file holds what every StatuteStore applies alike, so that all
// backends accept, store and find the same statutes: the validation and
// canonical form of a statute with its content hash, the search limits and
// the terms a free-text statute query is matched by.

// MaxStatuteIDLen bounds statute ids, which risk reports cite.
const MaxStatuteIDLen = 200

// maxStatuteTerms bounds the terms of one statute search.
const maxStatuteTerms = 32

// StatuteFieldError says which field of which statute is invalid.
type StatuteFieldError struct {
	StatuteID string
	Field     string // "id", "jurisdiction", "text", "url", ...
	Reason    string // e.g. "missing"
}

// Error implements error.
func (e *StatuteFieldError) Error() string {
	return fmt.Sprintf("statute %q: %s: %s", e.StatuteID, e.Field, e.Reason)
}

// PrepareStatute validates st and returns its canonical form, which is what
// a store keeps, and the content hash by which a store tells an identical
// re-import from a change. Canonical means: the jurisdiction lower-cased,
// code, number, heading and url trimmed; id and text are kept as given. It
// rejects, with a *StatuteFieldError, a missing id, jurisdiction or text,
// white space in the id or jurisdiction, an id longer than MaxStatuteIDLen
// bytes, a NUL character or invalid UTF-8 in any field (with its byte
// offset) and a url that is not absolute http(s).
func PrepareStatute(st contract.Statute) (contract.Statute, string, error) {
	bad := func(field, format string, args ...any) error {
		return &StatuteFieldError{StatuteID: st.ID, Field: field, Reason: fmt.Sprintf(format, args...)}
	}
	st.Jurisdiction = strings.ToLower(strings.TrimSpace(st.Jurisdiction))
	st.Code = strings.TrimSpace(st.Code)
	st.Number = strings.TrimSpace(st.Number)
	st.Heading = strings.TrimSpace(st.Heading)
	st.URL = strings.TrimSpace(st.URL)
	for _, f := range []struct{ name, value string }{
		{"id", st.ID}, {"jurisdiction", st.Jurisdiction}, {"code", st.Code}, {"number", st.Number},
		{"heading", st.Heading}, {"text", st.Text}, {"url", st.URL},
	} {
		if why := badText(f.value); why != "" {
			return contract.Statute{}, "", bad(f.name, "%s", why)
		}
	}
	switch {
	case st.ID == "":
		return contract.Statute{}, "", bad("id", "missing")
	case strings.ContainsFunc(st.ID, unicode.IsSpace):
		return contract.Statute{}, "", bad("id", "%q contains white space", st.ID)
	case len(st.ID) > MaxStatuteIDLen:
		return contract.Statute{}, "", bad("id", "longer than %d bytes", MaxStatuteIDLen)
	case st.Jurisdiction == "":
		return contract.Statute{}, "", bad("jurisdiction", "missing")
	case strings.ContainsFunc(st.Jurisdiction, unicode.IsSpace):
		return contract.Statute{}, "", bad("jurisdiction", "%q contains white space", st.Jurisdiction)
	case strings.TrimSpace(st.Text) == "":
		return contract.Statute{}, "", bad("text", "missing")
	}
	if st.URL != "" {
		u, err := url.Parse(st.URL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return contract.Statute{}, "", bad("url", "%q is not an absolute http(s) URL", st.URL)
		}
	}
	return st, statuteHash(&st), nil
}

// statuteHash fingerprints every stored field of a statute. Its form is
// the one the embedded store has always written, so that stores made before
// there was one validation for every backend see no change on re-import.
func statuteHash(st *contract.Statute) string {
	h := sha256.New()
	for _, f := range []string{st.ID, st.Jurisdiction, st.Code, st.Number, st.Heading, st.Text, st.URL} {
		fmt.Fprintf(h, "%d:%s\x00", len(f), f)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// PrepareStatutes prepares a PutStatutes batch: each statute with
// PrepareStatute, and no id twice. hashes[i] belongs to out[i]. An error
// names the statute's index in sts and its id, e.g.
// `statutes[1]: statute "x": text: missing`.
func PrepareStatutes(sts []contract.Statute) (out []contract.Statute, hashes []string, err error) {
	out = make([]contract.Statute, len(sts))
	hashes = make([]string, len(sts))
	seen := make(map[string]int, len(sts))
	for i := range sts {
		if out[i], hashes[i], err = PrepareStatute(sts[i]); err != nil {
			return nil, nil, fmt.Errorf("statutes[%d]: %w", i, err)
		}
		if j, dup := seen[sts[i].ID]; dup {
			return nil, nil, fmt.Errorf("statutes[%d]: %w", i,
				&StatuteFieldError{StatuteID: sts[i].ID, Field: "id", Reason: fmt.Sprintf("repeats statutes[%d]", j)})
		}
		seen[sts[i].ID] = i
	}
	return out, hashes, nil
}

// StatuteTerm is one term a statute query is matched by.
type StatuteTerm struct {
	// Text is a lower-cased word of letters, digits and combining marks, or
	// a run of Han characters.
	Text string
	// Han marks a run of Han characters, which backends index one
	// character per token and so match as a phrase of single characters.
	Han bool
}

// StatuteTerms splits free text into the terms of a statute search: its
// words and runs of Han characters, each once, at most 32, any of which may
// match (SearchStatutes ranks a statute matching most of them first). Stop
// words (textmatch.StopWord) are left out, even when they are all there is:
// they match nearly every statute, so as optional terms they add no ranking
// signal, and Neo4j's analyzer does not index them at all. Single letters
// go too, which the backends' tokenizers split off differently ("party's"
// is "party" and "s" to SQLite, "party" to Lucene). Every character outside
// a term, operator syntax included, only separates terms, so no input
// changes the shape of a backend's query. It returns nil when the text has
// no searchable word.
func StatuteTerms(text string) []StatuteTerm {
	var terms []StatuteTerm
	seen := map[StatuteTerm]bool{}
	add := func(t StatuteTerm) {
		if t.Text != "" && !seen[t] && (t.Han || searchable(t.Text)) && len(terms) < maxStatuteTerms {
			seen[t] = true
			terms = append(terms, t)
		}
	}
	var word, han []rune
	flushWord := func() {
		add(StatuteTerm{Text: strings.ToLower(string(word))})
		word = word[:0]
	}
	flushHan := func() {
		add(StatuteTerm{Text: string(han), Han: true})
		han = han[:0]
	}
	for _, r := range text {
		switch {
		case unicode.Is(unicode.Han, r):
			flushWord()
			han = append(han, r)
		case unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.Mn, r):
			flushHan()
			word = append(word, r)
		default:
			flushWord()
			flushHan()
		}
	}
	flushWord()
	flushHan()
	return terms
}

// searchable reports whether a word is worth a statute search term: not a
// stop word and not a single letter.
func searchable(w string) bool {
	if textmatch.StopWord(w) {
		return false
	}
	r, n := utf8.DecodeRuneInString(w)
	return n != len(w) || !unicode.IsLetter(r)
}
