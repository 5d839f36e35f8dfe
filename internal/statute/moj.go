package statute

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"strings"

	"github.com/contractgraph/contractgraph/internal/contract"
	"github.com/contractgraph/contractgraph/internal/jsonmsg"
)

// MOJLaw is one law read from a Taiwan Ministry of Justice open-data file
// in one language. The Chinese and English files of a law are parsed
// separately and joined with JoinMOJ.
type MOJLaw struct {
	PCode    string // the law's code on law.moj.gov.tw, e.g. B0000001
	Name     string // the law's name in this file's language
	English  bool
	Articles []MOJArticle
}

// MOJArticle is one article ("A" entry) of a law.
type MOJArticle struct {
	Number  string // "1", "15-1"
	Chapter string // the enclosing part/chapter/section headings, outermost first, joined by " > "
	Text    string
}

// mojFile covers both the Chinese and the English open-data layouts, and
// the ChLaw.json/EngLaw.json wrappers holding many laws.
type mojFile struct {
	Laws []json.RawMessage `json:"Laws"`

	LawName     string       `json:"LawName"`
	LawURL      string       `json:"LawURL"`
	LawArticles []mojEntryZH `json:"LawArticles"`

	EngLawName     string       `json:"EngLawName"`
	EngLawURL      string       `json:"EngLawURL"`
	EngLawArticles []mojEntryEN `json:"EngLawArticles"`
}

type mojEntryZH struct {
	ArticleType    string `json:"ArticleType"`
	ArticleNo      string `json:"ArticleNo"`
	ArticleContent string `json:"ArticleContent"`
}

type mojEntryEN struct {
	EngArticleType    string `json:"EngArticleType"`
	EngArticleNo      string `json:"EngArticleNo"`
	EngArticleContent string `json:"EngArticleContent"`
}

var (
	mojNumberZH = regexp.MustCompile(`^第\s*([0-9]+(?:\s*-\s*[0-9]+)?)\s*條$`)
	mojNumberEN = regexp.MustCompile(`^(?i:article)\s*([0-9]+(?:\s*-\s*[0-9]+)?)$`)
)

// ParseMOJ reads a Ministry of Justice law file: one law object (Chinese
// LawArticles or English EngLawArticles), or a {"Laws": [...]} wrapper of
// many. Only "A" (article) entries become articles; "C" entries are the
// headings of parts, chapters and sections and are attached to the articles
// that follow them. file names the input in errors.
func ParseMOJ(file string, data []byte) ([]MOJLaw, error) {
	var f mojFile
	if err := json.Unmarshal(data, &f); err != nil {
		if field, msg, ok := jsonmsg.Describe(err); ok {
			return nil, &ParseError{File: file, Field: field, Err: errors.New(msg)}
		}
		return nil, &ParseError{File: file, Err: fmt.Errorf("malformed JSON: %w", err)}
	}
	if f.Laws == nil {
		law, err := parseMOJLaw(file, "", &f)
		if err != nil {
			return nil, err
		}
		return []MOJLaw{*law}, nil
	}
	if len(f.Laws) == 0 {
		return nil, &ParseError{File: file, Field: "Laws", Err: errors.New("empty")}
	}
	out := make([]MOJLaw, 0, len(f.Laws))
	for i, raw := range f.Laws {
		rec := fmt.Sprintf("Laws[%d]", i)
		var lf mojFile
		if err := json.Unmarshal(raw, &lf); err != nil {
			return nil, &ParseError{File: file, Record: rec, Err: fmt.Errorf("malformed JSON: %w", err)}
		}
		law, err := parseMOJLaw(file, rec, &lf)
		if err != nil {
			return nil, err
		}
		out = append(out, *law)
	}
	return out, nil
}

