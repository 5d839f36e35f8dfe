package agent

import (
	"encoding/json"

	"github.com/contractgraph/contractgraph/internal/llm"
)

// EventType names an agent event.
type EventType string

// Event types, in the order a run emits them: any number of tool_call /
// tool_result pairs and token events, then one answer (or error), then done.
const (
	EventToolCall   EventType = "tool_call"
	EventToolResult EventType = "tool_result"
	EventToken      EventType = "token"
	EventAnswer     EventType = "answer"
	EventError      EventType = "error"
	EventDone       EventType = "done"
)

// Event is one step of an agent run, as the CLI prints it, the HTTP API
// streams it (SSE event name = Type, data = the JSON of Event) and the web app
// renders it. Exactly one of the payload fields is set, per Type.
type Event struct {
	Type       EventType        `json:"type"`
	ToolCall   *ToolCallEvent   `json:"tool_call,omitempty"`
	ToolResult *ToolResultEvent `json:"tool_result,omitempty"`
	Token      string           `json:"token,omitempty"`
	Answer     *Answer          `json:"answer,omitempty"`
	Error      string           `json:"error,omitempty"`
}

// ToolCallEvent is a tool call the model made.
type ToolCallEvent struct {
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
}

// ToolResultEvent is what the tool returned (Result) or why it failed (Error).
type ToolResultEvent struct {
	ID     string          `json:"id"`
	Name   string          `json:"name"`
	Result json.RawMessage `json:"result,omitempty"`
	Error  string          `json:"error,omitempty"`
}

// Answer is the agent's final answer. Citations only name contracts (and
// clause spans) that tool results returned during the run.
type Answer struct {
	Text      string     `json:"text"`
	Citations []Citation `json:"citations"`
	// Usage is the tokens all model calls of the run consumed.
	Usage *llm.Usage `json:"usage,omitempty"`
}

// Citation is one contract (and optionally one clause span) an answer relied on.
type Citation struct {
	ContractID string `json:"contract_id"`
	Title      string `json:"title,omitempty"`
	ClauseType string `json:"clause_type,omitempty"`
	Start      *int   `json:"start,omitempty"`
	End        *int   `json:"end,omitempty"`
}
