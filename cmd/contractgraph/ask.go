package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strings"

	"github.com/spf13/cobra"

	"github.com/contractgraph/contractgraph/internal/agent"
	"github.com/contractgraph/contractgraph/internal/llm"
)

// askOptions are the flags ask and chat share.
type askOptions struct {
	practices agent.Options
	noStream  bool
	maxSteps  int
}

// registerPractices adds the flags that switch the agent's optional
// practices (agent.Options), which ask, chat, eval answers, serve and mcp
// share.
func registerPractices(cmd *cobra.Command, o *agent.Options) {
	cmd.Flags().BoolVar(&o.Rewrite, "rewrite", false, "rewrite the question into a self-contained one, using the conversation, before the tools run")
	cmd.Flags().BoolVar(&o.Critic, "critic", false, "let a critic read the first answer and ask follow-up questions for a second tool pass")
	cmd.Flags().BoolVar(&o.Check, "check", false, "when no tool result supports an answer (all calls failed or found nothing), search once more or say what is missing")
}

func (o *askOptions) register(cmd *cobra.Command) {
	registerPractices(cmd, &o.practices)
	cmd.Flags().BoolVar(&o.noStream, "no-stream", false, "wait for each complete model reply instead of streaming it")
	cmd.Flags().IntVar(&o.maxSteps, "max-steps", agent.DefaultMaxSteps, "most model calls per tool pass")
}

func newAskCmd(a *app) *cobra.Command {
	var opts askOptions
	cmd := &cobra.Command{
		Use:   "ask QUESTION",
		Short: "Answer a question about the contracts with the LLM agent",
		Long: "Ask a question in plain language. The agent calls the typed tools, streams its answer and lists\n" +
			"the contracts it relied on. With --json it prints one JSON event per line (tool_call, tool_result,\n" +
			"token, answer, error, done); the answer event holds text and citations, and unverified ids.\n\n" +
			"Configure a model with --model provider:model (env CONTRACTGRAPH_MODEL); see `## Models` in README.md.",
		Example: `  contractgraph ask --model openai:gpt-4o-mini "Which distribution agreements end in 2025?"
  contractgraph ask --model ollama:qwen2.5:7b --json "How many contracts are governed by New York law?"`,
		Args: usageArgs(cobra.MinimumNArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			question := strings.TrimSpace(strings.Join(args, " "))
			if question == "" {
				return usageError(errors.New("the question is empty"))
			}
			ctx := cmd.Context()
			ag, closeFn, err := a.newAgent(ctx, opts)
			if err != nil {
				return err
			}
			defer closeFn()
			_, err = a.runTurn(ctx, ag, nil, question)
			return err
		},
	}
	opts.register(cmd)
	return cmd
}

// newAgent opens the store and the model and builds the agent over the
// shared tool set. The caller runs the returned close function.
func (a *app) newAgent(ctx context.Context, opts askOptions) (*agent.Agent, func(), error) {
	if opts.maxSteps < 1 {
		return nil, nil, usageError(fmt.Errorf("--max-steps must be at least 1, got %d", opts.maxSteps))
	}
	model, err := a.openModel(ctx)
	if err != nil {
		return nil, nil, err
	}
	store, err := a.openExistingStore(ctx)
	if err != nil {
		return nil, nil, err
	}
	set, err := a.newToolSet(ctx, store)
	if err != nil {
		store.Close()
		return nil, nil, err
	}
	ag := &agent.Agent{Model: model, Tools: set, MaxSteps: opts.maxSteps, Options: opts.practices, NoStream: opts.noStream, Temperature: a.agentTemperature(), Log: a.log}
	return ag, func() { store.Close() }, nil
}

