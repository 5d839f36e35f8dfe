package contract

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode"
)

// CleanPartyName tidies a name as written: surrounding whitespace and quotes
// are removed and inner runs of whitespace become one space. Case and
// punctuation are kept, so the result is still fit for display.
func CleanPartyName(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	for len(s) >= 2 {
		r0, n0 := firstRune(s)
		r1, n1 := lastRune(s)
		if !isQuote(r0) || !isQuote(r1) {
			break
		}
		s = strings.Join(strings.Fields(s[n0:len(s)-n1]), " ")
	}
	return s
}

func isQuote(r rune) bool {
	switch r {
	case '"', '\'', '“', '”', '‘', '’', '«', '»', '`':
		return true
	}
	return false
}

func firstRune(s string) (rune, int) {
	for _, r := range s {
		return r, len(string(r))
	}
	return 0, 0
}

func lastRune(s string) (rune, int) {
	rs := []rune(s)
	if len(rs) == 0 {
		return 0, 0
	}
	r := rs[len(rs)-1]
	return r, len(string(r))
}

// MatchKey is the key the `parties` filter compares by containment: the
// string lower-cased, with every character that is neither a letter, a digit
// nor a space deleted (not replaced: "C.M. Oliver" becomes "cm oliver") and
// whitespace collapsed. Corporate suffixes are kept.
func MatchKey(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	space := false
	for _, r := range s {
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			if space && b.Len() > 0 {
				b.WriteByte(' ')
			}
			space = false
			b.WriteString(strings.ToLower(string(r)))
		case unicode.IsSpace(r):
			space = true
		}
	}
	return b.String()
}

// corporateSuffixes are the trailing words (after MatchKey) that name a legal
// form rather than the entity. Multi-word forms are listed as word sequences.
var corporateSuffixes = [][]string{
	{"inc"}, {"incorporated"}, {"corp"}, {"corporation"}, {"co"}, {"company"},
	{"ltd"}, {"limited"}, {"llc"}, {"plc"}, {"lp"}, {"llp"}, {"lllp"}, {"pllc"},
	{"gmbh"}, {"ag"}, {"sa"}, {"nv"}, {"bv"}, {"pty"}, {"srl"}, {"spa"}, {"kk"},
	{"oy"}, {"oyj"}, {"ab"}, {"as"}, {"asa"}, {"aps"}, {"se"}, {"sas"}, {"sarl"},
	{"sl"}, {"sau"}, {"ltda"}, {"bhd"}, {"sdn"}, {"pte"}, {"pvt"}, {"private"},
	{"kg"}, {"kgaa"}, {"mbh"}, {"cv"}, {"de", "cv"}, {"sa", "de", "cv"},
	{"l", "p"}, {"l", "l", "c"}, {"s", "a"}, {"n", "v"}, {"b", "v"},
	{"public", "limited", "company"}, {"limited", "partnership"},
	{"limited", "liability", "company"}, {"gmbh", "co", "kg"}, {"gmbh", "and", "co", "kg"},
	{"and", "co"}, {"and", "company"},
}

var partySeparators = strings.NewReplacer(",", " ", "&", " and ", "/", " ", "+", " ")

// PartyKey is the normalised key under which party names are matched and
// merged: MatchKey with commas read as spaces, "&" read as "and", accents
// folded ("Société" matches "Societe"), a leading
// "the" and trailing corporate suffixes (Inc, Corp., Co., Ltd, LLC, L.P.,
// GmbH, S.A., ...) removed. It never returns "" for a name holding a letter
// or digit: when removing suffixes would leave nothing, the unsuffixed form
// is kept ("Limited" stays "limited").
func PartyKey(name string) string {
	name = partySeparators.Replace(name)
	words := strings.Fields(diacritics.Replace(MatchKey(name)))
	for {
		n := trimSuffixWords(words)
		if n == len(words) {
			break
		}
		words = words[:n]
	}
	for len(words) > 1 && words[0] == "the" {
		words = words[1:]
	}
	return strings.Join(words, " ")
}

