package eval

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/contractgraph/contractgraph/internal/agent"
	"github.com/contractgraph/contractgraph/internal/llm"
)

// DefaultSeed is the sampling seed of evaluation runs.
const DefaultSeed = 1

// maxTraceBytes bounds a tool result kept verbatim in a run's record;
// longer results are kept as an excerpt.
const maxTraceBytes = 16 << 10

// Answers evaluates an agent's answers to a list of questions, one
// question at a time.
type Answers struct {
	// Agent is the agent under test, over the tools of the store the
	// questions are about. It is copied for each question with
	// Temperature 0 and Seed fixed; the rest (MaxSteps, Options, NoStream,
	// Now) is used as it is. The expected calls run on Agent.Tools too.
	Agent *agent.Agent
	// Model names the model under test in reports, e.g. "openai:gpt-4o-mini".
	Model string
	// Seed is sent with every model call; DefaultSeed when zero.
	Seed int64
	// Judge, when not nil, grades every answer.
	Judge *Judge
	// Progress, when not nil, is called before and after each question,
	// from the goroutine that called Run.
	Progress func(Progress)
	// Explain, when not nil, restates a model error in one sentence for
	// the record (cmd passes its explanations of connection failures).
	Explain func(error) error
	// Now is the clock of the record; time.Now when nil.
	Now func() time.Time
	// Checkpoint, when not nil, is called with the run so far (its
	// Summary up to date) after each question, so that a caller can keep
	// the reports current during a long run.
	Checkpoint func(*Run)
	// Resume holds the results of an earlier run of the same model; a
	// question whose id and text match a complete one (answered, or
	// failed on its own, not interrupted or skipped) is not asked again.
	Resume []Result
}

// Progress reports where a run is.
type Progress struct {
	Model    string
	Index    int // 1-based
	Total    int
	Question Question
	// Done is false when the question starts and true when it has been
	// answered (and judged); Result is set then.
	Done   bool
	Result *Result
	// Elapsed is the time since Run started.
	Elapsed time.Duration
}

// Run is one model's answers to a question list.
type Run struct {
	Model       string    `json:"model"`
	Judge       string    `json:"judge,omitempty"`
	Questions   string    `json:"questions,omitempty"` // the question file, set by the caller
	Started     time.Time `json:"started"`
	DurationMS  int64     `json:"duration_ms"`
	Seed        int64     `json:"seed"`
	Temperature float64   `json:"temperature"`
	// Practices are the agent's optional practices the run used.
	Practices agent.Options `json:"practices"`
	// ModelError is set when the model could not be reached or refused
	// the credentials; the questions not yet run then carry it too.
	ModelError  string   `json:"model_error,omitempty"`
	Interrupted bool     `json:"interrupted,omitempty"`
	Summary     Summary  `json:"summary"`
	Results     []Result `json:"results"`
}

