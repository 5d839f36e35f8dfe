package demo

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/contractgraph/contractgraph/internal/graph"
	"github.com/contractgraph/contractgraph/internal/tools"
)

// Step is one stop of the guided tour: a question in plain language and the
// tool call that answers it.
type Step struct {
	Question string          `json:"question"`
	Tool     string          `json:"tool"`
	Args     json.RawMessage `json:"args"`
}

// Tour returns the guided tour's steps. Every step's answer is fixed by the
// demo data (dates are explicit, never "today"), so the tour reads the same
// on every machine.
func Tour() []Step {
	return []Step{
		{
			Question: "What kinds of contracts are in the graph?",
			Tool:     tools.NameContractAggregate,
			Args:     json.RawMessage(`{"group_by":"contract_type","metric":"count","limit":5}`),
		},
		{
			Question: "Which of Cascade Instruments' contracts were still in force on 1 July 2025?",
			Tool:     tools.NameContractSearch,
			Args:     json.RawMessage(`{"parties":["cascade instruments"],"active":true,"as_of":"2025-07-01","order_by":"end_date","order":"asc"}`),
		},
		{
			Question: "Which US state's law governs the most contracts?",
			Tool:     tools.NameContractAggregate,
			Args:     json.RawMessage(`{"governing_law_country":"United States","group_by":"governing_law_state","limit":3}`),
		},
		{
			Question: "What does our SaaS agreement with Kestrel Health say about limiting liability?",
			Tool:     tools.NameClauseSearch,
			Args:     json.RawMessage(`{"query":"total liability","parties":["Kestrel Health"],"clause_types":["Liability & Indemnification"],"limit":2}`),
		},
		{
			Question: "Which counterparties are based in Germany, and how many contracts does each have?",
			Tool:     tools.NamePartySearch,
			Args:     json.RawMessage(`{"country":"Germany","limit":3}`),
		},
		{
			Question: "Show me the Nordlicht distribution agreement with its clauses.",
			Tool:     tools.NameGetContract,
			Args:     json.RawMessage(`{"contract_id":"demo-distribution-nordlicht"}`),
		},
	}
}

// Answer is a tour step with its tool result.
type Answer struct {
	Step
	Result json.RawMessage `json:"result"`
}

// RunTour answers every step of the tour with set.
func RunTour(ctx context.Context, set *tools.Set) ([]Answer, error) {
	var out []Answer
	for i, st := range Tour() {
		res, err := set.Call(ctx, st.Tool, st.Args)
		if err != nil {
			return nil, fmt.Errorf("tour step %d (%s): %w", i+1, st.Tool, err)
		}
		out = append(out, Answer{Step: st, Result: res})
	}
	return out, nil
}

