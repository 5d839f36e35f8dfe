package llm

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/google/jsonschema-go/jsonschema"
)

// Schema is a JSON Schema derived from a Go type, ready to send to a model
// (Raw) and to validate its replies (Resolved).
type Schema struct {
	Name     string
	Raw      json.RawMessage
	Resolved *jsonschema.Resolved
}

// SchemaFor derives the JSON Schema of T: struct fields become required
// properties unless tagged omitempty/omitzero, unknown properties are
// rejected, and `jsonschema:"..."` tags become descriptions.
func SchemaFor[T any]() (*Schema, error) {
	s, err := jsonschema.For[T](nil)
	if err != nil {
		return nil, fmt.Errorf("derive schema: %w", err)
	}
	raw, err := json.Marshal(s)
	if err != nil {
		return nil, fmt.Errorf("encode schema: %w", err)
	}
	res, err := s.Resolve(nil)
	if err != nil {
		return nil, fmt.Errorf("resolve schema: %w", err)
	}
	return &Schema{Name: schemaName(reflect.TypeFor[T]()), Raw: raw, Resolved: res}, nil
}

var nonName = regexp.MustCompile(`[^A-Za-z0-9_-]+`)

// schemaName is a name providers accept for a response format (OpenAI wants
// ^[a-zA-Z0-9_-]{1,64}$).
func schemaName(t reflect.Type) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	n := nonName.ReplaceAllString(t.Name(), "_")
	if n == "" || n == "_" {
		n = "response"
	}
	if len(n) > 64 {
		n = n[:64]
	}
	return n
}

// ParseError reports a structured reply that is not valid JSON for the
// requested schema. Raw is the model's text, so a caller can send it back
// together with Err for one repair round (see RepairMessages).
type ParseError struct {
	Raw string
	Err error
}

func (e *ParseError) Error() string {
	return "model reply does not match the schema: " + e.Err.Error()
}

func (e *ParseError) Unwrap() error { return e.Err }

// RepairMessages returns the two messages to append to a conversation to ask
// the model to correct its reply: its own reply (clipped by ClipForRepair,
// so that a runaway reply does not make the repair request as large), and
// what was wrong with it.
func (e *ParseError) RepairMessages() []Message {
	return []Message{
		{Role: RoleAssistant, Content: ClipForRepair(e.Raw)},
		{Role: RoleUser, Content: "Your reply was not valid for the required JSON schema: " + clipMiddle(e.Err.Error(), 2<<10) +
			"\nReply again with only the corrected JSON object."},
	}
}

// MaxRepairEcho bounds how much of a reply a repair request sends back: far
// more than any reply the extraction, risk or judge schemas allow, far less
// than what a server that ignores the token limit can send.
const MaxRepairEcho = 32 << 10

// ClipForRepair returns a reply as a repair request should quote it: whole
// up to MaxRepairEcho bytes, else its beginning and end around a note of
// how much was left out.
func ClipForRepair(reply string) string { return clipMiddle(reply, MaxRepairEcho) }

// clipMiddle keeps at most about n bytes of s: three quarters from the
// start and a quarter from the end, cut at rune boundaries.
func clipMiddle(s string, n int) string {
	if len(s) <= n {
		return s
	}
	head, tail := n*3/4, n/4
	for head > 0 && !utf8.RuneStart(s[head]) {
		head--
	}
	from := len(s) - tail
	for from < len(s) && !utf8.RuneStart(s[from]) {
		from++
	}
	return s[:head] + fmt.Sprintf("\n[… %d bytes of the reply left out …]\n", from-head) + s[from:]
}

