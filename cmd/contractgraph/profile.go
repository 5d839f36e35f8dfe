package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"runtime"
	"runtime/pprof"

	"github.com/spf13/cobra"
)

// profiling is the state of --cpuprofile and --memprofile for one run of
// the command: the CPU profile being written, and where the heap profile
// goes at the end.
type profiling struct {
	cpu     *os.File
	memPath string
}

// startProfiling starts the CPU profile into cpuPath (when not empty) and
// remembers memPath for stopProfiling. A file that cannot be created
// stops the command before it does anything.
func (a *app) startProfiling(cpuPath, memPath string) error {
	a.prof = &profiling{memPath: memPath}
	if cpuPath == "" {
		return nil
	}
	f, err := os.Create(cpuPath)
	if err != nil {
		return fmt.Errorf("--cpuprofile: %w", err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		os.Remove(cpuPath)
		return fmt.Errorf("--cpuprofile %s: %w", cpuPath, err)
	}
	a.prof.cpu = f
	return nil
}

// stopProfiling finishes the CPU profile and writes the heap profile, if
// either was asked for; it is a no-op otherwise, and safe to call twice.
func (a *app) stopProfiling() error {
	p := a.prof
	if p == nil {
		return nil
	}
	a.prof = nil
	var errs []error
	if p.cpu != nil {
		pprof.StopCPUProfile()
		if err := p.cpu.Close(); err != nil {
			errs = append(errs, fmt.Errorf("--cpuprofile %s: %w", p.cpu.Name(), err))
		}
	}
	if p.memPath != "" {
		if err := writeHeapProfile(p.memPath); err != nil {
			errs = append(errs, fmt.Errorf("--memprofile: %w", err))
		}
	}
	return errors.Join(errs...)
}

// writeHeapProfile writes the heap profile (in-use and allocated since the
// start) to path, after a collection so that in-use is current.
func writeHeapProfile(path string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	runtime.GC()
	if err := pprof.Lookup("heap").WriteTo(f, 0); err != nil {
		f.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	return f.Close()
}

// execute runs root with ctx and then ends the profiles that
// --cpuprofile and --memprofile started, also when the command failed, so
// that a failed or interrupted run can still be profiled.
func (a *app) execute(ctx context.Context, root *cobra.Command) error {
	err := root.ExecuteContext(ctx)
	if perr := a.stopProfiling(); perr != nil {
		if err == nil {
			return perr
		}
		fmt.Fprintf(a.stderr, "warning: %v\n", perr)
	}
	return err
}
