package contract

import (
	"fmt"
	"slices"
	"strings"
	"time"
)

// Renewal kinds: how a contract's term continues past its end date.
const (
	// RenewalNone: the contract ends on its end date.
	RenewalNone = "none"
	// RenewalAutomatic: the term renews by itself, term after term (a
	// limited number of times when RenewalCount is set), unless a party
	// gives notice of non-renewal before the then-current term ends.
	RenewalAutomatic = "automatic"
	// RenewalOption: the term renews only if a party exercises an option or
	// the parties agree to it.
	RenewalOption = "option"
	// RenewalEvergreen: after its end date (if any) the contract continues
	// indefinitely until a party terminates it, perpetual.
	RenewalEvergreen = "evergreen"
)

// RenewalKinds lists the renewal kinds, the values of Contract.RenewalKind
// besides "" (not known).
var RenewalKinds = []string{RenewalNone, RenewalAutomatic, RenewalOption, RenewalEvergreen}

// Deadline kinds: what falls due on a timeline date.
const (
	// DeadlineNotice is the last day to give notice: of non-renewal for an
	// automatic renewal, of exercise for a renewal option, of termination at
	// the end of an evergreen contract's initial term.
	DeadlineNotice = "notice"
	// DeadlineRenewal is the day an automatic renewal takes effect (the end
	// of the term it renews).
	DeadlineRenewal = "renewal"
	// DeadlineExpiration is the day the contract ends unless it is renewed
	// (by an option, or by a renewal the contract does not state).
	DeadlineExpiration = "expiration"
)

// DeadlineKinds lists the deadline kinds in the order a day's deadlines are
// listed: the notice to act on first.
var DeadlineKinds = []string{DeadlineNotice, DeadlineRenewal, DeadlineExpiration}

// DeadlineLabel names a kind of deadline for a person: "Notice
// deadline", "Renews", "Expires"; an unknown kind as it is.
func DeadlineLabel(kind string) string {
	switch kind {
	case DeadlineNotice:
		return "Notice deadline"
	case DeadlineRenewal:
		return "Renews"
	case DeadlineExpiration:
		return "Expires"
	}
	return kind
}

// Evidence fields the timeline reads its inputs from (Evidence.Field).
const (
	FieldEffectiveDate     = "effective_date"
	FieldEndDate           = "end_date"
	FieldRenewalKind       = "renewal_kind"
	FieldRenewalTerm       = "renewal_term"
	FieldNoticePeriod      = "notice_period"
	FieldTerminationNotice = "termination_notice"
)

// TimelineFields lists the evidence fields of a timeline, in the order
// derivations name them.
var TimelineFields = []string{FieldEffectiveDate, FieldEndDate, FieldRenewalKind, FieldRenewalTerm, FieldNoticePeriod, FieldTerminationNotice}

// maxTerms bounds how many renewal terms a timeline rolls forward: a
// monthly renewal from 1800 to 2199 has fewer.
const maxTerms = 5000

// Fact is one input of a timeline: the field it comes from, its value as
// stored ("" when the contract does not say) and the quote supporting it.
type Fact struct {
	Field    string    `json:"field"`
	Value    string    `json:"value"`
	Evidence *Evidence `json:"evidence,omitempty"`
}

// Timeline is a contract's term structure: when its term starts and ends,
// how it renews and what notice stops a renewal or ends it early. Values
// are as stored on the contract (dates YYYY-MM-DD, periods ISO 8601
// durations, the kind one of RenewalKinds); an empty value is unknown, and
// whatever depends on it stays unknown.
type Timeline struct {
	ContractID   string `json:"contract_id"`
	Start        Fact   `json:"start"`
	End          Fact   `json:"end"`
	RenewalKind  Fact   `json:"renewal_kind"`
	RenewalTerm  Fact   `json:"renewal_term"`
	RenewalCount int    `json:"renewal_count,omitempty"` // 0: no stated limit
	NoticePeriod Fact   `json:"notice_period"`
	// TerminationNotice is the notice either party needs to terminate for
	// convenience, at any time.
	TerminationNotice Fact `json:"termination_notice"`
}