// runTurn runs one question, printing events as they come, and returns the
// answer. Model failures are explained in one sentence.
func (a *app) runTurn(ctx context.Context, ag *agent.Agent, history []llm.Message, question string) (*agent.Answer, error) {
	var emit func(agent.Event)
	var p *printer
	if a.cfg.JSON {
		enc := json.NewEncoder(a.stdout)
		emit = func(e agent.Event) { enc.Encode(e) }
	} else {
		p = &printer{w: a.stdout}
		emit = p.event
	}
	ans, err := ag.Run(ctx, history, question, emit)
	if err != nil {
		if errors.Is(err, context.Canceled) {
			return nil, err
		}
		if errors.Is(err, agent.ErrMaxSteps) {
			return nil, fmt.Errorf("%w: ask a narrower question or raise --max-steps", err)
		}
		if errors.Is(err, agent.ErrNoAnswer) {
			return nil, fmt.Errorf("%w: rephrase the question or try a larger model", err)
		}
		return nil, a.explainModelError(err)
	}
	if ans.Usage != nil && a.log != nil {
		a.log.Debug("token usage", "input", ans.Usage.InputTokens, "output", ans.Usage.OutputTokens)
	}
	return ans, nil
}

// printer renders agent events for people: tool calls and results as one
// compact line each, the answer streamed as it is written, then the
// sources. The model's own "Sources:" line is held back from the stream,
// because the checked citations replace it.
type printer struct {
	w        io.Writer
	line     strings.Builder // current, not yet printed, streamed line
	midLine  bool            // something was printed on the current line
	streamed bool            // tokens of the current step were printed
}

func (p *printer) event(e agent.Event) {
	switch e.Type {
	case agent.EventToolCall:
		p.flushLine(false)
		p.newline()
		mark := ""
		if e.ToolCall.FromText {
			mark = "  (written as text)"
		}
		fmt.Fprintf(p.w, "→ %s %s%s\n", e.ToolCall.Name, clip(compactJSON(e.ToolCall.Arguments), 160), mark)
		p.streamed = false
	case agent.EventToolResult:
		fmt.Fprintf(p.w, "← %s\n", summarizeResult(e.ToolResult))
	case agent.EventRewrite:
		if e.Rewrite.SetAside != "" {
			fmt.Fprintf(p.w, "(question kept as asked: %s; the rewrite was: %s)\n", clip(e.Rewrite.Error, 200), clip(e.Rewrite.SetAside, 300))
		} else if e.Rewrite.Error != "" {
			fmt.Fprintf(p.w, "(question kept as asked: the rewrite failed: %s)\n", clip(e.Rewrite.Error, 200))
		} else if e.Rewrite.Question != e.Rewrite.Original {
			fmt.Fprintf(p.w, "(question rewritten: %s)\n", e.Rewrite.Question)
		}
	case agent.EventCheck:
		p.flushLine(false)
		p.newline()
		switch {
		case e.Check.Retry:
			fmt.Fprintf(p.w, "(check: the results support no answer (%s); searching once more)\n", clip(strings.Join(e.Check.Gaps, "; "), 300))
		case !e.Check.Sufficient:
			fmt.Fprintln(p.w, "(check: the results still support no answer)")
		}
	case agent.EventCritique:
		p.flushLine(false)
		p.newline()
		switch {
		case e.Critique.Error != "":
			fmt.Fprintf(p.w, "(critic failed, the answer stands: %s)\n", clip(e.Critique.Error, 200))
		case len(e.Critique.FollowUps) > 0:
			fmt.Fprintf(p.w, "(critic asks: %s)\n", strings.Join(e.Critique.FollowUps, " | "))
		}
	case agent.EventToken:
		p.token(e.Token)
	case agent.EventAnswer:
		p.flushLine(true)
		if !p.streamed {
			p.newline()
			fmt.Fprintln(p.w, e.Answer.Text)
		} else {
			p.newline()
		}
		for _, n := range e.Answer.Notes {
			fmt.Fprintf(p.w, "\nNote: %s\n", n)
		}
		printSources(p.w, e.Answer.Citations)
	case agent.EventError:
		p.flushLine(false)
		p.newline()
	}
}

