package contract

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// Renewal is what a renewal clause (or a short answer such as CUAD's
// "successive 1 year") says: the kind of renewal, the length of each
// renewal term (ISO 8601), how many renewals at most (0: no stated limit)
// and the notice that stops or exercises a renewal (ISO 8601). Empty
// fields are what the text does not say.
type Renewal struct {
	Kind   string `json:"kind,omitempty"`
	Term   string `json:"term,omitempty"`
	Count  int    `json:"count,omitempty"`
	Notice string `json:"notice,omitempty"`
}

// maxParsedDays bounds a parsed period: nothing in a contract's timeline is
// longer than 100 years.
const maxParsedDays = 36500

var numberWordValues = map[string]int{
	"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9,
	"ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14, "fifteen": 15, "sixteen": 16,
	"seventeen": 17, "eighteen": 18, "nineteen": 19, "twenty": 20, "thirty": 30, "forty": 40, "fourty": 40,
	"fifty": 50, "sixty": 60, "seventy": 70, "eighty": 80, "ninety": 90,
}

const numberWordAlt = `one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|fifteen|sixteen|seventeen|eighteen|nineteen|twenty|thirty|fourty|forty|fifty|sixty|seventy|eighty|ninety|hundred`

// durationRe finds "ninety (90) days", "one-year", "12 months'", "3~year",
// "60) days" (a cut-off answer), "six (6) calendar months". Group 1: digits;
// 2: number words; 3: digits in parentheses; 4: the unit.
var durationRe = regexp.MustCompile(`(?i)(?:\b(\d+(?:\.\d+)?)\)?|\b((?:(?:` + numberWordAlt + `)(?:\s+and\s+|[\s-]+))*(?:` + numberWordAlt + `)))\s*(?:\(\s*(\d+(?:\.\d+)?)\s*\)\s*)?[\s\-~]*(?:(?:calendar|business|consecutive|full|additional|successive|renewal)\s+)?(day|week|month|year)s?\b`)

// specialDurationRe finds periods written without a number.
var specialDurationRe = regexp.MustCompile(`(?i)\bhalf\s+a\s+year\b|\b(?:year[\s-]+to[\s-]+year|annual(?:ly)?|yearly|every\s+year)\b|\b(?:month[\s-]+to[\s-]+month|monthly)\b|\ba\s+(year|month|week)\b`)

// isoDurationRe finds an ISO 8601 duration written as such.
var isoDurationRe = regexp.MustCompile(`\bP(?:\d+Y)?(?:\d+M)?(?:\d+W)?(?:\d+D)?\b`)

// durationMatch is one period found in a text, at [start, end).
type durationMatch struct {
	start, end int
	iso        string
	periodic   bool // "year to year", "annually": a renewal term by its words
}

// wordsNumber reads "one hundred twenty", "forty-five", "twenty four".
func wordsNumber(s string) (int, bool) {
	total, cur := 0, 0
	for _, w := range strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return r == ' ' || r == '-' || r == '\t' || r == '\n' }) {
		switch {
		case w == "and":
		case w == "hundred":
			if cur == 0 {
				cur = 1
			}
			cur *= 100
		default:
			v, ok := numberWordValues[w]
			if !ok {
				return 0, false
			}
			cur += v
		}
	}
	total += cur
	return total, total > 0
}

// isoOf writes v units as an ISO 8601 duration, turning fractions into the
// next smaller unit ("0.5 year" is P6M).
func isoOf(v float64, unit string) (string, bool) {
	if v <= 0 {
		return "", false
	}
	whole := v == float64(int(v))
	var iso string
	days := 0.0
	switch unit {
	case "year":
		days = v * 365
		if whole {
			iso = fmt.Sprintf("P%dY", int(v))
		} else {
			iso = fmt.Sprintf("P%dM", int(v*12+0.5))
		}
	case "month":
		days = v * 30
		if whole {
			iso = fmt.Sprintf("P%dM", int(v))
		} else {
			iso = fmt.Sprintf("P%dD", int(v*30+0.5))
		}
	case "week":
		days = v * 7
		if whole {
			iso = fmt.Sprintf("P%dW", int(v))
		} else {
			iso = fmt.Sprintf("P%dD", int(v*7+0.5))
		}
	default:
		days = v
		iso = fmt.Sprintf("P%dD", int(v+0.5))
	}
	if days > maxParsedDays || iso == "P0D" || iso == "P0M" {
		return "", false
	}
	return iso, true
}