// TimelineOf reads c's timeline: its fields, each with the first evidence
// recorded for it.
func TimelineOf(c *Contract) Timeline {
	fact := func(field, value string) Fact {
		f := Fact{Field: field, Value: value}
		if value == "" {
			return f
		}
		for i := range c.Evidence {
			if c.Evidence[i].Field == field {
				e := c.Evidence[i]
				f.Evidence = &e
				break
			}
		}
		return f
	}
	return Timeline{
		ContractID:        c.ID,
		Start:             fact(FieldEffectiveDate, c.EffectiveDate),
		End:               fact(FieldEndDate, c.EndDate),
		RenewalKind:       fact(FieldRenewalKind, c.RenewalKind),
		RenewalTerm:       fact(FieldRenewalTerm, c.RenewalTerm),
		RenewalCount:      c.RenewalCount,
		NoticePeriod:      fact(FieldNoticePeriod, c.NoticePeriod),
		TerminationNotice: fact(FieldTerminationNotice, c.TerminationNotice),
	}
}

// DerivedDate is a date worked out from a timeline, with how: Derivation
// explains the arithmetic (or, when Date is empty, why the date is not
// known) and From lists the inputs it used.
type DerivedDate struct {
	Date       string `json:"date,omitempty"` // YYYY-MM-DD; empty when unknown
	Term       int    `json:"term"`           // 0: the initial term; n: the n-th renewal term
	Derivation string `json:"derivation"`
	From       []Fact `json:"from,omitempty"`
}

// Known reports whether the date is known.
func (d DerivedDate) Known() bool { return d.Date != "" }

// Deadline is one dated event of a timeline.
type Deadline struct {
	Kind string `json:"kind"` // one of DeadlineKinds
	DerivedDate
}

// Derived is a timeline's state on one day.
type Derived struct {
	AsOf string `json:"as_of"`
	// CurrentTermEnd is the end of the term in force on AsOf, an automatic
	// renewal rolled forward term by term; unknown when no term is in force.
	CurrentTermEnd DerivedDate `json:"current_term_end"`
	// NoticeDeadline is the first notice deadline on or after AsOf.
	NoticeDeadline DerivedDate `json:"notice_deadline"`
	// NextRenewal is the first automatic renewal on or after AsOf.
	NextRenewal DerivedDate `json:"next_renewal"`
	// EarliestTermination is the earliest end that a termination for
	// convenience noticed on AsOf reaches.
	EarliestTermination DerivedDate `json:"earliest_termination"`
}

// span is a parsed ISO 8601 duration in calendar components.
type span struct {
	years, months, days int
	iso                 string
}

func parseSpan(iso string) (span, bool) {
	d, err := parseISO(iso)
	if err != nil {
		return span{}, false
	}
	s := span{years: d.years, months: d.months, days: d.weeks*7 + d.days, iso: strings.ToUpper(strings.TrimSpace(iso))}
	return s, s.years > 0 || s.months > 0 || s.days > 0
}

// after is t plus k times s, counted from t so that a term ending on the
// 31st keeps ending on the 31st where the month has one. Months are added
// on the calendar and a day past the month's end becomes its last day (a
// month after January 31 is February 28), as a contract's "one month
// before the end of the term" reads; days are added after.
func (s span) after(t time.Time, k int) time.Time {
	return addClamped(t, k*(s.years*12+s.months), k*s.days)
}

func (s span) before(t time.Time) time.Time {
	return addClamped(t, -(s.years*12 + s.months), -s.days)
}

func addClamped(t time.Time, months, days int) time.Time {
	if months != 0 {
		y, m, d := t.Date()
		first := time.Date(y, m+time.Month(months), 1, 0, 0, 0, 0, time.UTC)
		last := first.AddDate(0, 1, -1).Day()
		t = time.Date(first.Year(), first.Month(), min(d, last), 0, 0, 0, 0, time.UTC)
	}
	return t.AddDate(0, 0, days)
}

