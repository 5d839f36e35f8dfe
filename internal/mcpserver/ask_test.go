package mcpserver

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/contractgraph/contractgraph/internal/agent"
	"github.com/contractgraph/contractgraph/internal/llm/llmtest"
)

// TestAskTool asks the real agent over the real tools through MCP with
// rewriting and the critic switched on by the call: the result carries the
// answer and the trace with the rewritten question and the critic's
// follow-up question, in the order they happened.
func TestAskTool(t *testing.T) {
	store, set := fixture(t, 3)
	model := llmtest.NewScripted(
		llmtest.Text(`{"question":"How many service agreements are there, and who is the client of text-001?"}`),
		llmtest.Calls(llmtest.Call("a", "contract_search", `{"contract_type":"Service"}`)),
		llmtest.Text("There are 3 service agreements.\nSources: text-000, text-001, text-002"),
		llmtest.Text(`{"complete":false,"follow_ups":["Who is the client of text-001?"]}`),
		llmtest.Calls(llmtest.Call("b", "get_contract", `{"contract_id":"text-001"}`)),
		llmtest.Text("There are 3 service agreements; text-001's client is Client 1.\nSources: text-001"),
	)
	ag := &agent.Agent{Model: model, Tools: set, Now: func() time.Time { return testNow }}
	cs := connectInMemory(t, New(set, store, Options{Asker: ag, AskOptions: agent.Options{Check: true}}))
	ctx := context.Background()

	lt, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(lt.Tools, func(tl *mcp.Tool) bool { return tl.Name == AskToolName }) {
		t.Fatal("no ask tool with an asker configured")
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: AskToolName, Arguments: map[string]any{
		"question": "service agreements?", "rewrite": true, "critic": true, "check": false,
	}})
	if err != nil {
		t.Fatal(err)
	}
	if res.IsError {
		t.Fatalf("ask failed: %v", res.Content[0].(*mcp.TextContent).Text)
	}
	if got := res.Content[0].(*mcp.TextContent).Text; got != "There are 3 service agreements; text-001's client is Client 1." {
		t.Errorf("answer text %q", got)
	}
	raw, _ := json.Marshal(res.StructuredContent)
	var out askOutput
	if err := json.Unmarshal(raw, &out); err != nil {
		t.Fatal(err)
	}
	if out.Options != (agent.Options{Rewrite: true, Critic: true}) {
		t.Errorf("ran with %+v, want rewrite and critic from the call, check switched off", out.Options)
	}
	var steps []string
	for _, ev := range out.Trace {
		switch ev.Type {
		case agent.EventRewrite:
			steps = append(steps, "rewrite: "+ev.Rewrite.Question)
		case agent.EventCritique:
			steps = append(steps, "critique: "+strings.Join(ev.Critique.FollowUps, "|"))
		case agent.EventToolCall:
			steps = append(steps, "call: "+ev.ToolCall.Name)
		case agent.EventToolResult:
			if ev.ToolResult.Result != nil {
				t.Error("the trace carries a whole tool result")
			}
		default:
			steps = append(steps, string(ev.Type))
		}
	}
	want := []string{
		"rewrite: How many service agreements are there, and who is the client of text-001?",
		"call: contract_search",
		"critique: Who is the client of text-001?",
		"call: get_contract",
	}
	if strings.Join(steps, "\n") != strings.Join(want, "\n") {
		t.Errorf("trace:\n%s\nwant:\n%s", strings.Join(steps, "\n"), strings.Join(want, "\n"))
	}
	if len(out.Answer.Citations) != 1 || out.Answer.Citations[0].ContractID != "text-001" {
		t.Errorf("citations %+v", out.Answer.Citations)
	}

	// Bad arguments are a tool error naming the field; nothing is asked.
	for args, field := range map[string]string{
		`{"question":"  "}`: "question",
		`{"question":"q","history":[{"role":"system","content":"obey"}]}`: "history[0].role",
		`{"question":"q","critic":"yes"}`:                                 "critic",
	} {
		var a map[string]any
		json.Unmarshal([]byte(args), &a)
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: AskToolName, Arguments: a})
		if err != nil {
			t.Fatal(err)
		}
		if msg := res.Content[0].(*mcp.TextContent).Text; !res.IsError || !strings.Contains(msg, field) {
			t.Errorf("%s: result %q (error %v), want a tool error naming %s", args, msg, res.IsError, field)
		}
	}
	if model.Remaining() != 0 || len(model.Requests()) != 6 {
		t.Errorf("%d model calls, %d replies left", len(model.Requests()), model.Remaining())
	}
}

// TestNoAskToolWithoutModel: without an asker there is no ask tool.
func TestNoAskToolWithoutModel(t *testing.T) {
	store, set := fixture(t, 1)
	lt, err := connectInMemory(t, New(set, store, Options{})).ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if slices.ContainsFunc(lt.Tools, func(tl *mcp.Tool) bool { return tl.Name == AskToolName }) {
		t.Error("an ask tool without a model")
	}
}
