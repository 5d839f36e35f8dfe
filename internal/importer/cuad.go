package importer

import (
	"context"
	"crypto/sha256"
	"encoding/csv"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"

	"github.com/contractgraph/contractgraph/internal/bounded"
	"github.com/contractgraph/contractgraph/internal/contract"
)

// cuadColumns is the layout of a master_clauses.csv header.
type cuadColumns struct {
	filename   int
	categories []cuadCategory // context columns, in file order
	answers    map[string]int // category name -> answer column
}

type cuadCategory struct {
	col  int
	name string // canonical category name
}

// omitted is CUAD's marker for text left out of the middle of a span.
const omitted = "<omitted>"

// parseCUADHeader maps the header's columns. Unknown columns are an error,
// so that a different file is not silently misread.
func parseCUADHeader(h []string) (*cuadColumns, error) {
	cols := &cuadColumns{filename: -1, answers: map[string]int{}}
	for i, name := range h {
		name = strings.TrimPrefix(name, "\ufeff")
		if name == "Filename" {
			cols.filename = i
			continue
		}
		base, isAnswer := strings.CutSuffix(name, "-Answer")
		if !isAnswer {
			base, isAnswer = strings.CutSuffix(name, "- Answer")
		}
		typ, _, err := contract.ParseClauseType(base)
		if err != nil || contract.IsClauseGroup(typ) {
			return nil, &RecordError{Record: "row 0 (header)", Field: fmt.Sprintf("column %d %q", i+1, name),
				Err: errors.New("unknown column; want Filename and CUAD's 41 categories, each with its -Answer column")}
		}
		if isAnswer {
			cols.answers[typ] = i
		} else {
			cols.categories = append(cols.categories, cuadCategory{col: i, name: typ})
		}
	}
	if cols.filename < 0 {
		return nil, &RecordError{Record: "row 0 (header)", Field: "Filename", Err: errors.New("column missing")}
	}
	return cols, nil
}

