package agent

import (
	"encoding/json"

	"github.com/contractgraph/contractgraph/internal/llm"
)

// EventType names an agent event.
type EventType string

// Event types, in the order a run emits them: a rewrite event when the
// question is rewritten, any number of tool_call / tool_result pairs and
// token events, with check events after the first tool pass (and after
// its extra pass) and a critique event before the critic's pass, then one
// answer (or error), then done.
const (
	EventRewrite    EventType = "rewrite"
	EventToolCall   EventType = "tool_call"
	EventToolResult EventType = "tool_result"
	EventCheck      EventType = "check"
	EventCritique   EventType = "critique"
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
	Rewrite    *RewriteEvent    `json:"rewrite,omitempty"`
	ToolCall   *ToolCallEvent   `json:"tool_call,omitempty"`
	ToolResult *ToolResultEvent `json:"tool_result,omitempty"`
	Check      *CheckEvent      `json:"check,omitempty"`
	Critique   *CritiqueEvent   `json:"critique,omitempty"`
	Token      string           `json:"token,omitempty"`
	Answer     *Answer          `json:"answer,omitempty"`
	Error      string           `json:"error,omitempty"`
}

// RewriteEvent is the question the tool loop answers (Options.Rewrite).
type RewriteEvent struct {
	// Original is the question as asked.
	Original string `json:"original"`
	// Question is the rewritten question; Original when the rewrite failed.
	Question string `json:"question"`
	// Error says why the rewrite failed and the question was kept.
	Error string `json:"error,omitempty"`
	// SetAside is the rewriter's question when it was not used because it
	// added figures of its own (Error says which).
	SetAside string `json:"set_aside,omitempty"`
}

// CheckEvent is a verdict of the sufficiency check (Options.Check).
type CheckEvent struct {
	// Sufficient is set when some tool result holds something to answer from.
	Sufficient bool `json:"sufficient"`
	// Gaps say why the results support no answer: calls that failed or
	// found nothing, or that no tool was called.
	Gaps []string `json:"gaps,omitempty"`
	// Retry is set when the model gets one more tool pass for the gaps;
	// the check after that pass is final.
	Retry bool `json:"retry,omitempty"`
}

// CritiqueEvent is the critic's verdict on the first answer (Options.Critic).
type CritiqueEvent struct {
	// Complete is set when the critic found nothing missing.
	Complete bool `json:"complete"`
	// FollowUps are the critic's follow-up questions, answered in a
	// second tool pass.
	FollowUps []string `json:"follow_ups,omitempty"`
	// Error says why the critic failed; the first answer then stands.
	Error string `json:"error,omitempty"`
}

// ToolCallEvent is a tool call the model made.
type ToolCallEvent struct {
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
	// FromText is set when the model wrote the call into its reply text
	// (a JSON object or <tool_call> tags) instead of the provider's
	// tool-call channel, and the agent recognised and ran it (textcall.go).
	FromText bool `json:"from_text,omitempty"`
}

// ToolResultEvent is what the tool returned (Result) or why it failed (Error).
type ToolResultEvent struct {
	ID     string          `json:"id"`
	Name   string          `json:"name"`
	Result json.RawMessage `json:"result,omitempty"`
	Error  string          `json:"error,omitempty"`
}

// Answer is the agent's final answer. Citations only name contracts (and
// clause spans) that tool results returned during the run. Text is never
// empty: when the model writes no answer even after being asked again, the
// agent composes one from the last successful tool result (ComposedFrom),
// and when there is none Run fails with ErrNoAnswer.
type Answer struct {
	Text      string     `json:"text"`
	Citations []Citation `json:"citations"`
	// Unverified lists contract ids, or strings shaped like the store's
	// ids, that the answer text or its Sources line mentions but no tool
	// returned during the run, in order of first mention. They stay in
	// Text; readers should check them before relying on them.
	Unverified []string `json:"unverified,omitempty"`
	// UnsupportedFigures lists the numbers the answer states that no tool
	// result of the run (nor the question) holds, even rounded: figures
	// the model did not take from the graph.
	UnsupportedFigures []string `json:"unsupported_figures,omitempty"`
	// Missing lists, with the sufficiency check on, why the tool results
	// support no answer even after the check's extra pass (calls that
	// failed or found nothing); the answer should say what is missing.
	Missing []string `json:"missing,omitempty"`
	// Notes are short warnings for the reader about this answer, such as
	// the Unverified ids.
	Notes []string `json:"notes,omitempty"`
	// ComposedFrom names the tool whose result the agent composed Text
	// from because the model gave no answer text; Text says so too. Empty
	// when the model wrote the answer.
	ComposedFrom string `json:"composed_from,omitempty"`
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