// Result is the record of one question.
type Result struct {
	ID          string    `json:"id"`
	Question    string    `json:"question"`
	Reference   string    `json:"reference,omitempty"`
	MustContain []string  `json:"must_contain,omitempty"`
	Expected    *Expected `json:"expected,omitempty"`
	// ExpectedResult is what the expected call returned on the store.
	ExpectedResult *Call `json:"expected_result,omitempty"`
	// Calls are the model's tool calls in the order it made them.
	Calls []Call `json:"calls"`
	// Rewritten is the question the tool loop answered when rewriting
	// was on; FollowUps the critic's follow-up questions; Missing what the
	// sufficiency check found no result for.
	Rewritten string `json:"rewritten,omitempty"`
	// RewriteSetAside is the rewriter's question when it added figures of
	// its own and the question was asked as written.
	RewriteSetAside string   `json:"rewrite_set_aside,omitempty"`
	FollowUps       []string `json:"follow_ups,omitempty"`
	Missing         []string `json:"missing,omitempty"`
	// Answer is the agent's answer text (without the Sources line) and
	// RawAnswer the model's own final text, Sources line included.
	Answer    string           `json:"answer"`
	RawAnswer string           `json:"raw_answer,omitempty"`
	Citations []agent.Citation `json:"citations"`

	// ToolCorrect: some call of the model returned what the expected call
	// returns (see compare.go); nil when the question has no expected call.
	ToolCorrect *bool  `json:"tool_correct,omitempty"`
	ToolCheck   string `json:"tool_check,omitempty"`
	// Figures: each must_contain entry and whether the answer states it;
	// FiguresOK is nil when there are none.
	Figures   []Figure `json:"figures,omitempty"`
	FiguresOK *bool    `json:"figures_ok,omitempty"`
	// CitationsOK: every contract the answer names was returned by a tool
	// in this run; Unreturned lists those that were not. Nil when the
	// question was not answered.
	CitationsOK *bool    `json:"citations_ok,omitempty"`
	Unreturned  []string `json:"unreturned_ids,omitempty"`

	// UnsupportedFigures are numbers the answer states that no tool result
	// of the run holds (agent.Answer.UnsupportedFigures); an answer with
	// any does not pass.
	UnsupportedFigures []string `json:"unsupported_figures,omitempty"`

	ModelCalls int       `json:"model_calls"`
	Usage      llm.Usage `json:"usage"`
	DurationMS int64     `json:"duration_ms"`
	ModelMS    int64     `json:"model_ms"`
	Error      string    `json:"error,omitempty"`

	Judge      *Verdict   `json:"judge,omitempty"`
	JudgeError string     `json:"judge_error,omitempty"`
	JudgeUsage *llm.Usage `json:"judge_usage,omitempty"`

	// Pass: answered without error, tool result correct (when expected),
	// every figure stated (when given), every citation returned and every
	// number stated found in a tool result.
	Pass bool `json:"pass"`

	// Incomplete marks the question a cancelled run was asking; Resumed a
	// result taken from an earlier run (Answers.Resume).
	Incomplete bool `json:"incomplete,omitempty"`
	Resumed    bool `json:"resumed,omitempty"`
}

// reusable reports whether r, from an earlier run, stands for q.
func (r Result) reusable(q Question) bool {
	return r.ID == q.ID && r.Question == q.Question && !r.Incomplete && !strings.HasPrefix(r.Error, "not run")
}

// Call is one tool call and its outcome. The result is kept verbatim up to
// 16 KB, else as an excerpt with its full size.
type Call struct {
	Tool          string          `json:"tool"`
	Args          json.RawMessage `json:"args"`
	Result        json.RawMessage `json:"result,omitempty"`
	ResultExcerpt string          `json:"result_excerpt,omitempty"`
	ResultBytes   int             `json:"result_bytes,omitempty"`
	Error         string          `json:"error,omitempty"`
	// Matches tells whether the result is what the expected call returns
	// (nil without an expected call, or for a failed call); Check says why.
	Matches *bool  `json:"matches,omitempty"`
	Check   string `json:"check,omitempty"`
}

func newCall(tool string, args, result json.RawMessage, errText string) Call {
	c := Call{Tool: tool, Args: args, Error: errText}
	if errText == "" {
		c.ResultBytes = len(result)
		if len(result) <= maxTraceBytes && json.Valid(result) {
			c.Result = result
		} else {
			c.ResultExcerpt = clip(string(result), maxTraceBytes)
		}
	}
	return c
}

// resultText is the call's result as text (excerpt when long).
func (c Call) resultText() string {
	if c.Result != nil {
		return string(c.Result)
	}
	return c.ResultExcerpt
}

// Summary aggregates a run.
type Summary struct {
	Questions int `json:"questions"`
	Passed    int `json:"passed"`
	// Score is Passed / Questions.
	Score float64 `json:"score"`
	// Answered counts questions answered without error with some text.
	Answered int `json:"answered"`
	Errors   int `json:"errors"`
	// WithExpected questions have an expected call; ToolCorrect of them
	// were answered by a call with the right result.
	WithExpected int `json:"with_expected"`
	ToolCorrect  int `json:"tool_correct"`
	// WithFigures questions have must_contain; FiguresOK of them state all.
	WithFigures int `json:"with_figures"`
	FiguresOK   int `json:"figures_ok"`
	// CitationsOK of the Answered questions name only returned contracts.
	CitationsOK int `json:"citations_ok"`
	// Judge: answers graded, satisfactory, failures and mean grades (1–5).
	Judged           int     `json:"judged,omitempty"`
	Satisfactory     int     `json:"satisfactory,omitempty"`
	JudgeErrors      int     `json:"judge_errors,omitempty"`
	MeanCorrectness  float64 `json:"mean_correctness,omitempty"`
	MeanFaithfulness float64 `json:"mean_faithfulness,omitempty"`

	ModelCalls    int       `json:"model_calls"`
	ToolCalls     int       `json:"tool_calls"`
	Usage         llm.Usage `json:"usage"`
	DurationMS    int64     `json:"duration_ms"`
	MeanLatencyMS int64     `json:"mean_latency_ms"`
	// Resumed results were taken from an earlier run (--resume).
	Resumed int `json:"resumed,omitempty"`
	// UnsupportedFigures counts answers stating a number no tool result held.
	UnsupportedFigures int `json:"unsupported_figures"`
}

