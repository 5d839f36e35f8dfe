package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"sync"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/contractgraph/contractgraph/internal/agent"
	"github.com/contractgraph/contractgraph/internal/eval"
	"github.com/contractgraph/contractgraph/internal/llm"
)

type evalAnswersFlags struct {
	questions string
	models    []string
	judge     string
	output    string
	minScore  float64
	seed      int64
	limit     int
	resume    bool
	ask       askOptions
}

// evalHeartbeat is how often a long question reports that it is still
// running.
var evalHeartbeat = 30 * time.Second

func newEvalAnswersCmd(a *app) *cobra.Command {
	var f evalAnswersFlags
	cmd := &cobra.Command{
		Use:   "answers --questions FILE --model M [--model M2 ...] [--judge J] [-o DIR] [--min-score X]",
		Short: "Score the agent's answers to a question file, per model (tool results, figures, citations, judge)",
		Long: "Ask every question of a question file with each --model, one question at a time, at temperature\n" +
			"0 with a fixed --seed, over the store of --db, and score each answer: the tool result (the result of\n" +
			"some call of the model equals the expected call's result on the same store, so equivalent arguments\n" +
			"count), the expected figures stated in the answer (must_contain), and every cited contract returned\n" +
			"by a tool in the run. With --judge an LLM also grades correctness and faithfulness (1-5) and says\n" +
			"whether the answer is satisfactory against the reference answer.\n\n" +
			"Question files are JSON Lines, one object per line:\n" +
			`  {"id": "q1", "question": "...", "expected": {"tool": "contract_search", "args": {...}},` + "\n" +
			`   "answer": "reference answer", "must_contain": ["31"]}` + "\n" +
			"(only id and question are required), or CSV with the columns id, question, expected (the same JSON\n" +
			"object), answer, must_contain (a JSON array or values separated by \";\").\n\n" +
			"The score is the share of questions passed: answered without error, the tool result right (when an\n" +
			"expected call is given), every figure stated and every citation returned. Reports go to -o DIR: a\n" +
			"JSON file per model, answers.md and a self-contained answers.html. --min-score makes the exit status\n" +
			"1 when a model scores below it. See docs/EVALUATION.md.",
		Example: `  contractgraph --db reference.db eval answers --questions ../shared/questions/dev_questions.jsonl --model openai:gpt-4o-mini
  contractgraph --db contractgraph-demo.db eval answers --questions internal/demo/questions.jsonl \
      --model ollama:qwen2.5:7b --model openai:gpt-4o-mini --judge openai:gpt-4o -o eval-demo --min-score 0.5`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			return a.runEvalAnswers(cmd, f, cmd.Flags().Changed("min-score"))
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.questions, "questions", "", "question file: JSON Lines or CSV (see above)")
	fl.StringArrayVar(&f.models, "model", nil, "model to evaluate as provider:model; repeat for several (default: CONTRACTGRAPH_MODEL)")
	fl.StringVar(&f.judge, "judge", "", "judge model as provider:model (optional)")
	fl.StringVarP(&f.output, "output", "o", "", "directory for the reports (default eval-YYYYMMDD-HHMMSS)")
	fl.Float64Var(&f.minScore, "min-score", 0, "exit with status 1 when a model's score (0 to 1) is below this")
	fl.Int64Var(&f.seed, "seed", eval.DefaultSeed, "sampling seed sent with every model call")
	fl.IntVar(&f.limit, "limit", 0, "ask only the first N questions (0: all)")
	fl.BoolVar(&f.resume, "resume", false, "reuse the answers already in the -o directory (same model, seed and question text) and ask only the rest")
	f.ask.register(cmd)
	return cmd
}

