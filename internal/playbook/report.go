package playbook

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

// HTMLOptions adjust the HTML and Markdown reports.
type HTMLOptions struct {
	// SpanURL, when set, links each clause to it in a contract viewer,
	// e.g. the web app's /contracts/{id}?span=START-END.
	SpanURL func(start, end int) string
}

func (o HTMLOptions) link(c *ClauseRef) string {
	if o.SpanURL == nil || c == nil || !c.Verified {
		return ""
	}
	return o.SpanURL(c.Start, c.End)
}

//go:embed report.html.tmpl
var htmlReportSource string

// htmlReport is parsed once; it is fixed at build time.
var htmlReport = template.Must(template.New("report").Funcs(template.FuncMap{
	"pct":   func(f float64) string { return fmt.Sprintf("%.0f%%", 100*f) },
	"clip":  clip,
	"marks": marks,
}).Parse(htmlReportSource))

// htmlResult is a result with its clause link.
type htmlResult struct {
	*Result
	Link string
}

// WriteHTML writes the report as one self-contained, printable HTML page:
// inline CSS, no scripts, no external resources.
func WriteHTML(w io.Writer, rep *Report, opts HTMLOptions) error {
	rs := make([]htmlResult, len(rep.Results))
	for i := range rep.Results {
		rs[i] = htmlResult{&rep.Results[i], opts.link(rep.Results[i].Clause)}
	}
	data := struct {
		R       *Report
		Results []htmlResult
		Counts  []verdictCount
	}{rep, rs, verdictCounts(rep)}
	if err := htmlReport.Execute(w, data); err != nil {
		return fmt.Errorf("write HTML report: %w", err)
	}
	return nil
}

type verdictCount struct {
	Verdict Verdict
	N       int
}

func verdictCounts(rep *Report) []verdictCount {
	out := make([]verdictCount, len(Verdicts))
	for i, v := range Verdicts {
		out[i] = verdictCount{v, rep.Counts.Of(v)}
	}
	return out
}

// marks splits a clause into plain and marked pieces at the judgement's
// clause quotes, for highlighting.
func marks(text string, j *Judgement) []piece {
	if j == nil || len(j.ClauseQuotes) == 0 {
		return []piece{{Text: text}}
	}
	var out []piece
	at := 0
	for _, q := range j.ClauseQuotes {
		if q.Start < at || q.End > len(text) || q.Start >= q.End {
			continue
		}
		out = append(out, piece{Text: text[at:q.Start]}, piece{Text: text[q.Start:q.End], Mark: true})
		at = q.End
	}
	return append(out, piece{Text: text[at:]})
}

type piece struct {
	Text string
	Mark bool
}

