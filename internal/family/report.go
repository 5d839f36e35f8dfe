package family

import (
	"encoding/json"
	"fmt"
	"html/template"
	"io"
	"strings"
)

// WriteDiffJSON writes rep as indented JSON.
func WriteDiffJSON(w io.Writer, rep DiffReport) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(rep)
}

// WriteDiffMarkdown writes rep as Markdown: a summary, then each change
// with its spans and, for a changed unit, the word diff with deletions
// struck through and insertions in bold.
func WriteDiffMarkdown(w io.Writer, rep DiffReport) error {
	var b strings.Builder
	fmt.Fprintf(&b, "# Diff: %s → %s\n\n", mdText(name(rep.A)), mdText(name(rep.B)))
	fmt.Fprintf(&b, "Aligned by %s: %d added, %d removed, %d changed, %d unchanged.\n\n",
		rep.By, count(rep, Added), count(rep, Removed), count(rep, Changed), rep.Same)
	for _, c := range rep.Change {
		fmt.Fprintf(&b, "## %s: %s\n\n", mdText(c.Key), c.Kind)
		if c.A != nil {
			fmt.Fprintf(&b, "- A (%s) bytes %d–%d\n", mdText(rep.A.ID), c.A.Start, c.A.End)
		}
		if c.B != nil {
			fmt.Fprintf(&b, "- B (%s) bytes %d–%d\n", mdText(rep.B.ID), c.B.Start, c.B.End)
		}
		b.WriteString("\n")
		switch {
		case c.Kind == Changed:
			for _, op := range c.Words {
				switch op.Op {
				case OpDelete:
					fmt.Fprintf(&b, "~~%s~~ ", mdText(op.Text))
				case OpInsert:
					fmt.Fprintf(&b, "**%s** ", mdText(op.Text))
				default:
					fmt.Fprintf(&b, "%s ", mdText(op.Text))
				}
			}
			if c.Truncated {
				b.WriteString("\n\n(too long for a word diff: shown as replaced whole)")
			}
			b.WriteString("\n\n")
		case c.A != nil:
			fmt.Fprintf(&b, "> %s\n\n", mdText(normSpace(c.A.Text)))
		case c.B != nil:
			fmt.Fprintf(&b, "> %s\n\n", mdText(normSpace(c.B.Text)))
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

var diffHTML = template.Must(template.New("diff").Funcs(template.FuncMap{
	"name": name, "count": func(rep DiffReport, kind string) int { return count(rep, kind) }, "norm": normSpace,
}).Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Diff: {{name .A}} → {{name .B}}</title>
<style>
body{font:15px/1.5 system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem;color:#222}
h2{font-size:1.05rem;margin-top:1.6rem}.kind{font-size:.8rem;padding:.1rem .4rem;border-radius:.3rem;margin-left:.4rem}
.added{background:#e6ffed}.removed{background:#ffeef0}.changed{background:#fff5b1}
ins{background:#acf2bd;text-decoration:none}del{background:#fdb8c0}
.span{color:#666;font-size:.85rem}blockquote{margin:.4rem 0;padding:.4rem .8rem;border-left:3px solid #ccc;white-space:pre-wrap}
</style></head><body>
<h1>Diff: {{name .A}} → {{name .B}}</h1>
<p>Aligned by {{.By}}: {{count . "added"}} added, {{count . "removed"}} removed, {{count . "changed"}} changed, {{.Same}} unchanged.</p>
{{$rep := .}}{{range .Change}}<section class="change" data-kind="{{.Kind}}">
<h2>{{.Key}}<span class="kind {{.Kind}}">{{.Kind}}</span></h2>
{{with .A}}<div class="span">A ({{$rep.A.ID}}) bytes {{.Start}}–{{.End}}</div>{{end}}
{{with .B}}<div class="span">B ({{$rep.B.ID}}) bytes {{.Start}}–{{.End}}</div>{{end}}
{{if eq .Kind "changed"}}<blockquote class="words">{{range .Words}}{{if eq .Op "delete"}}<del>{{.Text}}</del> {{else if eq .Op "insert"}}<ins>{{.Text}}</ins> {{else}}{{.Text}} {{end}}{{end}}</blockquote>{{if .Truncated}}<p>(too long for a word diff: shown as replaced whole)</p>{{end}}
{{else if .A}}<blockquote class="removed">{{norm .A.Text}}</blockquote>
{{else if .B}}<blockquote class="added">{{norm .B.Text}}</blockquote>{{end}}
</section>
{{else}}<p>No differences.</p>{{end}}
</body></html>
`))

// WriteDiffHTML writes rep as one self-contained HTML page (styles
// inline, no scripts or external resources).
func WriteDiffHTML(w io.Writer, rep DiffReport) error {
	return diffHTML.Execute(w, rep)
}

func name(c DiffContract) string {
	if c.Title != "" {
		return c.Title + " (" + c.ID + ")"
	}
	return c.ID
}

func count(rep DiffReport, kind string) int {
	n := 0
	for _, c := range rep.Change {
		if c.Kind == kind {
			n++
		}
	}
	return n
}

var mdEscaper = strings.NewReplacer(`\`, `\\`, "*", `\*`, "_", `\_`, "~", `\~`, "`", "\\`", "#", `\#`, "<", "&lt;", ">", "&gt;", "[", `\[`, "]", `\]`, "|", `\|`)

func mdText(s string) string { return mdEscaper.Replace(normSpace(s)) }
