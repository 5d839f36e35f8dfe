package web

import (
	"strings"
	"testing"
)

func TestHighlightMarkdown(t *testing.T) {
	tests := []struct {
		name   string
		text   string
		spans  []Span
		want   string
		wantOK []bool
	}{
		{
			name: "blocks",
			text: "# Consulting Agreement\n\nThe **Company** and the *Consultant*.\n\n## 1. Services\n\n- advice\n- `reports`\n\n> quoted\n\n---\n",
			want: `<h3 class="md-h">Consulting Agreement</h3>` + "\n\n" +
				`<p>The <strong>Company</strong> and the <em>Consultant</em>.` + "\n</p>\n" +
				`<h4 class="md-h">1. Services</h4>` + "\n\n" +
				`<ul><li>advice` + "\n" + `</li><li><code>reports</code>` + "\n</li></ul>\n" +
				`<blockquote>quoted` + "\n</blockquote>\n" + `<hr>` + "\n",
		},
		{
			name:   "a span keeps its offsets into the Markdown source",
			text:   "## 3. Term\n\nEither party may **terminate** on notice.\n",
			spans:  []Span{{Start: 12, End: 53, ID: "clause-1", Title: "Termination For Convenience"}},
			want:   `<h4 class="md-h">3. Term</h4>` + "\n\n" + `<p><mark id="clause-1" class="hl" title="Termination For Convenience">Either party may </mark><strong><mark class="hl" title="Termination For Convenience">terminate</mark></strong><mark class="hl" title="Termination For Convenience"> on notice.</mark>` + "\n</p>",
			wantOK: []bool{true},
		},
		{
			name:   "a span starting on markup is anchored at its first shown character",
			text:   "## Governing Law\n",
			spans:  []Span{{Start: 0, End: 16, ID: "clause-2"}},
			want:   `<h4 class="md-h"><mark id="clause-2" class="hl">Governing Law</mark></h4>` + "\n",
			wantOK: []bool{true},
		},
		{
			name:   "a span of markup only has nothing to link to",
			text:   "a **b**\n",
			spans:  []Span{{Start: 2, End: 4, ID: "stars"}},
			want:   `<p>a <strong>b</strong>` + "\n</p>",
			wantOK: []bool{false},
		},
		{
			name: "numbered lines keep their numbers",
			text: "1. Services\n2. Fees\n",
			want: "<p>1. Services\n2. Fees\n</p>",
		},
		{
			name: "safe links only",
			text: "[site](https://example.com/a?b=1&c=2) [bad](javascript:alert(1)) [rel](/admin)\n",
			want: `<p><a href="https://example.com/a?b=1&amp;c=2" rel="noopener noreferrer nofollow">site</a> [bad](javascript:alert(1)) [rel](/admin)` + "\n</p>",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := HighlightMarkdown(tt.text, tt.spans)
			if string(got) != tt.want {
				t.Errorf("HTML:\n got %q\nwant %q", got, tt.want)
			}
			for i := range tt.wantOK {
				if ok[i] != tt.wantOK[i] {
					t.Errorf("span %d valid = %v, want %v", i, ok[i], tt.wantOK[i])
				}
			}
		})
	}
}

// TestHighlightMarkdownIsSafe renders hostile Markdown: raw HTML, event
// handlers, script URLs and attribute breakouts must all come out as text.
func TestHighlightMarkdownIsSafe(t *testing.T) {
	text := "# <script>alert(1)</script>\n\n" +
		"<img src=x onerror=alert(2)> **<b onmouseover=alert(3)>**\n\n" +
		"- [x](javascript:alert(4)) [y](JaVaScRiPt:alert(5)) [z](data:text/html,<script>alert(6)</script>)\n" +
		"- [q](https://example.com/\"onmouseover=\"alert(7)) [r](https://example.com/x'y)\n\n" +
		"```\n</pre><script>alert(8)</script>\n```\n" +
		"`</code><iframe src=javascript:alert(9)>`\n"
	got, _ := HighlightMarkdown(text, []Span{{Start: 2, End: 10, ID: `"><svg onload=alert(10)>`, Title: `"><x>`}})
	html := string(got)
	for _, bad := range []string{"<script", "<img", "<b ", "<iframe", "<svg", `href="javascript`, `href="data`, `href="JaVaScRiPt`, "onmouseover=\"", "</pre><script"} {
		if strings.Contains(html, bad) {
			t.Errorf("rendered Markdown contains %q:\n%s", bad, html)
		}
	}
	for _, want := range []string{"alert(1)&lt;/script&gt;", "&lt;img src=x onerror=alert(2)&gt;", "[x](javascript:alert(4))", "<pre>"} {
		if !strings.Contains(html, want) {
			t.Errorf("rendered Markdown lacks %q:\n%s", want, html)
		}
	}
	if strings.Count(html, "<a ") != 0 {
		t.Errorf("a link was made of an unsafe address:\n%s", html)
	}
}

func TestIsMarkdown(t *testing.T) {
	for path, want := range map[string]bool{
		"internal/demo/samples/consulting-raman.md": true,
		"/uploads/Lease.MARKDOWN":                   true,
		`C:\contracts\offer.html`:                   true,
		"/data/cuad/full_contract_txt/X.txt":        false,
		"scan.pdf":                                  false,
		"":                                          false,
	} {
		if got := IsMarkdown(path); got != want {
			t.Errorf("IsMarkdown(%q) = %v, want %v", path, got, want)
		}
	}
}
