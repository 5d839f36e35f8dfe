package httpapi

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/contractgraph/contractgraph/internal/graph"
	"github.com/contractgraph/contractgraph/internal/llm"
	"github.com/contractgraph/contractgraph/internal/risk"
	"github.com/contractgraph/contractgraph/internal/tools"
	"github.com/contractgraph/contractgraph/internal/web"
)

// DefaultRiskTimeout bounds one risk review unless Config.RiskTimeout says
// otherwise: a review makes a dozen or more model calls.
const DefaultRiskTimeout = 20 * time.Minute

// riskRequest is the optional body of POST /api/risk/{id}.
type riskRequest struct {
	Jurisdiction string `json:"jurisdiction"`
	Batch        bool   `json:"batch"`
}

// maxJurisdictionLen bounds a jurisdiction code such as "us" or "tw".
const maxJurisdictionLen = 16

func (r *riskRequest) validate() error {
	j := strings.ToLower(strings.TrimSpace(r.Jurisdiction))
	if len(j) > maxJurisdictionLen || strings.IndexFunc(j, func(c rune) bool { return (c < 'a' || c > 'z') && c != '-' && c != '_' }) >= 0 {
		return &tools.ArgError{Field: "jurisdiction", Msg: fmt.Sprintf("%q is not a jurisdiction code; use e.g. us or tw, or leave it empty for any", r.Jurisdiction), Valid: []string{"us", "tw"}}
	}
	r.Jurisdiction = j
	return nil
}

// Risk stream event names.
const (
	riskEventStage  = "stage"
	riskEventCalls  = "calls"
	riskEventReport = "report"
	riskEventError  = "error"
	riskEventDone   = "done"
)

// Stage statuses of a stage event.
const (
	stageStarted  = "started"
	stageProgress = "progress" // a batch stage reporting another passage
	stageFinished = "finished"
	// stageFailed ends the last stage, "done", of a review that did not
	// complete (stopped, timed out, or partial after a model failure).
	stageFailed = "failed"
)

// riskStageEvent is the data of a stage event: a pipeline stage started,
// moved on (batch passages) or finished, with the model and tool calls
// made so far.
type riskStageEvent struct {
	Stage      string `json:"stage"`
	Status     string `json:"status"`
	Message    string `json:"message,omitempty"`
	Iteration  int    `json:"iteration,omitempty"`
	Done       int    `json:"done,omitempty"`
	Total      int    `json:"total,omitempty"`
	ModelCalls int    `json:"model_calls"`
	ToolCalls  int    `json:"tool_calls"`
	ElapsedMS  int64  `json:"elapsed_ms"`
}

// riskCallsEvent is the data of a calls event, sent after each model reply.
type riskCallsEvent struct {
	ModelCalls int            `json:"model_calls"`
	ToolCalls  int            `json:"tool_calls"`
	Tools      map[string]int `json:"tools"`
	Usage      llm.Usage      `json:"usage"`
}

// riskReportEvent is the data of the report event: the JSON report and
// the same report rendered by the risk package's HTML renderer, with each
// clause linked to its span on the contract page.
type riskReportEvent struct {
	Report *risk.Report `json:"report"`
	HTML   string       `json:"html"`
}

// riskErrorEvent is the data of an error event.
type riskErrorEvent struct {
	Error string `json:"error"`
}

