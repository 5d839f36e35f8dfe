package httpapi

import (
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/contractgraph/contractgraph/internal/agent"
	"github.com/contractgraph/contractgraph/internal/llm/llmtest"
)

// TestBrowserChatWithCritic drives the chat in headless chromium with the
// question rewriting and the critic switched on by their toggles: the real
// agent over a scripted model rewrites the question, answers, takes the
// critic's follow-up question and answers again, and the chat shows the
// rewritten question, the follow-up among the tool calls in the order they
// happened, and the final answer. A second question with the toggles off
// runs the plain loop.
func TestBrowserChatWithCritic(t *testing.T) {
	if testing.Short() {
		t.Skip("browser tests are slow; skipped with -short")
	}
	model := llmtest.NewScripted(
		llmtest.Text(`{"question":"How many distribution agreements are there, and who are their parties?"}`),
		llmtest.Calls(llmtest.Call("c1", "contract_search", `{"contract_type":"Distributor"}`)),
		llmtest.Text("There is one distribution agreement: acme-distribution."),
		llmtest.Text(`{"complete":false,"follow_ups":["Who are the parties of acme-distribution?"]}`),
		llmtest.Calls(llmtest.Call("c2", "get_contract", `{"contract_id":"acme-distribution"}`)),
		llmtest.Text("There is one distribution agreement, acme-distribution, between Globex Ltd and Acme Corp."),
		// The second question, with the toggles off: the plain loop.
		llmtest.Text("I can only answer from the contract graph."),
	)
	s, _ := newTestServer(t, func(c *Config) {
		c.Agent = &agent.Agent{Model: model.Streaming(), Tools: c.Tools, Now: func() time.Time { return testNow }}
		c.ModelName = "scripted:test"
		c.AskOptions = agent.Options{Check: true} // the server's default, shown by its toggle
	})
	ts := httptest.NewServer(s.Handler())
	defer ts.Close()
	shots := shotsDir(t)
	ctx := browser(t, 2*time.Minute)

	must(t, ctx, "open the chat", chromedp.Navigate(ts.URL+"/chat"), chromedp.WaitVisible(chromedp.ID("opt-critic")))
	toggles := eval[[]bool](t, ctx, `['opt-rewrite','opt-critic','opt-check'].map(id => document.getElementById(id).checked)`)
	if len(toggles) != 3 || toggles[0] || toggles[1] || !toggles[2] {
		t.Fatalf("toggles rewrite, critic, check = %v; want the server's defaults: off, off, on", toggles)
	}
	if !eval[bool](t, ctx, `(() => { const r = document.getElementById('opt-critic').getBoundingClientRect(); return r.width > 0 && r.height > 0; })()`) {
		t.Fatal("the critic toggle is not visible")
	}
	must(t, ctx, "switch rewriting and the critic on, the check off",
		chromedp.Click(chromedp.ID("opt-rewrite")),
		chromedp.Click(chromedp.ID("opt-critic")),
		chromedp.Click(chromedp.ID("opt-check")),
		chromedp.SendKeys(chromedp.ID("question"), "distribution agreements?"),
		chromedp.Click(chromedp.ID("ask-button")),
	)
	waitFor(t, ctx, "the final answer", `(() => { const m = document.querySelector('.msg.assistant');
		return m && m.querySelector('.citations a.citation') !== null && !document.getElementById('ask-button').disabled; })()`)

	steps := eval[[]string](t, ctx, `[...document.querySelectorAll('.msg.assistant .tools > *')].map(e =>
		e.classList.contains('tool') ? 'tool ' + e.querySelector('summary code').textContent : e.className + ': ' + e.innerText.replace(/\s+/g, ' ').trim())`)
	want := []string{
		"step rewrite: Question rewritten: How many distribution agreements are there, and who are their parties?",
		"tool contract_search",
		"step critique: Critic's follow-up questions: Who are the parties of acme-distribution?",
		"tool get_contract",
	}
	if strings.Join(steps, "\n") != strings.Join(want, "\n") {
		t.Errorf("the chat's trace:\n%s\nwant:\n%s", strings.Join(steps, "\n"), strings.Join(want, "\n"))
	}
	if n := eval[int](t, ctx, `document.querySelectorAll('.msg.assistant .step.check').length`); n != 0 {
		t.Errorf("%d check steps with the check switched off", n)
	}
	answer := eval[string](t, ctx, `document.querySelector('.msg.assistant .text').textContent`)
	if answer != "There is one distribution agreement, acme-distribution, between Globex Ltd and Acme Corp." {
		t.Errorf("answer text = %q, want the answer after the follow-up (and not the first draft)", answer)
	}
	viewportShot(t, ctx, shots, "chat-critic")

	// The toggles' state goes with each question: off now, the plain loop.
	must(t, ctx, "switch both off and ask again",
		chromedp.Click(chromedp.ID("opt-rewrite")),
		chromedp.Click(chromedp.ID("opt-critic")),
		chromedp.SendKeys(chromedp.ID("question"), "hello?"),
		chromedp.Click(chromedp.ID("ask-button")),
	)
	waitFor(t, ctx, "the second answer", `document.querySelectorAll('.msg.assistant').length === 2 &&
		document.querySelectorAll('.msg.assistant')[1].querySelector('.text').textContent.includes('only answer from the contract graph') &&
		!document.getElementById('ask-button').disabled`)
	if n := eval[int](t, ctx, `document.querySelectorAll('.msg.assistant')[1].querySelectorAll('.step').length`); n != 0 {
		t.Errorf("the plain answer shows %d practice steps", n)
	}
	reqs := model.Requests()
	if len(reqs) != 7 || model.Remaining() != 0 {
		t.Fatalf("%d model calls, %d scripted replies left; want 7 and 0", len(reqs), model.Remaining())
	}
	if reqs[0].ResponseFormat == nil || reqs[3].ResponseFormat == nil || reqs[6].ResponseFormat != nil {
		t.Error("want the rewrite and the critic as structured calls and the plain question as a tool-loop call")
	}
	if !strings.Contains(reqs[6].Messages[len(reqs[6].Messages)-1].Content, "hello?") {
		t.Errorf("the second question was asked as %q", reqs[6].Messages[len(reqs[6].Messages)-1].Content)
	}
}

