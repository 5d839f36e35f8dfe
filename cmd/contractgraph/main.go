// Command contractgraph turns commercial contracts into a knowledge graph and
// answers questions about them. See README.md for usage.
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := newRootCmd(newApp(os.Stdin, os.Stdout, os.Stderr)).ExecuteContext(ctx)
	stop()
	os.Exit(exitCode(err, os.Stderr))
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

// exitCode is the one place where an error becomes an exit code and a message.
func exitCode(err error, stderr *os.File) int {
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
	if errors.Is(err, context.Canceled) {
		fmt.Fprintln(stderr, "contractgraph: interrupted")
		return 130
	}
	fmt.Fprintf(stderr, "contractgraph: %v\n", err)
	return code
}
