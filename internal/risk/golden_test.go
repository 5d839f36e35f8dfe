package risk

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/contractgraph/contractgraph/internal/llm"
	"github.com/contractgraph/contractgraph/internal/tools"
)

var update = flag.Bool("update", false, "rewrite golden files")

// golden compares got with testdata/name, rewriting it with -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./internal/risk -run Golden -update to create it)", err)
	}
	if diff := cmp.Diff(string(want), string(got)); diff != "" {
		t.Errorf("%s changed (-golden +got); run with -update if intended:\n%s", name, diff)
	}
}

func render(t *testing.T, msgs []llm.Message) []byte {
	t.Helper()
	var b bytes.Buffer
	for _, m := range msgs {
		b.WriteString("=== " + string(m.Role) + "\n" + m.Content + "\n")
	}
	return b.Bytes()
}

func TestGoldenPrompts(t *testing.T) {
	item := arbItem(statuteArb, statuteQuoteArb)
	tests := []struct {
		name string
		file string
		data any
	}{
		{"rules.golden", promptRules, rulesPrompt{Jurisdiction: "us", Excerpt: testContract, Limit: RuleExcerptChars}},
		{"analyst.golden", promptAnalyst, analystPrompt{ContractID: "dist-1", Title: "Distribution Agreement", Jurisdiction: "us",
			HasStatutes: true, Rules: testRules.Rules, Text: testContract}},
		{"analyst_revision_chunked_nostatutes.golden", promptAnalyst, analystPrompt{ContractID: "dist-1", Rules: testRules.Rules,
			Chunked: true, Chunks: []passage{{Start: 10, End: 40, Text: "passage one"}, {Start: 90, End: 120, Text: "passage two"}},
			Feedback: []string{`item 1 (rule R1): citation /xx/test/s999 "q": statute not found`}, Previous: []Item{item}}},
		{"reviewer.golden", promptReviewer, reviewerPrompt{Iteration: 1, MaxIterations: 2, Rules: testRules.Rules, Items: []Item{item},
			Notes: "R2 had no clause.", Found: []string{statuteArb, statuteLiab}, Problems: []string{"item 1 (rule R1): clause quote does not appear in the contract text: \"x\""}}},
		{"summary.golden", promptSummary, summaryPrompt{ContractID: "dist-1", ContractType: "Distributor", Items: goldenReport().Items}},
		{"batch.golden", promptBatch, batchPrompt{ContractID: "dist-1", HasStatutes: true, Rules: testRules.Rules[:1], Start: 400, End: 520,
			Text: quoteArbitration, Statutes: []tools.StatutePassage{{StatuteID: statuteArb, Citation: "Test Code 2", Text: testStatutes[0].Text}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			msgs, err := messages(tt.file, tt.data)
			if err != nil {
				t.Fatal(err)
			}
			golden(t, filepath.Join("prompts", tt.name), render(t, msgs))
		})
	}
}

// goldenReport is a fixed report exercising every section of the renderers.
func goldenReport() *Report {
	start := strings.Index(testContract, quoteArbitration)
	return &Report{
		ContractID: "dist-1", ContractTitle: "Distribution Agreement", ContractType: "Distributor", Jurisdiction: "xx",
		Mode: "review", GeneratedAt: "2026-11-30T06:00:00Z",
		Rules: testRules.Rules,
		Items: []ReportItem{{
			Number: 1, RuleID: "R1", RuleTitle: "Forced arbitration", ClauseQuote: quoteArbitration, ClauseStart: start, ClauseEnd: start + len(quoteArbitration),
			RiskLevel: "High", Reasoning: "Disputes cannot go to court | not even for <injunctions>.", AffectedParty: "Distributor",
			Citations: []ReportCitation{{StatuteID: statuteArb, Citation: "Test Code 2", Heading: "Arbitration agreements",
				URL: "https://law.example/test/2?a=1&b=2", Quote: statuteQuoteArb}},
			Recommendation: "Negotiate a *court* option.",
		}},
		Summary:     &Summary{CoreIssues: []string{"Arbitration is mandatory."}, Conclusion: "Negotiate before signing."},
		ReviewTrail: []ReviewRound{{Iteration: 1, Decision: "feedback", Problems: []string{`item 1 (rule R1): citation /xx/test/s999 "q": statute not found`}, Changes: []string{"rule R1 item changed: citations [/xx/test/s999] → [/xx/test/s2]"}}, {Iteration: 2, Decision: "approve"}},
		RemovedCitations: []RemovedCitation{
			{ItemNumber: 1, RuleID: "R1", StatuteID: "/xx/test/s404", Quote: "made up", Reason: reasonNotFound},
			{ItemNumber: 1, RuleID: "R1", StatuteID: statuteLiab, Citation: "Test Code 7", Quote: statuteQuoteLiab, Reason: reasonNotReturned},
		},
		RemovedItems:     []RemovedItem{{RuleID: "R2", ClauseQuote: "Supplier is never liable", Reason: reasonClauseMissing}},
		Partial:          true,
		Notices:          []string{"Partial report: the executive summary could not be written: boom."},
		CitationsChecked: true,
		Usage:            llm.Usage{InputTokens: 1234, OutputTokens: 56},
		ContractText:     testContract,
	}
}

func TestGoldenReports(t *testing.T) {
	for _, tt := range []struct {
		name  string
		write func(*bytes.Buffer, *Report) error
	}{
		{"report.golden.json", func(b *bytes.Buffer, r *Report) error { return WriteJSON(b, r) }},
		{"report.golden.md", func(b *bytes.Buffer, r *Report) error { return WriteMarkdown(b, r) }},
		{"report.golden.html", func(b *bytes.Buffer, r *Report) error { return WriteHTML(b, r) }},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var b bytes.Buffer
			if err := tt.write(&b, goldenReport()); err != nil {
				t.Fatal(err)
			}
			golden(t, tt.name, b.Bytes())
		})
	}
}

func TestHTMLReportIsSelfContainedAndEscaped(t *testing.T) {
	var b bytes.Buffer
	if err := WriteHTML(&b, goldenReport()); err != nil {
		t.Fatal(err)
	}
	html := b.String()
	for _, bad := range []string{"<script", "<link", "@import", "<injunctions>", `href="/xx/test/s404"`} {
		if strings.Contains(html, bad) {
			t.Errorf("HTML contains %q", bad)
		}
	}
	b.Reset()
	if err := WriteHTMLWith(&b, goldenReport(), HTMLOptions{SpanURL: func(start, end int) string {
		return fmt.Sprintf("/contracts/dist-1?span=%d-%d#cited", start, end)
	}}); err != nil {
		t.Fatal(err)
	}
	html = b.String()
	for _, want := range []string{`<a href="/contracts/dist-1?span=414-507#cited">open in contract</a>`, "&lt;injunctions&gt;", `href="https://law.example/test/2?a=1&amp;b=2"`, "statute not found", "@media print", `<mark>` + quoteArbitration + `</mark>`} {
		if !strings.Contains(html, want) {
			t.Errorf("HTML lacks %q", want)
		}
	}
}
