// Package gemini is the llm.Model for Google's Gemini API on the official
// google.golang.org/genai SDK: generateContent with function declarations,
// JSON-schema structured output (responseMimeType application/json with
// responseJsonSchema), streaming and embedContent.
package gemini

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"time"

	"google.golang.org/genai"

	"github.com/contractgraph/contractgraph/internal/llm"
)

// DefaultBaseURL is the Gemini API.
const DefaultBaseURL = "https://generativelanguage.googleapis.com/"

const provider = "gemini"

// Config configures a Model; the CLI fills it from GEMINI_API_KEY (or
// GOOGLE_API_KEY) and GOOGLE_GEMINI_BASE_URL.
type Config struct {
	Model          string // e.g. gemini-2.5-flash
	EmbeddingModel string // Embed's model; Model when empty
	APIKey         string // required
	BaseURL        string // DefaultBaseURL when empty
	// Timeout bounds each attempt, and for streams the wait for each piece
	// of the stream; 2 minutes when zero, none when negative.
	Timeout time.Duration
	// Timeouts refines Timeout by kind of call; a zero field takes Timeout.
	Timeouts llm.Timeouts
	// Retry is the backoff for 429, 5xx and connection failures; the SDK's
	// own retries stay off.
	Retry      llm.Retry
	HTTPClient *http.Client
}

// Model is a Gemini chat and embedding model; it implements llm.Model,
// llm.Streamer and llm.Embedder and is safe for concurrent use.
type Model struct {
	cfg    Config
	client *genai.Client
}

var (
	_ llm.Model    = (*Model)(nil)
	_ llm.Streamer = (*Model)(nil)
	_ llm.Embedder = (*Model)(nil)
)

// New validates cfg and returns a Model. It makes no network call; ctx is
// what the SDK's client constructor asks for.
func New(ctx context.Context, cfg Config) (*Model, error) {
	if cfg.Model == "" {
		return nil, fmt.Errorf("%s: %w: empty model name", provider, llm.ErrNoModel)
	}
	if cfg.APIKey == "" {
		return nil, fmt.Errorf("%s: %w: an API key is required", provider, llm.ErrAuth)
	}
	if cfg.BaseURL == "" {
		cfg.BaseURL = DefaultBaseURL
	}
	if !strings.HasSuffix(cfg.BaseURL, "/") {
		cfg.BaseURL += "/"
	}
	if cfg.Timeout == 0 {
		cfg.Timeout = 2 * time.Minute
	}
	base := cfg.HTTPClient
	if base == nil {
		base = &http.Client{}
	}
	hc := *base
	hc.Transport = headerCapture{base: base.Transport}
	client, err := genai.NewClient(ctx, &genai.ClientConfig{
		APIKey:      cfg.APIKey,
		Backend:     genai.BackendGeminiAPI,
		HTTPClient:  &hc,
		HTTPOptions: genai.HTTPOptions{BaseURL: cfg.BaseURL},
	})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", provider, err)
	}
	return &Model{cfg: cfg, client: client}, nil
}

