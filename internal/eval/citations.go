package eval

import (
	"context"
	"encoding/json"
	"regexp"
	"slices"
	"strings"
	"unicode"

	"github.com/contractgraph/contractgraph/internal/agent"
	"github.com/contractgraph/contractgraph/internal/tools"
)

// A citation holds when the contract it names was returned by a tool in
// the same run. The agent already drops such ids from its checked
// citations, so the check here reads what the model itself wrote:
//
//  1. its "Sources:" line (the last one, with bulleted continuation lines):
//     after removing the ids and titles of contracts the tools returned,
//     anything left that is not a separator, "none" or a tool name is an
//     id no tool returned;
//  2. its prose: words shaped like ids (letters and digits joined by "-"
//     or "_") that name a stored contract no tool returned.
//
// A contract named in the question counts as returned, so "Show me
// demo-saas-kestrel" may be answered from memory of the question.

// returned collects the contract ids and titles tool results named.
type returned struct {
	ids    map[string]bool // lower-cased
	titles map[string]bool // lower-cased
	order  []string
}

func newReturned() *returned {
	return &returned{ids: map[string]bool{}, titles: map[string]bool{}}
}

func (r *returned) add(tool string, res json.RawMessage) {
	var v any
	if json.Unmarshal(res, &v) != nil {
		return
	}
	if obj, ok := v.(map[string]any); ok && tool == tools.NameGetContract {
		if id, ok := obj["id"].(string); ok {
			r.addID(id, obj["title"])
		}
	}
	r.walk(v)
}

func (r *returned) walk(v any) {
	switch v := v.(type) {
	case map[string]any:
		if id, ok := v["contract_id"].(string); ok {
			r.addID(id, v["title"])
		}
		for _, x := range v {
			r.walk(x)
		}
	case []any:
		for _, x := range v {
			r.walk(x)
		}
	}
}

func (r *returned) addID(id string, title any) {
	if id == "" {
		return
	}
	k := strings.ToLower(id)
	if !r.ids[k] {
		r.ids[k] = true
		r.order = append(r.order, id)
	}
	if t, ok := title.(string); ok && strings.TrimSpace(t) != "" {
		r.titles[strings.ToLower(strings.TrimSpace(t))] = true
	}
}

var (
	sourcesRe = regexp.MustCompile(`(?im)^[ \t>*_#-]*sources?[ \t]*[:*_]+[*_]*[ \t]*(.*)$`)
	idWordRe  = regexp.MustCompile(`[\p{L}\p{N}][\p{L}\p{N}._]*(?:[-_][\p{L}\p{N}._]+)+`)
	dateish   = regexp.MustCompile(`^[\d._-]+$`)
)

// sourcesLine returns the content of the last "Sources:" line of text and
// of the bulleted lines that continue it.
func sourcesLine(text string) string {
	locs := sourcesRe.FindAllStringSubmatchIndex(text, -1)
	if len(locs) == 0 {
		return ""
	}
	last := locs[len(locs)-1]
	out := text[last[2]:last[3]]
	for i, line := range strings.Split(text[last[1]:], "\n") {
		t := strings.TrimSpace(line)
		if t == "" && i <= 1 {
			continue
		}
		if !strings.HasPrefix(t, "-") && !strings.HasPrefix(t, "*") && !strings.HasPrefix(t, "•") {
			break
		}
		out += "\n" + t
	}
	return out
}

