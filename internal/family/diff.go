package family

import (
	"regexp"
	"sort"
	"strings"

	"github.com/contractgraph/contractgraph/internal/contract"
)

// Change kinds of a clause diff.
const (
	Added   = "added"
	Removed = "removed"
	Changed = "changed"
)

// Word operations of a changed clause's word diff.
const (
	OpEqual  = "equal"
	OpInsert = "insert"
	OpDelete = "delete"
)

// maxLCSCells bounds the word diff's table (words of A times words of B
// after trimming the common prefix and suffix); larger texts are reported
// as a whole deletion and insertion, with Truncated set.
const maxLCSCells = 4_000_000

// Side is one version's words of an aligned unit: the text and its byte
// span in that contract's text (Start and End 0 for a clause never located
// in the text).
type Side struct {
	Text  string `json:"text"`
	Start int    `json:"start"`
	End   int    `json:"end"`
}

// WordOp is one run of the word diff: words both versions share, or that
// only B (insert) or only A (delete) has.
type WordOp struct {
	Op   string `json:"op"`
	Text string `json:"text"`
}

// Change is one aligned unit (a clause type, or a section) that differs
// between the versions.
type Change struct {
	// Key is what aligned the unit: a CUAD clause type, or a section's
	// number or heading.
	Key  string `json:"key"`
	Kind string `json:"kind"` // Added, Removed or Changed
	A    *Side  `json:"a,omitempty"`
	B    *Side  `json:"b,omitempty"`
	// Words is the word diff of a changed unit.
	Words []WordOp `json:"words,omitempty"`
	// Truncated says the unit was too long for a word diff.
	Truncated bool `json:"truncated,omitempty"`
}

// DiffReport compares contract A (the earlier version, usually the
// master) with B clause by clause.
type DiffReport struct {
	A      DiffContract `json:"a"`
	B      DiffContract `json:"b"`
	By     string       `json:"by"` // "clause type" or "section"
	Same   int          `json:"unchanged"`
	Change []Change     `json:"changes"`
}

// DiffContract names one side of a diff.
type DiffContract struct {
	ID    string `json:"id"`
	Title string `json:"title,omitempty"`
}

// Alignments of a diff.
const (
	ByClauseType = "clause type"
	BySection    = "section"
)

// unit is one aligned part of a contract.
type unit struct {
	key  string
	side Side
}

// Diff compares a with b: by CUAD clause type when both have clauses with
// text, otherwise by the numbered or titled sections of their texts
// (matched by number, else by heading). Units only b has are added, only a
// has removed, and those whose words differ (white space aside) changed,
// with a word-level diff.
func Diff(a, b *contract.Contract) DiffReport {
	rep := DiffReport{A: DiffContract{a.ID, a.Title}, B: DiffContract{b.ID, b.Title}, Change: []Change{}}
	ua, ub := clauseUnits(a), clauseUnits(b)
	rep.By = ByClauseType
	if len(ua) == 0 || len(ub) == 0 {
		ua, ub = sectionUnits(a.Text), sectionUnits(b.Text)
		rep.By = BySection
	}
	inB := map[string]unit{}
	for _, u := range ub {
		inB[u.key] = u
	}
	inA := map[string]bool{}
	for _, u := range ua {
		inA[u.key] = true
		other, ok := inB[u.key]
		switch {
		case !ok:
			s := u.side
			rep.Change = append(rep.Change, Change{Key: u.key, Kind: Removed, A: &s})
		case normSpace(u.side.Text) == normSpace(other.side.Text):
			rep.Same++
		default:
			sa, sb := u.side, other.side
			ops, truncated := wordDiff(sa.Text, sb.Text)
			rep.Change = append(rep.Change, Change{Key: u.key, Kind: Changed, A: &sa, B: &sb, Words: ops, Truncated: truncated})
		}
	}
	for _, u := range ub {
		if !inA[u.key] {
			s := u.side
			rep.Change = append(rep.Change, Change{Key: u.key, Kind: Added, B: &s})
		}
	}
	return rep
}

// clauseUnits are a contract's clauses with text, one unit per type (the
// texts of a type's clauses joined in order, spanning from the first to
// the last).
func clauseUnits(c *contract.Contract) []unit {
	var out []unit
	at := map[string]int{}
	for _, cl := range c.Clauses {
		if strings.TrimSpace(cl.Text) == "" || cl.Type == "" {
			continue
		}
		i, ok := at[cl.Type]
		if !ok {
			at[cl.Type] = len(out)
			out = append(out, unit{key: cl.Type, side: Side{Text: cl.Text, Start: cl.Start, End: cl.End}})
			continue
		}
		u := &out[i]
		u.side.Text += "\n" + cl.Text
		if cl.Start < u.side.Start {
			u.side.Start = cl.Start
		}
		if cl.End > u.side.End {
			u.side.End = cl.End
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].key < out[j].key })
	return out
}

