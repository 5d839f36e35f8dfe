//go:build race

package neo4j_test

// raceEnabled: the race detector slows the Go side (SQLite, chunking,
// ranking) by an order of magnitude, so the cross-backend samples shrink
// under -race.
const raceEnabled = true
