package eval

import (
	"bytes"
	"encoding/json"
	"fmt"
	"html/template"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"time"
	"unicode"
)

// Report helpers shared by every evaluation (answers, extraction,
// retrieval, risk): where reports go, how files are written, Markdown
// tables, and the self-contained HTML page with an inline SVG bar chart.

// DefaultDir is the report directory used when none is given:
// eval-YYYYMMDD-HHMMSS for t in its own location.
func DefaultDir(t time.Time) string { return "eval-" + t.Format("20060102-150405") }

// WriteFile writes data to path, creating its directory, through a
// temporary file renamed into place so a reader never sees half a report.
func WriteFile(path string, data []byte) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("write report: %w", err)
	}
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".*")
	if err != nil {
		return fmt.Errorf("write report: %w", err)
	}
	_, werr := f.Write(data)
	cerr := f.Close()
	if err := firstErr(werr, cerr, os.Chmod(f.Name(), 0o644)); err != nil {
		os.Remove(f.Name())
		return fmt.Errorf("write report %s: %w", path, err)
	}
	if err := os.Rename(f.Name(), path); err != nil {
		os.Remove(f.Name())
		return fmt.Errorf("write report %s: %w", path, err)
	}
	return nil
}

func firstErr(errs ...error) error {
	for _, e := range errs {
		if e != nil {
			return e
		}
	}
	return nil
}

// WriteJSON writes v to path as indented JSON (see WriteFile).
func WriteJSON(path string, v any) error {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return fmt.Errorf("encode %s: %w", path, err)
	}
	return WriteFile(path, buf.Bytes())
}

// Slug turns a name such as "openai:gpt-4o-mini" into a file-name part
// ("openai-gpt-4o-mini"): letters, digits, '.', '_' and '-' only.
func Slug(s string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.TrimSpace(s) {
		ok := r < unicode.MaxASCII && (unicode.IsLetter(r) || unicode.IsDigit(r) || r == '.' || r == '_')
		if ok {
			b.WriteRune(r)
			dash = false
		} else if !dash && b.Len() > 0 {
			b.WriteByte('-')
			dash = true
		}
	}
	out := strings.Trim(b.String(), "-.")
	if out == "" {
		return "model"
	}
	return out
}

// Share formats n of d as "5/22 (22.7%)", or "–" when d is 0.
func Share(n, d int) string {
	if d == 0 {
		return "–"
	}
	return fmt.Sprintf("%d/%d (%.1f%%)", n, d, 100*float64(n)/float64(d))
}

// Ratio is n/d, or NaN when d is 0 (a chart shows it as "n/a").
func Ratio(n, d int) float64 {
	if d == 0 {
		return math.NaN()
	}
	return float64(n) / float64(d)
}

// MarkdownTable renders a GitHub-flavoured Markdown table; cells are
// escaped (pipes, line breaks) so any text is safe in them.
func MarkdownTable(header []string, rows [][]string) string {
	var b strings.Builder
	line := func(cells []string) {
		b.WriteString("|")
		for _, c := range cells {
			b.WriteString(" ")
			b.WriteString(MarkdownCell(c))
			b.WriteString(" |")
		}
		b.WriteString("\n")
	}
	line(header)
	b.WriteString("|")
	for range header {
		b.WriteString("---|")
	}
	b.WriteString("\n")
	for _, r := range rows {
		line(r)
	}
	return b.String()
}

// MarkdownCell makes s safe inside a Markdown table cell.
func MarkdownCell(s string) string {
	s = strings.ReplaceAll(s, "\r\n", "\n")
	s = strings.ReplaceAll(s, "|", `\|`)
	s = strings.ReplaceAll(s, "\n", "<br>")
	return strings.TrimSpace(s)
}

// Chart is a horizontal grouped bar chart of shares (0 to 1): one group of
// bars per row (e.g. per model), one bar per series (e.g. per metric).
type Chart struct {
	Title  string
	Series []string
	Rows   []ChartRow
}

// ChartRow is one group of bars: a value per series, NaN when not measured.
type ChartRow struct {
	Label  string
	Values []float64
}

var chartColors = []string{"#2563eb", "#16a34a", "#d97706", "#9333ea", "#dc2626", "#0891b2", "#4b5563"}

