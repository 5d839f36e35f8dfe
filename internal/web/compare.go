package web

import (
	"html/template"
	"net/url"
	"strconv"
	"strings"
)

// ComparePage is the clause comparison: a form (clause type and a few
// contract filters, refilled from Query, whose keys are clause_compare
// argument names) and, once a clause type is chosen, its clauses grouped
// side by side with their key terms and the outliers.
type ComparePage struct {
	Base
	Query         url.Values
	ClauseGroups  []ClauseGroupOptions
	ContractTypes []string
	Error         *FieldError
	Result        *Comparison
}

// Comparison is one clause_compare result laid out for the page.
type Comparison struct {
	ClauseType     string
	TotalContracts int
	TotalClauses   int
	Compared       int
	Threshold      float64
	TotalGroups    int
	Groups         []CompareGroup
	TotalOutliers  int
	Outliers       []CompareClause
}

// CompareGroup is one group of alike clauses.
type CompareGroup struct {
	ID, Size, Contracts int
	Cohesion            float64
	KeyTerms            []KeyTerm
	Representative      CompareClause
	Members             []CompareClause
	MoreMembers         int
}

// KeyTerm is what a group's clauses state for one kind of term, in words:
// "cap: median 1,000,000 USD (…), 5 clauses".
type KeyTerm struct {
	Kind  string
	Label string
}

// CompareClause is one clause: its contract, its words with the key terms
// marked, and a link to it in the contract's text.
type CompareClause struct {
	ContractID string
	Title      string
	// Href opens the contract at the clause's span; "" when the clause
	// has none (known only by a summary, or not found in the text).
	Href string
	// HTML is the clause's text with its key terms in <mark> elements.
	HTML       template.HTML
	Summary    string
	Truncated  bool
	Similarity float64
	Terms      []string
	// Outlier is set on a clause the comparison flags, with the reasons.
	Outlier bool
	Group   int
	Reasons []string
	Details []string
}

// SpanURL opens a contract's page at a span of its text, marked as cited.
func SpanURL(id string, start, end int) string {
	return ContractURL(id) + "?span=" + strconv.Itoa(start) + "-" + strconv.Itoa(end) + "#cited"
}

// TermMark is a key term's place in a clause's text, as byte offsets into
// that text, with what it says.
type TermMark struct {
	Start, End int
	Kind       string
	Title      string
}

// MarkTerms escapes text and wraps each mark's bytes in <mark
// class="term">. Marks outside the text, overlapping an earlier one or
// not on character boundaries are left out.
func MarkTerms(text string, marks []TermMark) template.HTML {
	var b strings.Builder
	at := 0
	for _, m := range marks {
		if m.Start < at || m.End <= m.Start || m.End > len(text) || !boundary(text, m.Start) || !boundary(text, m.End) {
			continue
		}
		b.WriteString(template.HTMLEscapeString(text[at:m.Start]))
		b.WriteString(`<mark class="term" data-kind="`)
		b.WriteString(template.HTMLEscapeString(m.Kind))
		b.WriteString(`" title="`)
		b.WriteString(template.HTMLEscapeString(m.Title))
		b.WriteString(`">`)
		b.WriteString(template.HTMLEscapeString(text[m.Start:m.End]))
		b.WriteString("</mark>")
		at = m.End
	}
	b.WriteString(template.HTMLEscapeString(text[at:]))
	return template.HTML(b.String())
}

func boundary(s string, i int) bool {
	return i == len(s) || i == 0 || (s[i]&0xC0) != 0x80
}
