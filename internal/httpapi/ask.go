package httpapi

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/contractgraph/contractgraph/internal/agent"
	"github.com/contractgraph/contractgraph/internal/jsonmsg"
	"github.com/contractgraph/contractgraph/internal/llm"
	"github.com/contractgraph/contractgraph/internal/tools"
)

// askRequest is the body of POST /api/ask. History is the conversation so
// far, oldest first: alternating user questions and assistant answers.
// Rewrite, Critic and Check switch the agent's practices for this
// question; unset, the server's defaults (Config.AskOptions) apply.
type askRequest struct {
	Question string       `json:"question"`
	History  []askMessage `json:"history"`
	Rewrite  *bool        `json:"rewrite"`
	Critic   *bool        `json:"critic"`
	Check    *bool        `json:"check"`
}

// options are the practices of this request over the server's defaults.
func (r *askRequest) options(defaults agent.Options) agent.Options {
	o := defaults
	for _, f := range []struct {
		set *bool
		to  *bool
	}{{r.Rewrite, &o.Rewrite}, {r.Critic, &o.Critic}, {r.Check, &o.Check}} {
		if f.set != nil {
			*f.to = *f.set
		}
	}
	return o
}

type askMessage struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

// Limits of an ask request.
const (
	maxQuestionBytes = 8 << 10
	maxHistory       = 40
	maxHistoryBytes  = 256 << 10
	keepAliveEvery   = 15 * time.Second
)

func (r *askRequest) validate() ([]llm.Message, error) {
	r.Question = strings.TrimSpace(r.Question)
	switch {
	case r.Question == "":
		return nil, &tools.ArgError{Field: "question", Msg: "missing: ask a question"}
	case len(r.Question) > maxQuestionBytes:
		return nil, &tools.ArgError{Field: "question", Msg: fmt.Sprintf("longer than %d bytes", maxQuestionBytes)}
	case !utf8.ValidString(r.Question):
		return nil, &tools.ArgError{Field: "question", Msg: "not valid UTF-8"}
	case len(r.History) > maxHistory:
		return nil, &tools.ArgError{Field: "history", Msg: fmt.Sprintf("%d messages, more than the limit of %d; start a new conversation", len(r.History), maxHistory)}
	}
	history := make([]llm.Message, 0, len(r.History))
	total := 0
	for i, m := range r.History {
		field := fmt.Sprintf("history[%d]", i)
		role := llm.Role(m.Role)
		if role != llm.RoleUser && role != llm.RoleAssistant {
			return nil, &tools.ArgError{Field: field + ".role", Msg: fmt.Sprintf("unknown role %q", m.Role), Valid: []string{string(llm.RoleUser), string(llm.RoleAssistant)}}
		}
		if strings.TrimSpace(m.Content) == "" {
			return nil, &tools.ArgError{Field: field + ".content", Msg: "empty"}
		}
		total += len(m.Content)
		if total > maxHistoryBytes {
			return nil, &tools.ArgError{Field: "history", Msg: fmt.Sprintf("longer than %d bytes in total; start a new conversation", maxHistoryBytes)}
		}
		history = append(history, llm.Message{Role: role, Content: m.Content})
	}
	return history, nil
}

// handleAsk runs the agent and streams its events as server-sent events:
// the event name is the event type and the data the JSON of agent.Event.
// The stream always ends with a done event; a failure before it is an error
// event. When the client disconnects, the request context is cancelled and
// with it the model call and any tool call in flight.
func (s *Server) handleAsk(w http.ResponseWriter, r *http.Request) {
	if s.agent == nil {
		s.fail(w, r, llm.ErrNoModel)
		return
	}
	var req askRequest
	if err := s.decodeJSON(w, r, &req); err != nil {
		s.fail(w, r, err)
		return
	}
	history, err := req.validate()
	if err != nil {
		s.fail(w, r, err)
		return
	}

	ctx, cancel := s.streamContext(r, s.askTimeout)
	defer cancel()

	sse := startSSE(w)
	stopKeepAlive := make(chan struct{})
	defer close(stopKeepAlive)
	go sse.keepAlive(keepAliveEvery, stopKeepAlive)

	// The agent ends a run with error (or answer) and done. The error
	// event is held back and replaced by one built from the returned error,
	// which explainError can turn into advice (which server, which variable).
	var mu sync.Mutex
	var agentError *agent.Event
	emit := func(ev agent.Event) {
		mu.Lock()
		defer mu.Unlock()
		switch ev.Type {
		case agent.EventError:
			agentError = &ev
			return
		case agent.EventDone:
			return
		}
		// A failed write means the client is gone; the server then cancels
		// ctx, which stops the run.
		_ = sse.Send(string(ev.Type), ev)
	}
	_, err = s.agent.RunWith(ctx, history, req.Question, req.options(s.askOptions), emit)
	mu.Lock()
	defer mu.Unlock()
	switch {
	case err != nil:
		_ = sse.Send(string(agent.EventError), agent.Event{Type: agent.EventError, Error: s.askErrorMessage(r, err)})
	case agentError != nil:
		_ = sse.Send(string(agent.EventError), agentError)
	}
	_ = sse.Send(string(agent.EventDone), agent.Event{Type: agent.EventDone})
}

// askErrorMessage is the error event's text for a failed run.
func (s *Server) askErrorMessage(r *http.Request, err error) string {
	if s.explainError != nil && ctxErr(err) == nil {
		if explained := s.explainError(err); explained != err {
			return explained.Error()
		}
	}
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		return fmt.Sprintf("the answer took longer than %s and was stopped", s.askTimeout)
	case errors.Is(err, context.Canceled):
		return "the question was cancelled"
	case errors.Is(err, llm.ErrRateLimited):
		return "the model provider is rate limiting requests; try again in a minute"
	case errors.Is(err, llm.ErrAuth):
		return "the model provider rejected the credentials; check the API key variable"
	case errors.Is(err, llm.ErrUnavailable):
		return "the model is unavailable; check that its server is running"
	}
	_, body := s.errorFor(r, err)
	if body.Code == codeInternal {
		// The agent's own errors (such as reaching the step limit) are
		// meant for people and carry no storage details.
		return err.Error()
	}
	return body.Message
}

// decodeJSON decodes a bounded JSON request body strictly into v.
func (s *Server) decodeJSON(w http.ResponseWriter, r *http.Request, v any) error {
	if ct := r.Header.Get("Content-Type"); ct != "" && !strings.HasPrefix(ct, "application/json") {
		return &tools.ArgError{Msg: fmt.Sprintf("Content-Type %q: send application/json", ct)}
	}
	body := http.MaxBytesReader(w, r.Body, s.maxBody)
	dec := json.NewDecoder(body)
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			return err
		}
		if errors.Is(err, io.EOF) {
			return &tools.ArgError{Msg: "empty request body: send a JSON object"}
		}
		if field, msg, ok := jsonmsg.Describe(err); ok {
			return &tools.ArgError{Field: field, Msg: msg}
		}
		return &tools.ArgError{Msg: "invalid JSON body: " + err.Error()}
	}
	if _, err := dec.Token(); err != io.EOF {
		return &tools.ArgError{Msg: "unexpected data after the JSON body"}
	}
	return nil
}

// ctxErr returns err's context error, if it is one.
func ctxErr(err error) error {
	switch {
	case errors.Is(err, context.Canceled):
		return context.Canceled
	case errors.Is(err, context.DeadlineExceeded):
		return context.DeadlineExceeded
	}
	return nil
}
