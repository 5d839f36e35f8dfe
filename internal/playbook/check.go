package playbook

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/contractgraph/contractgraph/internal/contract"
	"github.com/contractgraph/contractgraph/internal/llm"
	"github.com/contractgraph/contractgraph/internal/terms"
	"github.com/contractgraph/contractgraph/internal/textmatch"
)

// Status is whether the contract has the entry's clause.
type Status string

// The statuses of a result.
const (
	Present          Status = "present"
	Missing          Status = "missing"
	ForbiddenPresent Status = "forbidden_present"
)

// Verdict is the check's conclusion on one entry.
type Verdict string

// The verdicts, from best to worst.
const (
	MeetsStandard      Verdict = "meets_standard"
	AcceptableFallback Verdict = "acceptable_fallback"
	Deviation          Verdict = "deviation"
	RedFlagged         Verdict = "red_flag"
)

// Verdicts lists the verdicts from best to worst.
var Verdicts = []Verdict{MeetsStandard, AcceptableFallback, Deviation, RedFlagged}

// Label is how reports write the verdict.
func (v Verdict) Label() string {
	switch v {
	case MeetsStandard:
		return "meets standard"
	case AcceptableFallback:
		return "acceptable fallback"
	case Deviation:
		return "deviation"
	case RedFlagged:
		return "red flag"
	}
	return string(v)
}

// The similarity thresholds of the verdicts (textmatch.Similarity, 0 to
// 1). They were set by reading CUAD clauses against the example playbook:
// around 0.5 a clause states the position in its own words ("Any Party
// hereto may terminate this Agreement at any time upon prior written
// notice" against "Either party may terminate this Agreement without cause
// upon ninety (90) days prior written notice"); below 0.4 it mostly says
// something else about the same subject.
const (
	// StandardMin is the similarity to the standard at or above which a
	// clause meets it.
	StandardMin = 0.5
	// FallbackMin is the similarity to a fallback at or above which a
	// clause is that fallback.
	FallbackMin = 0.4
	// RedFlagMin is the similarity to a red flag's sample text at or
	// above which the clause is that red flag.
	RedFlagMin = 0.5
)

// Report is the outcome of checking one contract against a playbook.
type Report struct {
	Playbook       string   `json:"playbook"`
	PlaybookSource string   `json:"playbook_source,omitempty"`
	ContractID     string   `json:"contract_id"`
	ContractTitle  string   `json:"contract_title,omitempty"`
	GeneratedAt    string   `json:"generated_at"`
	Counts         Counts   `json:"counts"`
	Results        []Result `json:"results"`
	// Judged is true when a model judged the deviations; Model names it.
	Judged bool   `json:"judged"`
	Model  string `json:"model,omitempty"`
	// RemovedQuotes are the judgement quotes that were not found where
	// they claim to be, and were taken out.
	RemovedQuotes []RemovedQuote `json:"removed_quotes"`
	Notices       []string       `json:"notices"`
	// Partial is true when some judgement could not be made.
	Partial bool      `json:"partial"`
	Usage   llm.Usage `json:"usage"`
}

// Counts are the results per verdict.
type Counts struct {
	MeetsStandard      int `json:"meets_standard"`
	AcceptableFallback int `json:"acceptable_fallback"`
	Deviation          int `json:"deviation"`
	RedFlag            int `json:"red_flag"`
}

func (c *Counts) add(v Verdict) {
	switch v {
	case MeetsStandard:
		c.MeetsStandard++
	case AcceptableFallback:
		c.AcceptableFallback++
	case Deviation:
		c.Deviation++
	case RedFlagged:
		c.RedFlag++
	}
}

// Of returns the count of one verdict.
func (c Counts) Of(v Verdict) int {
	switch v {
	case MeetsStandard:
		return c.MeetsStandard
	case AcceptableFallback:
		return c.AcceptableFallback
	case Deviation:
		return c.Deviation
	case RedFlagged:
		return c.RedFlag
	}
	return 0
}

// Result is the check of one playbook entry. Spans inside the clause
// (terms, quotes) are byte offsets into Clause.Text; the clause's own span
// is into the contract text.
type Result struct {
	EntryID     string      `json:"entry_id"`
	Title       string      `json:"title"`
	ClauseType  string      `json:"clause_type"`
	Requirement Requirement `json:"requirement"`
	Status      Status      `json:"status"`
	Verdict     Verdict     `json:"verdict"`
	// Reasons explain the verdict, one step of the rules a line.
	Reasons []string `json:"reasons"`
	// Clause is the contract's clause of the type closest to the
	// playbook's positions; nil when there is none.
	Clause *ClauseRef `json:"clause,omitempty"`
	// OtherClauses are the contract's further clauses of the type.
	OtherClauses []ClauseRef `json:"other_clauses,omitempty"`
	// Closest is the position (standard or fallback) nearest the clause.
	Closest *Match `json:"closest,omitempty"`
	// Matches is the clause compared with every position.
	Matches []Match `json:"matches,omitempty"`
	// RedFlag is the red flag whose sample text the clause reads like.
	RedFlag *RedFlagMatch `json:"red_flag,omitempty"`
	// RedFlags are the entry's red-flag descriptions, for the reader.
	RedFlags []string `json:"red_flags,omitempty"`
	// Terms are the numeric terms required and found.
	Terms []TermCheck `json:"terms,omitempty"`
	// Judgement is the model's, when one was asked.
	Judgement *Judgement `json:"judgement,omitempty"`
}

// ClauseRef is a clause of the contract: Text is the contract text at
// [Start, End) when Verified.
type ClauseRef struct {
	ID       string `json:"id,omitempty"`
	Text     string `json:"text"`
	Start    int    `json:"start"`
	End      int    `json:"end"`
	Verified bool   `json:"verified"`
}

// Match is the clause compared with one position.
type Match struct {
	Position   string  `json:"position"` // "standard" or "fallback N"
	Text       string  `json:"text"`
	Similarity float64 `json:"similarity"`
	// Missing are the position's required words the clause lacks; the
	// position cannot match while any is missing.
	Missing []string `json:"missing,omitempty"`
}

// RedFlagMatch is a red flag the clause reads like.
type RedFlagMatch struct {
	Description string  `json:"description"`
	Text        string  `json:"text"`
	Similarity  float64 `json:"similarity"`
}

// Term check statuses.
const (
	TermMet      = "met"
	TermNotMet   = "not_met"
	TermNotFound = "not_found"
)

// TermCheck is one numeric term rule against the terms of the clause.
type TermCheck struct {
	Rule   TermRule     `json:"rule"`
	Found  []terms.Term `json:"found"`
	Status string       `json:"status"` // met, not_met or not_found
	Detail string       `json:"detail"`
}

// Check checks contract c against the playbook, without a model: for each
// entry, whether the contract has clauses of its type, the one closest to
// the positions, its similarity to the standard and each fallback, the
// numeric terms it states against those required, and the verdict, by
// the rules the package documentation states.
func Check(pb *Playbook, c *contract.Contract, now time.Time) *Report {
	rep := &Report{
		Playbook: pb.Name, PlaybookSource: pb.Source, ContractID: c.ID, ContractTitle: c.Title,
		GeneratedAt: now.UTC().Format(time.RFC3339), Results: []Result{}, RemovedQuotes: []RemovedQuote{}, Notices: []string{},
	}
	if len(c.Clauses) == 0 {
		rep.Notices = append(rep.Notices, "The contract has no clauses: every required clause reads as missing. Extract its clauses first (contractgraph ingest).")
	}
	for i := range pb.Entries {
		r := checkEntry(&pb.Entries[i], c)
		rep.Counts.add(r.Verdict)
		rep.Results = append(rep.Results, r)
	}
	return rep
}

