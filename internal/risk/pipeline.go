package risk

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/contractgraph/contractgraph/internal/agent"
	"github.com/contractgraph/contractgraph/internal/contract"
	"github.com/contractgraph/contractgraph/internal/graph"
	"github.com/contractgraph/contractgraph/internal/llm"
	"github.com/contractgraph/contractgraph/internal/retrieve"
	"github.com/contractgraph/contractgraph/internal/textmatch"
	"github.com/contractgraph/contractgraph/internal/tools"
)

// Defaults for Input's bounds.
const (
	DefaultMaxIterations   = 2
	DefaultMaxSteps        = agent.DefaultMaxSteps
	DefaultConcurrency     = 4
	DefaultMaxContextBytes = 48 << 10
	// RuleExcerptChars is how much of the contract the rule generator reads.
	RuleExcerptChars = 5000
)

// ClauseSearcher is what the analyst's clause_search needs from the graph.
type ClauseSearcher interface {
	SearchClauses(ctx context.Context, q graph.ClauseQuery) ([]graph.ClauseHit, error)
}

// Deps are the pipeline's collaborators.
type Deps struct {
	Model llm.Model
	// Clauses serves clause_search for a stored contract (Input.Stored);
	// otherwise the contract's own passages are searched in memory.
	Clauses ClauseSearcher
	// Statutes is the statute knowledge base. Nil (or empty) means no
	// citation can be checked: the report says so and keeps none.
	Statutes graph.StatuteStore
	// Embedder, when set, makes statute_search hybrid (BM25 fused with
	// vector similarity) on a store that keeps statute embeddings.
	Embedder llm.Embedder
	// StatuteExpander and StatuteReranker are statute_search's expansion
	// and rerank stages (tools.StatuteOptions), for the analyst's searches
	// and the batch passages' alike; nil leaves each off.
	StatuteExpander retrieve.Expander
	StatuteReranker retrieve.Reranker
	// Schemas is how the analyst's tools are described to Model: compact
	// for a small local model, as for the agent (cmd resolves
	// --tool-schemas for both).
	Schemas tools.Schemas
	Log     *slog.Logger     // nil: discard
	Now     func() time.Time // nil: time.Now
}

// Input is one review to run.
type Input struct {
	Contract     *contract.Contract // Text is required
	Stored       bool               // the contract is in the store behind Deps.Clauses
	Jurisdiction string             // e.g. us or tw; "" = any
	Batch        bool               // per-passage fan-out without the review loop

	MaxIterations   int // review rounds; 0 = DefaultMaxIterations
	MaxSteps        int // analyst model calls per round (agent.Agent.MaxSteps); 0 = DefaultMaxSteps
	Concurrency     int // batch fan-out; 0 = DefaultConcurrency
	MaxContextBytes int // longer texts are sent as selected passages; 0 = DefaultMaxContextBytes
}

// run is the state of one review.
type run struct {
	deps     Deps
	in       Input
	log      *slog.Logger
	progress func(Progress)
	check    *checker
	statutes *tools.StatuteTools // nil when no statute can be cited
	tools    *reviewTools        // the analyst's
	passages []passage

	mu       sync.Mutex
	usage    llm.Usage
	proposed map[string]bool // citation keys of every draft, for Report.CitationsProposed
}

// Run reviews one contract and returns its report. Model failures, a
// failing statute store and a review that does not converge end with a
// partial report (Partial set, Notices saying why) and a nil error; the
// error is non-nil only for invalid input or a cancelled context (the
// partial report is then returned too). progress, when not nil, is called from the calling
// goroutine and, in batch mode, from worker goroutines one at a time.
func Run(ctx context.Context, deps Deps, in Input, progress func(Progress)) (*Report, error) {
	if deps.Model == nil {
		return nil, fmt.Errorf("risk review: %w", llm.ErrNoModel)
	}
	c := in.Contract
	if c == nil || strings.TrimSpace(c.Text) == "" {
		return nil, errors.New("risk review: the contract has no text")
	}
	in.Jurisdiction = strings.ToLower(strings.TrimSpace(in.Jurisdiction))
	in.MaxIterations = orDefault(in.MaxIterations, DefaultMaxIterations)
	in.MaxSteps = orDefault(in.MaxSteps, DefaultMaxSteps)
	in.Concurrency = orDefault(in.Concurrency, DefaultConcurrency)
	in.MaxContextBytes = orDefault(in.MaxContextBytes, DefaultMaxContextBytes)
	now := time.Now
	if deps.Now != nil {
		now = deps.Now
	}
	r := &run{deps: deps, in: in, log: deps.Log, passages: passagesOf(c)}
	if r.log == nil {
		r.log = slog.New(slog.DiscardHandler)
	}
	r.log = r.log.With("contract", c.ID)
	var pmu sync.Mutex
	r.progress = func(p Progress) {
		if progress != nil {
			pmu.Lock()
			defer pmu.Unlock()
			progress(p)
		}
	}
	rep := &Report{
		ContractID: c.ID, ContractTitle: c.Title, ContractType: c.ContractType, Jurisdiction: in.Jurisdiction,
		Mode: "review", GeneratedAt: now().UTC().Format(time.RFC3339),
		Rules: []Rule{}, Items: []ReportItem{}, ReviewTrail: []ReviewRound{},
		RemovedCitations: []RemovedCitation{}, RemovedItems: []RemovedItem{}, Notices: []string{},
		ContractText: c.Text,
	}
	if in.Batch {
		rep.Mode = "batch"
	}
	err := r.execute(ctx, rep)
	rep.Usage = r.totalUsage()
	rep.CitationsProposed = r.proposedCount()
	r.progress(Progress{Stage: "done", Message: fmt.Sprintf("%d risk items, %d citations removed", len(rep.Items), len(rep.RemovedCitations))})
	if err != nil {
		rep.Partial = true
		rep.Notices = append(rep.Notices, "Partial report: the review was interrupted: "+err.Error())
		return rep, err
	}
	return rep, nil
}

