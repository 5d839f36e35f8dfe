package risk

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"html/template"
	"io"
	"strings"
)

// WriteJSON writes the report as indented JSON.
func WriteJSON(w io.Writer, rep *Report) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(rep); err != nil {
		return fmt.Errorf("write JSON report: %w", err)
	}
	return nil
}

// clauseContext is a clause shown inside its surrounding text.
type clauseContext struct {
	Number, Start, End   int
	Before, Match, After string
}

// contextPad is how many bytes of text surround a clause in context.
const contextPad = 240

// clauseContexts cuts each item's clause with some text around it.
func clauseContexts(rep *Report) []clauseContext {
	text := rep.ContractText
	var out []clauseContext
	for _, it := range rep.Items {
		if it.ClauseStart < 0 || it.ClauseEnd > len(text) || it.ClauseStart >= it.ClauseEnd {
			continue
		}
		from := runeStart(text, max(0, it.ClauseStart-contextPad))
		to := runeStart(text, min(len(text), it.ClauseEnd+contextPad))
		before, after := text[from:it.ClauseStart], text[it.ClauseEnd:to]
		if from > 0 {
			before = "…" + before
		}
		if to < len(text) {
			after += "…"
		}
		out = append(out, clauseContext{Number: it.Number, Start: it.ClauseStart, End: it.ClauseEnd, Before: before, Match: text[it.ClauseStart:it.ClauseEnd], After: after})
	}
	return out
}

// riskProfile counts the items per risk level, e.g. "2 High · 1 Medium · 0 Low".
func riskProfile(items []ReportItem) string {
	parts := make([]string, len(levels))
	for i, l := range levels {
		n := 0
		for _, it := range items {
			if it.RiskLevel == l {
				n++
			}
		}
		parts[i] = fmt.Sprintf("%d %s", n, l)
	}
	return strings.Join(parts, " · ")
}

// runeStart moves i back to the start of the rune it falls in.
func runeStart(s string, i int) int {
	for i > 0 && i < len(s) && s[i]&0xC0 == 0x80 {
		i--
	}
	return i
}

//go:embed report.html.tmpl
var htmlReportSource string

// htmlReport is parsed once; it is fixed at build time.
var htmlReport = template.Must(template.New("report").Funcs(template.FuncMap{
	"clip":      clip,
	"hasPrefix": strings.HasPrefix,
	"profile":   riskProfile,
}).Parse(htmlReportSource))

// WriteHTML writes the report as one self-contained, printable HTML page:
// inline CSS, no scripts, no external resources. Links are the statutes'
// official pages and anchors to each clause shown in its context.
func WriteHTML(w io.Writer, rep *Report) error {
	return WriteHTMLWith(w, rep, HTMLOptions{})
}

// HTMLOptions adjust the HTML report.
type HTMLOptions struct {
	// SpanURL, when set, also links each clause reference to the clause in
	// a contract viewer, e.g. the web app's /contracts/{id}?span=START-END.
	SpanURL func(start, end int) string
}

// WriteHTMLWith is WriteHTML with options.
func WriteHTMLWith(w io.Writer, rep *Report, opts HTMLOptions) error {
	links := map[int]string{}
	if opts.SpanURL != nil {
		for _, it := range rep.Items {
			links[it.Number] = opts.SpanURL(it.ClauseStart, it.ClauseEnd)
		}
	}
	data := struct {
		R         *Report
		Clauses   []clauseContext
		SpanLinks map[int]string
	}{rep, clauseContexts(rep), links}
	if err := htmlReport.Execute(w, data); err != nil {
		return fmt.Errorf("write HTML report: %w", err)
	}
	return nil
}

