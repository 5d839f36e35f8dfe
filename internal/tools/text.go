package tools

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/contractgraph/contractgraph/internal/contract"
	"github.com/contractgraph/contractgraph/internal/graph"
)

// TextOptions say how WriteText lays a result out for a person.
type TextOptions struct {
	// Width is the number of columns to fit tables in (shortening long
	// cells with an ellipsis) and to wrap prose at. Zero means tables as
	// wide as their cells and prose wrapped at DefaultTextWidth: for a
	// pipe or a file, where nothing should be cut.
	Width int
	// Indent starts every line (the demo indents results under their
	// question).
	Indent string
	// Color marks headings and details with ANSI escapes: bold headings,
	// dim secondary facts. Leave it off for anything but a terminal, and
	// when NO_COLOR is set.
	Color bool
}

// DefaultTextWidth is where WriteText wraps prose when TextOptions.Width
// is zero.
const DefaultTextWidth = 100

// WriteText writes a tool's JSON result for a person: tables for
// contract_search, contract_aggregate and party_search (whose labels come
// from args, the call's arguments), the key facts of one contract for
// get_contract, readable passages for clause_search and statute_search, the
// groups and outliers of clause_compare, the statute for get_statute, the
// statement and its rows for text2cypher. A
// tool it does not know, or a result that does not decode as its tool's,
// is laid out generically (scalars as "key: value" lines, lists of objects
// as tables), so that every tool added to a Set reads well without a line
// here.
func WriteText(w io.Writer, tool string, args, result json.RawMessage, opts TextOptions) error {
	p := newPrinter(opts)
	if err := p.result(tool, args, result); err != nil {
		p.b.Reset()
		p.generic(result)
	}
	_, err := w.Write(p.b.Bytes())
	return err
}

// WriteToolList writes one line per tool: its name and the first sentence
// of its description, cut to the width.
func WriteToolList(w io.Writer, list []Tool, opts TextOptions) error {
	p := newPrinter(opts)
	width := 0
	for _, t := range list {
		width = max(width, len(t.Name))
	}
	for _, t := range list {
		line := fmt.Sprintf("%-*s  %s", width, t.Name, FirstSentence(t.Description))
		if p.fit {
			line = clip(line, p.width-len(p.indent))
		}
		if rest, ok := strings.CutPrefix(line, t.Name); ok {
			line = p.st.bold(t.Name) + rest
		}
		p.line(line)
	}
	_, err := w.Write(p.b.Bytes())
	return err
}

// FirstSentence returns the first sentence of a description: up to the
// first full stop that ends a sentence (not one inside brackets or quotes,
// nor the stop of "e.g." or "i.e.").
func FirstSentence(text string) string {
	depth, quoted := 0, false
	for i := 0; i < len(text); i++ {
		switch c := text[i]; c {
		case '(', '[':
			depth++
		case ')', ']':
			depth = max(0, depth-1)
		case '"':
			quoted = !quoted
		case '.':
			if depth > 0 || quoted || i+1 < len(text) && text[i+1] != ' ' {
				continue
			}
			if before := strings.ToLower(text[max(0, i-3) : i+1]); strings.HasSuffix(before, "e.g.") || strings.HasSuffix(before, "i.e.") {
				continue
			}
			return text[:i+1]
		}
	}
	return text
}

// printer accumulates the text of one result.
type printer struct {
	b      bytes.Buffer
	indent string
	width  int
	fit    bool // shorten table cells and tool list lines to width
	st     style
}

func newPrinter(opts TextOptions) *printer {
	width, fit := opts.Width, opts.Width > 0
	if !fit {
		width = DefaultTextWidth
	}
	return &printer{indent: opts.Indent, width: max(width, 40), fit: fit, st: style{color: opts.Color}}
}

func (p *printer) line(s string) {
	p.b.WriteString(p.indent)
	p.b.WriteString(s)
	p.b.WriteByte('\n')
}

// wrapped writes s wrapped at the width, every line after prefix's width
// indented to it.
func (p *printer) wrapped(prefix, s string) { p.wrappedStyled(prefix, s, nil) }