// trimSuffixWords returns the length of words after removing the longest
// corporate suffix at its end, keeping at least one word.
func trimSuffixWords(words []string) int {
	best := len(words)
	for _, suf := range corporateSuffixes {
		if len(suf) >= len(words) {
			continue
		}
		tail := words[len(words)-len(suf):]
		match := true
		for i := range suf {
			if tail[i] != suf[i] {
				match = false
				break
			}
		}
		if match && len(words)-len(suf) < best {
			best = len(words) - len(suf)
		}
	}
	return best
}

// ErrInvalidDate is wrapped by every NormalizeDate error.
var ErrInvalidDate = errors.New("invalid date")

var monthNames = map[string]time.Month{
	"january": 1, "jan": 1, "february": 2, "feb": 2, "march": 3, "mar": 3,
	"april": 4, "apr": 4, "may": 5, "june": 6, "jun": 6, "july": 7, "jul": 7,
	"august": 8, "aug": 8, "september": 9, "sep": 9, "sept": 9, "october": 10,
	"oct": 10, "november": 11, "nov": 11, "december": 12, "dec": 12,
}

// dateNoise are words that surround a date in contract prose and carry no value.
var dateNoise = map[string]bool{
	"the": true, "this": true, "day": true, "of": true, "on": true, "as": true,
	"dated": true, "effective": true, "date": true, "a": true, "d": true, "ad": true,
}

// NormalizeDate parses a calendar date written in any of the usual contract
// styles and returns it as YYYY-MM-DD: ISO ("2010-01-05", also with a time
// part), numeric US order ("1/5/10", "1/5/2010", "01-05-2010"; day-first when
// the first number cannot be a month), and written months ("January 5, 2010",
// "5 January 2010", "Jan. 5, 2010", "the 5th day of January, 2010"). Two-digit
// years 00-49 are 20xx and 50-99 are 19xx. Impossible dates such as
// 2019-02-30 are errors naming the value; the error wraps ErrInvalidDate.
func NormalizeDate(s string) (string, error) {
	in := strings.TrimSpace(s)
	if in == "" {
		return "", fmt.Errorf("%w: empty", ErrInvalidDate)
	}
	y, m, d, ok := parseNumericDate(in)
	if !ok {
		y, m, d, ok = parseWordDate(in)
	}
	if !ok {
		return "", fmt.Errorf("%w %q: unrecognised format", ErrInvalidDate, s)
	}
	if y < 1800 || y > 2199 {
		return "", fmt.Errorf("%w %q: year %d out of range 1800-2199", ErrInvalidDate, s, y)
	}
	if m < 1 || m > 12 {
		return "", fmt.Errorf("%w %q: month %d out of range", ErrInvalidDate, s, m)
	}
	t := time.Date(y, time.Month(m), d, 0, 0, 0, 0, time.UTC)
	if d < 1 || t.Day() != d || int(t.Month()) != m {
		return "", fmt.Errorf("%w %q: day %d does not exist in %04d-%02d", ErrInvalidDate, s, d, y, m)
	}
	return t.Format(time.DateOnly), nil
}

// parseNumericDate handles dates made of three numbers separated by one of
// "-", "/" or ".", year first (ISO) or last (US order).
func parseNumericDate(s string) (y, m, d int, ok bool) {
	if i := strings.IndexAny(s, "Tt "); i == 10 && len(s) > 10 {
		s = s[:10] // ISO date-time: keep the date part
	}
	var sep byte
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= '0' && c <= '9' {
			continue
		}
		if c != '-' && c != '/' && c != '.' {
			return 0, 0, 0, false
		}
		if sep == 0 {
			sep = c
		} else if c != sep {
			return 0, 0, 0, false
		}
	}
	if sep == 0 {
		return 0, 0, 0, false
	}
	parts := strings.Split(s, string(sep))
	if len(parts) != 3 {
		return 0, 0, 0, false
	}
	n := [3]int{}
	for i, p := range parts {
		if p == "" || len(p) > 4 {
			return 0, 0, 0, false
		}
		v, err := strconv.Atoi(p)
		if err != nil {
			return 0, 0, 0, false
		}
		n[i] = v
	}
	switch {
	case len(parts[0]) == 4: // YYYY-MM-DD
		return n[0], n[1], n[2], len(parts[2]) <= 2 && len(parts[1]) <= 2
	case len(parts[2]) == 4 || len(parts[2]) == 2:
		if len(parts[0]) > 2 || len(parts[1]) > 2 {
			return 0, 0, 0, false
		}
		y = expandYear(n[2], len(parts[2]))
		m, d = n[0], n[1]
		if m > 12 && d <= 12 {
			m, d = d, m
		}
		return y, m, d, true
	}
	return 0, 0, 0, false
}

