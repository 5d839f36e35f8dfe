package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestCPUProfile profiles an import with --cpuprofile and --memprofile
// and reads both files back with `go tool pprof`: each must be a valid
// profile of its kind, and the CPU profile must show the import itself.
func TestCPUProfile(t *testing.T) {
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("go tool pprof not found: no go in PATH")
	}
	dir := t.TempDir()
	src, db := filepath.Join(dir, "gen.jsonl"), filepath.Join(dir, "cg.db")
	cpu, mem := filepath.Join(dir, "cpu.pprof"), filepath.Join(dir, "mem.pprof")
	if _, stderr, code := runContractgraph(t, "", "generate", "--contracts", "1500", "--seed", "2", "-o", src); code != 0 {
		t.Fatalf("generate: %s", stderr)
	}
	stdout, stderr, code := runContractgraph(t, "", "--cpuprofile", cpu, "--memprofile", mem, "--db", db, "import", "--no-resolve", "--no-families", src)
	if code != 0 || !strings.HasPrefix(stdout, "imported 1500,") {
		t.Fatalf("import: exit %d, %q, %q", code, stdout, stderr)
	}
	for _, c := range []struct{ path, kind, fn string }{
		{cpu, "PeriodType: cpu nanoseconds", ".runImport"},
		{mem, "PeriodType: space bytes", ""},
	} {
		out, err := exec.Command(gobin, "tool", "pprof", "-raw", c.path).CombinedOutput()
		if err != nil {
			t.Fatalf("go tool pprof -raw %s: %v\n%s", c.path, err, out)
		}
		if !strings.Contains(string(out), c.kind) {
			t.Errorf("%s: not a profile with %q:\n%.500s", c.path, c.kind, out)
		}
		if c.fn != "" && !strings.Contains(string(out), c.fn) {
			t.Errorf("%s: no sample in %s:\n%s", c.path, c.fn, out)
		}
	}
}

// TestCPUProfileEnv takes the profile's file from CONTRACTGRAPH_CPUPROFILE,
// and a file that cannot be created stops the command before it runs.
func TestCPUProfileEnv(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "env.pprof")
	t.Setenv("CONTRACTGRAPH_CPUPROFILE", path)
	if _, stderr, code := runContractgraph(t, "", "generate", "--contracts", "10", "-o", filepath.Join(dir, "gen.jsonl")); code != 0 {
		t.Fatalf("generate: exit %d, %s", code, stderr)
	}
	if fi, err := os.Stat(path); err != nil || fi.Size() == 0 {
		t.Fatalf("CONTRACTGRAPH_CPUPROFILE=%s wrote no profile (%v)", path, err)
	}

	never := filepath.Join(dir, "never.jsonl")
	bad := filepath.Join(dir, "no-such-dir", "cpu.pprof")
	_, stderr, code := runContractgraph(t, "", "--cpuprofile", bad, "generate", "--contracts", "10", "-o", never)
	if code != 1 || !strings.Contains(stderr, "--cpuprofile") || !strings.Contains(stderr, bad) {
		t.Errorf("--cpuprofile %s: exit %d, stderr %q; want 1 and the file named", bad, code, stderr)
	}
	if _, err := os.Stat(never); err == nil {
		t.Errorf("the command ran (wrote %s) although its profile could not be created", never)
	}
}
