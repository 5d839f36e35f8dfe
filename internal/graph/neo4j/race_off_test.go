//go:build !race

package neo4j_test

const raceEnabled = false