// wrappedStyled is wrapped with each line of s styled by styled.
func (p *printer) wrappedStyled(prefix, s string, styled func(string) string) {
	avail := max(20, p.width-len(p.indent)-utf8.RuneCountInString(prefix))
	pad := strings.Repeat(" ", utf8.RuneCountInString(prefix))
	for i, l := range wrap(s, avail) {
		if styled != nil {
			l = styled(l)
		}
		if i == 0 {
			p.line(prefix + l)
		} else {
			p.line(pad + l)
		}
	}
}

func (p *printer) result(tool string, args, raw json.RawMessage) error {
	switch tool {
	case NameContractSearch:
		var r graph.ContractResult
		if err := strictDecode(raw, &r); err != nil {
			return err
		}
		p.contracts(r)
	case NameContractAggregate:
		var r graph.AggregateResult
		if err := strictDecode(raw, &r); err != nil {
			return err
		}
		var a struct {
			GroupBy string `json:"group_by"`
			Metric  string `json:"metric"`
		}
		_ = json.Unmarshal(args, &a) // labels only: the tool has validated the arguments
		p.aggregate(r, a.GroupBy, a.Metric)
	case NamePartySearch:
		var r graph.PartyResult
		if err := strictDecode(raw, &r); err != nil {
			return err
		}
		p.parties(r)
	case NameGetContract:
		var r ContractRecord
		if err := strictDecode(raw, &r); err != nil {
			return err
		}
		p.contract(r)
	case NameClauseSearch:
		var r ClauseResult
		if err := strictDecode(raw, &r); err != nil {
			return err
		}
		p.passages(r)
	case NameDeadlineSearch:
		var r graph.DeadlineResult
		if err := strictDecode(raw, &r); err != nil {
			return err
		}
		p.deadlines(r)
	case NameClauseCompare:
		var r ClauseCompareResult
		if err := strictDecode(raw, &r); err != nil {
			return err
		}
		p.comparison(r)
	case NameStatuteSearch:
		var r StatuteSearchResult
		if err := strictDecode(raw, &r); err != nil {
			return err
		}
		p.statutes(r)
	case NameGetStatute:
		var r StatutePassage
		if err := strictDecode(raw, &r); err != nil {
			return err
		}
		p.statute(r)
	case NameText2Cypher:
		var r Text2CypherResult
		if err := strictDecode(raw, &r); err != nil {
			return err
		}
		p.cypher(r)
	default:
		p.generic(raw)
	}
	return nil
}

// strictDecode decodes a result into its Go type and fails on a field the
// type does not have, so that a result whose shape has grown falls back
// to the generic layout (which shows everything) rather than hiding it.
func strictDecode(raw json.RawMessage, v any) error {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	return dec.Decode(v)
}

func (p *printer) contracts(r graph.ContractResult) {
	p.partyMatches(r.PartyMatches)
	p.summaryByMeaning(r.SummaryByMeaning)
	p.line(p.st.bold(matches(r.TotalCount, "contract")) + shown(len(r.Examples), r.TotalCount))
	if len(r.Examples) == 0 {
		return
	}
	t := table{head: []string{"ID", "TITLE", "TYPE", "EFFECTIVE", "END", "AMOUNT", "PARTIES"}, right: []bool{5: true}, shrink: []int{1, 6, 2}}
	marked := false
	for _, c := range r.Examples {
		// A value whose evidence could not be verified carries a mark.
		mark := func(field, cell string) string {
			if cell != "-" && cell != "" && contract.UnverifiedField(c.Unverified, field) != "" {
				marked = true
				return cell + unverifiedMark
			}
			return cell
		}
		names := make([]string, len(c.Parties))
		others := 0 // unverified parties the cell does not name
		for i, pr := range c.Parties {
			names[i] = pr.Name
			if contract.UnverifiedParty(c.Unverified, pr.Name) != "" {
				names[i] += unverifiedMark
				marked = true
				if i > 0 {
					others++
				}
			}
		}
		parties := partyCell(names)
		if others > 0 {
			parties += fmt.Sprintf(" (%d unverified)", others)
		}
		t.rows = append(t.rows, []string{c.ContractID, c.Title, mark(contract.FieldContractType, c.ContractType),
			mark(contract.FieldEffectiveDate, orDash(c.EffectiveDate)), mark(contract.FieldEndDate, orDash(c.EndDate)),
			mark(contract.FieldTotalAmount, money(c.TotalAmount, c.Currency)), parties})
	}
	p.table(t)
	if marked {
		p.line(p.st.dim("unverified: the evidence quote was not found in the contract text or does not state the value; " +
			"filters, orderings and aggregates leave such values out unless include_unverified is set."))
	}
}

