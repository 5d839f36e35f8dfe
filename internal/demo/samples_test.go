package demo

import (
	"strings"
	"testing"

	"github.com/contractgraph/contractgraph/internal/contract"
)

func TestSamplesAreConsistent(t *testing.T) {
	samples, err := Samples()
	if err != nil {
		t.Fatal(err)
	}
	if len(samples) < 5 {
		t.Fatalf("%d samples, want at least 5", len(samples))
	}
	ids := map[string]bool{}
	for _, c := range samples {
		if ids[c.ID] {
			t.Errorf("duplicate id %s", c.ID)
		}
		ids[c.ID] = true
		if c.Text == "" || c.Title == "" || c.Summary == "" || c.EffectiveDate == "" || len(c.Parties) < 2 || c.GoverningLaw.IsZero() {
			t.Errorf("%s: incomplete record", c.ID)
		}
		if !strings.Contains(c.Text, c.Title) {
			t.Errorf("%s: title %q does not appear in the text", c.ID, c.Title)
		}
		if c.DurationDays == nil || *c.DurationDays <= 0 {
			t.Errorf("%s: duration %q has no days", c.ID, c.Duration)
		}
		for _, p := range c.Parties {
			// Every party is named in its contract's text.
			if !strings.Contains(c.Text, p.Name) {
				t.Errorf("%s: party %q is not named in the text", c.ID, p.Name)
			}
			if p.Location == nil || p.Location.Country == "" {
				t.Errorf("%s: party %q has no country", c.ID, p.Name)
			}
		}
		if len(c.Clauses) < 4 {
			t.Errorf("%s: only %d clauses", c.ID, len(c.Clauses))
		}
		for _, cl := range c.Clauses {
			if !cl.Verified || c.Text[cl.Start:cl.End] != cl.Text {
				t.Errorf("%s: clause %s span [%d,%d) does not slice to its text", c.ID, cl.Type, cl.Start, cl.End)
			}
			if _, _, err := contract.ParseClauseType(cl.Type); err != nil {
				t.Errorf("%s: %v", c.ID, err)
			}
		}
		// Chunks cover every paragraph of the text, in order, without overlap.
		prevEnd := 0
		var joined []string
		for i, ch := range c.Chunks {
			if ch.Ord != i || ch.Start < prevEnd || c.Text[ch.Start:ch.End] != ch.Text || len(ch.Text) > 2*maxChunkBytes {
				t.Errorf("%s: bad chunk %d [%d,%d)", c.ID, i, ch.Start, ch.End)
			}
			prevEnd = ch.End
			joined = append(joined, ch.Text)
		}
		if strings.Join(strings.Fields(strings.Join(joined, " ")), " ") != strings.Join(strings.Fields(c.Text), " ") {
			t.Errorf("%s: chunks do not cover the text", c.ID)
		}
	}
}

func TestChunks(t *testing.T) {
	text := "# T\n\nfirst para\n\n\n\nsecond para that is long\n\nthird\n"
	got := chunks("x", text, 20)
	var texts []string
	for _, c := range got {
		texts = append(texts, c.Text)
		if text[c.Start:c.End] != c.Text {
			t.Errorf("chunk %q offsets [%d,%d) slice to %q", c.Text, c.Start, c.End, text[c.Start:c.End])
		}
	}
	want := []string{"# T\n\nfirst para", "second para that is long", "third"}
	if strings.Join(texts, "|") != strings.Join(want, "|") {
		t.Errorf("chunks = %q, want %q", texts, want)
	}
}