var sectionHeadingRE = regexp.MustCompile(`(?m)^[ \t]*(?:(?:ARTICLE|Article|SECTION|Section)\s+)?(\d{1,3}(?:\.\d{1,3})*|[IVXL]{1,6})[.)]?[ \t]+([^\n]{0,80})$`)

// sectionUnits splits text at its numbered headings ("5.", "5.1",
// "Section 5", "ARTICLE IV"), one unit per section keyed by its number; a
// text with no heading is one unit, "(whole text)".
func sectionUnits(text string) []unit {
	locs := sectionHeadingRE.FindAllStringSubmatchIndex(text, -1)
	var out []unit
	seen := map[string]bool{}
	if len(locs) == 0 || strings.TrimSpace(text[:locs[0][0]]) != "" {
		end := len(text)
		if len(locs) > 0 {
			end = locs[0][0]
		}
		if strings.TrimSpace(text[:end]) != "" {
			out = append(out, unit{key: "(opening)", side: Side{Text: text[:end], Start: 0, End: end}})
			if len(locs) == 0 {
				out[0].key = "(whole text)"
			}
		}
	}
	for i, m := range locs {
		end := len(text)
		if i+1 < len(locs) {
			end = locs[i+1][0]
		}
		key := "§ " + text[m[2]:m[3]]
		if seen[key] {
			// A repeated number (a second list, an exhibit): keep the
			// units apart by their order.
			key += " (" + strings.TrimSpace(text[m[4]:m[5]]) + ")"
		}
		seen[key] = true
		out = append(out, unit{key: key, side: Side{Text: text[m[0]:end], Start: m[0], End: end}})
	}
	return out
}

// wordDiff is the word-level diff of a and b: the longest common
// subsequence of their words, after the common prefix and suffix, when
// the rest is small enough (maxLCSCells); otherwise the rest is one
// deletion and one insertion and truncated is true.
func wordDiff(a, b string) (ops []WordOp, truncated bool) {
	wa, wb := strings.Fields(a), strings.Fields(b)
	pre := 0
	for pre < len(wa) && pre < len(wb) && wa[pre] == wb[pre] {
		pre++
	}
	suf := 0
	for suf < len(wa)-pre && suf < len(wb)-pre && wa[len(wa)-1-suf] == wb[len(wb)-1-suf] {
		suf++
	}
	var out opList
	out.add(OpEqual, wa[:pre])
	ma, mb := wa[pre:len(wa)-suf], wb[pre:len(wb)-suf]
	if len(ma)*len(mb) > maxLCSCells {
		out.add(OpDelete, ma)
		out.add(OpInsert, mb)
		truncated = true
	} else {
		lcsOps(&out, ma, mb)
	}
	out.add(OpEqual, wa[len(wa)-suf:])
	return out.ops, truncated
}

// lcsOps appends the diff of a and b by their longest common subsequence.
func lcsOps(out *opList, a, b []string) {
	n, m := len(a), len(b)
	// l[i][j] is the LCS length of a[i:] and b[j:], in one slice.
	l := make([]int32, (n+1)*(m+1))
	at := func(i, j int) int32 { return l[i*(m+1)+j] }
	for i := n - 1; i >= 0; i-- {
		for j := m - 1; j >= 0; j-- {
			if a[i] == b[j] {
				l[i*(m+1)+j] = at(i+1, j+1) + 1
			} else {
				l[i*(m+1)+j] = max(at(i+1, j), at(i, j+1))
			}
		}
	}
	i, j := 0, 0
	for i < n && j < m {
		switch {
		case a[i] == b[j]:
			out.add(OpEqual, a[i:i+1])
			i, j = i+1, j+1
		case at(i+1, j) >= at(i, j+1):
			out.add(OpDelete, a[i:i+1])
			i++
		default:
			out.add(OpInsert, b[j:j+1])
			j++
		}
	}
	out.add(OpDelete, a[i:])
	out.add(OpInsert, b[j:])
}

// opList builds word runs, merging consecutive words of one operation.
type opList struct{ ops []WordOp }

func (o *opList) add(op string, words []string) {
	if len(words) == 0 {
		return
	}
	text := strings.Join(words, " ")
	if n := len(o.ops); n > 0 && o.ops[n-1].Op == op {
		o.ops[n-1].Text += " " + text
		return
	}
	o.ops = append(o.ops, WordOp{Op: op, Text: text})
}

func normSpace(s string) string { return strings.Join(strings.Fields(s), " ") }