// unverifiedMark follows a value whose evidence could not be verified.
const unverifiedMark = " (unverified)"

func (p *printer) aggregate(r graph.AggregateResult, groupBy, metric string) {
	if metric == "" {
		metric = graph.MetricCount
	}
	p.partyMatches(r.PartyMatches)
	p.summaryByMeaning(r.SummaryByMeaning)
	if len(r.Groups) == 0 {
		p.line("No contracts match, so there are no groups.")
		return
	}
	key := "GROUP"
	if groupBy != "" {
		key = strings.ToUpper(strings.ReplaceAll(groupBy, "_", " "))
	}
	t := table{shrink: []int{0}}
	if metric == graph.MetricCount {
		t.head, t.right = []string{key, "CONTRACTS"}, []bool{1: true}
	} else {
		t.head, t.right = []string{key, strings.ToUpper(metricLabel(metric)), "CONTRACTS"}, []bool{1: true, 2: true}
	}
	for _, g := range r.Groups {
		row := []string{g.Key, strconv.Itoa(g.Count)}
		if metric != graph.MetricCount {
			v := "-"
			switch {
			case g.Currency != nil && g.Value != nil && *g.Currency == "":
				// Amounts that name no currency say so.
				v = number(*g.Value) + " (no currency)"
			case g.Currency != nil:
				v = money(g.Value, *g.Currency)
			case g.Value != nil:
				v = number(*g.Value)
			}
			row = []string{g.Key, v, strconv.Itoa(g.Count)}
		}
		t.rows = append(t.rows, row)
	}
	p.table(t)
	if r.TotalGroups > len(r.Groups) {
		p.line(p.st.dim(fmt.Sprintf("%d of %d groups; raise limit for more", len(r.Groups), r.TotalGroups)))
	}
	if c := r.Conversion; c != nil {
		var rates []string
		for _, cur := range slices.Sorted(maps.Keys(c.Rates)) {
			if cur != c.To {
				rates = append(rates, fmt.Sprintf("1 %s = %s %s", cur, strconv.FormatFloat(c.Rates[cur], 'f', -1, 64), c.To))
			}
		}
		p.line(p.st.dim("converted into " + c.To + " with the rates given: " + strings.Join(rates, ", ")))
	}
}

// partyMatches says, one line per entry, which stored parties a party
// name that no party contains was taken for: "Excte → Excite Inc.".
func (p *printer) partyMatches(ms []graph.PartyMatch) {
	for _, m := range ms {
		switch {
		case len(m.Parties) == 0:
			p.line(p.st.dim(fmt.Sprintf("no party name contains %q or is within a typo of it", m.Entry)))
		default:
			s := fmt.Sprintf("%s → %s (%s)", m.Entry, strings.Join(m.Parties, ", "), plural(m.Edits, "typo"))
			if m.More > 0 {
				s += fmt.Sprintf(", and %d more as near", m.More)
			}
			p.line(p.st.dim(s))
		}
	}
}

// summaryByMeaning says which contracts summary_search found by the meaning
// of their summaries, with how similar they are.
func (p *printer) summaryByMeaning(hits []graph.SummaryHit) {
	if len(hits) == 0 {
		return
	}
	ids := make([]string, len(hits))
	for i, h := range hits {
		ids[i] = h.ContractID
	}
	sim := fmt.Sprintf("similarity %.3f", hits[0].Score)
	if len(hits) > 1 {
		sim = fmt.Sprintf("similarity %.3f–%.3f", hits[len(hits)-1].Score, hits[0].Score)
	}
	p.line(p.st.dim(fmt.Sprintf("summary_search by meaning also takes %s (%s): %s", plural(len(hits), "contract"), sim, strings.Join(ids, ", "))))
}