// GenerateData runs req asking for a JSON reply shaped like T, then decodes
// and validates it. req is not modified; its ResponseFormat is replaced by
// T's schema. The reply is streamed when m is a Streamer (see Complete), so
// a long reply is bounded by the wait for each piece rather than by one
// call's timeout. A reply that is not JSON, has unknown fields or fails the
// schema yields a *ParseError (with the raw reply); provider errors are
// returned wrapped. The Response is returned whenever the model answered.
func GenerateData[T any](ctx context.Context, m Model, req *Request, opts ...DataOption) (T, *Response, error) {
	var zero T
	schema, err := SchemaFor[T]()
	if err != nil {
		return zero, nil, err
	}
	var o dataOptions
	for _, opt := range opts {
		opt(&o)
	}
	r := *req
	r.ResponseFormat = &ResponseFormat{Name: schema.Name, Schema: schema.Raw}
	r.Tools = nil
	resp, err := Complete(ctx, m, &r, o.progress)
	if err != nil {
		return zero, nil, err
	}
	v, err := DecodeData[T](schema, resp.Message.Content)
	return v, resp, err
}

// DataOption configures GenerateData.
type DataOption func(*dataOptions)

type dataOptions struct {
	progress func(Progress)
}

// WithProgress has GenerateData report a streamed reply's progress to fn.
func WithProgress(fn func(Progress)) DataOption {
	return func(o *dataOptions) { o.progress = fn }
}

// Progress is how much of a streamed reply has arrived.
type Progress struct {
	Deltas int // pieces received; most servers send about one token each
	Bytes  int // bytes of reply text and tool-call arguments received
}

// Complete runs req and returns the whole response. When m is a Streamer
// the reply is streamed and assembled, calling progress (when not nil)
// after each piece; otherwise it is one Generate call and progress is
// called once with the whole reply. A streamed reply that falls into a
// loop is stopped and returned up to the loop's first repetition, with
// FinishReason FinishRepetition (StreamStoppingLoops). Errors are the model's.
func Complete(ctx context.Context, m Model, req *Request, progress func(Progress)) (*Response, error) {
	s, ok := m.(Streamer)
	if !ok {
		resp, err := m.Generate(ctx, req)
		if err == nil && progress != nil {
			n := len(resp.Message.Content)
			for _, c := range resp.Message.ToolCalls {
				n += len(c.Arguments)
			}
			progress(Progress{Deltas: 1, Bytes: n})
		}
		return resp, err
	}
	var p Progress
	return StreamStoppingLoops(ctx, s, req, func(d Delta) error {
		p.Deltas++
		p.Bytes += len(d.Text) + len(d.ArgumentsPart)
		if progress != nil {
			progress(p)
		}
		return nil
	})
}

// DecodeData decodes text (a model's reply, possibly wrapped in a Markdown
// code fence) into T after validating it against schema. Failures are
// *ParseError.
func DecodeData[T any](schema *Schema, text string) (T, error) {
	var zero T
	body := StripCodeFence(text)
	if strings.TrimSpace(body) == "" {
		return zero, &ParseError{Raw: text, Err: errors.New("empty reply, expected a JSON value")}
	}
	var generic any
	if err := json.Unmarshal([]byte(body), &generic); err != nil {
		return zero, &ParseError{Raw: text, Err: fmt.Errorf("invalid JSON: %w", err)}
	}
	if err := schema.Resolved.Validate(generic); err != nil {
		return zero, &ParseError{Raw: text, Err: err}
	}
	dec := json.NewDecoder(bytes.NewReader([]byte(body)))
	dec.DisallowUnknownFields()
	var v T
	if err := dec.Decode(&v); err != nil {
		return zero, &ParseError{Raw: text, Err: err}
	}
	if dec.More() {
		return zero, &ParseError{Raw: text, Err: errors.New("trailing data after the JSON value")}
	}
	return v, nil
}

// StripCodeFence returns the content of a reply wrapped in a Markdown code
// fence (```json … ```), which some models add despite instructions, and
// the trimmed text otherwise.
func StripCodeFence(s string) string {
	t := strings.TrimSpace(s)
	if !strings.HasPrefix(t, "```") {
		return t
	}
	t = strings.TrimPrefix(t, "```")
	if nl := strings.IndexByte(t, '\n'); nl >= 0 {
		t = t[nl+1:]
	} else {
		return s
	}
	t = strings.TrimSpace(t)
	t = strings.TrimSuffix(t, "```")
	return strings.TrimSpace(t)
}