// Render prints the answers for a person: each question, the command that
// asks it, and a readable summary of the result.
func Render(w io.Writer, answers []Answer) error {
	var b strings.Builder
	for i, a := range answers {
		fmt.Fprintf(&b, "%d. %s\n", i+1, a.Question)
		fmt.Fprintf(&b, "   $ contractgraph tools call %s %s\n", a.Tool, shellQuote(string(a.Args)))
		if err := renderResult(&b, a.Tool, a.Result); err != nil {
			return fmt.Errorf("render step %d: %w", i+1, err)
		}
		b.WriteString("\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func renderResult(b *strings.Builder, tool string, raw json.RawMessage) error {
	switch tool {
	case tools.NameContractSearch:
		var r graph.ContractResult
		if err := json.Unmarshal(raw, &r); err != nil {
			return err
		}
		fmt.Fprintf(b, "   %s%s\n", matches(r.TotalCount, "contract"), firstN(len(r.Examples), r.TotalCount))
		for _, c := range r.Examples {
			fmt.Fprintf(b, "   - %s: %s (%s), %s to %s", c.ContractID, c.Title, c.ContractType, orDash(c.EffectiveDate), orDash(c.EndDate))
			if c.TotalAmount != nil {
				fmt.Fprintf(b, ", %s %s", c.Currency, amount(*c.TotalAmount))
			}
			b.WriteString("\n")
			var ps []string
			for _, p := range c.Parties {
				ps = append(ps, partyLabel(p.Name, p.Role, p.Country))
			}
			if len(ps) > 0 {
				fmt.Fprintf(b, "     parties: %s\n", strings.Join(ps, "; "))
			}
		}
	case tools.NameContractAggregate:
		var r graph.AggregateResult
		if err := json.Unmarshal(raw, &r); err != nil {
			return err
		}
		width := 0
		for _, g := range r.Groups {
			width = max(width, len([]rune(g.Key)))
		}
		for _, g := range r.Groups {
			switch {
			case g.Value != nil && *g.Value == float64(g.Count):
				// A count: the value is the number of contracts.
				fmt.Fprintf(b, "   %-*s  %s\n", width, g.Key, plural(g.Count, "contract"))
			case g.Value != nil:
				fmt.Fprintf(b, "   %-*s  %s  (%s)\n", width, g.Key, amount(*g.Value), plural(g.Count, "contract"))
			default:
				fmt.Fprintf(b, "   %-*s  no value  (%s)\n", width, g.Key, plural(g.Count, "contract"))
			}
		}
		if r.TotalGroups > len(r.Groups) {
			fmt.Fprintf(b, "   ... %d groups in all\n", r.TotalGroups)
		}
	case tools.NamePartySearch:
		var r graph.PartyResult
		if err := json.Unmarshal(raw, &r); err != nil {
			return err
		}
		fmt.Fprintf(b, "   %s%s\n", matches(r.TotalCount, "party"), firstN(len(r.Examples), r.TotalCount))
		for _, p := range r.Examples {
			fmt.Fprintf(b, "   - %s (%s): %s", p.Name, orDash(p.Country), plural(p.ContractCount, "contract"))
			if n := len(p.ContractTypes); n > 0 {
				types := p.ContractTypes[:min(n, maxTypesShown)]
				fmt.Fprintf(b, " (%s", strings.Join(types, ", "))
				if n > len(types) {
					fmt.Fprintf(b, " and %d more types", n-len(types))
				}
				b.WriteString(")")
			}
			b.WriteString("\n")
		}
	case tools.NameClauseSearch:
		var r tools.ClauseResult
		if err := json.Unmarshal(raw, &r); err != nil {
			return err
		}
		fmt.Fprintf(b, "   %s:\n", plural(len(r.Passages), "passage"))
		for _, p := range r.Passages {
			fmt.Fprintf(b, "   - %s, %s, bytes %d-%d%s:\n", p.ContractID, orDash(p.ClauseType), p.Start, p.End, verifiedNote(p.Verified))
			fmt.Fprintf(b, "     %q\n", abbreviate(p.Text, 220))
		}
	case tools.NameGetContract:
		var r tools.ContractRecord
		if err := json.Unmarshal(raw, &r); err != nil {
			return err
		}
		fmt.Fprintf(b, "   %s (%s), %s to %s", r.Title, r.ContractType, orDash(r.EffectiveDate), orDash(r.EndDate))
		if r.TotalAmount != nil {
			fmt.Fprintf(b, ", %s %s", r.Currency, amount(*r.TotalAmount))
		}
		b.WriteString("\n")
		if gl := r.GoverningLaw; !gl.IsZero() {
			fmt.Fprintf(b, "   governing law: %s\n", strings.Trim(gl.Country+" "+gl.State, " "))
		}
		for _, p := range r.Parties {
			country := ""
			if p.Location != nil {
				country = p.Location.Country
			}
			fmt.Fprintf(b, "   party: %s\n", partyLabel(p.Name, p.Role, country))
		}
		verified := 0
		for _, c := range r.Clauses {
			if c.Verified {
				verified++
			}
		}
		fmt.Fprintf(b, "   %s (%d verified against the %d-byte text):\n", plural(len(r.Clauses), "clause"), verified, r.TextLength)
		for _, c := range r.Clauses {
			fmt.Fprintf(b, "   - %s [%d-%d]: %s\n", c.Type, c.Start, c.End, c.Summary)
		}
	default:
		fmt.Fprintf(b, "   %s\n", raw)
	}
	return nil
}

// maxTypesShown is how many of a party's contract types the tour lists.
const maxTypesShown = 4

func partyLabel(name, role, country string) string {
	var extra []string
	for _, s := range []string{role, country} {
		if s != "" {
			extra = append(extra, s)
		}
	}
	if len(extra) == 0 {
		return name
	}
	return name + " (" + strings.Join(extra, ", ") + ")"
}

func verifiedNote(v bool) string {
	if v {
		return ", verified"
	}
	return ""
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// matches says how many things match: "1 party matches", "3 parties match".
func matches(n int, noun string) string {
	if n == 1 {
		return plural(n, noun) + " matches"
	}
	return plural(n, noun) + " match"
}

// firstN introduces the examples shown.
func firstN(shown, total int) string {
	switch {
	case shown == 0:
		return "."
	case shown < total:
		return fmt.Sprintf("; the first %d:", shown)
	}
	return ":"
}

func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	if strings.HasSuffix(noun, "y") {
		return fmt.Sprintf("%d %sies", n, strings.TrimSuffix(noun, "y"))
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// amount formats a number with thousands separators and at most two
// decimals: 1234567.5 becomes "1,234,567.50", 42 stays "42".
func amount(v float64) string {
	neg := v < 0
	if neg {
		v = -v
	}
	s := strconv.FormatFloat(v, 'f', 2, 64)
	intPart, frac, _ := strings.Cut(s, ".")
	var b strings.Builder
	for i, r := range intPart {
		if i > 0 && (len(intPart)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	if frac != "00" {
		b.WriteString("." + frac)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}

func abbreviate(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "..."
	}
	return s
}

// shellQuote quotes s for a POSIX shell.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
