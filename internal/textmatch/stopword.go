package textmatch

// StopWord reports whether w, a lower-case word, is too common to search
// for: the English function words, those of Lucene's English analyzer
// (which Neo4j's full-text indexes do not index) among them. The full-text
// query builders leave them out of queries (SearchWords: requiring them
// would only lose matches), and the risk review leaves them out of the
// terms it ranks passages by (they say nothing about a passage).
func StopWord(w string) bool { return stopWords[w] }

// stopWords is the one list behind StopWord; it is never modified. Words
// every contract uses ("agreement", "party", "shall") are not in it: BM25
// already weighs them down, and leaving them out would change the clause
// rankings the retrieval evaluation measures.
var stopWords = map[string]bool{
	"a": true, "about": true, "an": true, "and": true, "any": true, "are": true, "as": true, "at": true,
	"be": true, "but": true, "by": true, "for": true, "from": true, "if": true, "in": true, "into": true,
	"is": true, "it": true, "no": true, "not": true, "of": true, "on": true, "or": true, "such": true,
	"that": true, "the": true, "their": true, "then": true, "there": true, "these": true, "they": true,
	"this": true, "to": true, "was": true, "what": true, "which": true, "who": true, "will": true, "with": true,
	// Words whose Porter stem is one of Lucene's stop words ("one" is "on",
	// "its" "it", "being" "be"): SQLite's index would match every "on",
	// Neo4j's none, and the backends would find different passages.
	"being": true, "its": true, "one": true, "ones": true,
}
