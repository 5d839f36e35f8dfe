package extract

import (
	"context"
	"errors"
	"fmt"
	"log/slog"

	"github.com/contractgraph/contractgraph/internal/contract"
	"github.com/contractgraph/contractgraph/internal/llm"
)

// Defaults for Options.
const (
	DefaultContextTokens   = 100_000
	DefaultMaxOutputTokens = 8_192
)

// Options configures an Extractor.
type Options struct {
	// ContextTokens is the model's context window in tokens (estimated with
	// EstimateTokens); documents whose prompt would exceed it are extracted
	// in parts. 0 means DefaultContextTokens.
	ContextTokens int
	// MaxOutputTokens bounds each reply. 0 means DefaultMaxOutputTokens.
	MaxOutputTokens int
	// Logger receives prompts and replies at Debug level; nil discards.
	Logger *slog.Logger
}

// Extractor extracts contracts with a model. It is safe for concurrent use.
type Extractor struct {
	model  llm.Model
	schema *llm.Schema
	opts   Options
	log    *slog.Logger
}

// New returns an Extractor using model.
func New(model llm.Model, opts Options) (*Extractor, error) {
	if opts.ContextTokens <= 0 {
		opts.ContextTokens = DefaultContextTokens
	}
	if opts.MaxOutputTokens <= 0 {
		opts.MaxOutputTokens = DefaultMaxOutputTokens
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	schema, err := schemaFor()
	if err != nil {
		return nil, err
	}
	return &Extractor{model: model, schema: schema, opts: opts, log: log}, nil
}

// Result is one document's extraction.
type Result struct {
	// Contract has the extracted fields, parties, clauses, evidence, Text and
	// ID set; source metadata (path, hash, model) is the caller's.
	Contract *contract.Contract
	Usage    llm.Usage
	Calls    int // model calls made, repairs included
	Parts    int // parts the document was split into
	// Warnings are validation problems left after the repair round; the
	// values concerned were dropped.
	Warnings []string
}

// Extract extracts the contract id from text. A reply that still cannot be
// decoded after its repair round fails the document (the error wraps
// *llm.ParseError); model errors are returned wrapped. Usage counts every
// call made, including those of a failed extraction.
func (e *Extractor) Extract(ctx context.Context, id, text string) (*Result, error) {
	log := e.log.With("contract", id)
	res := &Result{}
	loc := NewLocator(text)
	system0, err := render("system.tmpl", newPromptData(id, "", 1, 1))
	if err != nil {
		return nil, err
	}
	budget := e.opts.ContextTokens - e.opts.MaxOutputTokens - EstimateTokens(system0) - 200
	if budget < 500 {
		return nil, fmt.Errorf("context budget of %d tokens leaves no room for the contract", e.opts.ContextTokens)
	}
	parts := splitBudget(text, budget)
	res.Parts = len(parts)
	var xs []*Extraction
	for i, p := range parts {
		x, err := e.extractPart(ctx, log, res, id, text, loc, text[p.start:p.end], i+1, len(parts))
		if err != nil {
			if len(parts) > 1 {
				err = fmt.Errorf("part %d of %d: %w", i+1, len(parts), err)
			}
			return res, err
		}
		xs = append(xs, x)
	}
	merged := mergeExtractions(xs, loc)
	c, problems := build(id, text, loc, merged)
	c.Usage = &contract.TokenUsage{InputTokens: res.Usage.InputTokens, OutputTokens: res.Usage.OutputTokens}
	res.Contract = c
	res.Warnings = problems
	for _, p := range problems {
		log.Warn("extraction value dropped", "problem", p)
	}
	return res, nil
}

// extractPart runs one part's conversation: the extraction call and at most
// one repair round, for a reply that does not decode or does not validate.
func (e *Extractor) extractPart(ctx context.Context, log *slog.Logger, res *Result, id, text string, loc *Locator, part string, n, total int) (*Extraction, error) {
	data := newPromptData(id, part, n, total)
	system, err := render("system.tmpl", data)
	if err != nil {
		return nil, err
	}
	user, err := render("user.tmpl", data)
	if err != nil {
		return nil, err
	}
	msgs := []llm.Message{{Role: llm.RoleSystem, Content: system}, {Role: llm.RoleUser, Content: user}}
	x, reply, err := e.call(ctx, log, res, msgs)
	var perr *llm.ParseError
	switch {
	case errors.As(err, &perr):
		log.Info("extraction reply invalid, repairing", "error", perr.Err)
		msgs = append(msgs, perr.RepairMessages()...)
		x, _, err = e.call(ctx, log, res, msgs)
		if err != nil {
			return nil, err
		}
		return x, nil
	case err != nil:
		return nil, err
	}
	if _, problems := build(id, text, loc, x); len(problems) > 0 {
		log.Info("extraction has validation problems, repairing", "problems", len(problems))
		data.Problems = problems
		repair, err := render("repair.tmpl", data)
		if err != nil {
			return nil, err
		}
		msgs = append(msgs, llm.Message{Role: llm.RoleAssistant, Content: reply}, llm.Message{Role: llm.RoleUser, Content: repair})
		fixed, _, err := e.call(ctx, log, res, msgs)
		if errors.As(err, &perr) {
			// The first reply was usable; keep it rather than fail.
			log.Warn("repair reply invalid, keeping the first reply", "error", perr.Err)
			return x, nil
		}
		if err != nil {
			return nil, err
		}
		return fixed, nil
	}
	return x, nil
}

// call makes one structured-output call and decodes its reply.
func (e *Extractor) call(ctx context.Context, log *slog.Logger, res *Result, msgs []llm.Message) (*Extraction, string, error) {
	temp := 0.0
	req := &llm.Request{
		Messages:       msgs,
		ResponseFormat: &llm.ResponseFormat{Name: e.schema.Name, Schema: e.schema.Raw},
		Temperature:    &temp,
		MaxTokens:      e.opts.MaxOutputTokens,
	}
	log.Debug("extraction request", "prompt", msgs[len(msgs)-1].Content)
	resp, err := e.model.Generate(ctx, req)
	res.Calls++
	if err != nil {
		return nil, "", fmt.Errorf("extract: %w", err)
	}
	res.Usage = res.Usage.Add(resp.Usage)
	log.Debug("extraction reply", "reply", resp.Message.Content, "finish_reason", resp.FinishReason)
	x, err := llm.DecodeData[Extraction](e.schema, resp.Message.Content)
	if err != nil {
		return nil, resp.Message.Content, err
	}
	return &x, resp.Message.Content, nil
}
