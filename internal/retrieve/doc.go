// Package retrieve finds contract passages: it splits contract text into
// chunks at clause boundaries, ranks passages with the store's BM25 index,
// and, when an embedding model is configured, fuses that ranking with
// vector similarity by reciprocal rank fusion.
package retrieve
