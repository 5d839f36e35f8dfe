// Package llmtest provides in-process fakes of llm.Model for tests: a
// Scripted model that replays a queue of responses and records every
// request it received, and a deterministic Embedder.
package llmtest

import (
	"context"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"math"
	"slices"
	"strings"
	"sync"
	"unicode"

	"github.com/contractgraph/contractgraph/internal/llm"
)

// Step is one scripted reply: a response, an error, or a function computing
// either from the request (for replies that depend on what the caller sent).
type Step struct {
	Response *llm.Response
	Err      error
	Func     func(req *llm.Request) (*llm.Response, error)
}

// Text is a step answering with plain assistant text.
func Text(text string) Step {
	return Step{Response: &llm.Response{
		Message:      llm.Message{Role: llm.RoleAssistant, Content: text},
		FinishReason: "stop",
		Usage:        llm.Usage{InputTokens: 10, OutputTokens: len(strings.Fields(text))},
	}}
}

// Calls is a step answering with one or more tool calls.
func Calls(calls ...llm.ToolCall) Step {
	return Step{Response: &llm.Response{
		Message:      llm.Message{Role: llm.RoleAssistant, ToolCalls: calls},
		FinishReason: "tool_calls",
		Usage:        llm.Usage{InputTokens: 10, OutputTokens: 5},
	}}
}

// Call builds a tool call; args is the raw JSON the model "wrote" and may be
// deliberately malformed.
func Call(id, name, args string) llm.ToolCall {
	return llm.ToolCall{ID: id, Name: name, Arguments: json.RawMessage(args)}
}

// Fail is a step returning err.
func Fail(err error) Step { return Step{Err: err} }

// Scripted is a Model that replays its steps in order and records requests.
// It is safe for concurrent use. Once the script is exhausted every call
// fails with an error saying so, which makes unexpected extra calls visible.
type Scripted struct {
	mu       sync.Mutex
	steps    []Step
	next     int
	requests []*llm.Request
}

var _ llm.Model = (*Scripted)(nil)

// NewScripted returns a model that will reply with steps, one per call.
func NewScripted(steps ...Step) *Scripted {
	return &Scripted{steps: steps}
}

// Generate records req and returns the next scripted reply.
func (s *Scripted) Generate(ctx context.Context, req *llm.Request) (*llm.Response, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	s.mu.Lock()
	s.requests = append(s.requests, cloneRequest(req))
	if s.next >= len(s.steps) {
		n := len(s.requests)
		s.mu.Unlock()
		return nil, fmt.Errorf("llmtest: script exhausted: call %d but only %d steps", n, len(s.steps))
	}
	step := s.steps[s.next]
	s.next++
	s.mu.Unlock()
	switch {
	case step.Func != nil:
		return step.Func(req)
	case step.Err != nil:
		return nil, step.Err
	default:
		r := *step.Response
		r.Message = cloneMessage(r.Message)
		return &r, nil
	}
}

// Requests returns copies of every request received so far, in order.
func (s *Scripted) Requests() []*llm.Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]*llm.Request, len(s.requests))
	for i, r := range s.requests {
		out[i] = cloneRequest(r)
	}
	return out
}

// Remaining reports how many scripted steps have not been consumed.
func (s *Scripted) Remaining() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.steps) - s.next
}

// Streaming returns a view of s that also implements llm.Streamer: it
// delivers each scripted reply as word-sized text deltas and tool-call
// fragments, then returns the assembled response.
func (s *Scripted) Streaming() *Streaming { return &Streaming{Scripted: s} }

// Streaming is a Scripted model with the llm.Streamer capability.
type Streaming struct {
	*Scripted
}

var _ llm.Streamer = (*Streaming)(nil)

// Stream replays the next step as deltas.
func (s *Streaming) Stream(ctx context.Context, req *llm.Request, fn func(llm.Delta) error) (*llm.Response, error) {
	resp, err := s.Generate(ctx, req)
	if err != nil {
		return nil, err
	}
	for _, part := range splitKeep(resp.Message.Content) {
		if err := fn(llm.Delta{Text: part}); err != nil {
			return nil, err
		}
	}
	for i, c := range resp.Message.ToolCalls {
		args := string(c.Arguments)
		half := len(args) / 2
		if err := fn(llm.Delta{ToolCallIndex: i, ToolCallID: c.ID, ToolCallName: c.Name, ArgumentsPart: args[:half]}); err != nil {
			return nil, err
		}
		if err := fn(llm.Delta{ToolCallIndex: i, ArgumentsPart: args[half:]}); err != nil {
			return nil, err
		}
	}
	return resp, nil
}

// splitKeep splits s after each space so that concatenating the parts gives s.
func splitKeep(s string) []string {
	var parts []string
	for s != "" {
		i := strings.IndexByte(s, ' ')
		if i < 0 {
			parts = append(parts, s)
			break
		}
		parts = append(parts, s[:i+1])
		s = s[i+1:]
	}
	return parts
}

func cloneRequest(r *llm.Request) *llm.Request {
	if r == nil {
		return nil
	}
	c := *r
	c.Messages = make([]llm.Message, len(r.Messages))
	for i, m := range r.Messages {
		c.Messages[i] = cloneMessage(m)
	}
	c.Tools = slices.Clone(r.Tools)
	if r.ResponseFormat != nil {
		rf := *r.ResponseFormat
		c.ResponseFormat = &rf
	}
	return &c
}

func cloneMessage(m llm.Message) llm.Message {
	m.ToolCalls = slices.Clone(m.ToolCalls)
	return m
}

// Embedder is a deterministic llm.Embedder: each text becomes a normalised
// bag of hashed lower-case words, so texts sharing words have a positive
// cosine similarity. It records how many texts it embedded.
type Embedder struct {
	Dim int // vector length; 64 when zero

	mu    sync.Mutex
	calls int
	texts int
}

var _ llm.Embedder = (*Embedder)(nil)

// Embed returns one unit vector per text.
func (e *Embedder) Embed(ctx context.Context, texts []string) ([][]float32, llm.Usage, error) {
	if err := ctx.Err(); err != nil {
		return nil, llm.Usage{}, err
	}
	dim := e.Dim
	if dim <= 0 {
		dim = 64
	}
	out := make([][]float32, len(texts))
	tokens := 0
	for i, t := range texts {
		v := make([]float32, dim)
		words := strings.FieldsFunc(strings.ToLower(t), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
		tokens += len(words)
		for _, w := range words {
			h := fnv.New32a()
			h.Write([]byte(w))
			v[h.Sum32()%uint32(dim)]++
		}
		var norm float64
		for _, x := range v {
			norm += float64(x) * float64(x)
		}
		if norm > 0 {
			n := float32(math.Sqrt(norm))
			for j := range v {
				v[j] /= n
			}
		}
		out[i] = v
	}
	e.mu.Lock()
	e.calls++
	e.texts += len(texts)
	e.mu.Unlock()
	return out, llm.Usage{InputTokens: tokens}, nil
}

// Calls reports how many Embed calls and texts the embedder has served.
func (e *Embedder) Calls() (calls, texts int) {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.calls, e.texts
}
