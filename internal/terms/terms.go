// Package terms reads the key terms a clause states: money amounts,
// periods, notice periods, liability caps and percentages, each with where
// it is written. The playbook check compares them with the positions a
// legal team requires, and clause comparison lines them up across
// contracts. It uses the standard library and the contract package's
// readers of periods and number words only, and does no I/O.
//
// What Extract reads:
//
//   - Amount: a figure with a currency sign or code before it ("$1,000",
//     "US$ 2.5 million", "EUR 500", "£10k") or a currency after it
//     ("100,000 USD", "500 dollars"), or number words with a currency
//     ("One Million Dollars ($1,000,000)": the figure in parentheses wins).
//     Value is the amount; Currency is the ISO 4217 code the text gives
//     ("$" alone is USD); Unit is the currency too.
//   - Duration: a period ("thirty (30) days", "one-year", "six months"),
//     read by contract.Periods. Value is days (a year 365, a month 30),
//     Unit "days". Recurrences written without a number ("annually") are
//     left out.
//   - Notice: a period the words around it give as notice ("sixty (60)
//     days prior written notice"); it is reported as Notice instead of as
//     Duration, never as both.
//   - Percent: "15%", "10 percent", "fifty per cent (50%)". Value is the
//     percentage (15 for 15%), Unit "percent".
//   - Cap: in a sentence about liability that limits it ("shall not
//     exceed", "limited to", "in excess of", "aggregate", "maximum"), an
//     amount (Unit "amount", Currency set, overlapping the Amount term it
//     restates), a multiple of the fees ("two times the fees", "twice the
//     amounts paid", "100% of the fees": Unit "x_fees", Value the
//     multiple; "the fees paid hereunder": 1) or the fees of a period
//     ("fees paid in the twelve (12) months preceding the claim": Unit
//     "months_fees", Value the months).
//
// Terms are in text order (by Start, then End); Start and End are byte
// offsets into the text, Text is text[Start:End].
package terms

import (
	"cmp"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/contractgraph/contractgraph/internal/contract"
	"github.com/contractgraph/contractgraph/internal/textnum"
)

// Kind is what a term states.
type Kind string

// The kinds of term Extract reads.
const (
	Amount   Kind = "amount"
	Duration Kind = "duration"
	Notice   Kind = "notice"
	Cap      Kind = "cap"
	Percent  Kind = "percent"
)

// Units of the terms that are not money.
const (
	UnitDays       = "days"
	UnitPercent    = "percent"
	UnitAmount     = "amount"      // a cap stated as an amount of money
	UnitFees       = "x_fees"      // a cap stated as a multiple of the fees
	UnitMonthsFees = "months_fees" // a cap stated as the fees of so many months
)

// Term is one key term of a clause: text[Start:End] is Text.
type Term struct {
	Kind     Kind    `json:"kind"`
	Value    float64 `json:"value"`
	Unit     string  `json:"unit"`
	Currency string  `json:"currency,omitempty"`
	Text     string  `json:"text"`
	Start    int     `json:"start"`
	End      int     `json:"end"`
}

// maxText bounds what Extract reads: a clause or a contract, not a
// whole book.
const maxText = 1 << 20

// Extract lists the key terms text states, as the package documentation
// describes. Text longer than 1 MiB is read up to that length.
func Extract(text string) []Term {
	if len(text) > maxText {
		text = text[:maxText]
	}
	var out []Term
	out = append(out, amounts(text)...)
	out = append(out, percents(text)...)
	out = append(out, periods(text)...)
	capped, lookbacks := caps(text, out)
	for i := range out {
		if out[i].Kind == Notice && lookbacks[out[i].Start] {
			out[i].Kind = Duration
		}
	}
	out = append(out, capped...)
	slices.SortStableFunc(out, func(a, b Term) int {
		return cmp.Or(cmp.Compare(a.Start, b.Start), cmp.Compare(a.End, b.End), cmp.Compare(a.Kind, b.Kind))
	})
	return out
}

const (
	figure = `(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?`
	words  = `(?:(?:` + contract.NumberWordPattern + `)(?:(?:\s+and\s+|[\s-]+)(?:` + contract.NumberWordPattern + `))*)`
	scale  = `(?:\s*(million|billion|thousand|mm|mn|bn|m|k)\b)?`
)

