package eval

import (
	"bytes"
	"html/template"
	"io"
	"strings"
	"unicode/utf8"
)

// document is the content of an extraction, retrieval or risk report, laid
// out once and rendered as plain text, Markdown or a self-contained HTML
// page, so that the three always say the same.
type document struct {
	Title    string
	Sections []section
}

// section is a heading, paragraphs, a bullet list and a table, each
// optional.
type section struct {
	Title  string
	Paras  []string
	Items  []string
	Header []string
	Rows   [][]string
	// Brief, when not nil, replaces Rows in plain text, which a terminal
	// shows (e.g. only the categories that occur).
	Brief [][]string
	// NoText leaves the section out of plain text.
	NoText bool
}

// writeText renders d as plain text: paragraphs, indented items and
// aligned tables.
func (d document) writeText(w io.Writer) error {
	var b strings.Builder
	first := true
	for _, s := range d.Sections {
		if s.NoText {
			continue
		}
		if !first {
			b.WriteString("\n")
		}
		first = false
		if s.Title != "" {
			b.WriteString(s.Title + ":\n")
		}
		for _, p := range s.Paras {
			b.WriteString(p + "\n")
		}
		for _, it := range s.Items {
			b.WriteString("  " + it + "\n")
		}
		rows := s.Rows
		if s.Brief != nil {
			rows = s.Brief
		}
		if len(s.Header) > 0 && len(rows) > 0 {
			writeAligned(&b, append([][]string{s.Header}, rows...))
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// writeAligned writes rows as a plain-text table: the first column
// left-aligned, the others right-aligned, two spaces apart.
func writeAligned(b *strings.Builder, rows [][]string) {
	var widths []int
	for _, r := range rows {
		for i, c := range r {
			if i >= len(widths) {
				widths = append(widths, 0)
			}
			widths[i] = max(widths[i], utf8.RuneCountInString(c))
		}
	}
	for _, r := range rows {
		var line strings.Builder
		for i, c := range r {
			pad := strings.Repeat(" ", widths[i]-utf8.RuneCountInString(c))
			if i == 0 {
				line.WriteString(c + pad)
			} else {
				line.WriteString("  " + pad + c)
			}
		}
		b.WriteString(strings.TrimRight(line.String(), " ") + "\n")
	}
}

// writeMarkdown renders d as Markdown.
func (d document) writeMarkdown(w io.Writer) error {
	var b strings.Builder
	b.WriteString("# " + d.Title + "\n")
	for _, s := range d.Sections {
		if s.Title != "" {
			b.WriteString("\n## " + s.Title + "\n")
		}
		for _, p := range s.Paras {
			b.WriteString("\n" + p + "\n")
		}
		if len(s.Items) > 0 {
			b.WriteString("\n")
			for _, it := range s.Items {
				b.WriteString("- " + strings.ReplaceAll(it, "\n", " ") + "\n")
			}
		}
		if len(s.Header) > 0 {
			b.WriteString("\n" + MarkdownTable(s.Header, s.Rows))
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

var sectionsTmpl = template.Must(template.New("sections").Funcs(template.FuncMap{
	// Every column but the first holds numbers or short codes.
	"num": func(i int) bool { return i > 0 },
}).Parse(`<h1>{{.Title}}</h1>
{{range .Sections}}{{with .Title}}<h2>{{.}}</h2>
{{end}}{{range .Paras}}<p>{{.}}</p>
{{end}}{{with .Items}}<ul>{{range .}}<li>{{.}}</li>{{end}}</ul>
{{end}}{{if .Header}}<table>
<thead><tr>{{range $i, $h := .Header}}<th{{if num $i}} class="num"{{end}}>{{$h}}</th>{{end}}</tr></thead>
<tbody>{{range .Rows}}<tr>{{range $i, $c := .}}<td{{if num $i}} class="num"{{end}}>{{$c}}</td>{{end}}</tr>
{{end}}</tbody>
</table>
{{end}}{{end}}`))

// writeHTML renders d as a self-contained HTML page (WritePage).
func (d document) writeHTML(w io.Writer) error {
	var body bytes.Buffer
	if err := sectionsTmpl.Execute(&body, d); err != nil {
		return err
	}
	return WritePage(w, d.Title, template.HTML(body.String()))
}
