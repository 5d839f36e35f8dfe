package family

import (
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

func TestParseReference(t *testing.T) {
	for _, tc := range []struct {
		name, title, text string
		ok                bool
		kind              Kind
		restates          bool
		doc, num, master  string
		date              string
		source            string
	}{
		{name: "numbered amendment with master date", title: "Amendment No. 2",
			text: "AMENDMENT NO. 2 TO THE DISTRIBUTION AGREEMENT dated as of March 1, 1999\n\nThis Amendment No. 2 is made on June 5, 2001.",
			ok:   true, kind: Amends, doc: "Amendment", num: "2", master: "DISTRIBUTION AGREEMENT", date: "1999-03-01", source: SourceText},
		{name: "ordinal amendment, date after a defined term", title: "First Amendment",
			text: `This is the First Amendment ("First Amendment") to the Development Agreement ("Development Agreement") entered into on April 15, 2010, by and between A and B.`,
			ok:   true, kind: Amends, doc: "Amendment", num: "1", master: "Development Agreement", date: "2010-04-15", source: SourceText},
		{name: "amendment's own date is not the master's", title: "",
			text: "AMENDMENT NO. 1 TO MANUFACTURING AGREEMENT This Amendment No. 1 is effective as of June 11, 2018.",
			ok:   true, kind: Amends, num: "1", doc: "Amendment", master: "MANUFACTURING AGREEMENT", source: SourceText},
		{name: "statement of work under an MSA", title: "Statement of Work No. 1 under the Master Services Agreement",
			text: "Statement of Work No. 1 under the Master Services Agreement dated January 5, 2020 between X and Y",
			ok:   true, kind: Supplements, doc: "Statement of Work", num: "1", master: "Master Services Agreement", date: "2020-01-05", source: SourceText},
		{name: "schedule letter", title: "Schedule A to the Supply Agreement", text: "",
			ok: true, kind: Supplements, doc: "Schedule", num: "A", master: "Supply Agreement", source: SourceTitle},
		{name: "restatement", title: "Second Amended and Restated Exclusive Agency and Marketing Agreement",
			text: "Exhibit 10.14(a)\n\nSECOND AMENDED AND RESTATED  EXCLUSIVE AGENCY AND  MARKETING AGREEMENT\n\nTHIS AGREEMENT",
			ok:   true, kind: Amends, restates: true, doc: "Amended and Restated", num: "2", master: "EXCLUSIVE AGENCY AND MARKETING AGREEMENT", source: SourceText},
		{name: "hash number and French ordinal", title: "",
			text: "Amendment n° 01 to the Global Maintenance Agreement ref. DS/C-3957/14 Issue 7 dated March 9th, 2015 BETWEEN",
			ok:   true, kind: Amends, doc: "Amendment", num: "1", master: "Global Maintenance Agreement", date: "2015-03-09", source: SourceText},
		{name: "title without connector", title: "Amendment No. 1 Manufacturing Agreement", text: "Nothing useful here.",
			ok: true, kind: Amends, doc: "Amendment", num: "1", master: "Manufacturing Agreement", source: SourceTitle},
		{name: "title says what it is, text repeats it", title: "Customization Schedule", text: "SCHEDULE\nCustomization terms",
			ok: true, kind: Supplements, doc: "Schedule", source: SourceText},
		{name: "generic amendment clause", title: "Distribution Agreement",
			text: "DISTRIBUTION AGREEMENT. No amendment to this Agreement is effective unless in writing. Any amendment to the Supply Agreement must be signed."},
		{name: "self-referring exhibit", title: "License Agreement", text: "LICENSE AGREEMENT\nExhibit A to this Agreement lists the products."},
		{name: "exhibit of an unnamed agreement", title: "License Agreement", text: "LICENSE AGREEMENT\nSchedule 2 to the Agreement lists the products."},
		{name: "SEC filing schedule", title: "Joint Filing Agreement",
			text: "the joint filing of the Statement on Schedule 13D to which this Joint Filing Agreement is attached"},
		{name: "recital about another document's restatement", title: "Supply Agreement",
			text: "SUPPLY AGREEMENT. Sutro licensed such technology under that certain Amended and Restated SutroVax Agreement dated as of October 12, 2015."},
		{name: "defined term for another amendment", title: "Manufacturing Agreement",
			text: `MANUFACTURING AGREEMENT. AMAG assumed the rights under the Development and License Agreement (the "First Amendment to Development and License Agreement");`},
		{name: "reference deep in a plain agreement", title: "Agency Agreement",
			text: "AGENCY AGREEMENT " + strings.Repeat("words ", 300) + "Amendment No. 1 to the Credit Agreement"},
		{name: "empty", title: "", text: ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, ok := ParseReference(tc.title, tc.text)
			if ok != tc.ok {
				t.Fatalf("ok = %v, want %v (%+v)", ok, tc.ok, r)
			}
			if !ok {
				return
			}
			if r.Kind != tc.kind || r.Restates != tc.restates || r.Document != tc.doc || r.Number != tc.num ||
				r.Master != tc.master || r.MasterDate != tc.date || r.Evidence.Source != tc.source {
				t.Errorf("got %+v\nwant kind %s restates %v doc %q num %q master %q date %q source %s",
					r, tc.kind, tc.restates, tc.doc, tc.num, tc.master, tc.date, tc.source)
			}
			checkEvidence(t, tc.text, r.Evidence)
		})
	}
}