var (
	// prefixMoneyRe: group 1 the currency, 2 the figure, 3 the scale.
	prefixMoneyRe = regexp.MustCompile(`(?i)(U\.?S\.?\s?\$|C\$|CA\$|A\$|AU\$|HK\$|S\$|NZ\$|\$|€|£|¥|\b(?:USD|EUR|GBP|JPY|CHF|CAD|AUD|CNY|RMB|INR|SEK|NOK|DKK|HKD|SGD|NZD)\b)\s?(` + figure + `)` + scale)
	// suffixMoneyRe: group 1 the figure, 2 the scale, 3 the currency.
	suffixMoneyRe = regexp.MustCompile(`(?i)\b(` + figure + `)(?:\s*(million|billion|thousand)\b)?\s*(USD|EUR|GBP|JPY|CHF|CAD|AUD|CNY|RMB|INR|SEK|NOK|DKK|HKD|SGD|NZD|(?:U\.?S\.?\s+|United\s+States\s+|Canadian\s+|Australian\s+)?dollars?|euros?|pounds?\s+sterling|yen)\b`)
	// wordMoneyRe: group 1 the words, 2 the scale, 3 the currency.
	wordMoneyRe = regexp.MustCompile(`(?i)\b(` + words + `)(?:\s+(million|billion|thousand))?\s+((?:U\.?S\.?\s+|United\s+States\s+)?dollars?|euros?|pounds?\s+sterling)\b`)
	// parenRe is a figure in parentheses right after words.
	parenRe = regexp.MustCompile(`^\s*\(\s*([^()]{1,40}?)\s*\)`)
)

var currencyCodes = map[string]string{
	"$": "USD", "us$": "USD", "u.s.$": "USD", "u.s. $": "USD", "us $": "USD", "c$": "CAD", "ca$": "CAD",
	"a$": "AUD", "au$": "AUD", "hk$": "HKD", "s$": "SGD", "nz$": "NZD", "€": "EUR", "£": "GBP", "¥": "JPY",
	"rmb": "CNY", "euro": "EUR", "euros": "EUR", "yen": "JPY",
}

// currencyOf maps a currency as written to its ISO 4217 code.
func currencyOf(s string) string {
	k := strings.ToLower(strings.Join(strings.Fields(s), " "))
	if c, ok := currencyCodes[k]; ok {
		return c
	}
	switch {
	case strings.Contains(k, "canadian"):
		return "CAD"
	case strings.Contains(k, "australian"):
		return "AUD"
	case strings.HasSuffix(k, "dollar"), strings.HasSuffix(k, "dollars"):
		return "USD"
	case strings.Contains(k, "sterling"):
		return "GBP"
	case len(k) == 3:
		return strings.ToUpper(k)
	}
	return ""
}

func scaleOf(s string) float64 {
	switch strings.ToLower(s) {
	case "thousand", "k":
		return 1e3
	case "million", "mm", "mn", "m":
		return 1e6
	case "billion", "bn":
		return 1e9
	}
	return 1
}

func figureValue(s string) (float64, bool) {
	v, _, ok := textnum.Parse(s)
	return v, ok && !math.IsInf(v, 0) && !math.IsNaN(v)
}

func group(s string, m []int, i int) string {
	if m[2*i] < 0 {
		return ""
	}
	return s[m[2*i]:m[2*i+1]]
}

func term(text string, k Kind, v float64, unit, currency string, start, end int) Term {
	return Term{Kind: k, Value: v, Unit: unit, Currency: currency, Text: text[start:end], Start: start, End: end}
}

// merge adds to kept (sorted by Start, no two overlapping) the candidates
// (sorted by Start, no two overlapping) that overlap none of kept, and
// returns the result sorted by Start. It is linear, so that a long text
// with many terms costs no more than its matches.
func merge(kept, cand []Term) []Term {
	out := make([]Term, 0, len(kept)+len(cand))
	j := 0
	for _, c := range cand {
		for j < len(kept) && kept[j].End <= c.Start {
			j++
		}
		if j < len(kept) && kept[j].Start < c.End {
			continue
		}
		out = append(out, c)
	}
	out = append(out, kept...)
	slices.SortFunc(out, func(a, b Term) int { return cmp.Compare(a.Start, b.Start) })
	return out
}

