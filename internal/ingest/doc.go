// Package ingest turns raw documents into contracts in the graph.
//
// A Loader reads .txt, .md, .html, .pdf and .docx files, decodes their
// character set (UTF-8, UTF-16 with a byte-order mark, Windows-1252) and
// normalises the text (line endings, non-breaking and zero-width spaces,
// control characters) so that every offset stored later refers to exactly
// the text that is stored. A Pipeline walks paths, skips what it cannot
// read, extracts each document with an LLM (package extract), chunks it
// (package retrieve), writes it to a graph.Store and records the work in an
// IngestLedger so that unchanged files are never sent to the model twice.
package ingest
