package contract

import (
	"strconv"
	"strings"
)

// DurationWords writes an ISO 8601 duration the way a contract would:
// "P1Y" is "1 year", "P1Y6M" is "1 year and 6 months", "P90D" is
// "90 days", "PT48H" is "48 hours". It returns s unchanged when s is not a
// valid duration, so that a stored value is never hidden.
func DurationWords(s string) string {
	d, err := parseISO(s)
	if err != nil {
		return s
	}
	var parts []string
	for _, c := range []struct {
		n    int
		unit string
	}{
		{d.years, "year"}, {d.months, "month"}, {d.weeks, "week"}, {d.days, "day"},
		{d.hours, "hour"}, {d.minutes, "minute"}, {d.seconds, "second"},
	} {
		if c.n == 0 {
			continue
		}
		w := strconv.Itoa(c.n) + " " + c.unit
		if c.n != 1 {
			w += "s"
		}
		parts = append(parts, w)
	}
	switch len(parts) {
	case 0:
		return "no time" // P0D
	case 1:
		return parts[0]
	}
	return strings.Join(parts[:len(parts)-1], ", ") + " and " + parts[len(parts)-1]
}
