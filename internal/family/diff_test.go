package family

import (
	"bytes"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/contractgraph/contractgraph/internal/contract"
)

func TestWordDiff(t *testing.T) {
	ops, truncated := wordDiff("The term is two years from the Effective Date.", "The term is three years from the Amendment Date.")
	want := []WordOp{{OpEqual, "The term is"}, {OpDelete, "two"}, {OpInsert, "three"}, {OpEqual, "years from the"},
		{OpDelete, "Effective"}, {OpInsert, "Amendment"}, {OpEqual, "Date."}}
	if truncated || !cmp.Equal(want, ops) {
		t.Errorf("ops %+v (truncated %v), want %+v", ops, truncated, want)
	}
	// Huge texts are bounded.
	a := strings.Repeat("alpha beta ", 3000)
	b := strings.Repeat("gamma delta ", 3000)
	ops, truncated = wordDiff("x "+a, "x "+b)
	if !truncated || len(ops) != 3 || ops[1].Op != OpDelete || ops[2].Op != OpInsert {
		t.Errorf("huge diff: truncated %v, %d ops", truncated, len(ops))
	}
}

func TestDiffByClauseType(t *testing.T) {
	a := &contract.Contract{ID: "m", Title: "Supply Agreement", Text: "TERM two years. LAW New York. CAP none.",
		Clauses: []contract.Clause{
			{Type: "Expiration Date", Text: "TERM two years.", Start: 0, End: 15},
			{Type: "Governing Law", Text: "LAW New York.", Start: 16, End: 29},
			{Type: "Cap On Liability", Text: "CAP none.", Start: 30, End: 39},
		}}
	b := &contract.Contract{ID: "a1", Text: "TERM three years. LAW New  York. AUDIT yearly.",
		Clauses: []contract.Clause{
			{Type: "Expiration Date", Text: "TERM three years.", Start: 0, End: 17},
			{Type: "Governing Law", Text: "LAW New  York.", Start: 18, End: 32},
			{Type: "Audit Rights", Text: "AUDIT yearly.", Start: 33, End: 46},
		}}
	rep := Diff(a, b)
	if rep.By != ByClauseType || rep.Same != 1 {
		t.Fatalf("by %s, same %d", rep.By, rep.Same)
	}
	kinds := map[string]string{}
	for _, c := range rep.Change {
		kinds[c.Key] = c.Kind
		for _, s := range []*Side{c.A, c.B} {
			if s == nil {
				continue
			}
			text := a.Text
			if s == c.B {
				text = b.Text
			}
			if text[s.Start:s.End] != s.Text {
				t.Errorf("%s: side %q is not the text at %d:%d", c.Key, s.Text, s.Start, s.End)
			}
		}
	}
	if diff := cmp.Diff(map[string]string{"Expiration Date": Changed, "Cap On Liability": Removed, "Audit Rights": Added}, kinds); diff != "" {
		t.Errorf("changes (-want +got):\n%s", diff)
	}
	var md, html bytes.Buffer
	if err := WriteDiffMarkdown(&md, rep); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(md.String(), "~~two~~ **three**") || !strings.Contains(md.String(), "1 added, 1 removed, 1 changed, 1 unchanged") {
		t.Errorf("markdown:\n%s", md.String())
	}
	if err := WriteDiffHTML(&html, rep); err != nil {
		t.Fatal(err)
	}
	if h := html.String(); !strings.Contains(h, "<del>two</del> <ins>three</ins>") || strings.Contains(h, "<script") || strings.Contains(h, "http") {
		t.Errorf("html:\n%s", h)
	}
}

func TestDiffBySection(t *testing.T) {
	a := &contract.Contract{ID: "a", Text: "AGREEMENT\n1. Term\nTwo years.\n2. Price\n$10 per unit.\n3. Notices\nBy mail.\n"}
	b := &contract.Contract{ID: "b", Text: "AGREEMENT\n1. Term\nTwo years.\n2. Price\n$12 per unit.\n4. Audit\nYearly.\n"}
	rep := Diff(a, b)
	if rep.By != BySection {
		t.Fatalf("by %s", rep.By)
	}
	got := map[string]string{}
	for _, c := range rep.Change {
		got[c.Key] = c.Kind
	}
	if diff := cmp.Diff(map[string]string{"§ 2": Changed, "§ 3": Removed, "§ 4": Added}, got); diff != "" {
		t.Errorf("changes (-want +got):\n%s", diff)
	}
	if rep.Same != 2 { // the opening and § 1
		t.Errorf("same %d", rep.Same)
	}
}
