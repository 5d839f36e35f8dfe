package agent

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"golang.org/x/sync/errgroup"

	"github.com/contractgraph/contractgraph/internal/llm"
	"github.com/contractgraph/contractgraph/internal/textnum"
	"github.com/contractgraph/contractgraph/internal/tools"
)

// Toolbox is what the agent needs from its tools; *tools.Set satisfies it.
type Toolbox interface {
	// Tools lists the tools the model may call.
	Tools() []tools.Tool
	// Call runs one tool on JSON arguments. Any error (unknown tool, bad
	// arguments, store failure) is handed back to the model as the tool's
	// result so it can correct itself; only context errors stop the run.
	Call(ctx context.Context, name string, args json.RawMessage) (json.RawMessage, error)
}

// ErrMaxSteps means the model kept calling tools for MaxSteps rounds
// without giving a final answer.
var ErrMaxSteps = errors.New("agent: no answer within the step limit")

// ErrNoAnswer means the model wrote no answer text, even when asked once
// more, and no tool result succeeded that an answer could be composed from.
var ErrNoAnswer = errors.New("agent: the model gave no answer text")

// Defaults.
const (
	DefaultMaxSteps       = 8
	DefaultParallel       = 4
	DefaultMaxResultBytes = 48 << 10
	// DefaultMaxCallsPerStep bounds the tool calls of one model turn: a
	// model obeying an instruction injected into a contract ("fetch every
	// contract") cannot fan out into hundreds of calls.
	DefaultMaxCallsPerStep = 10
	// DefaultMaxStepResultBytes bounds what one turn's tool results send
	// back to the model in all, so the next request stays small.
	DefaultMaxStepResultBytes = 128 << 10
	// DefaultMaxReplyTokens bounds one reply of the model in an agent step:
	// an answer or a tool call needs a few hundred tokens, while a small
	// local model that starts explaining a plan can write 4,000 tokens at a
	// few tokens a second, minutes for nothing.
	DefaultMaxReplyTokens = 1024
	maxFollowUps          = 3
)

// Agent answers questions with a model over a toolbox. The zero values of
// the optional fields are sensible defaults. An Agent is safe for
// concurrent Runs.
type Agent struct {
	Model llm.Model
	Tools Toolbox
	// MaxSteps bounds model calls per tool pass (critic mode has two
	// passes); DefaultMaxSteps when zero.
	MaxSteps int
	// Now gives today's date for the system prompt; time.Now when nil.
	Now func() time.Time
	// Options are the practices Run uses; RunWith takes its own.
	Options
	// NoStream makes the agent call Generate even when the model can
	// stream (some OpenAI-compatible servers stream tool calls badly),
	// for the critic's structured calls too.
	NoStream bool
	// Parallel bounds concurrent tool calls of one model turn;
	// DefaultParallel when zero.
	Parallel int
	// MaxResultBytes bounds one tool result as sent to the model (the
	// citations still see all of it); DefaultMaxResultBytes when zero.
	MaxResultBytes int
	// MaxCallsPerStep bounds the tool calls run in one model turn; the
	// calls after it are answered with an error saying so, without running.
	// DefaultMaxCallsPerStep when zero.
	MaxCallsPerStep int
	// MaxStepResultBytes bounds the bytes of one turn's tool results sent
	// to the model in all; a result past it is cut to what is left (at
	// least a note). DefaultMaxStepResultBytes when zero.
	MaxStepResultBytes int
	// MaxReplyTokens bounds each reply of the model in the tool loop;
	// DefaultMaxReplyTokens when zero, none when negative. An answer cut
	// there carries a note saying so.
	MaxReplyTokens int
	// Temperature, when set, is passed to every model call.
	Temperature *float64
	// Seed, when set, is passed to every model call so runs can be
	// reproduced (eval fixes it).
	Seed *int64
	// Log receives debug traces of prompts and tool calls; none when nil.
	Log *slog.Logger
}