// metricLabel names a metric in a column heading.
func metricLabel(metric string) string {
	switch metric {
	case graph.MetricSumAmount:
		return "total amount"
	case graph.MetricAvgAmount:
		return "average amount"
	case graph.MetricMinAmount:
		return "smallest amount"
	case graph.MetricMaxAmount:
		return "largest amount"
	case graph.MetricAvgDurationDays:
		return "average days"
	case graph.MetricMinDurationDays:
		return "shortest days"
	case graph.MetricMaxDurationDays:
		return "longest days"
	}
	return strings.ReplaceAll(metric, "_", " ")
}

func (p *printer) deadlines(r graph.DeadlineResult) {
	p.partyMatches(r.PartyMatches)
	p.summaryByMeaning(r.SummaryByMeaning)
	p.line(p.st.bold(fmt.Sprintf("%s from %s to %s", plural(r.TotalCount, "deadline"), r.From, r.To)) + shown(len(r.Deadlines), r.TotalCount))
	if len(r.Deadlines) == 0 {
		return
	}
	t := table{head: []string{"DATE", "KIND", "CONTRACT", "PARTIES", "HOW"}, shrink: []int{4, 3, 2}}
	for _, d := range r.Deadlines {
		t.rows = append(t.rows, []string{d.Date, d.Kind, d.ContractID, partyCell(d.Parties), d.Derivation})
	}
	p.table(t)
}

func (p *printer) parties(r graph.PartyResult) {
	p.partyMatches(r.PartyMatches)
	p.line(p.st.bold(matches(r.TotalCount, "party")) + shown(len(r.Examples), r.TotalCount))
	if len(r.Examples) == 0 {
		return
	}
	t := table{head: []string{"NAME", "COUNTRY", "CONTRACTS", "CONTRACT TYPES", "ALSO KNOWN AS"}, right: []bool{2: true}, shrink: []int{4, 3, 0}}
	for _, e := range r.Examples {
		types := e.ContractTypes
		typeCell := strings.Join(types[:min(len(types), maxTypesShown)], ", ")
		if len(types) > maxTypesShown {
			typeCell += fmt.Sprintf(" +%d", len(types)-maxTypesShown)
		}
		aliases := slices.DeleteFunc(slices.Clone(e.Aliases), func(a string) bool { return a == e.Name })
		t.rows = append(t.rows, []string{e.Name, orDash(e.Country), strconv.Itoa(e.ContractCount), typeCell, strings.Join(aliases, "; ")})
	}
	p.table(t)
}

// maxTypesShown is how many of a party's contract types its row lists.
const maxTypesShown = 3

