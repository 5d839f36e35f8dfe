package web

import (
	"html/template"
	"net/url"
	"path"
	"regexp"
	"strings"
)

// IsMarkdown reports whether a contract's text is Markdown, judged by its
// source file: Markdown files, and HTML pages, which ingestion converts to
// Markdown.
func IsMarkdown(sourcePath string) bool {
	switch strings.ToLower(path.Ext(strings.ReplaceAll(sourcePath, `\`, "/"))) {
	case ".md", ".markdown", ".html", ".htm":
		return true
	}
	return false
}

// HighlightMarkdown is HighlightText for a Markdown text: headings, lists,
// quotes, rules, fenced code, emphasis, code spans and links are rendered
// as HTML and their markup characters hidden, while span offsets still
// refer to the stored text. It is safe for untrusted text: only the
// renderer's own elements are written, every character of the text is
// escaped (raw HTML in the Markdown shows as text), and a link keeps its
// address only when that is http, https or mailto.
func HighlightMarkdown(text string, spans []Span) (template.HTML, []bool) {
	return highlight(text, spans, markdownLayout(text))
}

var (
	mdHeading = regexp.MustCompile(`^ {0,3}(#{1,6})(?:[ \t]+|$)`)
	mdClosing = regexp.MustCompile(`[ \t]+#+[ \t]*$|^#+[ \t]*$`)
	mdRule    = regexp.MustCompile(`^ {0,3}([-*_])(?:[ \t]*([-*_])){2,}[ \t]*$`)
	mdBullet  = regexp.MustCompile(`^ {0,3}[-*+][ \t]+`)
	mdQuote   = regexp.MustCompile(`^ {0,3}>[ \t]?`)
	mdFence   = regexp.MustCompile("^ {0,3}(```+|~~~+)")
)

// mdBuilder collects the layout of a Markdown text.
type mdBuilder struct {
	lay   layout
	open  []string // the block elements open, outermost first
	fence string   // the fence of the open code block, "" outside one
}

func (b *mdBuilder) tag(pos int, html string) { b.lay.tags = append(b.lay.tags, tag{pos, html}) }

func (b *mdBuilder) hide(from, to int) {
	if from >= to {
		return
	}
	if n := len(b.lay.hidden); n > 0 && b.lay.hidden[n-1][1] == from {
		b.lay.hidden[n-1][1] = to
		return
	}
	b.lay.hidden = append(b.lay.hidden, [2]int{from, to})
}

// openBlock opens elem (e.g. "p", "ul", "blockquote") at pos.
func (b *mdBuilder) openBlock(pos int, elem string) {
	b.tag(pos, "<"+elem+">")
	b.open = append(b.open, elem)
}

// closeTo closes open blocks at pos until depth remain.
func (b *mdBuilder) closeTo(pos, depth int) {
	for len(b.open) > depth {
		b.tag(pos, "</"+b.open[len(b.open)-1]+">")
		b.open = b.open[:len(b.open)-1]
	}
}

func (b *mdBuilder) top() string {
	if len(b.open) == 0 {
		return ""
	}
	return b.open[len(b.open)-1]
}

// markdownLayout parses the block structure line by line and the inline
// markup within each line. It covers what contracts written or converted
// to Markdown use; anything else shows as the text it is.
func markdownLayout(text string) layout {
	b := &mdBuilder{}
	for pos := 0; pos < len(text); {
		end := strings.IndexByte(text[pos:], '\n')
		next := len(text)
		if end < 0 {
			end = len(text)
		} else {
			end += pos
			next = end + 1
		}
		b.line(text, pos, strings.TrimSuffix(text[pos:end], "\r"))
		pos = next
	}
	b.closeTo(len(text), 0)
	return b.lay
}

// line lays out one line starting at pos (without its line break).
func (b *mdBuilder) line(text string, pos int, line string) {
	end := pos + len(line)
	if b.fence != "" {
		if m := mdFence.FindString(line); m != "" && strings.HasPrefix(strings.TrimSpace(m), b.fence) && strings.TrimSpace(line[len(m):]) == "" {
			b.closeTo(pos, 0)
			b.hide(pos, end+1)
			b.fence = ""
		}
		return
	}
	if strings.TrimSpace(line) == "" {
		b.closeTo(pos, 0)
		return
	}
	if m := mdFence.FindStringSubmatch(line); m != nil {
		b.closeTo(pos, 0)
		b.fence = m[1][:3]
		b.openBlock(pos, "pre")
		b.hide(pos, min(end+1, len(text)))
		return
	}
	if mdRule.MatchString(line) && !(b.top() == "p" && strings.TrimSpace(line)[0] == '-') {
		b.closeTo(pos, 0)
		b.tag(pos, "<hr>")
		b.hide(pos, end)
		return
	}
	if m := mdHeading.FindStringSubmatch(line); m != nil {
		b.closeTo(pos, 0)
		// The page's own headings are h1 and h2: a document's # is h3.
		level := min(len(m[1])+2, 6)
		elem := "h" + string(rune('0'+level))
		b.tag(pos, `<`+elem+` class="md-h">`)
		b.hide(pos, pos+len(m[0]))
		body := line[len(m[0]):]
		closing := mdClosing.FindStringIndex(body)
		bodyEnd := end
		if closing != nil {
			bodyEnd = pos + len(m[0]) + closing[0]
		}
		b.inline(text, pos+len(m[0]), bodyEnd)
		b.hide(bodyEnd, end)
		b.tag(end, "</"+elem+">")
		return
	}
	if m := mdQuote.FindString(line); m != "" {
		if len(b.open) == 0 || b.open[0] != "blockquote" {
			b.closeTo(pos, 0)
			b.openBlock(pos, "blockquote")
		}
		b.hide(pos, pos+len(m))
		b.inline(text, pos+len(m), end)
		return
	}
	if m := mdBullet.FindString(line); m != "" {
		if b.top() == "li" {
			b.closeTo(pos, len(b.open)-1)
		}
		if b.top() != "ul" {
			b.closeTo(pos, 0)
			b.openBlock(pos, "ul")
		}
		b.openBlock(pos, "li")
		b.hide(pos, pos+len(m))
		b.inline(text, pos+len(m), end)
		return
	}
	// Anything else is paragraph text, or continues the list item or
	// quote above it. Numbered lines stay as written: a contract's
	// numbering is part of its text.
	if len(b.open) == 0 {
		b.openBlock(pos, "p")
	}
	b.inline(text, pos, end)
}

// inline lays out emphasis, code spans, links and backslash escapes in
// text[from:to]. Inline markup never spans lines, so that it always nests
// inside its block.
func (b *mdBuilder) inline(text string, from, to int) {
	for i := from; i < to; {
		c := text[i]
		switch {
		case c == '\\' && i+1 < to && strings.IndexByte("\\`*_[]()#+-.!>|~", text[i+1]) >= 0:
			b.hide(i, i+1)
			i += 2
			continue
		case c == '`':
			if j := strings.IndexByte(text[i+1:to], '`'); j > 0 {
				j += i + 1
				b.hide(i, i+1)
				b.tag(i+1, "<code>")
				b.tag(j, "</code>")
				b.hide(j, j+1)
				i = j + 1
				continue
			}
		case (c == '*' || c == '_') && i+1 < to && text[i+1] == c:
			if j := closingDelim(text, i+2, to, text[i:i+2]); j > 0 {
				b.hide(i, i+2)
				b.tag(i+2, "<strong>")
				b.inline(text, i+2, j)
				b.tag(j, "</strong>")
				b.hide(j, j+2)
				i = j + 2
				continue
			}
		case c == '*' || (c == '_' && (i == from || !isWordByte(text[i-1]))):
			if j := closingDelim(text, i+1, to, text[i:i+1]); j > 0 && (c == '*' || j+1 >= to || !isWordByte(text[j+1])) {
				b.hide(i, i+1)
				b.tag(i+1, "<em>")
				b.inline(text, i+1, j)
				b.tag(j, "</em>")
				b.hide(j, j+1)
				i = j + 1
				continue
			}
		case c == '[':
			if k, u, end, ok := linkAt(text, i, to); ok {
				b.hide(i, i+1)
				b.tag(i+1, `<a href="`+template.HTMLEscapeString(u)+`" rel="noopener noreferrer nofollow">`)
				b.inline(text, i+1, k)
				b.tag(k, "</a>")
				b.hide(k, end)
				i = end
				continue
			}
		}
		i++
	}
}

// closingDelim finds delim closing an emphasis opened just before from:
// the content must not be empty or start or end with a space, and a
// single delimiter must not be half of a double one.
func closingDelim(text string, from, to int, delim string) int {
	if from >= to || text[from] == ' ' {
		return -1
	}
	for j := from + 1; j+len(delim) <= to; j++ {
		if text[j:j+len(delim)] != delim || text[j-1] == ' ' {
			continue
		}
		if len(delim) == 1 && ((j+1 < to && text[j+1] == delim[0]) || text[j-1] == delim[0]) {
			continue
		}
		return j
	}
	return -1
}

// linkAt parses [text](address) at i: it returns the end of the text, the
// address and the end of the link. Only http, https and mailto addresses
// make links; any other (javascript:, data:, relative) stays text.
func linkAt(text string, i, to int) (textEnd int, address string, end int, ok bool) {
	k := strings.Index(text[i+1:to], "](")
	if k <= 0 {
		return 0, "", 0, false
	}
	k += i + 1
	m := strings.IndexByte(text[k+2:to], ')')
	if m < 0 {
		return 0, "", 0, false
	}
	address = strings.TrimSpace(text[k+2 : k+2+m])
	if address == "" || strings.ContainsAny(address, " \t\"'<>") {
		return 0, "", 0, false
	}
	u, err := url.Parse(address)
	if err != nil {
		return 0, "", 0, false
	}
	switch strings.ToLower(u.Scheme) {
	case "http", "https", "mailto":
	default:
		return 0, "", 0, false
	}
	return k, u.String(), k + 2 + m + 1, true
}

func isWordByte(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80
}