// clausesOf lists the contract's clauses of type typ, with their text.
func clausesOf(c *contract.Contract, typ string) []ClauseRef {
	var out []ClauseRef
	for _, cl := range c.Clauses {
		t, _, err := contract.ParseClauseType(cl.Type)
		if err != nil || t != typ {
			continue
		}
		ref := ClauseRef{ID: cl.ID, Text: cl.Text, Start: cl.Start, End: cl.End}
		if cl.Verified && 0 <= cl.Start && cl.Start < cl.End && cl.End <= len(c.Text) {
			ref.Text, ref.Verified = c.Text[cl.Start:cl.End], true
		}
		if strings.TrimSpace(ref.Text) == "" {
			continue
		}
		out = append(out, ref)
	}
	return out
}

func checkEntry(e *Entry, c *contract.Contract) Result {
	r := Result{EntryID: e.ID, Title: e.Label(), ClauseType: e.ClauseType, Requirement: e.Requirement, Reasons: []string{}}
	for _, rf := range e.RedFlags {
		r.RedFlags = append(r.RedFlags, rf.Description)
	}
	clauses := clausesOf(c, e.ClauseType)
	if e.Requirement == Forbidden {
		if len(clauses) == 0 {
			r.Status, r.Verdict = Missing, MeetsStandard
			r.Reasons = append(r.Reasons, fmt.Sprintf("The contract has no %s clause, which the playbook forbids.", e.ClauseType))
			return r
		}
		r.Status, r.Verdict = ForbiddenPresent, RedFlagged
		r.Clause = &clauses[0]
		r.OtherClauses = clauses[1:]
		r.Reasons = append(r.Reasons, fmt.Sprintf("The contract has %s, which the playbook forbids.", countClauses(len(clauses), e.ClauseType)))
		return r
	}
	if len(clauses) == 0 {
		r.Status, r.Verdict = Missing, RedFlagged
		r.Reasons = append(r.Reasons, fmt.Sprintf("The contract has no %s clause, which the playbook requires.", e.ClauseType))
		for _, tr := range e.Terms {
			r.Terms = append(r.Terms, TermCheck{Rule: tr, Found: []terms.Term{}, Status: TermNotFound, Detail: "no clause to read it from"})
		}
		return r
	}
	r.Status = Present
	// The clause closest to any position stands for the contract.
	best, bestSim := 0, -1.0
	var bestMatches []Match
	for i, cl := range clauses {
		ms := compare(e, cl.Text)
		if s := topSimilarity(ms); s > bestSim {
			best, bestSim, bestMatches = i, s, ms
		}
	}
	cl := clauses[best]
	r.Clause = &cl
	r.OtherClauses = slices.Delete(slices.Clone(clauses), best, best+1)
	r.Matches = bestMatches
	if len(r.OtherClauses) > 0 {
		r.Reasons = append(r.Reasons, fmt.Sprintf("The contract has %s; the one closest to the playbook is checked.", countClauses(len(clauses), e.ClauseType)))
	}

	var closest *Match
	for i := range r.Matches {
		m := &r.Matches[i]
		if len(m.Missing) > 0 {
			r.Reasons = append(r.Reasons, fmt.Sprintf("%s does not apply: the clause lacks %s.", capitalise(positionPhrase(m.Position)), quoteList(m.Missing)))
			continue
		}
		if closest == nil || m.Similarity > closest.Similarity {
			closest = m
		}
	}
	if closest != nil {
		cp := *closest
		r.Closest = &cp
	}

	r.Terms = checkTerms(e.Terms, cl.Text)
	redLine, offTerms := false, 0
	for _, tc := range r.Terms {
		if tc.Status == TermNotMet {
			offTerms++
			redLine = redLine || tc.Rule.RedLine
			r.Reasons = append(r.Reasons, "Numeric term not met: "+tc.Detail+".")
		}
	}

	for _, rf := range e.RedFlags {
		if strings.TrimSpace(rf.Text) == "" {
			continue
		}
		s := textmatch.Similarity(cl.Text, rf.Text)
		if s >= RedFlagMin && (r.Closest == nil || s > r.Closest.Similarity) && (r.RedFlag == nil || s > r.RedFlag.Similarity) {
			r.RedFlag = &RedFlagMatch{Description: rf.Description, Text: rf.Text, Similarity: s}
		}
	}

	switch {
	case redLine:
		r.Verdict = RedFlagged
		r.Reasons = append(r.Reasons, "A red-line term is not met.")
	case r.RedFlag != nil:
		r.Verdict = RedFlagged
		r.Reasons = append(r.Reasons, fmt.Sprintf("The clause reads like a red flag (similarity %.2f ≥ %.2f, above every position): %s", r.RedFlag.Similarity, RedFlagMin, r.RedFlag.Description))
	case r.Closest == nil:
		r.Verdict = Deviation
		r.Reasons = append(r.Reasons, "No position of the playbook applies to the clause.")
	case r.Closest.Position == "standard" && r.Closest.Similarity >= StandardMin:
		if offTerms > 0 {
			r.Verdict = Deviation
			r.Reasons = append(r.Reasons, fmt.Sprintf("The clause reads like the standard (similarity %.2f ≥ %.2f) but a numeric term is not met.", r.Closest.Similarity, StandardMin))
		} else {
			r.Verdict = MeetsStandard
			r.Reasons = append(r.Reasons, fmt.Sprintf("The clause reads like the standard (similarity %.2f ≥ %.2f).", r.Closest.Similarity, StandardMin))
		}
	case r.Closest.Position != "standard" && r.Closest.Similarity >= FallbackMin:
		if offTerms > 0 {
			r.Verdict = Deviation
			r.Reasons = append(r.Reasons, fmt.Sprintf("The clause reads like %s (similarity %.2f ≥ %.2f) but a numeric term is not met.", positionPhrase(r.Closest.Position), r.Closest.Similarity, FallbackMin))
		} else {
			r.Verdict = AcceptableFallback
			r.Reasons = append(r.Reasons, fmt.Sprintf("The clause reads like %s (similarity %.2f ≥ %.2f), closer than the standard.", positionPhrase(r.Closest.Position), r.Closest.Similarity, FallbackMin))
		}
	default:
		r.Verdict = Deviation
		min := StandardMin
		if r.Closest.Position != "standard" {
			min = FallbackMin
		}
		r.Reasons = append(r.Reasons, fmt.Sprintf("The closest position is %s, at similarity %.2f, below %.2f.", positionPhrase(r.Closest.Position), r.Closest.Similarity, min))
	}
	return r
}

