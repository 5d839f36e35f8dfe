//go:build race

package importer

// raceEnabled is true under the race detector, which slows the pure-Go
// SQLite driver enough that the largest round trip uses a subset.
const raceEnabled = true
