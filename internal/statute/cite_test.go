package statute

import (
	"strings"
	"testing"

	"github.com/contractgraph/contractgraph/internal/contract"
)

func TestCite(t *testing.T) {
	tests := []struct {
		st   contract.Statute
		want string
	}{
		{contract.Statute{ID: "/us/usc/t9/s2", Jurisdiction: "us", Code: "9 U.S.C.", Number: "2"}, "9 U.S.C. § 2"},
		{contract.Statute{ID: "/tw/B0000001/a184", Jurisdiction: "tw", Code: "民法 (Civil Code)", Number: "184"}, "民法 (Civil Code) art. 184"},
		{contract.Statute{ID: "/uk/x/s9", Jurisdiction: "uk", Code: "Arbitration Act 1996", Number: "s. 9"}, "Arbitration Act 1996 s. 9"},
		{contract.Statute{ID: "x/1", Jurisdiction: "xx"}, "x/1"},
	}
	for _, tt := range tests {
		if got := Cite(&tt.st); got != tt.want {
			t.Errorf("Cite(%s) = %q, want %q", tt.st.ID, got, tt.want)
		}
	}
}

func TestExcerpt(t *testing.T) {
	text := "(a) General rule about notices.\n(b) Damages for breach of contract are limited.\n(c) Something unrelated entirely here.\n(d) Breach remedies include damages."
	tests := []struct {
		name, query string
		max         int
		want        string
		truncated   bool
	}{
		{"fits", "anything", len(text), text, false},
		{"best lines in order", "breach damages", 100, "(b) Damages for breach of contract are limited.\n…\n(d) Breach remedies include damages.", true},
		{"one long line is cut", "x", 5, "(a) G", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, truncated := Excerpt(text, tt.query, tt.max)
			if got != tt.want || truncated != tt.truncated {
				t.Errorf("Excerpt = %q, %v; want %q, %v", got, truncated, tt.want, tt.truncated)
			}
			for line := range strings.SplitSeq(got, "\n") {
				if line != "…" && !strings.Contains(text, line) {
					t.Errorf("excerpt line %q is not in the text", line)
				}
			}
		})
	}
}
