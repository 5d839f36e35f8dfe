package ingest_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/contractgraph/contractgraph/internal/ingest"
	"github.com/contractgraph/contractgraph/internal/llm"
	"github.com/contractgraph/contractgraph/internal/llm/llmtest"
)

func TestRateLimitedModelStreams(t *testing.T) {
	srv := heuristicServer(t)
	m := ingest.NewRateLimitedModel(srv.Model(t), 0, 600)
	req := &llm.Request{Messages: []llm.Message{{Role: llm.RoleUser, Content: "<contract>\nThis Lease is governed by the laws of the State of Ohio.\n</contract>" + strings.Repeat("x", 4000)}}}
	var text strings.Builder
	resp, err := m.Stream(context.Background(), req, func(d llm.Delta) error { text.WriteString(d.Text); return nil })
	if err != nil {
		t.Fatal(err)
	}
	if reqs := srv.Requests(); len(reqs) != 1 || !reqs[0].Stream {
		t.Fatalf("the wrapped model was not asked for a stream: %+v", reqs)
	}
	if text.String() == "" || text.String() != resp.Message.Content {
		t.Errorf("streamed %q, assembled %q", text.String(), resp.Message.Content)
	}
	// Streams spend the same quota as calls.
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if _, err := m.Stream(ctx, req, func(llm.Delta) error { return nil }); err == nil || len(srv.Requests()) != 1 {
		t.Fatalf("second stream was not held back: %v", err)
	}
}

func TestRateLimitedModelStreamsAModelThatCannot(t *testing.T) {
	m := ingest.NewRateLimitedModel(llmtest.NewScripted(llmtest.Text(`{"a":1}`)), 0, 0)
	var deltas []llm.Delta
	resp, err := m.Stream(context.Background(), &llm.Request{}, func(d llm.Delta) error { deltas = append(deltas, d); return nil })
	if err != nil || resp.Message.Content != `{"a":1}` || len(deltas) != 1 || deltas[0].Text != `{"a":1}` {
		t.Errorf("resp %+v, deltas %+v, err %v", resp, deltas, err)
	}
}