// handleRisk runs the risk review of a stored contract and streams its
// progress as server-sent events: stage and calls events while it runs,
// then report (also for a partial report), error when the review was
// stopped or a stage failed (the report is then partial), and always done
// last. Problems found before the stream starts (no model, unknown
// contract, no text, bad body) are JSON errors. When the client
// disconnects the request context ends, and with it the review.
func (s *Server) handleRisk(w http.ResponseWriter, r *http.Request) {
	req, err := s.decodeRiskRequest(w, r)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	id := r.PathValue("id")
	if strings.TrimSpace(id) == "" {
		s.fail(w, r, &tools.ArgError{Field: "id", Msg: "missing contract id"})
		return
	}
	c, err := s.store.GetContract(r.Context(), id)
	switch {
	case errors.Is(err, graph.ErrNotFound):
		s.fail(w, r, fmt.Errorf("contract %q: %w", id, graph.ErrNotFound))
		return
	case err != nil:
		s.fail(w, r, fmt.Errorf("get contract %q: %w", id, err))
		return
	case strings.TrimSpace(c.Text) == "":
		writeError(w, http.StatusUnprocessableEntity, &apiError{Code: codeNoText,
			Message: fmt.Sprintf("contract %q has no stored text to review; upload or import its document", id)})
		return
	}
	// The model is checked last, so that an unknown contract is a 404 and
	// a contract without text a 422 whether or not a model is configured.
	if s.risk == nil || s.risk.Model == nil {
		s.fail(w, r, llm.ErrNoModel)
		return
	}

	ctx, cancel := s.streamContext(r, s.riskTimeout)
	defer cancel()
	sse := startSSE(w)
	stopKeepAlive := make(chan struct{})
	defer close(stopKeepAlive)
	go sse.keepAlive(keepAliveEvery, stopKeepAlive)

	st := &riskStream{sse: sse, start: time.Now(), tools: map[string]int{}}
	deps := *s.risk
	deps.Model = &countingModel{Model: deps.Model, onReply: st.reply}
	if deps.Clauses == nil {
		deps.Clauses = s.store
	}
	if deps.Log == nil {
		deps.Log = s.log
	}
	if deps.Statutes == nil {
		if ss, ok := s.store.(graph.StatuteStore); ok {
			deps.Statutes = ss
		}
	}
	in := risk.Input{Contract: c, Stored: true, Jurisdiction: req.Jurisdiction, Batch: req.Batch}
	rep, err := risk.Run(ctx, deps, in, st.progress)
	if r.Context().Err() != nil {
		s.log.InfoContext(r.Context(), "risk review cancelled: the client went away", "contract", c.ID)
		return
	}
	// The last stage says whether the review completed: a partial report
	// is not "done".
	st.finish(err != nil || (rep != nil && rep.Partial))
	if rep != nil {
		s.log.InfoContext(r.Context(), "risk review", "contract", c.ID, "mode", rep.Mode, "items", len(rep.Items),
			"removed_citations", len(rep.RemovedCitations), "partial", rep.Partial, "model_calls", st.calls(), "elapsed", time.Since(st.start))
		var html bytes.Buffer
		base := web.ContractURL(c.ID)
		herr := risk.WriteHTMLWith(&html, rep, risk.HTMLOptions{SpanURL: func(start, end int) string {
			return fmt.Sprintf("%s?span=%d-%d#cited", base, start, end)
		}})
		if herr != nil {
			s.log.ErrorContext(r.Context(), "render risk report", "contract", c.ID, "err", herr)
			html.Reset()
		}
		_ = sse.Send(riskEventReport, riskReportEvent{Report: rep, HTML: html.String()})
	}
	switch {
	case err != nil:
		_ = sse.Send(riskEventError, riskErrorEvent{Error: s.riskErrorMessage(r, err)})
	case rep.Partial:
		// Model failures end a stage early without an error; the report
		// says why, and so does the stream.
		_ = sse.Send(riskEventError, riskErrorEvent{Error: partialReasons(rep)})
	}
	_ = sse.Send(riskEventDone, struct{}{})
}

// codeNoText is the error code of a contract that has no text to review.
const codeNoText = "no_text"

// decodeRiskRequest reads the optional body: none (or only white space)
// means the defaults.
func (s *Server) decodeRiskRequest(w http.ResponseWriter, r *http.Request) (riskRequest, error) {
	var req riskRequest
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, s.maxBody))
	if err != nil {
		return req, err
	}
	if len(bytes.TrimSpace(body)) > 0 {
		r.Body = io.NopCloser(bytes.NewReader(body))
		if err := s.decodeJSON(w, r, &req); err != nil {
			return req, err
		}
	}
	return req, req.validate()
}

// riskErrorMessage is the error event's text for a review that ended with
// an error (risk.Run returns one only for bad input or a stopped context).
func (s *Server) riskErrorMessage(r *http.Request, err error) string {
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		return fmt.Sprintf("the review took longer than %s and was stopped; the report is partial", s.riskTimeout)
	case errors.Is(err, context.Canceled):
		return "the review was cancelled; the report is partial"
	}
	return s.askErrorMessage(r, err)
}

// partialReasons is why a report is partial, from its notices.
func partialReasons(rep *risk.Report) string {
	var reasons []string
	for _, n := range rep.Notices {
		if r, ok := strings.CutPrefix(n, "Partial report: "); ok {
			reasons = append(reasons, r)
		}
	}
	if len(reasons) == 0 {
		return "the review did not complete; the report is partial"
	}
	return "the review did not complete, the report is partial: " + strings.Join(reasons, " ")
}

