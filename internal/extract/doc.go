// Package extract turns a contract's text into a contract.Contract with an
// LLM: one typed schema (the Go types in schema.go) becomes the JSON Schema
// of a structured-output request; every extracted value comes with a
// verbatim evidence quote that is located in the text (exactly, then
// ignoring case, whitespace and quote styles) so that the stored value
// points at the words that support it, or is marked unverified. The reply
// is validated and normalised with the contract package, and the model gets
// one repair round in which it sees its validation errors. Documents larger
// than the context budget are extracted in chunks and the results merged.
package extract
