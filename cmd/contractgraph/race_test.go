//go:build race

package main

// raceEnabled is true under the race detector, which makes generating the
// largest test inputs slow enough that the tests use smaller ones.
const raceEnabled = true