// WriteMarkdown writes the report as Markdown.
func WriteMarkdown(w io.Writer, rep *Report) error {
	var b strings.Builder
	fmt.Fprintf(&b, "# Contract risk review: %s\n\n", md(rep.ContractID))
	var meta []string
	if rep.ContractTitle != "" && rep.ContractTitle != rep.ContractID {
		meta = append(meta, md(rep.ContractTitle))
	}
	if rep.ContractType != "" {
		meta = append(meta, md(rep.ContractType))
	}
	if rep.Jurisdiction != "" {
		meta = append(meta, "jurisdiction "+md(rep.Jurisdiction))
	}
	meta = append(meta, rep.Mode+" mode", "generated "+rep.GeneratedAt)
	b.WriteString(strings.Join(meta, " · ") + "\n\n")
	for _, n := range rep.Notices {
		fmt.Fprintf(&b, "> **%s**\n\n", md(n))
	}

	b.WriteString("## Executive summary\n\n")
	if s := rep.Summary; s != nil {
		for _, ci := range s.CoreIssues {
			fmt.Fprintf(&b, "- %s\n", md(ci))
		}
		if len(s.CoreIssues) > 0 {
			b.WriteString("\n")
		}
		fmt.Fprintf(&b, "%s\n\n", md(s.Conclusion))
	} else {
		b.WriteString("No executive summary was written.\n\n")
	}

	b.WriteString("## Risks\n\n")
	fmt.Fprintf(&b, "%s\n\n", riskProfile(rep.Items))
	if len(rep.Items) == 0 {
		b.WriteString("No risk item was validated.\n\n")
	} else {
		b.WriteString("| # | Clause | Risk | Applicable law | Reasoning | Recommendation |\n|---|---|---|---|---|---|\n")
		for _, it := range rep.Items {
			var law []string
			for _, c := range it.Citations {
				ref := cell(c.Citation)
				if c.URL != "" {
					ref = fmt.Sprintf("[%s](%s)", cell(c.Citation), c.URL)
				}
				law = append(law, fmt.Sprintf("%s: “%s”", ref, cell(clip(c.Quote, 300))))
			}
			if len(law) == 0 {
				law = append(law, "_"+cell(it.LegalBasis)+"_")
			}
			risk := it.RiskLevel
			if it.AffectedParty != "" {
				risk += " (affects " + cell(it.AffectedParty) + ")"
			}
			fmt.Fprintf(&b, "| %d | [bytes %d–%d](#clause-%d): “%s” | %s | %s | %s | %s |\n",
				it.Number, it.ClauseStart, it.ClauseEnd, it.Number, cell(clip(it.ClauseQuote, 300)), risk,
				strings.Join(law, "<br>"), cell(it.Reasoning), cell(it.Recommendation))
		}
		b.WriteString("\n")
	}

	if cs := clauseContexts(rep); len(cs) > 0 {
		b.WriteString("## Clauses in context\n\n")
		for _, c := range cs {
			fmt.Fprintf(&b, "<a id=\"clause-%d\"></a>\n**%d.** bytes %d–%d\n\n", c.Number, c.Number, c.Start, c.End)
			for _, line := range strings.Split(md(c.Before)+"**"+strings.TrimSpace(md(c.Match))+"**"+md(c.After), "\n") {
				fmt.Fprintf(&b, "> %s\n", line)
			}
			b.WriteString("\n")
		}
	}

	b.WriteString("## Review trail\n\n")
	if len(rep.ReviewTrail) == 0 {
		if rep.Mode == "batch" {
			b.WriteString("Batch mode has no review loop.\n\n")
		} else {
			b.WriteString("No review round was completed.\n\n")
		}
	}
	for _, rr := range rep.ReviewTrail {
		fmt.Fprintf(&b, "%d. **Round %d: %s**\n", rr.Iteration, rr.Iteration, rr.Decision)
		for _, p := range rr.Problems {
			fmt.Fprintf(&b, "   - problem: %s\n", md(p))
		}
		for _, c := range rr.Changes {
			fmt.Fprintf(&b, "   - change: %s\n", md(c))
		}
	}
	if len(rep.ReviewTrail) > 0 {
		b.WriteString("\n")
	}

	b.WriteString("## Removed citations\n\n")
	if len(rep.RemovedCitations) == 0 {
		b.WriteString("None.\n\n")
	} else {
		b.WriteString("| Item | Rule | Statute | Quote | Reason |\n|---|---|---|---|---|\n")
		for _, rc := range rep.RemovedCitations {
			item := "—"
			if rc.ItemNumber > 0 {
				item = fmt.Sprint(rc.ItemNumber)
			}
			name := "statute not found"
			if rc.Citation != "" {
				name = cell(rc.Citation)
			}
			fmt.Fprintf(&b, "| %s | %s | %s (`%s`) | %s | %s |\n", item, cell(rc.RuleID), name, strings.ReplaceAll(rc.StatuteID, "`", "'"), cell(clip(rc.Quote, 300)), cell(rc.Reason))
		}
		b.WriteString("\n")
	}
	if len(rep.RemovedItems) > 0 {
		b.WriteString("## Removed risk items\n\n")
		for _, ri := range rep.RemovedItems {
			fmt.Fprintf(&b, "- %s: “%s” — %s\n", md(ri.RuleID), md(clip(ri.ClauseQuote, 200)), md(ri.Reason))
		}
		b.WriteString("\n")
	}

	b.WriteString("## Risk rules\n\n")
	for _, ru := range rep.Rules {
		fmt.Fprintf(&b, "- **%s** (%s) %s — %s\n", md(ru.ID), ru.Severity, md(ru.Title), md(ru.Description))
	}
	fmt.Fprintf(&b, "\n## Token usage\n\n%d input tokens, %d output tokens.\n", rep.Usage.InputTokens, rep.Usage.OutputTokens)
	if _, err := io.WriteString(w, b.String()); err != nil {
		return fmt.Errorf("write Markdown report: %w", err)
	}
	return nil
}

// mdEscaper escapes the characters Markdown would read as markup or HTML.
var mdEscaper = strings.NewReplacer(`\`, `\\`, "*", `\*`, "_", `\_`, "`", "\\`", "[", `\[`, "]", `\]`, "<", "&lt;", ">", "&gt;", "#", `\#`, "|", `\|`)

func md(s string) string { return mdEscaper.Replace(s) }

// cell escapes s for a Markdown table cell: no line breaks, no pipes.
func cell(s string) string {
	return strings.Join(strings.Fields(md(s)), " ")
}
