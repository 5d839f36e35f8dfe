package llm

import (
	"bytes"
	"encoding/json"
	"time"
)

// CallKind is what a model call is for. Kinds have their own timeouts
// because their replies differ by orders of magnitude: an agent step
// writes a tool call or a short answer, an extraction a long JSON object.
type CallKind int

// Call kinds.
const (
	// CallChat is a chat turn or an agent step: a request without a
	// response format.
	CallChat CallKind = iota
	// CallStructured is a request with a ResponseFormat: contract
	// extraction, and the risk review and judging calls that use
	// GenerateData.
	CallStructured
	// CallEmbed is an embeddings request.
	CallEmbed
)

func (k CallKind) String() string {
	switch k {
	case CallStructured:
		return "extract"
	case CallEmbed:
		return "embed"
	}
	return "chat"
}

// KindOf is the kind of a chat request: CallStructured when it asks for a
// response format, else CallChat.
func KindOf(req *Request) CallKind {
	if req != nil && req.ResponseFormat != nil {
		return CallStructured
	}
	return CallChat
}

// Timeouts bounds each attempt of a model call by its kind. For a stream
// the bound is on each wait for data rather than on the whole call: the
// first piece (which arrives only once the server has read the whole
// prompt) and every piece after it, so a long reply that keeps arriving is
// never cut off.
//
// A zero field takes the provider's single Timeout; a negative one means
// no bound.
type Timeouts struct {
	Chat       time.Duration
	Structured time.Duration
	Embed      time.Duration
	// TokensPerSecond, when positive, is the slowest rate at which the
	// server is expected to read a prompt and to write a reply. A chat or
	// structured call's bound then grows by its estimated prompt tokens at
	// that rate (a local model on a small CPU spends minutes on a long
	// first prompt before it writes anything), and a call that is not
	// streamed also by its MaxTokens (or 1,024 tokens when unset).
	TokensPerSecond float64
}

// defaultReplyTokens is the reply length assumed for a non-streamed call
// without MaxTokens when its timeout grows with the token rate.
const defaultReplyTokens = 1024

// For returns the bound of one non-streamed attempt of req, or 0 for none.
// fallback is the provider's single timeout, used for a zero field.
func (t Timeouts) For(req *Request, fallback time.Duration) time.Duration {
	base := t.base(KindOf(req), fallback)
	if base <= 0 {
		return 0
	}
	out := req.MaxTokens
	if out <= 0 {
		out = defaultReplyTokens
	}
	return base + t.allow(EstimateRequestTokens(req)+out)
}

// ForStream returns the bounds of a streamed attempt of req: on the wait
// for the first piece, which includes reading the prompt, and on each wait
// after it. Both are 0 when there is no bound.
func (t Timeouts) ForStream(req *Request, fallback time.Duration) (first, idle time.Duration) {
	base := t.base(KindOf(req), fallback)
	if base <= 0 {
		return 0, 0
	}
	return base + t.allow(EstimateRequestTokens(req)), base
}

// ForEmbed returns the bound of one embeddings attempt, or 0 for none.
// Embedding servers read text far faster than chat models, so the token
// rate does not apply.
func (t Timeouts) ForEmbed(fallback time.Duration) time.Duration {
	return max(t.base(CallEmbed, fallback), 0)
}

func (t Timeouts) base(k CallKind, fallback time.Duration) time.Duration {
	d := t.Chat
	switch k {
	case CallStructured:
		d = t.Structured
	case CallEmbed:
		d = t.Embed
	}
	if d == 0 {
		d = fallback
	}
	return d
}

// allow is how long the server may take over n tokens at the slowest rate.
func (t Timeouts) allow(n int) time.Duration {
	if t.TokensPerSecond <= 0 || n <= 0 {
		return 0
	}
	return time.Duration(float64(n) / t.TokensPerSecond * float64(time.Second))
}

// EstimateRequestTokens estimates the prompt tokens of req without a
// tokenizer: one token per four bytes (rounded up) of every message, tool
// definition and response schema, which errs slightly high for English
// prose and JSON — the safe side for a timeout.
func EstimateRequestTokens(req *Request) int {
	if req == nil {
		return 0
	}
	n := 0
	for _, m := range req.Messages {
		n += len(m.Content) + len(m.Name) + 8
		for _, c := range m.ToolCalls {
			n += len(c.Name) + len(c.Arguments) + len(c.ID)
		}
	}
	for _, t := range req.Tools {
		n += len(t.Name) + len(t.Description) + len(t.InputSchema)
	}
	if rf := req.ResponseFormat; rf != nil {
		n += len(rf.Name) + len(rf.Schema)
	}
	return (n + 3) / 4
}

// WireSchema prepares a JSON Schema for a provider SDK that wants a
// map[string]any: each top-level keyword maps to its raw JSON, so that
// nested objects — above all "properties" — keep the order they were
// written in. Decoding into nested maps would sort the properties
// alphabetically on the wire, and models write their reply in the order
// the schema lists the properties (llama.cpp's grammar even enforces it).
func WireSchema(raw json.RawMessage) (map[string]any, error) {
	var top map[string]json.RawMessage
	if err := json.Unmarshal(raw, &top); err != nil {
		return nil, err
	}
	out := make(map[string]any, len(top))
	for k, v := range top {
		out[k] = json.RawMessage(unescapeHTML(v))
	}
	return out, nil
}

// unescapeHTML turns the \u003c, \u003e and \u0026 escapes encoding/json
// writes for <, > and & back into the characters: the same JSON, in fewer
// bytes and tokens for the model to read. An escape preceded by an escaped
// backslash (\\u003c) is text and stays.
func unescapeHTML(b []byte) []byte {
	if !bytes.Contains(b, []byte(`\u00`)) {
		return b
	}
	out := make([]byte, 0, len(b))
	for i := 0; i < len(b); i++ {
		if b[i] == '\\' && i+1 < len(b) {
			if b[i+1] == 'u' && i+5 < len(b) {
				switch string(b[i+2 : i+6]) {
				case "003c", "003C":
					out, i = append(out, '<'), i+5
					continue
				case "003e", "003E":
					out, i = append(out, '>'), i+5
					continue
				case "0026":
					out, i = append(out, '&'), i+5
					continue
				}
			}
			// Any other escape, \\ included, is copied whole.
			out, i = append(out, b[i], b[i+1]), i+1
			continue
		}
		out = append(out, b[i])
	}
	return out
}
