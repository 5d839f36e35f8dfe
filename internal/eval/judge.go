package eval

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"strings"
	"text/template"

	"github.com/contractgraph/contractgraph/internal/llm"
)

//go:embed prompts/*.tmpl
var promptFS embed.FS

var prompts = template.Must(template.New("").Funcs(template.FuncMap{
	"join": strings.Join,
	"inc":  func(i int) int { return i + 1 },
}).ParseFS(promptFS, "prompts/*.tmpl"))

// Judge is an LLM that grades answers: correctness against the reference
// answer (or, without one, against the tool results), faithfulness to the
// tool results, and a satisfactory verdict. It runs at temperature 0 with
// a fixed seed.
type Judge struct {
	Model llm.Model
	// Name names the judge model in reports.
	Name string
	// Seed is sent with every call; DefaultSeed when zero.
	Seed int64
	// MaxResultBytes bounds each tool result shown to the judge;
	// DefaultJudgeResultBytes when zero.
	MaxResultBytes int
}

// DefaultJudgeResultBytes bounds one tool result in the judge's prompt.
const DefaultJudgeResultBytes = 4 << 10

// Verdict is the judge's grade of one answer. Correctness and
// Faithfulness are on a scale of 1 (wrong, invented) to 5 (fully correct,
// fully supported by the tool results).
type Verdict struct {
	Reason       string `json:"reason" jsonschema:"One or two sentences naming what is right or wrong in the answer."`
	Correctness  int    `json:"correctness" jsonschema:"1 (wrong, empty or a refusal) to 5 (fully correct)."`
	Faithfulness int    `json:"faithfulness" jsonschema:"1 (mostly invented) to 5 (every statement is supported by the tool results)."`
	Satisfactory bool   `json:"satisfactory" jsonschema:"True only if a person asking the question would accept the answer as right."`
}

type judgeData struct {
	Question    string
	Reference   string
	MustContain []string
	Calls       []judgeCall
	Answer      string
}

type judgeCall struct {
	Tool, Args, Result, Error string
}

func renderPrompt(name string, data any) (string, error) {
	var b strings.Builder
	if err := prompts.ExecuteTemplate(&b, name, data); err != nil {
		return "", fmt.Errorf("render prompt %s: %w", name, err)
	}
	return b.String(), nil
}

// judgePrompt is the judge's prompt for one answered question.
func (j *Judge) judgePrompt(q Question, r *Result) (string, error) {
	limit := j.MaxResultBytes
	if limit <= 0 {
		limit = DefaultJudgeResultBytes
	}
	d := judgeData{Question: q.Question, Reference: q.Answer, MustContain: q.MustContain, Answer: r.Answer}
	for _, c := range r.Calls {
		d.Calls = append(d.Calls, judgeCall{Tool: c.Tool, Args: compact(c.Args), Result: clip(c.resultText(), limit), Error: c.Error})
	}
	return renderPrompt("judge.tmpl", d)
}

// Grade asks the judge about one answer. A reply that is not valid JSON for
// Verdict, or has a grade outside 1–5, gets one repair round; what is
// still wrong is an error (recorded for the question by the caller).
// The usage counts the judge's tokens.
func (j *Judge) Grade(ctx context.Context, q Question, r *Result) (*Verdict, llm.Usage, error) {
	var usage llm.Usage
	prompt, err := j.judgePrompt(q, r)
	if err != nil {
		return nil, usage, err
	}
	temp := 0.0
	seed := j.Seed
	if seed == 0 {
		seed = DefaultSeed
	}
	msgs := []llm.Message{{Role: llm.RoleUser, Content: prompt}}
	for attempt := 0; ; attempt++ {
		v, resp, err := llm.GenerateData[Verdict](ctx, j.Model, &llm.Request{Messages: msgs, Temperature: &temp, Seed: &seed})
		if resp != nil {
			usage = usage.Add(resp.Usage)
		}
		if err == nil {
			if rangeErr := v.check(); rangeErr != nil {
				err = &llm.ParseError{Raw: resp.Message.Content, Err: rangeErr}
			} else {
				return &v, usage, nil
			}
		}
		var pe *llm.ParseError
		if !errors.As(err, &pe) || attempt > 0 {
			return nil, usage, fmt.Errorf("judge: %w", err)
		}
		msgs = append(msgs, pe.RepairMessages()...)
	}
}

func (v Verdict) check() error {
	if v.Correctness < 1 || v.Correctness > 5 {
		return fmt.Errorf("correctness %d is outside the scale 1 to 5", v.Correctness)
	}
	if v.Faithfulness < 1 || v.Faithfulness > 5 {
		return fmt.Errorf("faithfulness %d is outside the scale 1 to 5", v.Faithfulness)
	}
	return nil
}