// WriteMarkdown writes the report as Markdown.
func WriteMarkdown(w io.Writer, rep *Report, opts HTMLOptions) error {
	var b strings.Builder
	fmt.Fprintf(&b, "# Playbook check: %s\n\n", md(rep.ContractID))
	meta := []string{"playbook " + md(rep.Playbook)}
	if rep.ContractTitle != "" && rep.ContractTitle != rep.ContractID {
		meta = append([]string{md(rep.ContractTitle)}, meta...)
	}
	if rep.Judged {
		meta = append(meta, "judged by "+md(rep.Model))
	} else {
		meta = append(meta, "deterministic (no model)")
	}
	meta = append(meta, "generated "+rep.GeneratedAt)
	b.WriteString(strings.Join(meta, " · ") + "\n\n")
	for _, n := range rep.Notices {
		fmt.Fprintf(&b, "> **%s**\n\n", md(n))
	}
	var counts []string
	for _, c := range verdictCounts(rep) {
		counts = append(counts, fmt.Sprintf("%d %s", c.N, c.Verdict.Label()))
	}
	b.WriteString(strings.Join(counts, " · ") + "\n\n")

	b.WriteString("| Entry | Clause type | Status | Closest position | Verdict |\n|---|---|---|---|---|\n")
	for _, r := range rep.Results {
		closest := "—"
		if r.Closest != nil {
			closest = fmt.Sprintf("%s (%.2f)", r.Closest.Position, r.Closest.Similarity)
		}
		fmt.Fprintf(&b, "| [%s](#%s) | %s | %s | %s | **%s** |\n", cell(r.Title), anchor(r.EntryID), cell(r.ClauseType), statusLabel(r.Status), closest, r.Verdict.Label())
	}
	b.WriteString("\n")

	for _, r := range rep.Results {
		fmt.Fprintf(&b, "## %s <a id=\"%s\"></a>\n\n", md(r.Title), anchor(r.EntryID))
		fmt.Fprintf(&b, "**%s** · %s · %s %s\n\n", r.Verdict.Label(), statusLabel(r.Status), r.Requirement, md(r.ClauseType))
		for _, why := range r.Reasons {
			fmt.Fprintf(&b, "- %s\n", md(why))
		}
		b.WriteString("\n")
		if c := r.Clause; c != nil {
			where := fmt.Sprintf("bytes %d–%d", c.Start, c.End)
			if !c.Verified {
				where = "span not verified"
			}
			if l := opts.link(c); l != "" {
				where = fmt.Sprintf("[%s](%s)", where, l)
			}
			fmt.Fprintf(&b, "Contract clause (%s):\n\n> %s\n\n", where, md(clip(strings.Join(strings.Fields(c.Text), " "), 1200)))
			if len(r.OtherClauses) > 0 {
				fmt.Fprintf(&b, "%d more clause(s) of this type.\n\n", len(r.OtherClauses))
			}
		}
		if len(r.Matches) > 0 {
			b.WriteString("| Position | Similarity | Note |\n|---|---|---|\n")
			for _, m := range r.Matches {
				note := ""
				if len(m.Missing) > 0 {
					note = "lacks " + quoteList(m.Missing)
				}
				fmt.Fprintf(&b, "| %s | %.2f | %s |\n", m.Position, m.Similarity, cell(note))
			}
			b.WriteString("\n")
		}
		if r.Closest != nil {
			fmt.Fprintf(&b, "Closest playbook text (%s):\n\n> %s\n\n", r.Closest.Position, md(strings.Join(strings.Fields(r.Closest.Text), " ")))
		}
		if len(r.Terms) > 0 {
			b.WriteString("| Term | Required | Found | Status |\n|---|---|---|---|\n")
			for _, tc := range r.Terms {
				var found []string
				for _, t := range tc.Found {
					found = append(found, fmt.Sprintf("%q = %s", t.Text, formatValue(t.Value, t.Unit)))
				}
				fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", tc.Rule.Kind, cell(tc.Rule.describe()), cell(strings.Join(found, "; ")), strings.ReplaceAll(tc.Status, "_", " "))
			}
			b.WriteString("\n")
		}
		if r.RedFlag != nil {
			fmt.Fprintf(&b, "Red flag matched (%.2f): %s\n\n", r.RedFlag.Similarity, md(r.RedFlag.Description))
		}
		if j := r.Judgement; j != nil {
			fmt.Fprintf(&b, "**Judgement.** %s\n\n", md(j.Assessment))
			if j.Recommendation != "" {
				fmt.Fprintf(&b, "**Recommendation.** %s\n\n", md(j.Recommendation))
			}
			for _, q := range j.ClauseQuotes {
				fmt.Fprintf(&b, "- clause: “%s”\n", md(q.Text))
			}
			for _, q := range j.PlaybookQuotes {
				fmt.Fprintf(&b, "- playbook: “%s”\n", md(q.Text))
			}
			if len(j.ClauseQuotes)+len(j.PlaybookQuotes) > 0 {
				b.WriteString("\n")
			}
		}
	}
	if len(rep.RemovedQuotes) > 0 {
		b.WriteString("## Removed quotes\n\n| Entry | Source | Quote | Reason |\n|---|---|---|---|\n")
		for _, q := range rep.RemovedQuotes {
			fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", cell(q.EntryID), q.Source, cell(q.Quote), q.Reason)
		}
		b.WriteString("\n")
	}
	if rep.Judged {
		fmt.Fprintf(&b, "Token usage: %d input tokens, %d output tokens.\n", rep.Usage.InputTokens, rep.Usage.OutputTokens)
	}
	if _, err := io.WriteString(w, b.String()); err != nil {
		return fmt.Errorf("write Markdown report: %w", err)
	}
	return nil
}

func statusLabel(s Status) string { return strings.ReplaceAll(string(s), "_", " ") }

// anchor is an entry id usable as an HTML id.
func anchor(id string) string {
	return "entry-" + strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' {
			return r
		}
		return '-'
	}, id)
}

var mdEscaper = strings.NewReplacer(`\`, `\\`, "*", `\*`, "_", `\_`, "`", "\\`", "[", `\[`, "]", `\]`, "<", "&lt;", ">", "&gt;", "|", `\|`, "#", `\#`)

func md(s string) string { return mdEscaper.Replace(s) }

// cell escapes s for a Markdown table cell: no line breaks, no pipes.
func cell(s string) string { return strings.Join(strings.Fields(md(s)), " ") }

// clip shortens s to at most n bytes at a rune boundary, marking the cut.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n] + "…"
}
