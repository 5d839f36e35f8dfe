package retrieve

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
)

func TestChunkAtClauseBoundaries(t *testing.T) {
	text := "MASTER AGREEMENT\n\nThis Agreement is made between Acme and Beta.\n" +
		"ARTICLE I\nDEFINITIONS\n\"Product\" means the widget.\n" +
		"Section 2. Term. The term is two years.\n" +
		"2.1 Renewal. It renews for one year.\n\n" +
		"3. GOVERNING LAW. New York law governs.\n"
	got := Chunk(text, ChunkOptions{Max: 80, Min: 10})
	var texts []string
	for i, c := range got {
		if c.Ord != i || text[c.Start:c.End] != c.Text {
			t.Fatalf("chunk %d: ord %d or offsets do not select its text", i, c.Ord)
		}
		texts = append(texts, c.Text)
	}
	want := []string{
		"MASTER AGREEMENT\n\nThis Agreement is made between Acme and Beta.",
		"ARTICLE I\nDEFINITIONS\n\"Product\" means the widget.",
		"Section 2. Term. The term is two years.",
		"2.1 Renewal. It renews for one year.",
		"3. GOVERNING LAW. New York law governs.",
	}
	if diff := cmp.Diff(want, texts); diff != "" {
		t.Errorf("chunks (-want +got):\n%s", diff)
	}
}

func TestChunkPacksAndSplits(t *testing.T) {
	short := strings.Repeat("Short paragraph here.\n\n", 10)
	long := strings.Repeat("This is one sentence of a very long clause. ", 60)
	text := short + long
	got := Chunk(text, ChunkOptions{Max: 300})
	if len(got) < 2 {
		t.Fatalf("%d chunks", len(got))
	}
	// The short paragraphs are packed together rather than one per chunk.
	if !strings.Contains(got[0].Text, "Short paragraph here.\n\nShort paragraph here.") {
		t.Errorf("first chunk not packed: %q", got[0].Text)
	}
	for _, c := range got {
		if len(c.Text) > 300 {
			t.Errorf("chunk of %d bytes exceeds 300", len(c.Text))
		}
		if strings.Contains(c.Text, "sentence") && !strings.HasSuffix(c.Text, ".") {
			t.Errorf("long clause cut mid-sentence: %q", c.Text[len(c.Text)-20:])
		}
	}
}

func FuzzChunk(f *testing.F) {
	f.Add("1. Term\nTwo years.\n\nARTICLE II\nx", 50)
	f.Add(strings.Repeat("é", 500), 7)
	f.Add("\xff\xfe\xfd", 1)
	f.Fuzz(func(t *testing.T, text string, max int) {
		max = max%2000 + 1
		if max < 1 {
			max = -max + 1
		}
		prevEnd := 0
		for i, c := range Chunk(text, ChunkOptions{Max: max}) {
			if c.Start < prevEnd || c.End <= c.Start || c.End > len(text) || text[c.Start:c.End] != c.Text {
				t.Fatalf("chunk %d bad span [%d,%d) after %d", i, c.Start, c.End, prevEnd)
			}
			if c.End-c.Start > max {
				t.Fatalf("chunk %d is %d bytes > %d", i, c.End-c.Start, max)
			}
			if utf8.ValidString(text) && !utf8.ValidString(c.Text) && max >= 4 {
				t.Fatalf("chunk %d splits a character", i)
			}
			if strings.TrimSpace(c.Text) != c.Text {
				t.Fatalf("chunk %d has surrounding space", i)
			}
			prevEnd = c.End
		}
	})
}
