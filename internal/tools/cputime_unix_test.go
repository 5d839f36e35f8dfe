//go:build unix

package tools_test

import (
	"syscall"
	"time"
)

// processCPU returns the CPU time (user + system) the process has used so
// far. Benchmarks report it beside wall time because on a busy machine the
// wall time of a query mostly measures waiting for a core.
func processCPU() (time.Duration, bool) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, false
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), true
}
