// Package openai is the llm.Model for OpenAI's Chat Completions API on the
// official openai-go SDK. Chat Completions (not the Responses API) is used on
// purpose: every OpenAI-compatible server speaks it, so the same code serves
// OpenAI, Azure OpenAI, Ollama's /v1 endpoint, vLLM, llama.cpp and LM Studio.
package openai

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"strings"
	"time"

	"github.com/contractgraph/contractgraph/internal/llm"
	sdk "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/azure"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/shared"
)

// DefaultBaseURL is OpenAI's API.
const DefaultBaseURL = "https://api.openai.com/v1"

// Config configures a Model. Library code never reads the environment; the
// CLI fills these fields from OPENAI_API_KEY, OPENAI_BASE_URL, OLLAMA_HOST…
type Config struct {
	// Model is the model id, or the deployment name for Azure.
	Model string
	// EmbeddingModel is the model Embed uses; Model when empty.
	EmbeddingModel string
	// APIKey authenticates; required for api.openai.com and Azure, optional
	// for local servers (Ollama ignores it).
	APIKey string
	// BaseURL of an OpenAI-compatible server, e.g. http://localhost:11434/v1;
	// DefaultBaseURL when empty. Ignored for Azure.
	BaseURL string
	// AzureEndpoint (https://NAME.openai.azure.com) switches to Azure OpenAI,
	// with AzureAPIVersion (e.g. 2024-10-21) and Model as the deployment.
	AzureEndpoint   string
	AzureAPIVersion string
	// Name labels errors ("openai", "azure", "ollama"); "openai" when empty.
	Name string
	// Timeout bounds each attempt, and for streams the wait for each piece
	// of the stream; 2 minutes when zero, none when negative.
	Timeout time.Duration
	// Timeouts refines Timeout by kind of call (chat, structured,
	// embeddings) and lets bounds grow with the prompt for slow local
	// servers; a zero field takes Timeout.
	Timeouts llm.Timeouts
	// Retry is the backoff policy for 429 and 5xx replies and connection
	// failures; the SDK's own retries are disabled so all providers behave
	// the same way.
	Retry llm.Retry
	// HTTPClient overrides the transport (tests, proxies).
	HTTPClient *http.Client
}

// Model is an OpenAI-compatible chat and embedding model. It implements
// llm.Model, llm.Streamer and llm.Embedder and is safe for concurrent use.
type Model struct {
	cfg    Config
	client sdk.Client
}

var (
	_ llm.Model    = (*Model)(nil)
	_ llm.Streamer = (*Model)(nil)
	_ llm.Embedder = (*Model)(nil)
)

// New validates cfg and returns a Model. It makes no network call.
func New(cfg Config) (*Model, error) {
	if cfg.Model == "" {
		return nil, fmt.Errorf("openai: %w: empty model name", llm.ErrNoModel)
	}
	if cfg.Name == "" {
		cfg.Name = "openai"
	}
	if cfg.Timeout == 0 {
		cfg.Timeout = 2 * time.Minute
	}
	opts := []option.RequestOption{option.WithMaxRetries(0), option.WithMiddleware(refuseHTML)}
	if cfg.HTTPClient != nil {
		opts = append(opts, option.WithHTTPClient(cfg.HTTPClient))
	}
	if cfg.AzureEndpoint != "" {
		if cfg.APIKey == "" {
			return nil, fmt.Errorf("%s: %w: an API key is required for Azure OpenAI", cfg.Name, llm.ErrAuth)
		}
		if cfg.AzureAPIVersion == "" {
			return nil, fmt.Errorf("%s: %w: an API version is required for Azure OpenAI", cfg.Name, llm.ErrBadRequest)
		}
		opts = append(opts, azure.WithEndpoint(cfg.AzureEndpoint, cfg.AzureAPIVersion), azure.WithAPIKey(cfg.APIKey))
		if isLoopback(cfg.AzureEndpoint) {
			opts = append(opts, azure.WithUnsafeAllowHTTP())
		}
	} else {
		base := cfg.BaseURL
		if base == "" {
			base = DefaultBaseURL
		}
		key := cfg.APIKey
		if key == "" {
			if strings.HasPrefix(base, DefaultBaseURL) {
				return nil, fmt.Errorf("%s: %w: an API key is required for %s", cfg.Name, llm.ErrAuth, base)
			}
			// Local servers accept any key; the SDK wants one.
			key = "unused"
		}
		opts = append(opts, option.WithBaseURL(base), option.WithAPIKey(key))
	}
	return &Model{cfg: cfg, client: sdk.NewClient(opts...)}, nil
}