// unreturnedSources lists what the model's Sources line names beyond the
// returned contracts and the question's own words.
func unreturnedSources(raw string, ret *returned, question string, toolNames []string) []string {
	src := sourcesLine(raw)
	if strings.TrimSpace(src) == "" {
		return nil
	}
	// ASCII lower-casing keeps byte offsets, so matches found in lower
	// can be blanked in src.
	lower := asciiLower(src)
	masked := []byte(src)
	// Remove the longest known names first, so an id that is a prefix of
	// another does not leave the other's tail behind.
	known := make([]string, 0, len(ret.ids)+len(ret.titles))
	for id := range ret.ids {
		known = append(known, id)
	}
	for t := range ret.titles {
		known = append(known, t)
	}
	slices.SortFunc(known, func(a, b string) int {
		if len(a) != len(b) {
			return len(b) - len(a)
		}
		return strings.Compare(a, b)
	})
	for _, k := range known {
		k = asciiLower(k)
		for from := 0; ; {
			i := strings.Index(lower[from:], k)
			if i < 0 {
				break
			}
			i += from
			for j := i; j < i+len(k); j++ {
				masked[j] = ' '
			}
			lower = lower[:i] + strings.Repeat(" ", len(k)) + lower[i+len(k):]
			from = i + len(k)
		}
	}
	q := strings.ToLower(question)
	var out []string
	for _, part := range strings.FieldsFunc(string(masked), func(r rune) bool { return r == ',' || r == ';' || r == '\n' }) {
		p := strings.TrimFunc(part, func(r rune) bool {
			return unicode.IsSpace(r) || strings.ContainsRune("-*•`'\"()[]{}.:<>", r)
		})
		if rest, ok := strings.CutPrefix(p, "and "); ok {
			p = strings.TrimSpace(rest)
		}
		lp := strings.ToLower(p)
		switch {
		case lp == "", lp == "none", lp == "n/a", lp == "and", lp == "contract_id":
			continue
		case slices.Contains(toolNames, lp), strings.Contains(q, lp):
			continue
		case agent.SchemaWord(p), strings.ContainsAny(part, "{}") || strings.Contains(part, `":`):
			// Field or tool names, or a tool call written on the Sources
			// line: noise, not a claim that some contract says so.
			continue
		case startsWithTool(lp, toolNames):
			continue
		}
		out = append(out, p)
	}
	return out
}

// startsWithTool reports a Sources item that begins with a tool's name and
// a space ("contract_search with contract_type Distributor").
func startsWithTool(item string, toolNames []string) bool {
	for _, n := range toolNames {
		if strings.HasPrefix(item, n+" ") {
			return true
		}
	}
	return false
}

// asciiLower lower-cases ASCII letters only, keeping byte offsets.
func asciiLower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

// unreturnedMentions lists the id-shaped words of the answer's prose that
// name a stored contract no tool returned. lookup tells whether an id is a
// stored contract.
func unreturnedMentions(ctx context.Context, body string, ret *returned, question string, lookup func(context.Context, string) bool) []string {
	const maxLookups = 40
	q := strings.ToLower(question)
	var out []string
	seen := map[string]bool{}
	for _, w := range idWordRe.FindAllString(body, -1) {
		w = strings.TrimRight(w, "._")
		k := strings.ToLower(w)
		if seen[k] || ret.ids[k] || dateish.MatchString(w) || strings.Contains(q, k) {
			continue
		}
		seen[k] = true
		if len(seen) > maxLookups {
			break
		}
		if lookup(ctx, w) {
			out = append(out, w)
		}
	}
	return out
}

// citationCheck finds every contract the model named that no tool
// returned in the run: in its raw reply's Sources line, in the prose, and
// (a safety net, the agent guarantees it) in the checked citations.
func citationCheck(ctx context.Context, raw, body string, cites []agent.Citation, ret *returned, question string, tb agent.Toolbox) []string {
	var names []string
	for _, t := range tb.Tools() {
		names = append(names, t.Name)
	}
	bad := unreturnedSources(raw, ret, question, names)
	lookup := func(ctx context.Context, id string) bool {
		args, _ := json.Marshal(tools.GetContractInput{ContractID: id})
		_, err := tb.Call(ctx, tools.NameGetContract, args)
		return err == nil
	}
	text := body
	if text == "" {
		text = raw
	}
	for _, m := range unreturnedMentions(ctx, text, ret, question, lookup) {
		if !slices.ContainsFunc(bad, func(b string) bool { return strings.EqualFold(b, m) }) {
			bad = append(bad, m)
		}
	}
	for _, c := range cites {
		if !ret.ids[strings.ToLower(c.ContractID)] && !slices.ContainsFunc(bad, func(b string) bool { return strings.EqualFold(b, c.ContractID) }) {
			bad = append(bad, c.ContractID)
		}
	}
	return bad
}
