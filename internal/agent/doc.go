// Package agent runs the contract question-answering loop: the model answers
// or calls the typed tools, tool results (or errors) go back to it, for at
// most MaxSteps rounds, and the final answer cites only contracts the tools
// returned. It emits typed events for the CLI, the HTTP API and the web app.
package agent
