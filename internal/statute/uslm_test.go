package statute

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/contractgraph/contractgraph/internal/contract"
	"github.com/google/go-cmp/cmp"
)

func TestParseUSLMSharedTitles(t *testing.T) {
	dir := sharedStatutes(t)
	tests := []struct {
		file      string
		count     int
		first     string
		last      string
		code      string
		lookFor   string // id of a section whose text is checked
		contains  string
		heading   string
		notInText []string
	}{
		{
			file: "usc09.xml", count: 31, first: "/us/usc/t9/s1", last: "/us/usc/t9/s307", code: "9 U.S.C.",
			lookFor: "/us/usc/t9/s2", contains: "shall be valid, irrevocable, and enforceable, save upon such grounds",
			heading:   "Validity, irrevocability, and enforcement of agreements to arbitrate",
			notInText: []string{"Derivation", "Act Feb. 12, 1925", "61 Stat. 670"},
		},
		{
			file: "usc17.xml", count: 140, first: "/us/usc/t17/s101", last: "/us/usc/t17/s1332", code: "17 U.S.C.",
			lookFor: "/us/usc/t17/s106", contains: "the owner of copyright under this title has the exclusive rights to do and to authorize any of the following:",
			heading:   "Exclusive rights in copyrighted works",
			notInText: []string{"Amendments", "Pub. L."},
		},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			f, err := os.Open(filepath.Join(dir, "uscode", tt.file))
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			got, err := ParseUSLM(tt.file, f)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != tt.count {
				t.Fatalf("got %d sections, want %d", len(got), tt.count)
			}
			if got[0].ID != tt.first || got[len(got)-1].ID != tt.last {
				t.Errorf("first/last ids = %s/%s, want %s/%s", got[0].ID, got[len(got)-1].ID, tt.first, tt.last)
			}
			var sec *contract.Statute
			for i := range got {
				st := &got[i]
				if err := Validate(st); err != nil {
					t.Errorf("%s: %v", st.ID, err)
				}
				if st.Code != tt.code || st.Jurisdiction != "us" {
					t.Errorf("%s: code %q jurisdiction %q", st.ID, st.Code, st.Jurisdiction)
				}
				if !strings.HasSuffix(st.ID, "/s"+st.Number) {
					t.Errorf("%s: number %q does not match the id", st.ID, st.Number)
				}
				if st.ID == tt.lookFor {
					sec = st
				}
			}
			if sec == nil {
				t.Fatalf("%s not parsed", tt.lookFor)
			}
			if !strings.Contains(sec.Text, tt.contains) {
				t.Errorf("%s text lacks %q:\n%s", sec.ID, tt.contains, sec.Text)
			}
			if sec.Heading != tt.heading {
				t.Errorf("%s heading = %q, want %q", sec.ID, sec.Heading, tt.heading)
			}
			for _, s := range tt.notInText {
				if strings.Contains(sec.Text, s) {
					t.Errorf("%s text contains note text %q", sec.ID, s)
				}
			}
		})
	}
}

func TestParseUSLMSectionTwoURL(t *testing.T) {
	f, err := os.Open(filepath.Join(sharedStatutes(t), "uscode", "usc09.xml"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	got, err := ParseUSLM("usc09.xml", f)
	if err != nil {
		t.Fatal(err)
	}
	want := "https://uscode.house.gov/view.xhtml?req=granuleid:USC-prelim-title9-section2&num=0&edition=prelim"
	if got[1].ID != "/us/usc/t9/s2" || got[1].URL != want {
		t.Errorf("got %s %s, want /us/usc/t9/s2 %s", got[1].ID, got[1].URL, want)
	}
}

const uslmHead = `<?xml version="1.0" encoding="UTF-8"?>
<uscDoc xmlns="http://xml.house.gov/schemas/uslm/1.0" identifier="/us/usc/t99"><main><title identifier="/us/usc/t99">`

func TestParseUSLMStructure(t *testing.T) {
	doc := uslmHead + `
<toc><tocItem><column>1.</column><column>Ignored table of contents</column></tocItem></toc>
<chapter identifier="/us/usc/t99/ch1"><num value="1">CHAPTER 1—</num><heading>TEST</heading>
<section identifier="/us/usc/t99/s1"><num value="1">§ 1.</num><heading> Plain   section</heading><content>
<p>First  line of
 the law.</p></content><sourceCredit>(Source credit.)</sourceCredit>
<notes><note topic="amendments"><heading>Amendments</heading><p>Amended text.</p>
<quotedContent><section identifier="/us/usc/t99/s77"><num value="77">§ 77.</num><content>Quoted.</content></section></quotedContent></note></notes>
</section>
<section identifier="/us/usc/t99/s2a"><num value="2a">§ 2a.</num><heading>Nested</heading>
<subsection identifier="/us/usc/t99/s2a/a"><num value="a">(a)</num><heading> In general.—</heading><chapeau>A person shall—</chapeau>
<paragraph identifier="/us/usc/t99/s2a/a/1"><num value="1">(1)</num><content>do one thing;</content></paragraph>
<paragraph identifier="/us/usc/t99/s2a/a/2"><num value="2">(2)</num><content>do an&#173;other.</content></paragraph>
</subsection></section>
<section status="repealed" identifier="/us/usc/t99/s3"><num value="3">[§ 3.</num><heading> Repealed. Pub. L. 1–2]</heading><notes><note><p>Gone.</p></note></notes></section>
</chapter></title></main></uscDoc>`
	got, err := ParseUSLM("t99.xml", strings.NewReader(doc))
	if err != nil {
		t.Fatal(err)
	}
	url := func(s string) string {
		return "https://uscode.house.gov/view.xhtml?req=granuleid:USC-prelim-title99-section" + s + "&num=0&edition=prelim"
	}
	want := []contract.Statute{
		{ID: "/us/usc/t99/s1", Jurisdiction: "us", Code: "99 U.S.C.", Number: "1", Heading: "Plain section",
			Text: "First line of the law.", URL: url("1")},
		{ID: "/us/usc/t99/s2a", Jurisdiction: "us", Code: "99 U.S.C.", Number: "2a", Heading: "Nested",
			Text: "(a) In general.—\nA person shall—\n(1) do one thing;\n(2) do another.", URL: url("2a")},
		{ID: "/us/usc/t99/s3", Jurisdiction: "us", Code: "99 U.S.C.", Number: "3", Heading: "Repealed. Pub. L. 1–2]",
			Text: "Repealed. Pub. L. 1–2]", URL: url("3")},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("ParseUSLM mismatch (-want +got):\n%s", diff)
	}
}

func TestParseUSLMErrors(t *testing.T) {
	tests := []struct {
		name      string
		doc       string
		wantField string
		wantMsg   string
	}{
		{"wrong namespace", `<uscDoc xmlns="urn:other"><section identifier="/us/usc/t1/s1"/></uscDoc>`, "", "not in the USLM namespace"},
		{"no sections", uslmHead + `</title></main></uscDoc>`, "", "no <section> elements"},
		{"missing identifier", uslmHead + `<section><num value="1">§ 1.</num><content>x</content></section></title></main></uscDoc>`, "identifier", "missing"},
		{"bad identifier", uslmHead + `<section identifier="/us/usc/t1/ch1"><content>x</content></section></title></main></uscDoc>`, "identifier", "not a US Code section identifier"},
		{"duplicate", uslmHead + `<section identifier="/us/usc/t1/s1"><content>x</content></section><section identifier="/us/usc/t1/s1"><content>y</content></section></title></main></uscDoc>`, "identifier", "duplicate"},
		{"malformed", uslmHead + `<section identifier="/us/usc/t1/s1"><content>x</section>`, "", "malformed XML"},
		{"empty section", uslmHead + `<section identifier="/us/usc/t1/s1"><num value="1">§ 1.</num></section></title></main></uscDoc>`, "content", "neither text nor heading"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseUSLM("bad.xml", strings.NewReader(tt.doc))
			var pe *ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("got %v, want a *ParseError", err)
			}
			if pe.File != "bad.xml" || pe.Field != tt.wantField || !strings.Contains(err.Error(), tt.wantMsg) {
				t.Errorf("got %q (field %q), want field %q and %q", err, pe.Field, tt.wantField, tt.wantMsg)
			}
		})
	}
}

func FuzzParseUSLM(f *testing.F) {
	f.Add(uslmHead + `<section identifier="/us/usc/t1/s1"><num value="1">§ 1.</num><heading>H</heading><content><p>T</p></content></section></title></main></uscDoc>`)
	f.Add(uslmHead + `<section identifier="/us/usc/t1/s1"><notes><note>x</note></notes></section>`)
	f.Add(`<x/>`)
	f.Fuzz(func(t *testing.T, doc string) {
		got, err := ParseUSLM("fuzz.xml", strings.NewReader(doc))
		if err != nil {
			var pe *ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("error %v is not a *ParseError", err)
			}
			return
		}
		for i := range got {
			if err := Validate(&got[i]); err != nil {
				t.Fatalf("parsed statute %+v is invalid: %v", got[i], err)
			}
		}
	})
}

// TestLoadUSLMInvalidUTF8: a stray byte in a USLM file becomes U+FFFD, as on
// every other path into the store, instead of failing the whole title as
// malformed XML.
func TestLoadUSLMInvalidUTF8(t *testing.T) {
	doc := uslmHead + `<section identifier="/us/usc/t99/s1"><num value="1">§ 1.</num><heading>Caf` + "\xe9" + `</heading><content><p>The law.</p></content></section></title></main></uscDoc>`
	p := filepath.Join(t.TempDir(), "t99.xml")
	if err := os.WriteFile(p, []byte(doc), 0o600); err != nil {
		t.Fatal(err)
	}
	sts, results := Load([]string{p})
	if results[0].Err != nil || len(sts) != 1 || sts[0].Heading != "Caf\uFFFD" {
		t.Fatalf("Load: %v, %+v", results[0].Err, sts)
	}
}
