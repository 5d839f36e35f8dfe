// Package statute reads statute files into contract.Statute values: US Code
// titles in USLM XML, Taiwan Ministry of Justice law JSON (Chinese and English
// joined on the article number) and a generic JSON Lines format. Every
// statute gets a stable id derived from the source's own identifiers, so a
// re-import yields the same ids and stored citations stay valid.
//
// The package does no storage: callers hand the parsed statutes to a
// graph.StatuteStore.
package statute
