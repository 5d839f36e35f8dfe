package eval

import (
	"fmt"
	"github.com/contractgraph/contractgraph/internal/textnum"
	"regexp"
	"strconv"
	"strings"
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
	if v, decimals, ok := textnum.Parse(want); ok {
		for _, n := range textnum.Find(answer) {
			if textnum.Round(n, decimals) == v {
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