// Options switch the agent's optional practices, each on its own; the
// zero value is the plain tool loop. They cost model calls: Rewrite and
// Critic one structured call each, Critic and Check at most one more tool
// pass each.
type Options struct {
	// Rewrite turns the question, with the conversation so far, into one
	// self-contained, atomic question before the tool loop (a rewrite
	// event shows it). A failed rewrite keeps the question as asked.
	Rewrite bool `json:"rewrite"`
	// Critic lets a critic (structured output) read the first answer and
	// list what it misses as follow-up questions (a critique event), which
	// get a second tool pass before the final answer. Only the final
	// answer is streamed.
	Critic bool `json:"critic"`
	// Check is the sufficiency check (check.go): after the first pass, when
	// no tool call returned anything an answer could rest on (none was
	// made, every one failed, or every result was empty), the model is
	// told what went wrong and gets one more tool pass to search again or
	// to say what is missing; if the results still support nothing, the
	// answer carries the gaps (Answer.Missing) and a note, and when every
	// call failed the answer is the list of failures (the model's reply,
	// resting on nothing, is set aside in a note). Check events show both
	// verdicts.
	Check bool `json:"check"`
}

// run is the state of one Run.
type run struct {
	a      *Agent
	opts   Options
	emit   func(Event)
	log    *slog.Logger
	defs   []llm.ToolDef
	seen   *seen
	usage  llm.Usage
	calls  []string // "name args" of every tool call, for the critic
	stream bool     // emit token events
	// checking makes a streaming pass stream a step only when the results
	// so far already pass the sufficiency check, since otherwise the reply
	// may be superseded by the check's extra pass.
	checking bool
	streamed bool          // the last reply of the last pass was streamed
	outcomes []toolOutcome // every tool call's outcome, for the check

	names    []string        // the tools' names, in order
	known    map[string]bool // the same, for recognising calls written as text
	question string          // the question as asked, for the no-answer prompt
	nudged   bool            // the model was asked once more for an answer
	// described is set once the model was told to make a call it only
	// described in prose ("I'll use the `contract_aggregate` function...").
	described bool
	last      *toolOutcome // the last successful tool call, to compose from
	// figures are the numbers of the run's tool results (figureBytes of
	// them read), to check the answer's figures against; nil before any.
	figures     map[float64]bool
	figureBytes int
	looped      bool // a reply was stopped because it repeated itself
	failures    bool // the answer is the check's list of failed calls, not the model's
	cut         bool // the last reply stopped at MaxReplyTokens
}

type toolOutcome struct {
	call   llm.ToolCall
	result json.RawMessage
	err    error
}

// Run answers question given the earlier conversation history (user and
// assistant messages; system messages in it are ignored), with the agent's
// own Options. emit, when not nil, receives events sequentially from the
// calling goroutine: a rewrite event when rewriting, tool_call /
// tool_result pairs, check and critique events and token events, then
// answer or error, then done. Errors: ErrMaxSteps, model errors (wrapping
// llm's sentinels) and context errors; tool failures are not errors of Run.
func (a *Agent) Run(ctx context.Context, history []llm.Message, question string, emit func(Event)) (*Answer, error) {
	return a.RunWith(ctx, history, question, a.Options, emit)
}

// RunWith is Run with opts in place of the agent's Options, so that one
// Agent serves requests that switch the practices each on their own.
func (a *Agent) RunWith(ctx context.Context, history []llm.Message, question string, opts Options, emit func(Event)) (*Answer, error) {
	if emit == nil {
		emit = func(Event) {}
	}
	ans, err := a.run(ctx, history, question, opts, emit)
	if err != nil {
		emit(Event{Type: EventError, Error: err.Error()})
	} else {
		emit(Event{Type: EventAnswer, Answer: ans})
	}
	emit(Event{Type: EventDone})
	return ans, err
}