func (p *printer) token(s string) {
	p.streamed = true
	for s != "" {
		i := strings.IndexByte(s, '\n')
		if i < 0 {
			p.line.WriteString(s)
			// Once part of a line is printed it cannot be a Sources line.
			if p.midLine || !mayBeSourcesLine(p.line.String()) {
				p.flushLine(false)
			}
			return
		}
		p.line.WriteString(s[:i])
		if !p.midLine && isSourcesLine(p.line.String()) {
			p.line.Reset() // dropped with its newline
		} else {
			p.flushLine(false)
			fmt.Fprintln(p.w)
			p.midLine = false
		}
		s = s[i+1:]
	}
}

// flushLine prints the held part of the current line, unless it is a
// complete Sources line and dropSources is set.
func (p *printer) flushLine(dropSources bool) {
	held := p.line.String()
	p.line.Reset()
	if held == "" || (dropSources && !p.midLine && isSourcesLine(held)) {
		return
	}
	fmt.Fprint(p.w, held)
	p.midLine = true
}

func (p *printer) newline() {
	if p.midLine {
		fmt.Fprintln(p.w)
		p.midLine = false
	}
}

var sourcesLabel = regexp.MustCompile(`(?i)^[ \t>*_#-]*sources?[ \t]*[:*_]*:`)

// isSourcesLine reports whether s starts with a "Sources:" label, as the
// system prompt asks the model to write.
func isSourcesLine(s string) bool { return sourcesLabel.MatchString(s) }

// mayBeSourcesLine reports whether a partial line could still become a
// "Sources:" line, so printing it must wait for more tokens.
func mayBeSourcesLine(s string) bool {
	if isSourcesLine(s) {
		return true
	}
	t := strings.ToLower(strings.TrimLeft(s, " \t>*_#-"))
	if len(t) < len("sources") {
		return strings.HasPrefix("sources", t)
	}
	rest, ok := strings.CutPrefix(t, "source")
	if !ok {
		return false
	}
	return strings.Trim(strings.TrimPrefix(rest, "s"), " \t*_") == ""
}

func printSources(w io.Writer, cites []agent.Citation) {
	if len(cites) == 0 {
		fmt.Fprintln(w, "\nSources: none")
		return
	}
	fmt.Fprintln(w, "\nSources:")
	for _, c := range cites {
		if c.ClauseType != "" && c.Start != nil && c.End != nil {
			fmt.Fprintf(w, "    %s [%d–%d]\n", c.ClauseType, *c.Start, *c.End)
			continue
		}
		if c.Title != "" {
			fmt.Fprintf(w, "  - %s (%s)\n", c.ContractID, c.Title)
		} else {
			fmt.Fprintf(w, "  - %s\n", c.ContractID)
		}
	}
}

// summarizeResult says in a few words what a tool returned.
func summarizeResult(r *agent.ToolResultEvent) string {
	if r.Error != "" {
		return "error: " + clip(r.Error, 200)
	}
	var v struct {
		TotalCount  *int              `json:"total_count"`
		TotalGroups *int              `json:"total_groups"`
		Passages    []json.RawMessage `json:"passages"`
		ID          string            `json:"id"`
		Title       string            `json:"title"`
	}
	if err := json.Unmarshal(r.Result, &v); err != nil {
		return fmt.Sprintf("%d bytes", len(r.Result))
	}
	switch {
	case v.TotalCount != nil:
		return plural(*v.TotalCount, "result")
	case v.TotalGroups != nil:
		return plural(*v.TotalGroups, "group")
	case v.Passages != nil:
		return plural(len(v.Passages), "passage")
	case v.ID != "" && v.Title != "":
		return fmt.Sprintf("%s (%s)", v.ID, v.Title)
	case v.ID != "":
		return v.ID
	}
	return fmt.Sprintf("%d bytes", len(r.Result))
}

func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

func compactJSON(b json.RawMessage) string {
	var buf bytes.Buffer
	if err := json.Compact(&buf, b); err != nil {
		return string(b)
	}
	return buf.String()
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