func (p *printer) contract(r ContractRecord) {
	title := r.Title
	if title == "" {
		title = r.ID
	}
	p.line(p.st.bold(title) + p.st.dim("  "+r.ID))
	// why says, after a value whose evidence could not be verified, why.
	why := func(fields ...string) string {
		var reasons []string
		for _, f := range fields {
			if reason := contract.UnverifiedField(r.Unverified, f); reason != "" {
				if len(fields) > 1 {
					reason = f + ": " + reason // which of the line's values
				}
				reasons = append(reasons, reason)
			}
		}
		if len(reasons) == 0 {
			return ""
		}
		return " [unverified: " + strings.Join(reasons, "; ") + "]"
	}
	facts := [][3]string{
		{"Type", r.ContractType, why(contract.FieldContractType)},
		{"Effective", r.EffectiveDate, why(contract.FieldEffectiveDate)},
		{"Ends", r.EndDate, why(contract.FieldEndDate)},
		{"Duration", duration(r.Duration, r.DurationDays), why(contract.FieldDuration)},
		{"Renewal", strings.TrimSpace(r.RenewalKind + " " + r.RenewalTerm), why(contract.FieldRenewalKind, contract.FieldRenewalTerm)},
		{"Notice period", r.NoticePeriod, why(contract.FieldNoticePeriod)},
		{"Amount", money(r.TotalAmount, r.Currency), why(contract.FieldTotalAmount)},
		{"Governing law", place(r.GoverningLaw), why(contract.FieldGoverningLaw)},
		{"Termination", r.TerminationNotice, why(contract.FieldTerminationNotice)},
		{"Summary", r.Summary, ""},
		{"Scope", r.Scope, ""},
		{"Source", r.SourcePath, ""},
		{"Extracted by", r.ExtractedBy, ""},
	}
	for _, f := range facts {
		if f[1] != "" && f[1] != "-" {
			p.wrapped(fmt.Sprintf("  %-14s ", f[0]), f[1]+f[2])
		}
	}
	if len(r.Parties) > 0 {
		p.line(p.st.bold("Parties"))
		for _, pr := range r.Parties {
			var extra []string
			if pr.Role != "" {
				extra = append(extra, pr.Role)
			}
			if loc := place(pr.Location); loc != "" {
				extra = append(extra, loc)
			}
			line := "  " + pr.Name
			if len(extra) > 0 {
				line += p.st.dim(" (" + strings.Join(extra, ", ") + ")")
			}
			if reason := contract.UnverifiedParty(r.Unverified, pr.Name); reason != "" {
				line += " [unverified: " + reason + "]"
			}
			p.line(line)
		}
	}
	verified := 0
	for _, c := range r.Clauses {
		if c.Verified {
			verified++
		}
	}
	p.line(p.st.bold(plural(len(r.Clauses), "clause")) +
		p.st.dim(fmt.Sprintf(" (%d verified against the %s-byte text)", verified, number(float64(r.TextLength)))))
	if len(r.Clauses) > 0 {
		t := table{head: []string{"#", "TYPE", "BYTES", "", "SUMMARY"}, right: []bool{0: true}, shrink: []int{4, 1}}
		for i, c := range r.Clauses {
			span, mark := "-", ""
			if c.End > c.Start {
				span = fmt.Sprintf("%d-%d", c.Start, c.End)
			}
			if c.Verified {
				mark = "✓"
			}
			summary := c.Summary
			if summary == "" {
				summary = strings.Join(strings.Fields(c.Text), " ")
			}
			t.rows = append(t.rows, []string{strconv.Itoa(i + 1), c.Type, span, mark, summary})
		}
		p.table(t)
	}
	if r.Text != "" {
		end := r.TextOffset + len(r.Text)
		head := fmt.Sprintf("Text, bytes %d-%d of %d", r.TextOffset, end, r.TextLength)
		if r.TextTruncated {
			head += fmt.Sprintf(`; read on with "text_offset":%d`, end)
		}
		p.line(p.st.bold(head))
		for _, l := range strings.Split(strings.TrimRight(r.Text, "\n"), "\n") {
			p.line("  " + l)
		}
	}
}

func (p *printer) passages(r ClauseResult) {
	p.partyMatches(r.PartyMatches)
	p.summaryByMeaning(r.SummaryByMeaning)
	p.line(p.st.bold(plural(len(r.Passages), "passage")))
	for i, h := range r.Passages {
		facts := []string{h.ContractID}
		if h.ClauseType != "" {
			facts = append(facts, h.ClauseType)
		} else {
			facts = append(facts, "contract text")
		}
		if h.End > h.Start {
			facts = append(facts, fmt.Sprintf("bytes %d-%d", h.Start, h.End))
		}
		if h.Verified {
			facts = append(facts, "verified")
		}
		if h.SummaryOnly() {
			facts = append(facts, "summary, not a quote")
		}
		facts = append(facts, "score "+strconv.FormatFloat(h.Score, 'f', 3, 64))
		p.line(fmt.Sprintf("%d. ", i+1) + p.st.bold(facts[0]) + p.st.dim(" · "+strings.Join(facts[1:], " · ")))
		if h.SummaryOnly() {
			p.wrapped("   ", clip(strings.Join(strings.Fields(h.Summary), " "), maxPassageRunes))
			continue
		}
		p.wrapped("   ", quoteText(h.Text, maxPassageRunes))
	}
}

// maxPassageRunes bounds a passage as WriteText shows it; --json has it whole.
const maxPassageRunes = 600

func (p *printer) statutes(r StatuteSearchResult) {
	p.line(p.st.bold(plural(len(r.Statutes), "statute")) + p.st.dim(" (ranking: "+r.Ranking+")"))
	if r.Note != "" {
		p.wrapped("note: ", r.Note)
	}
	for i, s := range r.Statutes {
		head := s.Citation
		if s.Heading != "" {
			head += " — " + s.Heading
		}
		p.wrappedStyled(fmt.Sprintf("%d. ", i+1), head, p.st.bold)
		p.line("   " + p.st.dim(fmt.Sprintf("%s · %s · score %.3f", s.StatuteID, s.Jurisdiction, s.Score)))
		if s.URL != "" {
			p.line("   " + p.st.dim(s.URL))
		}
		p.wrapped("   ", quoteText(s.Text, maxPassageRunes))
	}
}