func (a *Agent) run(ctx context.Context, history []llm.Message, question string, opts Options, emit func(Event)) (*Answer, error) {
	if a.Model == nil || a.Tools == nil {
		return nil, errors.New("agent: model and tools are required")
	}
	question = strings.TrimSpace(question)
	if question == "" {
		return nil, errors.New("agent: empty question")
	}
	r := a.newRun(emit)
	r.opts = opts
	date := a.now().Format(time.DateOnly)
	system, err := render("system.tmpl", systemData{Date: date, Tools: r.names})
	if err != nil {
		return nil, err
	}
	var prior []llm.Message
	for _, m := range history {
		if m.Role != llm.RoleSystem {
			prior = append(prior, m)
		}
	}
	asked := question
	if opts.Rewrite {
		var failure, setAside string
		asked, setAside, failure = r.rewrite(ctx, prior, question, date)
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		emit(Event{Type: EventRewrite, Rewrite: &RewriteEvent{Original: question, Question: asked, Error: failure, SetAside: setAside}})
	}
	r.question = asked
	msgs := append([]llm.Message{{Role: llm.RoleSystem, Content: system}}, prior...)
	msgs = append(msgs, llm.Message{Role: llm.RoleUser, Content: asked})

	// In critic mode the first draft may be superseded, so only the final
	// pass streams; with the check a reply streams only once the results
	// already pass it.
	r.stream = a.canStream() && !opts.Critic
	r.checking = opts.Check
	msgs, text, err := r.pass(ctx, msgs)
	if err != nil {
		return nil, err
	}
	var missing []string
	if opts.Check {
		if msgs, text, missing, err = r.check(ctx, msgs, text); err != nil {
			return nil, err
		}
	}
	if opts.Critic {
		followUps, failure := r.critique(ctx, asked, text)
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		emit(Event{Type: EventCritique, Critique: &CritiqueEvent{Complete: len(followUps) == 0 && failure == "", FollowUps: followUps, Error: failure}})
		if len(followUps) > 0 {
			prompt, err := render("followup.tmpl", followUpData{FollowUps: followUps, Question: asked})
			if err != nil {
				return nil, err
			}
			msgs = append(msgs, llm.Message{Role: llm.RoleUser, Content: prompt})
			r.stream = a.canStream()
			if _, text, err = r.pass(ctx, msgs); err != nil {
				return nil, err
			}
			if missing != nil {
				missing = r.gaps() // the follow-ups may have found something
			}
		}
	}
	// Every call failed even after the extra pass: whatever the model
	// wrote rests on nothing, so the answer says what is missing instead.
	var setAside string
	if len(missing) > 0 && r.allFailed() {
		setAside, text = text, failedAnswer(missing)
		r.failures = true
	}
	if held := opts.Critic || opts.Check; !r.streamed && hasAnswerText(text) && (held || a.canStream()) {
		// A held-back draft that became the answer is shown at once.
		emit(Event{Type: EventToken, Token: text})
	}
	ans, err := r.answer(text)
	if err != nil {
		return nil, err
	}
	if len(missing) > 0 {
		ans.Missing = missing
		ans.Notes = append(ans.Notes, missingNote(missing))
	}
	if body, _, _ := splitSources(setAside); hasAnswerText(body) {
		ans.Notes = append(ans.Notes, fmt.Sprintf("The model's reply, which no tool result supports, was set aside: %q", clip(strings.TrimSpace(body), 300)))
	}
	return ans, nil
}

// newRun starts the state of one run over the agent's tools.
func (a *Agent) newRun(emit func(Event)) *run {
	r := &run{a: a, emit: emit, log: a.Log, seen: newSeen(), known: map[string]bool{}}
	if r.log == nil {
		r.log = slog.New(slog.DiscardHandler)
	}
	for _, t := range a.Tools.Tools() {
		r.defs = append(r.defs, llm.ToolDef{Name: t.Name, Description: t.Description, InputSchema: t.InputSchema})
		r.names = append(r.names, t.Name)
		r.known[t.Name] = true
	}
	return r
}