// compare measures the clause against the standard and every fallback.
func compare(e *Entry, text string) []Match {
	folded := textmatch.Fold(text)
	one := func(name string, p Position) Match {
		m := Match{Position: name, Text: p.Text, Similarity: textmatch.Similarity(text, p.Text)}
		for _, w := range p.Require {
			if !strings.Contains(folded, textmatch.Fold(w)) {
				m.Missing = append(m.Missing, w)
			}
		}
		return m
	}
	ms := []Match{one("standard", e.Standard)}
	for i, f := range e.Fallbacks {
		ms = append(ms, one(fmt.Sprintf("fallback %d", i+1), f))
	}
	return ms
}

// topSimilarity is the highest similarity of the positions that apply,
// or of all when none does (so that a clause lacking the words of every
// position is still ranked).
func topSimilarity(ms []Match) float64 {
	top, any := -1.0, -1.0
	for _, m := range ms {
		any = max(any, m.Similarity)
		if len(m.Missing) == 0 {
			top = max(top, m.Similarity)
		}
	}
	if top < 0 {
		return any / 2
	}
	return 1 + top // a position that applies outranks any that does not
}

// checkTerms reads the clause's terms and checks each rule: a rule is met
// when some term of its kind and unit lies within its bounds (a clause may
// state several, e.g. "the greater of $1,000,000 and the fees paid in the
// twelve months preceding"), not met when there are such terms but none
// within, not found when there is none. A notice rule reads the clause's
// durations when it gives no period as notice.
func checkTerms(rules []TermRule, text string) []TermCheck {
	if len(rules) == 0 {
		return nil
	}
	all := terms.Extract(text)
	var out []TermCheck
	for _, tr := range rules {
		found := []terms.Term{}
		pick := func(kind terms.Kind) {
			for _, t := range all {
				if t.Kind != kind {
					continue
				}
				if (kind == terms.Cap && t.Unit != tr.Unit) || (tr.Currency != "" && t.Currency != "" && t.Currency != tr.Currency) ||
					(kind == terms.Amount && tr.Currency != "" && t.Currency == "") {
					continue
				}
				found = append(found, t)
			}
		}
		pick(tr.Kind)
		if len(found) == 0 && tr.Kind == terms.Notice {
			pick(terms.Duration)
		}
		tc := TermCheck{Rule: tr, Found: found}
		bounds := tr.describe()
		switch {
		case len(found) == 0:
			tc.Status, tc.Detail = TermNotFound, fmt.Sprintf("no %s found; want %s", tr.Kind, bounds)
		default:
			tc.Status = TermNotMet
			for _, t := range found {
				if tr.within(t.Value) {
					tc.Status = TermMet
					break
				}
			}
			vals := make([]string, len(found))
			for i, t := range found {
				vals[i] = fmt.Sprintf("%q (%s)", t.Text, formatValue(t.Value, t.Unit))
			}
			tc.Detail = fmt.Sprintf("%s %s found; want %s", tr.Kind, strings.Join(vals, ", "), bounds)
		}
		out = append(out, tc)
	}
	return out
}