// roller computes a timeline's dates. Its fields are the parsed inputs;
// ok flags say which are usable.
type roller struct {
	t        Timeline
	end      time.Time
	endOK    bool
	term     span
	termOK   bool
	notice   span
	noticeOK bool
	tfc      span
	tfcOK    bool
}

func newRoller(t Timeline) roller {
	r := roller{t: t}
	if e, err := time.Parse(time.DateOnly, t.End.Value); err == nil {
		r.end, r.endOK = e, true
	}
	r.term, r.termOK = parseSpan(t.RenewalTerm.Value)
	r.notice, r.noticeOK = parseSpan(t.NoticePeriod.Value)
	r.tfc, r.tfcOK = parseSpan(t.TerminationNotice.Value)
	return r
}

func facts(fs ...Fact) []Fact {
	var out []Fact
	for _, f := range fs {
		if f.Value != "" {
			out = append(out, f)
		}
	}
	return out
}

// termEnd is the end of term k (0: the initial term) and how it follows
// from the inputs.
func (r roller) termEnd(k int) (time.Time, string, []Fact) {
	if k == 0 {
		return r.end, r.t.End.Value + " (the end date)", facts(r.t.End)
	}
	e := r.endOf(k)
	return e, fmt.Sprintf("%s (end date %s + %d × renewal term %s)", e.Format(time.DateOnly), r.t.End.Value, k, r.term.iso),
		facts(r.t.End, r.t.RenewalKind, r.t.RenewalTerm)
}

// endOf is the end of term k, without saying how.
func (r roller) endOf(k int) time.Time {
	if k == 0 {
		return r.end
	}
	return r.term.after(r.end, k)
}

// noticeDate is the notice deadline before the end of term k, without
// saying how, if there is one.
func (r roller) noticeDate(k int) (time.Time, bool) {
	kind := r.t.RenewalKind.Value
	switch {
	case !r.noticeOK || (kind != RenewalAutomatic && kind != RenewalOption && kind != RenewalEvergreen):
		return time.Time{}, false
	case kind != RenewalAutomatic && k > 0:
		return time.Time{}, false
	case kind == RenewalAutomatic && !r.renews(k):
		return time.Time{}, false
	}
	return r.notice.before(r.endOf(k)), true
}

// renews reports whether term k is followed by an automatic renewal.
func (r roller) renews(k int) bool {
	return r.t.RenewalKind.Value == RenewalAutomatic && (r.t.RenewalCount == 0 || k < r.t.RenewalCount)
}

// lastTerm is the number of the last term that can be worked out: 0 when
// renewal terms cannot be rolled, else the stated limit or maxTerms.
func (r roller) lastTerm() int {
	if r.t.RenewalKind.Value != RenewalAutomatic || !r.termOK {
		return 0
	}
	if r.t.RenewalCount > 0 {
		return min(r.t.RenewalCount, maxTerms)
	}
	return maxTerms
}

func (r roller) unknown(why string, from ...Fact) DerivedDate {
	return DerivedDate{Derivation: why, From: facts(from...)}
}

// noticeFor is the notice deadline before the end of term k, if there is one.
func (r roller) noticeFor(k int) (DerivedDate, bool) {
	d, ok := r.noticeDate(k)
	if !ok {
		return DerivedDate{}, false
	}
	kind := r.t.RenewalKind.Value
	_, how, from := r.termEnd(k)
	what := map[string]string{
		RenewalAutomatic: "last day to give notice of non-renewal",
		RenewalOption:    "last day to give notice exercising the renewal option",
		RenewalEvergreen: "last day to give notice ending the contract at its initial term's end",
	}[kind]
	return DerivedDate{
		Date:       d.Format(time.DateOnly),
		Term:       k,
		Derivation: fmt.Sprintf("%s: term end %s − notice period %s; %s", what, how, r.notice.iso, kindPhrase(kind, r.t.RenewalCount)),
		From:       dedupe(append(from, facts(r.t.RenewalKind, r.t.NoticePeriod)...)),
	}, true
}

