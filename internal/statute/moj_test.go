package statute

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode"

	"github.com/contractgraph/contractgraph/internal/contract"
	"github.com/google/go-cmp/cmp"
)

func TestLoadCivilCode(t *testing.T) {
	dir := filepath.Join(sharedStatutes(t), "tw_moj")
	zh := filepath.Join(dir, "ch", "B0000001.json")
	en := filepath.Join(dir, "en", "B0000001.json")
	tests := []struct {
		name  string
		paths []string
	}{
		{"both files", []string{zh, en}},
		{"chinese finds english sibling", []string{zh}},
		{"english finds chinese sibling", []string{en}},
	}
	var first []contract.Statute
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, results := Load(tt.paths)
			for _, r := range results {
				if r.Err != nil {
					t.Fatalf("%s: %v", r.File, r.Err)
				}
			}
			if len(got) != 1439 {
				t.Fatalf("got %d articles, want 1439", len(got))
			}
			if results[0].Count != 1439 || results[0].Format != FormatMOJ || results[0].Joined == "" {
				t.Errorf("result = %+v, want 1439 joined MOJ articles", results[0])
			}
			byID := map[string]contract.Statute{}
			for _, st := range got {
				byID[st.ID] = st
			}
			a1 := byID["/tw/B0000001/a1"]
			want := contract.Statute{
				ID: "/tw/B0000001/a1", Jurisdiction: "tw", Code: "民法 (Civil Code)", Number: "1",
				Heading: "第 一 編 總則 > 第 一 章 法例 / Part Ⅰ General Principles > Chapter Ⅰ Application Rules",
				Text: "民事，法律所未規定者，依習慣；無習慣者，依法理。\n\nIf there is no applicable act for a civil case, the case shall be decided according to customs. " +
					"If there is no such custom, the case shall be decided according to the jurisprudence.",
				URL: "https://law.moj.gov.tw/LawClass/LawSingle.aspx?pcode=B0000001&flno=1",
			}
			if diff := cmp.Diff(want, a1); diff != "" {
				t.Errorf("article 1 (-want +got):\n%s", diff)
			}
			a151, ok := byID["/tw/B0000001/a15-1"]
			if !ok || a151.Number != "15-1" || !strings.Contains(a151.URL, "flno=15-1") {
				t.Errorf("article 15-1 = %+v", a151)
			}
			// Every article carries both languages: Chinese first, then English.
			for _, st := range got {
				parts := strings.SplitN(st.Text, "\n\n", 2)
				hasHan := strings.ContainsFunc(parts[0], func(r rune) bool { return unicode.Is(unicode.Han, r) })
				if len(parts) != 2 || !hasHan || !strings.ContainsAny(parts[1], "aeiou") {
					t.Errorf("%s: text is not Chinese then English: %.80q", st.ID, st.Text)
					break
				}
			}
			if first == nil {
				first = got
			} else if diff := cmp.Diff(first, got); diff != "" {
				t.Errorf("loading %v gave different statutes than the first load (-first +got):\n%s", tt.paths, diff)
			}
		})
	}
}

const mojZH = `{"LawName":"測試法","LawURL":"https://law.moj.gov.tw/LawClass/LawAll.aspx?pcode=Z0000001","LawArticles":[
{"ArticleType":"C","ArticleNo":"","ArticleContent":"第 一 章 總則"},
{"ArticleType":"A","ArticleNo":"第 1 條","ArticleContent":"第一條內容。\r\n第二項。"},
{"ArticleType":"C","ArticleNo":"","ArticleContent":"   第 一 節 細則"},
{"ArticleType":"A","ArticleNo":"第 1-1 條","ArticleContent":"一之一。"},
{"ArticleType":"C","ArticleNo":"","ArticleContent":"第 二 章 附則"},
{"ArticleType":"A","ArticleNo":"第 2 條","ArticleContent":"僅有中文。"}]}`

const mojEN = `{"EngLawName":"Test Act","EngLawURL":"https://law.moj.gov.tw/Eng/LawClass/LawAll.aspx?pcode=Z0000001","EngLawArticles":[
{"EngArticleType":"A","EngArticleNo":"Article 1","EngArticleContent":"Article one."},
{"EngArticleType":"A","EngArticleNo":"Article 1-1","EngArticleContent":"One dash one."}]}`