// TestBrowserChatRewriteSetAside: a rewrite that adds figures of its own
// is not asked; the chat says the question was kept and shows the rewrite
// and why.
func TestBrowserChatRewriteSetAside(t *testing.T) {
	if testing.Short() {
		t.Skip("browser tests are slow; skipped with -short")
	}
	model := llmtest.NewScripted(
		llmtest.Text(`{"question":"How many distribution agreements were signed in 2025?"}`),
		llmtest.Calls(llmtest.Call("c1", "contract_search", `{"contract_type":"Distributor"}`)),
		llmtest.Text("There is one distribution agreement: acme-distribution."),
	)
	s, _ := newTestServer(t, func(c *Config) {
		c.Agent = &agent.Agent{Model: model.Streaming(), Tools: c.Tools, Now: func() time.Time { return testNow }}
		c.ModelName = "scripted:test"
	})
	ts := httptest.NewServer(s.Handler())
	defer ts.Close()
	ctx := browser(t, 2*time.Minute)
	must(t, ctx, "ask with rewriting on",
		chromedp.Navigate(ts.URL+"/chat"), chromedp.WaitVisible(chromedp.ID("opt-rewrite")),
		chromedp.Click(chromedp.ID("opt-rewrite")),
		chromedp.SendKeys(chromedp.ID("question"), "How many distribution agreements are there?"),
		chromedp.Click(chromedp.ID("ask-button")),
	)
	waitFor(t, ctx, "the answer", `(() => { const m = document.querySelector('.msg.assistant');
		return m && m.querySelector('.text').textContent.includes('one distribution agreement') && !document.getElementById('ask-button').disabled; })()`)
	step := eval[string](t, ctx, `document.querySelector('.msg.assistant .step.rewrite').innerText.replace(/\s+/g, ' ').trim()`)
	want := "Question kept as asked: the rewrite added 2025, which neither the question nor the conversation states. The rewrite was: How many distribution agreements were signed in 2025?"
	if step != want {
		t.Errorf("rewrite step = %q\nwant %q", step, want)
	}
	reqs := model.Requests()
	if len(reqs) != 3 || !strings.Contains(reqs[1].Messages[len(reqs[1].Messages)-1].Content, "How many distribution agreements are there?") {
		t.Errorf("%d model calls; the tool loop should be asked the question as written", len(reqs))
	}
}