// riskStream turns pipeline progress and model replies into events. The
// pipeline calls progress one at a time, but model replies arrive from
// batch workers concurrently, hence the mutex.
type riskStream struct {
	sse   *sseWriter
	start time.Time

	mu         sync.Mutex
	current    *risk.Progress // the stage in progress, nil before the first
	done       *risk.Progress // the pipeline's "done" step, sent by finish
	modelCalls int
	toolCalls  int
	tools      map[string]int
	usage      llm.Usage
}

// progress reports a pipeline step: the previous stage finishes when
// another (or another review round) starts; the pipeline's last step,
// "done", finishes the last stage and then itself.
func (st *riskStream) progress(p risk.Progress) {
	st.mu.Lock()
	defer st.mu.Unlock()
	if cur := st.current; cur != nil && cur.Stage == p.Stage && cur.Iteration == p.Iteration && p.Stage != "done" {
		st.sendStage(p, stageProgress)
		st.current = &p
		return
	}
	if cur := st.current; cur != nil {
		st.sendStage(*cur, stageFinished)
	}
	if p.Stage == "done" {
		st.done = &p
		st.current = nil
		return
	}
	st.sendStage(p, stageStarted)
	st.current = &p
}

// finish sends the "done" stage once the review has returned: finished,
// or failed when it did not complete.
func (st *riskStream) finish(failed bool) {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.done == nil {
		return
	}
	status := stageFinished
	if failed {
		status = stageFailed
	}
	st.sendStage(*st.done, status)
	st.done = nil
}

func (st *riskStream) sendStage(p risk.Progress, status string) {
	ev := riskStageEvent{
		Stage: p.Stage, Status: status, Message: p.Message, Iteration: p.Iteration, Done: p.Done, Total: p.Total,
		ModelCalls: st.modelCalls, ToolCalls: st.toolCalls, ElapsedMS: time.Since(st.start).Milliseconds(),
	}
	if status != stageStarted && status != stageProgress && p.Stage != "done" {
		ev.Message = "" // the started event said what the stage does
	}
	// A failed write means the client is gone; the server then cancels
	// the request context, which stops the review.
	_ = st.sse.Send(riskEventStage, ev)
}

// calls is the number of model calls so far.
func (st *riskStream) calls() int {
	st.mu.Lock()
	defer st.mu.Unlock()
	return st.modelCalls
}

// reply counts one model reply and reports the totals.
func (st *riskStream) reply(resp *llm.Response) {
	st.mu.Lock()
	defer st.mu.Unlock()
	st.modelCalls++
	st.usage = st.usage.Add(resp.Usage)
	for _, tc := range resp.Message.ToolCalls {
		st.toolCalls++
		st.tools[tc.Name]++
	}
	_ = st.sse.Send(riskEventCalls, riskCallsEvent{ModelCalls: st.modelCalls, ToolCalls: st.toolCalls, Tools: st.tools, Usage: st.usage})
}

// countingModel passes calls to Model and reports each successful reply.
type countingModel struct {
	llm.Model
	onReply func(*llm.Response)
}

// Generate implements llm.Model.
func (m *countingModel) Generate(ctx context.Context, req *llm.Request) (*llm.Response, error) {
	resp, err := m.Model.Generate(ctx, req)
	if err == nil && resp != nil {
		m.onReply(resp)
	}
	return resp, err
}

// riskJurisdictions are the risk page's jurisdiction choices: the statute
// books `contractgraph statutes import` reads.
var riskJurisdictions = []web.Option{
	{Value: "", Label: "Any imported statutes"},
	{Value: "us", Label: "United States (U.S. Code)"},
	{Value: "tw", Label: "Taiwan (Civil Code)"},
}

func (s *Server) pageRisk(w http.ResponseWriter, r *http.Request) {
	c, err := s.getContract(r.Context(), r.PathValue("id"))
	if err != nil {
		s.pageFail(w, r, err)
		return
	}
	title := titleOr(c.Title, c.ID)
	s.render(w, r, http.StatusOK, web.PageRisk, web.RiskPage{
		Base:            web.Base{Title: "Risk review of " + title, Nav: "contracts"},
		ID:              c.ID,
		ContractTitle:   title,
		HasText:         strings.TrimSpace(c.Text) != "",
		APIURL:          "/api/risk/" + url.PathEscape(c.ID),
		ModelConfigured: s.risk != nil && s.risk.Model != nil,
		ModelName:       s.modelName,
		Jurisdictions:   riskJurisdictions,
	})
}