func (p *printer) statute(s StatutePassage) {
	head := s.Citation
	if s.Heading != "" {
		head += " — " + s.Heading
	}
	p.wrappedStyled("", head, p.st.bold)
	p.line(p.st.dim(s.StatuteID + " · " + s.Jurisdiction))
	if s.URL != "" {
		p.line(p.st.dim(s.URL))
	}
	for _, l := range strings.Split(strings.TrimRight(s.Text, "\n"), "\n") {
		p.wrapped("  ", l)
	}
	if s.TextTruncated {
		p.line(p.st.dim("(the text continues; see the url for the whole section)"))
	}
}

func (p *printer) cypher(r Text2CypherResult) {
	p.line(p.st.bold("Cypher") + p.st.dim(repairedNote(r.Repaired)))
	for _, l := range strings.Split(r.Cypher, "\n") {
		p.line("  " + l)
	}
	p.line(p.st.bold(plural(len(r.Rows), "row")) + p.st.dim(truncatedNote(r.Truncated)))
	if len(r.Rows) == 0 || len(r.Columns) == 0 {
		return
	}
	t := table{head: r.Columns}
	for i := range r.Columns {
		t.shrink = append(t.shrink, i)
	}
	for _, row := range r.Rows {
		cells := make([]string, len(r.Columns))
		for i, c := range r.Columns {
			cells[i] = scalar(row[c])
		}
		t.rows = append(t.rows, cells)
	}
	p.table(t)
}

func repairedNote(repaired bool) string {
	if repaired {
		return " (the model's repaired statement)"
	}
	return ""
}

func truncatedNote(truncated bool) string {
	if truncated {
		return " (cut at the row limit)"
	}
	return ""
}

// generic lays out any JSON result: the scalars of an object as aligned
// "key: value" lines, lists of objects as tables of their scalar fields,
// nested objects as indented sections. It is the layout of tools WriteText
// has no case for.
func (p *printer) generic(raw json.RawMessage) {
	var v any
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		p.line(strings.TrimSpace(string(raw)))
		return
	}
	p.value("", v, 0)
}

func (p *printer) value(name string, v any, depth int) {
	pad := strings.Repeat("  ", depth)
	switch x := v.(type) {
	case map[string]any:
		if name != "" {
			p.line(pad + p.st.bold(humanKey(name)))
			depth++
			pad += "  "
		}
		keys := sortedKeys(x)
		width := 0
		for _, k := range keys {
			if isScalar(x[k]) {
				width = max(width, utf8.RuneCountInString(humanKey(k)))
			}
		}
		for _, k := range keys {
			if isScalar(x[k]) {
				p.wrapped(fmt.Sprintf("%s%-*s  ", pad, width, humanKey(k)), scalar(x[k]))
			}
		}
		for _, k := range keys {
			if !isScalar(x[k]) {
				p.value(k, x[k], depth)
			}
		}
	case []any:
		label := pad + p.st.bold(humanKey(name))
		if name == "" {
			label = pad + p.st.bold("items")
		}
		p.line(label + p.st.dim(fmt.Sprintf(" (%d)", len(x))))
		if cols, ok := tableColumns(x); ok {
			t := table{indent: pad + "  "}
			for _, c := range cols {
				t.head = append(t.head, strings.ToUpper(humanKey(c)))
				t.shrink = append(t.shrink, len(t.shrink))
			}
			for _, item := range x {
				obj := item.(map[string]any)
				row := make([]string, len(cols))
				for i, c := range cols {
					row[i] = scalar(obj[c])
				}
				t.rows = append(t.rows, row)
			}
			p.table(t)
			return
		}
		for i, item := range x {
			if isScalar(item) {
				p.wrapped(pad+"  - ", scalar(item))
				continue
			}
			p.value(fmt.Sprintf("%s %d", singular(name), i+1), item, depth+1)
		}
	default:
		if name == "" {
			p.line(scalar(x))
			return
		}
		p.wrapped(pad+humanKey(name)+"  ", scalar(x))
	}
}