// Summarize computes the summary of results.
func Summarize(results []Result) Summary {
	var s Summary
	var correct, faithful int
	for _, r := range results {
		s.Questions++
		if r.Pass {
			s.Passed++
		}
		if r.Error != "" {
			s.Errors++
		} else if strings.TrimSpace(r.Answer) != "" {
			s.Answered++
		}
		if r.ToolCorrect != nil {
			s.WithExpected++
			if *r.ToolCorrect {
				s.ToolCorrect++
			}
		}
		if r.FiguresOK != nil {
			s.WithFigures++
			if *r.FiguresOK {
				s.FiguresOK++
			}
		}
		if r.CitationsOK != nil && *r.CitationsOK {
			s.CitationsOK++
		}
		if r.Judge != nil {
			s.Judged++
			correct += r.Judge.Correctness
			faithful += r.Judge.Faithfulness
			if r.Judge.Satisfactory {
				s.Satisfactory++
			}
		}
		if r.JudgeError != "" {
			s.JudgeErrors++
		}
		s.ModelCalls += r.ModelCalls
		s.ToolCalls += len(r.Calls)
		s.Usage = s.Usage.Add(r.Usage)
		s.DurationMS += r.DurationMS
		if r.Resumed {
			s.Resumed++
		}
		if len(r.UnsupportedFigures) > 0 {
			s.UnsupportedFigures++
		}
	}
	if s.Questions > 0 {
		s.Score = float64(s.Passed) / float64(s.Questions)
		s.MeanLatencyMS = s.DurationMS / int64(s.Questions)
	}
	if s.Judged > 0 {
		s.MeanCorrectness = float64(correct) / float64(s.Judged)
		s.MeanFaithfulness = float64(faithful) / float64(s.Judged)
	}
	return s
}

// Run asks every question in order and records the outcome. A question
// that fails (a model error, the step limit) is recorded with its error and
// the run goes on; when the model cannot be reached at all or refuses the
// credentials, the questions after it are recorded with that error
// without asking, and Run.ModelError says so. A cancelled context ends the
// run: the partial run is returned with the context's error.
func (e *Answers) Run(ctx context.Context, questions []Question) (*Run, error) {
	if e.Agent == nil || e.Agent.Model == nil || e.Agent.Tools == nil {
		return nil, errors.New("eval: the agent needs a model and tools")
	}
	now := e.Now
	if now == nil {
		now = time.Now
	}
	seed := e.Seed
	if seed == 0 {
		seed = DefaultSeed
	}
	run := &Run{Model: e.Model, Started: now(), Seed: seed, Practices: e.Agent.Options, Results: []Result{}}
	if e.Judge != nil {
		run.Judge = e.Judge.Name
	}
	start := time.Now()
	prior := map[string]Result{}
	for _, r := range e.Resume {
		prior[r.ID] = r
	}
	var fatal error
	for i, q := range questions {
		if err := ctx.Err(); err != nil {
			run.Interrupted = true
			break
		}
		if e.Progress != nil {
			e.Progress(Progress{Model: e.Model, Index: i + 1, Total: len(questions), Question: q, Elapsed: time.Since(start)})
		}
		var r Result
		if p, ok := prior[q.ID]; ok && p.reusable(q) {
			r = p
			r.Resumed = true
		} else if fatal != nil {
			r = baseResult(q)
			r.Error = "not run: " + run.ModelError
			if q.Expected != nil {
				f := false
				r.ToolCorrect, r.ToolCheck = &f, "not run"
			}
		} else {
			a := e.ask(ctx, q, seed)
			r = a.Result
			if ctx.Err() != nil {
				run.Interrupted = true
				r.Incomplete = true
				run.Results = append(run.Results, r)
				break
			}
			if a.err != nil && unreachable(a.err) {
				fatal = a.err
				run.ModelError = e.explain(a.err)
			}
		}
		run.Results = append(run.Results, r)
		if e.Progress != nil {
			e.Progress(Progress{Model: e.Model, Index: i + 1, Total: len(questions), Question: q, Done: true, Result: &run.Results[len(run.Results)-1], Elapsed: time.Since(start)})
		}
		if e.Checkpoint != nil {
			run.DurationMS = time.Since(start).Milliseconds()
			run.Summary = Summarize(run.Results)
			e.Checkpoint(run)
		}
	}
	run.DurationMS = time.Since(start).Milliseconds()
	run.Summary = Summarize(run.Results)
	if run.Interrupted {
		return run, ctx.Err()
	}
	return run, nil
}