// windowMatches runs re, whose matches end in one of the lower-case
// keywords, only around the keywords' occurrences: number-word patterns
// are costly to try at every offset of a long text. before and after
// bound how far a match reaches around its keyword.
func windowMatches(re *regexp.Regexp, text string, keywords []string, before, after int) [][]int {
	lower := strings.ToLower(text) // ASCII keywords: offsets agree for them
	if len(lower) != len(text) {
		return re.FindAllStringSubmatchIndex(text, -1)
	}
	var out [][]int
	next := 0 // matches start at or after it, so that none repeats
	var hits []int
	for _, k := range keywords {
		for from := 0; ; {
			i := strings.Index(lower[from:], k)
			if i < 0 {
				break
			}
			hits = append(hits, from+i)
			from += i + len(k)
		}
	}
	slices.Sort(hits)
	for _, h := range hits {
		lo, hi := max(next, h-before), min(len(text), h+after)
		for lo > next && lo > 0 && isLetterByte(text[lo-1]) {
			lo--
		}
		if lo >= hi {
			continue
		}
		for _, m := range re.FindAllStringSubmatchIndex(text[lo:hi], -1) {
			for i := range m {
				if m[i] >= 0 {
					m[i] += lo
				}
			}
			if m[0] < next {
				continue
			}
			out = append(out, m)
			next = m[1]
		}
	}
	return out
}

func isLetterByte(b byte) bool { return 'a' <= b && b <= 'z' || 'A' <= b && b <= 'Z' }

// amounts lists the money amounts: number words first (they take the
// figure in parentheses after them), then figures with a currency before
// or after them.
func amounts(text string) []Term {
	var words []Term
	for _, m := range windowMatches(wordMoneyRe, text, []string{"dollar", "euro", "sterling"}, 200, 40) {
		n, ok := contract.NumberWords(group(text, m, 1))
		if !ok {
			continue
		}
		cur := currencyOf(group(text, m, 3))
		v, end := float64(n)*scaleOf(group(text, m, 2)), m[1]
		if p := parenRe.FindStringSubmatchIndex(text[end:]); p != nil {
			inner := text[end+p[2] : end+p[3]]
			if pm := prefixMoneyRe.FindStringSubmatch(inner); pm != nil && pm[0] == inner {
				if pv, ok := figureValue(pm[2]); ok {
					v, end = pv*scaleOf(pm[3]), end+p[1]
					if c := currencyOf(pm[1]); c != "" {
						cur = c
					}
				}
			} else if pv, ok := figureValue(inner); ok {
				v, end = pv, end+p[1]
			}
		}
		if len(words) > 0 && words[len(words)-1].End > m[0] {
			continue
		}
		words = append(words, term(text, Amount, v, cur, cur, m[0], end))
	}
	var prefixed []Term
	for _, m := range prefixMoneyRe.FindAllStringSubmatchIndex(text, -1) {
		v, ok := figureValue(group(text, m, 2))
		if !ok {
			continue
		}
		cur := currencyOf(group(text, m, 1))
		prefixed = append(prefixed, term(text, Amount, v*scaleOf(group(text, m, 3)), cur, cur, m[0], m[1]))
	}
	var suffixed []Term
	for _, m := range suffixMoneyRe.FindAllStringSubmatchIndex(text, -1) {
		v, ok := figureValue(group(text, m, 1))
		if !ok {
			continue
		}
		cur := currencyOf(group(text, m, 3))
		suffixed = append(suffixed, term(text, Amount, v*scaleOf(group(text, m, 2)), cur, cur, m[0], m[1]))
	}
	return merge(merge(words, prefixed), suffixed)
}

var (
	percentRe     = regexp.MustCompile(`(?i)(` + figure + `)\s*(?:%|percent\b|per\s+cent\b)`)
	wordPercentRe = regexp.MustCompile(`(?i)\b(` + words + `)\s+(?:percent|per\s+cent)\b(?:\s*\(\s*(` + figure + `)\s*%\s*\))?`)
)

// percents lists the percentages, number words first.
func percents(text string) []Term {
	var words []Term
	for _, m := range windowMatches(wordPercentRe, text, []string{"percent", "per cent"}, 200, 60) {
		n, ok := contract.NumberWords(group(text, m, 1))
		if !ok {
			continue
		}
		v := float64(n)
		if g := group(text, m, 2); g != "" {
			if pv, ok := figureValue(g); ok {
				v = pv
			}
		}
		words = append(words, term(text, Percent, v, UnitPercent, "", m[0], m[1]))
	}
	var figures []Term
	for _, m := range percentRe.FindAllStringSubmatchIndex(text, -1) {
		if m[0] > 0 && isWordByte(text[m[0]-1]) {
			continue
		}
		v, ok := figureValue(group(text, m, 1))
		if !ok {
			continue
		}
		figures = append(figures, term(text, Percent, v, UnitPercent, "", m[0], m[1]))
	}
	return merge(words, figures)
}

