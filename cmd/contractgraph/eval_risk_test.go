package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/contractgraph/contractgraph/internal/eval"
)

func TestEvalRisk(t *testing.T) {
	db := importSharedStatutes(t)
	texts := filepath.Join(sharedData(t), "data", "cuad", "full_contract_txt")
	// fakeRiskServer's analyst cites the statute its search returned and,
	// in its first draft only, one that does not exist.
	fake := &fakeRiskServer{}
	srv := httptest.NewServer(streamingAdapter{fake})
	defer srv.Close()
	t.Setenv("OPENAI_BASE_URL", srv.URL+"/v1")
	t.Setenv("OPENAI_API_KEY", "test-key")
	t.Setenv("CONTRACTGRAPH_EMBED_MODEL", "")
	dir := filepath.Join(t.TempDir(), "out")

	out, errOut, code := runContractgraph(t, "", "--db", db, "--model", "openai:fake-model", "--json", "eval", "risk",
		"--contracts", "2", "--texts", texts, "--jurisdiction", "us", "-o", dir)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var rep eval.RiskReport
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("%v in %s", err, out)
	}
	if rep.Contracts != 2 || rep.Partial != 1 || rep.Failed != 0 || rep.NoStatutes != 0 || rep.Model != "openai:fake-model" || len(rep.PerContract) != 2 {
		t.Fatalf("report: %+v", rep)
	}
	// The two smallest texts, smallest first. The co-branding agreement
	// goes as fakeRiskServer plays it: two citations proposed, the invented
	// one dropped in review, the real one kept, one item whose quote is at
	// its offsets.
	first, second := rep.PerContract[0], rep.PerContract[1]
	if !strings.HasPrefix(first.ID, "PcquoteComInc") || first.Partial || first.Proposed != 2 || first.Kept != 1 || first.RemovedInReview != 1 ||
		first.RemovedAtGate != 0 || first.ItemsKept != 1 || first.QuotesVerified != 1 {
		t.Errorf("first contract: %+v", first)
	}
	// The joint filing agreement has no sentence for the fake to quote, so
	// it quotes the prompt's instructions after the contract: the reviewer's
	// check rejects the quote in both rounds (a partial report) and the gate
	// removes the item with its citation.
	if !strings.HasPrefix(second.ID, "PRECIGEN") || !second.Partial || second.Kept != 0 || second.RemovedAtGate != 1 || second.ItemsKept != 0 ||
		second.ItemsRemoved != 1 || len(second.ItemReasons) != 1 || second.ItemReasons[0].Reason != "clause quote does not appear in the contract text" {
		t.Errorf("second contract: %+v", second)
	}
	if rep.Proposed != first.Proposed+second.Proposed || rep.Kept != 1 || rep.RemovedAtGate != 1 || rep.ItemsKept != 1 || rep.ItemsRemoved != 1 ||
		rep.QuotesVerified != 1 || rep.QuoteShare != 0.5 || rep.RemovedInReview != first.RemovedInReview+second.RemovedInReview {
		t.Errorf("totals: %+v", rep.RiskTally)
	}
	for _, want := range []string{"eval risk: reviewing 2 contracts with openai:fake-model", "eval risk: [1/2] PcquoteComInc", "eval risk: [2/2] ", "validating citations", "eval risk: wrote " + filepath.Join(dir, "risk.md")} {
		if !strings.Contains(errOut, want) {
			t.Errorf("progress lacks %q:\n%s", want, errOut)
		}
	}
	md, err := os.ReadFile(filepath.Join(dir, "risk.md"))
	if err != nil || !strings.Contains(string(md), fmt.Sprintf("Citations: %d proposed, 1 kept, %d removed in review, 1 removed by the final gate", rep.Proposed, rep.RemovedInReview)) ||
		!strings.Contains(string(md), "| its risk item was removed: clause quote does not appear in the contract text | 1 |") {
		t.Errorf("risk.md: %v\n%s", err, md)
	}

	if _, err := os.Stat(filepath.Join(dir, "risk.html")); err != nil {
		t.Error(err)
	}

	// Stored contracts, readable output.
	gold, cuadTexts := goldSubset(t, evalCUADFiles[1:2])
	if _, errOut, code := runContractgraph(t, "", "--db", db, "import", gold, "--texts", cuadTexts); code != 0 {
		t.Fatalf("import: %s", errOut)
	}
	out, errOut, code = runContractgraph(t, "", "--db", db, "--model", "openai:fake-model", "eval", "risk", "--contracts", "5")
	if code != 0 || !strings.Contains(out, "Risk review (review mode, model openai:fake-model) of 1 contracts") || !strings.Contains(out, "BANGIINC") {
		t.Errorf("stored: exit %d\n%s\n%s", code, out, errOut)
	}
}