func TestJoinMOJ(t *testing.T) {
	zh, err := ParseMOJ("zh.json", []byte(mojZH))
	if err != nil {
		t.Fatal(err)
	}
	en, err := ParseMOJ("en.json", []byte(mojEN))
	if err != nil {
		t.Fatal(err)
	}
	got, err := JoinMOJ(&zh[0], &en[0])
	if err != nil {
		t.Fatal(err)
	}
	url := "https://law.moj.gov.tw/LawClass/LawSingle.aspx?pcode=Z0000001&flno="
	want := []contract.Statute{
		{ID: "/tw/Z0000001/a1", Jurisdiction: "tw", Code: "測試法 (Test Act)", Number: "1", Heading: "第 一 章 總則",
			Text: "第一條內容。\n第二項。\n\nArticle one.", URL: url + "1"},
		{ID: "/tw/Z0000001/a1-1", Jurisdiction: "tw", Code: "測試法 (Test Act)", Number: "1-1", Heading: "第 一 章 總則 > 第 一 節 細則",
			Text: "一之一。\n\nOne dash one.", URL: url + "1-1"},
		{ID: "/tw/Z0000001/a2", Jurisdiction: "tw", Code: "測試法 (Test Act)", Number: "2", Heading: "第 二 章 附則",
			Text: "僅有中文。", URL: url + "2"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("JoinMOJ (-want +got):\n%s", diff)
	}
	if _, err := JoinMOJ(&zh[0], &MOJLaw{PCode: "OTHER", English: true}); err == nil {
		t.Error("joining different laws succeeded")
	}
}

func TestParseMOJErrors(t *testing.T) {
	tests := []struct {
		name, doc, field, msg string
	}{
		{"malformed", `{"LawArticles": [`, "", "malformed JSON"},
		{"no articles key", `{"LawName":"x"}`, "LawArticles", "missing"},
		{"no pcode", `{"LawName":"x","LawURL":"https://law.moj.gov.tw/x","LawArticles":[]}`, "LawURL", "no usable pcode"},
		{"bad number", `{"LawName":"x","LawURL":"https://h/?pcode=A1","LawArticles":[{"ArticleType":"A","ArticleNo":"第一條","ArticleContent":"x"}]}`, "ArticleNo", "not like"},
		{"bad english number", `{"EngLawName":"x","EngLawURL":"https://h/?pcode=A1","EngLawArticles":[{"EngArticleType":"A","EngArticleNo":"Art. 1","EngArticleContent":"x"}]}`, "EngArticleNo", "not like"},
		{"duplicate", `{"LawName":"x","LawURL":"https://h/?pcode=A1","LawArticles":[{"ArticleType":"A","ArticleNo":"第 1 條","ArticleContent":"x"},{"ArticleType":"A","ArticleNo":"第 1 條","ArticleContent":"y"}]}`, "ArticleNo", "duplicate"},
		{"empty text", `{"LawName":"x","LawURL":"https://h/?pcode=A1","LawArticles":[{"ArticleType":"A","ArticleNo":"第 1 條","ArticleContent":"  "}]}`, "ArticleContent", "empty"},
		{"bad type", `{"LawName":"x","LawURL":"https://h/?pcode=A1","LawArticles":[{"ArticleType":"Q","ArticleNo":"第 1 條","ArticleContent":"x"}]}`, "ArticleType", "unknown article type"},
		{"no articles", `{"LawName":"x","LawURL":"https://h/?pcode=A1","LawArticles":[{"ArticleType":"C","ArticleContent":"章"}]}`, "", "no articles"},
		{"empty wrapper", `{"Laws":[]}`, "Laws", "empty"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseMOJ("law.json", []byte(tt.doc))
			var pe *ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("got %v, want a *ParseError", err)
			}
			if pe.File != "law.json" || pe.Field != tt.field || !strings.Contains(err.Error(), tt.msg) {
				t.Errorf("got %q (field %q), want field %q and %q", err, pe.Field, tt.field, tt.msg)
			}
		})
	}
}

func TestParseMOJWrapper(t *testing.T) {
	laws, err := ParseMOJ("ChLaw.json", []byte(`{"UpdateDate":"x","Laws":[`+mojZH+`]}`))
	if err != nil {
		t.Fatal(err)
	}
	if len(laws) != 1 || laws[0].PCode != "Z0000001" || len(laws[0].Articles) != 3 {
		t.Errorf("got %+v", laws)
	}
}

func FuzzParseMOJ(f *testing.F) {
	f.Add(mojZH)
	f.Add(mojEN)
	f.Add(`{"Laws":[{}]}`)
	f.Fuzz(func(t *testing.T, doc string) {
		laws, err := ParseMOJ("fuzz.json", []byte(doc))
		if err != nil {
			var pe *ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("error %v is not a *ParseError", err)
			}
			return
		}
		for i := range laws {
			var sts []contract.Statute
			if laws[i].English {
				sts, err = JoinMOJ(nil, &laws[i])
			} else {
				sts, err = JoinMOJ(&laws[i], nil)
			}
			if err != nil {
				t.Fatal(err)
			}
			for j := range sts {
				if err := Validate(&sts[j]); err != nil {
					t.Fatalf("joined statute %+v is invalid: %v", sts[j], err)
				}
			}
		}
	})
}

func TestLoadWarnsAboutBadSibling(t *testing.T) {
	dir := t.TempDir()
	for _, d := range []string{"ch", "en"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	zh := filepath.Join(dir, "ch", "Z0000001.json")
	if err := os.WriteFile(zh, []byte(mojZH), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "en", "Z0000001.json"), []byte(`{"EngLawArticles": [`), 0o600); err != nil {
		t.Fatal(err)
	}
	sts, results := Load([]string{zh})
	if results[0].Err != nil || len(sts) != 3 || results[0].Joined != "" {
		t.Fatalf("result = %+v, %d statutes", results[0], len(sts))
	}
	if len(results[0].Warnings) != 1 || !strings.Contains(results[0].Warnings[0], "other-language version not joined") || !strings.Contains(results[0].Warnings[0], "malformed JSON") {
		t.Errorf("warnings = %q", results[0].Warnings)
	}
}
