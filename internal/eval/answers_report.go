package eval

import (
	"bytes"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/contractgraph/contractgraph/internal/agent"
)

//go:embed templates/*.tmpl
var templateFS embed.FS

var answersHTML = template.Must(template.New("answers.html.tmpl").Funcs(template.FuncMap{
	"share":   Share,
	"grade":   grade,
	"seconds": seconds,
	"clip":    func(s string, n int) string { return clipRunes(strings.Join(strings.Fields(s), " "), n) },
	"json":    func(b json.RawMessage) string { return compact(b) },
	"join":    strings.Join,
	"inc":     func(i int) int { return i + 1 },
	"deref":   func(b *bool) bool { return b != nil && *b },
	"mark":    mark,
	"callResult": func(c Call, n int) string {
		return clip(indentJSON(c.resultText()), n)
	},
}).ParseFS(templateFS, "templates/answers.html.tmpl"))

// AnswerFiles are the files WriteAnswerReports wrote.
type AnswerFiles struct {
	Runs     []string `json:"runs"` // one JSON file per run, in run order
	Markdown string   `json:"markdown"`
	HTML     string   `json:"html"`
}

// ReadAnswerRun reads the results of model's earlier run in dir
// (answers-MODEL.json as WriteAnswerReports names it), for Answers.Resume.
// A missing file is no results; a file that does not decode, or that was
// run with another seed or other practices, is an error naming it.
func ReadAnswerRun(dir, model string, seed int64, practices agent.Options) ([]Result, error) {
	path := filepath.Join(dir, "answers-"+Slug(model)+".json")
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("resume: %w", err)
	}
	var r Run
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("resume: %s is not an answers report: %w", path, err)
	}
	if r.Model != model {
		return nil, fmt.Errorf("resume: %s holds the answers of %s, not %s", path, r.Model, model)
	}
	if r.Seed != seed {
		return nil, fmt.Errorf("resume: %s was run with --seed %d, not %d; pass --seed %d or another -o directory", path, r.Seed, seed, r.Seed)
	}
	if practices != r.Practices {
		return nil, fmt.Errorf("resume: %s was run with %s, not %s; pass the same flags or another -o directory", path, PracticesText(r.Practices), PracticesText(practices))
	}
	return r.Results, nil
}

// PracticesText names the agent practices a run used, as flags.
func PracticesText(o agent.Options) string {
	var on []string
	if o.Rewrite {
		on = append(on, "--rewrite")
	}
	if o.Critic {
		on = append(on, "--critic")
	}
	if o.Check {
		on = append(on, "--check")
	}
	if len(on) == 0 {
		return "no rewrite, critic or check"
	}
	return strings.Join(on, " ")
}

// WriteAnswerReports writes into dir (created if needed) one JSON file per
// run (answers-MODEL.json), the Markdown summary answers.md and the
// self-contained HTML report answers.html.
func WriteAnswerReports(dir string, runs []*Run) (AnswerFiles, error) {
	var files AnswerFiles
	used := map[string]int{}
	for _, r := range runs {
		slug := Slug(r.Model)
		used[slug]++
		if n := used[slug]; n > 1 {
			slug = fmt.Sprintf("%s-%d", slug, n)
		}
		path := filepath.Join(dir, "answers-"+slug+".json")
		if err := WriteJSON(path, r); err != nil {
			return files, err
		}
		files.Runs = append(files.Runs, path)
	}
	var md bytes.Buffer
	if err := WriteAnswersMarkdown(&md, runs); err != nil {
		return files, err
	}
	files.Markdown = filepath.Join(dir, "answers.md")
	if err := WriteFile(files.Markdown, md.Bytes()); err != nil {
		return files, err
	}
	var page bytes.Buffer
	if err := WriteAnswersHTML(&page, runs); err != nil {
		return files, err
	}
	files.HTML = filepath.Join(dir, "answers.html")
	if err := WriteFile(files.HTML, page.Bytes()); err != nil {
		return files, err
	}
	return files, nil
}

// scoreChart is the per-model chart of the report.
func scoreChart(runs []*Run) Chart {
	c := Chart{Series: []string{"score", "tool results", "figures", "citations"}}
	judged := false
	for _, r := range runs {
		judged = judged || r.Judge != ""
	}
	if judged {
		c.Series = append(c.Series, "judge: satisfactory")
	}
	for _, r := range runs {
		s := r.Summary
		row := ChartRow{Label: r.Model, Values: []float64{Ratio(s.Passed, s.Questions), Ratio(s.ToolCorrect, s.WithExpected), Ratio(s.FiguresOK, s.WithFigures), Ratio(s.CitationsOK, s.Answered)}}
		if judged {
			row.Values = append(row.Values, Ratio(s.Satisfactory, s.Judged))
		}
		c.Rows = append(c.Rows, row)
	}
	return c
}

