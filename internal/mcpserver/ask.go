package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/contractgraph/contractgraph/internal/agent"
	"github.com/contractgraph/contractgraph/internal/llm"
)

// Asker answers questions, as *agent.Agent does.
type Asker interface {
	// RunWith answers question in the conversation history with the
	// practices opts switches on, calling emit with each event; an error
	// means the run failed or ctx was cancelled.
	RunWith(ctx context.Context, history []llm.Message, question string, opts agent.Options, emit func(agent.Event)) (*agent.Answer, error)
}

// AskToolName is the tool that asks the agent, offered when a model is
// configured (Options.Asker).
const AskToolName = "ask"

// Limits of an ask call, as the HTTP API has them.
const (
	maxQuestionBytes = 8 << 10
	maxHistory       = 40
	maxHistoryBytes  = 256 << 10
)

const askDescription = "Ask ContractGraph's own agent a question in plain language: it calls the typed tools over the " +
	"contract graph and answers with citations of the contracts it relied on. Optional practices, each costing model " +
	"calls: rewrite (turn the question, with the history, into a self-contained one first), critic (a critic reads the " +
	"first answer and asks follow-up questions for a second tool pass) and check (when no tool result supports an " +
	"answer, search once more or say what is missing); unset, the server's defaults apply. The result holds the answer " +
	"and the trace: the rewritten question, the tool calls (results left out), the check's verdicts and the critic's " +
	"follow-up questions."

const askSchema = `{
  "type": "object",
  "required": ["question"],
  "additionalProperties": false,
  "properties": {
    "question": {"type": "string", "minLength": 1, "maxLength": 8192, "description": "The question about the contracts."},
    "history": {"type": "array", "maxItems": 40, "description": "The conversation so far, oldest first.",
      "items": {"type": "object", "required": ["role", "content"], "additionalProperties": false,
        "properties": {"role": {"type": "string", "enum": ["user", "assistant"]}, "content": {"type": "string", "minLength": 1}}}},
    "rewrite": {"type": "boolean", "description": "Rewrite the question into a self-contained one before the tools run."},
    "critic": {"type": "boolean", "description": "Let a critic ask follow-up questions for a second tool pass."},
    "check": {"type": "boolean", "description": "When no tool result supports an answer, search once more or say what is missing."}
  }
}`

// askInput is the ask tool's arguments.
type askInput struct {
	Question string `json:"question"`
	History  []struct {
		Role    string `json:"role"`
		Content string `json:"content"`
	} `json:"history"`
	Rewrite *bool `json:"rewrite"`
	Critic  *bool `json:"critic"`
	Check   *bool `json:"check"`
}

// askOutput is the ask tool's result.
type askOutput struct {
	Answer  *agent.Answer `json:"answer"`
	Options agent.Options `json:"options"`
	Trace   []agent.Event `json:"trace"`
}

// parse validates the arguments and returns the history and the practices
// over defaults.
func (in *askInput) parse(args json.RawMessage, defaults agent.Options) ([]llm.Message, agent.Options, error) {
	if len(bytes.TrimSpace(args)) == 0 {
		args = json.RawMessage("{}")
	}
	dec := json.NewDecoder(bytes.NewReader(args))
	dec.DisallowUnknownFields()
	if err := dec.Decode(in); err != nil {
		return nil, defaults, fmt.Errorf("arguments: %w", err)
	}
	in.Question = strings.TrimSpace(in.Question)
	switch {
	case in.Question == "":
		return nil, defaults, errors.New("question: missing: ask a question")
	case len(in.Question) > maxQuestionBytes:
		return nil, defaults, fmt.Errorf("question: longer than %d bytes", maxQuestionBytes)
	case !utf8.ValidString(in.Question):
		return nil, defaults, errors.New("question: not valid UTF-8")
	case len(in.History) > maxHistory:
		return nil, defaults, fmt.Errorf("history: %d messages, more than the limit of %d; start a new conversation", len(in.History), maxHistory)
	}
	var history []llm.Message
	total := 0
	for i, m := range in.History {
		role := llm.Role(m.Role)
		if role != llm.RoleUser && role != llm.RoleAssistant {
			return nil, defaults, fmt.Errorf("history[%d].role: unknown role %q (valid: user, assistant)", i, m.Role)
		}
		if strings.TrimSpace(m.Content) == "" {
			return nil, defaults, fmt.Errorf("history[%d].content: empty", i)
		}
		if total += len(m.Content); total > maxHistoryBytes {
			return nil, defaults, fmt.Errorf("history: longer than %d bytes in total; start a new conversation", maxHistoryBytes)
		}
		history = append(history, llm.Message{Role: role, Content: m.Content})
	}
	o := defaults
	if in.Rewrite != nil {
		o.Rewrite = *in.Rewrite
	}
	if in.Critic != nil {
		o.Critic = *in.Critic
	}
	if in.Check != nil {
		o.Check = *in.Check
	}
	return history, o, nil
}

// askHandler runs the agent for one ask call. Invalid arguments and a
// failed run are tool errors the client's model can read; a cancelled
// context fails the request.
func askHandler(asker Asker, defaults agent.Options) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		var args json.RawMessage
		if req.Params != nil {
			args = req.Params.Arguments
		}
		var in askInput
		history, opts, err := in.parse(args, defaults)
		if err != nil {
			return toolError("invalid arguments: " + err.Error()), nil
		}
		var trace []agent.Event
		emit := func(ev agent.Event) {
			switch ev.Type {
			case agent.EventToken, agent.EventAnswer, agent.EventDone, agent.EventError:
				return
			case agent.EventToolResult:
				// The trace says what each call returned in short; the
				// answer's citations carry what it relied on.
				r := *ev.ToolResult
				r.Result = nil
				ev.ToolResult = &r
			}
			trace = append(trace, ev)
		}
		ans, err := asker.RunWith(ctx, history, in.Question, opts, emit)
		if err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			return toolError("the agent failed: " + err.Error()), nil
		}
		out, err := json.Marshal(askOutput{Answer: ans, Options: opts, Trace: trace})
		if err != nil {
			return nil, fmt.Errorf("encode the answer: %w", err)
		}
		return &mcp.CallToolResult{
			Content:           []mcp.Content{&mcp.TextContent{Text: ans.Text}, &mcp.TextContent{Text: string(out)}},
			StructuredContent: json.RawMessage(out),
		}, nil
	}
}

func toolError(msg string) *mcp.CallToolResult {
	return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: msg}}}
}
