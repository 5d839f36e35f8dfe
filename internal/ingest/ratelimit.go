package ingest

import (
	"context"
	"fmt"

	"golang.org/x/time/rate"

	"github.com/contractgraph/contractgraph/internal/extract"
	"github.com/contractgraph/contractgraph/internal/llm"
)

// RateLimitedModel paces calls to a model so that a batch stays within a
// provider's requests-per-minute and tokens-per-minute quotas. Tokens are
// counted before the call with extract.EstimateTokens over the messages
// plus the reply budget (MaxTokens), since the quota counts both.
type RateLimitedModel struct {
	model    llm.Model
	requests *rate.Limiter // nil: unlimited
	tokens   *rate.Limiter // nil: unlimited
}

// NewRateLimitedModel wraps m. rpm and tpm are per-minute quotas; 0 means
// unlimited.
func NewRateLimitedModel(m llm.Model, rpm, tpm int) *RateLimitedModel {
	r := &RateLimitedModel{model: m}
	if rpm > 0 {
		r.requests = rate.NewLimiter(rate.Limit(float64(rpm)/60), max(1, rpm/60))
	}
	if tpm > 0 {
		// The burst is a full minute's quota so that one large request can
		// always pass once the bucket has refilled.
		r.tokens = rate.NewLimiter(rate.Limit(float64(tpm)/60), tpm)
	}
	return r
}

var (
	_ llm.Model    = (*RateLimitedModel)(nil)
	_ llm.Streamer = (*RateLimitedModel)(nil)
)

// Generate waits for quota, then calls the wrapped model.
func (r *RateLimitedModel) Generate(ctx context.Context, req *llm.Request) (*llm.Response, error) {
	if err := r.wait(ctx, req); err != nil {
		return nil, err
	}
	return r.model.Generate(ctx, req)
}

// Stream waits for quota, then streams from the wrapped model, so that a
// long extraction reply is bounded per piece rather than as one call. A
// model that cannot stream answers with one Generate call, delivered as
// one text delta and one delta per tool call.
func (r *RateLimitedModel) Stream(ctx context.Context, req *llm.Request, fn func(llm.Delta) error) (*llm.Response, error) {
	if err := r.wait(ctx, req); err != nil {
		return nil, err
	}
	if s, ok := r.model.(llm.Streamer); ok {
		return s.Stream(ctx, req, fn)
	}
	resp, err := r.model.Generate(ctx, req)
	if err != nil {
		return nil, err
	}
	if resp.Message.Content != "" {
		if err := fn(llm.Delta{Text: resp.Message.Content}); err != nil {
			return nil, err
		}
	}
	for i, c := range resp.Message.ToolCalls {
		if err := fn(llm.Delta{ToolCallIndex: i, ToolCallID: c.ID, ToolCallName: c.Name, ArgumentsPart: string(c.Arguments)}); err != nil {
			return nil, err
		}
	}
	return resp, nil
}

// wait blocks until the quotas allow req.
func (r *RateLimitedModel) wait(ctx context.Context, req *llm.Request) error {
	if r.requests != nil {
		if err := r.requests.Wait(ctx); err != nil {
			return fmt.Errorf("rate limit: %w", ctxErr(ctx, err))
		}
	}
	if r.tokens != nil {
		n := req.MaxTokens
		for _, m := range req.Messages {
			n += extract.EstimateTokens(m.Content)
		}
		if err := r.tokens.WaitN(ctx, min(n, r.tokens.Burst())); err != nil {
			return fmt.Errorf("rate limit: %w", ctxErr(ctx, err))
		}
	}
	return nil
}

// ctxErr prefers the context's own error, so callers can test for
// context.Canceled; the limiter reports a wait past the deadline early.
func ctxErr(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	return err
}
