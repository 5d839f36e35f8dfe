//go:build race

package retrieve_test

// raceEnabled: the race detector slows the embedded SQLite by an order of
// magnitude, so the recall sample shrinks under -race.
const raceEnabled = true