func expandYear(y, digits int) int {
	if digits != 2 {
		return y
	}
	if y < 50 {
		return 2000 + y
	}
	return 1900 + y
}

// parseWordDate handles dates with a written month, in month-day-year or
// day-month-year order, tolerating ordinals, commas, periods and the prose
// around the date ("the 5th day of January, 2010").
func parseWordDate(s string) (y, m, d int, ok bool) {
	s = strings.ToLower(s)
	s = strings.Map(func(r rune) rune {
		switch r {
		case ',', '.', '/', '-', '(', ')':
			return ' '
		}
		return r
	}, s)
	var toks []string
	for _, w := range strings.Fields(s) {
		if dateNoise[w] {
			continue
		}
		toks = append(toks, w)
	}
	if len(toks) != 3 {
		return 0, 0, 0, false
	}
	mi := -1
	for i, t := range toks {
		if _, isMonth := monthNames[t]; isMonth {
			if mi >= 0 {
				return 0, 0, 0, false
			}
			mi = i
		}
	}
	var dayTok, yearTok string
	switch mi {
	case 0:
		dayTok, yearTok = toks[1], toks[2]
	case 1:
		dayTok, yearTok = toks[0], toks[2]
	default:
		return 0, 0, 0, false
	}
	dayTok = trimOrdinal(dayTok)
	if len(dayTok) == 0 || len(dayTok) > 2 || (len(yearTok) != 4 && len(yearTok) != 2) {
		return 0, 0, 0, false
	}
	dv, err1 := strconv.Atoi(dayTok)
	yv, err2 := strconv.Atoi(yearTok)
	if err1 != nil || err2 != nil || dv < 0 || yv < 0 {
		return 0, 0, 0, false
	}
	return expandYear(yv, len(yearTok)), int(monthNames[toks[mi]]), dv, true
}

func trimOrdinal(s string) string {
	for _, suf := range []string{"st", "nd", "rd", "th"} {
		if strings.HasSuffix(s, suf) {
			return s[:len(s)-len(suf)]
		}
	}
	return s
}

// ErrInvalidDuration is wrapped by every ParseISODuration error.
var ErrInvalidDuration = errors.New("invalid ISO 8601 duration")

// isoDuration is a parsed ISO 8601 duration with calendar components kept
// apart so that it can be added to a date exactly.
type isoDuration struct {
	years, months, weeks, days int
	hours, minutes, seconds    int
}

