package tools

// CypherReads is the parser's corpus of accepted reads, for the Neo4j test
// that plans each one on the real server.
var CypherReads = cypherReads
