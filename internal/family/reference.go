package family

import (
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/contractgraph/contractgraph/internal/contract"
)

// Kind is the relationship an amending or supplementing contract has to
// its master, as the graph stores it.
type Kind string

// Link kinds, named as the graph's relationship types.
const (
	// Amends: an amendment, or (with Restates) an amended and restated
	// agreement, changes the master's terms.
	Amends Kind = "AMENDS"
	// Supplements: a statement of work, schedule, addendum, order or
	// exhibit adds to the master without changing it.
	Supplements Kind = "SUPPLEMENTS"
)

// HeadBytes is how much of a contract's text ParseReference reads: the
// opening, where an amendment names what it amends.
const HeadBytes = 3000

// openingBytes is how far into the text a reference may start when the
// title does not say the contract is an amendment or the like: past the
// opening, "Amendment No. 1 to the ... Agreement" is a recital about
// another document.
const openingBytes = 1200

// maxTitleBytes bounds the title ParseReference reads.
const maxTitleBytes = 1000

// Evidence is the words that support a reference or link. Source is
// "text" when Quote is Text[Start:End] of the amending contract (byte
// offsets), or "title" when it was read from the title, which has no span
// in the text (Start and End are then 0).
type Evidence struct {
	Source string `json:"source"`
	Quote  string `json:"quote"`
	Start  int    `json:"start"`
	End    int    `json:"end"`
}

// Evidence sources.
const (
	SourceText  = "text"
	SourceTitle = "title"
)

// Reference is what a contract says about the master agreement it amends
// or supplements.
type Reference struct {
	Kind     Kind `json:"kind"`
	Restates bool `json:"restates,omitempty"`
	// Document is the kind of document as a word, normalised:
	// "Amendment", "Amended and Restated", "Statement of Work",
	// "Schedule", "Addendum", ...
	Document string `json:"document"`
	// Number is the document's number or letter ("2" of "Amendment No.
	// 2", "A" of "Schedule A"; ordinal words become digits), "" when none.
	Number string `json:"number,omitempty"`
	// Master is the referenced agreement's name as written ("Distribution
	// Agreement"); "" when the contract names none ("First Amendment").
	Master string `json:"master,omitempty"`
	// MasterDate is the master's date as the reference gives it
	// (YYYY-MM-DD), "" when it gives none.
	MasterDate string   `json:"master_date,omitempty"`
	Evidence   Evidence `json:"evidence"`
}

const (
	ordinalPattern = `first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|eleventh|twelfth|\d{1,2}(?:st|nd|rd|th)`
	docPattern     = `amended\s+and\s+restated|amendment\s+and\s+restatement|amendment\s+and\s+termination|amendment|amend\.?|statement\s+of\s+work|sow|work\s+order|task\s+order|change\s+order|order\s+form|schedule|addendum|supplement|rider|annex|appendix|attachment|exhibit`
	numberPattern  = `(?:\s*(?:no\.?|number|nr\.?|#|n\s?[°º]\.?)\s*([0-9]{1,3}|[A-Z]{1,2})\b|\s+([0-9]{1,3}|[A-Z](?:-\d{1,2})?)\b)?`
	datePattern    = `(?:[A-Za-z]{3,9}\.?\s+\d{1,2}\s*(?:st|nd|rd|th|t\s?h)?\s*,?\s*\d{4}|\d{1,2}\s*(?:st|nd|rd|th)?\s+(?:day\s+of\s+)?[A-Za-z]{3,9},?\s+\d{4}|\d{1,2}/\d{1,2}/\d{2,4}|\d{4}-\d{2}-\d{2})`
	// namePattern is an agreement's name: up to 14 words ending in
	// "agreement" or "contract", the shortest that does.
	namePattern = `((?:[\p{L}\p{N}'’&,\-./()]+\s+){0,14}?(?:agreement|contract))\b`
)

var (
	// referenceRE is "<document> [No. N] [(...)] [, dated D,] to|under|of
	// [the] <name>".
	referenceRE = regexp.MustCompile(`(?i)\b(?:(` + ordinalPattern + `)\s+)?(` + docPattern + `)` + numberPattern +
		`(?:\s*\([^()]{0,80}\))?(?:\s*,?\s*dated\s+(?:as\s+of\s+)?` + datePattern + `\s*,?)?` +
		`\s*,?\s*(?:to|under|of|for|in\s+respect\s+of|amending)\s+(?:(the|this|that\s+certain|said|an?)\s+)?` + namePattern)

	// restatedRE is "[Second] Amended and Restated <name>" with no
	// connector: the document names itself.
	restatedRE = regexp.MustCompile(`(?i)\b(?:(` + ordinalPattern + `)\s+)?(?:amended\s+(?:and|&)\s+restated|a\s?&\s?r)\s+` + namePattern)

	// masterDateRE finds the master's date after its name.
	masterDateRE = regexp.MustCompile(`(?i)^[^;]{0,160}?\b(?:dated|entered\s+into|effective|made|executed|signed)\s+(?:and\s+entered\s+into\s+)?(?:on|as\s+of|on\s+or\s+about)?\s*(?:the\s+)?(` + datePattern + `)`)

	// stopRE ends the window masterDateRE reads: the next sentence about
	// the amending document itself.
	stopRE = regexp.MustCompile(`(?i)\bthis\s+(?:amendment|addendum|schedule|supplement|statement|sow|rider|first|second|third|fourth|fifth)\b|\bwhereas\b|\n\s*\n`)

	// looseDocRE finds a document word anywhere in a title.
	looseDocRE = regexp.MustCompile(`(?i)\b(?:(` + ordinalPattern + `)\s+)?(amended\s+(?:and|&)\s+restated|amendment|statement\s+of\s+work|sow|addendum|schedule|supplement)\b` + numberPattern)

	ordinalSuffixRE = regexp.MustCompile(`(?i)(\d)\s*(?:st|nd|rd|th|t\s?h)\b`)
)

// genericBefore are words that, just before a document word, make it a
// mention of documents in general ("any amendment to this Agreement"),
// not the name of this one.
var genericBefore = map[string]bool{
	"no": true, "any": true, "each": true, "every": true, "such": true, "all": true, "other": true,
	"further": true, "future": true, "written": true, "subsequent": true, "an": true, "a": true,
	"its": true, "their": true, "or": true, "and": true, "in": true, "by": true, "under": true,
	"pursuant": true, "per": true, "see": true, "attached": true, "hereto": true, "with": true,
	"of": true, "on": true, "without": true, "mutual": true, "applicable": true, "relevant": true,
	"certain": true, "into": true, "that": true, "said": true, "said.": true, "same": true,
}

// vagueName are first words of a name that make it no name of an
// agreement: "Schedule 13D to which this ..." is a filing, not a schedule.
var vagueName = map[string]bool{
	"which": true, "whom": true, "whose": true, "such": true, "any": true, "each": true, "it": true,
	"this": true, "these": true, "those": true, "its": true, "their": true, "our": true, "your": true,
}

var ordinals = map[string]string{
	"first": "1", "second": "2", "third": "3", "fourth": "4", "fifth": "5", "sixth": "6",
	"seventh": "7", "eighth": "8", "ninth": "9", "tenth": "10", "eleventh": "11", "twelfth": "12",
}

// ParseReference reads a contract's title and the head of its text
// (HeadBytes) for a reference to a master agreement: "Amendment No. 2 to
// the Distribution Agreement dated as of March 1, 1999", "First Amendment
// to ...", "Second Amended and Restated ... Agreement", "Statement of Work
// No. 1 under the Master Services Agreement", "Schedule A to ...". The
// text is searched first, so that the evidence has a span; the title then,
// and last a title that only says what it is ("First Amendment",
// "Customization Schedule"). Mentions of documents in general ("any
// amendment to this Agreement", "Exhibit A attached hereto") are not
// references. ok is false when the contract refers to no master.
func ParseReference(title, text string) (ref Reference, ok bool) {
	head := clipUTF8(text, HeadBytes)
	title = clipUTF8(title, maxTitleBytes)
	// Most contracts refer to nothing, and the expressions are slow to
	// find that out: skip them where no document word is.
	inHead, inTitle := mayRefer(head), mayRefer(title)
	if inHead {
		if r, ok := strictReference(head, SourceText); ok && (r.Evidence.Start < openingBytes || inTitle && looseDocRE.MatchString(title)) {
			return r, true
		}
	}
	if !inTitle {
		return Reference{}, false
	}
	if r, ok := strictReference(title, SourceTitle); ok {
		return r, true
	}
	return looseTitleReference(title, head)
}

// documentWords hold, in lower case, a part of every document word that
// referenceRE, restatedRE and looseDocRE match ("amend" of "amended and
// restated", "order" of "work order", "&" of "A&R").
var documentWords = []string{"amend", "statement", "sow", "order", "schedule", "addendum", "supplement",
	"rider", "annex", "appendix", "attachment", "exhibit", "&"}

// mayRefer reports whether s holds one of documentWords, matched as the
// expressions' (?i) matches: ASCII letters in either case, and the two
// other characters that fold to one (U+017F ſ to s, U+212A Kelvin K to
// k). When it is false none of the expressions matches s.
func mayRefer(s string) bool {
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range s {
		switch {
		case 'A' <= r && r <= 'Z':
			r += 'a' - 'A'
		case r == '\u017f':
			r = 's'
		case r == '\u212a':
			r = 'k'
		}
		b.WriteRune(r)
	}
	folded := b.String()
	for _, w := range documentWords {
		if strings.Contains(folded, w) {
			return true
		}
	}
	return false
}

// strictReference finds the first reference in s that names its master.
func strictReference(s, source string) (Reference, bool) {
	type cand struct {
		ref   Reference
		start int
	}
	var best *cand
	consider := func(r Reference, start int) {
		if best == nil || start < best.start {
			best = &cand{r, start}
		}
	}
	for _, m := range referenceRE.FindAllStringSubmatchIndex(s, 8) {
		if generic(s, m[0]) {
			continue
		}
		article := group(s, m, 5)
		name := cleanName(group(s, m, 6))
		if strings.EqualFold(article, "this") || name == "" {
			continue
		}
		doc, kind, restates := document(group(s, m, 2))
		if kind == Supplements && typeWords(name, nil) == nil {
			// "Exhibit A to the Agreement" in a master's own body.
			continue
		}
		num := number(group(s, m, 1), group(s, m, 3), group(s, m, 4))
		r := Reference{Kind: kind, Restates: restates, Document: doc, Number: num, Master: name}
		end := m[13]
		if d, dEnd := masterDate(s, end); d != "" {
			r.MasterDate, end = d, dEnd
		}
		r.Evidence = evidence(s, source, m[0], end)
		consider(r, m[0])
		break
	}
	for _, m := range restatedRE.FindAllStringSubmatchIndex(s, 4) {
		if generic(s, m[0]) {
			continue
		}
		name := cleanName(group(s, m, 2))
		if name == "" || typeWords(name, nil) == nil {
			continue
		}
		r := Reference{Kind: Amends, Restates: true, Document: "Amended and Restated", Master: name,
			Number: number(group(s, m, 1), "", "")}
		r.Evidence = evidence(s, source, m[0], m[5])
		consider(r, m[0])
		break
	}
	if best == nil {
		return Reference{}, false
	}
	return best.ref, true
}

// looseTitleReference reads a title that says what kind of document it
// is without a connector: "Amendment No. 1 Manufacturing Agreement",
// "Cooperation Agreement (2014 Amendment)", "First Amendment". The master's
// name is what remains of the title, if it names an agreement.
func looseTitleReference(title, head string) (Reference, bool) {
	m := looseDocRE.FindStringSubmatchIndex(title)
	if m == nil {
		return Reference{}, false
	}
	doc, kind, restates := document(group(title, m, 2))
	r := Reference{Kind: kind, Restates: restates, Document: doc,
		Number: number(group(title, m, 1), group(title, m, 3), group(title, m, 4))}
	rest := strings.TrimSpace(title[:m[0]] + " " + title[m[1]:])
	if i := strings.LastIndex(strings.ToLower(rest), "agreement"); i >= 0 {
		r.Master = cleanName(rest[:i+len("agreement")])
	}
	r.Evidence = Evidence{Source: SourceTitle, Quote: strings.TrimSpace(title)}
	// Quote the text instead where it repeats the document's name.
	if start, end := indexFold(head, title[m[0]:m[1]]); start >= 0 {
		r.Evidence = evidence(head, SourceText, start, end)
	}
	return r, true
}

// generic reports whether the document word at i is a mention of such
// documents in general, judged by the word before it.
func generic(s string, i int) bool {
	before := strings.Fields(strings.ToLower(s[max(0, i-24):i]))
	if len(before) == 0 {
		return false
	}
	last := before[len(before)-1]
	if strings.ContainsAny(last[len(last)-1:], `"“‘`) || strings.HasSuffix(last, "“") {
		return true // a defined term: (the "First Amendment to ...")
	}
	w := strings.Trim(last, `"'“”‘’(),.:;`)
	return genericBefore[w]
}