// Transcript is the outcome of Loop.
type Transcript struct {
	// Messages are the caller's messages followed by every model turn and
	// tool result; on success the last is the model's final reply.
	Messages []llm.Message
	// Text is the final reply's text, as the model wrote it.
	Text string
	// Usage is the tokens all model calls consumed.
	Usage llm.Usage
	// Looped is set when a streamed reply repeated itself and was stopped
	// at its first repetition.
	Looped bool
}

// Loop runs the tool loop over a conversation the caller wrote (its own
// system prompt first, then the task) until the model replies without tool
// calls, and returns the transcript. Tool calls are run as Run runs them
// (calls written as text, MaxCallsPerStep, MaxResultBytes and
// MaxStepResultBytes, MaxSteps, the loop stop of a streamed reply), but the
// final reply is the caller's to judge: Loop adds no system prompt, asks
// for no missing answer, runs no critic and reads no citations. emit, when
// not nil, receives the tool_call, tool_result and token events; Loop
// emits no answer, error or done. Errors are those of Run; the transcript
// is returned with them too, without messages, so that its Usage counts.
func (a *Agent) Loop(ctx context.Context, msgs []llm.Message, emit func(Event)) (*Transcript, error) {
	if a.Model == nil || a.Tools == nil {
		return nil, errors.New("agent: model and tools are required")
	}
	if len(msgs) == 0 {
		return nil, errors.New("agent: no messages")
	}
	if emit == nil {
		emit = func(Event) {}
	}
	r := a.newRun(emit)
	r.nudged = true // the caller judges the final reply, empty or not
	r.stream = a.canStream()
	out, text, err := r.pass(ctx, slices.Clip(msgs))
	return &Transcript{Messages: out, Text: text, Usage: r.usage, Looped: r.looped}, err
}

// answer checks the final text: citations from the tool results, ids no
// tool returned, and, when the model gave no answer text, one composed
// from the last successful tool result.
func (r *run) answer(text string) (*Answer, error) {
	usage := r.usage
	ans := &Answer{Usage: &usage}
	if !hasAnswerText(text) {
		if r.last == nil {
			return nil, fmt.Errorf("%w, even when asked again, and no tool result to answer from", ErrNoAnswer)
		}
		r.log.Warn("the model gave no answer text; composing one from the last tool result", "tool", r.last.call.Name)
		text = composeAnswer(r.last.call.Name, r.last.call.Arguments, r.last.result)
		ans.ComposedFrom = r.last.call.Name
		if r.a.canStream() {
			r.emit(Event{Type: EventToken, Token: text})
		}
	}
	body, sources, _ := splitSources(text)
	ans.Text, ans.Citations = r.seen.cite(text)
	ans.Unverified = r.seen.unverified(body, sources, r.names)
	if len(ans.Unverified) > 0 {
		ans.Notes = append(ans.Notes, unverifiedNote(ans.Unverified))
	}
	if r.looped {
		ans.Notes = append(ans.Notes, "The model's reply started repeating itself and was cut off there.")
	}
	if r.cut && ans.ComposedFrom == "" && !r.failures {
		limit := "the model server's reply"
		if n := r.a.maxReplyTokens(); n > 0 {
			limit = fmt.Sprintf("the %d-token", n)
		}
		ans.Notes = append(ans.Notes, "The model's reply reached "+limit+" limit and was cut off there.")
	}
	if ans.ComposedFrom == "" && !r.failures {
		// Without any tool result every figure but the question's is
		// unsupported: small models write a whole invented result
		// ("Affiliate Agreement (464 contracts)") instead of calling a tool.
		known := r.figures
		if known == nil {
			known = map[float64]bool{}
		}
		for _, n := range textnum.Find(r.question) {
			known[n] = true
		}
		ans.UnsupportedFigures = unsupportedFigures(ans.Text, known)
		if len(ans.UnsupportedFigures) > 0 {
			ans.Notes = append(ans.Notes, unsupportedFiguresNote(ans.UnsupportedFigures, r.figures == nil))
		}
	}
	return ans, nil
}

