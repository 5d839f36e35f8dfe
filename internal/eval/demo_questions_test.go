package eval

import (
	"context"
	"path/filepath"
	"slices"
	"testing"
)

// The question file shipped for the demo corpus (internal/demo/questions.jsonl)
// holds: every expected call runs on the store `contractgraph demo` builds,
// its result states the question's figures, and so does the reference answer.
func TestDemoQuestionFile(t *testing.T) {
	qs, err := ReadQuestionFile(filepath.Join("..", "demo", "questions.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if len(qs) < 10 {
		t.Errorf("%d demo questions, want at least 10", len(qs))
	}
	set := demoTools(t)
	ctx := context.Background()
	if err := CheckExpected(ctx, set, qs); err != nil {
		t.Fatal(err)
	}
	used := map[string]bool{}
	for _, q := range qs {
		if q.Expected == nil || q.Answer == "" || len(q.MustContain) == 0 {
			t.Errorf("%s: every demo question needs an expected call, a reference answer and figures", q.ID)
			continue
		}
		used[q.Expected.Tool] = true
		res, err := set.Call(ctx, q.Expected.Tool, q.Expected.Args)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range q.MustContain {
			if !statesFigure(string(res), f) {
				t.Errorf("%s: the expected result does not state %q: %s", q.ID, f, clip(string(res), 300))
			}
			if !statesFigure(q.Answer, f) {
				t.Errorf("%s: the reference answer does not state %q: %s", q.ID, f, q.Answer)
			}
		}
	}
	for _, tool := range set.Names() {
		if !used[tool] && slices.Contains([]string{"contract_search", "contract_aggregate", "party_search", "get_contract", "clause_search"}, tool) {
			t.Errorf("no demo question expects %s", tool)
		}
	}
}