// Generate runs one generateContent call.
func (m *Model) Generate(ctx context.Context, req *llm.Request) (*llm.Response, error) {
	contents, cfg, err := m.params(req)
	if err != nil {
		return nil, err
	}
	var out *llm.Response
	ctx = withSchema(ctx, req)
	err = m.invoke(ctx, m.cfg.Timeouts.For(req, m.cfg.Timeout), func(ctx context.Context) error {
		resp, err := m.client.Models.GenerateContent(ctx, m.cfg.Model, contents, cfg)
		if err != nil {
			return err
		}
		out, err = fromResponse(resp, nil)
		return err
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// Stream runs one streamGenerateContent call. Gemini sends each function
// call whole, so a tool call arrives as one delta with its full arguments.
func (m *Model) Stream(ctx context.Context, req *llm.Request, fn func(llm.Delta) error) (*llm.Response, error) {
	contents, cfg, err := m.params(req)
	if err != nil {
		return nil, err
	}
	var out *llm.Response
	ctx = withSchema(ctx, req)
	err = m.invokeStream(ctx, req, func(ctx context.Context, touch func()) error {
		sent := false
		acc := &llm.Response{Message: llm.Message{Role: llm.RoleAssistant}}
		for chunk, err := range m.client.Models.GenerateContentStream(ctx, m.cfg.Model, contents, cfg) {
			touch()
			if err != nil {
				if sent {
					return llm.Permanent(fmt.Errorf("stream interrupted: %w", m.classify(ctx, err)))
				}
				return err
			}
			part, err := fromResponse(chunk, acc)
			if err != nil {
				return llm.Permanent(err)
			}
			if part.Message.Content != "" {
				sent = true
				if err := fn(llm.Delta{Text: part.Message.Content}); err != nil {
					return llm.Permanent(err)
				}
			}
			for _, c := range part.Message.ToolCalls {
				sent = true
				d := llm.Delta{ToolCallIndex: len(acc.Message.ToolCalls), ToolCallID: c.ID, ToolCallName: c.Name, ArgumentsPart: string(c.Arguments)}
				acc.Message.ToolCalls = append(acc.Message.ToolCalls, c)
				if err := fn(d); err != nil {
					return llm.Permanent(err)
				}
			}
			acc.Message.Content += part.Message.Content
		}
		out = acc
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
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
	contents := make([]*genai.Content, len(texts))
	for i, t := range texts {
		contents[i] = genai.NewContentFromText(t, genai.RoleUser)
	}
	var vecs [][]float32
	err := m.invoke(ctx, m.cfg.Timeouts.ForEmbed(m.cfg.Timeout), func(ctx context.Context) error {
		resp, err := m.client.Models.EmbedContent(ctx, model, contents, nil)
		if err != nil {
			return err
		}
		if len(resp.Embeddings) != len(texts) {
			return &llm.APIError{Provider: provider, Kind: llm.ErrUnavailable, Message: fmt.Sprintf("embeddings: got %d vectors for %d texts", len(resp.Embeddings), len(texts))}
		}
		vecs = make([][]float32, len(texts))
		for i, e := range resp.Embeddings {
			if e == nil || len(e.Values) == 0 {
				return &llm.APIError{Provider: provider, Kind: llm.ErrUnavailable, Message: fmt.Sprintf("embeddings: empty vector for text %d", i)}
			}
			vecs[i] = e.Values
		}
		return nil
	})
	if err != nil {
		return nil, llm.Usage{}, err
	}
	return vecs, llm.Usage{}, nil
}

// invoke runs fn with retries and a per-attempt timeout, classifying SDK
// errors with the response headers the transport captured.
func (m *Model) invoke(ctx context.Context, timeout time.Duration, fn func(ctx context.Context) error) error {
	return llm.Invoke(ctx, provider, m.cfg.Retry, timeout, func(ctx context.Context) error {
		return m.attempt(ctx, fn)
	})
}

// invokeStream is invoke with the timeouts applied to each piece of the
// stream of req.
func (m *Model) invokeStream(ctx context.Context, req *llm.Request, fn func(ctx context.Context, touch func()) error) error {
	first, idle := m.cfg.Timeouts.ForStream(req, m.cfg.Timeout)
	return llm.InvokeStream(ctx, provider, m.cfg.Retry, first, idle, func(ctx context.Context, touch func()) error {
		return m.attempt(ctx, func(ctx context.Context) error { return fn(ctx, touch) })
	})
}

func (m *Model) attempt(ctx context.Context, fn func(ctx context.Context) error) error {
	hdr := &capturedHeader{}
	ctx = context.WithValue(ctx, headerKey{}, hdr)
	err := fn(ctx)
	if err == nil || llm.IsPermanent(err) {
		return err
	}
	return m.classifyWith(err, hdr)
}

func (m *Model) classify(ctx context.Context, err error) error {
	hdr, _ := ctx.Value(headerKey{}).(*capturedHeader)
	return m.classifyWith(err, hdr)
}

// classifyWith maps an SDK or transport error to an *llm.APIError;
// context errors and already classified errors pass through.
func (m *Model) classifyWith(err error, hdr *capturedHeader) error {
	var ae *llm.APIError
	if errors.As(err, &ae) || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	var e genai.APIError
	if errors.As(err, &e) {
		out := &llm.APIError{Provider: provider, StatusCode: e.Code, Kind: llm.KindForStatus(e.Code), Message: e.Message, Err: err}
		if hdr != nil {
			if h := hdr.v.Load(); h != nil {
				out.RetryAfter = llm.ParseRetryAfter(*h, time.Now())
			}
		}
		return out
	}
	return &llm.APIError{Provider: provider, Kind: llm.ErrUnavailable, Err: err}
}

// headerCapture records the headers of failed responses in the request's
// context, because genai.APIError does not carry Retry-After.
type headerCapture struct{ base http.RoundTripper }

type headerKey struct{}

type capturedHeader struct{ v atomic.Pointer[http.Header] }

// schemaKey carries a request's response schema as the caller wrote it.
type schemaKey struct{}

// withSchemaOrder returns r with generationConfig.responseJsonSchema
// replaced by schema verbatim. The SDK round-trips its config through
// maps, which sorts the schema's properties alphabetically, and Gemini
// writes a structured reply in the order the schema lists them.
func withSchemaOrder(r *http.Request, schema json.RawMessage) (*http.Request, error) {
	body, err := io.ReadAll(r.Body)
	r.Body.Close()
	if err != nil {
		return nil, err
	}
	var top map[string]json.RawMessage
	var gc map[string]json.RawMessage
	if json.Unmarshal(body, &top) == nil && json.Unmarshal(top["generationConfig"], &gc) == nil {
		if _, ok := gc["responseJsonSchema"]; ok {
			gc["responseJsonSchema"] = schema
			if b, err := json.Marshal(gc); err == nil {
				top["generationConfig"] = b
				if b, err := json.Marshal(top); err == nil {
					body = b
				}
			}
		}
	}
	out := r.Clone(r.Context())
	out.Body = io.NopCloser(bytes.NewReader(body))
	out.ContentLength = int64(len(body))
	out.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
	return out, nil
}

// withSchema marks ctx so that the transport sends req's response schema
// in its own property order.
func withSchema(ctx context.Context, req *llm.Request) context.Context {
	if req.ResponseFormat == nil || !json.Valid(req.ResponseFormat.Schema) {
		return ctx
	}
	return context.WithValue(ctx, schemaKey{}, json.RawMessage(req.ResponseFormat.Schema))
}

func (t headerCapture) RoundTrip(r *http.Request) (*http.Response, error) {
	base := t.base
	if base == nil {
		base = http.DefaultTransport
	}
	if schema, ok := r.Context().Value(schemaKey{}).(json.RawMessage); ok && r.Body != nil {
		var err error
		if r, err = withSchemaOrder(r, schema); err != nil {
			return nil, err
		}
	}
	resp, err := base.RoundTrip(r)
	if err == nil && resp.StatusCode >= 400 {
		if c, ok := r.Context().Value(headerKey{}).(*capturedHeader); ok {
			h := resp.Header.Clone()
			c.v.Store(&h)
		}
	}
	return resp, err
}

func (m *Model) params(req *llm.Request) ([]*genai.Content, *genai.GenerateContentConfig, error) {
	cfg := &genai.GenerateContentConfig{}
	if req.Temperature != nil {
		t := float32(*req.Temperature)
		cfg.Temperature = &t
	}
	if req.Seed != nil {
		seed := int32(*req.Seed) // Gemini's seed is 32 bits; larger seeds wrap
		cfg.Seed = &seed
	}
	if req.MaxTokens > 0 {
		cfg.MaxOutputTokens = int32(req.MaxTokens)
	}
	var (
		system   []string
		contents []*genai.Content
		names    = map[string]string{} // tool call id → function name
	)
	add := func(role genai.Role, parts ...*genai.Part) {
		if n := len(contents); n > 0 && contents[n-1].Role == string(role) {
			contents[n-1].Parts = append(contents[n-1].Parts, parts...)
			return
		}
		contents = append(contents, genai.NewContentFromParts(parts, role))
	}
	for i, msg := range req.Messages {
		switch msg.Role {
		case llm.RoleSystem:
			system = append(system, msg.Content)
		case llm.RoleUser:
			if msg.Content != "" {
				add(genai.RoleUser, genai.NewPartFromText(msg.Content))
			}
		case llm.RoleAssistant:
			var parts []*genai.Part
			if msg.Content != "" {
				parts = append(parts, genai.NewPartFromText(msg.Content))
			}
			for _, c := range msg.ToolCalls {
				id, sig := splitID(c.ID)
				names[c.ID] = c.Name
				p := genai.NewPartFromFunctionCall(c.Name, argsMap(c.Arguments))
				p.FunctionCall.ID = wireID(id)
				p.ThoughtSignature = sig
				parts = append(parts, p)
			}
			if len(parts) > 0 {
				add(genai.RoleModel, parts...)
			}
		case llm.RoleTool:
			name := msg.Name
			if name == "" {
				name = names[msg.ToolCallID]
			}
			if name == "" {
				return nil, nil, fmt.Errorf("%s: message %d: tool result for unknown call %q", provider, i, msg.ToolCallID)
			}
			p := genai.NewPartFromFunctionResponse(name, resultMap(msg.Content))
			id, _ := splitID(msg.ToolCallID)
			p.FunctionResponse.ID = wireID(id)
			add(genai.RoleUser, p)
		default:
			return nil, nil, fmt.Errorf("%s: message %d: unknown role %q", provider, i, msg.Role)
		}
	}
	if len(system) > 0 {
		cfg.SystemInstruction = genai.NewContentFromText(strings.Join(system, "\n\n"), genai.RoleUser)
	}
	if len(req.Tools) > 0 {
		tool := &genai.Tool{}
		for _, t := range req.Tools {
			schema, err := llm.WireSchema(t.InputSchema)
			if err != nil {
				return nil, nil, fmt.Errorf("%s: tool %s: input schema: %w", provider, t.Name, err)
			}
			tool.FunctionDeclarations = append(tool.FunctionDeclarations, &genai.FunctionDeclaration{
				Name: t.Name, Description: t.Description, ParametersJsonSchema: schema,
			})
		}
		cfg.Tools = []*genai.Tool{tool}
	}
	if rf := req.ResponseFormat; rf != nil {
		schema, err := llm.WireSchema(rf.Schema)
		if err != nil {
			return nil, nil, fmt.Errorf("%s: response format %s: %w", provider, rf.Name, err)
		}
		cfg.ResponseMIMEType = "application/json"
		cfg.ResponseJsonSchema = schema
	}
	return contents, cfg, nil
}

// localIDPrefix marks call ids made up here because Gemini sent none;
// they are not sent back, so the API only ever sees its own ids.
const localIDPrefix = "local-call-"

func wireID(id string) string {
	if strings.HasPrefix(id, localIDPrefix) {
		return ""
	}
	return id
}

// Tool call ids carry Gemini's thought signature, which must be sent back
// with the function call on the next turn: "id~base64(signature)".
func joinID(id string, sig []byte) string {
	if len(sig) == 0 {
		return id
	}
	return id + "~" + base64.RawURLEncoding.EncodeToString(sig)
}

func splitID(s string) (id string, sig []byte) {
	id, enc, ok := strings.Cut(s, "~")
	if !ok {
		return s, nil
	}
	sig, err := base64.RawURLEncoding.DecodeString(enc)
	if err != nil {
		return s, nil
	}
	return id, sig
}

// argsMap is a tool call's arguments as Gemini wants them. Malformed
// arguments the model wrote earlier are kept as a string.
func argsMap(args json.RawMessage) map[string]any {
	var m map[string]any
	if len(args) == 0 {
		return map[string]any{}
	}
	if err := json.Unmarshal(args, &m); err != nil || m == nil {
		return map[string]any{"unparsed_arguments": string(args)}
	}
	return m
}

// resultMap is a tool result as a functionResponse.response object: the
// result itself when it is a JSON object, else {"output": text}.
func resultMap(content string) map[string]any {
	var m map[string]any
	if err := json.Unmarshal([]byte(content), &m); err == nil && m != nil {
		return m
	}
	return map[string]any{"output": content}
}

// fromResponse converts one (possibly streamed) reply. With acc set, call
// ids continue acc's numbering.
func fromResponse(resp *genai.GenerateContentResponse, acc *llm.Response) (*llm.Response, error) {
	out := &llm.Response{Message: llm.Message{Role: llm.RoleAssistant}}
	if u := resp.UsageMetadata; u != nil {
		out.Usage = llm.Usage{InputTokens: int(u.PromptTokenCount), OutputTokens: int(u.CandidatesTokenCount + u.ThoughtsTokenCount)}
	}
	offset := 0
	if acc != nil {
		offset = len(acc.Message.ToolCalls)
		if resp.UsageMetadata != nil {
			acc.Usage = out.Usage
		}
	}
	if len(resp.Candidates) == 0 {
		if acc != nil {
			return out, nil
		}
		if pf := resp.PromptFeedback; pf != nil && pf.BlockReason != "" {
			return nil, &llm.APIError{Provider: provider, Kind: llm.ErrBadRequest, Message: "prompt blocked: " + string(pf.BlockReason)}
		}
		return nil, &llm.APIError{Provider: provider, Kind: llm.ErrUnavailable, Message: "reply has no candidates"}
	}
	c := resp.Candidates[0]
	out.FinishReason = string(c.FinishReason)
	if acc != nil && c.FinishReason != "" {
		acc.FinishReason = out.FinishReason
	}
	if c.Content == nil {
		return out, nil
	}
	var text strings.Builder
	for _, p := range c.Content.Parts {
		switch {
		case p.FunctionCall != nil:
			args, err := json.Marshal(p.FunctionCall.Args)
			if err != nil || p.FunctionCall.Args == nil {
				args = json.RawMessage("{}")
			}
			id := p.FunctionCall.ID
			if id == "" {
				id = fmt.Sprintf("%s%d", localIDPrefix, offset+len(out.Message.ToolCalls))
			}
			out.Message.ToolCalls = append(out.Message.ToolCalls, llm.ToolCall{
				ID: joinID(id, p.ThoughtSignature), Name: p.FunctionCall.Name, Arguments: args,
			})
		case p.Text != "" && !p.Thought:
			text.WriteString(p.Text)
		}
	}
	out.Message.Content = text.String()
	return out, nil
}
