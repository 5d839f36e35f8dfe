package httpapi

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/contractgraph/contractgraph/internal/agent"
	"github.com/contractgraph/contractgraph/internal/llm"
	"github.com/contractgraph/contractgraph/internal/llm/llmtest"
)

// TestAskWithAgentAndScriptedModel runs the real agent over the real tools
// with a scripted streaming model and checks the SSE stream event by event.
func TestAskWithAgentAndScriptedModel(t *testing.T) {
	model := llmtest.NewScripted(
		llmtest.Calls(llmtest.Call("c1", "contract_search", `{"contract_type":"Distributor"}`)),
		llmtest.Text("There is one distribution agreement: acme-distribution, between Globex and Acme."),
	)
	s, tset := newTestServer(t, func(c *Config) {
		c.Agent = &agent.Agent{Model: model.Streaming(), Tools: c.Tools, Now: func() time.Time { return testNow }}
	})
	rec := do(t, s.Handler(), "POST", "/api/ask", "application/json", strings.NewReader(`{"question":"How many distribution agreements are there?"}`))
	if rec.Code != 200 {
		t.Fatalf("%d %s", rec.Code, rec.Body)
	}
	events := readEvents(t, rec.Body)
	var names []string
	var text strings.Builder
	var answer *agent.Answer
	var result json.RawMessage
	for _, e := range events {
		if len(names) == 0 || names[len(names)-1] != e.Name || e.Name != "token" {
			names = append(names, e.Name)
		}
		var ev agent.Event
		if err := json.Unmarshal([]byte(e.Data), &ev); err != nil {
			t.Fatalf("event %s: %v", e.Name, err)
		}
		if string(ev.Type) != e.Name {
			t.Errorf("event name %s carries type %s", e.Name, ev.Type)
		}
		switch ev.Type {
		case agent.EventToken:
			text.WriteString(ev.Token)
		case agent.EventToolResult:
			result = ev.ToolResult.Result
		case agent.EventAnswer:
			answer = ev.Answer
		}
	}
	if diff := cmp.Diff([]string{"tool_call", "tool_result", "token", "answer", "done"}, names); diff != "" {
		t.Fatalf("event order (-want +got, runs of tokens folded):\n%s", diff)
	}
	want, err := tset.Call(context.Background(), "contract_search", json.RawMessage(`{"contract_type":"Distributor"}`))
	if err != nil {
		t.Fatal(err)
	}
	var gotRes, wantRes any
	json.Unmarshal(result, &gotRes)
	json.Unmarshal(want, &wantRes)
	if diff := cmp.Diff(wantRes, gotRes); diff != "" {
		t.Errorf("tool_result differs from the tool's own result (-want +got):\n%s", diff)
	}
	if !strings.Contains(text.String(), "one distribution agreement") {
		t.Errorf("streamed tokens = %q", text.String())
	}
	if answer == nil || len(answer.Citations) != 1 || answer.Citations[0].ContractID != "acme-distribution" {
		t.Errorf("answer = %+v, want a citation of acme-distribution", answer)
	}
	if n := len(model.Requests()); n != 2 {
		t.Errorf("model called %d times, want 2", n)
	}
}