func orDefault(v, def int) int {
	if v <= 0 {
		return def
	}
	return v
}

// execute runs the stages, filling rep. It returns only context errors;
// every other failure becomes a notice on a partial report.
func (r *run) execute(ctx context.Context, rep *Report) error {
	store, notice, err := r.statuteStore(ctx)
	if err != nil {
		return err
	}
	if notice != "" {
		rep.Notices = append(rep.Notices, notice)
	}
	rep.CitationsChecked = store != nil
	r.check = newChecker(r.in.Contract.Text, store)
	if store != nil {
		r.statutes = tools.NewStatuteTools(store, tools.StatuteOptions{
			Embedder: r.deps.Embedder, Expander: r.deps.StatuteExpander, Reranker: r.deps.StatuteReranker,
		})
	}

	r.progress(Progress{Stage: "rules", Message: "generating risk rules"})
	rules, err := r.generateRules(ctx)
	if err != nil {
		if ctxErr(ctx, err) {
			return err
		}
		r.partial(rep, "rule generation failed: %v; no analysis was done", err)
		return nil
	}
	rep.Rules = rules.Rules
	if rep.ContractType == "" {
		rep.ContractType = rules.ContractType
	}

	var items []Item
	if r.in.Batch {
		items, err = r.batch(ctx, rep, rules.Rules)
	} else {
		items, err = r.review(ctx, rep, rules.Rules)
	}
	if err != nil {
		return err
	}

	r.progress(Progress{Stage: "gate", Message: "validating citations and clause quotes"})
	byID := map[string]Rule{}
	for _, ru := range rules.Rules {
		byID[ru.ID] = ru
	}
	dropped := rep.RemovedItems
	rep.Items, rep.RemovedCitations, rep.RemovedItems, err = r.check.gate(ctx, items, byID)
	if err != nil {
		if ctxErr(ctx, err) {
			return err
		}
		// A statute store that fails mid-review cannot vouch for any
		// citation: gate again without it, which removes them all.
		r.partial(rep, "citations could not be validated: %v; all citations were removed", err)
		r.check.statutes = nil
		if rep.Items, rep.RemovedCitations, rep.RemovedItems, err = r.check.gate(ctx, items, byID); err != nil {
			return err
		}
	}
	rep.RemovedItems = append(dropped, rep.RemovedItems...)
	if rep.Items == nil {
		rep.Items = []ReportItem{}
	}
	if rep.RemovedCitations == nil {
		rep.RemovedCitations = []RemovedCitation{}
	}
	if rep.RemovedItems == nil {
		rep.RemovedItems = []RemovedItem{}
	}

	r.progress(Progress{Stage: "summary", Message: "writing the executive summary"})
	sum, err := r.summarise(ctx, rep)
	if err != nil {
		if ctxErr(ctx, err) {
			return err
		}
		r.partial(rep, "the executive summary could not be written: %v", err)
		return nil
	}
	rep.Summary = sum
	return nil
}

// statuteStore returns the statute store to cite from, or nil with a
// notice saying why no citation can be checked.
func (r *run) statuteStore(ctx context.Context) (graph.StatuteStore, string, error) {
	if r.deps.Statutes == nil {
		return nil, "No statute store is configured: no legal citations could be checked, and none are reported.", nil
	}
	n, err := r.deps.Statutes.CountStatutes(ctx, r.in.Jurisdiction)
	if err != nil {
		if ctxErr(ctx, err) {
			return nil, "", err
		}
		return nil, fmt.Sprintf("The statute store could not be read (%v): no legal citations could be checked, and none are reported.", err), nil
	}
	if n == 0 {
		where := ""
		if r.in.Jurisdiction != "" {
			where = " for jurisdiction " + r.in.Jurisdiction
		}
		return nil, "The statute store holds no statutes" + where + ": no legal citations could be checked, and none are reported. Import some with `contractgraph statutes import`.", nil
	}
	return r.deps.Statutes, "", nil
}