// checkEvidence asserts that a text quote is the text at its span.
func checkEvidence(t *testing.T, text string, e Evidence) {
	t.Helper()
	switch e.Source {
	case SourceText:
		if e.Start < 0 || e.End > len(text) || e.Start >= e.End || text[e.Start:e.End] != e.Quote {
			t.Errorf("evidence %+v is not the text at its span", e)
		}
	case SourceTitle:
		if e.Start != 0 || e.End != 0 || e.Quote == "" {
			t.Errorf("title evidence %+v has a span or no quote", e)
		}
	default:
		t.Errorf("evidence source %q", e.Source)
	}
}

func FuzzParseReference(f *testing.F) {
	f.Add("Amendment No. 2", "AMENDMENT NO. 2 TO THE DISTRIBUTION AGREEMENT dated as of March 1, 1999")
	f.Add("Schedule A", "Schedule A to the Supply Agreement")
	f.Add("", "Second Amended and Restated Agreement")
	f.Add("Amendment n° 01", "Amendment n° 01 to the Global Maintenance Agreement dated March 9t h , 2015")
	f.Add("\xff\xfe", "amendment to the \xc3 agreement")
	f.Fuzz(func(t *testing.T, title, text string) {
		for _, s := range []string{title, text} {
			if !mayRefer(s) && referenceMatches(s) {
				t.Fatalf("mayRefer skips %q, which an expression matches", s)
			}
		}
		r, ok := ParseReference(title, text)
		if !ok {
			return
		}
		if r.Kind != Amends && r.Kind != Supplements {
			t.Fatalf("kind %q", r.Kind)
		}
		if r.Restates && r.Kind != Amends {
			t.Fatalf("restatement of kind %s", r.Kind)
		}
		if r.Evidence.Source == SourceText {
			if r.Evidence.End > len(text) || r.Evidence.Start > r.Evidence.End || text[r.Evidence.Start:r.Evidence.End] != r.Evidence.Quote {
				t.Fatalf("evidence %+v not at its span", r.Evidence)
			}
			if utf8.ValidString(text) && !utf8.ValidString(r.Evidence.Quote) {
				t.Fatalf("evidence of valid text cut a character: %q", r.Evidence.Quote)
			}
		}
	})
}

// TestMayReferFolds checks that mayRefer folds every character that the
// expressions' (?i) matches an ASCII letter with: the ASCII capitals and
// the two characters outside ASCII whose case orbit holds a letter.
func TestMayReferFolds(t *testing.T) {
	for r := rune(0x80); r <= unicode.MaxRune; r++ {
		for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
			if f < utf8.RuneSelf && unicode.IsLetter(f) && r != '\u017f' && r != '\u212a' {
				t.Errorf("%U folds to %q, which mayRefer does not know", r, f)
			}
		}
	}
}

// referenceMatches reports whether an expression of ParseReference
// matches s.
func referenceMatches(s string) bool {
	return referenceRE.MatchString(s) || restatedRE.MatchString(s) || looseDocRE.MatchString(s)
}

// TestMayRefer checks that every document word the expressions know
// passes the quick test, in any case (TestCUADMayRefer checks what it
// skips).
func TestMayRefer(t *testing.T) {
	matches := referenceMatches
	for _, s := range []string{
		"Amendment No. 2 to the Distribution Agreement", "amend. to the Supply Agreement",
		"Amended and Restated Credit Agreement", "Amendment and Restatement of the Loan Agreement",
		"Amendment and Termination of the Lease Agreement", "Statement of Work No. 1 under the Services Agreement",
		"SOW 3 under the Master Services Agreement", "Work Order 1 under the Services Agreement",
		"Task Order 7 under the Consulting Agreement", "Change Order 2 to the Construction Contract",
		"Order Form under the Subscription Agreement", "Schedule A to the Supply Agreement",
		"Addendum to the License Agreement", "Supplement No. 1 to the Indenture Agreement",
		"Rider to the Lease Agreement", "Annex B to the Purchase Agreement", "Appendix C to the Services Agreement",
		"Attachment 1 to the Hosting Agreement", "Exhibit A to the Supply Agreement", "A&R Credit Agreement",
		"A & R Credit Agreement", "Amended and Re\u017ftated Credit Agreement", "First Amendment", "Customization Schedule",
	} {
		for _, v := range []string{s, strings.ToUpper(s), strings.ToLower(s)} {
			if !matches(v) {
				t.Errorf("%q: no expression matches it; the case is wrong", v)
			}
			if !mayRefer(v) {
				t.Errorf("mayRefer(%q) = false, but the expressions match it", v)
			}
		}
	}
	for _, s := range []string{"Service Agreement", "Master Services Agreement dated March 1, 1999", ""} {
		if mayRefer(s) {
			t.Errorf("mayRefer(%q) = true: it holds no document word", s)
		}
	}
}
