package retrieve

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/contractgraph/contractgraph/internal/graph"
)

// maxSectionHeading bounds a section's heading as a hit reports it.
const maxSectionHeading = 120

// heading is one heading line of a contract text.
type heading struct {
	start int
	level int // 0 ARTICLE, 1 "5." or a title line, 2 "5.1", ...
	text  string
}

var (
	articleRE = regexp.MustCompile(`^[ \t#*]*(?:ARTICLE|Article)\s`)
	numberRE  = regexp.MustCompile(`^[ \t#*]*(?:(?:SECTION|Section)\s+)?(\d{1,3}(?:\.\d{1,3})*)\.?(?:\s|$)`)
)

// headings lists the heading lines of text (those that open a chunk,
// headingRE) with their levels.
func headings(text string) []heading {
	var out []heading
	pos := 0
	for pos < len(text) {
		end := strings.IndexByte(text[pos:], '\n')
		next := len(text)
		if end >= 0 {
			next = pos + end + 1
			end = pos + end
		} else {
			end = len(text)
		}
		line := text[pos:end]
		if strings.TrimSpace(line) != "" && headingRE.MatchString(line) {
			level := 1
			switch {
			case articleRE.MatchString(line):
				level = 0
			default:
				if m := numberRE.FindStringSubmatch(line); m != nil {
					level = strings.Count(m[1], ".") + 1
				}
			}
			out = append(out, heading{start: pos, level: level, text: clipHeading(strings.TrimSpace(line))})
		}
		pos = next
	}
	return out
}

func clipHeading(s string) string {
	if len(s) <= maxSectionHeading {
		return s
	}
	cut := maxSectionHeading
	for cut > 0 && s[cut]&0xC0 == 0x80 {
		cut--
	}
	return s[:cut] + "…"
}

// sectionOf returns the section of text holding [start, end): from the
// last heading at or before start to the next heading of the same or a
// higher level. When that section is the passage itself (a chunk that is
// one whole numbered paragraph), it is the enclosing section of a higher
// level instead. Nil when no heading precedes the passage or every
// enclosing section is the passage.
func sectionOf(text string, hs []heading, start, end int) *graph.Section {
	at := -1
	for i, h := range hs {
		if h.start > start {
			break
		}
		at = i
	}
	for at >= 0 {
		h := hs[at]
		stop := len(text)
		for _, n := range hs[at+1:] {
			if n.level <= h.level && n.start >= end {
				stop = n.start
				break
			}
		}
		s, e := trimSpan(text, h.start, max(stop, end))
		if s < start || e > end {
			return &graph.Section{Heading: h.text, Start: s, End: e}
		}
		// Climb to the nearest heading of a higher level before this one.
		j := at - 1
		for j >= 0 && hs[j].level >= h.level {
			j--
		}
		at = j
	}
	return nil
}

// AddSections sets each located hit's Section: the enclosing section of
// the contract text, found from the text's headings as Chunk finds them.
// It reads each hit's contract once. A contract that is gone (deleted
// since the search) leaves its hits without a section; other errors are
// returned.
func AddSections(ctx context.Context, store graph.Store, hits []graph.ClauseHit) error {
	type doc struct {
		text string
		hs   []heading
	}
	docs := map[string]*doc{}
	for i := range hits {
		h := &hits[i]
		if h.SummaryOnly() || h.End <= h.Start {
			continue
		}
		d, ok := docs[h.ContractID]
		if !ok {
			c, err := store.GetContract(ctx, h.ContractID)
			switch {
			case errors.Is(err, graph.ErrNotFound):
				docs[h.ContractID] = nil
				continue
			case err != nil:
				return fmt.Errorf("read %s for its sections: %w", h.ContractID, err)
			}
			d = &doc{text: c.Text, hs: headings(c.Text)}
			docs[h.ContractID] = d
		}
		if d == nil || h.End > len(d.text) {
			continue
		}
		h.Section = sectionOf(d.text, d.hs, h.Start, h.End)
	}
	return nil
}
