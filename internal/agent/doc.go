// Package agent runs the contract question-answering loop: the model answers
// or calls the typed tools, tool results (or errors) go back to it, for at
// most MaxSteps rounds, and the final answer cites only contracts the tools
// returned. It emits typed events for the CLI, the HTTP API and the web app.
//
// The system prompt (prompts/system.tmpl) states today's date, requires
// every fact to come from tool results, asks the model to say what is
// missing, and to end with a "Sources:" line of contract ids. Citations are
// the contracts recorded from tool results whose ids appear in that line or
// in the answer; the line itself is replaced by the checked citations (see
// citation.go). Tool errors, unknown tools and malformed JSON arguments are
// returned to the model as tool results so it can correct itself; the calls
// of one turn run concurrently and their results keep call order.
//
// Small local models are met where they are (see textcall.go, idcheck.go,
// compose.go): tool calls written into the reply text (a JSON object in a
// fence or bare, or <tool_call> tags) are run as real calls and marked
// from_text in the tool_call event, and while streaming such text is never
// shown as answer text; arguments that are null, a JSON string or carry a
// trailing comma are normalised, while null or empty single fields reach
// the tools as written. A reply with no answer text (often only the
// Sources line) gets one more request; if that is empty too, the answer is
// composed from the last successful tool result and says so, and without
// any result Run fails with ErrNoAnswer. Ids in the answer text, or shaped
// like the store's ids, that no tool returned are listed in
// Answer.Unverified with a note.
//
// Three optional practices (Options, each switched on its own; RunWith
// takes them per run): with Rewrite the question is first rewritten into
// an atomic one using the conversation (a rewrite event); with Critic,
// after the first answer a critic (structured output) lists what is
// missing as follow-up questions (a critique event), which get a second
// tool pass before the final answer, and only the final answer is
// streamed; with Check, a sufficiency check (check.go) grades the first
// pass's tool results and, when none holds anything to answer from, gives
// the model one more tool pass with the gaps (check events).
//
// Loop runs the same tool loop over a conversation the caller wrote, with
// its own system prompt and toolbox, and returns the transcript and the
// final reply for the caller to judge: the risk analyst runs on it.
package agent
