package llm_test

import (
	"context"
	"strconv"
	"strings"
	"testing"

	"github.com/contractgraph/contractgraph/internal/llm"
	"github.com/contractgraph/contractgraph/internal/llm/llmtest"
)

func TestCompleteStopsALoopingReply(t *testing.T) {
	head := `{"parties": [{"name": "Acme Corp", "role": "Seller"}, `
	unit := `{"name": "Acme Corp", "role": "Seller", "evidence": "Acme Corp, a Delaware corporation"}, `
	tests := []struct {
		name   string
		reply  string
		want   string // the content Complete returns
		finish string
	}{
		{"one item repeated until the limit", head + strings.Repeat(unit, 60), head + unit, llm.FinishRepetition},
		{"a cycle of two items", head + strings.Repeat(unit+`{"name": "Beta LLC", "role": "Buyer", "evidence": "Beta LLC"}, `, 30),
			head + unit + `{"name": "Beta LLC", "role": "Buyer", "evidence": "Beta LLC"}, `, llm.FinishRepetition},
		{"a run of one character", head + strings.Repeat(" ", 5000), head + " ", llm.FinishRepetition},
		{"a run of one digit", "Sources: contract_1" + strings.Repeat("0", 1500), "Sources: contract_10", llm.FinishRepetition},
		// Not loops: a quoted signature line, and an item repeated twice.
		{"a row of underscores", head + `"evidence": "By: ` + strings.Repeat("_ ", 700) + `"}]}`, "", "stop"},
		{"a long number", "The total is " + strings.Repeat("1234567890", 20) + ".", "", "stop"},
		{"two copies of a long item", head + strings.Repeat(`{"text": "`+longItem+`"}, `, 2) + `{}]}`, "", "stop"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			step := llmtest.Text(tt.reply)
			step.Response.FinishReason = "stop"
			m := llmtest.NewScripted(step).Streaming()
			var last llm.Progress
			resp, err := llm.Complete(context.Background(), m, &llm.Request{}, func(p llm.Progress) { last = p })
			if err != nil {
				t.Fatal(err)
			}
			want := tt.want
			if want == "" {
				want = tt.reply
			}
			// A loop is cut where its repetition began, which may be a few
			// bytes into the item repeated: the content is a prefix of
			// the reply, one copy of the unit shorter than want at most.
			got := resp.Message.Content
			switch {
			case tt.finish != llm.FinishRepetition && got != want,
				!strings.HasPrefix(tt.reply, got),
				len(got) > len(want),
				len(got) <= len(want)-len(unit):
				t.Errorf("content = %d bytes %q...\nwant %d bytes", len(got), firstN(got, 200), len(want))
			}
			if resp.FinishReason != tt.finish {
				t.Errorf("finish = %q, want %q", resp.FinishReason, tt.finish)
			}
			if tt.finish == llm.FinishRepetition && last.Bytes >= len(tt.reply) {
				t.Errorf("the whole reply (%d bytes) was read; the loop should stop it early", last.Bytes)
			}
		})
	}
}

// longItem is 1,100 bytes of text without a repeated unit.
var longItem = func() string {
	var b strings.Builder
	for i := range 60 {
		b.WriteString("Section " + strconv.Itoa(i) + " applies. ")
	}
	return b.String()
}()

func firstN(s string, n int) string { return s[:min(n, len(s))] }
