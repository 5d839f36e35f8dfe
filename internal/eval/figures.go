package eval

import (
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Figure is one must_contain entry and whether the answer states it.
type Figure struct {
	Want  string `json:"want"`
	Found bool   `json:"found"`
}

// checkFigures reports, for each expected figure, whether answer states it.
func checkFigures(answer string, want []string) []Figure {
	out := make([]Figure, 0, len(want))
	for _, w := range want {
		out = append(out, Figure{Want: w, Found: statesFigure(answer, w)})
	}
	return out
}

// statesFigure reports whether answer states want, tolerant of how numbers
// and dates are written:
//
//   - A number matches a number in the answer with or without thousands
//     separators ("1,234", "1 234" with a non-breaking or thin space,
//     "1'234"), a currency sign or a percent sign, and scaled by a word
//     ("10 million" states 10000000). The answer may be more precise than
//     the figure: "1,542.9" states "1543" and "4411.1429" states "4411.14".
//     A number glued to letters ("Q4", "EX-10") or inside an ISO date is
//     not a match, except that a date's year states the year. Numbers up
//     to ninety-nine may be written as words ("three", "twenty-four").
//   - An ISO date (2026-04-30) matches itself and the written forms
//     "April 30, 2026", "30 April 2026", "30th of Apr. 2026" and 2026/04/30.
//   - Anything else matches as a case-insensitive substring, with runs of
//     white space treated as one space.
func statesFigure(answer, want string) bool {
	want = strings.TrimSpace(want)
	if want == "" {
		return true
	}
	if y, m, d, ok := isoDate(want); ok {
		return statesDate(answer, y, m, d)
	}
	if v, decimals, ok := parseFigure(want); ok {
		for _, n := range answerNumbers(answer) {
			if roundTo(n, decimals) == v {
				return true
			}
		}
		return false
	}
	return strings.Contains(collapse(answer), collapse(want))
}

func collapse(s string) string { return strings.ToLower(strings.Join(strings.Fields(s), " ")) }

var isoDateRe = regexp.MustCompile(`^(\d{4})-(\d{2})-(\d{2})$`)

func isoDate(s string) (y, m, d int, ok bool) {
	sm := isoDateRe.FindStringSubmatch(s)
	if sm == nil {
		return 0, 0, 0, false
	}
	y, _ = strconv.Atoi(sm[1])
	m, _ = strconv.Atoi(sm[2])
	d, _ = strconv.Atoi(sm[3])
	return y, m, d, m >= 1 && m <= 12 && d >= 1 && d <= 31
}

var monthNames = []string{"january", "february", "march", "april", "may", "june", "july", "august", "september", "october", "november", "december"}

func statesDate(answer string, y, m, d int) bool {
	iso := fmt.Sprintf("%04d-%02d-%02d", y, m, d)
	if strings.Contains(answer, iso) || strings.Contains(answer, fmt.Sprintf("%04d/%02d/%02d", y, m, d)) {
		return true
	}
	full := monthNames[m-1]
	month := "(?:" + full + "|" + full[:3] + `\.?)`
	if m == 9 {
		month = "(?:september|sept?\\.?)"
	}
	day := fmt.Sprintf(`0?%d(?:st|nd|rd|th)?`, d)
	year := strconv.Itoa(y)
	re := regexp.MustCompile(`(?i)(?:^|[^\p{L}\p{N}])(?:` + day + `(?:\s+of)?\s+` + month + `,?\s+` + year +
		`|` + month + `\s+` + day + `,?\s+` + year + `)(?:$|[^\p{N}])`)
	return re.MatchString(answer)
}

// parseFigure reads an expected number: digits with optional thousands
// separators and decimals, optionally with a currency sign, a sign or a
// percent sign. decimals is the number of digits after the point.
func parseFigure(s string) (v float64, decimals int, ok bool) {
	t := strings.TrimSpace(s)
	t = strings.TrimPrefix(t, "US$")
	t = strings.TrimLeft(t, "$€£¥")
	t = strings.TrimSuffix(t, "%")
	t = strings.TrimSpace(t)
	neg := strings.HasPrefix(t, "-")
	t = strings.TrimPrefix(t, "-")
	if !figureRe.MatchString(t) {
		return 0, 0, false
	}
	n, dec := numberValue(t)
	if neg {
		n = -n
	}
	return n, dec, true
}

var figureRe = regexp.MustCompile(`^` + numberPattern + `$`)

// numberPattern is a number with optional thousands separators (comma,
// apostrophe, no-break, narrow no-break or thin space) and decimals.
const numberPattern = `(?:\d{1,3}(?:[,'\x{00A0}\x{202F}\x{2009}]\d{3})+|\d+)(?:\.\d+)?`

// wordNumbers are the numbers commonly written as words.
var wordNumbers = map[string]int{
	"zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9,
	"ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14, "fifteen": 15, "sixteen": 16,
	"seventeen": 17, "eighteen": 18, "nineteen": 19, "twenty": 20, "thirty": 30, "forty": 40, "fifty": 50,
	"sixty": 60, "seventy": 70, "eighty": 80, "ninety": 90,
}

var wordNumberRe = regexp.MustCompile(`(?i)\b(zero|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|fifteen|sixteen|seventeen|eighteen|nineteen|twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety)(?:[- ](one|two|three|four|five|six|seven|eight|nine))?\b`)

var (
	numberRe = regexp.MustCompile(numberPattern + `(?:\s*(million|billion|thousand|mn|bn)\b)?`)
	dateRe   = regexp.MustCompile(`\d{4}-\d{2}-\d{2}`)
)

func numberValue(t string) (float64, int) {
	digits := strings.Map(func(r rune) rune {
		if r == '.' || unicode.IsDigit(r) {
			return r
		}
		return -1
	}, t)
	dec := 0
	if i := strings.IndexByte(digits, '.'); i >= 0 {
		dec = len(digits) - i - 1
	}
	v, _ := strconv.ParseFloat(digits, 64)
	return v, dec
}

// answerNumbers lists the numbers written in s, scaled by a following
// "million"/"billion"/"thousand". ISO dates contribute their year only.
func answerNumbers(s string) []float64 {
	var out []float64
	masked := []byte(s)
	for _, loc := range dateRe.FindAllStringIndex(s, -1) {
		y, _ := strconv.Atoi(s[loc[0] : loc[0]+4])
		out = append(out, float64(y))
		for i := loc[0]; i < loc[1]; i++ {
			masked[i] = ' '
		}
	}
	text := string(masked)
	for _, m := range wordNumberRe.FindAllStringSubmatch(text, -1) {
		n := wordNumbers[strings.ToLower(m[1])]
		if m[2] != "" {
			n += wordNumbers[strings.ToLower(m[2])]
		}
		out = append(out, float64(n))
	}
	for _, m := range numberRe.FindAllStringSubmatchIndex(text, -1) {
		start, end := m[0], m[1]
		if start > 0 {
			r, _ := utf8.DecodeLastRuneInString(text[:start])
			if unicode.IsLetter(r) || unicode.IsDigit(r) || r == '-' && start > 1 && isAlnumBefore(text, start-1) {
				continue
			}
		}
		numEnd := end
		scale := 1.0
		if m[2] >= 0 {
			numEnd = m[2]
			switch strings.ToLower(text[m[2]:m[3]]) {
			case "million", "mn":
				scale = 1e6
			case "billion", "bn":
				scale = 1e9
			case "thousand":
				scale = 1e3
			}
		}
		v, _ := numberValue(strings.TrimSpace(text[start:numEnd]))
		out = append(out, v)
		if scale != 1 {
			out = append(out, v*scale)
		}
	}
	return out
}

func isAlnumBefore(s string, i int) bool {
	r, _ := utf8.DecodeLastRuneInString(s[:i])
	return unicode.IsLetter(r) || unicode.IsDigit(r)
}

func roundTo(v float64, decimals int) float64 {
	p := math.Pow(10, float64(decimals))
	r := math.Round(v*p) / p
	// Undo the binary noise of the division so that equality with the
	// parsed figure holds.
	r, _ = strconv.ParseFloat(strconv.FormatFloat(r, 'f', decimals, 64), 64)
	return r
}
