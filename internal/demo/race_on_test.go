//go:build race

package demo

// raceEnabled: the race detector slows building the full demo corpus
// tenfold, so tests that need it build a smaller one.
const raceEnabled = true
