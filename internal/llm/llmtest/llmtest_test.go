package llmtest

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/contractgraph/contractgraph/internal/llm"
	"github.com/google/go-cmp/cmp"
)

func TestScriptedReplaysAndRecords(t *testing.T) {
	ctx := context.Background()
	boom := errors.New("boom")
	m := NewScripted(Calls(Call("c1", "contract_search", `{"limit":1}`)), Fail(boom), Text("done"))
	req := &llm.Request{Messages: []llm.Message{{Role: llm.RoleUser, Content: "q"}}}

	r1, err := m.Generate(ctx, req)
	if err != nil || len(r1.Message.ToolCalls) != 1 || r1.Message.ToolCalls[0].Name != "contract_search" {
		t.Fatalf("first call = %+v, %v", r1, err)
	}
	req.Messages[0].Content = "mutated after the call"
	if _, err := m.Generate(ctx, req); !errors.Is(err, boom) {
		t.Fatalf("second call err = %v, want boom", err)
	}
	r3, err := m.Generate(ctx, req)
	if err != nil || r3.Message.Content != "done" {
		t.Fatalf("third call = %+v, %v", r3, err)
	}
	if _, err := m.Generate(ctx, req); err == nil || !strings.Contains(err.Error(), "exhausted") {
		t.Fatalf("fourth call err = %v, want exhausted", err)
	}
	reqs := m.Requests()
	if len(reqs) != 4 {
		t.Fatalf("recorded %d requests, want 4", len(reqs))
	}
	if got := reqs[0].Messages[0].Content; got != "q" {
		t.Errorf("first recorded request content = %q, want the value at call time", got)
	}
}

func TestStreamingDeltasReassemble(t *testing.T) {
	m := NewScripted(Text("three little words"), Calls(Call("a", "get_contract", `{"contract_id":"x"}`))).Streaming()
	var text strings.Builder
	resp, err := m.Stream(context.Background(), &llm.Request{}, func(d llm.Delta) error {
		text.WriteString(d.Text)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if text.String() != resp.Message.Content || resp.Message.Content != "three little words" {
		t.Errorf("streamed %q, response %q", text.String(), resp.Message.Content)
	}
	var args strings.Builder
	var names []string
	if _, err := m.Stream(context.Background(), &llm.Request{}, func(d llm.Delta) error {
		args.WriteString(d.ArgumentsPart)
		if d.ToolCallName != "" {
			names = append(names, d.ToolCallName)
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"get_contract"}, names); diff != "" {
		t.Errorf("tool names (-want +got):\n%s", diff)
	}
	if args.String() != `{"contract_id":"x"}` {
		t.Errorf("arguments reassembled to %q", args.String())
	}
}

func TestEmbedderSimilarity(t *testing.T) {
	e := &Embedder{Dim: 32}
	vs, _, err := e.Embed(context.Background(), []string{"exclusive distribution agreement", "distribution agreement", ""})
	if err != nil {
		t.Fatal(err)
	}
	dot := func(a, b []float32) (s float32) {
		for i := range a {
			s += a[i] * b[i]
		}
		return s
	}
	if d := dot(vs[0], vs[1]); d <= 0.5 {
		t.Errorf("similar texts have cosine %v, want > 0.5", d)
	}
	if d := dot(vs[0], vs[2]); d != 0 {
		t.Errorf("empty text has cosine %v, want 0", d)
	}
	if c, n := e.Calls(); c != 1 || n != 3 {
		t.Errorf("Calls() = %d, %d; want 1, 3", c, n)
	}
}
