package tools

import (
	"context"
	"strings"
	"testing"

	"github.com/contractgraph/contractgraph/internal/contract"
	"github.com/contractgraph/contractgraph/internal/llm"
	"github.com/contractgraph/contractgraph/internal/llm/llmtest"
	"github.com/contractgraph/contractgraph/internal/retrieve"
)

func TestStatuteSearchExpandsAndReranks(t *testing.T) {
	store := &fakeStatutes{}
	store.PutStatutes(context.Background(), []contract.Statute{
		{ID: "/xx/a/s1", Jurisdiction: "xx", Code: "A", Number: "1", Heading: "Notices", Text: "A party that wishes to terminate a lease shall give notice in writing."},
		{ID: "/xx/a/s2", Jurisdiction: "xx", Code: "A", Number: "2", Heading: "Termination for convenience", Text: "A contract term allowing a party to terminate for convenience is valid if the other party may recover its costs."},
		{ID: "/xx/a/s3", Jurisdiction: "xx", Code: "A", Number: "3", Heading: "Payment", Text: "Payment is due on delivery."},
	})
	ctx := context.Background()
	in := StatuteSearchInput{Query: "terminate for convenience", Limit: 2}
	plain, err := NewStatuteTools(store, StatuteOptions{}).Search(ctx, in)
	if err != nil {
		t.Fatal(err)
	}
	if plain.Reranked || plain.Statutes[0].StatuteID != "/xx/a/s1" {
		t.Fatalf("first stage: %+v", plain)
	}
	res, err := NewStatuteTools(store, StatuteOptions{Expander: retrieve.DefaultThesaurus(), Reranker: retrieve.Lexical{}}).Search(ctx, in)
	if err != nil {
		t.Fatal(err)
	}
	if !res.Reranked || len(res.Statutes) != 2 || res.Statutes[0].StatuteID != "/xx/a/s2" {
		t.Errorf("reranked: %+v, want s2 (the phrase) first", res)
	}
	if store.last.Limit < DefaultStatuteRerankDepth || !strings.Contains(store.last.Query, "without cause") {
		t.Errorf("store asked for %+v: want the rerank depth and the thesaurus's phrases", store.last)
	}
	// A failing model keeps the first stage's order.
	failing := NewStatuteTools(store, StatuteOptions{Reranker: retrieve.ModelReranker{Model: llmtest.NewScripted(llmtest.Fail(llm.ErrUnavailable))}})
	res, err = failing.Search(ctx, in)
	if err != nil {
		t.Fatal(err)
	}
	if res.Reranked || res.Statutes[0].StatuteID != "/xx/a/s1" {
		t.Errorf("with a failing reranker: %+v, want the first stage's order", res)
	}
}
