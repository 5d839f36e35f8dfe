package playbook

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"text/template"

	"github.com/contractgraph/contractgraph/internal/llm"
	"github.com/contractgraph/contractgraph/internal/textmatch"
)

// Judgement is a model's short judgement of a deviation, its quotes
// checked: every clause quote occurs in the clause, every playbook quote
// in the entry's texts.
type Judgement struct {
	Assessment     string  `json:"assessment"`
	Recommendation string  `json:"recommendation,omitempty"`
	ClauseQuotes   []Quote `json:"clause_quotes"`
	PlaybookQuotes []Quote `json:"playbook_quotes"`
}

// Quote is a quote that was found: Start and End are byte offsets into
// the clause text (clause quotes) or the entry's playbook text.
type Quote struct {
	Text  string `json:"text"`
	Start int    `json:"start"`
	End   int    `json:"end"`
}

// Quote sources.
const (
	SourceClause   = "clause"
	SourcePlaybook = "playbook"
)

// RemovedQuote is a judgement quote that does not occur where it claims
// to, taken out of the judgement.
type RemovedQuote struct {
	EntryID string `json:"entry_id"`
	Source  string `json:"source"` // clause or playbook
	Quote   string `json:"quote"`
	Reason  string `json:"reason"`
}

// Reasons a quote is removed.
const (
	reasonNotInClause   = "quote does not occur in the contract's clause"
	reasonNotInPlaybook = "quote does not occur in the playbook entry"
	reasonTooShort      = "quote is too short to locate"
)

// modelJudgement is what the model is asked for.
type modelJudgement struct {
	Assessment     string   `json:"assessment" jsonschema:"Two or three sentences: how the clause departs from the playbook position and what that means for the team."`
	ClauseQuotes   []string `json:"clause_quotes" jsonschema:"Verbatim words copied from the clause that show the departure; each at least three words."`
	PlaybookQuotes []string `json:"playbook_quotes" jsonschema:"Verbatim words copied from the playbook entry (standard, fallbacks or red flags) that the clause departs from."`
	Recommendation string   `json:"recommendation" jsonschema:"What to ask for in negotiation, in one sentence."`
}

// JudgeDeps is what Judge runs with.
type JudgeDeps struct {
	Model llm.Model
	// ModelName names the model in the report, e.g. openai:gpt-4o-mini.
	ModelName string
	Log       *slog.Logger
	// Progress, when set, is called before each judgement with how many
	// are done, how many there are and the entry about to be judged.
	Progress func(done, total int, entryID string)
}

// Judged reports whether a result gets a model's judgement: a deviation,
// or a red flag on a clause the contract has (a missing clause has nothing
// to quote).
func Judged(r *Result) bool {
	return r.Clause != nil && (r.Verdict == Deviation || r.Verdict == RedFlagged && r.Status == Present)
}

// Judge asks the model for a short judgement of every result Judged
// selects, one call each, and checks its quotes the way the risk review
// checks its clause quotes: a quote that does not occur in the clause (or,
// for a playbook quote, in the entry's texts) is removed and listed in
// RemovedQuotes. A failed call leaves that result without a judgement and
// makes the report partial, with a notice; the other results carry on.
// Only a cancelled ctx stops it, with ctx's error.
func Judge(ctx context.Context, deps JudgeDeps, pb *Playbook, rep *Report) error {
	log := deps.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	rep.Judged, rep.Model = true, deps.ModelName
	entries := map[string]*Entry{}
	for i := range pb.Entries {
		entries[pb.Entries[i].ID] = &pb.Entries[i]
	}
	total := 0
	for i := range rep.Results {
		if Judged(&rep.Results[i]) && entries[rep.Results[i].EntryID] != nil {
			total++
		}
	}
	done := 0
	for i := range rep.Results {
		r := &rep.Results[i]
		e := entries[r.EntryID]
		if !Judged(r) || e == nil {
			continue
		}
		if deps.Progress != nil {
			deps.Progress(done, total, r.EntryID)
		}
		done++
		msgs, err := judgeMessages(e, r)
		if err != nil {
			return err
		}
		mj, usage, err := generate(ctx, deps.Model, msgs)
		rep.Usage = rep.Usage.Add(usage)
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			log.Warn("playbook judgement failed", "entry", r.EntryID, "err", err)
			rep.Partial = true
			rep.Notices = append(rep.Notices, fmt.Sprintf("No judgement for %s: %v", r.EntryID, err))
			continue
		}
		j, removed := verify(e, r, mj)
		r.Judgement = j
		rep.RemovedQuotes = append(rep.RemovedQuotes, removed...)
	}
	return nil
}

