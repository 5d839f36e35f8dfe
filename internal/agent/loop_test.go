package agent_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/contractgraph/contractgraph/internal/agent"
	"github.com/contractgraph/contractgraph/internal/llm"
	"github.com/contractgraph/contractgraph/internal/llm/llmtest"
)

// TestLoopRunsTheCallersConversation: Loop sends the caller's own system
// prompt (not the agent's), runs a real tool call and one a small model
// wrote as text, and hands back the final reply as written, with no Sources
// handling, and the whole transcript.
func TestLoopRunsTheCallersConversation(t *testing.T) {
	m := llmtest.NewScripted(
		llmtest.Calls(llmtest.Call("c1", "contract_search", `{"contract_type":"Distributor"}`)),
		llmtest.Text("```json\n{\"name\": \"contract_search\", \"arguments\": {\"contract_type\": \"Reseller\"}}\n```"),
		llmtest.Text(`{"items": [], "notes": "done"}`),
	)
	var rec recorder
	msgs := []llm.Message{{Role: llm.RoleSystem, Content: "You are a reviewer. Reply with JSON."}, {Role: llm.RoleUser, Content: "Review c03."}}
	tr, err := newAgent(m, toolSet(t)).Loop(context.Background(), msgs, rec.emit)
	if err != nil {
		t.Fatal(err)
	}
	if tr.Text != `{"items": [], "notes": "done"}` {
		t.Errorf("final text = %q", tr.Text)
	}
	reqs := m.Requests()
	if len(reqs) != 3 || reqs[0].Messages[0].Content != msgs[0].Content || len(reqs[0].Tools) == 0 {
		t.Fatalf("%d requests; the first's system prompt %q, %d tools", len(reqs), reqs[0].Messages[0].Content, len(reqs[0].Tools))
	}
	var roles []llm.Role
	for _, msg := range tr.Messages {
		roles = append(roles, msg.Role)
	}
	want := []llm.Role{llm.RoleSystem, llm.RoleUser, llm.RoleAssistant, llm.RoleTool, llm.RoleAssistant, llm.RoleTool, llm.RoleAssistant}
	if diff := cmp.Diff(want, roles); diff != "" {
		t.Errorf("transcript roles (-want +got):\n%s", diff)
	}
	if calls := rec.ofType(agent.EventToolCall); len(calls) != 2 || !calls[1].ToolCall.FromText {
		t.Errorf("tool_call events = %+v, want two, the second from text", calls)
	}
	for _, e := range rec.events {
		if e.Type == agent.EventAnswer || e.Type == agent.EventDone || e.Type == agent.EventError {
			t.Errorf("Loop emitted %s; the caller judges the final reply", e.Type)
		}
	}
	if len(msgs) != 2 {
		t.Error("Loop changed the caller's messages")
	}
}

// TestLoopStepLimit: a model that never stops calling tools ends with
// ErrMaxSteps, and the transcript still counts the tokens spent.
func TestLoopStepLimit(t *testing.T) {
	step := llmtest.Calls(llmtest.Call("c", "contract_search", `{}`))
	step.Response.Usage = llm.Usage{InputTokens: 10, OutputTokens: 1}
	m := llmtest.NewScripted(step, step)
	a := newAgent(m, toolSet(t))
	a.MaxSteps = 2
	tr, err := a.Loop(context.Background(), []llm.Message{{Role: llm.RoleUser, Content: "go"}}, nil)
	if !errors.Is(err, agent.ErrMaxSteps) || !strings.Contains(err.Error(), "2 model calls") {
		t.Fatalf("err = %v, want ErrMaxSteps after 2 model calls", err)
	}
	if tr == nil || tr.Usage != (llm.Usage{InputTokens: 20, OutputTokens: 2}) {
		t.Errorf("transcript = %+v, want the usage of both calls", tr)
	}
	if _, err := a.Loop(context.Background(), nil, nil); err == nil {
		t.Error("Loop accepted no messages")
	}
}
