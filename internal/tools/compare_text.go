package tools

import (
	"fmt"
	"strings"

	"github.com/contractgraph/contractgraph/internal/compare"
)

// maxCompareQuoteRunes bounds a clause as WriteText shows it in a
// comparison; --json has what the call asked for.
const maxCompareQuoteRunes = 300

func (p *printer) comparison(r ClauseCompareResult) {
	p.partyMatches(r.PartyMatches)
	head := fmt.Sprintf("%s: %s in %s", r.ClauseType, plural(r.TotalClauses, "clause"), plural(r.TotalContracts, "contract"))
	if r.Compared < r.TotalClauses {
		head += fmt.Sprintf(", the first %d compared", r.Compared)
	}
	p.line(p.st.bold(head))
	p.line(p.st.dim(fmt.Sprintf("%s and %s at similarity threshold %.2f", plural(r.TotalGroups, "group"), plural(r.TotalOutliers, "outlier"), r.Threshold)))
	for _, g := range r.Groups {
		p.line("")
		p.line(p.st.bold(fmt.Sprintf("Group %d", g.ID)) + p.st.dim(fmt.Sprintf(" · %s in %s · cohesion %.2f", plural(g.Size, "clause"), plural(g.Contracts, "contract"), g.Cohesion)))
		if terms := keyTermsLine(g.KeyTerms); terms != "" {
			p.wrapped("  key terms: ", terms)
		}
		p.clauseRef("  ", "representative ", g.Representative.Clause, "")
		p.wrapped("    ", quoteText(g.Representative.Text+g.Representative.Summary, maxCompareQuoteRunes))
		if len(g.Members) > 0 {
			refs := make([]string, len(g.Members))
			for i, m := range g.Members {
				refs[i] = fmt.Sprintf("%s (%.2f)", m.ContractID, m.Similarity)
			}
			also := strings.Join(refs, ", ")
			if g.MoreMembers > 0 {
				also += fmt.Sprintf(" and %d more", g.MoreMembers)
			}
			p.wrapped("  also: ", also)
		}
	}
	if hidden := r.TotalGroups - len(r.Groups); hidden > 0 {
		p.line("")
		p.line(p.st.dim(fmt.Sprintf("%s more not shown (groups raises the number listed)", plural(hidden, "group"))))
	}
	if len(r.Outliers) == 0 {
		return
	}
	p.line("")
	p.line(p.st.bold("Outliers") + p.st.dim(shown(len(r.Outliers), r.TotalOutliers)))
	for i, o := range r.Outliers {
		where := "no group"
		if o.Group > 0 {
			where = fmt.Sprintf("group %d", o.Group)
		}
		p.clauseRef(fmt.Sprintf("%d. ", i+1), "", o.Clause, where+" · "+strings.Join(o.Reasons, ", "))
		for _, d := range o.Details {
			p.wrapped("   ", d)
		}
		p.wrapped("   ", quoteText(o.Text+o.Summary, maxCompareQuoteRunes))
	}
}

// clauseRef writes a clause's contract and span on one line.
func (p *printer) clauseRef(prefix, label string, c compare.Clause, extra string) {
	facts := []string{}
	if c.End > c.Start {
		facts = append(facts, fmt.Sprintf("bytes %d-%d", c.Start, c.End))
	} else {
		facts = append(facts, "summary, not a quote")
	}
	if extra != "" {
		facts = append(facts, extra)
	}
	p.line(prefix + label + p.st.bold(c.ContractID) + p.st.dim(" · "+strings.Join(facts, " · ")))
}

// keyTermsLine says a group's key terms: "cap median 1,000,000 USD
// (500,000 USD to 2,000,000 USD), 5 clauses".
func keyTermsLine(ts []compare.TermSummary) string {
	parts := make([]string, len(ts))
	for i, t := range ts {
		with := func(v float64) string { return compare.FormatValue(v, t.Unit, t.Currency) }
		s := t.Kind + " "
		if t.Count == 1 || t.Min == t.Max {
			s += with(t.Median)
		} else {
			s += fmt.Sprintf("median %s (%s to %s)", with(t.Median), with(t.Min), with(t.Max))
		}
		parts[i] = s + ", " + plural(t.Count, "clause")
	}
	return strings.Join(parts, "; ")
}