// document normalises a document word and says which kind of link it
// makes.
func document(word string) (name string, kind Kind, restates bool) {
	w := strings.ToLower(strings.Join(strings.Fields(word), " "))
	w = strings.TrimSuffix(w, ".")
	switch w {
	case "amendment and termination":
		return "Amendment and Termination", Amends, false
	case "amended and restated", "amended & restated", "amendment and restatement":
		return "Amended and Restated", Amends, true
	case "amendment", "amend":
		return "Amendment", Amends, false
	case "sow", "statement of work":
		return "Statement of Work", Supplements, false
	}
	return titleCase(w), Supplements, false
}

// number is the document's number from an ordinal word or a numeral.
func number(ordinal, a, b string) string {
	if n := ordinals[strings.ToLower(ordinal)]; n != "" {
		return n
	}
	if ordinal != "" {
		return strings.TrimRight(strings.ToLower(ordinal), "stndrh")
	}
	n := a
	if n == "" {
		n = b
	}
	n = strings.TrimLeft(n, "0")
	if n == "" && (a != "" || b != "") {
		return "0"
	}
	return strings.ToUpper(n)
}

// masterDate reads the master's date just after its name, which ends at
// end in s, stopping at the next sentence about the amending document.
// It returns the date (YYYY-MM-DD) and where its words end.
func masterDate(s string, end int) (string, int) {
	window := s[end:min(len(s), end+240)]
	if loc := stopRE.FindStringIndex(window); loc != nil {
		window = window[:loc[0]]
	}
	m := masterDateRE.FindStringSubmatchIndex(window)
	if m == nil {
		return "", end
	}
	raw := ordinalSuffixRE.ReplaceAllString(window[m[2]:m[3]], "$1")
	d, err := contract.NormalizeDate(strings.Join(strings.Fields(raw), " "))
	if err != nil {
		return "", end
	}
	return d, end + m[3]
}

// evidence is the quote s[start:end] from source.
func evidence(s, source string, start, end int) Evidence {
	e := Evidence{Source: source, Quote: s[start:end]}
	if source == SourceText {
		e.Start, e.End = start, end
	} else {
		e.Quote = strings.Join(strings.Fields(e.Quote), " ")
	}
	return e
}

// cleanName trims a matched agreement name: whitespace collapsed, leading
// articles and punctuation removed; "" when it is too vague to be a name.
func cleanName(s string) string {
	words := strings.Fields(s)
	for len(words) > 0 {
		w := strings.ToLower(strings.Trim(words[0], `"'“”‘’(),.:;`))
		if w == "the" || w == "said" || w == "that" || w == "certain" || w == "" {
			words = words[1:]
			continue
		}
		if vagueName[w] {
			return ""
		}
		break
	}
	return strings.Trim(strings.Join(words, " "), `"'“”‘’(),.:; `)
}

// group is submatch i of m in s, "" when it did not take part.
func group(s string, m []int, i int) string {
	if 2*i+1 >= len(m) || m[2*i] < 0 {
		return ""
	}
	return s[m[2*i]:m[2*i+1]]
}

// clipUTF8 cuts s to at most n bytes at a character boundary.
func clipUTF8(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// indexFold finds sub in s ignoring case and reading any run of white
// space in sub as any other; sub must be short. It returns the span, or -1
// and -1 when sub is absent.
func indexFold(s, sub string) (start, end int) {
	words := strings.Fields(sub)
	if len(words) == 0 {
		return -1, -1
	}
	for i := range words {
		words[i] = regexp.QuoteMeta(words[i])
	}
	re, err := regexp.Compile(`(?i)\b` + strings.Join(words, `\s+`) + `\b`)
	if err != nil {
		return -1, -1
	}
	loc := re.FindStringIndex(s)
	if loc == nil {
		return -1, -1
	}
	return loc[0], loc[1]
}

func titleCase(s string) string {
	words := strings.Fields(s)
	for i, w := range words {
		if i > 0 && (w == "of" || w == "to") {
			continue
		}
		words[i] = strings.ToUpper(w[:1]) + w[1:]
	}
	return strings.Join(words, " ")
}
