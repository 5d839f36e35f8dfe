package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/contractgraph/contractgraph/internal/llm"
)

// The sufficiency check (Options.Check) is a bounded, corrective step in
// the manner of CRAG: before the answer is accepted, the agent grades what
// the tools returned, without a model call. Results support an answer when
// at least one tool call succeeded with something in it; they support
// nothing when no tool was called, when every call failed, or when every
// successful result was empty (a count of 0, no groups, no passages). Then
// the model is shown the gaps and gets one more tool pass, told to correct
// the calls or to say plainly what is missing; there is no third pass. A
// count of zero can be the right answer, so the extra pass asks the model
// to say so rather than forbidding it; what the check guarantees is that
// an answer resting on nothing says so (Answer.Missing and a note), and
// when every call failed the answer is the list of failures, with the
// model's reply set aside in a note.

// maxGaps bounds the gaps listed in the retry prompt and the answer.
const maxGaps = 5

// gaps says why the run's tool results so far support no answer; nil
// when some call returned something.
func (r *run) gaps() []string {
	if len(r.outcomes) == 0 {
		return []string{"no tool was called, so nothing was looked up in the contract graph"}
	}
	var out []string
	for _, o := range r.outcomes {
		call := o.call.Name + " " + clip(compactArgs(o.call.Arguments), 300)
		switch {
		case o.err != nil:
			out = append(out, fmt.Sprintf("%s failed: %s", call, clip(o.err.Error(), 300)))
		case emptyResult(o.result):
			out = append(out, call+" returned no results")
		default:
			return nil
		}
	}
	if len(out) > maxGaps {
		out = append(out[:maxGaps], fmt.Sprintf("and %d more calls that failed or found nothing", len(out)-maxGaps))
	}
	return out
}

// emptyResult reports whether a tool result holds nothing: a total_count
// of 0, no groups (or only groups counting 0), or, in a result without
// either, empty passage, statute, row or deadline lists. A result of
// another shape (a contract record) is not empty.
func emptyResult(result json.RawMessage) bool {
	var v struct {
		TotalCount  *int `json:"total_count"`
		TotalGroups *int `json:"total_groups"`
		Groups      []struct {
			Count int `json:"count"`
		} `json:"groups"`
		Passages  *[]json.RawMessage `json:"passages"`
		Statutes  *[]json.RawMessage `json:"statutes"`
		Rows      *[]json.RawMessage `json:"rows"`
		Deadlines *[]json.RawMessage `json:"deadlines"`
	}
	if json.Unmarshal(result, &v) != nil {
		return false
	}
	switch {
	case v.TotalCount != nil:
		return *v.TotalCount == 0
	case v.TotalGroups != nil:
		for _, g := range v.Groups {
			if g.Count > 0 {
				return false
			}
		}
		return true
	}
	lists := 0
	for _, l := range []*[]json.RawMessage{v.Passages, v.Statutes, v.Rows, v.Deadlines} {
		if l == nil {
			continue
		}
		if len(*l) > 0 {
			return false
		}
		lists++
	}
	return lists > 0
}

// check runs the sufficiency check after the first pass: when the results
// support no answer it sends the gaps back for one more tool pass, and
// returns the conversation, the answer text and the gaps that remain.
func (r *run) check(ctx context.Context, msgs []llm.Message, text string) ([]llm.Message, string, []string, error) {
	gaps := r.gaps()
	r.emit(Event{Type: EventCheck, Check: &CheckEvent{Sufficient: len(gaps) == 0, Gaps: gaps, Retry: len(gaps) > 0}})
	if len(gaps) == 0 {
		return msgs, text, nil, nil
	}
	prompt, err := render("retry.tmpl", retryData{Question: r.question, Gaps: gaps})
	if err != nil {
		return nil, "", nil, err
	}
	r.log.Info("the tool results support no answer; one more tool pass", "gaps", len(gaps))
	msgs = append(msgs, llm.Message{Role: llm.RoleUser, Content: prompt})
	out, text, err := r.pass(ctx, msgs)
	if err != nil {
		return nil, "", nil, err
	}
	gaps = r.gaps()
	r.emit(Event{Type: EventCheck, Check: &CheckEvent{Sufficient: len(gaps) == 0, Gaps: gaps}})
	return out, text, gaps, nil
}

// allFailed reports whether the run made tool calls and every one failed.
func (r *run) allFailed() bool {
	for _, o := range r.outcomes {
		if o.err == nil {
			return false
		}
	}
	return len(r.outcomes) > 0
}

// failedAnswer is the answer when every tool call failed: what was tried
// and why it failed, and no fact.
func failedAnswer(gaps []string) string {
	var b strings.Builder
	b.WriteString("I could not answer this from the contract graph: every tool call failed, so nothing was looked up.\n")
	for _, g := range gaps {
		b.WriteString("- " + g + "\n")
	}
	b.WriteString("Rephrase the question, or name the filters it needs.\nSources: none")
	return b.String()
}

// missingNote tells the reader that the answer rests on no tool result.
func missingNote(gaps []string) string {
	return "The tool results cannot support an answer: " + strings.Join(gaps, "; ") + "."
}