// tableColumns returns the columns of a list whose items are objects of
// scalars and short lists of scalars (as a table shows them), in the order
// of the first item's keys; ok is false for any other list.
func tableColumns(items []any) (cols []string, ok bool) {
	if len(items) == 0 {
		return nil, false
	}
	seen := map[string]bool{}
	for _, item := range items {
		obj, isObj := item.(map[string]any)
		if !isObj {
			return nil, false
		}
		for _, k := range sortedKeys(obj) {
			if !isScalar(obj[k]) {
				return nil, false
			}
			if !seen[k] {
				seen[k] = true
				cols = append(cols, k)
			}
		}
	}
	return cols, len(cols) > 0 && len(cols) <= 8
}

// isScalar reports whether v prints on one line: a string, number, bool,
// null, or a list of those.
func isScalar(v any) bool {
	switch x := v.(type) {
	case map[string]any:
		return false
	case []any:
		for _, item := range x {
			switch item.(type) {
			case map[string]any, []any:
				return false
			}
		}
	}
	return true
}

// scalar prints a scalar JSON value (or a list of them) for a person.
func scalar(v any) string {
	switch x := v.(type) {
	case nil:
		return "-"
	case string:
		if x == "" {
			return "-"
		}
		return strings.Join(strings.Fields(x), " ")
	case bool:
		if x {
			return "yes"
		}
		return "no"
	case json.Number:
		if f, err := x.Float64(); err == nil && !strings.ContainsAny(x.String(), "eE") {
			return number(f)
		}
		return x.String()
	case float64:
		return number(x)
	case []any:
		parts := make([]string, len(x))
		for i, item := range x {
			parts[i] = scalar(item)
		}
		return strings.Join(parts, ", ")
	}
	b, _ := json.Marshal(v)
	return string(b)
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	// The keys that name a thing come first, then the rest alphabetically.
	rank := func(k string) int {
		switch {
		case k == "id" || strings.HasSuffix(k, "_id"):
			return 0
		case k == "name" || k == "title" || k == "citation":
			return 1
		case k == "total_count" || k == "count":
			return 2
		}
		return 3
	}
	sort.SliceStable(keys, func(i, j int) bool {
		if ri, rj := rank(keys[i]), rank(keys[j]); ri != rj {
			return ri < rj
		}
		return keys[i] < keys[j]
	})
	return keys
}

func humanKey(k string) string { return strings.ReplaceAll(k, "_", " ") }

func singular(name string) string {
	switch {
	case strings.HasSuffix(name, "ies"):
		return strings.TrimSuffix(name, "ies") + "y"
	case strings.HasSuffix(name, "s"):
		return strings.TrimSuffix(name, "s")
	case name == "":
		return "item"
	}
	return name
}

// table is a text table: a heading row and cells, numbers right-aligned,
// fitted to the width by shortening the columns of shrink (in that order
// of preference) with an ellipsis.
type table struct {
	head   []string
	rows   [][]string
	right  []bool // per column; may be shorter than head
	shrink []int  // columns that may be shortened, most expendable first
	indent string
}

// minColumn is the narrowest a shortened column becomes.
const minColumn = 8

func (p *printer) table(t table) {
	n := len(t.head)
	widths := make([]int, n)
	for i, h := range t.head {
		widths[i] = utf8.RuneCountInString(h)
	}
	for _, r := range t.rows {
		for i := 0; i < n && i < len(r); i++ {
			widths[i] = max(widths[i], utf8.RuneCountInString(r[i]))
		}
	}
	avail := p.width - len(p.indent) - len(t.indent)
	total := func() int {
		s := 2 * (n - 1)
		for _, w := range widths {
			s += w
		}
		return s
	}
	// Shorten the widest shrinkable column a rune at a time, so that the
	// columns give way evenly (ties go to the most expendable), first to
	// minColumn, then, if that is not enough, to a stub.
	for _, floor := range []int{minColumn, 4} {
		for p.fit && total() > avail {
			widest := -1
			for _, c := range t.shrink {
				if widths[c] > floor && (widest < 0 || widths[c] > widths[widest]) {
					widest = c
				}
			}
			if widest < 0 {
				break
			}
			widths[widest]--
		}
	}
	right := func(i int) bool { return i < len(t.right) && t.right[i] }
	render := func(cells []string, heading bool) string {
		var b strings.Builder
		b.WriteString(t.indent)
		for i := 0; i < n; i++ {
			cell := ""
			if i < len(cells) {
				cell = clip(cells[i], widths[i])
			}
			gap := strings.Repeat(" ", widths[i]-utf8.RuneCountInString(cell))
			if heading {
				cell = p.st.bold(cell)
			}
			if right(i) {
				b.WriteString(gap + cell)
			} else if i < n-1 {
				b.WriteString(cell + gap)
			} else {
				b.WriteString(cell)
			}
			if i < n-1 {
				b.WriteString("  ")
			}
		}
		return strings.TrimRight(b.String(), " ")
	}
	p.line(render(t.head, true))
	for _, r := range t.rows {
		p.line(render(r, false))
	}
}

