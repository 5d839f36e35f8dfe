package eval

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/contractgraph/contractgraph/internal/agent"
	"github.com/contractgraph/contractgraph/internal/llm/llmtest"
)

func TestDefaultDirAndSlug(t *testing.T) {
	if got := DefaultDir(time.Date(2026, 3, 14, 9, 5, 7, 0, time.UTC)); got != "eval-20260314-090507" {
		t.Errorf("DefaultDir = %q", got)
	}
	for in, want := range map[string]string{"openai:gpt-4o-mini": "openai-gpt-4o-mini", "ollama:qwen2.5:7b": "ollama-qwen2.5-7b", " ../x/ ": "x", "::": "model", "Modèle é": "Mod-le"} {
		if got := Slug(in); got != want {
			t.Errorf("Slug(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestMarkdownTableEscapes(t *testing.T) {
	got := MarkdownTable([]string{"a", "b"}, [][]string{{"x|y", "line\nbreak"}})
	want := "| a | b |\n|---|---|\n| x\\|y | line<br>break |\n"
	if got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	if Share(5, 22) != "5/22 (22.7%)" || Share(1, 0) != "–" || !math.IsNaN(Ratio(1, 0)) {
		t.Errorf("Share/Ratio: %q %q %v", Share(5, 22), Share(1, 0), Ratio(1, 0))
	}
}

func TestChartSVG(t *testing.T) {
	svg := string(Chart{Title: "Scores <per model>", Series: []string{"score", "figures"},
		Rows: []ChartRow{{Label: "openai:a", Values: []float64{0.5, math.NaN()}}, {Label: "b & c", Values: []float64{1.2, 0}}}}.SVG())
	for _, want := range []string{`<svg xmlns="http://www.w3.org/2000/svg"`, "Scores &lt;per model&gt;", "b &amp; c", ">50.0%<", ">n/a<", ">100.0%<", ">0.0%<"} {
		if !strings.Contains(svg, want) {
			t.Errorf("chart lacks %q:\n%s", want, svg)
		}
	}
	// One bar per measured value: 0.5, 1.2 (shown as 100%) and 0.
	if n := strings.Count(svg, "<rect x=\"190\""); n != 3 {
		t.Errorf("%d bars, want 3", n)
	}
}

func TestWriteAnswerReports(t *testing.T) {
	set := demoTools(t)
	ctx := context.Background()
	call := llmtest.Calls(llmtest.Call("c1", "contract_search", `{"party_country":"CA"}`))
	wrong := llmtest.Calls(llmtest.Call("c1", "contract_search", `{"party_country":"US"}`))
	var runs []*Run
	for _, model := range []struct {
		name  string
		steps []llmtest.Step
	}{
		{"openai:good", []llmtest.Step{call, countAnswer(t)}},
		{"openai:bad|model", []llmtest.Step{wrong, countAnswer(t, "ghost-contract")}},
	} {
		ev := &Answers{Agent: &agent.Agent{Model: llmtest.NewScripted(model.steps...), Tools: set}, Model: model.name}
		run, err := ev.Run(ctx, []Question{canada})
		if err != nil {
			t.Fatal(err)
		}
		run.Questions = "demo.jsonl"
		runs = append(runs, run)
	}
	runs[1].ModelError = "cannot reach <the> server"
	dir := filepath.Join(t.TempDir(), "out")
	files, err := WriteAnswerReports(dir, runs)
	if err != nil {
		t.Fatal(err)
	}
	want := AnswerFiles{Runs: []string{filepath.Join(dir, "answers-openai-good.json"), filepath.Join(dir, "answers-openai-bad-model.json")},
		Markdown: filepath.Join(dir, "answers.md"), HTML: filepath.Join(dir, "answers.html")}
	if strings.Join(files.Runs, ",") != strings.Join(want.Runs, ",") || files.Markdown != want.Markdown || files.HTML != want.HTML {
		t.Fatalf("files %+v, want %+v", files, want)
	}

	// The JSON file is the run.
	raw, err := os.ReadFile(files.Runs[0])
	if err != nil {
		t.Fatal(err)
	}
	var back Run
	if err := json.Unmarshal(raw, &back); err != nil || back.Model != "openai:good" || back.Summary.Passed != 1 || len(back.Results) != 1 || back.Results[0].Calls[0].Tool != "contract_search" {
		t.Errorf("run JSON: %v, %+v", err, back.Summary)
	}

	md, _ := os.ReadFile(files.Markdown)
	for _, w := range []string{"| openai:good | 1/1 (100.0%) | 1/1 (100.0%) | 1/1 (100.0%) | 1/1 (100.0%) | 0/1 (0.0%) | 0 |",
		"| openai:bad\\|model | 0/1 (0.0%) | 0/1 (0.0%) |",
		"fail: tools: no call matched; contract_search: total_count ", "expected 260; figures missing: 260; not returned by a tool: ghost-contract",
		"> **openai:bad|model**: cannot reach <the> server", "**Score** is the share of questions passed"} {
		if !strings.Contains(string(md), w) {
			t.Errorf("Markdown lacks %q:\n%s", w, md)
		}
	}

	page, _ := os.ReadFile(files.HTML)
	html := string(page)
	for _, w := range []string{"<svg", ">100.0%<", "cannot reach &lt;the&gt; server", "ghost-contract", `&#34;total_count&#34;: 260`} {
		if !strings.Contains(html, w) {
			t.Errorf("HTML lacks %q", w)
		}
	}
	// Self-contained: no scripts, stylesheets, images or fonts from elsewhere.
	for _, bad := range []string{"<script", "<link", "<img", "url(", "src="} {
		if strings.Contains(html, bad) {
			t.Errorf("HTML contains %q; it must be self-contained", bad)
		}
	}
	if n := strings.Count(html, "http"); n != 1 { // the SVG namespace only
		t.Errorf("HTML mentions http %d times", n)
	}
	// Every link of the question table leads to a trace on the page.
	links := regexp.MustCompile(`href="#([^"]+)"`).FindAllStringSubmatch(html, -1)
	if len(links) != 2 {
		t.Errorf("%d trace links, want one per model and question", len(links))
	}
	for _, l := range links {
		if !strings.Contains(html, `id="`+l[1]+`"`) {
			t.Errorf("link #%s has no target", l[1])
		}
	}
}

func TestWritePageEscapesTitle(t *testing.T) {
	var b bytes.Buffer
	if err := WritePage(&b, "a <b>", "<p>body</p>"); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "<title>a &lt;b&gt;</title>") || !strings.Contains(b.String(), "<p>body</p>") || !strings.Contains(b.String(), "<style>body{") {
		t.Errorf("page:\n%s", b.String())
	}
}

func TestWriteFileReplacesAtomically(t *testing.T) {
	path := filepath.Join(t.TempDir(), "a", "b.json")
	if err := WriteJSON(path, map[string]string{"x": "<y>"}); err != nil {
		t.Fatal(err)
	}
	if err := WriteJSON(path, map[string]int{"x": 2}); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(path)
	if string(b) != "{\n  \"x\": 2\n}\n" {
		t.Errorf("file %q", b)
	}
	entries, _ := os.ReadDir(filepath.Dir(path))
	if len(entries) != 1 {
		t.Errorf("temporary files left: %v", entries)
	}
}