// unreachable reports whether err means that no question will get through:
// no connection to the server, or credentials refused.
func unreachable(err error) bool {
	if errors.Is(err, llm.ErrAuth) || errors.Is(err, llm.ErrNoModel) {
		return true
	}
	var ae *llm.APIError
	return errors.As(err, &ae) && errors.Is(err, llm.ErrUnavailable) && ae.StatusCode == 0 && ae.Timeout == 0
}

func (e *Answers) explain(err error) string {
	if e.Explain != nil {
		err = e.Explain(err)
	}
	return err.Error()
}

func baseResult(q Question) Result {
	return Result{ID: q.ID, Question: q.Question, Reference: q.Answer, MustContain: q.MustContain, Expected: q.Expected, Calls: []Call{}, Citations: []agent.Citation{}}
}

// asked is a Result with the run's error kept for the caller.
type asked struct {
	Result
	err error
}

// ask runs one question through a copy of the agent and grades it.
func (e *Answers) ask(ctx context.Context, q Question, seed int64) (out asked) {
	r := baseResult(q)
	tb := e.Agent.Tools
	defer func() { out.Result = r }()

	var expRes json.RawMessage
	if q.Expected != nil {
		res, err := tb.Call(ctx, q.Expected.Tool, q.Expected.Args)
		errText := ""
		if err != nil {
			errText = err.Error()
		}
		c := newCall(q.Expected.Tool, q.Expected.Args, res, errText)
		r.ExpectedResult = &c
		expRes = res
		if err != nil {
			expRes = nil
		}
	}

	rec := &recorder{m: e.Agent.Model}
	ag := *e.Agent
	ag.Model = rec.model()
	temp := 0.0
	ag.Temperature = &temp
	ag.Seed = &seed

	ret := newReturned()
	for _, id := range idWordRe.FindAllString(q.Question, -1) {
		ret.ids[strings.ToLower(id)] = true
	}
	index := map[string]int{} // tool call id → index in r.Calls
	emit := func(ev agent.Event) {
		switch ev.Type {
		case agent.EventRewrite:
			r.Rewritten = ev.Rewrite.Question
			r.RewriteSetAside = ev.Rewrite.SetAside
		case agent.EventCritique:
			r.FollowUps = ev.Critique.FollowUps
		case agent.EventToolCall:
			index[ev.ToolCall.ID] = len(r.Calls)
			r.Calls = append(r.Calls, Call{Tool: ev.ToolCall.Name, Args: ev.ToolCall.Arguments})
		case agent.EventToolResult:
			i, ok := index[ev.ToolResult.ID]
			if !ok {
				return
			}
			c := newCall(r.Calls[i].Tool, r.Calls[i].Args, ev.ToolResult.Result, ev.ToolResult.Error)
			if ev.ToolResult.Error == "" {
				ret.add(c.Tool, ev.ToolResult.Result)
				if expRes != nil {
					ok, why := matchResult(q.Expected, expRes, c.Tool, c.Args, ev.ToolResult.Result)
					c.Matches, c.Check = &ok, why
				}
			}
			r.Calls[i] = c
		}
	}
	started := time.Now()
	ans, err := ag.Run(ctx, nil, q.Question, emit)
	r.DurationMS = time.Since(started).Milliseconds()
	r.ModelCalls, r.ModelMS, r.Usage, r.RawAnswer = rec.stats()
	if err != nil {
		out.err = err
		r.Error = e.explain(err)
		if q.Expected != nil {
			ok := anyMatch(r.Calls)
			r.ToolCorrect, r.ToolCheck = &ok, toolVerdict(&r)
		}
		return out
	}
	r.Answer = ans.Text
	r.Missing = ans.Missing
	r.UnsupportedFigures = ans.UnsupportedFigures
	if ans.Citations != nil {
		r.Citations = ans.Citations
	}
	if q.Expected != nil {
		ok := anyMatch(r.Calls)
		r.ToolCorrect, r.ToolCheck = &ok, toolVerdict(&r)
	}
	if len(q.MustContain) > 0 {
		r.Figures = checkFigures(r.Answer, q.MustContain)
		ok := true
		for _, f := range r.Figures {
			ok = ok && f.Found
		}
		r.FiguresOK = &ok
	}
	if strings.TrimSpace(r.Answer) != "" {
		r.Unreturned = citationCheck(ctx, r.RawAnswer, r.Answer, r.Citations, ret, q.Question, tb)
		ok := len(r.Unreturned) == 0
		r.CitationsOK = &ok
	}
	r.Pass = strings.TrimSpace(r.Answer) != "" &&
		(r.ToolCorrect == nil || *r.ToolCorrect) &&
		(r.FiguresOK == nil || *r.FiguresOK) &&
		r.CitationsOK != nil && *r.CitationsOK &&
		len(r.UnsupportedFigures) == 0
	if e.Judge != nil && strings.TrimSpace(r.Answer) != "" {
		v, u, err := e.Judge.Grade(ctx, q, &r)
		if u != (llm.Usage{}) {
			r.JudgeUsage = &u
		}
		if err != nil {
			r.JudgeError = e.explain(err)
		} else {
			r.Judge = v
		}
	}
	return out
}