func parseMOJLaw(file, rec string, f *mojFile) (*MOJLaw, error) {
	english := f.EngLawArticles != nil
	if !english && f.LawArticles == nil {
		return nil, &ParseError{File: file, Record: rec, Field: "LawArticles", Err: errors.New("missing (neither LawArticles nor EngLawArticles is present)")}
	}
	law := &MOJLaw{English: english, Name: strings.TrimSpace(f.LawName)}
	lawURL, urlField := f.LawURL, "LawURL"
	if english {
		law.Name = strings.TrimSpace(f.EngLawName)
		lawURL, urlField = f.EngLawURL, "EngLawURL"
	}
	if rec == "" {
		rec = law.Name
	}
	pcode, err := mojPCode(lawURL)
	if err != nil {
		return nil, &ParseError{File: file, Record: rec, Field: urlField, Err: err}
	}
	law.PCode = pcode

	type entry struct{ typ, no, content, field string }
	var entries []entry
	if english {
		for _, e := range f.EngLawArticles {
			entries = append(entries, entry{e.EngArticleType, e.EngArticleNo, e.EngArticleContent, "EngArticleNo"})
		}
	} else {
		for _, e := range f.LawArticles {
			entries = append(entries, entry{e.ArticleType, e.ArticleNo, e.ArticleContent, "ArticleNo"})
		}
	}
	numberRE := mojNumberZH
	if english {
		numberRE = mojNumberEN
	}
	type heading struct {
		indent int
		text   string
	}
	var chapters []heading
	seen := map[string]bool{}
	for i, e := range entries {
		switch e.typ {
		case "C":
			text := strings.TrimSpace(e.content)
			if text == "" {
				continue
			}
			indent := len(e.content) - len(strings.TrimLeft(e.content, " \t\u3000"))
			for len(chapters) > 0 && chapters[len(chapters)-1].indent >= indent {
				chapters = chapters[:len(chapters)-1]
			}
			chapters = append(chapters, heading{indent, collapseSpace(text)})
		case "A":
			ar := fmt.Sprintf("%s entry %d (%q)", rec, i+1, e.no)
			m := numberRE.FindStringSubmatch(strings.TrimSpace(e.no))
			if m == nil {
				want := `"第 1 條"`
				if english {
					want = `"Article 1"`
				}
				return nil, &ParseError{File: file, Record: ar, Field: e.field, Err: fmt.Errorf("article number is not like %s", want)}
			}
			num := strings.Join(strings.Fields(strings.ReplaceAll(m[1], "-", " - ")), "")
			if seen[num] {
				return nil, &ParseError{File: file, Record: ar, Field: e.field, Err: errors.New("duplicate article number")}
			}
			seen[num] = true
			text := plainLines(strings.ReplaceAll(e.content, "\r", ""))
			if text == "" {
				return nil, &ParseError{File: file, Record: ar, Field: strings.Replace(e.field, "No", "Content", 1), Err: errors.New("empty article text")}
			}
			parts := make([]string, len(chapters))
			for j, c := range chapters {
				parts[j] = c.text
			}
			law.Articles = append(law.Articles, MOJArticle{Number: num, Chapter: strings.Join(parts, " > "), Text: text})
		default:
			return nil, &ParseError{File: file, Record: fmt.Sprintf("%s entry %d", rec, i+1), Field: strings.Replace(entries[i].field, "No", "Type", 1),
				Err: fmt.Errorf("unknown article type %q (want A or C)", e.typ)}
		}
	}
	if len(law.Articles) == 0 {
		return nil, &ParseError{File: file, Record: rec, Err: errors.New("law has no articles")}
	}
	return law, nil
}

// mojPCode extracts the pcode query parameter of a law.moj.gov.tw URL.
func mojPCode(raw string) (string, error) {
	if raw == "" {
		return "", errors.New("missing (the law's pcode is read from it)")
	}
	u, err := url.Parse(raw)
	if err != nil {
		return "", fmt.Errorf("bad URL: %w", err)
	}
	pcode := u.Query().Get("pcode")
	if pcode == "" || strings.ContainsAny(pcode, "/ ") {
		return "", fmt.Errorf("URL %q has no usable pcode parameter", raw)
	}
	return pcode, nil
}

// MOJURL is the official law.moj.gov.tw page of one article.
func MOJURL(pcode, number string) string {
	return "https://law.moj.gov.tw/LawClass/LawSingle.aspx?pcode=" + url.QueryEscape(pcode) + "&flno=" + url.QueryEscape(number)
}

// JoinMOJ joins the Chinese and English versions of one law on the article
// number into one Statute per article: the text is the Chinese text followed
// by the English translation, the heading the enclosing chapter headings.
// Either version may be nil; an article present in only one version keeps
// that version's text. The id is /tw/{pcode}/a{number}, e.g. /tw/B0000001/a1-1.
func JoinMOJ(zh, en *MOJLaw) ([]contract.Statute, error) {
	if zh == nil && en == nil {
		return nil, errors.New("join MOJ law: no version given")
	}
	if zh != nil && en != nil && zh.PCode != en.PCode {
		return nil, fmt.Errorf("join MOJ law: Chinese pcode %s differs from English pcode %s", zh.PCode, en.PCode)
	}
	pcode := ""
	var names []string
	var order []string
	byNum := map[string]*[2]*MOJArticle{}
	for i, law := range []*MOJLaw{zh, en} {
		if law == nil {
			continue
		}
		pcode = law.PCode
		if law.Name != "" {
			names = append(names, law.Name)
		}
		for j := range law.Articles {
			a := &law.Articles[j]
			pair := byNum[a.Number]
			if pair == nil {
				pair = &[2]*MOJArticle{}
				byNum[a.Number] = pair
				order = append(order, a.Number)
			}
			pair[i] = a
		}
	}
	code := pcode
	switch len(names) {
	case 1:
		code = names[0]
	case 2:
		code = fmt.Sprintf("%s (%s)", names[0], names[1])
	}
	out := make([]contract.Statute, 0, len(order))
	for _, num := range order {
		pair := byNum[num]
		var texts, chapters []string
		for _, a := range pair {
			if a == nil {
				continue
			}
			texts = append(texts, a.Text)
			if a.Chapter != "" {
				chapters = append(chapters, a.Chapter)
			}
		}
		out = append(out, contract.Statute{
			ID:           "/tw/" + pcode + "/a" + num,
			Jurisdiction: "tw",
			Code:         code,
			Number:       num,
			Heading:      strings.Join(chapters, " / "),
			Text:         strings.Join(texts, "\n\n"),
			URL:          MOJURL(pcode, num),
		})
	}
	return out, nil
}

// looksLikeMOJ reports whether a JSON object's top-level keys are those of a
// MOJ law file.
func looksLikeMOJ(keys map[string]json.RawMessage) bool {
	for _, k := range []string{"LawArticles", "EngLawArticles", "Laws"} {
		if _, ok := keys[k]; ok {
			return true
		}
	}
	return false
}
