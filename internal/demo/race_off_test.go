//go:build !race

package demo

// raceEnabled: see race_on_test.go.
const raceEnabled = false