// generate asks for a judgement, with one repair round when the reply
// does not fit the schema.
func generate(ctx context.Context, m llm.Model, msgs []llm.Message) (modelJudgement, llm.Usage, error) {
	var usage llm.Usage
	req := &llm.Request{Messages: msgs}
	v, resp, err := llm.GenerateData[modelJudgement](ctx, m, req)
	if resp != nil {
		usage = usage.Add(resp.Usage)
	}
	var pe *llm.ParseError
	if errors.As(err, &pe) {
		req.Messages = append(append([]llm.Message{}, msgs...), pe.RepairMessages()...)
		v, resp, err = llm.GenerateData[modelJudgement](ctx, m, req)
		if resp != nil {
			usage = usage.Add(resp.Usage)
		}
	}
	return v, usage, err
}

// playbookText is the entry's text a playbook quote must come from.
func playbookText(e *Entry) string {
	parts := []string{e.Standard.Text}
	for _, f := range e.Fallbacks {
		parts = append(parts, f.Text)
	}
	for _, rf := range e.RedFlags {
		parts = append(parts, rf.Description, rf.Text)
	}
	parts = append(parts, e.Guidance)
	return strings.Join(parts, "\n\n")
}

// verify keeps the judgement's quotes found in their sources and lists
// the others.
func verify(e *Entry, r *Result, mj modelJudgement) (*Judgement, []RemovedQuote) {
	j := &Judgement{Assessment: strings.TrimSpace(mj.Assessment), Recommendation: strings.TrimSpace(mj.Recommendation),
		ClauseQuotes: []Quote{}, PlaybookQuotes: []Quote{}}
	var removed []RemovedQuote
	check := func(src string, text *textmatch.Text, quotes []string, missing string) []Quote {
		var kept []Quote
		seen := map[string]bool{}
		for _, q := range quotes {
			q = strings.TrimSpace(q)
			if q == "" || seen[q] {
				continue
			}
			seen[q] = true
			if textmatch.QuoteTooShort(q) {
				removed = append(removed, RemovedQuote{EntryID: r.EntryID, Source: src, Quote: q, Reason: reasonTooShort})
				continue
			}
			s, ok := text.Find(q)
			if !ok {
				removed = append(removed, RemovedQuote{EntryID: r.EntryID, Source: src, Quote: q, Reason: missing})
				continue
			}
			kept = append(kept, Quote{Text: q, Start: s.Start, End: s.End})
		}
		if kept == nil {
			kept = []Quote{}
		}
		return kept
	}
	j.ClauseQuotes = check(SourceClause, textmatch.New(r.Clause.Text), mj.ClauseQuotes, reasonNotInClause)
	j.PlaybookQuotes = check(SourcePlaybook, textmatch.New(playbookText(e)), mj.PlaybookQuotes, reasonNotInPlaybook)
	return j, removed
}

//go:embed prompts/judge.tmpl
var promptFS embed.FS

// judgePrompt is parsed once; it is fixed at build time.
var judgePrompt = template.Must(template.New("judge.tmpl").ParseFS(promptFS, "prompts/judge.tmpl"))

// judgeData is the prompt's template data.
type judgeData struct {
	E *Entry
	R *Result
}

// judgeMessages renders the system and user prompts for one result.
func judgeMessages(e *Entry, r *Result) ([]llm.Message, error) {
	var sys, user strings.Builder
	d := judgeData{E: e, R: r}
	if err := judgePrompt.ExecuteTemplate(&sys, "system", d); err != nil {
		return nil, fmt.Errorf("judge prompt: %w", err)
	}
	if err := judgePrompt.ExecuteTemplate(&user, "user", d); err != nil {
		return nil, fmt.Errorf("judge prompt: %w", err)
	}
	return []llm.Message{
		{Role: llm.RoleSystem, Content: strings.TrimSpace(sys.String())},
		{Role: llm.RoleUser, Content: strings.TrimSpace(user.String())},
	}, nil
}