func (tr TermRule) within(v float64) bool {
	return (tr.Min == nil || v >= *tr.Min) && (tr.Max == nil || v <= *tr.Max)
}

// describe writes the rule's bounds, e.g. "at least 12 months_fees".
func (tr TermRule) describe() string {
	var parts []string
	if tr.Min != nil {
		parts = append(parts, "at least "+formatValue(*tr.Min, tr.Unit))
	}
	if tr.Max != nil {
		parts = append(parts, "at most "+formatValue(*tr.Max, tr.Unit))
	}
	s := strings.Join(parts, " and ")
	if tr.RedLine {
		s += " (red line)"
	}
	return s
}

// formatValue writes a value with its unit the way a reader says it.
func formatValue(v float64, unit string) string {
	switch unit {
	case terms.UnitDays:
		return num(v) + " days"
	case terms.UnitPercent:
		return num(v) + "%"
	case terms.UnitMonthsFees:
		return num(v) + " months' fees"
	case terms.UnitFees:
		return num(v) + "× the fees"
	case terms.UnitAmount, "":
		return num(v)
	}
	return num(v) + " " + unit
}

func countClauses(n int, typ string) string {
	if n == 1 {
		return "a " + typ + " clause"
	}
	return fmt.Sprintf("%d %s clauses", n, typ)
}

func quoteList(ws []string) string {
	q := make([]string, len(ws))
	for i, w := range ws {
		q[i] = fmt.Sprintf("%q", w)
	}
	return strings.Join(q, ", ")
}

// num writes a number without an exponent: 1000000, 2.5.
func num(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }

// Bounds writes the rule's bounds for a reader, e.g. "at most 90 days".
func (tr TermRule) Bounds() string { return tr.describe() }

// positionPhrase is a position as a sentence names it: "the standard",
// "fallback 2".
func positionPhrase(p string) string {
	if p == "standard" {
		return "the standard"
	}
	return p
}

func capitalise(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