func parseISO(s string) (isoDuration, error) {
	var d isoDuration
	in := strings.TrimSpace(s)
	if len(in) < 2 || (in[0] != 'P' && in[0] != 'p') {
		return d, fmt.Errorf("%w %q: must start with P and hold at least one component, e.g. P1Y6M", ErrInvalidDuration, s)
	}
	rest := strings.ToUpper(in[1:])
	inTime := false
	order := "YMWD"
	seen := 0
	components := 0
	for len(rest) > 0 {
		if rest[0] == 'T' {
			if inTime {
				return d, fmt.Errorf("%w %q: repeated T", ErrInvalidDuration, s)
			}
			inTime, order, seen = true, "HMS", 0
			rest = rest[1:]
			if rest == "" {
				return d, fmt.Errorf("%w %q: T without a time component", ErrInvalidDuration, s)
			}
			continue
		}
		i := 0
		for i < len(rest) && rest[i] >= '0' && rest[i] <= '9' {
			i++
		}
		if i == 0 {
			return d, fmt.Errorf("%w %q: expected a number at %q", ErrInvalidDuration, s, rest)
		}
		if i > 6 {
			return d, fmt.Errorf("%w %q: number %s too large", ErrInvalidDuration, s, rest[:i])
		}
		if i == len(rest) {
			return d, fmt.Errorf("%w %q: number %s has no unit", ErrInvalidDuration, s, rest)
		}
		v, _ := strconv.Atoi(rest[:i])
		unit := rest[i]
		if unit == '.' || unit == ',' {
			return d, fmt.Errorf("%w %q: fractional values are not supported; use a smaller unit, e.g. P18M for P1.5Y", ErrInvalidDuration, s)
		}
		pos := strings.IndexByte(order, unit)
		if pos < 0 || pos < seen {
			return d, fmt.Errorf("%w %q: unexpected unit %q", ErrInvalidDuration, s, string(unit))
		}
		seen = pos + 1
		switch {
		case !inTime && unit == 'Y':
			d.years = v
		case !inTime && unit == 'M':
			d.months = v
		case !inTime && unit == 'W':
			d.weeks = v
		case !inTime && unit == 'D':
			d.days = v
		case unit == 'H':
			d.hours = v
		case unit == 'M':
			d.minutes = v
		case unit == 'S':
			d.seconds = v
		}
		components++
		rest = rest[i+1:]
	}
	if components == 0 {
		return d, fmt.Errorf("%w %q: no components", ErrInvalidDuration, s)
	}
	return d, nil
}

// ParseISODuration converts an ISO 8601 duration (P1Y2M10D, P6M, P2W, P365D,
// PT48H) to a whole number of days, counting a year as 365 days and a month as
// 30; time components are rounded down to days. Use DurationEnd for a
// calendar-exact end date. "P", "PUN", "P[*****]Y" and free text are errors
// wrapping ErrInvalidDuration.
func ParseISODuration(s string) (days int, err error) {
	d, err := parseISO(s)
	if err != nil {
		return 0, err
	}
	secs := d.hours*3600 + d.minutes*60 + d.seconds
	return d.years*365 + d.months*30 + d.weeks*7 + d.days + secs/86400, nil
}

// DurationEnd returns the date (YYYY-MM-DD) that lies the ISO 8601 duration
// iso after start, adding years, months and days on the calendar (so
// 2020-01-31 plus P1M is 2020-03-02, as time.AddDate normalises).
func DurationEnd(start string, iso string) (string, error) {
	st, err := NormalizeDate(start)
	if err != nil {
		return "", fmt.Errorf("start: %w", err)
	}
	d, err := parseISO(iso)
	if err != nil {
		return "", err
	}
	t, _ := time.Parse(time.DateOnly, st)
	t = t.AddDate(d.years, d.months, d.weeks*7+d.days)
	t = t.Add(time.Duration(d.hours)*time.Hour + time.Duration(d.minutes)*time.Minute + time.Duration(d.seconds)*time.Second)
	return t.Format(time.DateOnly), nil
}

// currencyAliases maps lower-cased currency spellings to ISO 4217 codes.
var currencyAliases = map[string]string{
	"$": "USD", "us$": "USD", "usd": "USD", "us dollar": "USD", "us dollars": "USD",
	"dollar": "USD", "dollars": "USD", "united states dollar": "USD", "united states dollars": "USD",
	"u.s. dollars": "USD", "u.s. dollar": "USD",
	"€": "EUR", "eur": "EUR", "euro": "EUR", "euros": "EUR",
	"£": "GBP", "gbp": "GBP", "pound": "GBP", "pounds": "GBP", "pound sterling": "GBP",
	"pounds sterling": "GBP", "sterling": "GBP", "british pound": "GBP", "british pounds": "GBP",
	"¥": "JPY", "jpy": "JPY", "yen": "JPY", "japanese yen": "JPY",
	"rmb": "CNY", "cny": "CNY", "yuan": "CNY", "renminbi": "CNY", "chinese yuan": "CNY", "元": "CNY",
	"cad": "CAD", "c$": "CAD", "ca$": "CAD", "canadian dollar": "CAD", "canadian dollars": "CAD",
	"aud": "AUD", "a$": "AUD", "australian dollar": "AUD", "australian dollars": "AUD",
	"hkd": "HKD", "hk$": "HKD", "hong kong dollar": "HKD", "hong kong dollars": "HKD",
	"chf": "CHF", "swiss franc": "CHF", "swiss francs": "CHF",
	"inr": "INR", "₹": "INR", "rupee": "INR", "rupees": "INR", "indian rupees": "INR",
	"krw": "KRW", "₩": "KRW", "won": "KRW",
	"sgd": "SGD", "s$": "SGD", "singapore dollar": "SGD", "singapore dollars": "SGD",
	"twd": "TWD", "nt$": "TWD", "new taiwan dollar": "TWD", "new taiwan dollars": "TWD",
	"sek": "SEK", "nok": "NOK", "dkk": "DKK", "nzd": "NZD", "mxn": "MXN", "brl": "BRL",
	"ils": "ILS", "₪": "ILS", "zar": "ZAR", "rub": "RUB", "₽": "RUB", "pln": "PLN",
}