func (a *Agent) canStream() bool {
	_, ok := a.Model.(llm.Streamer)
	return ok && !a.NoStream
}

// dataModel is the model for structured calls (rewriter, critic):
// llm.GenerateData streams when it can, so with NoStream the model is
// offered without its Streamer capability.
func (a *Agent) dataModel() llm.Model {
	if a.NoStream {
		return generateOnly{a.Model}
	}
	return a.Model
}

// generateOnly hides a model's optional capabilities.
type generateOnly struct{ m llm.Model }

func (g generateOnly) Generate(ctx context.Context, req *llm.Request) (*llm.Response, error) {
	return g.m.Generate(ctx, req)
}

func (a *Agent) now() time.Time {
	if a.Now != nil {
		return a.Now()
	}
	return time.Now()
}

// pass runs the model/tool loop until the model answers without tool
// calls, returning the extended conversation and the answer text. Tool
// calls the model wrote as text are run like real ones. A reply with no
// answer text gets one more request per run asking for the answer (an
// extra model call beyond MaxSteps if need be).
func (r *run) pass(ctx context.Context, msgs []llm.Message) ([]llm.Message, string, error) {
	maxSteps := r.a.MaxSteps
	if maxSteps <= 0 {
		maxSteps = DefaultMaxSteps
	}
	limit := maxSteps
	for step := 1; step <= limit; step++ {
		req := &llm.Request{Messages: msgs, Tools: r.defs, Temperature: r.a.Temperature, Seed: r.a.Seed, MaxTokens: r.a.maxReplyTokens()}
		r.log.Debug("model call", "step", step, "messages", len(msgs), "last", msgs[len(msgs)-1].Content)
		streamed := r.stream && (!r.checking || len(r.gaps()) == 0)
		resp, err := r.generate(ctx, req, streamed)
		if err != nil {
			return nil, "", fmt.Errorf("agent step %d: %w", step, err)
		}
		r.usage = r.usage.Add(resp.Usage)
		r.cut = llm.AtTokenLimit(resp.FinishReason)
		r.streamed = streamed
		msg := resp.Message
		msg.Role = llm.RoleAssistant
		fromText := false
		if len(msg.ToolCalls) == 0 && msg.Content != "" {
			if prose, calls := parseTextCalls(msg.Content, r.isTool); len(calls) > 0 {
				r.log.Debug("tool calls written as text", "step", step, "calls", len(calls), "text", msg.Content)
				fromText = true
				msg.Content = strings.TrimSpace(prose)
				for _, c := range calls {
					msg.ToolCalls = append(msg.ToolCalls, llm.ToolCall{Name: c.Name, Arguments: c.Arguments})
				}
			} else if c, ok := argsOnlyCall(msg.Content, r.defs); ok && !r.ran(c.Name, c.Arguments) {
				r.log.Debug("tool arguments written as text", "step", step, "tool", c.Name, "text", msg.Content)
				fromText = true
				msg.ToolCalls = append(msg.ToolCalls, llm.ToolCall{Name: c.Name, Arguments: c.Arguments})
			}
		}
		for i := range msg.ToolCalls {
			if msg.ToolCalls[i].ID == "" {
				msg.ToolCalls[i].ID = fmt.Sprintf("call_%d_%d", step, i)
			}
			msg.ToolCalls[i].Arguments = normalizeArgs(msg.ToolCalls[i].Arguments)
		}
		if len(msg.ToolCalls) == 0 {
			r.log.Debug("agent answer", "step", step, "text", msg.Content)
			if tool := r.describedCall(msg.Content); tool != "" {
				// A small model's plan instead of its call: ask once for the call.
				r.described = true
				prompt, err := render("describedcall.tmpl", describedCallData{Tool: tool, Question: r.question})
				if err != nil {
					return nil, "", err
				}
				msgs = append(msgs, msg, llm.Message{Role: llm.RoleUser, Content: prompt})
				r.log.Info("the model described a tool call instead of making it; asking for the call", "step", step, "tool", tool)
				if step == limit {
					limit++
				}
				continue
			}
			if hasAnswerText(msg.Content) || r.nudged {
				return append(msgs, msg), msg.Content, nil
			}
			// No answer text (often only the Sources line): ask once more.
			r.nudged = true
			prompt, err := render("noanswer.tmpl", noAnswerData{Question: r.question, HadResults: r.last != nil})
			if err != nil {
				return nil, "", err
			}
			if strings.TrimSpace(msg.Content) != "" {
				msgs = append(msgs, msg)
			}
			msgs = append(msgs, llm.Message{Role: llm.RoleUser, Content: prompt})
			r.log.Info("the model gave no answer text; asking once more", "step", step)
			if step == limit {
				limit++
			}
			continue
		}
		msgs = append(msgs, msg)
		outcomes, err := r.runTools(ctx, msg.ToolCalls, fromText)
		if err != nil {
			return nil, "", err
		}
		budget := r.a.MaxStepResultBytes
		if budget <= 0 {
			budget = DefaultMaxStepResultBytes
		}
		for _, o := range outcomes {
			content := r.toolContent(o)
			if len(content) > budget {
				content = cutToBudget(content, budget)
			}
			budget = max(0, budget-len(content))
			msgs = append(msgs, llm.Message{Role: llm.RoleTool, ToolCallID: o.call.ID, Name: o.call.Name, Content: content})
		}
	}
	return nil, "", fmt.Errorf("%w (%d model calls)", ErrMaxSteps, maxSteps)
}

