// Package demo ships the data of `contractgraph demo`: six short sample
// contracts written for this project (samples/*.md, embedded), with their
// metadata and clauses in samples/samples.json; a builder that loads them,
// together with a generated corpus from synth, into a graph.Store; and a
// guided tour of plain-language questions, each answered by one call of the
// typed tools.
//
// Clause offsets are not stored in samples.json: each clause is given by its
// verbatim quote, located in the text when the samples are loaded, so every
// span verifies and editing a text cannot leave stale offsets behind.
package demo
