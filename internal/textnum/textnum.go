// Package textnum reads the numbers written in text: figures with
// thousands separators, currency and percent signs, scale words ("1.5
// million") and numbers written as words, the way answers and contracts
// write them. The evaluation harness matches expected figures with it and
// the agent checks an answer's figures against its tool results.
package textnum

import (
	"math"
	"regexp"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Parse reads an expected number: digits with optional thousands
// separators and decimals, optionally with a currency sign, a sign or a
// percent sign. decimals is the number of digits after the point.
func Parse(s string) (v float64, decimals int, ok bool) {
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

// Find lists the numbers written in s, scaled by a following
// "million"/"billion"/"thousand". ISO dates contribute their year only;
// digits inside a word or an identifier, and numbers too long for a
// float64, are not listed.
func Find(s string) []float64 {
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
			// Digits inside a word or an identifier ("Q4", "contract_17")
			// are not a figure.
			if unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_' || r == '-' && start > 1 && isAlnumBefore(text, start-1) {
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
		if math.IsInf(v, 0) {
			// A run of hundreds of digits (a looping model's) overflows:
			// it states no figure anyone could check.
			continue
		}
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

// Round rounds v to decimals digits after the point, exactly as a parsed
// figure with that many decimals reads.
func Round(v float64, decimals int) float64 {
	p := math.Pow(10, float64(decimals))
	r := math.Round(v*p) / p
	// Undo the binary noise of the division so that equality with the
	// parsed figure holds.
	r, _ = strconv.ParseFloat(strconv.FormatFloat(r, 'f', decimals, 64), 64)
	return r
}
