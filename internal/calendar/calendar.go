// Package calendar writes contract deadlines as an RFC 5545 iCalendar
// feed: one all-day event per deadline, each with a display reminder and a
// UID that depends only on the deadline (contract, kind, term and date), so
// that a calendar re-subscribing to the feed updates its events instead of
// duplicating them.
package calendar

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/contractgraph/contractgraph/internal/contract"
	"github.com/contractgraph/contractgraph/internal/graph"
)

// ContentType is the media type of what Write writes.
const ContentType = "text/calendar; charset=utf-8"

// Reminders are how long before each kind of deadline its alarm fires: a
// notice needs time to draft and send.
var Reminders = map[string]time.Duration{
	contract.DeadlineNotice:     14 * 24 * time.Hour,
	contract.DeadlineRenewal:    7 * 24 * time.Hour,
	contract.DeadlineExpiration: 30 * 24 * time.Hour,
}

// Options describe the feed.
type Options struct {
	// Name is the calendar's display name (X-WR-CALNAME).
	Name string
	// Stamp is when the feed was made (DTSTAMP, in UTC).
	Stamp time.Time
	// URL, when set, is where a deadline's contract is shown: the event
	// links to URL + contract id (escaped by the caller's choice of URL).
	URL func(contractID string) string
}

// UID is a deadline's stable event identifier.
func UID(d graph.DeadlineHit) string {
	sum := sha256.Sum256([]byte(fmt.Sprintf("%s\x1f%s\x1f%d\x1f%s", d.ContractID, d.Kind, d.Term, d.Date)))
	return hex.EncodeToString(sum[:16]) + "@contractgraph"
}

// Write writes ds as one VCALENDAR. A deadline whose date is not
// YYYY-MM-DD is an error naming it; nothing is written then.
func Write(w io.Writer, ds []graph.DeadlineHit, opts Options) error {
	var b strings.Builder
	line := func(name, value string) { writeLine(&b, name+":"+value) }
	line("BEGIN", "VCALENDAR")
	line("VERSION", "2.0")
	line("PRODID", "-//ContractGraph//Deadlines//EN")
	line("CALSCALE", "GREGORIAN")
	line("METHOD", "PUBLISH")
	if opts.Name != "" {
		line("X-WR-CALNAME", escape(opts.Name))
	}
	stamp := opts.Stamp.UTC().Format("20060102T150405Z")
	for _, d := range ds {
		day, err := time.Parse(time.DateOnly, d.Date)
		if err != nil {
			return fmt.Errorf("calendar: deadline %s of %q: date %q is not YYYY-MM-DD", d.Kind, d.ContractID, d.Date)
		}
		title := d.Title
		if title == "" {
			title = d.ContractID
		}
		line("BEGIN", "VEVENT")
		line("UID", UID(d))
		line("DTSTAMP", stamp)
		line("DTSTART;VALUE=DATE", day.Format("20060102"))
		line("DTEND;VALUE=DATE", day.AddDate(0, 0, 1).Format("20060102"))
		line("SUMMARY", escape(contract.DeadlineLabel(d.Kind)+": "+title))
		line("DESCRIPTION", escape(description(d)))
		line("CATEGORIES", escape(d.Kind))
		line("TRANSP", "TRANSPARENT")
		if opts.URL != nil {
			line("URL;VALUE=URI", opts.URL(d.ContractID))
		}
		before := Reminders[d.Kind]
		if before == 0 {
			before = 7 * 24 * time.Hour
		}
		line("BEGIN", "VALARM")
		line("ACTION", "DISPLAY")
		line("TRIGGER", fmt.Sprintf("-P%dD", int(before.Hours()/24)))
		line("DESCRIPTION", escape(contract.DeadlineLabel(d.Kind)+" in "+fmt.Sprint(int(before.Hours()/24))+" days: "+title))
		line("END", "VALARM")
		line("END", "VEVENT")
	}
	line("END", "VCALENDAR")
	bw := bufio.NewWriter(w)
	if _, err := bw.WriteString(b.String()); err != nil {
		return err
	}
	return bw.Flush()
}

// description is the event's text: how the date was derived and the
// quotes it was derived from.
func description(d graph.DeadlineHit) string {
	var b strings.Builder
	b.WriteString(d.Derivation)
	b.WriteString(".\nContract: " + d.ContractID)
	if len(d.Parties) > 0 {
		b.WriteString("\nParties: " + strings.Join(d.Parties, "; "))
	}
	for _, f := range d.From {
		fmt.Fprintf(&b, "\n%s = %s", f.Field, f.Value)
		if e := f.Evidence; e != nil {
			state := "unverified"
			if e.Verified {
				state = fmt.Sprintf("bytes %d-%d", e.Start, e.End)
			}
			fmt.Fprintf(&b, " (%s): “%s”", state, e.Quote)
		}
	}
	return b.String()
}

// escape escapes a TEXT value (RFC 5545 §3.3.11).
func escape(s string) string {
	r := strings.NewReplacer(`\`, `\\`, ";", `\;`, ",", `\,`, "\r\n", `\n`, "\n", `\n`, "\r", `\n`)
	return r.Replace(strings.ToValidUTF8(s, "\uFFFD"))
}

// writeLine writes a content line folded at 75 octets (RFC 5545 §3.1),
// never inside a UTF-8 sequence, ended by CRLF.
func writeLine(b *strings.Builder, s string) {
	const limit = 75
	first := true
	for len(s) > 0 {
		n := limit
		if !first {
			n = limit - 1 // the leading space counts
			b.WriteString(" ")
		}
		if n > len(s) {
			n = len(s)
		}
		for n > 0 && n < len(s) && !utf8.RuneStart(s[n]) {
			n--
		}
		b.WriteString(s[:n])
		b.WriteString("\r\n")
		s = s[n:]
		first = false
	}
}