func (r *run) isTool(name string) bool { return r.known[name] }

func (a *Agent) maxReplyTokens() int {
	switch {
	case a.MaxReplyTokens < 0:
		return 0
	case a.MaxReplyTokens == 0:
		return DefaultMaxReplyTokens
	}
	return a.MaxReplyTokens
}

// describedCall returns the tool a reply names when the model, before
// any tool ran in this run, wrote about calling it instead of calling it;
// "" otherwise, and always after the first time it was asked.
func (r *run) describedCall(text string) string {
	if r.described || r.nudged || len(r.calls) > 0 {
		return ""
	}
	best, at := "", len(text)
	for name := range r.known {
		if i := indexWord(text, name); i >= 0 && i < at {
			best, at = name, i
		}
	}
	return best
}

// indexWord is the index of the first occurrence of word in s that is not
// part of a longer identifier, or -1.
func indexWord(s, word string) int {
	ident := func(c byte) bool {
		return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
	}
	for off := 0; ; {
		i := strings.Index(s[off:], word)
		if i < 0 {
			return -1
		}
		i += off
		end := i + len(word)
		if (i == 0 || !ident(s[i-1])) && (end == len(s) || !ident(s[end])) {
			return i
		}
		off = end
	}
}

// ran reports whether this run already made the call (name and the same
// arguments, as the calls list records them).
func (r *run) ran(name string, args []byte) bool {
	want := name + " " + compactJSON(normalizeArgs(args))
	return slices.ContainsFunc(r.calls, func(c string) bool {
		n, a, _ := strings.Cut(c, " ")
		return n+" "+compactJSON([]byte(a)) == want
	})
}

func compactJSON(b []byte) string {
	var buf bytes.Buffer
	if json.Compact(&buf, b) != nil {
		return string(b)
	}
	return buf.String()
}