func kindPhrase(kind string, count int) string {
	switch kind {
	case RenewalAutomatic:
		if count > 0 {
			return fmt.Sprintf("renews automatically, at most %d times", count)
		}
		return "renews automatically"
	case RenewalOption:
		return "renews only by option or agreement"
	case RenewalEvergreen:
		return "continues until terminated"
	case RenewalNone:
		return "does not renew"
	}
	return "renewal not stated"
}

// dedupe keeps each fact once, in order.
func dedupe(fs []Fact) []Fact {
	var out []Fact
	for _, f := range fs {
		dup := false
		for _, g := range out {
			if g.Field == f.Field {
				dup = true
				break
			}
		}
		if !dup {
			out = append(out, f)
		}
	}
	return out
}

// firstTermEndingOnOrAfter is the first term k whose end (shifted by
// shift, e.g. minus the notice period) is on or after day, or -1.
func (r roller) firstTermOnOrAfter(day time.Time, shift func(time.Time) time.Time) int {
	last := r.lastTerm()
	if shift(r.end).Before(day) && last > 0 {
		// Jump close to the answer: terms are at least a day long.
		approx := 0
		if per := r.term.maxDays(); per > 0 {
			approx = max(0, int(day.Sub(shift(r.end)).Hours()/24)/per-1)
		}
		for k := min(approx, last); k <= last; k++ {
			if !shift(r.endOf(k)).Before(day) {
				return k
			}
		}
		return -1
	}
	if !shift(r.end).Before(day) {
		return 0
	}
	return -1
}

// maxDays is an upper bound of the span's length in days, so that a
// distance divided by it never counts more terms than there are.
func (s span) maxDays() int {
	return s.years*366 + s.months*31 + s.days
}

func identity(t time.Time) time.Time { return t }

// AsOf works out the timeline's state on day (YYYY-MM-DD).
func (t Timeline) AsOf(day string) (Derived, error) {
	d, err := time.Parse(time.DateOnly, day)
	if err != nil {
		return Derived{}, fmt.Errorf("%w %q: want YYYY-MM-DD", ErrInvalidDate, day)
	}
	r := newRoller(t)
	out := Derived{AsOf: day}
	kind := t.RenewalKind.Value
	if !r.endOK {
		why := "no end date"
		if t.End.Value != "" {
			why = fmt.Sprintf("end date %q is not a date", t.End.Value)
		}
		if kind == RenewalEvergreen {
			why = "continues until terminated, with no fixed end date"
		}
		out.CurrentTermEnd = r.unknown(why, t.RenewalKind)
		out.NoticeDeadline = r.unknown(why, t.RenewalKind)
		out.NextRenewal = r.unknown(why, t.RenewalKind)
	} else {
		out.CurrentTermEnd = r.currentTermEnd(d)
		out.NoticeDeadline = r.nextNotice(d)
		out.NextRenewal = r.nextRenewal(d)
	}
	if r.tfcOK {
		e := r.tfc.after(d, 1)
		out.EarliestTermination = DerivedDate{
			Date:       e.Format(time.DateOnly),
			Derivation: fmt.Sprintf("termination for convenience noticed on %s + notice %s", day, r.tfc.iso),
			From:       facts(t.TerminationNotice),
		}
	} else {
		out.EarliestTermination = r.unknown("no termination-for-convenience notice stated")
	}
	return out, nil
}

func (r roller) currentTermEnd(d time.Time) DerivedDate {
	t := r.t
	if !r.end.Before(d) {
		return DerivedDate{Date: t.End.Value, Derivation: "the end date of the initial term", From: facts(t.End)}
	}
	switch t.RenewalKind.Value {
	case RenewalAutomatic:
		if !r.termOK {
			return r.unknown(fmt.Sprintf("renewed automatically on %s, but the renewal term is not known", t.End.Value), t.End, t.RenewalKind)
		}
		k := r.firstTermOnOrAfter(d, identity)
		if k < 0 {
			e, _, _ := r.termEnd(r.lastTerm())
			return r.unknown(fmt.Sprintf("ended on %s after its last renewal (%d allowed)", e.Format(time.DateOnly), t.RenewalCount), t.End, t.RenewalKind, t.RenewalTerm)
		}
		e, how, from := r.termEnd(k)
		return DerivedDate{Date: e.Format(time.DateOnly), Term: k, Derivation: how, From: from}
	case RenewalEvergreen:
		return r.unknown(fmt.Sprintf("initial term ended on %s; continues until terminated", t.End.Value), t.End, t.RenewalKind)
	case RenewalOption:
		return r.unknown(fmt.Sprintf("ended on %s unless the renewal option was exercised", t.End.Value), t.End, t.RenewalKind)
	case RenewalNone:
		return r.unknown("ended on "+t.End.Value, t.End, t.RenewalKind)
	}
	return r.unknown(fmt.Sprintf("ended on %s unless renewed (renewal not stated)", t.End.Value), t.End)
}

func (r roller) nextNotice(d time.Time) DerivedDate {
	t := r.t
	kind := t.RenewalKind.Value
	switch {
	case kind == "" || kind == RenewalNone:
		return r.unknown("no notice deadline: "+kindPhrase(kind, 0), t.RenewalKind)
	case !r.noticeOK:
		why := "the notice period is not known"
		if t.NoticePeriod.Value != "" {
			why = fmt.Sprintf("notice period %q is not a duration", t.NoticePeriod.Value)
		}
		return r.unknown(why, t.RenewalKind)
	}
	k := r.firstTermOnOrAfter(d, r.notice.before)
	if k >= 0 {
		if n, ok := r.noticeFor(k); ok {
			return n
		}
	}
	if n, ok := r.noticeFor(0); ok && kind != RenewalAutomatic {
		return r.unknown("the notice deadline passed on "+n.Date, n.From...)
	}
	if kind == RenewalAutomatic && !r.termOK {
		return r.unknown("the notice deadline for the initial term has passed and the renewal term is not known", t.End, t.RenewalKind, t.NoticePeriod)
	}
	return r.unknown("no further renewal to give notice for", t.End, t.RenewalKind, t.RenewalTerm)
}

func (r roller) nextRenewal(d time.Time) DerivedDate {
	t := r.t
	switch t.RenewalKind.Value {
	case RenewalAutomatic:
	case RenewalOption:
		return r.unknown("renews only if the option is exercised or the parties agree", t.RenewalKind)
	default:
		return r.unknown("no automatic renewal: "+kindPhrase(t.RenewalKind.Value, 0), t.RenewalKind)
	}
	k := r.firstTermOnOrAfter(d, identity)
	switch {
	case k < 0 && !r.termOK:
		return r.unknown(fmt.Sprintf("renewed on %s; the renewal term is not known", t.End.Value), t.End, t.RenewalKind)
	case k < 0 || !r.renews(k):
		return r.unknown("no further automatic renewal", t.RenewalKind, t.RenewalTerm)
	}
	e, how, from := r.termEnd(k)
	return DerivedDate{Date: e.Format(time.DateOnly), Term: k + 1,
		Derivation: fmt.Sprintf("renews automatically at the end of term %d, on %s", k, how), From: dedupe(append(from, facts(t.RenewalKind)...))}
}

// Deadlines lists the timeline's dated events from from to to (YYYY-MM-DD,
// inclusive), ordered by date and then by DeadlineKinds. Only dates the
// inputs determine are listed: nothing past the first term when an
// automatic renewal's term is unknown, no notice deadline without a notice
// period.
func (t Timeline) Deadlines(from, to string) ([]Deadline, error) {
	ds, err := t.DeadlineDates(from, to)
	if err != nil {
		return nil, err
	}
	out := make([]Deadline, len(ds))
	for i, d := range ds {
		out[i] = t.Describe(d)
	}
	return out, nil
}

// DatedDeadline is a deadline's kind, date and term of the timeline, not
// yet described: what a search over many timelines sorts and counts
// before it describes the few it returns (Timeline.Describe).
type DatedDeadline struct {
	Kind string
	Date time.Time
	k    int // the term whose end it belongs to
}