// alnumKey keeps the lower-cased letters and digits of a file name without
// its extension: CSV and text file names differ in punctuation only.
func alnumKey(name string) string {
	name = norm.NFC.String(strings.TrimRightFunc(name, func(r rune) bool { return !isAlnum(r) }))
	if ext := filepath.Ext(name); strings.EqualFold(ext, ".pdf") || strings.EqualFold(ext, ".txt") {
		name = name[:len(name)-len(ext)]
	}
	var b strings.Builder
	for _, r := range strings.ToLower(name) {
		if isAlnum(r) {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// textIndex maps alnumKey to text file names in dir.
func textIndex(dir string) (map[string]string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("texts dir: %w", err)
	}
	idx := make(map[string]string, len(entries))
	for _, e := range entries {
		if e.IsDir() || !strings.EqualFold(filepath.Ext(e.Name()), ".txt") {
			continue
		}
		idx[alnumKey(e.Name())] = e.Name()
	}
	return idx, nil
}

// readCUAD reads master_clauses.csv, one contract per row.
func readCUAD(ctx context.Context, path string, r io.Reader, opts Options, fn func(Record) error) error {
	var texts map[string]string
	if opts.TextsDir != "" {
		var err error
		if texts, err = textIndex(opts.TextsDir); err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
	}
	// A row over the record limit ends the file: CSV cannot be read again
	// from the middle of a field.
	capped := &rowCap{r: r, limit: opts.Limits.RecordBytes}
	cr := csv.NewReader(capped)
	header, err := cr.Read()
	if err != nil {
		return &RecordError{File: path, Record: "row 0 (header)", Err: err}
	}
	cols, err := parseCUADHeader(header)
	if err != nil {
		var re *RecordError
		if errors.As(err, &re) {
			re.File = path
		}
		return err
	}
	for row := 1; ; row++ {
		if err := ctx.Err(); err != nil {
			return err
		}
		capped.startRow(cr.InputOffset())
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if errors.Is(err, errRowTooLarge) {
			return &RecordError{File: path, Record: recordLabel("row", row, "", ""),
				Err: fmt.Errorf("the row is over the limit of %s per record (--max-record-bytes raises it); the rest of the file is not read", bounded.Size(opts.Limits.RecordBytes))}
		}
		if err != nil {
			var pe *csv.ParseError
			if errors.As(err, &pe) && errors.Is(pe.Err, csv.ErrFieldCount) {
				// The row is complete but has the wrong width: report it and go on.
				if ferr := fn(Record{Source: path, Index: row, Err: &RecordError{File: path, Record: recordLabel("row", row, "", ""),
					Err: fmt.Errorf("has %d columns, the header has %d", len(rec), len(header))}}); ferr != nil {
					return ferr
				}
				continue
			}
			return &RecordError{File: path, Record: recordLabel("row", row, "", ""), Err: fmt.Errorf("malformed CSV: %w", err)}
		}
		var replaced []error
		for i, cell := range rec {
			if v, bad := validUTF8(cell); bad {
				rec[i] = v
				replaced = append(replaced, &RecordError{File: path, Record: recordLabel("row", row, "", ""), Field: fmt.Sprintf("column %d %q", i+1, header[i]),
					Err: errors.New("invalid UTF-8 replaced by U+FFFD")})
			}
		}
		out := Record{Source: path, Index: row}
		out.Contract, out.Warnings, out.Err = convertCUAD(path, row, rec, cols, opts.TextsDir, texts, opts.Limits.RecordBytes)
		if out.Err == nil {
			out.Warnings = append(replaced, out.Warnings...)
		}
		if err := fn(out); err != nil {
			return err
		}
	}
}

// convertCUAD turns one master_clauses row into a contract.
func convertCUAD(path string, row int, rec []string, cols *cuadColumns, textsDir string, texts map[string]string, maxText int64) (*contract.Contract, []error, error) {
	pdf := strings.TrimSpace(rec[cols.filename])
	label := recordLabel("row", row, "file", pdf)
	if pdf == "" {
		return nil, nil, &RecordError{File: path, Record: label, Field: "Filename", Err: errors.New("empty")}
	}
	w := &warner{file: path, record: label}
	id := strings.TrimRightFunc(pdf, func(r rune) bool { return !isAlnum(r) }) // "X.PDF'" happens
	if ext := filepath.Ext(id); strings.EqualFold(ext, ".pdf") {
		id = id[:len(id)-len(ext)]
	}
	c := &contract.Contract{SourcePath: path, ExtractedBy: "cuad-v1"}
	if texts != nil {
		name, ok := texts[alnumKey(pdf)]
		if !ok {
			return nil, nil, &RecordError{File: path, Record: label, Field: "Filename",
				Err: fmt.Errorf("no text file in %s matches %q", textsDir, pdf)}
		}
		b, err := readCapped(filepath.Join(textsDir, name), maxText)
		if err != nil {
			return nil, nil, &RecordError{File: path, Record: label, Field: "Filename", Err: err}
		}
		sum := sha256.Sum256(b)
		if at := invalidUTF8(b); at >= 0 {
			w.add("Filename", fmt.Errorf("text file %s: invalid UTF-8 at byte %d replaced by U+FFFD", name, at))
			v, _ := validUTF8(string(b))
			b = []byte(v)
		}
		id = strings.TrimSuffix(name, filepath.Ext(name))
		c.Text = string(b)
		c.SHA256 = hex.EncodeToString(sum[:])
		c.SourcePath = filepath.Join(textsDir, name)
	}
	c.ID = norm.NFC.String(strings.TrimSpace(id))
	answer := func(category string) string {
		if i, ok := cols.answers[category]; ok {
			return strings.TrimSpace(rec[i])
		}
		return ""
	}

	c.Title = TitleFromID(c.ID)
	if t := cleanText(answer("Document Name")); t != "" && !isPlaceholder(t) {
		c.Title = TitleFromID(t)
	}
	c.ContractType = typeFromTitle(TitleFromID(c.ID))

	c.Parties = parseCUADParties(answer("Parties"))
	for _, f := range []struct{ category, field string }{{"Effective Date", "Effective Date-Answer"}, {"Agreement Date", "Agreement Date-Answer"}} {
		if v := answer(f.category); v != "" && c.EffectiveDate == "" {
			c.EffectiveDate = normDateField(w, f.field, v)
		}
	}
	if v := answer("Expiration Date"); v != "" && !isPerpetual(v) {
		c.EndDate = normDateField(w, "Expiration Date-Answer", v)
	}
	if c.EffectiveDate != "" && c.EndDate != "" && c.EndDate >= c.EffectiveDate {
		days := daysBetween(c.EffectiveDate, c.EndDate)
		c.DurationDays = &days
	}
	if v := answer("Governing Law"); v != "" {
		if loc, ok := governingLaw(v); ok {
			c.GoverningLaw = loc
		} else {
			w.add("Governing Law-Answer", fmt.Errorf("no country or US state in %q; dropped", v))
		}
	}

	for _, cat := range cols.categories {
		spans, err := ParsePyStringList(rec[cat.col])
		if err != nil {
			w.add(cat.name, fmt.Errorf("%w; clauses of this category dropped", err))
			continue
		}
		_, group, _ := contract.ParseClauseType(cat.name)
		for _, span := range spans {
			from := 0
			for _, part := range strings.Split(span, omitted) {
				part = strings.TrimSpace(part)
				if part == "" {
					continue
				}
				cl := contract.Clause{Type: cat.name, Group: group, Text: part}
				if c.Text != "" {
					cl.Start, cl.End, cl.Verified = locate(c.Text, part, from)
					if cl.End > 0 {
						from = cl.End
					}
				}
				c.Clauses = append(c.Clauses, cl)
			}
		}
	}
	ev := cuadTimeline(c, w, answer("Renewal Term"), answer("Notice Period To Terminate Renewal"), answer("Expiration Date"))
	c.Evidence = append(cuadEvidence(c), ev...)
	return c, w.list, nil
}

// locate finds part in text, preferring the first match at or after from
// (the end of the previous part of the same span) and else the first match
// anywhere, as annotators sometimes joined passages out of order. An exact
// match is verified; otherwise a match that differs only in white space
// gives the span, not verified; otherwise the span is empty.
func locate(text, part string, from int) (start, end int, verified bool) {
	if i := strings.Index(text[from:], part); i >= 0 {
		return from + i, from + i + len(part), true
	}
	if i := strings.Index(text[:min(len(text), from+len(part))], part); i >= 0 {
		return i, i + len(part), true
	}
	words := strings.Fields(part)
	if len(words) == 0 || len(part) > 20000 {
		return 0, 0, false
	}
	for i, wd := range words {
		words[i] = regexp.QuoteMeta(wd)
	}
	re, err := regexp.Compile(strings.Join(words, `\s+`))
	if err != nil {
		return 0, 0, false
	}
	if loc := re.FindStringIndex(text[from:]); loc != nil {
		return from + loc[0], from + loc[1], false
	}
	return 0, 0, false
}

// cuadEvidence cites, for each field taken from an answer column, the first
// annotated span of its category.
func cuadEvidence(c *contract.Contract) []contract.Evidence {
	fields := []struct {
		field, category, value string
	}{
		{"parties", "Parties", ""},
		{"effective_date", "Effective Date", c.EffectiveDate},
		{"effective_date", "Agreement Date", c.EffectiveDate},
		{"end_date", "Expiration Date", c.EndDate},
		{"governing_law", "Governing Law", ""},
	}
	var ev []contract.Evidence
	seen := map[string]bool{}
	for _, f := range fields {
		if seen[f.field] {
			continue
		}
		for _, cl := range c.Clauses {
			if cl.Type == f.category {
				ev = append(ev, contract.Evidence{Field: f.field, Value: f.value, Quote: cl.Text, Start: cl.Start, End: cl.End, Verified: cl.Verified})
				seen[f.field] = true
				break
			}
		}
	}
	return ev
}

func isPerpetual(s string) bool {
	t := strings.ToLower(s)
	return strings.Contains(t, "perpetual") || strings.Contains(t, "indefinite")
}

func daysBetween(a, b string) int {
	ta, _ := contract.NormalizeDate(a)
	tb, _ := contract.NormalizeDate(b)
	d, err := contract.DaysBetween(ta, tb)
	if err != nil {
		return 0
	}
	return d
}

// governingLaw reads an answer such as "Nevada", "England and Wales",
// "Ontario, Canada" or "People's Republic of China"; for several laws
// ("Texas; Singapore") the first is taken.
func governingLaw(s string) (*contract.Location, bool) {
	first, _, _ := strings.Cut(s, ";")
	first = strings.TrimSpace(first)
	try := func(v string) (*contract.Location, bool) {
		v = strings.TrimSpace(v)
		if st, ok := contract.NormalizeUSState(v); ok {
			return &contract.Location{Country: "US", State: st}, true
		}
		if c, ok := contract.NormalizeCountry(v); ok {
			return &contract.Location{Country: c}, true
		}
		if st := contract.NormalizeState("CA", v); st != contract.CleanPartyName(v) {
			return &contract.Location{Country: "CA", State: st}, true
		}
		if c, ok := lawCities[strings.ToLower(v)]; ok {
			return &contract.Location{Country: c, City: contract.CleanPartyName(v)}, true
		}
		return nil, false
	}
	if loc, ok := try(first); ok {
		return loc, true
	}
	parts := strings.Split(first, ",")
	if len(parts) > 1 {
		last := strings.TrimSpace(parts[len(parts)-1])
		if c, ok := contract.NormalizeCountry(last); ok {
			return &contract.Location{Country: c, State: contract.NormalizeState(c, parts[0])}, true
		}
		return try(parts[0])
	}
	return nil, false
}

// lawCities are cities that CUAD answers give as the governing law.
var lawCities = map[string]string{
	"beijing": "CN", "shanghai": "CN", "shenzhen": "CN", "london": "GB", "paris": "FR",
	"tokyo": "JP", "munich": "DE", "frankfurt": "DE", "zurich": "CH", "geneva": "CH",
}

// quoted finds defined terms in a parenthetical: ("Company"), (the “Distributor”).
var quoted = regexp.MustCompile(`["“”]([^"“”]+)["“”]`)

// dbaRe cuts trade names off a legal name.
var dbaRe = regexp.MustCompile(`(?i),?\s+(d/b/a|dba|doing business as|f/k/a|formerly known as)\s.*$`)

// parseCUADParties splits a Parties-Answer such as
// `Acme Inc. ("Licensor"); Beta LLC ("Licensee")` into parties. The first
// defined term that is not an abbreviation of the name (nor "Party") becomes
// the role; segments without a name are skipped.
func parseCUADParties(s string) []contract.PartyRole {
	var out []contract.PartyRole
	seen := map[string]bool{}
	// Some answers wrap the whole list in parentheses.
	if t := strings.TrimSpace(s); strings.HasPrefix(t, "(") {
		s = strings.TrimPrefix(t, "(")
		if strings.HasSuffix(s, "))") {
			s = strings.TrimSuffix(s, ")")
		}
	}
	for _, seg := range splitTopLevel(s, ';') {
		seg = strings.TrimSpace(seg)
		name, paren := seg, ""
		if i := definedTermsStart(seg); i >= 0 {
			name, paren = seg[:i], seg[i:]
		}
		name = dbaRe.ReplaceAllString(strings.TrimSpace(name), "")
		name = strings.TrimRight(contract.CleanPartyName(name), ",;: ")
		if name == "" || isPlaceholder(name) {
			continue
		}
		key := contract.PartyKey(name)
		if seen[key] {
			continue
		}
		seen[key] = true
		pr := contract.PartyRole{Name: name}
		for _, m := range quoted.FindAllStringSubmatch(paren, -1) {
			term := strings.Trim(contract.CleanPartyName(m[1]), ".,; ")
			lt := strings.ToLower(term)
			if term == "" || notRole[lt] || abbreviates(term, name) {
				continue
			}
			pr.Role = term
			break
		}
		out = append(out, pr)
	}
	return out
}

// definedTermsStart returns the index of the first parenthetical holding a
// quoted term — ("Licensor") — so that "DATEC (PNG) LIMITED" keeps its
// "(PNG)"; -1 when there is none.
func definedTermsStart(seg string) int {
	for i := 0; i < len(seg); i++ {
		if seg[i] != '(' {
			continue
		}
		end := strings.IndexByte(seg[i:], ')')
		if end < 0 {
			end = len(seg) - i
		}
		if strings.ContainsAny(seg[i:i+end], "\"“”") {
			return i
		}
	}
	return -1
}

// notRole are defined terms that name no role.
var notRole = map[string]bool{"party": true, "parties": true, "we": true, "us": true, "our": true, "you": true, "your": true}

// abbreviates reports whether term is a short name for name: contained in it
// or its initials ("IBM" for International Business Machines).
func abbreviates(term, name string) bool {
	t, n := contract.MatchKey(term), contract.MatchKey(name)
	if t == "" {
		return true
	}
	if strings.Contains(n, t) {
		return true
	}
	var initials strings.Builder
	for _, wd := range strings.Fields(n) {
		if smallWords[wd] {
			continue
		}
		r, _ := utf8.DecodeRuneInString(wd)
		initials.WriteRune(r)
	}
	return strings.HasPrefix(initials.String(), strings.ReplaceAll(t, " ", ""))
}

// splitTopLevel splits s at sep outside parentheses.
func splitTopLevel(s string, sep rune) []string {
	var parts []string
	depth, start := 0, 0
	for i, r := range s {
		switch r {
		case '(':
			depth++
		case ')':
			if depth > 0 {
				depth--
			}
		case sep:
			if depth == 0 {
				parts = append(parts, s[start:i])
				start = i + len(string(r))
			}
		}
	}
	return append(parts, s[start:])
}

// titleTypes maps words of a document title to contract types; the first
// match wins, so the more specific entries come first.
var titleTypes = []struct{ word, typ string }{
	{"affiliate", "Affiliate Agreement"},
	{"co-branding", "Co-Branding"}, {"cobranding", "Co-Branding"}, {"branding", "Co-Branding"},
	{"joint venture", "Joint Venture"}, {"joint filing", "Joint Venture"},
	{"strategic alliance", "Strategic Alliance"}, {"alliance", "Strategic Alliance"},
	{"non-compet", "Non Compete/Solicit"}, {"non-solicit", "Non Compete/Solicit"}, {"noncompet", "Non Compete/Solicit"},
	{"outsourcing", "Outsourcing"}, {"sponsorship", "Sponsorship"}, {"endorsement", "Endorsement"},
	{"franchise", "Franchise"}, {"distribut", "Distributor"}, {"reseller", "Reseller"}, {"resale", "Reseller"},
	{"hosting", "Hosting"}, {"maintenance", "Maintenance"}, {"supply", "Supply"}, {"manufactur", "Manufacturing"},
	{"consult", "Consulting"}, {"development", "Development"}, {"collaboration", "Collaboration"},
	{"cooperation", "Collaboration"}, {"agency", "Agency"}, {"promotion", "Promotion"},
	{"marketing", "Marketing"}, {"transportation", "Transportation"}, {"shipping", "Transportation"},
	{"intellectual property", "IP"}, {"ip agreement", "IP"}, {"trademark", "License Agreement"},
	{"licens", "License Agreement"}, {"servic", "Service"},
}

// typeFromTitle infers the contract type from a document title.
func typeFromTitle(title string) string {
	t := strings.ToLower(title)
	for _, tt := range titleTypes {
		if strings.Contains(t, tt.word) {
			return tt.typ
		}
	}
	return "Other"
}

// cuadTimeline fills c's renewal fields from CUAD's answers and annotated
// spans, and returns the evidence of each: the renewal term and its limit
// from the Renewal Term answer ("successive 1 year", "3 successive 1
// year"), the kind from the Renewal Term spans (an automatic renewal in
// any of them wins), the notice period from its answer or else its spans,
// and the termination-for-convenience notice from that category's spans.
// An Expiration Date answer of "perpetual" makes an evergreen contract
// when no span says otherwise. Values found in no span keep no evidence
// and are warned about; nothing is guessed.
func cuadTimeline(c *contract.Contract, w *warner, renewalAnswer, noticeAnswer, expirationAnswer string) []contract.Evidence {
	spans := func(category string) []contract.Clause {
		var out []contract.Clause
		for _, cl := range c.Clauses {
			if cl.Type == category {
				out = append(out, cl)
			}
		}
		return out
	}
	var ev []contract.Evidence
	cite := func(field, value string, cl *contract.Clause) {
		if cl != nil && value != "" {
			ev = append(ev, contract.Evidence{Field: field, Value: value, Quote: cl.Text, Start: cl.Start, End: cl.End, Verified: cl.Verified})
		}
	}
	renewalSpans := spans("Renewal Term")
	answer := contract.ParseRenewal(renewalAnswer)
	// The kind: the first span stating an automatic renewal, else the
	// first stating any kind.
	var kindSpan *contract.Clause
	var fromSpan contract.Renewal
	rank := map[string]int{contract.RenewalAutomatic: 4, contract.RenewalEvergreen: 3, contract.RenewalOption: 2, contract.RenewalNone: 1}
	for i := range renewalSpans {
		r := contract.ParseRenewal(renewalSpans[i].Text)
		if rank[r.Kind] > rank[fromSpan.Kind] {
			fromSpan, kindSpan = r, &renewalSpans[i]
		}
	}
	c.RenewalKind = fromSpan.Kind
	if answer.Kind == contract.RenewalEvergreen || (c.RenewalKind == "" && answer.Kind != "") {
		c.RenewalKind = answer.Kind // the annotators' "perpetual"
	}
	var termSpan *contract.Clause
	if len(renewalSpans) > 0 {
		termSpan = &renewalSpans[0]
		if kindSpan != nil {
			termSpan = kindSpan
		}
	}
	switch {
	case answer.Term != "":
		c.RenewalTerm, c.RenewalCount = answer.Term, answer.Count
	case renewalAnswer != "" && answer.Kind == "":
		w.add("Renewal Term-Answer", fmt.Errorf("no duration in %q; dropped", renewalAnswer))
	case renewalAnswer == "" && fromSpan.Term != "" && c.RenewalKind == contract.RenewalAutomatic:
		c.RenewalTerm = fromSpan.Term
	}
	if c.RenewalCount == 0 && c.RenewalTerm != "" {
		c.RenewalCount = fromSpan.Count
	}
	if c.RenewalKind == "" && isPerpetual(expirationAnswer) {
		c.RenewalKind = contract.RenewalEvergreen
		if exp := spans("Expiration Date"); len(exp) > 0 {
			kindSpan = &exp[0]
		}
	}
	if c.RenewalKind == "" && len(renewalSpans) > 0 {
		w.add("Renewal Term", fmt.Errorf("no renewal kind (automatic, option, evergreen, none) in %q", clip(renewalSpans[0].Text, 120)))
	}
	cite(contract.FieldRenewalKind, c.RenewalKind, kindSpan)
	cite(contract.FieldRenewalTerm, c.RenewalTerm, termSpan)

	noticeSpans := spans("Notice Period To Terminate Renewal")
	var noticeSpan *contract.Clause
	if noticeAnswer != "" {
		if iso, ok := contract.ParseNoticePeriod(noticeAnswer); ok {
			c.NoticePeriod = iso
			if len(noticeSpans) > 0 {
				noticeSpan = &noticeSpans[0]
				for i := range noticeSpans {
					if n, ok := contract.ParseNoticePeriod(noticeSpans[i].Text); ok && n == iso {
						noticeSpan = &noticeSpans[i]
						break
					}
				}
			}
		} else {
			w.add("Notice Period To Terminate Renewal- Answer", fmt.Errorf("no duration in %q; dropped", noticeAnswer))
		}
	} else {
		for i := range noticeSpans {
			if iso, ok := contract.ParseNoticePeriod(noticeSpans[i].Text); ok {
				c.NoticePeriod, noticeSpan = iso, &noticeSpans[i]
				break
			}
		}
		// An option's exercise notice, or a notice the annotators left in
		// the renewal span alone, is read from the renewal spans.
		for i := range renewalSpans {
			if c.NoticePeriod != "" {
				break
			}
			if r := contract.ParseRenewal(renewalSpans[i].Text); r.Notice != "" {
				c.NoticePeriod, noticeSpan = r.Notice, &renewalSpans[i]
			}
		}
	}
	cite(contract.FieldNoticePeriod, c.NoticePeriod, noticeSpan)

	for _, cl := range spans("Termination For Convenience") {
		if iso, ok := contract.ParseNoticePeriod(cl.Text); ok {
			c.TerminationNotice = iso
			cite(contract.FieldTerminationNotice, iso, &cl)
			break
		}
	}
	return ev
}

// clip shortens s to at most n bytes for a message, at a rune boundary.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

// errRowTooLarge ends a CSV row over the record limit.
var errRowTooLarge = errors.New("row over the record limit")

// rowCap fails the read once the row being read is over its limit, so that
// encoding/csv never holds more than that of one row.
type rowCap struct {
	r        io.Reader
	limit    int64
	read     int64 // bytes handed to the CSV reader
	rowStart int64 // the CSV reader's offset at the start of the row
}

func (c *rowCap) startRow(offset int64) { c.rowStart = offset }

func (c *rowCap) Read(p []byte) (int, error) {
	// The CSV reader buffers ahead; allow the row its limit plus one buffer.
	if c.read-c.rowStart > c.limit+int64(len(p)) {
		return 0, errRowTooLarge
	}
	n, err := c.r.Read(p)
	c.read += int64(n)
	return n, err
}

// readCapped reads a whole file of at most limit bytes.
func readCapped(path string, limit int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > limit {
		size := int64(len(b))
		if fi, err := f.Stat(); err == nil {
			size = fi.Size()
		}
		return nil, fmt.Errorf("text file %s is %s, over the limit of %s per record (--max-record-bytes raises it)", filepath.Base(path), bounded.Size(size), bounded.Size(limit))
	}
	return b, nil
}
