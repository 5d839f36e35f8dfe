package agent

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/contractgraph/contractgraph/internal/graph"
	"github.com/contractgraph/contractgraph/internal/tools"
)

// composeRows bounds the rows a composed answer lists.
const composeRows = 5

// composedLead opens every composed answer, so a reader never takes it
// for the model's own words.
const composedLead = "The model gave no answer text, so this answer was composed from the last tool result."

// composeAnswer states deterministically what one successful tool result
// says, for when the model wrote no answer: the count and the first rows
// of a search, the first groups of an aggregate, the record fetched. It is
// plain text the citations are then drawn from, like a model's answer.
func composeAnswer(name string, args, result json.RawMessage) string {
	var b strings.Builder
	b.WriteString(composedLead)
	b.WriteString("\n")
	call := name + " " + compactArgs(args)
	if !composeKnown(&b, name, call, result) {
		fmt.Fprintf(&b, "%s returned: %s", call, clip(compactArgs(result), 800))
	}
	return strings.TrimRight(b.String(), "\n")
}

// composeKnown writes the summary of a result of one of the standard
// tools; false when the result does not decode as that tool's.
func composeKnown(b *strings.Builder, name, call string, result json.RawMessage) bool {
	switch name {
	case tools.NameContractSearch:
		var r graph.ContractResult
		if json.Unmarshal(result, &r) != nil {
			return false
		}
		head(b, call, "found", r.TotalCount, len(r.Examples), "contract", "contracts")
		for _, c := range firstN(r.Examples) {
			fmt.Fprintf(b, "- %s%s%s\n", c.ContractID, titled(c.Title), details(c.ContractType, dated("effective", c.EffectiveDate), dated("ends", c.EndDate), amount(c.TotalAmount, c.Currency)))
		}
	case tools.NamePartySearch:
		var r graph.PartyResult
		if json.Unmarshal(result, &r) != nil {
			return false
		}
		head(b, call, "found", r.TotalCount, len(r.Examples), "party", "parties")
		for _, p := range firstN(r.Examples) {
			fmt.Fprintf(b, "- %s%s\n", p.Name, details(p.Country, plural(p.ContractCount, "contract", "contracts"), strings.Join(p.ContractTypes, ", ")))
		}
	case tools.NameContractAggregate:
		var r graph.AggregateResult
		if json.Unmarshal(result, &r) != nil {
			return false
		}
		head(b, call, "returned", r.TotalGroups, len(r.Groups), "group", "groups")
		for _, g := range firstN(r.Groups) {
			key := g.Key
			if key == "" {
				key = "(none)"
			}
			if g.Value != nil && *g.Value != float64(g.Count) {
				fmt.Fprintf(b, "- %s: %s (%s)\n", key, number(*g.Value), plural(g.Count, "contract", "contracts"))
			} else {
				fmt.Fprintf(b, "- %s: %s\n", key, plural(g.Count, "contract", "contracts"))
			}
		}
	case tools.NameClauseSearch:
		var r tools.ClauseResult
		if json.Unmarshal(result, &r) != nil {
			return false
		}
		head(b, call, "returned", len(r.Passages), len(r.Passages), "passage", "passages")
		for _, p := range firstN(r.Passages) {
			if p.SummaryOnly() {
				// A summary is stated as one, never quoted as the contract's words.
				fmt.Fprintf(b, "- %s%s (summary): %s\n", p.ContractID, details(p.ClauseType), clip(strings.Join(strings.Fields(p.Summary), " "), 200))
				continue
			}
			fmt.Fprintf(b, "- %s%s: %q\n", p.ContractID, details(p.ClauseType), clip(strings.Join(strings.Fields(p.Text), " "), 200))
		}
	case tools.NameGetContract:
		var r tools.ContractRecord
		if json.Unmarshal(result, &r) != nil || r.ID == "" {
			return false
		}
		var parties []string
		for _, p := range r.Parties {
			parties = append(parties, p.Name)
		}
		law := ""
		if r.GoverningLaw != nil {
			law = strings.Trim(r.GoverningLaw.Country+"-"+r.GoverningLaw.State, "-")
			if law != "" {
				law = "governing law " + law
			}
		}
		partyList := ""
		if len(parties) > 0 {
			partyList = "parties " + strings.Join(parties, "; ")
		}
		fmt.Fprintf(b, "%s returned %s%s%s\n", call, r.ID, titled(r.Title),
			details(r.ContractType, dated("effective", r.EffectiveDate), dated("ends", r.EndDate), amount(r.TotalAmount, r.Currency), law, partyList))
	case tools.NameClauseCompare:
		var r tools.ClauseCompareResult
		if json.Unmarshal(result, &r) != nil || r.ClauseType == "" {
			return false
		}
		fmt.Fprintf(b, "%s compared %s of %s in %s: %s and %s.\n", call, plural(r.Compared, "clause", "clauses"), r.ClauseType,
			plural(r.TotalContracts, "contract", "contracts"), plural(r.TotalGroups, "group", "groups"), plural(r.TotalOutliers, "outlier", "outliers"))
		for _, g := range firstN(r.Groups) {
			rep := g.Representative
			fmt.Fprintf(b, "- group %d, %s, like %s: %q\n", g.ID, plural(g.Size, "clause", "clauses"), rep.ContractID, clip(strings.Join(strings.Fields(rep.Passage()), " "), 200))
		}
	case tools.NameStatuteSearch:
		var r tools.StatuteSearchResult
		if json.Unmarshal(result, &r) != nil {
			return false
		}
		head(b, call, "returned", len(r.Statutes), len(r.Statutes), "statute", "statutes")
		for _, s := range firstN(r.Statutes) {
			fmt.Fprintf(b, "- %s%s (%s)\n", s.Citation, titled(s.Heading), s.StatuteID)
		}
	default:
		return false
	}
	return true
}

// head writes "CALL found 72 contracts. The first 5:" and its variants.
func head(b *strings.Builder, call, verb string, total, shown int, one, many string) {
	switch {
	case total == 0:
		fmt.Fprintf(b, "%s %s no %s.\n", call, verb, many)
	case shown == 0:
		fmt.Fprintf(b, "%s %s %s.\n", call, verb, plural(total, one, many))
	case shown >= total && total <= composeRows:
		fmt.Fprintf(b, "%s %s %s:\n", call, verb, plural(total, one, many))
	default:
		fmt.Fprintf(b, "%s %s %s; the first %d:\n", call, verb, plural(total, one, many), min(shown, composeRows))
	}
}

func firstN[T any](xs []T) []T { return xs[:min(len(xs), composeRows)] }

func titled(t string) string {
	if t == "" {
		return ""
	}
	return ": " + t
}

// details is " (a; b; c)" of the non-empty parts, or "".
func details(parts ...string) string {
	var keep []string
	for _, p := range parts {
		if p != "" {
			keep = append(keep, p)
		}
	}
	if len(keep) == 0 {
		return ""
	}
	return " (" + strings.Join(keep, "; ") + ")"
}

func dated(label, date string) string {
	if date == "" {
		return ""
	}
	return label + " " + date
}

func amount(v *float64, currency string) string {
	if v == nil {
		return ""
	}
	return strings.TrimSpace(number(*v) + " " + currency)
}

func number(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}

func compactArgs(b json.RawMessage) string {
	var buf bytes.Buffer
	if json.Compact(&buf, b) != nil {
		return string(b)
	}
	return buf.String()
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && cut < len(s) && s[cut]&0xC0 == 0x80 {
		cut--
	}
	return s[:cut] + "…"
}