func isWordByte(b byte) bool {
	return b == '.' || b == ',' || '0' <= b && b <= '9' || 'a' <= b && b <= 'z' || 'A' <= b && b <= 'Z'
}

// periods lists the periods, a notice period as Notice.
func periods(text string) []Term {
	var out []Term
	for _, p := range contract.Periods(text) {
		if p.Periodic {
			continue
		}
		k := Duration
		if p.Notice {
			k = Notice
		}
		out = append(out, term(text, k, float64(p.Days), UnitDays, "", p.Start, p.End))
	}
	return out
}

var (
	liabilityRe = regexp.MustCompile(`(?i)liabilit|liable`)
	limitRe     = regexp.MustCompile(`(?i)\bexceed|\blimited\s+to\b|\bin\s+excess\s+of\b|\bmore\s+than\b|\bcap\b|\bcapped\b|\bmaximum\b|\baggregate\b|\bgreater\s+of\b|\blesser\s+of\b|\bup\s+to\b`)
	feesWord    = `(?:fees|amounts?|charges|sums|price|consideration|compensation|payments|monies)`
	// multipleRe: group 1 a figure, 2 number words, 3 a figure with x,
	// else a word (twice, double, triple).
	multipleRe = regexp.MustCompile(`(?i)\b(?:(?:(\d+(?:\.\d+)?)|(` + words + `))\s*(?:\(\s*\d+(?:\.\d+)?\s*\)\s*)?(?:times|x)\b|(\d+(?:\.\d+)?)x|twice|double|triple)\s+(?:the\s+)?(?:(?:total|aggregate|annual|amount\s+of(?:\s+the)?|sum\s+of(?:\s+the)?|net)\s+)*` + feesWord + `\b`)
	// percentOfFeesRe follows a percentage.
	percentOfFeesRe = regexp.MustCompile(`(?i)^\s+of\s+(?:the\s+)?(?:(?:total|aggregate|annual|amount\s+of(?:\s+the)?|net)\s+)*` + feesWord + `\b`)
	// feesPaidRe: fees paid, then a period of them within the clause.
	feesPaidRe = regexp.MustCompile(`(?i)\b` + feesWord + `\b(?:\s+\w+){0,8}?\s+(?:actually\s+)?(?:paid|payable|received|invoiced)\b`)
	lookbackRe = regexp.MustCompile(`(?i)^[\s)'’s-]*(?:period\s+)?(?:immediately\s+)?(?:preceding|prior|previous|before)|^[\s)'’s-]*period\s+(?:immediately\s+)?(?:preceding|prior|before)`)
	lastRe     = regexp.MustCompile(`(?i)(?:preceding|prior|previous|last|past)\s+$`)
	// wholeFeesRe is a cap of the fees without a multiple or a period.
	wholeFeesRe = regexp.MustCompile(`(?i)\b(?:exceed|limited\s+to|in\s+excess\s+of|more\s+than|greater\s+of|lesser\s+of|up\s+to)\s+(?:the\s+)?(?:(?:total|aggregate|amount\s+of(?:\s+the)?|sum\s+of(?:\s+the)?)\s+)*` + feesWord + `\b(?:\s+\w+){0,6}?\s+(?:actually\s+)?(?:paid|payable|received)\b`)
)

// sentences splits text at a full stop, a semicolon or a blank line
// followed by white space; a full stop after a single letter ("U.S.") or
// a figure's point does not end a sentence.
func sentences(text string) [][2]int {
	var out [][2]int
	start := 0
	for i := 0; i < len(text)-1; i++ {
		c := text[i]
		next := text[i+1]
		isSpace := next == ' ' || next == '\n' || next == '\t' || next == '\r'
		end := false
		switch {
		case c == ';' && isSpace:
			end = true
		case c == '.' && isSpace:
			end = i < 2 || !(text[i-2] == '.' || text[i-2] == ' ' || text[i-2] == '(')
		case c == '\n' && next == '\n':
			end = true
		}
		if end {
			out = append(out, [2]int{start, i + 1})
			start = i + 1
		}
	}
	return append(out, [2]int{start, len(text)})
}

