// Package extract turns a contract's text into a contract.Contract with an
// LLM: one typed schema (the Go types in schema.go) becomes the JSON Schema
// of a structured-output request; every extracted value comes with a
// verbatim evidence quote that is located in the text (exactly, then
// ignoring case, whitespace and quote styles) so that the stored value
// points at the words that support it, or is marked unverified. The reply
// is validated and normalised with the contract package, and the model gets
// one repair round in which it sees its validation errors. Documents larger
// than the context budget are extracted in chunks and the results merged.
//
// Small local models get through because the schema lists its properties
// in a deliberate order with the long lists last and capped (maxItems);
// the clauses can be asked for in a second, focused call (always with
// ClausesSeparate, or when a reply is cut off or repeats one passage for
// many categories); replies are streamed, so a long one is never one
// idle call; and a per-document budget keeps repair rounds from running
// past it, keeping what validated with a warning instead of failing.
package extract