func anyMatch(calls []Call) bool {
	for _, c := range calls {
		if c.Matches != nil && *c.Matches {
			return true
		}
	}
	return false
}

// toolVerdict says in a few words how tool correctness was decided.
func toolVerdict(r *Result) string {
	if r.ExpectedResult != nil && r.ExpectedResult.Error != "" {
		return "the expected call failed: " + r.ExpectedResult.Error
	}
	var last *Call
	for i := range r.Calls {
		c := &r.Calls[i]
		if c.Matches != nil && *c.Matches {
			return fmt.Sprintf("call %d (%s): %s", i+1, c.Tool, c.Check)
		}
		if c.Matches != nil && (last == nil || c.Tool == r.Expected.Tool || last.Tool != r.Expected.Tool) {
			last = c
		}
	}
	switch {
	case last != nil:
		return fmt.Sprintf("no call matched; %s: %s", last.Tool, last.Check)
	case len(r.Calls) == 0 && r.Error != "":
		return "the run failed before any tool call"
	case len(r.Calls) == 0:
		return "no tool was called"
	}
	return "no tool call succeeded"
}

// recorder wraps the model under test to see what the agent does not
// report: each call's raw reply, latency and tokens, failed calls included.
type recorder struct {
	m     llm.Model
	mu    sync.Mutex
	calls int
	dur   time.Duration
	usage llm.Usage
	final string // text of the last plain (not structured) reply without tool calls
}

func (r *recorder) model() llm.Model {
	if _, ok := r.m.(llm.Streamer); ok {
		return streamingRecorder{r}
	}
	return r
}

func (r *recorder) Generate(ctx context.Context, req *llm.Request) (*llm.Response, error) {
	start := time.Now()
	resp, err := r.m.Generate(ctx, req)
	r.note(req, resp, time.Since(start))
	return resp, err
}

func (r *recorder) note(req *llm.Request, resp *llm.Response, d time.Duration) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.calls++
	r.dur += d
	if resp == nil {
		return
	}
	r.usage = r.usage.Add(resp.Usage)
	if req.ResponseFormat == nil && len(resp.Message.ToolCalls) == 0 {
		r.final = resp.Message.Content
	}
}

func (r *recorder) stats() (calls int, ms int64, usage llm.Usage, final string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.calls, r.dur.Milliseconds(), r.usage, r.final
}

type streamingRecorder struct{ *recorder }

func (s streamingRecorder) Stream(ctx context.Context, req *llm.Request, fn func(llm.Delta) error) (*llm.Response, error) {
	start := time.Now()
	resp, err := s.m.(llm.Streamer).Stream(ctx, req, fn)
	s.note(req, resp, time.Since(start))
	return resp, err
}
