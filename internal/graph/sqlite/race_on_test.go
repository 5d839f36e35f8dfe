//go:build race

package sqlite

// raceEnabled: the race detector slows tokenizing and FTS5 by an order of
// magnitude, so tests over the shared corpus take a sample under -race.
const raceEnabled = true