func TestEvalRiskErrors(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("OPENAI_API_KEY", "test-key")
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"eval", "risk", "--contracts", "0"}, "--contracts 0"},
		{[]string{"eval", "risk"}, "nothing to review: pass --texts DIR"},
		{[]string{"eval", "risk", "--texts", filepath.Join(dir, "nope")}, "nope: not a directory"},
		{[]string{"eval", "risk", "--texts", dir}, "holds no document"},
	}
	for _, tt := range tests {
		args := append([]string{"--db", filepath.Join(dir, "none.db"), "--model", "openai:fake-model"}, tt.args...)
		if _, errOut, code := runContractgraph(t, "", args...); code != 2 || !strings.Contains(errOut, tt.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", tt.args, code, errOut, tt.want)
		}
	}
}

// streamingAdapter serves a chat-completions handler that answers in one
// JSON body to clients that ask for a stream too: the answer is replayed
// as server-sent chunks in OpenAI's wire format.
type streamingAdapter struct{ h http.Handler }

func (s streamingAdapter) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	var req map[string]any
	json.Unmarshal(body, &req)
	stream, _ := req["stream"].(bool)
	if !stream {
		r.Body = io.NopCloser(bytes.NewReader(body))
		s.h.ServeHTTP(w, r)
		return
	}
	delete(req, "stream")
	delete(req, "stream_options")
	plain, _ := json.Marshal(req)
	rec := httptest.NewRecorder()
	r2 := r.Clone(r.Context())
	r2.Body = io.NopCloser(bytes.NewReader(plain))
	s.h.ServeHTTP(rec, r2)
	if rec.Code != http.StatusOK {
		w.WriteHeader(rec.Code)
		w.Write(rec.Body.Bytes())
		return
	}
	var resp struct {
		Choices []struct {
			Message struct {
				Content   *string          `json:"content"`
				ToolCalls []map[string]any `json:"tool_calls"`
			} `json:"message"`
			FinishReason string `json:"finish_reason"`
		} `json:"choices"`
		Usage map[string]int `json:"usage"`
	}
	if err := json.Unmarshal(rec.Body.Bytes(), &resp); err != nil || len(resp.Choices) == 0 {
		http.Error(w, fmt.Sprintf("cannot stream %s: %v", rec.Body.String(), err), http.StatusInternalServerError)
		return
	}
	ch := resp.Choices[0]
	w.Header().Set("Content-Type", "text/event-stream")
	send := func(delta map[string]any, finish any, usage map[string]int) {
		chunk := map[string]any{"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1, "model": "fake",
			"choices": []map[string]any{{"index": 0, "delta": delta, "finish_reason": finish}}}
		if usage != nil {
			chunk["usage"] = usage
		}
		b, _ := json.Marshal(chunk)
		fmt.Fprintf(w, "data: %s\n\n", b)
	}
	if ch.Message.Content != nil {
		text := *ch.Message.Content
		for len(text) > 0 {
			n := min(len(text), 40)
			send(map[string]any{"role": "assistant", "content": text[:n]}, nil, nil)
			text = text[n:]
		}
	}
	for i, tc := range ch.Message.ToolCalls {
		tc["index"] = i
		send(map[string]any{"role": "assistant", "tool_calls": []any{tc}}, nil, nil)
	}
	send(map[string]any{}, ch.FinishReason, resp.Usage)
	fmt.Fprint(w, "data: [DONE]\n\n")
}