// TestAskWithCriticStreamsItsTrace runs the real agent with rewriting
// and the critic switched on by the request, and checks that the stream
// shows the rewritten question and the critic's follow-ups where they
// happen.
func TestAskWithCriticStreamsItsTrace(t *testing.T) {
	model := llmtest.NewScripted(
		llmtest.Text(`{"question":"How many distribution agreements are there, and who are their parties?"}`),
		llmtest.Calls(llmtest.Call("c1", "contract_search", `{"contract_type":"Distributor"}`)),
		llmtest.Text("There is one distribution agreement: acme-distribution."),
		llmtest.Text(`{"complete":false,"follow_ups":["Who are the parties of acme-distribution?"]}`),
		llmtest.Calls(llmtest.Call("c2", "get_contract", `{"contract_id":"acme-distribution"}`)),
		llmtest.Text("There is one distribution agreement, acme-distribution, between Globex Ltd and Acme Corp."),
	)
	s, _ := newTestServer(t, func(c *Config) {
		c.Agent = &agent.Agent{Model: model.Streaming(), Tools: c.Tools, Now: func() time.Time { return testNow }}
	})
	body := `{"question":"distribution agreements?","rewrite":true,"critic":true}`
	rec := do(t, s.Handler(), "POST", "/api/ask", "application/json", strings.NewReader(body))
	if rec.Code != 200 {
		t.Fatalf("%d %s", rec.Code, rec.Body)
	}
	var names []string
	var rewrite *agent.RewriteEvent
	var critique *agent.CritiqueEvent
	var answer *agent.Answer
	for _, e := range readEvents(t, rec.Body) {
		if len(names) == 0 || names[len(names)-1] != e.Name || e.Name != "token" {
			names = append(names, e.Name)
		}
		var ev agent.Event
		if err := json.Unmarshal([]byte(e.Data), &ev); err != nil {
			t.Fatalf("event %s: %v", e.Name, err)
		}
		switch ev.Type {
		case agent.EventRewrite:
			rewrite = ev.Rewrite
		case agent.EventCritique:
			critique = ev.Critique
		case agent.EventAnswer:
			answer = ev.Answer
		}
	}
	want := []string{"rewrite", "tool_call", "tool_result", "critique", "tool_call", "tool_result", "token", "answer", "done"}
	if diff := cmp.Diff(want, names); diff != "" {
		t.Fatalf("event order (-want +got, runs of tokens folded):\n%s", diff)
	}
	if rewrite == nil || rewrite.Original != "distribution agreements?" || !strings.Contains(rewrite.Question, "who are their parties") {
		t.Errorf("rewrite event = %+v", rewrite)
	}
	if critique == nil || critique.Complete || len(critique.FollowUps) != 1 || critique.FollowUps[0] != "Who are the parties of acme-distribution?" {
		t.Errorf("critique event = %+v", critique)
	}
	if answer == nil || !strings.Contains(answer.Text, "Globex Ltd and Acme Corp") {
		t.Errorf("answer = %+v, want the second pass's", answer)
	}
	if model.Remaining() != 0 {
		t.Errorf("%d scripted replies left", model.Remaining())
	}
}

// TestAskDisconnectCancelsAgentModelCall checks that closing the stream
// cancels the real agent's model call.
func TestAskDisconnectCancelsAgentModelCall(t *testing.T) {
	model := &blockingModel{started: make(chan struct{}), ended: make(chan error, 1)}
	s, _ := newTestServer(t, func(c *Config) { c.Agent = &agent.Agent{Model: model, Tools: c.Tools} })
	ts := httptest.NewServer(s.Handler())
	defer ts.Close()
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, "POST", ts.URL+"/api/ask", strings.NewReader(`{"question":"q"}`))
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("status %d", resp.StatusCode)
	}
	select {
	case <-model.started:
	case <-time.After(10 * time.Second):
		t.Fatal("the model was never called")
	}
	cancel()
	select {
	case err := <-model.ended:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("model call ended with %v, want context.Canceled", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the model call was not cancelled after the client disconnected")
	}
}

// TestAskModelFailureIsExplained checks that a failing model gives one
// error event, worded by ExplainError, then done.
func TestAskModelFailureIsExplained(t *testing.T) {
	down := fmt.Errorf("openai: %w: connection refused", llm.ErrUnavailable)
	model := llmtest.NewScripted(llmtest.Fail(down))
	s, _ := newTestServer(t, func(c *Config) {
		c.Agent = &agent.Agent{Model: model, Tools: c.Tools}
		c.ExplainError = func(err error) error {
			if errors.Is(err, llm.ErrUnavailable) {
				return errors.New("cannot reach the ollama server at http://localhost:11434: start it or set OLLAMA_HOST")
			}
			return err
		}
	})
	rec := do(t, s.Handler(), "POST", "/api/ask", "application/json", strings.NewReader(`{"question":"q"}`))
	events := readEvents(t, rec.Body)
	if len(events) != 2 || events[0].Name != "error" || events[1].Name != "done" {
		t.Fatalf("events = %+v, want error then done", events)
	}
	var ev agent.Event
	json.Unmarshal([]byte(events[0].Data), &ev)
	if !strings.Contains(ev.Error, "set OLLAMA_HOST") {
		t.Errorf("error event = %q, want the explained message", ev.Error)
	}
}