func (a *app) runEvalAnswers(cmd *cobra.Command, f evalAnswersFlags, minScoreSet bool) error {
	ctx := cmd.Context()
	switch {
	case strings.TrimSpace(f.questions) == "":
		return usageError(errors.New("--questions is required: a JSON Lines or CSV question file, e.g. ../shared/questions/dev_questions.jsonl"))
	case minScoreSet && (f.minScore < 0 || f.minScore > 1):
		return usageError(fmt.Errorf("--min-score %g: give a share between 0 and 1", f.minScore))
	case f.limit < 0:
		return usageError(fmt.Errorf("--limit %d: must not be negative", f.limit))
	case f.resume && f.output == "":
		return usageError(errors.New("--resume needs -o DIR: the directory of the run to resume"))
	}
	models := f.models
	if len(models) == 0 && strings.TrimSpace(a.cfg.Model) != "" {
		models = []string{a.cfg.Model}
	}
	if len(models) == 0 {
		return usageError(errNoModelHint)
	}
	qs, err := eval.ReadQuestionFile(f.questions)
	if err != nil {
		return usageError(err)
	}
	if f.limit > 0 && f.limit < len(qs) {
		qs = qs[:f.limit]
	}

	// Open every model (and the judge) first, so that a typo or a missing
	// key is reported before anything runs.
	saved := a.cfg.Model
	defer func() { a.cfg.Model = saved }()
	agents := make([]*agent.Agent, len(models))
	for i, m := range models {
		a.cfg.Model = m
		ag, closeFn, err := a.newAgent(ctx, f.ask)
		if err != nil {
			return err
		}
		defer closeFn()
		agents[i] = ag
	}
	var judge *eval.Judge
	if f.judge != "" {
		if _, err := llm.ParseModelName(f.judge); err != nil {
			return usageError(fmt.Errorf("--judge: %w", err))
		}
		a.cfg.Model = f.judge
		m, err := a.openModel(ctx)
		if err != nil {
			return err
		}
		judge = &eval.Judge{Model: m, Name: f.judge, Seed: f.seed}
	}
	a.cfg.Model = saved
	if err := eval.CheckExpected(ctx, agents[0].Tools, qs); err != nil {
		if errors.Is(err, context.Canceled) {
			return err
		}
		return usageError(err)
	}
	dir := f.output
	if dir == "" {
		dir = eval.DefaultDir(time.Now())
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("report directory: %w", err)
	}

	p := &answersProgress{w: a.stderr, start: time.Now()}
	fmt.Fprintf(a.stderr, "eval answers: %d questions × %d model(s) from %s; reports in %s\n", len(qs), len(models), f.questions, dir)
	var runs []*eval.Run
	var runErr error
	for i, m := range models {
		ev := &eval.Answers{Agent: agents[i], Model: m, Seed: f.seed, Judge: judge, Progress: p.report, Explain: a.explainModelError}
		if f.resume {
			prior, err := eval.ReadAnswerRun(dir, m, f.seed, f.ask.practices)
			if err != nil {
				return err
			}
			ev.Resume = prior
			if len(prior) > 0 {
				fmt.Fprintf(a.stderr, "eval answers: %s: resuming; %d earlier results in %s\n", m, len(prior), dir)
			}
		}
		// The reports are rewritten after every question, so that a long
		// run killed outright still leaves its answers (and --resume can
		// carry on from them).
		ev.Checkpoint = func(r *eval.Run) {
			r.Questions = f.questions
			if _, err := eval.WriteAnswerReports(dir, append(slices.Clip(runs), r)); err != nil {
				fmt.Fprintf(a.stderr, "eval answers: cannot update the reports: %v\n", err)
			}
		}
		run, err := ev.Run(ctx, qs)
		p.stop()
		if run != nil {
			run.Questions = f.questions
			runs = append(runs, run)
			if run.ModelError != "" {
				fmt.Fprintf(a.stderr, "contractgraph: %s: %s (%d of %d questions not answered)\n", m, run.ModelError, run.Summary.Errors, len(qs))
			}
		}
		if err != nil {
			runErr = err
			break
		}
	}
	files, err := eval.WriteAnswerReports(dir, runs)
	if err != nil {
		return err
	}
	if runErr != nil {
		fmt.Fprintf(a.stderr, "eval answers: interrupted; the questions answered so far are in %s\n", files.HTML)
		return runErr
	}
	if err := a.printEvalAnswers(dir, f.questions, files, runs); err != nil {
		return err
	}
	if minScoreSet {
		var below []string
		for _, r := range runs {
			if r.Summary.Score < f.minScore {
				below = append(below, fmt.Sprintf("%s scored %.3f", r.Model, r.Summary.Score))
			}
		}
		if len(below) > 0 {
			return fmt.Errorf("below --min-score %g: %s", f.minScore, strings.Join(below, ", "))
		}
	}
	return nil
}

// evalAnswersOutput is what --json prints.
type evalAnswersOutput struct {
	Dir   string            `json:"dir"`
	Files eval.AnswerFiles  `json:"files"`
	Runs  []evalAnswersRuns `json:"runs"`
}

type evalAnswersRuns struct {
	Model      string       `json:"model"`
	ModelError string       `json:"model_error,omitempty"`
	Summary    eval.Summary `json:"summary"`
}

