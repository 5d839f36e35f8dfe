// Package anthropic is the llm.Model for Anthropic's Messages API on the
// official anthropic-sdk-go. Structured output uses a forced tool: the
// response schema becomes the input schema of a single tool the model must
// call, and the tool's input is the JSON reply. This works with every
// Claude model that supports tools.
package anthropic

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	sdk "github.com/anthropics/anthropic-sdk-go"
	"github.com/anthropics/anthropic-sdk-go/option"

	"github.com/contractgraph/contractgraph/internal/llm"
)

// DefaultBaseURL is Anthropic's API.
const DefaultBaseURL = "https://api.anthropic.com"

// DefaultMaxTokens caps a reply when the request sets no MaxTokens (the
// Messages API requires a cap).
const DefaultMaxTokens = 4096

// Config configures a Model; the CLI fills it from ANTHROPIC_API_KEY and
// ANTHROPIC_BASE_URL. Library code never reads the environment.
type Config struct {
	Model   string // e.g. claude-sonnet-4-5
	APIKey  string // required
	BaseURL string // DefaultBaseURL when empty
	// Timeout bounds each attempt, and for streams the wait for each piece
	// of the stream; 2 minutes when zero, none when negative.
	Timeout time.Duration
	// Timeouts refines Timeout by kind of call; a zero field takes
	// Timeout. (The Messages API has no seed: Request.Seed is ignored.)
	Timeouts llm.Timeouts
	// Retry is the backoff for 429, 5xx (including 529 overloaded) and
	// connection failures; the SDK's own retries are disabled.
	Retry      llm.Retry
	HTTPClient *http.Client
}

// Model is a Claude chat model; it implements llm.Model and llm.Streamer
// (Anthropic has no embeddings API) and is safe for concurrent use.
type Model struct {
	cfg    Config
	client sdk.Client
}

var (
	_ llm.Model    = (*Model)(nil)
	_ llm.Streamer = (*Model)(nil)
)

const provider = "anthropic"

// New validates cfg and returns a Model. It makes no network call.
func New(cfg Config) (*Model, error) {
	if cfg.Model == "" {
		return nil, fmt.Errorf("%s: %w: empty model name", provider, llm.ErrNoModel)
	}
	if cfg.APIKey == "" {
		return nil, fmt.Errorf("%s: %w: an API key is required", provider, llm.ErrAuth)
	}
	if cfg.BaseURL == "" {
		cfg.BaseURL = DefaultBaseURL
	}
	if cfg.Timeout == 0 {
		cfg.Timeout = 2 * time.Minute
	}
	opts := []option.RequestOption{
		option.WithoutEnvironmentDefaults(),
		option.WithBaseURL(cfg.BaseURL),
		option.WithAPIKey(cfg.APIKey),
		option.WithMaxRetries(0),
	}
	if cfg.HTTPClient != nil {
		opts = append(opts, option.WithHTTPClient(cfg.HTTPClient))
	}
	return &Model{cfg: cfg, client: sdk.NewClient(opts...)}, nil
}

