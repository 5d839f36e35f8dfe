// Package llm is the provider-neutral language-model layer: chat with tool
// definitions and tool calls, JSON-schema structured output, streaming and
// embeddings. Providers live in subpackages (openai, anthropic, gemini), each
// on its vendor's official SDK; llmtest has scripted fakes for tests.
package llm

import (
	"context"
	"encoding/json"
	"errors"
)

// Role is the author of a message.
type Role string

// Message roles.
const (
	RoleSystem    Role = "system"
	RoleUser      Role = "user"
	RoleAssistant Role = "assistant"
	RoleTool      Role = "tool"
)

// Message is one turn of a conversation. An assistant message may carry tool
// calls; a tool message answers the call with ToolCallID.
type Message struct {
	Role       Role       `json:"role"`
	Content    string     `json:"content,omitempty"`
	ToolCalls  []ToolCall `json:"tool_calls,omitempty"`
	ToolCallID string     `json:"tool_call_id,omitempty"`
	Name       string     `json:"name,omitempty"` // tool name on tool messages
}

// ToolCall is a model's request to run one tool. Arguments is the raw JSON
// the model wrote, which may be malformed.
type ToolCall struct {
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
}

// ToolDef describes a tool the model may call.
type ToolDef struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	InputSchema json.RawMessage `json:"input_schema"` // JSON Schema object
}

// ResponseFormat asks for a JSON reply that validates against Schema.
type ResponseFormat struct {
	Name   string          `json:"name"`
	Schema json.RawMessage `json:"schema"`
}

// Request is one model call.
type Request struct {
	Messages       []Message
	Tools          []ToolDef
	ResponseFormat *ResponseFormat
	Temperature    *float64
	// Seed, when set, asks the provider for reproducible sampling (providers
	// without a seed parameter ignore it).
	Seed      *int64
	MaxTokens int
}

// Usage counts tokens of one or more calls.
type Usage struct {
	InputTokens  int `json:"input_tokens"`
	OutputTokens int `json:"output_tokens"`
}

// Add returns the sum of u and v.
func (u Usage) Add(v Usage) Usage {
	return Usage{InputTokens: u.InputTokens + v.InputTokens, OutputTokens: u.OutputTokens + v.OutputTokens}
}

// Response is a model's complete reply.
type Response struct {
	Message      Message `json:"message"` // role assistant
	Usage        Usage   `json:"usage"`
	FinishReason string  `json:"finish_reason,omitempty"`
}

// Model is a chat model.
type Model interface {
	// Generate runs one call. Errors wrap ErrRateLimited, ErrUnavailable,
	// ErrAuth or ErrBadRequest when the provider said so, after the
	// provider's retries are exhausted; context errors are returned as is.
	Generate(ctx context.Context, req *Request) (*Response, error)
}

// Delta is one streamed piece of a reply: text, or a fragment of a tool call
// (Index identifies the call; ID and Name arrive with its first fragment).
type Delta struct {
	Text          string
	ToolCallIndex int
	ToolCallID    string
	ToolCallName  string
	ArgumentsPart string
}

// Streamer is an optional capability of a Model: it calls fn with each delta
// as it arrives and returns the assembled response. An error from fn stops
// the stream and is returned.
type Streamer interface {
	Stream(ctx context.Context, req *Request, fn func(Delta) error) (*Response, error)
}

// Embedder turns texts into vectors.
type Embedder interface {
	// Embed returns one vector per text, in order.
	Embed(ctx context.Context, texts []string) ([][]float32, Usage, error)
}

// Errors callers branch on.
var (
	ErrRateLimited = errors.New("rate limited")
	ErrUnavailable = errors.New("model unavailable")
	ErrAuth        = errors.New("authentication failed")
	ErrBadRequest  = errors.New("bad request")
	// ErrNoModel means no model is configured.
	ErrNoModel = errors.New("no model configured")
	// ErrNotAPI means the server answered with something that is not its
	// API's reply, such as a web page: the URL points at the wrong place.
	// An *APIError wraps it next to its class.
	ErrNotAPI = errors.New("not an API reply")
)
