package httpapi

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"strconv"
	"strings"

	"github.com/contractgraph/contractgraph/internal/graph"
	"github.com/contractgraph/contractgraph/internal/llm"
	"github.com/contractgraph/contractgraph/internal/tools"
)

// Error is the body of every error response, and of the CLI's errors
// under --json: {"error":{"code":"invalid_argument","message":"…","field":"…"}}.
// Code is stable and meant for programs; Message is for people; Field names
// the offending argument or parameter when there is one; Valid lists the
// values it takes when they are a closed set.
type Error struct {
	Code    string   `json:"code"`
	Message string   `json:"message"`
	Field   string   `json:"field,omitempty"`
	Valid   []string `json:"valid,omitempty"`
}

// ErrorBody wraps an Error as the response body: {"error":{…}}.
type ErrorBody struct {
	Error *Error `json:"error"`
}

type (
	apiError  = Error
	errorBody = ErrorBody
)

// Error codes.
const (
	codeInvalidArgument = "invalid_argument"
	codeNotFound        = "not_found"
	codeUnknownTool     = "unknown_tool"
	codeTooLarge        = "too_large"
	codeUnauthorized    = "unauthorized"
	codeForbidden       = "forbidden"
	codeNoModel         = "no_model"
	codeNoIngest        = "ingest_unavailable"
	codeUnavailable     = "unavailable"
	codeBusy            = "busy"
	codeTimeout         = "timeout"
	codeInternal        = "internal"
)

// errorFor is the one place where an error becomes an HTTP status and a
// safe message. Internal errors are logged and answered with a generic
// message so that no storage detail leaks.
func (s *Server) errorFor(r *http.Request, err error) (int, *apiError) {
	if status, e, ok := Classify(err); ok {
		return status, e
	}
	s.log.ErrorContext(r.Context(), "request failed", slog.String("method", r.Method), slog.String("path", r.URL.Path), slog.Any("err", err))
	return http.StatusInternalServerError, &apiError{Code: codeInternal, Message: "internal error; the server log has the details"}
}

// Codes other edges use: CodeInternal for an error that is nobody's
// mistake but ours, CodeInvalidArgument for the caller's.
const (
	CodeInternal        = codeInternal
	CodeInvalidArgument = codeInvalidArgument
)

// Classify says how the API reports err: its HTTP status and error body.
// ok is false for an internal error, which the server logs and answers
// with a generic message (CodeInternal); the CLI, whose user is the one
// who met it, shows such an error's own message in the same shape.
func Classify(err error) (status int, e *Error, ok bool) {
	var argErr *tools.ArgError
	var queryErr *graph.ArgError
	var tooBig *http.MaxBytesError
	switch {
	case errors.As(err, &argErr):
		return http.StatusBadRequest, &apiError{Code: codeInvalidArgument, Message: argErr.Error(), Field: argErr.Field, Valid: argErr.Valid}, true
	case errors.As(err, &queryErr):
		return http.StatusBadRequest, &apiError{Code: codeInvalidArgument, Message: queryErr.Error(), Field: queryErr.Field, Valid: queryErr.Valid}, true
	case errors.Is(err, graph.ErrInvalidQuery):
		// A store refused the query: the caller's mistake, said in the
		// store's words (which name the argument, never storage detail).
		return http.StatusBadRequest, &apiError{Code: codeInvalidArgument, Message: err.Error()}, true
	case errors.Is(err, tools.ErrUnknownTool):
		return http.StatusNotFound, &apiError{Code: codeUnknownTool, Message: err.Error()}, true
	case errors.Is(err, graph.ErrNotFound):
		return http.StatusNotFound, &apiError{Code: codeNotFound, Message: notFoundMessage(err)}, true
	case errors.As(err, &tooBig):
		return http.StatusRequestEntityTooLarge, &apiError{Code: codeTooLarge, Message: "the request body is larger than the limit of " + byteSize(tooBig.Limit)}, true
	case errors.Is(err, llm.ErrNoModel):
		return http.StatusServiceUnavailable, &apiError{Code: codeNoModel, Message: noModelMessage}, true
	case errors.Is(err, context.DeadlineExceeded):
		return http.StatusGatewayTimeout, &apiError{Code: codeTimeout, Message: "the request took too long"}, true
	case errors.Is(err, context.Canceled):
		// The client went away; the status is only for the log.
		return 499, &apiError{Code: "cancelled", Message: "the request was cancelled"}, true
	}
	return http.StatusInternalServerError, nil, false
}

// notFoundMessage keeps the part of a not-found error that names what was
// missing (e.g. `get_contract: contract "x": not found`).
func notFoundMessage(err error) string {
	msg := err.Error()
	if i := strings.Index(msg, "contract "); i >= 0 {
		return msg[i:]
	}
	return msg
}

const noModelMessage = "no chat model is configured: start the server with --model provider:model " +
	"(or set CONTRACTGRAPH_MODEL), e.g. --model ollama:qwen2.5:7b or --model openai:gpt-4o-mini"

// fail writes the error response for err.
func (s *Server) fail(w http.ResponseWriter, r *http.Request, err error) {
	status, body := s.errorFor(r, err)
	writeError(w, status, body)
}

func writeError(w http.ResponseWriter, status int, e *apiError) {
	writeJSON(w, status, errorBody{Error: e})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		status = http.StatusInternalServerError
		b = []byte(`{"error":{"code":"internal","message":"could not encode the response"}}`)
	}
	writeRawJSON(w, status, b)
}

func writeRawJSON(w http.ResponseWriter, status int, b []byte) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	w.Write(b)
	w.Write([]byte("\n"))
}

// byteSize formats a limit for messages: 1048576 → "1 MiB".
func byteSize(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return itoa(n>>20) + " MiB"
	case n >= 1<<10 && n%(1<<10) == 0:
		return itoa(n>>10) + " KiB"
	}
	return itoa(n) + " bytes"
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }
