package httpapi

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"

	"github.com/contractgraph/contractgraph/internal/calendar"
	"github.com/contractgraph/contractgraph/internal/graph"
	"github.com/contractgraph/contractgraph/internal/tools"
)

// feedWindow is how far ahead /api/deadlines.ics looks by default: a
// calendar subscription wants the year, not deadline_search's 90 days.
const feedWindow = "365d"

// handleDeadlines is deadline_search with query parameters; it answers
// the tool's JSON result.
func (s *Server) handleDeadlines(w http.ResponseWriter, r *http.Request) {
	out, err := s.deadlines(r, "")
	if err != nil {
		s.fail(w, r, err)
		return
	}
	writeRawJSON(w, http.StatusOK, out)
}

// handleDeadlinesICS is deadline_search as an RFC 5545 calendar feed: one
// event per deadline, with a reminder and a stable UID, linking to the
// contract's page. within (e.g. 90d, 6m, 1y; default 365d) sets to when
// it is not given; up to graph.DeadlineLimits.Max deadlines are listed.
func (s *Server) handleDeadlinesICS(w http.ResponseWriter, r *http.Request) {
	out, err := s.deadlines(r, feedWindow)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	var res graph.DeadlineResult
	if err := json.Unmarshal(out, &res); err != nil {
		s.fail(w, r, fmt.Errorf("decode deadline_search result: %w", err))
		return
	}
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	base := scheme + "://" + r.Host
	w.Header().Set("Content-Type", calendar.ContentType)
	w.Header().Set("Content-Disposition", `inline; filename="deadlines.ics"`)
	err = calendar.Write(w, res.Deadlines, calendar.Options{Name: "ContractGraph deadlines", Stamp: s.now(),
		URL: func(id string) string { return base + "/contracts/" + url.PathEscape(id) }})
	if err != nil {
		s.log.Error("write calendar", "err", err)
	}
}

// deadlines calls deadline_search with r's query parameters; within, when
// given (or defaulted by defaultWithin), sets to from from (or as_of, or
// today), and limit defaults to the most a calendar is given.
func (s *Server) deadlines(r *http.Request, defaultWithin string) (json.RawMessage, error) {
	schema, err := toolSchema(s.tools, tools.NameDeadlineSearch)
	if err != nil {
		return nil, err
	}
	q := r.URL.Query()
	raw, err := argsFromQuery(schema, q, "within")
	if err != nil {
		return nil, err
	}
	var args map[string]any
	if err := json.Unmarshal(raw, &args); err != nil {
		return nil, fmt.Errorf("deadlines query: %w", err)
	}
	within := q.Get("within")
	if within == "" {
		within = defaultWithin
	}
	if within != "" && q.Get("to") == "" {
		from := q.Get("from")
		if from == "" {
			from = q.Get("as_of")
		}
		if from == "" {
			from = s.now().Format(graph.DateLayout)
			args["from"] = from
		}
		to, err := tools.WindowEnd(from, within)
		if err != nil {
			return nil, err
		}
		args["to"] = to
	}
	if q.Get("limit") == "" && defaultWithin != "" {
		args["limit"] = graph.DeadlineLimits.Max
	}
	body, err := json.Marshal(args)
	if err != nil {
		return nil, fmt.Errorf("deadlines query: %w", err)
	}
	return s.tools.Call(r.Context(), tools.NameDeadlineSearch, body)
}
