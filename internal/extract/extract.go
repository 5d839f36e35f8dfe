package extract

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/contractgraph/contractgraph/internal/contract"
	"github.com/contractgraph/contractgraph/internal/llm"
	"github.com/contractgraph/contractgraph/internal/textmatch"
)

// Defaults for Options.
const (
	DefaultContextTokens   = 100_000
	DefaultMaxOutputTokens = 8_192
	// DefaultMaxCalls is the default MaxCalls: room for a 4 MiB text
	// (ingest's default limit) in parts of a local model's context, two
	// calls each, with repairs.
	DefaultMaxCalls = 100
	// LocalContextTokens is the context window to assume for a model on a
	// local server (llama.cpp's -c 32768, Ollama's larger models).
	LocalContextTokens = 32_768
)

// ClauseMode says how an extraction asks for the clauses.
type ClauseMode int

const (
	// ClausesAuto asks for the facts and the clauses in one reply, with
	// the clauses last. When that reply is cut off at its token limit (a
	// long clause list is always its tail) or gives one passage for
	// several categories, the facts it holds are kept and the clauses are
	// asked for again in a focused call of their own.
	ClausesAuto ClauseMode = iota
	// ClausesSeparate always makes two calls per part: the facts, then the
	// clauses. Meant for small local models, whose long replies are slow
	// and degenerate: each reply stays short, and the two prompts share
	// the system prompt and the contract text as their prefix, which
	// servers with a prompt cache (llama.cpp, OpenAI) read only once.
	ClausesSeparate
)

// Options configures an Extractor.
type Options struct {
	// ContextTokens is the model's context window in tokens (estimated with
	// EstimateTokens); documents whose prompt would exceed it are extracted
	// in parts. 0 means DefaultContextTokens.
	ContextTokens int
	// MaxOutputTokens bounds each reply. 0 means DefaultMaxOutputTokens.
	MaxOutputTokens int
	// Clauses chooses one or two calls per part; see ClauseMode.
	Clauses ClauseMode
	// Budget bounds the time one document may take. Once it is spent, no
	// repair round or follow-up clause call starts and one in flight is
	// cut off; the values that validated are kept and the result warns.
	// The first call of each part always runs (bounded by the model's own
	// timeout), and a reply that never parses still fails the document.
	// 0 means no budget.
	Budget time.Duration
	// BudgetTokens bounds the tokens of one document (prompts and replies,
	// as the provider counts them) in the same way: an optional call is
	// not started when its estimated prompt and MaxOutputTokens would go
	// past it. 0 means no budget.
	BudgetTokens int
	// MaxCalls bounds the model calls of one document, repairs and
	// follow-ups included. A document that needs more than that for its
	// parts alone fails before any call; once the calls are spent, no
	// optional call starts and a part's first call fails the document.
	// 0 means DefaultMaxCalls.
	MaxCalls int
	// Seed, when set, is sent with every call for reproducible sampling;
	// the temperature is always 0.
	Seed *int64
	// Progress, when set, is called as each reply arrives (piece by piece
	// when the model streams), possibly from several goroutines at once
	// when documents are extracted concurrently.
	Progress func(Progress)
	// Logger receives prompts and replies at Debug level; nil discards.
	Logger *slog.Logger
}

// Progress is how far the reply of one extraction call has come.
type Progress struct {
	ContractID  string
	Step        string // "extract", "facts", "clauses" or "repair"
	Part, Parts int
	Bytes       int // reply bytes received so far
}

// Extractor extracts contracts with a model. It is safe for concurrent use.
type Extractor struct {
	model   llm.Model
	schemas *schemas
	opts    Options
	log     *slog.Logger
}

