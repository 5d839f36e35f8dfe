package importer

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/contractgraph/contractgraph/internal/bounded"
	"github.com/contractgraph/contractgraph/internal/contract"
)

// The defaults of Limits. Each is far above what real contracts need
// (CUAD's longest annotation cell is 12,000 characters, its longest text
// 300 KB; the reference data's longest summary 2,054 characters and party
// name 136) and low enough that one hostile record cannot take the memory
// of the machine.
const (
	// DefaultRecordBytes bounds one record: a reference array element, a
	// JSONL line (a contract with its whole text), a CSV row, a CUAD text file.
	DefaultRecordBytes = 64 << 20
	// DefaultNameChars bounds a name: a party's name and role, the parts of
	// a location, a title.
	DefaultNameChars = 1000
	// DefaultSummaryChars bounds a summary: the contract's summary and
	// scope, a clause's summary.
	DefaultSummaryChars = 20_000
	// DefaultClauseChars bounds a clause's verbatim text and an evidence
	// quote.
	DefaultClauseChars = 100_000
	// DefaultParties bounds the parties of one contract. It is 10,000 so
	// that a stress test of entity resolution with 10,000 parties on one
	// contract still imports.
	DefaultParties = 10_000
)

// Limits bound what one record may make large. A record over a limit fails
// alone, with an error naming the field, the limit and its flag; the rest
// of the input is read. A zero field means its default.
type Limits struct {
	RecordBytes  int64 // --max-record-bytes
	NameChars    int   // --max-name-chars
	SummaryChars int   // --max-summary-chars
	ClauseChars  int   // --max-clause-chars
	Parties      int   // --max-parties
}

// withDefaults fills the zero fields.
func (l Limits) withDefaults() Limits {
	if l.RecordBytes <= 0 {
		l.RecordBytes = DefaultRecordBytes
	}
	if l.NameChars <= 0 {
		l.NameChars = DefaultNameChars
	}
	if l.SummaryChars <= 0 {
		l.SummaryChars = DefaultSummaryChars
	}
	if l.ClauseChars <= 0 {
		l.ClauseChars = DefaultClauseChars
	}
	if l.Parties <= 0 {
		l.Parties = DefaultParties
	}
	return l
}

// tooLong says that a value is over a character limit.
func tooLong(n, limit int, what, flag string) error {
	return fmt.Errorf("%d characters, over the limit of %d characters per %s (--%s raises it)", n, limit, what, flag)
}

// recordTooLarge says that a record is over the byte limit.
func recordTooLarge(size, limit int64) error {
	return fmt.Errorf("the record is %s, over the limit of %s per record (--max-record-bytes raises it); skipped", bounded.Size(size), bounded.Size(limit))
}

// check returns the field of c over a limit and why, or "" and nil.
func (l Limits) check(c *contract.Contract) (string, error) {
	if n := len(c.Parties); n > l.Parties {
		return "parties", fmt.Errorf("%d parties, over the limit of %d per contract (--max-parties raises it)", n, l.Parties)
	}
	over := func(s string, limit int) (int, bool) {
		// Bytes bound characters from above: count only when it may matter.
		if len(s) <= limit {
			return 0, false
		}
		n := utf8.RuneCountInString(s)
		return n, n > limit
	}
	name := func(field, s string) (string, error) {
		if n, bad := over(s, l.NameChars); bad {
			return field, tooLong(n, l.NameChars, "name", "max-name-chars")
		}
		return "", nil
	}
	location := func(field string, loc *contract.Location) (string, error) {
		if loc == nil {
			return "", nil
		}
		for _, p := range []struct{ f, v string }{{"country", loc.Country}, {"state", loc.State}, {"city", loc.City}, {"address", loc.Address}} {
			if f, err := name(field+"."+p.f, p.v); err != nil {
				return f, err
			}
		}
		return "", nil
	}
	if f, err := name("title", c.Title); err != nil {
		return f, err
	}
	for _, s := range []struct{ f, v string }{{"summary", c.Summary}, {"scope", c.Scope}} {
		if n, bad := over(s.v, l.SummaryChars); bad {
			return s.f, tooLong(n, l.SummaryChars, "summary", "max-summary-chars")
		}
	}
	if f, err := location("governing_law", c.GoverningLaw); err != nil {
		return f, err
	}
	for i, p := range c.Parties {
		field := fmt.Sprintf("parties[%d]", i)
		if f, err := name(field+".name", p.Name); err != nil {
			return f, err
		}
		if f, err := name(field+".role", p.Role); err != nil {
			return f, err
		}
		if f, err := location(field+".location", p.Location); err != nil {
			return f, err
		}
	}
	for i, cl := range c.Clauses {
		if n, bad := over(cl.Summary, l.SummaryChars); bad {
			return fmt.Sprintf("clauses[%d].summary", i), tooLong(n, l.SummaryChars, "summary", "max-summary-chars")
		}
		if n, bad := over(cl.Text, l.ClauseChars); bad {
			return fmt.Sprintf("clauses[%d].text", i), tooLong(n, l.ClauseChars, "clause", "max-clause-chars")
		}
	}
	for i, e := range c.Evidence {
		if n, bad := over(e.Quote, l.ClauseChars); bad {
			return fmt.Sprintf("evidence[%d].quote", i), tooLong(n, l.ClauseChars, "clause", "max-clause-chars")
		}
	}
	return "", nil
}

// invalidUTF8 returns the byte offset of the first invalid UTF-8 sequence
// in b, or -1.
func invalidUTF8(b []byte) int {
	if utf8.Valid(b) {
		return -1
	}
	for i := 0; i < len(b); {
		r, size := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && size == 1 {
			return i
		}
		i += size
	}
	return -1
}

// replacedUTF8 is the warning for a record whose invalid UTF-8 was
// replaced by U+FFFD.
func replacedUTF8(at int) error {
	return fmt.Errorf("invalid UTF-8 at byte %d of the record replaced by U+FFFD", at)
}

// validUTF8 returns s with each invalid UTF-8 byte replaced by U+FFFD, as
// encoding/json and the document loaders replace them, and whether it had
// any.
func validUTF8(s string) (string, bool) {
	if utf8.ValidString(s) {
		return s, false
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b.WriteString("\uFFFD")
		} else {
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String(), true
}