// style applies ANSI escapes when color is on.
type style struct{ color bool }

func (s style) bold(t string) string {
	if !s.color || t == "" {
		return t
	}
	return "\x1b[1m" + t + "\x1b[0m"
}

func (s style) dim(t string) string {
	if !s.color || t == "" {
		return t
	}
	return "\x1b[2m" + t + "\x1b[0m"
}

// clip shortens s to n runes, ending it with an ellipsis when cut.
func clip(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	if n <= 1 {
		return string([]rune(s)[:max(0, n)])
	}
	return string([]rune(s)[:n-1]) + "…"
}

// wrap breaks s into lines of at most width runes at spaces (a longer
// word gets a line of its own).
func wrap(s string, width int) []string {
	words := strings.Fields(s)
	if len(words) == 0 {
		return []string{""}
	}
	var lines []string
	cur := words[0]
	for _, w := range words[1:] {
		if utf8.RuneCountInString(cur)+1+utf8.RuneCountInString(w) > width {
			lines = append(lines, cur)
			cur = w
			continue
		}
		cur += " " + w
	}
	return append(lines, cur)
}

// quoteText quotes a passage, shortened to n runes.
func quoteText(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	return "“" + clip(s, n) + "”"
}

// partyCell is a compact party cell: "Acme Corp + 2".
func partyCell(names []string) string {
	switch len(names) {
	case 0:
		return "-"
	case 1:
		return names[0]
	}
	return fmt.Sprintf("%s + %d", names[0], len(names)-1)
}

func place(l *contract.Location) string {
	if l.IsZero() {
		return ""
	}
	var parts []string
	for _, s := range []string{l.City, l.State, l.Country} {
		if s != "" {
			parts = append(parts, s)
		}
	}
	return strings.Join(parts, ", ")
}

func duration(iso string, days *int) string {
	switch {
	case iso != "" && days != nil:
		return fmt.Sprintf("%s (%s days)", iso, number(float64(*days)))
	case days != nil:
		return number(float64(*days)) + " days"
	}
	return iso
}

func money(v *float64, currency string) string {
	if v == nil {
		return "-"
	}
	if currency == "" {
		return number(*v)
	}
	return currency + " " + number(*v)
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// matches says how many things match: "1 party matches", "3 parties match".
func matches(n int, noun string) string {
	if n == 1 {
		return plural(n, noun) + " matches"
	}
	return plural(n, noun) + " match"
}

// shown says how many of the matches are listed.
func shown(n, total int) string {
	switch {
	case n == 0:
		return "."
	case n < total:
		return fmt.Sprintf("; the first %d:", n)
	}
	return ":"
}

func plural(n int, noun string) string {
	count := number(float64(n))
	if n == 1 {
		return count + " " + noun
	}
	if strings.HasSuffix(noun, "y") {
		return count + " " + strings.TrimSuffix(noun, "y") + "ies"
	}
	return count + " " + noun + "s"
}

// number formats a number with thousands separators and at most two
// decimals: 1234567.5 becomes "1,234,567.50", 42 stays "42".
func number(v float64) string {
	neg := v < 0
	if neg {
		v = -v
	}
	s := strconv.FormatFloat(v, 'f', 2, 64)
	intPart, frac, _ := strings.Cut(s, ".")
	var b strings.Builder
	if neg {
		b.WriteByte('-')
	}
	for i, r := range intPart {
		if i > 0 && (len(intPart)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	if frac != "00" {
		b.WriteString("." + frac)
	}
	return b.String()
}