// Generate runs one Messages call.
func (m *Model) Generate(ctx context.Context, req *llm.Request) (*llm.Response, error) {
	params, err := m.params(req)
	if err != nil {
		return nil, err
	}
	var out *llm.Response
	err = llm.Invoke(ctx, provider, m.cfg.Retry, m.cfg.Timeouts.For(req, m.cfg.Timeout), func(ctx context.Context) error {
		msg, err := m.client.Messages.New(ctx, params)
		if err != nil {
			return apiError(err)
		}
		out = fromMessage(msg, req.ResponseFormat)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// Stream runs one streamed Messages call, calling fn with text deltas and
// tool-use fragments, and returns the assembled response.
func (m *Model) Stream(ctx context.Context, req *llm.Request, fn func(llm.Delta) error) (*llm.Response, error) {
	params, err := m.params(req)
	if err != nil {
		return nil, err
	}
	var out *llm.Response
	first, idle := m.cfg.Timeouts.ForStream(req, m.cfg.Timeout)
	err = llm.InvokeStream(ctx, provider, m.cfg.Retry, first, idle, func(ctx context.Context, touch func()) error {
		var err error
		out, err = m.streamOnce(ctx, params, req.ResponseFormat, fn, touch)
		return err
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

func (m *Model) streamOnce(ctx context.Context, params sdk.MessageNewParams, rf *llm.ResponseFormat, fn func(llm.Delta) error, touch func()) (*llm.Response, error) {
	stream := m.client.Messages.NewStreaming(ctx, params)
	defer stream.Close()
	var (
		acc      sdk.Message
		sent     bool
		toolIdx  = map[int64]int{} // content block index → tool call index
		nextTool int
		// replyBlock is the content block of the forced reply tool.
		replyBlock int64
		hasReply   bool
	)
	for stream.Next() {
		touch()
		ev := stream.Current()
		if err := acc.Accumulate(ev); err != nil {
			return nil, llm.Permanent(fmt.Errorf("%s: %w: malformed stream: %v", provider, llm.ErrUnavailable, err))
		}
		var d *llm.Delta
		switch ev.Type {
		case "content_block_start":
			switch {
			case ev.ContentBlock.Type == "tool_use" && rf != nil && ev.ContentBlock.Name == rf.Name:
				replyBlock, hasReply = ev.Index, true
			case ev.ContentBlock.Type == "tool_use" && rf == nil:
				toolIdx[ev.Index] = nextTool
				d = &llm.Delta{ToolCallIndex: nextTool, ToolCallID: ev.ContentBlock.ID, ToolCallName: ev.ContentBlock.Name}
				nextTool++
			}
		case "content_block_delta":
			switch ev.Delta.Type {
			case "text_delta":
				if ev.Delta.Text != "" {
					d = &llm.Delta{Text: ev.Delta.Text}
				}
			case "input_json_delta":
				if hasReply && ev.Index == replyBlock && ev.Delta.PartialJSON != "" {
					// The forced tool's input is the structured reply:
					// stream it as text, as the other providers do.
					d = &llm.Delta{Text: ev.Delta.PartialJSON}
				} else if i, ok := toolIdx[ev.Index]; ok && ev.Delta.PartialJSON != "" {
					d = &llm.Delta{ToolCallIndex: i, ArgumentsPart: ev.Delta.PartialJSON}
				}
			}
		}
		if d != nil {
			sent = true
			if err := fn(*d); err != nil {
				return nil, llm.Permanent(err)
			}
		}
	}
	if err := stream.Err(); err != nil {
		err = apiError(err)
		if sent {
			return nil, llm.Permanent(fmt.Errorf("stream interrupted: %w", err))
		}
		return nil, err
	}
	return fromMessage(&acc, rf), nil
}

func (m *Model) params(req *llm.Request) (sdk.MessageNewParams, error) {
	p := sdk.MessageNewParams{Model: sdk.Model(m.cfg.Model), MaxTokens: DefaultMaxTokens}
	if req.MaxTokens > 0 {
		p.MaxTokens = int64(req.MaxTokens)
	}
	if req.Temperature != nil {
		p.Temperature = sdk.Float(*req.Temperature)
	}
	var system []string
	for i, msg := range req.Messages {
		switch msg.Role {
		case llm.RoleSystem:
			system = append(system, msg.Content)
		case llm.RoleUser:
			if msg.Content == "" {
				continue
			}
			appendBlocks(&p.Messages, sdk.MessageParamRoleUser, sdk.NewTextBlock(msg.Content))
		case llm.RoleTool:
			if msg.ToolCallID == "" {
				return p, fmt.Errorf("%s: message %d: tool message without tool_call_id", provider, i)
			}
			isError := strings.HasPrefix(strings.TrimSpace(msg.Content), `{"error":`)
			appendBlocks(&p.Messages, sdk.MessageParamRoleUser, sdk.NewToolResultBlock(msg.ToolCallID, msg.Content, isError))
		case llm.RoleAssistant:
			var blocks []sdk.ContentBlockParamUnion
			if msg.Content != "" {
				blocks = append(blocks, sdk.NewTextBlock(msg.Content))
			}
			for _, c := range msg.ToolCalls {
				blocks = append(blocks, sdk.NewToolUseBlock(c.ID, toolInput(c.Arguments), c.Name))
			}
			if len(blocks) > 0 {
				appendBlocks(&p.Messages, sdk.MessageParamRoleAssistant, blocks...)
			}
		default:
			return p, fmt.Errorf("%s: message %d: unknown role %q", provider, i, msg.Role)
		}
	}
	if len(system) > 0 {
		p.System = []sdk.TextBlockParam{{Text: strings.Join(system, "\n\n")}}
	}
	for _, t := range req.Tools {
		tp, err := toolParam(t.Name, t.Description, t.InputSchema)
		if err != nil {
			return p, err
		}
		p.Tools = append(p.Tools, sdk.ToolUnionParam{OfTool: tp})
	}
	if rf := req.ResponseFormat; rf != nil {
		tp, err := toolParam(rf.Name, "Give your reply by calling this tool; its input is the reply.", rf.Schema)
		if err != nil {
			return p, err
		}
		p.Tools = []sdk.ToolUnionParam{{OfTool: tp}}
		p.ToolChoice = sdk.ToolChoiceParamOfTool(rf.Name)
	}
	return p, nil
}

// appendBlocks adds blocks as a message of role, merging with the previous
// message when it has the same role (the API wants alternating turns, and
// all tool results of one turn in a single user message).
func appendBlocks(msgs *[]sdk.MessageParam, role sdk.MessageParamRole, blocks ...sdk.ContentBlockParamUnion) {
	if n := len(*msgs); n > 0 && (*msgs)[n-1].Role == role {
		(*msgs)[n-1].Content = append((*msgs)[n-1].Content, blocks...)
		return
	}
	*msgs = append(*msgs, sdk.MessageParam{Role: role, Content: blocks})
}

// toolInput is a tool call's arguments as the API must receive them: an
// object. Malformed arguments the model wrote earlier are kept as a string.
func toolInput(args json.RawMessage) any {
	var obj map[string]any
	if len(args) == 0 || json.Unmarshal(args, &obj) != nil || obj == nil {
		if len(args) == 0 {
			return map[string]any{}
		}
		return map[string]any{"unparsed_arguments": string(args)}
	}
	return json.RawMessage(args)
}

func toolParam(name, description string, schema json.RawMessage) (*sdk.ToolParam, error) {
	// Raw JSON values keep the schema's property order on the wire.
	var s map[string]json.RawMessage
	if err := json.Unmarshal(schema, &s); err != nil {
		return nil, fmt.Errorf("%s: tool %s: input schema: %w", provider, name, err)
	}
	in := sdk.ToolInputSchemaParam{ExtraFields: map[string]any{}}
	if p, ok := s["properties"]; ok {
		in.Properties = p
	}
	if raw, ok := s["required"]; ok {
		var req []string
		if err := json.Unmarshal(raw, &req); err != nil {
			return nil, fmt.Errorf("%s: tool %s: input schema: required: %w", provider, name, err)
		}
		in.Required = req
	}
	for k, v := range s {
		if k != "properties" && k != "required" && k != "type" {
			in.ExtraFields[k] = v
		}
	}
	tp := &sdk.ToolParam{Name: name, InputSchema: in}
	if description != "" {
		tp.Description = sdk.String(description)
	}
	return tp, nil
}

func fromMessage(msg *sdk.Message, rf *llm.ResponseFormat) *llm.Response {
	out := &llm.Response{
		Message:      llm.Message{Role: llm.RoleAssistant},
		FinishReason: string(msg.StopReason),
		Usage:        llm.Usage{InputTokens: int(msg.Usage.InputTokens), OutputTokens: int(msg.Usage.OutputTokens)},
	}
	var text strings.Builder
	for _, b := range msg.Content {
		switch b.Type {
		case "text":
			text.WriteString(b.Text)
		case "tool_use":
			args := json.RawMessage(b.Input)
			if len(args) == 0 {
				args = json.RawMessage("{}")
			}
			if rf != nil && b.Name == rf.Name {
				// The forced tool's input is the structured reply.
				out.Message.Content = string(args)
				return out
			}
			out.Message.ToolCalls = append(out.Message.ToolCalls, llm.ToolCall{ID: b.ID, Name: b.Name, Arguments: args})
		}
	}
	out.Message.Content = text.String()
	return out
}

// apiError classifies an SDK or transport error; context errors pass through.
func apiError(err error) error {
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	var e *sdk.Error
	if errors.As(err, &e) {
		ae := &llm.APIError{Provider: provider, StatusCode: e.StatusCode, Kind: llm.KindForStatus(e.StatusCode), Err: err}
		if e.StatusCode == 529 { // overloaded
			ae.Kind = llm.ErrUnavailable
		}
		var body struct {
			Error struct {
				Message string `json:"message"`
			} `json:"error"`
		}
		if json.Unmarshal([]byte(e.RawJSON()), &body) == nil && body.Error.Message != "" {
			ae.Message = body.Error.Message
		} else {
			ae.Message = http.StatusText(e.StatusCode)
		}
		if e.Response != nil {
			ae.RetryAfter = llm.ParseRetryAfter(e.Response.Header, time.Now())
		}
		return ae
	}
	return &llm.APIError{Provider: provider, Kind: llm.ErrUnavailable, Err: err}
}