// SVG renders the chart as inline SVG, sized to its content.
func (c Chart) SVG() template.HTML {
	const (
		width, labelW, valueW = 760, 190, 70
		barH, gap, pad        = 14, 3, 10
	)
	barW := float64(width - labelW - valueW - pad)
	esc := template.HTMLEscapeString
	var b strings.Builder
	legendH := 22
	y := pad + legendH
	if c.Title != "" {
		y += 18
	}
	groupH := len(c.Series)*(barH+gap) + 12
	height := y + len(c.Rows)*groupH + 22
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" role="img" class="chart" viewBox="0 0 %d %d" width="%d" height="%d" font-family="system-ui,sans-serif" font-size="12">`, width, height, width, height)
	if c.Title != "" {
		fmt.Fprintf(&b, `<title>%s</title><text x="%d" y="%d" font-size="14" font-weight="600">%s</text>`, esc(c.Title), pad, pad+12, esc(c.Title))
	}
	lx := pad
	for i, s := range c.Series {
		fmt.Fprintf(&b, `<rect x="%d" y="%d" width="12" height="12" fill="%s"/><text x="%d" y="%d">%s</text>`, lx, y-legendH, chartColors[i%len(chartColors)], lx+16, y-legendH+10, esc(s))
		lx += 16 + 7*len([]rune(s)) + 18
	}
	// Grid at 0, 25, 50, 75, 100%.
	bottom := y + len(c.Rows)*groupH
	for i := 0; i <= 4; i++ {
		x := float64(labelW) + barW*float64(i)/4
		fmt.Fprintf(&b, `<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="#e5e7eb"/><text x="%.1f" y="%d" text-anchor="middle" fill="#6b7280">%d%%</text>`, x, y-4, x, bottom, x, bottom+14, i*25)
	}
	for _, row := range c.Rows {
		fmt.Fprintf(&b, `<text x="%d" y="%d" text-anchor="end" font-weight="600">%s</text>`, labelW-8, y+barH, esc(clipRunes(row.Label, 28)))
		for i := range c.Series {
			v := math.NaN()
			if i < len(row.Values) {
				v = row.Values[i]
			}
			by := y + i*(barH+gap)
			if math.IsNaN(v) {
				fmt.Fprintf(&b, `<text x="%d" y="%d" fill="#6b7280">n/a</text>`, labelW+4, by+barH-3)
				continue
			}
			v = math.Max(0, math.Min(1, v))
			fmt.Fprintf(&b, `<rect x="%d" y="%d" width="%.1f" height="%d" fill="%s"><title>%s: %.1f%%</title></rect>`, labelW, by, math.Max(1, barW*v), barH, chartColors[i%len(chartColors)], esc(row.Label+" – "+c.Series[i]), 100*v)
			fmt.Fprintf(&b, `<text x="%.1f" y="%d">%.1f%%</text>`, float64(labelW)+barW*v+4, by+barH-3, 100*v)
		}
		y += groupH
	}
	b.WriteString(`</svg>`)
	return template.HTML(b.String())
}

func clipRunes(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

// Stylesheet is the CSS of every report page, inlined so that a report is
// one self-contained file.
const Stylesheet = `body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:2rem auto;max-width:1200px;padding:0 1rem;color:#1d2430;line-height:1.45}
h1{font-size:1.6rem;margin-bottom:.2rem}h2{font-size:1.25rem;border-bottom:2px solid #d8dee8;padding-bottom:.2rem;margin-top:2rem}h3{font-size:1.05rem;margin:1.2rem 0 .3rem}
.meta,.muted{color:#5a6472;font-size:.9rem}
table{border-collapse:collapse;width:100%;font-size:.88rem;margin:.5rem 0}th,td{border:1px solid #d8dee8;padding:.35rem .5rem;vertical-align:top;text-align:left}th{background:#f1f4f8}
td.num,th.num{text-align:right;font-variant-numeric:tabular-nums}
.ok{color:#15803d;font-weight:600}.bad{color:#b91c1c;font-weight:600}.na{color:#9ca3af}
.notice{background:#fde2e1;border-left:4px solid #c62828;padding:.5rem .8rem;margin:.5rem 0}
pre{white-space:pre-wrap;word-break:break-word;font-family:ui-monospace,Menlo,Consolas,monospace;font-size:.8rem;background:#f8fafc;padding:.5rem;border:1px solid #e3e8ef;margin:.3rem 0;max-height:24rem;overflow:auto}
details{margin:.3rem 0}summary{cursor:pointer}
.trace{border:1px solid #d8dee8;border-radius:6px;padding:.4rem .9rem;margin:.8rem 0}.trace:target{border-color:#2563eb;box-shadow:0 0 0 3px #bfdbfe}
svg.chart{max-width:100%;height:auto}
@media print{body{margin:0;max-width:none}a{color:inherit;text-decoration:none}pre{max-height:none}.trace{page-break-inside:avoid}}`

var pageTmpl = template.Must(template.New("page").Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{.Title}}</title>
<style>{{.CSS}}</style>
</head>
<body>
{{.Body}}
</body>
</html>
`))

// WritePage writes a self-contained HTML document: title, the inline
// Stylesheet, and body (already safe HTML, e.g. from html/template). It
// links to nothing outside itself.
func WritePage(w io.Writer, title string, body template.HTML) error {
	return pageTmpl.Execute(w, struct {
		Title string
		CSS   template.CSS
		Body  template.HTML
	}{title, template.CSS(Stylesheet), body})
}