// partial marks the report partial with a reason.
func (r *run) partial(rep *Report, format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	r.log.Warn("risk review partial", "reason", msg)
	rep.Partial = true
	rep.Notices = append(rep.Notices, "Partial report: "+msg+".")
}

func ctxErr(ctx context.Context, err error) bool {
	return ctx.Err() != nil && (errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded))
}

func (r *run) addUsage(u llm.Usage) {
	r.mu.Lock()
	r.usage = r.usage.Add(u)
	r.mu.Unlock()
}

// noteProposed records the citations of a draft's items.
func (r *run) noteProposed(items []Item) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.proposed == nil {
		r.proposed = map[string]bool{}
	}
	for _, it := range items {
		for _, c := range it.Citations {
			r.proposed[it.RuleID+"\x00"+textmatch.Fold(it.ClauseQuote)+"\x00"+c.StatuteID+"\x00"+textmatch.Fold(c.Quote)] = true
		}
	}
}

func (r *run) proposedCount() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.proposed)
}

func (r *run) totalUsage() llm.Usage {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.usage
}

// structured asks the model for a T, with one repair round when the reply
// does not fit the schema. Token usage is counted.
func structured[T any](ctx context.Context, r *run, msgs []llm.Message) (T, error) {
	req := &llm.Request{Messages: msgs}
	v, resp, err := llm.GenerateData[T](ctx, r.deps.Model, req)
	if resp != nil {
		r.addUsage(resp.Usage)
	}
	var pe *llm.ParseError
	if errors.As(err, &pe) {
		r.log.Debug("structured reply did not parse; repairing", "err", pe.Err)
		req.Messages = append(append([]llm.Message{}, msgs...), pe.RepairMessages()...)
		v, resp, err = llm.GenerateData[T](ctx, r.deps.Model, req)
		if resp != nil {
			r.addUsage(resp.Usage)
		}
	}
	return v, err
}

// generateRules runs the rule generator on the opening of the contract.
func (r *run) generateRules(ctx context.Context) (RuleSet, error) {
	text := r.in.Contract.Text
	excerpt, truncated := text, false
	if n := 0; len(text) > RuleExcerptChars {
		for i := range text {
			if n == RuleExcerptChars {
				excerpt, truncated = text[:i], true
				break
			}
			n++
		}
	}
	msgs, err := messages(promptRules, rulesPrompt{Jurisdiction: r.in.Jurisdiction, Excerpt: excerpt, Limit: RuleExcerptChars, Truncated: truncated})
	if err != nil {
		return RuleSet{}, err
	}
	rs, err := structured[RuleSet](ctx, r, msgs)
	if err != nil {
		return RuleSet{}, err
	}
	return normaliseRules(rs)
}

// normaliseRules checks the rule set: at least one rule, unique non-empty
// ids, severities High, Medium or Low (case-insensitive).
func normaliseRules(rs RuleSet) (RuleSet, error) {
	if len(rs.Rules) == 0 {
		return rs, errors.New("the rule generator returned no rules")
	}
	seen := map[string]bool{}
	for i := range rs.Rules {
		ru := &rs.Rules[i]
		ru.ID = strings.TrimSpace(ru.ID)
		if ru.ID == "" {
			ru.ID = fmt.Sprintf("R%d", i+1)
		}
		if seen[ru.ID] {
			return rs, fmt.Errorf("the rule generator repeated rule id %q", ru.ID)
		}
		seen[ru.ID] = true
		lv, ok := level(ru.Severity)
		if !ok {
			return rs, fmt.Errorf("rule %s: severity %q is not High, Medium or Low", ru.ID, ru.Severity)
		}
		ru.Severity = lv
	}
	return rs, nil
}

// level canonicalises a risk level.
func level(s string) (string, bool) {
	for _, l := range levels {
		if strings.EqualFold(strings.TrimSpace(s), l) {
			return l, true
		}
	}
	return "", false
}

// summarise writes the executive summary from the validated items.
func (r *run) summarise(ctx context.Context, rep *Report) (*Summary, error) {
	if len(rep.Items) == 0 {
		return &Summary{CoreIssues: []string{}, Conclusion: "No risk item was validated for this contract; see the notices and the review trail for what was checked."}, nil
	}
	msgs, err := messages(promptSummary, summaryPrompt{ContractID: rep.ContractID, ContractType: rep.ContractType, Items: rep.Items})
	if err != nil {
		return nil, err
	}
	s, err := structured[Summary](ctx, r, msgs)
	if err != nil {
		return nil, err
	}
	if s.CoreIssues == nil {
		s.CoreIssues = []string{}
	}
	return &s, nil
}
