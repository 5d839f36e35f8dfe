package risk

import (
	"strings"
	"testing"
)

func TestParagraphs(t *testing.T) {
	long := strings.Repeat("word ", 1000) // 5000 bytes on one line
	text := "TITLE\n\n" + strings.Repeat("a", 250) + "\n\n  short one\n\n" + strings.Repeat("b", 300) + "\n\n" + long + "\n\nend"
	ps := paragraphs(text)
	if len(ps) < 4 {
		t.Fatalf("got %d passages, want at least 4", len(ps))
	}
	prevEnd := 0
	for i, p := range ps {
		if text[p.Start:p.End] != p.Text {
			t.Errorf("passage %d: offsets %d..%d do not hold its text", i, p.Start, p.End)
		}
		if p.Start < prevEnd {
			t.Errorf("passage %d overlaps the previous one", i)
		}
		if p.End-p.Start > maxPassageBytes {
			t.Errorf("passage %d is %d bytes, over the limit", i, p.End-p.Start)
		}
		if p.Text != strings.TrimSpace(p.Text) {
			t.Errorf("passage %d has surrounding white space: %q", i, p.Text[:10])
		}
		prevEnd = p.End
	}
	// The short title is merged into the next paragraph; the short middle
	// paragraph into the one after it.
	if !strings.HasPrefix(ps[0].Text, "TITLE\n\naaa") || !strings.HasPrefix(ps[1].Text, "short one\n\nbbb") {
		t.Errorf("short paragraphs not merged forward: %q / %q", ps[0].Text[:12], ps[1].Text[:12])
	}
	if last := ps[len(ps)-1]; !strings.HasSuffix(last.Text, "end") {
		t.Errorf("last passage %q does not end the text", last.Text[max(0, len(last.Text)-10):])
	}
}

func TestIsBoilerplate(t *testing.T) {
	body := " The Distributor shall purchase minimum quantities each quarter and pay within thirty days of invoice."
	tests := []struct {
		text string
		want bool
	}{
		{"IN WITNESS WHEREOF, the parties have executed this Agreement." + body, true},
		{"12. Counterparts. This Agreement may be executed in counterparts." + body, true},
		{"By: ____ Name: John Smith Title: CEO", true},
		{"5. Minimum Purchase." + body, false},
	}
	for _, tt := range tests {
		if got := isBoilerplate(passage{Text: tt.text}); got != tt.want {
			t.Errorf("isBoilerplate(%.40q) = %v, want %v", tt.text, got, tt.want)
		}
	}
}

func FuzzParagraphs(f *testing.F) {
	f.Add("TITLE\n\nFirst clause.\n\n\n  Second clause with more words.\n")
	f.Add(strings.Repeat("word ", 2000))
	f.Add("a\r\n\r\nb\u00a0c\n\n\n")
	f.Fuzz(func(t *testing.T, text string) {
		prevEnd := 0
		for i, p := range paragraphs(text) {
			if p.Start < prevEnd || p.End > len(text) || p.Start >= p.End {
				t.Fatalf("passage %d has span %d..%d (previous end %d, text %d bytes)", i, p.Start, p.End, prevEnd, len(text))
			}
			if text[p.Start:p.End] != p.Text {
				t.Fatalf("passage %d text differs from its span", i)
			}
			if p.End-p.Start > maxPassageBytes {
				t.Fatalf("passage %d is %d bytes", i, p.End-p.Start)
			}
			prevEnd = p.End
		}
	})
}

func TestParagraphsCutsInvalidUTF8(t *testing.T) {
	// One "line" of continuation bytes has no rune boundary to cut at.
	text := strings.Repeat("\x80", 3*maxPassageBytes)
	ps := paragraphs(text)
	if len(ps) != 3 || ps[2].End != len(text) {
		t.Errorf("got %d passages ending at %d, want 3 ending at %d", len(ps), ps[len(ps)-1].End, len(text))
	}
}
