package main

import (
	"io"
	"os"

	"golang.org/x/term"

	"github.com/contractgraph/contractgraph/internal/tools"
)

// Output conventions, the same for every command:
//
//   - Readable text by default, wherever stdout goes: a pipe or a file
//     gets the same text as a terminal, without colour and without
//     shortening table cells to the terminal's width. Programs ask for
//     --json, which prints the command's JSON (for `tools call`, exactly
//     the tool's result, as the API and MCP return it).
//   - Colour only on a terminal, and never when NO_COLOR is set (to
//     anything but "") or TERM is "dumb".
//   - Errors go to stderr: "contractgraph: message", or under --json the
//     API's error body, {"error":{"code","message","field","valid"}}.

// isTerminal reports whether w is a terminal and, when it is, its width in
// columns (0 when unknown). Tests replace app.terminal to act as one.
func isTerminal(w io.Writer) (ok bool, width int) {
	f, isFile := w.(*os.File)
	if !isFile || !term.IsTerminal(int(f.Fd())) {
		return false, 0
	}
	if cols, _, err := term.GetSize(int(f.Fd())); err == nil {
		width = cols
	}
	return true, width
}

// colorOn reports whether output to w may use colour.
func (a *app) colorOn(w io.Writer) bool {
	if ok, _ := a.terminal(w); !ok {
		return false
	}
	return os.Getenv("NO_COLOR") == "" && os.Getenv("TERM") != "dumb"
}

// textOptions lays tool results out for w: fitted to a terminal's width,
// coloured where colorOn allows.
func (a *app) textOptions(w io.Writer) tools.TextOptions {
	ok, width := a.terminal(w)
	if !ok {
		return tools.TextOptions{}
	}
	if width <= 0 {
		width = 80
	}
	return tools.TextOptions{Width: width, Color: a.colorOn(w)}
}

// cliStyle colours the CLI's own messages.
type cliStyle struct{ color bool }

func (a *app) style(w io.Writer) cliStyle { return cliStyle{color: a.colorOn(w)} }

// errorPrefix starts an error message: "contractgraph:", red on a terminal.
func (s cliStyle) errorPrefix() string {
	if s.color {
		return "\x1b[31mcontractgraph:\x1b[0m"
	}
	return "contractgraph:"
}