func (a *app) printEvalAnswers(dir, questions string, files eval.AnswerFiles, runs []*eval.Run) error {
	if a.cfg.JSON {
		out := evalAnswersOutput{Dir: dir, Files: files}
		for _, r := range runs {
			out.Runs = append(out.Runs, evalAnswersRuns{Model: r.Model, ModelError: r.ModelError, Summary: r.Summary})
		}
		enc := json.NewEncoder(a.stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(out)
	}
	n := 0
	if len(runs) > 0 {
		n = runs[0].Summary.Questions
	}
	fmt.Fprintf(a.stdout, "Answer evaluation of %d questions from %s\n\n", n, questions)
	judged := len(runs) > 0 && runs[0].Judge != ""
	tw := tabwriter.NewWriter(a.stdout, 0, 0, 2, ' ', 0)
	head := "model\tscore\ttool results\tfigures\tcitations\terrors"
	if judged {
		head += "\tsatisfactory\tcorrectness\tfaithfulness"
	}
	fmt.Fprintln(tw, head+"\ttokens in/out\tmean time")
	for _, r := range runs {
		s := r.Summary
		line := fmt.Sprintf("%s\t%s\t%s\t%s\t%s\t%d", r.Model, eval.Share(s.Passed, s.Questions), eval.Share(s.ToolCorrect, s.WithExpected),
			eval.Share(s.FiguresOK, s.WithFigures), eval.Share(s.CitationsOK, s.Answered), s.Errors)
		if judged {
			line += fmt.Sprintf("\t%s\t%s\t%s", eval.Share(s.Satisfactory, s.Judged), meanGrade(s.MeanCorrectness, s.Judged), meanGrade(s.MeanFaithfulness, s.Judged))
		}
		fmt.Fprintf(tw, "%s\t%d/%d\t%.1fs\n", line, s.Usage.InputTokens, s.Usage.OutputTokens, float64(s.MeanLatencyMS)/1000)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintf(a.stdout, "\nReports in %s:\n  %s\n  %s\n", dir, files.HTML, files.Markdown)
	for _, f := range files.Runs {
		fmt.Fprintf(a.stdout, "  %s\n", f)
	}
	return nil
}

func meanGrade(mean float64, n int) string {
	if n == 0 {
		return "–"
	}
	return fmt.Sprintf("%.2f", mean)
}

// answersProgress prints one line when a question starts and one when it
// ends, and a heartbeat while a slow model works on it.
type answersProgress struct {
	w     io.Writer
	start time.Time
	mu    sync.Mutex
	tick  chan struct{} // closed to stop the current heartbeat
}

func (p *answersProgress) report(e eval.Progress) {
	p.stop()
	p.mu.Lock()
	defer p.mu.Unlock()
	prefix := fmt.Sprintf("[%d/%d] %s %s", e.Index, e.Total, e.Model, e.Question.ID)
	if !e.Done {
		fmt.Fprintf(p.w, "%s: %s\n", prefix, abbreviate(e.Question.Question, 80))
		stop := make(chan struct{})
		p.tick = stop
		began := time.Now()
		go func() {
			t := time.NewTicker(evalHeartbeat)
			defer t.Stop()
			for {
				select {
				case <-stop:
					return
				case <-t.C:
					p.mu.Lock()
					fmt.Fprintf(p.w, "%s: still running after %s (elapsed %s)\n", prefix, time.Since(began).Round(time.Second), time.Since(p.start).Round(time.Second))
					p.mu.Unlock()
				}
			}
		}()
		return
	}
	r := e.Result
	verdict := "fail"
	if r.Pass {
		verdict = "pass"
	}
	var notes []string
	if r.Error != "" {
		notes = append(notes, "error: "+abbreviate(r.Error, 100))
	}
	if r.Error == "" && r.ToolCorrect != nil && !*r.ToolCorrect {
		notes = append(notes, "tool result wrong")
	}
	if r.FiguresOK != nil && !*r.FiguresOK {
		notes = append(notes, "figures missing")
	}
	if r.CitationsOK != nil && !*r.CitationsOK {
		notes = append(notes, "unreturned citations")
	}
	if len(r.UnsupportedFigures) > 0 {
		notes = append(notes, "figures in no tool result")
	}
	if r.JudgeError != "" {
		notes = append(notes, "judge failed")
	}
	if len(notes) > 0 {
		verdict += " (" + strings.Join(notes, ", ") + ")"
	}
	fmt.Fprintf(p.w, "%s: %s · %d model calls · %.1fs · elapsed %s\n", prefix, verdict, r.ModelCalls, float64(r.DurationMS)/1000, time.Since(p.start).Round(time.Second))
}

// stop ends the heartbeat of the current question, if any.
func (p *answersProgress) stop() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.tick != nil {
		close(p.tick)
		p.tick = nil
	}
}
