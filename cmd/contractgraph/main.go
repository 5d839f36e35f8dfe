// Command contractgraph turns commercial contracts into a knowledge graph and
// answers questions about them. See README.md for usage.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/contractgraph/contractgraph/internal/graph"
	"github.com/contractgraph/contractgraph/internal/httpapi"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	a := newApp(os.Stdin, os.Stdout, os.Stderr)
	err := a.execute(ctx, newRootCmd(a))
	stop()
	os.Exit(a.exitCode(err, os.Stderr))
}

// exitError carries a specific exit code; its message (if any) is printed.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string {
	if e.err == nil {
		return fmt.Sprintf("exit status %d", e.code)
	}
	return e.err.Error()
}

func (e *exitError) Unwrap() error { return e.err }

// usageError marks an error as the caller's fault (exit code 2).
func usageError(err error) error { return &exitError{code: 2, err: err} }

// silentExit ends the command with code without printing anything more: the
// command has already reported what went wrong.
func silentExit(code int) error { return &exitError{code: code} }

// exitCode is the one place where an error becomes an exit code and a
// message on stderr: plain text, or under --json the API's error body
// ({"error":{"code","message","field","valid"}}, see httpapi.Classify).
func (a *app) exitCode(err error, stderr io.Writer) int {
	if err == nil {
		return 0
	}
	code := 1
	var ee *exitError
	if errors.As(err, &ee) {
		code = ee.code
		if ee.err == nil {
			return code
		}
	}
	msg := err.Error()
	switch {
	case errors.Is(err, context.Canceled):
		code, msg = 130, "interrupted"
	case ee == nil && errors.Is(err, graph.ErrInvalidQuery):
		code = 2 // a query the store refused is the caller's mistake
	}
	if !a.cfg.JSON {
		fmt.Fprintf(stderr, "%s %s\n", a.style(stderr).errorPrefix(), msg)
		return code
	}
	body := httpapi.Error{Code: httpapi.CodeInternal, Message: msg}
	if _, e, ok := httpapi.Classify(err); ok {
		body.Code, body.Field, body.Valid = e.Code, e.Field, e.Valid
	} else if code == 2 {
		body.Code = httpapi.CodeInvalidArgument
	}
	b, jerr := json.Marshal(httpapi.ErrorBody{Error: &body})
	if jerr != nil {
		b = []byte(`{"error":{"code":"internal","message":"could not encode the error"}}`)
	}
	fmt.Fprintf(stderr, "%s\n", b)
	return code
}