// DeadlineDates is Deadlines without the derivations.
func (t Timeline) DeadlineDates(from, to string) ([]DatedDeadline, error) {
	lo, err := time.Parse(time.DateOnly, from)
	if err != nil {
		return nil, fmt.Errorf("from: %w %q: want YYYY-MM-DD", ErrInvalidDate, from)
	}
	hi, err := time.Parse(time.DateOnly, to)
	if err != nil {
		return nil, fmt.Errorf("to: %w %q: want YYYY-MM-DD", ErrInvalidDate, to)
	}
	r := newRoller(t)
	if !r.endOK {
		return nil, nil
	}
	var out []DatedDeadline
	in := func(d time.Time) bool { return !d.Before(lo) && !d.After(hi) }
	kind := t.RenewalKind.Value
	start := 0
	if kind == RenewalAutomatic && r.termOK {
		// Begin at the first term that ends in range or later: every
		// event of an earlier term is on or before its end.
		if k := r.firstTermOnOrAfter(lo, identity); k > 0 {
			start = k
		} else if k < 0 {
			start = r.lastTerm()
		}
	}
	for k := start; k <= r.lastTerm(); k++ {
		e := r.endOf(k)
		if n, ok := r.noticeDate(k); ok {
			if in(n) {
				out = append(out, DatedDeadline{Kind: DeadlineNotice, Date: n, k: k})
			}
			if n.After(hi) {
				break
			}
		} else if e.After(hi) {
			break
		}
		if !in(e) {
			continue
		}
		switch {
		case r.renews(k):
			out = append(out, DatedDeadline{Kind: DeadlineRenewal, Date: e, k: k})
		case kind != RenewalEvergreen:
			out = append(out, DatedDeadline{Kind: DeadlineExpiration, Date: e, k: k})
		}
	}
	rank := func(kind string) int { return slices.Index(DeadlineKinds, kind) }
	slices.SortStableFunc(out, func(a, b DatedDeadline) int {
		if c := a.Date.Compare(b.Date); c != 0 {
			return c
		}
		if c := rank(a.Kind) - rank(b.Kind); c != 0 {
			return c
		}
		return a.k - b.k
	})
	return out, nil
}

// Describe is d with its derivation and inputs; d comes from this
// timeline's DeadlineDates.
func (t Timeline) Describe(d DatedDeadline) Deadline {
	r := newRoller(t)
	k := d.k
	switch d.Kind {
	case DeadlineNotice:
		n, _ := r.noticeFor(k)
		return Deadline{Kind: d.Kind, DerivedDate: n}
	case DeadlineRenewal:
		_, how, from := r.termEnd(k)
		return Deadline{Kind: d.Kind, DerivedDate: DerivedDate{
			Date: d.Date.Format(time.DateOnly), Term: k + 1,
			Derivation: fmt.Sprintf("renews automatically for term %d unless notice was given: term end %s", k+1, how),
			From:       dedupe(append(from, facts(t.RenewalKind, t.RenewalTerm)...)),
		}}
	}
	_, how, from := r.termEnd(k)
	return Deadline{Kind: d.Kind, DerivedDate: DerivedDate{
		Date: d.Date.Format(time.DateOnly), Term: k,
		Derivation: fmt.Sprintf("the term ends on %s; %s", how, kindPhrase(t.RenewalKind.Value, t.RenewalCount)),
		From:       dedupe(append(from, facts(t.RenewalKind)...)),
	}}
}

// Bounds is the first and last date Deadlines can ever list; last is ""
// when they go on without end (an automatic renewal with no limit), and
// both are "" when the timeline has no dated event. Backends store them so
// that a date-range query reads only the timelines that can reach it.
func (t Timeline) Bounds() (first, last string) {
	r := newRoller(t)
	if !r.endOK {
		return "", ""
	}
	if r.lastTerm() == maxTerms {
		first = t.End.Value
		if n, ok := r.noticeFor(0); ok && n.Date < first {
			first = n.Date
		}
		return first, ""
	}
	ds, _ := t.DeadlineDates("0001-01-01", "9999-12-31")
	if len(ds) == 0 {
		return "", ""
	}
	return ds[0].Date.Format(time.DateOnly), ds[len(ds)-1].Date.Format(time.DateOnly)
}