// generate runs one model call, streaming its text as token events when
// stream is set and the model can. Text that may be a tool call written as text, or a
// leading Sources line, is held back until it is known to be answer text.
func (r *run) generate(ctx context.Context, req *llm.Request, stream bool) (*llm.Response, error) {
	s, ok := r.a.Model.(llm.Streamer)
	if !ok || !stream {
		return r.a.Model.Generate(ctx, req)
	}
	lead := &leadHold{emit: func(t string) { r.emit(Event{Type: EventToken, Token: t}) }}
	sc := newCallScanner(r.isTool, lead.write)
	// A reply that falls into a loop is stopped and kept up to its first
	// repetition, as llm.Complete does for structured replies.
	resp, err := llm.StreamStoppingLoops(ctx, s, req, func(d llm.Delta) error {
		if d.Text != "" {
			sc.write(d.Text)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if resp.FinishReason == llm.FinishRepetition {
		r.log.Warn("the model's reply repeated itself; stopped it", "bytes", len(resp.Message.Content))
		r.looped = true
	}
	sc.close()
	return resp, nil
}

// runTools runs one turn's tool calls concurrently and returns their
// outcomes in call order. Only a context error fails the turn.
func (r *run) runTools(ctx context.Context, calls []llm.ToolCall, fromText bool) ([]toolOutcome, error) {
	for _, c := range calls {
		r.emit(Event{Type: EventToolCall, ToolCall: &ToolCallEvent{ID: c.ID, Name: c.Name, Arguments: displayArgs(c.Arguments), FromText: fromText}})
		r.calls = append(r.calls, c.Name+" "+string(c.Arguments))
	}
	maxCalls := r.a.MaxCallsPerStep
	if maxCalls <= 0 {
		maxCalls = DefaultMaxCallsPerStep
	}
	out := make([]toolOutcome, len(calls))
	g, gctx := errgroup.WithContext(ctx)
	limit := r.a.Parallel
	if limit <= 0 {
		limit = DefaultParallel
	}
	g.SetLimit(limit)
	for i, c := range calls {
		if i >= maxCalls {
			out[i] = toolOutcome{call: c, err: fmt.Errorf("not run: at most %d tool calls are run in one turn and this turn made %d; make the calls you need most, or narrow one search instead of fetching items one by one", maxCalls, len(calls))}
			continue
		}
		g.Go(func() error {
			out[i] = toolOutcome{call: c}
			args := c.Arguments
			if len(strings.TrimSpace(string(args))) == 0 {
				args = json.RawMessage("{}")
			}
			if !json.Valid(args) {
				out[i].err = fmt.Errorf("the arguments are not valid JSON (%s); send a JSON object matching the tool's input schema", truncate(string(c.Arguments), 200))
				return nil
			}
			start := time.Now()
			res, err := r.a.Tools.Call(gctx, c.Name, args)
			r.log.Debug("tool call", "tool", c.Name, "args", string(args), "elapsed", time.Since(start), "err", err)
			if err != nil && gctx.Err() != nil {
				return gctx.Err()
			}
			out[i].result, out[i].err = res, err
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	r.outcomes = append(r.outcomes, out...)
	for _, o := range out {
		ev := &ToolResultEvent{ID: o.call.ID, Name: o.call.Name}
		if o.err != nil {
			ev.Error = o.err.Error()
		} else {
			ev.Result = o.result
			r.seen.add(o.call.Name, o.result)
			r.last = &o
			if r.figures == nil {
				r.figures = map[float64]bool{}
			}
			if r.figureBytes += len(o.result); r.figureBytes <= maxFigureScan {
				resultNumbers(o.result, r.figures)
			}
		}
		r.emit(Event{Type: EventToolResult, ToolResult: ev})
	}
	return out, nil
}

// displayArgs returns args as valid JSON for events: malformed arguments
// are shown as a JSON string.
func displayArgs(args json.RawMessage) json.RawMessage {
	if len(args) == 0 {
		return json.RawMessage("{}")
	}
	if json.Valid(args) {
		return args
	}
	b, _ := json.Marshal(string(args))
	return b
}

// toolContent is what the model reads for one outcome.
func (r *run) toolContent(o toolOutcome) string {
	if o.err != nil {
		b, _ := json.Marshal(map[string]string{"error": o.err.Error()})
		return string(b)
	}
	max := r.a.MaxResultBytes
	if max <= 0 {
		max = DefaultMaxResultBytes
	}
	s := string(o.result)
	if len(s) > max {
		return s[:max] + fmt.Sprintf("\n[result truncated: %d of %d bytes shown; narrow the query or lower the limit]", max, len(s))
	}
	return s
}

// cutToBudget cuts a tool result to the bytes left of the turn's budget,
// with a note the model can act on; with too little left only the note.
func cutToBudget(s string, left int) string {
	note := fmt.Sprintf("[result cut: this turn's tool results reached their limit of bytes; %d of %d bytes shown. Ask for fewer items at a time.]", max(0, left-200), len(s))
	if left <= 200 {
		return note
	}
	n := left - 200
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "\n" + note
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// rewritten is the structured reply of the question rewriter.
type rewritten struct {
	Question string `json:"question" jsonschema:"The self-contained, atomic question."`
}

// rewrite turns question into an atomic one using the conversation. On any
// failure it keeps the original question, and says why: rewriting is an
// aid, not a gate. A rewrite that adds figures is returned as setAside.
func (r *run) rewrite(ctx context.Context, history []llm.Message, question, date string) (asked, setAside, failure string) {
	var turns []llm.Message
	for _, m := range history {
		if (m.Role == llm.RoleUser || m.Role == llm.RoleAssistant) && m.Content != "" {
			turns = append(turns, m)
		}
	}
	prompt, err := render("rewrite.tmpl", rewriteData{Date: date, History: turns, Question: question})
	if err != nil {
		r.log.Warn("rewrite question", "err", err)
		return question, "", err.Error()
	}
	v, resp, err := llm.GenerateData[rewritten](ctx, r.a.dataModel(), &llm.Request{
		Messages: []llm.Message{{Role: llm.RoleUser, Content: prompt}}, Temperature: r.a.Temperature, Seed: r.a.Seed,
	})
	if resp != nil {
		r.usage = r.usage.Add(resp.Usage)
	}
	if err == nil && strings.TrimSpace(v.Question) == "" {
		err = errors.New("the rewriter returned an empty question")
	}
	if err != nil {
		r.log.Warn("rewrite question failed; keeping the original", "err", err)
		return question, "", err.Error()
	}
	q := strings.TrimSpace(v.Question)
	if figs := addedFigures(q, question, turns, date); len(figs) > 0 {
		reason := rewriteAddsFigures(figs)
		r.log.Warn("rewrite set aside", "rewrite", q, "reason", reason)
		return question, q, reason
	}
	r.log.Debug("rewrote question", "from", question, "to", q)
	return q, "", ""
}

// critique is the structured reply of the critic.
type critique struct {
	Complete  bool     `json:"complete" jsonschema:"True when the draft fully answers the question from tool results."`
	FollowUps []string `json:"follow_ups" jsonschema:"Follow-up questions for more tool calls; empty when complete."`
}

// critique asks the critic what the draft misses. A failing critic yields
// no follow-ups, so the draft stands, and the reason why.
func (r *run) critique(ctx context.Context, question, draft string) ([]string, string) {
	prompt, err := render("critic.tmpl", criticData{Question: question, Calls: r.calls, Draft: draft, MaxFollowUps: maxFollowUps})
	if err != nil {
		r.log.Warn("critic", "err", err)
		return nil, err.Error()
	}
	v, resp, err := llm.GenerateData[critique](ctx, r.a.dataModel(), &llm.Request{
		Messages: []llm.Message{{Role: llm.RoleUser, Content: prompt}}, Temperature: r.a.Temperature, Seed: r.a.Seed,
	})
	if resp != nil {
		r.usage = r.usage.Add(resp.Usage)
	}
	if err != nil {
		r.log.Warn("critic failed; keeping the draft", "err", err)
		return nil, err.Error()
	}
	if v.Complete {
		return nil, ""
	}
	var out []string
	for _, q := range v.FollowUps {
		if q = strings.TrimSpace(q); q != "" && len(out) < maxFollowUps {
			out = append(out, q)
		}
	}
	r.log.Debug("critic follow-ups", "questions", out)
	return out, ""
}
