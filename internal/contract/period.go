package contract

// Period is one period of time written in a text: Text[Start:End] holds
// its words ("ninety (90) days", "one-year", "P6M"). ISO is the period as
// an ISO 8601 duration and Days its length counted as ParseISODuration
// counts (a year is 365 days, a month 30). Notice is true when the words
// around it give it as notice ("sixty (60) days prior written notice",
// "upon 3 months' notice"), the way ParseNoticePeriod decides; Periodic is
// true for a period written without a number ("annually", "month to
// month"), which reads as a recurrence more often than as a length.
type Period struct {
	Start, End int
	ISO        string
	Days       int
	Notice     bool
	Periodic   bool
}

// Periods lists the periods of at most 100 years written in s, in text
// order, read the way ParseDuration reads one: the figure in parentheses
// wins over the words before it.
func Periods(s string) []Period {
	ms := durationsIn(s)
	out := make([]Period, 0, len(ms))
	for _, m := range ms {
		days, err := ParseISODuration(m.iso)
		if err != nil || days <= 0 {
			continue
		}
		out = append(out, Period{
			Start: m.start, End: m.end, ISO: m.iso, Days: days,
			Notice: noticeScore(s, m) > 0, Periodic: m.periodic,
		})
	}
	return out
}

// NumberWords reads a whole number written in words: "one hundred
// twenty", "forty-five", "twenty four". ok is false for anything else.
func NumberWords(s string) (n int, ok bool) { return wordsNumber(s) }

// NumberWordPattern is a regular expression alternation of the number
// words NumberWords reads, for building patterns that find them.
const NumberWordPattern = numberWordAlt