// htmlReply is a reply that is a web page rather than the API's JSON or
// event stream: a sign-in page, a proxy's error page, a web server at the
// wrong URL.
type htmlReply struct {
	status int
	title  string
}

func (e *htmlReply) Error() string {
	if e.title != "" {
		return fmt.Sprintf("the server answered HTTP %d with a web page (%q), not an OpenAI API reply", e.status, e.title)
	}
	return fmt.Sprintf("the server answered HTTP %d with a web page, not an OpenAI API reply", e.status)
}

func (e *htmlReply) Unwrap() error { return llm.ErrNotAPI }

// htmlTitle finds the title of a web page.
var htmlTitle = regexp.MustCompile(`(?is)<title[^>]*>\s*([^<]{1,200}?)\s*</title>`)

// refuseHTML turns a reply in HTML into an htmlReply, which the SDK would
// otherwise report as a decoding failure that reads like an unreachable
// server.
func refuseHTML(req *http.Request, next option.MiddlewareNext) (*http.Response, error) {
	resp, err := next(req)
	if err != nil || !strings.HasPrefix(strings.ToLower(strings.TrimSpace(resp.Header.Get("Content-Type"))), "text/html") {
		return resp, err
	}
	head, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	resp.Body.Close()
	e := &htmlReply{status: resp.StatusCode}
	if m := htmlTitle.FindSubmatch(head); m != nil {
		e.title = strings.Join(strings.Fields(string(m[1])), " ")
	}
	return nil, e
}

func isLoopback(u string) bool {
	return strings.HasPrefix(u, "http://127.0.0.1") || strings.HasPrefix(u, "http://localhost") || strings.HasPrefix(u, "http://[::1]")
}