// durationsIn lists the periods written in s, in order.
func durationsIn(s string) []durationMatch {
	var out []durationMatch
	for _, m := range durationRe.FindAllStringSubmatchIndex(s, -1) {
		group := func(i int) string {
			if m[2*i] < 0 {
				return ""
			}
			return s[m[2*i]:m[2*i+1]]
		}
		unit := strings.ToLower(group(4))
		var v float64
		var ok bool
		switch {
		case group(3) != "":
			v, _ = strconv.ParseFloat(group(3), 64)
			ok = true
		case group(1) != "":
			v, _ = strconv.ParseFloat(group(1), 64)
			ok = true
		default:
			var n int
			n, ok = wordsNumber(group(2))
			v = float64(n)
		}
		if !ok {
			continue
		}
		if iso, ok := isoOf(v, unit); ok {
			out = append(out, durationMatch{start: m[0], end: m[1], iso: iso})
		}
	}
	for _, m := range specialDurationRe.FindAllStringSubmatchIndex(s, -1) {
		t := strings.ToLower(s[m[0]:m[1]])
		iso := "P1Y"
		switch {
		case strings.HasPrefix(t, "half"):
			iso = "P6M"
		case strings.Contains(t, "month"):
			iso = "P1M"
		case strings.Contains(t, "week"):
			iso = "P1W"
		}
		if overlaps(out, m[0], m[1]) {
			continue
		}
		out = append(out, durationMatch{start: m[0], end: m[1], iso: iso, periodic: !strings.HasPrefix(t, "a ")})
	}
	for _, m := range isoDurationRe.FindAllStringIndex(s, -1) {
		if m[1]-m[0] < 3 || overlaps(out, m[0], m[1]) {
			continue
		}
		if d, err := ParseISODuration(s[m[0]:m[1]]); err == nil && d > 0 && d <= maxParsedDays {
			out = append(out, durationMatch{start: m[0], end: m[1], iso: s[m[0]:m[1]]})
		}
	}
	// Keep text order.
	for i := 1; i < len(out); i++ {
		for j := i; j > 0 && out[j].start < out[j-1].start; j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return out
}

func overlaps(ms []durationMatch, start, end int) bool {
	for _, m := range ms {
		if start < m.end && m.start < end {
			return true
		}
	}
	return false
}

// ParseDuration reads the first period in s — an ISO 8601 duration
// ("P90D"), or prose: "ninety (90) days", "successive one-year terms",
// "12 months'", "half a year", "year to year" — as an ISO 8601 duration.
// The number in parentheses wins over the words before it. ok is false
// when s holds no period of at most 100 years.
func ParseDuration(s string) (iso string, ok bool) {
	ms := durationsIn(s)
	if len(ms) == 0 {
		return "", false
	}
	return ms[0].iso, true
}

// window returns up to n bytes of s before start and after end, lower-cased.
func window(s string, start, end, before, after int) (string, string) {
	b := strings.ToLower(s[max(0, start-before):start])
	a := strings.ToLower(s[end:min(len(s), end+after)])
	return b, a
}

var (
	noticeAfterRe  = regexp.MustCompile(`^[’'s)\s]*(?:\(.*?\)\s*)?(?:of\s+)?(?:prior|before|in\s+advance|advance|written|notice|notification|preceding|ahead|after\s+(?:receipt|written|notice))`)
	noticeBeforeRe = regexp.MustCompile(`(?:notice|notif\w*|notify\w*|advise|inform|request)\b[^.;]{0,80}$|(?:at\s+least|not\s+less\s+than|no\s+less\s+than|no\s+later\s+than|not\s+later\s+than|minimum\s+of|upon|with|giving|providing|provides?)\s+(?:an?\s+|the\s+)?$`)
	termAfterRe    = regexp.MustCompile(`^[’'s)\s-]*(?:\(.*?\)\s*)?(?:terms?|periods?|increments?|renewals?|extensions?|basis|intervals?|cycles?|durations?|each)\b`)
	termBeforeRe   = regexp.MustCompile(`(?:successive|additional|further|subsequent|consecutive|renew(?:al|ed|s)?|extend(?:ed|s)?|extension|continue|period\s+of|periods\s+of|terms?\s+of|each|every)\s+(?:(?:for|of|by|an?|one|the|such|additional|successive|renewal|terms?|periods?)\s+){0,3}$`)
)

// noticeScore is how much the context around a period says it is a notice
// period: positive for "ninety (90) days prior written notice", negative
// for "successive one (1) year terms".
func noticeScore(s string, m durationMatch) int {
	before, after := window(s, m.start, m.end, 100, 60)
	score := 0
	if noticeAfterRe.MatchString(after) {
		score += 2
	}
	if noticeBeforeRe.MatchString(before) {
		score++
	}
	if termAfterRe.MatchString(after) {
		score -= 3
	}
	return score
}

// termScore is how much the context says a period is a renewal term.
func termScore(s string, m durationMatch) int {
	before, after := window(s, m.start, m.end, 60, 40)
	score := 0
	if m.periodic {
		score += 2
	}
	if termAfterRe.MatchString(after) {
		score += 2
	}
	if termBeforeRe.MatchString(before) {
		score++
	}
	if noticeAfterRe.MatchString(after) {
		score -= 3
	}
	return score
}

// shortAnswer is the length under which a text is an answer ("90 days",
// "successive 1 year") rather than a clause, and its one period is the
// value asked for.
const shortAnswer = 40

// ParseNoticePeriod reads the notice period a text states: the period
// given as notice ("ninety (90) days prior written notice", "at least 3
// months before the end of the then-current term", "upon sixty (60) days'
// notice"), not the renewal term beside it; a short answer such as "90
// days" or "180 days / 6 months" is its first period. ok is false when no
// period reads as notice.
func ParseNoticePeriod(s string) (iso string, ok bool) {
	ms := durationsIn(s)
	if len(ms) == 0 {
		return "", false
	}
	if len(strings.TrimSpace(s)) <= shortAnswer {
		return ms[0].iso, true
	}
	best, bestScore := -1, 0
	for i, m := range ms {
		if sc := noticeScore(s, m); sc > bestScore {
			best, bestScore = i, sc
		}
	}
	if best < 0 {
		return "", false
	}
	return ms[best].iso, true
}

var (
	// evergreenStrongRe outweighs an automatic renewal: "an automatic
	// renewal for an indefinite period" has no term to roll.
	evergreenStrongRe = regexp.MustCompile(`(?i)\bindefinite(?:ly)?\b|\bperpetu|\bin\s+perpetuity\b|\bevergreen\b`)
	evergreenRe       = regexp.MustCompile(`(?i)\bperpetu|\bindefinite|\bevergreen\b|\buntil\s+(?:it\s+is\s+|so\s+|otherwise\s+)?terminated\b|\buntil\s+(?:either|one|a|any)\s+party\s+terminates\b|\bin\s+perpetuity\b`)
	autoStrongRe      = regexp.MustCompile(`(?i)\bautomatic|\bauto-?renew|\btacit|\bself-renewing\b|\bunless\b[^.]{0,200}\b(?:notice|notif|notifies|elects?\s+not|intention\s+not)|\bif\s+(?:neither|no)\b[^.]{0,80}\bnotice\b|\bfails?\s+to\s+notify\b|\bdoes\s+not\s+give\s+such\s+notice\b|\byear[\s-]to[\s-]year\b|\bmonth[\s-]to[\s-]month\b|\bshall\s+continue\s+(?:thereafter\s+)?(?:in\s+effect\s+)?(?:for|from)\s+(?:successive|additional|consecutive)`)
	optionRe          = regexp.MustCompile(`(?i)\boptions?\b|\boptional\b|\bmay\b[^.;]{0,150}?\b(?:renew|extend)|\bright\s+to\s+(?:renew|extend)|\bmutual|\bupon\s+(?:the\s+)?(?:written\s+)?agreement\b|\bif\s+(?:both\s+)?(?:the\s+)?parties\s+(?:so\s+)?agree|\bmay\s+agree\b|\bprovid(?:ed|ing)\b[^.]{0,60}\bagree\b|\bwritten\s+consent\b|\bat\s+the\s+election\b|\bat\s+(?:its|their|\w+['’]s?)\s+(?:sole\s+)?(?:option|discretion|election)|\bnegotiat|\bby\s+written\s+notice\s+given\s+by\b|\belects?\s+to\s+(?:renew|extend)`)
	autoWeakRe        = regexp.MustCompile(`(?i)\b(?:shall|will)\s+(?:be\s+)?(?:renew|extend)|\brenew(?:s|ed)?\s+for\b|\bshall\s+continue\b|\bthereafter\b`)
	noRenewalRe       = regexp.MustCompile(`(?i)\b(?:shall|will)\s+not\s+(?:be\s+)?(?:renew|extend)|\bno\s+renewal\b|\bnot\s+(?:be\s+)?renewable\b|\bnon-renewable\b`)
	countRe           = regexp.MustCompile(`(?i)\b(?:up\s+to\s+|a\s+maximum\s+of\s+|no\s+more\s+than\s+|not\s+more\s+than\s+)?(\d+|` + numberWordAlt + `)\s*(?:\(\s*(\d+)\s*\)\s*)?(?:additional|successive|consecutive|further|renewal|extension)\b`)
	countTimesRe      = regexp.MustCompile(`(?i)\b(?:renew(?:ed)?|extend(?:ed)?)\b[^.]{0,40}?\b(once|twice|(\d+|` + numberWordAlt + `)\s*(?:\(\s*\d+\s*\)\s*)?times)\b`)
	unitPrefixRe      = regexp.MustCompile(`^(?:calendar\s+|business\s+)?(?:day|week|month|year)s?\b`)
	answerSumRe       = regexp.MustCompile(`(?i)^\s*\d+\s*years?\s*(?:,|and)\s*\d+\s*months?\s*$`)
	answerCountRe     = regexp.MustCompile(`^\s*(\d+)\s+(?:successive\s+)?\d+(?:\.\d+)?\s*(?:day|week|month|year)`)
)

// ParseRenewalKind maps a renewal kind as a person or a model writes it
// ("automatic", "auto-renewal", "evergreen", "perpetual", "by option",
// "mutual agreement", "none", or a whole clause) to one of RenewalKinds.
func ParseRenewalKind(s string) (string, bool) {
	t := strings.ToLower(strings.Join(strings.Fields(s), " "))
	switch t {
	case "":
		return "", false
	case RenewalNone, "no", "no renewal", "not renewable", "non-renewable", "fixed term", "fixed":
		return RenewalNone, true
	case RenewalAutomatic, "auto", "auto-renewal", "auto renewal", "automatic renewal", "automatically":
		return RenewalAutomatic, true
	case RenewalOption, "optional", "by option", "mutual", "mutual agreement", "by agreement", "by mutual agreement", "manual":
		return RenewalOption, true
	case RenewalEvergreen, "perpetual", "indefinite", "until terminated":
		return RenewalEvergreen, true
	}
	if k := renewalKindOf(t, ""); k != "" {
		return k, true
	}
	return "", false
}

// renewalKindOf reads the kind from clause text; term is the renewal term
// found in it, which tells "renews for successive terms until terminated"
// (automatic) from "continues until terminated" (evergreen).
func renewalKindOf(text, term string) string {
	switch {
	case noRenewalRe.MatchString(text) && !autoStrongRe.MatchString(text):
		return RenewalNone
	case evergreenStrongRe.MatchString(text) && !optionRe.MatchString(text):
		return RenewalEvergreen
	case evergreenRe.MatchString(text) && term == "":
		return RenewalEvergreen
	case autoStrongRe.MatchString(text):
		return RenewalAutomatic
	case optionRe.MatchString(text):
		return RenewalOption
	case autoWeakRe.MatchString(text):
		return RenewalAutomatic
	case evergreenRe.MatchString(text):
		return RenewalEvergreen
	}
	return ""
}

// ParseRenewal reads a renewal clause or answer: "shall automatically
// renew for successive one (1) year periods unless either party gives
// notice at least ninety (90) days before the end of the then-current
// term" is automatic, P1Y, notice P90D; "successive 1 year" is a term
// P1Y (the kind is not stated); "3 successive 1 year" limits the renewals
// to 3; "At Licensee's option, for a subsequent term of two (2) years" is
// by option; "perpetual" is evergreen.
func ParseRenewal(text string) Renewal {
	var r Renewal
	s := strings.Join(strings.Fields(text), " ")
	if s == "" {
		return r
	}
	ms := durationsIn(s)
	short := len(s) <= shortAnswer
	// The renewal term: the period that reads most like one.
	best, bestScore := -1, 0
	for i, m := range ms {
		sc := termScore(s, m)
		if short {
			sc++ // an answer's periods are renewal terms
		}
		if sc > bestScore {
			best, bestScore = i, sc
		}
	}
	if best < 0 && len(ms) > 0 && !strings.Contains(strings.ToLower(s), "notice") {
		best = 0
	}
	if best >= 0 {
		r.Term = ms[best].iso
	}
	if short {
		if m := answerCountRe.FindStringSubmatch(s); m != nil {
			r.Count, _ = strconv.Atoi(m[1])
		}
		if answerSumRe.MatchString(s) && len(ms) == 2 {
			// "4 years, 6 months" is one term.
			y, _ := parseISO(ms[0].iso)
			mo, _ := parseISO(ms[1].iso)
			r.Term = fmt.Sprintf("P%dM", y.years*12+mo.months)
		}
		if k, ok := ParseRenewalKind(s); ok {
			if k == RenewalEvergreen {
				r.Term = ""
			}
			r.Kind = k
		}
	} else {
		r.Kind = renewalKindOf(s, r.Term)
		if n, ok := ParseNoticePeriod(s); ok {
			r.Notice = n
		}
	}
	if r.Count == 0 {
		r.Count = renewalCount(s)
	}
	return r
}

// renewalCount reads a limit on the number of renewals: "for one (1)
// additional three (3) year period", "up to three (3) additional periods",
// "4 successive", "may be renewed twice". 0 when none is stated.
func renewalCount(s string) int {
	num := func(digits, words string) int {
		if digits != "" {
			n, _ := strconv.Atoi(digits)
			return n
		}
		n, _ := wordsNumber(words)
		return n
	}
	for _, idx := range countRe.FindAllStringSubmatchIndex(s, -1) {
		// "thirty (30) consecutive days" is a length, not a count: the
		// word after the match must not be a unit.
		rest := strings.ToLower(strings.TrimLeft(s[idx[1]:], " -"))
		if unitPrefixRe.MatchString(rest) {
			continue
		}
		m := make([]string, 3)
		for i := range m {
			if idx[2*i] >= 0 {
				m[i] = s[idx[2*i]:idx[2*i+1]]
			}
		}
		digits, words := m[2], ""
		if digits == "" {
			if _, err := strconv.Atoi(m[1]); err == nil {
				digits = m[1]
			} else {
				words = m[1]
			}
		}
		if n := num(digits, words); n > 0 && n <= 50 {
			return n
		}
	}
	if m := countTimesRe.FindStringSubmatch(s); m != nil {
		switch strings.ToLower(m[1]) {
		case "once":
			return 1
		case "twice":
			return 2
		}
		if n := num("", m[2]); n > 0 && n <= 50 {
			return n
		}
		if n, err := strconv.Atoi(m[2]); err == nil && n > 0 && n <= 50 {
			return n
		}
	}
	return 0
}