// New returns an Extractor using model.
func New(model llm.Model, opts Options) (*Extractor, error) {
	if opts.ContextTokens <= 0 {
		opts.ContextTokens = DefaultContextTokens
	}
	if opts.MaxOutputTokens <= 0 {
		opts.MaxOutputTokens = DefaultMaxOutputTokens
	}
	if opts.MaxCalls <= 0 {
		opts.MaxCalls = DefaultMaxCalls
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	s, err := schemaFor()
	if err != nil {
		return nil, err
	}
	return &Extractor{model: model, schemas: s, opts: opts, log: log}, nil
}

// Result is one document's extraction.
type Result struct {
	// Contract has the extracted fields, parties, clauses, evidence, Text and
	// ID set; source metadata (path, hash, model) is the caller's.
	Contract *contract.Contract
	Usage    llm.Usage
	Calls    int // model calls made, repairs included
	Parts    int // parts the document was split into
	// Warnings are what the stored contract lacks: validation problems
	// left after the repair round (the values concerned were dropped),
	// list items over a cap, and steps the budget cut short.
	Warnings []string
}

// Extract extracts the contract id from text. A reply that still cannot be
// decoded after its repair round fails the document (the error wraps
// *llm.ParseError); model errors of a part's first call are returned
// wrapped. Usage counts every call made, including those of a failed
// extraction.
func (e *Extractor) Extract(ctx context.Context, id, text string) (*Result, error) {
	d := &doc{
		e: e, id: id, text: text,
		log: e.log.With("contract", id), res: &Result{},
	}
	if e.opts.Budget > 0 {
		d.deadline = time.Now().Add(e.opts.Budget)
	}
	system0, err := render("system.tmpl", newPromptData(id, "", 1, 1))
	if err != nil {
		return nil, err
	}
	budget := e.opts.ContextTokens - e.opts.MaxOutputTokens - EstimateTokens(system0) - 300
	if budget < 500 {
		return nil, fmt.Errorf("context budget of %d tokens leaves no room for the contract", e.opts.ContextTokens)
	}
	parts := splitBudget(text, budget)
	d.res.Parts = len(parts)
	need := len(parts)
	if e.opts.Clauses == ClausesSeparate {
		need *= 2
	}
	if need > e.opts.MaxCalls {
		return d.res, fmt.Errorf("%w: the document's %d bytes of text need %d parts of the %d-token context, at least %d model calls, over the limit of %d per document",
			ErrTooManyCalls, len(text), len(parts), e.opts.ContextTokens, need, e.opts.MaxCalls)
	}
	d.loc = NewLocator(text)
	var xs []*Extraction
	for i, p := range parts {
		x, err := d.part(ctx, text[p.start:p.end], i+1, len(parts))
		if err != nil {
			if len(parts) > 1 {
				err = fmt.Errorf("part %d of %d: %w", i+1, len(parts), err)
			}
			return d.res, err
		}
		xs = append(xs, x)
	}
	merged := mergeExtractions(xs, d.loc)
	c, problems := build(id, text, d.loc, merged)
	c.Usage = &contract.TokenUsage{InputTokens: d.res.Usage.InputTokens, OutputTokens: d.res.Usage.OutputTokens}
	d.res.Contract = c
	for _, p := range problems {
		d.log.Warn("extraction value dropped", "problem", p)
	}
	d.res.Warnings = append(d.res.Warnings, problems...)
	return d.res, nil
}

// doc is one document's extraction in progress.
type doc struct {
	e        *Extractor
	id, text string
	loc      *Locator
	log      *slog.Logger
	res      *Result
	deadline time.Time // zero: no time budget
}

// warn records a note for the result.
func (d *doc) warn(prefix, format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	if prefix != "" {
		msg = prefix + ": " + msg
	}
	d.log.Warn("extraction incomplete", "note", msg)
	d.res.Warnings = append(d.res.Warnings, msg)
}

// spent says why no optional call may start now, or "" when one may: the
// time budget has run out, or req would take the tokens past theirs.
func (d *doc) spent(req *llm.Request) string {
	o := d.e.opts
	if !d.deadline.IsZero() && !time.Now().Before(d.deadline) {
		return fmt.Sprintf("the document's time budget of %s was spent", o.Budget)
	}
	if o.BudgetTokens > 0 {
		used := d.res.Usage.InputTokens + d.res.Usage.OutputTokens
		if used+llm.EstimateRequestTokens(req)+req.MaxTokens > o.BudgetTokens {
			return fmt.Sprintf("the document's budget of %d tokens would be exceeded (%d used)", o.BudgetTokens, used)
		}
	}
	return ""
}

// reply is one decoded model reply.
type reply struct {
	text   string
	finish string
}

// truncated reports whether the reply stopped at its token limit.
func (r reply) truncated(err error) bool {
	if llm.AtTokenLimit(r.finish) || r.finish == llm.FinishRepetition {
		return true
	}
	return err != nil && strings.Contains(err.Error(), "unexpected end of JSON input")
}

// call is one structured-output call of a part.
type call struct {
	step        string // for progress and logs
	schema      *llm.Schema
	msgs        []llm.Message
	optional    bool // subject to the budget: a repair or a follow-up call
	part, parts int
	maxTokens   int // the reply limit; see replyLimit
}

// replyLimit bounds the reply of a call of task over part: MaxOutputTokens,
// but no more than a reply quoting the part a few times over needs (at
// least minReplyTokens), nor more than the task's items can fill (see
// taskReplyTokens). A looping small model then stops at that limit instead
// of generating thousands of tokens, minutes on a CPU, for a short letter.
func (d *doc) replyLimit(part, task string) int {
	limit := min(d.e.opts.MaxOutputTokens, max(minReplyTokens, 1024+3*EstimateTokens(part)))
	if t, ok := taskReplyTokens[task]; ok {
		limit = min(limit, t)
	}
	return limit
}

// minReplyTokens is the smallest reply limit replyLimit sets.
const minReplyTokens = 2048

// Reply sizes the items of a task allow: a fact is a short value and a
// quote of at most MaxEvidenceWords words (~100 tokens with its JSON), a
// party ~100 tokens, a clause a passage and a sentence (~200 tokens).
var taskReplyTokens = map[string]int{
	taskFacts:   256 + 14*100 + MaxParties*100,
	taskClauses: 256 + MaxClauses*200,
	taskAll:     512 + 14*100 + MaxParties*100 + MaxClauses*200,
}

// ErrTooManyCalls is wrapped by the error of a document whose extraction
// would need more model calls than Options.MaxCalls.
var ErrTooManyCalls = errors.New("too many model calls")

// errBudget marks an optional call the budget stopped.
var errBudget = errors.New("budget spent")

// run makes c and returns the reply text. An optional call is not started
// when the budget is spent and is cut off when it runs out; both return
// an error wrapping errBudget that says which budget.
func (d *doc) run(ctx context.Context, c call) (reply, error) {
	temp := 0.0
	req := &llm.Request{
		Messages:       c.msgs,
		ResponseFormat: &llm.ResponseFormat{Name: c.schema.Name, Schema: c.schema.Raw},
		Temperature:    &temp,
		Seed:           d.e.opts.Seed,
		MaxTokens:      d.e.opts.MaxOutputTokens,
	}
	if c.maxTokens > 0 {
		req.MaxTokens = min(req.MaxTokens, c.maxTokens)
	}
	if d.res.Calls >= d.e.opts.MaxCalls {
		why := fmt.Sprintf("the document's limit of %d model calls was reached", d.e.opts.MaxCalls)
		if c.optional {
			return reply{}, fmt.Errorf("%w: %s", errBudget, why)
		}
		return reply{}, fmt.Errorf("%w: %s", ErrTooManyCalls, why)
	}
	callCtx := ctx
	if c.optional {
		if why := d.spent(req); why != "" {
			return reply{}, fmt.Errorf("%w: %s", errBudget, why)
		}
		if !d.deadline.IsZero() {
			var cancel context.CancelFunc
			callCtx, cancel = context.WithDeadline(ctx, d.deadline)
			defer cancel()
		}
	}
	d.log.Debug("extraction request", "step", c.step, "part", c.part, "prompt", c.msgs[len(c.msgs)-1].Content)
	var progress func(llm.Progress)
	if fn := d.e.opts.Progress; fn != nil {
		progress = func(p llm.Progress) {
			fn(Progress{ContractID: d.id, Step: c.step, Part: c.part, Parts: c.parts, Bytes: p.Bytes})
		}
	}
	resp, err := llm.Complete(callCtx, d.e.model, req, progress)
	d.res.Calls++
	if err != nil {
		if c.optional && ctx.Err() == nil && callCtx.Err() != nil {
			return reply{}, fmt.Errorf("%w: the document's time budget of %s ran out during the call", errBudget, d.e.opts.Budget)
		}
		return reply{}, fmt.Errorf("extract: %w", err)
	}
	u := resp.Usage
	if u == (llm.Usage{}) {
		// Some servers send no usage with a stream; count an estimate so
		// that the token budget and the totals still mean something.
		u = llm.Usage{InputTokens: llm.EstimateRequestTokens(req), OutputTokens: EstimateTokens(resp.Message.Content)}
	}
	d.res.Usage = d.res.Usage.Add(u)
	d.log.Debug("extraction reply", "step", c.step, "reply", resp.Message.Content, "finish_reason", resp.FinishReason)
	return reply{text: resp.Message.Content, finish: resp.FinishReason}, nil
}

// part extracts one part of the document: the facts (with the clauses, or
// in a call of their own), one repair round for a reply that does not
// decode or does not validate, and the focused clause call when needed.
func (d *doc) part(ctx context.Context, text string, n, total int) (*Extraction, error) {
	data := newPromptData(d.id, text, n, total)
	system, err := render("system.tmpl", data)
	if err != nil {
		return nil, err
	}
	separate := d.e.opts.Clauses == ClausesSeparate
	schema, step := d.e.schemas.full, "extract"
	data.Task = taskAll
	if separate {
		schema, step, data.Task = d.e.schemas.facts, "facts", taskFacts
	}
	user, err := render("user.tmpl", data)
	if err != nil {
		return nil, err
	}
	where := ""
	if total > 1 {
		where = fmt.Sprintf("part %d of %d", n, total)
	}
	msgs := []llm.Message{{Role: llm.RoleSystem, Content: system}, {Role: llm.RoleUser, Content: user}}
	c := call{step: step, schema: schema, msgs: msgs, part: n, parts: total, maxTokens: d.replyLimit(text, data.Task)}

	r, err := d.run(ctx, c)
	if err != nil {
		return nil, err
	}
	x, err := llm.DecodeData[Extraction](schema, r.text)
	needClauses := separate
	var perr *llm.ParseError
	switch {
	case err == nil:
	case !errors.As(err, &perr):
		return nil, err
	case r.truncated(err):
		// Cut off (at the token limit, or stopped looping) in the clause
		// list: keep the facts, ask for the clauses.
		if fx, facts, ok := d.salvage(r.text); ok {
			d.log.Info("extraction reply cut off; asking for the clauses on their own", "part", n, "finish", r.finish)
			if r.finish == llm.FinishRepetition {
				d.warn(where, "the reply started repeating itself and was stopped; kept what came before")
			}
			x, err, needClauses = fx, nil, true
			// A repair round below is about the facts only.
			schema, r.text = d.e.schemas.facts, facts
			break
		}
		fallthrough
	default:
		// One repair round for a reply that does not decode.
		d.log.Info("extraction reply invalid, repairing", "error", perr.Err)
		c.msgs = append(slicesClip(msgs), perr.RepairMessages()...)
		c.step, c.optional = "repair", true
		r2, rerr := d.run(ctx, c)
		if rerr != nil {
			if errors.Is(rerr, errBudget) {
				return nil, fmt.Errorf("the reply does not match the schema (%v) and no repair round could run: %s: %w", perr.Err, strings.TrimPrefix(rerr.Error(), errBudget.Error()+": "), perr)
			}
			return nil, rerr
		}
		x, err = llm.DecodeData[Extraction](schema, r2.text)
		if err != nil {
			return nil, err
		}
		r = r2
	}

	// One repair round for values that do not validate.
	if _, problems := build(d.id, d.text, d.loc, &x); len(problems) > 0 {
		d.log.Info("extraction has validation problems, repairing", "problems", len(problems))
		data.Problems = problems
		repair, err := render("repair.tmpl", data)
		if err != nil {
			return nil, err
		}
		c.msgs = append(slicesClip(msgs), llm.Message{Role: llm.RoleAssistant, Content: llm.ClipForRepair(r.text)}, llm.Message{Role: llm.RoleUser, Content: repair})
		c.step, c.optional = "repair", true
		r2, rerr := d.run(ctx, c)
		var fixed Extraction
		if rerr == nil {
			fixed, rerr = llm.DecodeData[Extraction](schema, r2.text)
		}
		switch {
		case rerr == nil:
			if needClauses {
				// A repaired reply cut off in its clause list still has
				// to be complete JSON; its clauses are asked for anyway.
				fixed.Clauses = x.Clauses
			}
			x = fixed
		case ctx.Err() != nil:
			return nil, ctx.Err()
		default:
			// The first reply was usable; keep it rather than fail.
			d.warn(where, "repair round for %d invalid values did not finish (%v); those values were dropped", len(problems), rerr)
		}
	}

	if !needClauses && degenerate(x.Clauses) {
		d.log.Info("extraction repeats one passage for several clause categories; asking for the clauses on their own", "part", n)
		needClauses = true
	}
	if needClauses {
		d.clauses(ctx, &x, system, data, where)
	}
	d.capLists(&x, where)
	return &x, nil
}

// clauses runs the focused clause call for one part and stores its
// clauses in x. Failures never fail the document: the clauses x already
// has (from a reply cut off in its clause list) stay, with a warning.
func (d *doc) clauses(ctx context.Context, x *Extraction, system string, data promptData, where string) {
	data.Task = taskClauses
	data.Problems = nil
	user, err := render("user.tmpl", data)
	if err != nil {
		d.warn(where, "clauses not extracted: %v", err)
		return
	}
	msgs := []llm.Message{{Role: llm.RoleSystem, Content: system}, {Role: llm.RoleUser, Content: user}}
	c := call{step: "clauses", schema: d.e.schemas.clauses, msgs: msgs, part: data.Part, parts: data.Parts, maxTokens: d.replyLimit(data.Text, taskClauses),
		// In two-call mode the clause call is as much part of the work
		// as the facts call, but a budget still stops it: the facts are
		// worth keeping without clauses.
		optional: true}
	r, err := d.run(ctx, c)
	var cr clauseReply
	var perr *llm.ParseError
	if err == nil {
		cr, err = llm.DecodeData[clauseReply](c.schema, r.text)
	}
	if errors.As(err, &perr) && r.truncated(err) {
		if salvaged, ok := d.salvageClauses(r.text); ok {
			why := fmt.Sprintf("cut off at the %d-token reply limit", c.maxTokens)
			if r.finish == llm.FinishRepetition {
				why = "stopped when it started repeating itself"
			}
			d.warn(where, "clause list %s; kept the %d complete clauses", why, len(salvaged))
			cr, err = clauseReply{Clauses: salvaged}, nil
		}
	}
	if errors.As(err, &perr) {
		d.log.Info("clause reply invalid, repairing", "error", perr.Err)
		c.msgs = append(slicesClip(msgs), perr.RepairMessages()...)
		c.step = "repair"
		if r, err = d.run(ctx, c); err == nil {
			cr, err = llm.DecodeData[clauseReply](c.schema, r.text)
		}
	}
	if err != nil {
		if ctx.Err() != nil {
			return
		}
		kept := ""
		if len(x.Clauses) > 0 {
			kept = fmt.Sprintf("; kept the %d clauses of the first reply", len(x.Clauses))
		}
		d.warn(where, "clauses not extracted: %v%s", strings.TrimPrefix(err.Error(), "extract: "), kept)
		return
	}
	x.Clauses = cr.Clauses
}

// salvage decodes the facts of a reply cut off in its clause list: the
// closed prefix must validate as the facts schema; the clauses it holds
// that are complete are kept.
// facts is the facts' JSON, for a repair round about them.
func (d *doc) salvage(text string) (x Extraction, facts string, ok bool) {
	closed, ok := salvageJSON(text)
	if !ok {
		return Extraction{}, "", false
	}
	var obj map[string]json.RawMessage
	if json.Unmarshal([]byte(closed), &obj) != nil {
		return Extraction{}, "", false
	}
	clauses := obj["clauses"]
	delete(obj, "clauses")
	b, err := json.Marshal(obj)
	if err != nil {
		return Extraction{}, "", false
	}
	x, err = llm.DecodeData[Extraction](d.e.schemas.facts, string(b))
	if err != nil {
		return Extraction{}, "", false
	}
	x.Clauses = completeClauses(clauses)
	return x, string(b), true
}

// salvageClauses keeps the complete clauses of a clause reply cut off.
func (d *doc) salvageClauses(text string) ([]ClauseValue, bool) {
	closed, ok := salvageJSON(text)
	if !ok {
		return nil, false
	}
	var obj map[string]json.RawMessage
	if json.Unmarshal([]byte(closed), &obj) != nil {
		return nil, false
	}
	cs := completeClauses(obj["clauses"])
	return cs, len(cs) > 0
}

// completeClauses decodes the clause items of raw that have all their
// fields; the last item of a cut-off list usually has not.
func completeClauses(raw json.RawMessage) []ClauseValue {
	var items []map[string]json.RawMessage
	if json.Unmarshal(raw, &items) != nil {
		return []ClauseValue{}
	}
	out := []ClauseValue{}
	for _, it := range items {
		if len(it) != 3 || it["clause_type"] == nil || it["text"] == nil || it["summary"] == nil {
			continue
		}
		b, _ := json.Marshal(it)
		var c ClauseValue
		if json.Unmarshal(b, &c) == nil {
			out = append(out, c)
		}
	}
	return out
}

// degenerate reports a clause list that gives one passage for several
// categories, the way a small model fills a long enum: the passage is
// evidence for none of them.
func degenerate(cs []ClauseValue) bool {
	return len(repeatedTexts(cs)) > 0
}

// repeatedTexts are the folded clause texts given for three or more
// categories.
func repeatedTexts(cs []ClauseValue) map[string]bool {
	types := map[string]map[string]bool{}
	for _, c := range cs {
		f := textmatch.Fold(c.Text)
		if f == "" {
			continue
		}
		if types[f] == nil {
			types[f] = map[string]bool{}
		}
		types[f][c.ClauseType] = true
	}
	out := map[string]bool{}
	for f, ts := range types {
		if len(ts) >= 3 {
			out[f] = true
		}
	}
	return out
}

// capLists enforces the list caps on a part's final reply and drops
// clauses whose passage was given for several categories.
func (d *doc) capLists(x *Extraction, where string) {
	if rep := repeatedTexts(x.Clauses); len(rep) > 0 {
		kept := x.Clauses[:0:0]
		dropped := 0
		for _, c := range x.Clauses {
			if rep[textmatch.Fold(c.Text)] {
				dropped++
				continue
			}
			kept = append(kept, c)
		}
		d.warn(where, "clauses: dropped %d that gave the same passage for several categories", dropped)
		x.Clauses = kept
	}
	if n := len(x.Parties); n > MaxParties {
		d.warn(where, "parties: the reply listed %d, kept the first %d", n, MaxParties)
		x.Parties = x.Parties[:MaxParties]
	}
	if n := len(x.Clauses); n > MaxClauses {
		d.warn(where, "clauses: the reply listed %d, kept the first %d", n, MaxClauses)
		x.Clauses = x.Clauses[:MaxClauses]
	}
}

// slicesClip returns msgs with no spare capacity, so that appending to it
// never writes into a slice another call still holds.
func slicesClip(msgs []llm.Message) []llm.Message { return msgs[:len(msgs):len(msgs)] }