// answerRow is one question across runs; a nil cell is a question a run
// did not reach.
type answerRow struct {
	ID, Question string
	Cells        []*answerCell
}

type answerCell struct {
	R      *Result
	Anchor string
}

func answerRows(runs []*Run) []answerRow {
	var rows []answerRow
	at := map[string]int{}
	for _, r := range runs {
		for _, res := range r.Results {
			if _, ok := at[res.ID]; !ok {
				at[res.ID] = len(rows)
				rows = append(rows, answerRow{ID: res.ID, Question: res.Question, Cells: make([]*answerCell, len(runs))})
			}
		}
	}
	for mi, r := range runs {
		for i := range r.Results {
			res := &r.Results[i]
			rows[at[res.ID]].Cells[mi] = &answerCell{R: res, Anchor: traceAnchor(mi, res.ID)}
		}
	}
	return rows
}

func traceAnchor(model int, id string) string { return fmt.Sprintf("t%d-%s", model+1, Slug(id)) }

// reportHeader is what every report says about the runs as a whole.
type reportHeader struct {
	File      string
	Questions int
	Judge     string
	Seed      int64
	Started   string
}

func header(runs []*Run) reportHeader {
	var h reportHeader
	for _, r := range runs {
		h.File = firstNonEmpty(h.File, r.Questions)
		h.Judge = firstNonEmpty(h.Judge, r.Judge)
		if h.Seed == 0 {
			h.Seed = r.Seed
		}
		if h.Started == "" && !r.Started.IsZero() {
			h.Started = r.Started.Format(time.RFC3339)
		}
	}
	h.Questions = len(answerRows(runs))
	return h
}

func firstNonEmpty(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// WriteAnswersHTML writes the self-contained HTML report of runs: the
// per-model score chart and table, a per-question table whose cells link
// to each answer's trace, and the traces (tool calls with arguments and
// truncated results, the answer, the checks and the judge's verdict).
func WriteAnswersHTML(w io.Writer, runs []*Run) error {
	var body bytes.Buffer
	err := answersHTML.Execute(&body, struct {
		reportHeader
		Runs   []*Run
		Rows   []answerRow
		Chart  template.HTML
		Anchor func(int, string) string
	}{header(runs), runs, answerRows(runs), scoreChart(runs).SVG(), traceAnchor})
	if err != nil {
		return fmt.Errorf("render answers report: %w", err)
	}
	return WritePage(w, "Answer evaluation", template.HTML(body.String()))
}

// WriteAnswersMarkdown writes the Markdown summary of runs: scores per
// model, what the score means, and per question the outcome for each model
// with the reason of every failure.
func WriteAnswersMarkdown(w io.Writer, runs []*Run) error {
	h := header(runs)
	var b strings.Builder
	b.WriteString("# Answer evaluation\n\n")
	fmt.Fprintf(&b, "%d questions", h.Questions)
	if h.File != "" {
		fmt.Fprintf(&b, " from `%s`", h.File)
	}
	fmt.Fprintf(&b, ", %d model(s)", len(runs))
	if h.Judge != "" {
		fmt.Fprintf(&b, ", judge `%s`", h.Judge)
	}
	fmt.Fprintf(&b, "; temperature 0, seed %d", h.Seed)
	if len(runs) > 0 {
		fmt.Fprintf(&b, "; agent practices: %s", PracticesText(runs[0].Practices))
	}
	if h.Started != "" {
		fmt.Fprintf(&b, "; started %s", h.Started)
	}
	b.WriteString(".\n\n")
	for _, r := range runs {
		if r.ModelError != "" {
			fmt.Fprintf(&b, "> **%s**: %s\n\n", r.Model, r.ModelError)
		}
		if r.Interrupted {
			fmt.Fprintf(&b, "> **%s**: interrupted after %d questions.\n\n", r.Model, len(r.Results))
		}
		if n := r.Summary.Resumed; n > 0 {
			fmt.Fprintf(&b, "> **%s**: %d of the %d results are from an earlier run (`--resume`).\n\n", r.Model, n, len(r.Results))
		}
	}
	b.WriteString("## Scores\n\n")
	head := []string{"model", "score", "tool results", "figures", "citations", "figures not in results", "errors"}
	if h.Judge != "" {
		head = append(head, "satisfactory", "correctness", "faithfulness")
	}
	head = append(head, "model calls", "tokens in / out", "mean time")
	var rows [][]string
	for _, r := range runs {
		s := r.Summary
		row := []string{r.Model, Share(s.Passed, s.Questions), Share(s.ToolCorrect, s.WithExpected), Share(s.FiguresOK, s.WithFigures), Share(s.CitationsOK, s.Answered), Share(s.UnsupportedFigures, s.Answered), fmt.Sprint(s.Errors)}
		if h.Judge != "" {
			sat := Share(s.Satisfactory, s.Judged)
			if s.JudgeErrors > 0 {
				sat += fmt.Sprintf(" (%d failed)", s.JudgeErrors)
			}
			row = append(row, sat, grade(s.MeanCorrectness, s.Judged), grade(s.MeanFaithfulness, s.Judged))
		}
		row = append(row, fmt.Sprint(s.ModelCalls), fmt.Sprintf("%d / %d", s.Usage.InputTokens, s.Usage.OutputTokens), seconds(s.MeanLatencyMS))
		rows = append(rows, row)
	}
	b.WriteString(MarkdownTable(head, rows))
	b.WriteString("\n" + scoreDefinition + "\n\n## Questions\n\n")
	qhead := []string{"id", "question"}
	for _, r := range runs {
		qhead = append(qhead, r.Model)
	}
	var qrows [][]string
	for _, row := range answerRows(runs) {
		cells := []string{row.ID, row.Question}
		for _, c := range row.Cells {
			if c == nil {
				cells = append(cells, "not run")
				continue
			}
			cells = append(cells, outcomeText(c.R))
		}
		qrows = append(qrows, cells)
	}
	b.WriteString(MarkdownTable(qhead, qrows))
	_, err := io.WriteString(w, b.String())
	return err
}

const scoreDefinition = "**Score** is the share of questions passed: answered without error, with a tool result equal to the " +
	"expected call's on the same store (when the question gives one; equivalent arguments count), every `must_contain` " +
	"figure stated (number formats are tolerated), and every contract the answer names returned by a tool in the run. " +
	"*Tool results* counts the questions with an expected call, *figures* those with `must_contain`, *citations* the answered " +
	"ones. The judge grades correctness and faithfulness from 1 to 5 and says whether the answer is satisfactory."

// outcomeText says in one cell how a question went and, if it failed, why.
func outcomeText(r *Result) string {
	if r.Pass {
		s := "pass"
		if r.Judge != nil {
			s += fmt.Sprintf(" · judge %d/%d%s", r.Judge.Correctness, r.Judge.Faithfulness, map[bool]string{true: " ✓", false: " ✗"}[r.Judge.Satisfactory])
		}
		return s
	}
	var why []string
	if r.Error != "" {
		why = append(why, "error: "+clipRunes(r.Error, 160))
	} else if strings.TrimSpace(r.Answer) == "" {
		why = append(why, "empty answer")
	}
	if r.ToolCorrect != nil && !*r.ToolCorrect {
		why = append(why, "tools: "+r.ToolCheck)
	}
	var missing []string
	for _, f := range r.Figures {
		if !f.Found {
			missing = append(missing, f.Want)
		}
	}
	if len(missing) > 0 {
		why = append(why, "figures missing: "+strings.Join(missing, ", "))
	}
	if len(r.Unreturned) > 0 {
		why = append(why, "not returned by a tool: "+strings.Join(r.Unreturned, ", "))
	}
	if len(r.UnsupportedFigures) > 0 {
		why = append(why, "figures in no tool result: "+strings.Join(r.UnsupportedFigures, ", "))
	}
	if r.Judge != nil {
		why = append(why, fmt.Sprintf("judge %d/%d%s", r.Judge.Correctness, r.Judge.Faithfulness, map[bool]string{true: " ✓", false: " ✗"}[r.Judge.Satisfactory]))
	}
	if r.JudgeError != "" {
		why = append(why, "judge failed")
	}
	return "fail: " + strings.Join(why, "; ")
}

func mark(b *bool) template.HTML {
	switch {
	case b == nil:
		return `<span class="na">–</span>`
	case *b:
		return `<span class="ok">✓</span>`
	}
	return `<span class="bad">✗</span>`
}

func grade(mean float64, n int) string {
	if n == 0 {
		return "–"
	}
	return fmt.Sprintf("%.2f", mean)
}

func seconds(ms int64) string { return fmt.Sprintf("%.1fs", float64(ms)/1000) }

func indentJSON(s string) string {
	var buf bytes.Buffer
	if err := json.Indent(&buf, []byte(s), "", "  "); err != nil {
		return s
	}
	return buf.String()
}