// Generate runs one chat completion.
func (m *Model) Generate(ctx context.Context, req *llm.Request) (*llm.Response, error) {
	params, err := m.params(req)
	if err != nil {
		return nil, err
	}
	var out *llm.Response
	var raw rawCalls
	err = llm.Invoke(ctx, m.cfg.Name, m.cfg.Retry, m.cfg.Timeouts.For(req, m.cfg.Timeout), func(ctx context.Context) error {
		cc, err := m.client.Chat.Completions.New(ctx, params, raw.options()...)
		if err != nil {
			raw.note(err, params)
			return m.apiError(err)
		}
		out, err = fromCompletion(cc)
		return err
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// Stream runs one streamed chat completion, calling fn with text and
// tool-call deltas and returning the assembled response. A failure before
// the first delta is retried like Generate; after it, the error is returned.
func (m *Model) Stream(ctx context.Context, req *llm.Request, fn func(llm.Delta) error) (*llm.Response, error) {
	params, err := m.params(req)
	if err != nil {
		return nil, err
	}
	params.StreamOptions = sdk.ChatCompletionStreamOptionsParam{IncludeUsage: sdk.Bool(true)}
	var out *llm.Response
	var raw rawCalls
	first, idle := m.cfg.Timeouts.ForStream(req, m.cfg.Timeout)
	err = llm.InvokeStream(ctx, m.cfg.Name, m.cfg.Retry, first, idle, func(ctx context.Context, touch func()) error {
		var err error
		out, err = m.streamOnce(ctx, params, fn, touch, raw.options()...)
		raw.note(err, params)
		return err
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

func (m *Model) streamOnce(ctx context.Context, params sdk.ChatCompletionNewParams, fn func(llm.Delta) error, touch func(), opts ...option.RequestOption) (*llm.Response, error) {
	stream := m.client.Chat.Completions.NewStreaming(ctx, params, opts...)
	defer stream.Close()
	var (
		asm  assembler
		sent bool
		resp = &llm.Response{Message: llm.Message{Role: llm.RoleAssistant}}
	)
	for stream.Next() {
		touch()
		chunk := stream.Current()
		if chunk.JSON.Usage.Valid() {
			resp.Usage = llm.Usage{InputTokens: int(chunk.Usage.PromptTokens), OutputTokens: int(chunk.Usage.CompletionTokens)}
		}
		for _, ch := range chunk.Choices {
			if ch.Index != 0 {
				continue
			}
			if ch.FinishReason != "" {
				resp.FinishReason = ch.FinishReason
			}
			var deltas []llm.Delta
			if ch.Delta.Content != "" {
				deltas = append(deltas, llm.Delta{Text: ch.Delta.Content})
			}
			for _, tc := range ch.Delta.ToolCalls {
				deltas = append(deltas, asm.add(tc))
			}
			for _, d := range deltas {
				if d.Text != "" {
					resp.Message.Content += d.Text
				}
				sent = true
				if err := fn(d); err != nil {
					return nil, llm.Permanent(err)
				}
			}
		}
	}
	if err := stream.Err(); err != nil {
		err = m.apiError(err)
		if sent {
			return nil, llm.Permanent(fmt.Errorf("stream interrupted: %w", err))
		}
		return nil, err
	}
	calls, err := asm.result()
	if err != nil {
		return nil, llm.Permanent(fmt.Errorf("%s: %w: %v", m.cfg.Name, llm.ErrBadRequest, err))
	}
	resp.Message.ToolCalls = calls
	return resp, nil
}

// rawCalls handles llama.cpp's server refusing its own model's reply: with
// --jinja it parses the tool calls a model writes, and when a small model
// writes one whose arguments are not JSON it answers HTTP 500 "Failed to
// parse tool call arguments as JSON" instead of the reply. Asked again at
// temperature 0 the model writes the same call, so after that error the
// retries set the server's parse_tool_calls to false: the reply comes back
// as text, from which the agent recovers the calls it can read (or shows
// the model's words). Other servers never send that error and never get
// the field.
type rawCalls struct{ on bool }

// note switches raw replies on after a tool-call parse failure of a
// request that offered tools.
func (r *rawCalls) note(err error, params sdk.ChatCompletionNewParams) {
	if err != nil && !r.on && len(params.Tools) > 0 && toolParseFailure(err) {
		r.on = true
	}
}

func (r *rawCalls) options() []option.RequestOption {
	if !r.on {
		return nil
	}
	return []option.RequestOption{option.WithJSONSet("parse_tool_calls", false)}
}

// toolParseFailure reports llama.cpp's server error for a tool call it
// could not parse.
func toolParseFailure(err error) bool {
	var e *sdk.Error
	if !errors.As(err, &e) || e.StatusCode < 500 {
		return false
	}
	msg := strings.ToLower(e.Message)
	if msg == "" {
		msg = strings.ToLower(e.RawJSON())
	}
	return strings.Contains(msg, "parse tool call")
}

// assembler joins streamed tool-call fragments by their index. Some
// servers send every call with index 0; a fragment carrying a new id then
// starts a new call.
type assembler struct {
	calls []llm.ToolCall
	byIdx map[int64]int // wire index → position in calls of its latest call
}

func (a *assembler) add(tc sdk.ChatCompletionChunkChoiceDeltaToolCall) llm.Delta {
	if a.byIdx == nil {
		a.byIdx = map[int64]int{}
	}
	pos, ok := a.byIdx[tc.Index]
	if !ok || (tc.ID != "" && a.calls[pos].ID != "" && tc.ID != a.calls[pos].ID) {
		a.calls = append(a.calls, llm.ToolCall{})
		pos = len(a.calls) - 1
		a.byIdx[tc.Index] = pos
	}
	c := &a.calls[pos]
	if tc.ID != "" {
		c.ID = tc.ID
	}
	c.Name += tc.Function.Name
	c.Arguments = append(c.Arguments, tc.Function.Arguments...)
	return llm.Delta{ToolCallIndex: pos, ToolCallID: tc.ID, ToolCallName: tc.Function.Name, ArgumentsPart: tc.Function.Arguments}
}

func (a *assembler) result() ([]llm.ToolCall, error) {
	for i := range a.calls {
		c := &a.calls[i]
		if c.Name == "" {
			return nil, fmt.Errorf("streamed tool call %d has no name", i)
		}
		if c.ID == "" {
			c.ID = fmt.Sprintf("call_%d", i)
		}
		if len(c.Arguments) == 0 {
			c.Arguments = json.RawMessage("{}")
		}
	}
	return a.calls, nil
}

// Embed embeds texts with EmbeddingModel (or Model), one vector per text.
func (m *Model) Embed(ctx context.Context, texts []string) ([][]float32, llm.Usage, error) {
	if len(texts) == 0 {
		return nil, llm.Usage{}, nil
	}
	model := m.cfg.EmbeddingModel
	if model == "" {
		model = m.cfg.Model
	}
	params := sdk.EmbeddingNewParams{
		Model:          sdk.EmbeddingModel(model),
		Input:          sdk.EmbeddingNewParamsInputUnion{OfArrayOfStrings: texts},
		EncodingFormat: sdk.EmbeddingNewParamsEncodingFormatFloat,
	}
	var (
		vecs  [][]float32
		usage llm.Usage
	)
	err := llm.Invoke(ctx, m.cfg.Name, m.cfg.Retry, m.cfg.Timeouts.ForEmbed(m.cfg.Timeout), func(ctx context.Context) error {
		res, err := m.client.Embeddings.New(ctx, params)
		if err != nil {
			return m.apiError(err)
		}
		if len(res.Data) != len(texts) {
			return fmt.Errorf("%s: embeddings: got %d vectors for %d texts", m.cfg.Name, len(res.Data), len(texts))
		}
		vecs = make([][]float32, len(texts))
		for _, d := range res.Data {
			if d.Index < 0 || int(d.Index) >= len(texts) || vecs[d.Index] != nil {
				return fmt.Errorf("%s: embeddings: bad or duplicate index %d", m.cfg.Name, d.Index)
			}
			v := make([]float32, len(d.Embedding))
			for i, x := range d.Embedding {
				v[i] = float32(x)
			}
			vecs[d.Index] = v
		}
		usage = llm.Usage{InputTokens: int(res.Usage.PromptTokens)}
		return nil
	})
	if err != nil {
		return nil, llm.Usage{}, err
	}
	return vecs, usage, nil
}

func (m *Model) params(req *llm.Request) (sdk.ChatCompletionNewParams, error) {
	p := sdk.ChatCompletionNewParams{Model: shared.ChatModel(m.cfg.Model)}
	for i, msg := range req.Messages {
		u, err := toMessage(msg)
		if err != nil {
			return p, fmt.Errorf("%s: message %d: %w", m.cfg.Name, i, err)
		}
		p.Messages = append(p.Messages, u)
	}
	for _, t := range req.Tools {
		schema, err := llm.WireSchema(t.InputSchema)
		if err != nil {
			return p, fmt.Errorf("%s: tool %s: input schema: %w", m.cfg.Name, t.Name, err)
		}
		p.Tools = append(p.Tools, sdk.ChatCompletionFunctionTool(shared.FunctionDefinitionParam{
			Name:        t.Name,
			Description: sdk.String(t.Description),
			Parameters:  shared.FunctionParameters(schema),
		}))
	}
	if rf := req.ResponseFormat; rf != nil {
		schema, err := llm.WireSchema(rf.Schema)
		if err != nil {
			return p, fmt.Errorf("%s: response format %s: %w", m.cfg.Name, rf.Name, err)
		}
		p.ResponseFormat = sdk.ChatCompletionNewParamsResponseFormatUnion{
			OfJSONSchema: &shared.ResponseFormatJSONSchemaParam{
				JSONSchema: shared.ResponseFormatJSONSchemaJSONSchemaParam{Name: rf.Name, Schema: schema},
			},
		}
	}
	if req.Temperature != nil {
		p.Temperature = sdk.Float(*req.Temperature)
	}
	if req.Seed != nil {
		p.Seed = sdk.Int(*req.Seed)
	}
	if req.MaxTokens > 0 {
		p.MaxCompletionTokens = sdk.Int(int64(req.MaxTokens))
	}
	return p, nil
}

func toMessage(m llm.Message) (sdk.ChatCompletionMessageParamUnion, error) {
	switch m.Role {
	case llm.RoleSystem:
		return sdk.SystemMessage(m.Content), nil
	case llm.RoleUser:
		return sdk.UserMessage(m.Content), nil
	case llm.RoleTool:
		if m.ToolCallID == "" {
			return sdk.ChatCompletionMessageParamUnion{}, errors.New("tool message without tool_call_id")
		}
		return sdk.ToolMessage(m.Content, m.ToolCallID), nil
	case llm.RoleAssistant:
		a := sdk.ChatCompletionAssistantMessageParam{}
		if m.Content != "" {
			a.Content.OfString = sdk.String(m.Content)
		}
		for _, c := range m.ToolCalls {
			a.ToolCalls = append(a.ToolCalls, sdk.ChatCompletionMessageToolCallUnionParam{
				OfFunction: &sdk.ChatCompletionMessageFunctionToolCallParam{
					ID:       c.ID,
					Function: sdk.ChatCompletionMessageFunctionToolCallFunctionParam{Name: c.Name, Arguments: string(c.Arguments)},
				},
			})
		}
		return sdk.ChatCompletionMessageParamUnion{OfAssistant: &a}, nil
	}
	return sdk.ChatCompletionMessageParamUnion{}, fmt.Errorf("unknown role %q", m.Role)
}

func fromCompletion(cc *sdk.ChatCompletion) (*llm.Response, error) {
	if len(cc.Choices) == 0 {
		return nil, errors.New("reply has no choices")
	}
	ch := cc.Choices[0]
	out := &llm.Response{
		Message:      llm.Message{Role: llm.RoleAssistant, Content: ch.Message.Content},
		FinishReason: ch.FinishReason,
		Usage:        llm.Usage{InputTokens: int(cc.Usage.PromptTokens), OutputTokens: int(cc.Usage.CompletionTokens)},
	}
	if ch.Message.Refusal != "" && out.Message.Content == "" {
		out.Message.Content = ch.Message.Refusal
	}
	for i, tc := range ch.Message.ToolCalls {
		if tc.Type != "" && tc.Type != "function" {
			continue
		}
		id := tc.ID
		if id == "" {
			id = fmt.Sprintf("call_%d", i)
		}
		out.Message.ToolCalls = append(out.Message.ToolCalls, llm.ToolCall{
			ID: id, Name: tc.Function.Name, Arguments: json.RawMessage(tc.Function.Arguments),
		})
	}
	return out, nil
}

// apiError classifies an SDK or transport error; context errors pass through.
func (m *Model) apiError(err error) error {
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	var he *htmlReply
	if errors.As(err, &he) {
		// A gateway's error page may pass; anything else will not.
		kind := llm.ErrBadRequest
		if he.status >= 300 {
			kind = llm.KindForStatus(he.status)
		}
		return &llm.APIError{Provider: m.cfg.Name, StatusCode: he.status, Kind: kind, Message: he.Error(), Err: he}
	}
	var e *sdk.Error
	if errors.As(err, &e) {
		ae := &llm.APIError{Provider: m.cfg.Name, StatusCode: e.StatusCode, Kind: llm.KindForStatus(e.StatusCode), Message: e.Message, Err: err}
		if e.Response != nil {
			ae.RetryAfter = llm.ParseRetryAfter(e.Response.Header, time.Now())
		}
		if ae.Message == "" {
			ae.Message = http.StatusText(e.StatusCode)
		}
		return ae
	}
	return &llm.APIError{Provider: m.cfg.Name, Kind: llm.ErrUnavailable, Err: err}
}