// caps lists the liability caps of the sentences that limit liability,
// given the amounts, percentages and periods already found. lookbacks
// holds the starts of the periods that measure the fees of a cap ("the
// twelve (12) months preceding the claim"): they read as notice to
// contract.Periods, but are not.
func caps(text string, found []Term) (out []Term, lookbacks map[int]bool) {
	lookbacks = map[int]bool{}
	found = slices.Clone(found)
	slices.SortFunc(found, func(a, b Term) int { return cmp.Compare(a.Start, b.Start) })
	for _, s := range sentences(text) {
		sent := text[s[0]:s[1]]
		if !liabilityRe.MatchString(sent) || !limitRe.MatchString(sent) {
			continue
		}
		lo, _ := slices.BinarySearchFunc(found, s[0], func(t Term, start int) int { return cmp.Compare(t.Start, start) })
		var inSentence []Term
		for _, t := range found[lo:] {
			if t.Start >= s[1] {
				break
			}
			if t.End <= s[1] {
				inSentence = append(inSentence, t)
			}
		}
		var here []Term
		for _, t := range inSentence {
			switch t.Kind {
			case Amount:
				here = append(here, term(text, Cap, t.Value, UnitAmount, t.Currency, t.Start, t.End))
			case Percent:
				if m := percentOfFeesRe.FindStringIndex(text[t.End:s[1]]); m != nil {
					here = append(here, term(text, Cap, t.Value/100, UnitFees, "", t.Start, t.End+m[1]))
				}
			}
		}
		var multiples []Term
		for _, m := range multipleRe.FindAllStringSubmatchIndex(sent, -1) {
			var v float64
			switch {
			case m[2] >= 0:
				v, _ = strconv.ParseFloat(group(sent, m, 1), 64)
			case m[4] >= 0:
				n, ok := contract.NumberWords(group(sent, m, 2))
				if !ok {
					continue
				}
				v = float64(n)
			case m[6] >= 0:
				v, _ = strconv.ParseFloat(group(sent, m, 3), 64)
			default:
				switch w := strings.ToLower(sent[m[0]:m[1]]); {
				case strings.HasPrefix(w, "twice"), strings.HasPrefix(w, "double"):
					v = 2
				default:
					v = 3
				}
			}
			if v > 0 && !math.IsInf(v, 0) {
				multiples = append(multiples, term(text, Cap, v, UnitFees, "", s[0]+m[0], s[0]+m[1]))
			}
		}
		here = merge(here, multiples)
		var periodCaps []Term
		lookbackOf := map[int]int{} // cap start → the start of its period
		for _, m := range feesPaidRe.FindAllStringIndex(sent, -1) {
			start, paid := s[0]+m[0], s[0]+m[1]
			if len(periodCaps) > 0 && periodCaps[len(periodCaps)-1].End > start {
				continue
			}
			from, _ := slices.BinarySearchFunc(inSentence, paid, func(t Term, at int) int { return cmp.Compare(t.Start, at) })
			for _, p := range inSentence[from:] {
				if p.Kind != Duration && p.Kind != Notice {
					continue
				}
				if p.Start-paid > 120 {
					break
				}
				after := text[p.End:s[1]]
				if !lastRe.MatchString(text[max(paid, p.Start-20):p.Start]) && !lookbackRe.MatchString(after) {
					continue
				}
				end := p.End
				if l := lookbackRe.FindStringIndex(after); l != nil {
					end += l[1]
				}
				if months := math.Round(p.Value / 30.4); months >= 1 {
					periodCaps = append(periodCaps, term(text, Cap, months, UnitMonthsFees, "", start, end))
					lookbackOf[start] = p.Start
				}
				break
			}
		}
		here = merge(here, periodCaps)
		var whole []Term
		for _, m := range wholeFeesRe.FindAllStringIndex(sent, -1) {
			whole = append(whole, term(text, Cap, 1, UnitFees, "", s[0]+m[0], s[0]+m[1]))
		}
		here = merge(here, whole)
		for _, t := range here {
			if p, ok := lookbackOf[t.Start]; ok && t.Unit == UnitMonthsFees {
				lookbacks[p] = true
			}
		}
		out = append(out, here...)
	}
	return out, lookbacks
}