// NormalizeCurrency returns the ISO 4217 code for a currency code, symbol or
// name ("USD", "$", "US dollars", "€", "RMB", ...). ok is false when s is not
// recognised.
func NormalizeCurrency(s string) (string, bool) {
	k := strings.ToLower(strings.Join(strings.Fields(s), " "))
	if c, ok := currencyAliases[k]; ok {
		return c, true
	}
	k = strings.TrimSuffix(k, ".")
	c, ok := currencyAliases[k]
	return c, ok
}

// DaysBetween returns the number of days from date a to date b (both
// YYYY-MM-DD), negative when b is before a.
func DaysBetween(a, b string) (int, error) {
	ta, err := time.Parse(time.DateOnly, a)
	if err != nil {
		return 0, fmt.Errorf("%w %q: want YYYY-MM-DD", ErrInvalidDate, a)
	}
	tb, err := time.Parse(time.DateOnly, b)
	if err != nil {
		return 0, fmt.Errorf("%w %q: want YYYY-MM-DD", ErrInvalidDate, b)
	}
	return int(tb.Sub(ta).Hours() / 24), nil
}

// Precisions of a partial date (NormalizePartialDate).
const (
	PrecisionYear  = "year"
	PrecisionMonth = "month"
)

// NormalizePartialDate reads a date that names only a year ("2019", "fiscal
// year 2019") or a month of a year ("March 2019", "Mar. 2019", "2019-03",
// "03/2019") and returns it in ISO 8601's reduced precision ("2019",
// "2019-03") with its precision, PrecisionYear or PrecisionMonth. ok is
// false for anything else, full dates included (NormalizeDate reads
// those): a partial date is kept as what it is, never completed to a day
// the contract does not state.
func NormalizePartialDate(s string) (iso, precision string, ok bool) {
	toks := strings.FieldsFunc(strings.ToLower(strings.TrimSpace(s)), func(r rune) bool {
		return r == ' ' || r == ',' || r == '.' || r == '/' || r == '-'
	})
	var kept []string
	for _, t := range toks {
		if !dateNoise[t] && t != "fiscal" && t != "year" && t != "in" {
			kept = append(kept, t)
		}
	}
	year := func(t string) (int, bool) {
		y, err := strconv.Atoi(t)
		return y, err == nil && len(t) == 4 && y >= 1800 && y <= 2199
	}
	switch len(kept) {
	case 1:
		if y, ok := year(kept[0]); ok {
			return fmt.Sprintf("%04d", y), PrecisionYear, true
		}
	case 2:
		a, b := kept[0], kept[1]
		if _, isYear := year(a); isYear {
			a, b = b, a // "2019-03", "2019 March"
		}
		y, isYear := year(b)
		if !isYear {
			return "", "", false
		}
		m, isMonth := monthNames[a]
		if !isMonth {
			n, err := strconv.Atoi(a)
			if err != nil || len(a) > 2 || n < 1 || n > 12 {
				return "", "", false
			}
			m = time.Month(n)
		}
		return fmt.Sprintf("%04d-%02d", y, int(m)), PrecisionMonth, true
	}
	return "", "", false
}
