package sqlite

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/contractgraph/contractgraph/internal/graph"
	"github.com/contractgraph/contractgraph/internal/synth"
)

// Environment of the scale benchmarks. They build their store once with
// the real `contractgraph import` command (entity resolution and family
// detection included, as a user runs it), keep it in a cache directory
// keyed by the corpus and the schema migrations, and reuse it from then on.
const (
	// scaleEnv asks for the scale benchmarks: "1" (or "1m") for
	// 1,000,000 contracts, or a contract count such as "100000".
	scaleEnv = "CONTRACTGRAPH_SCALE"
	// scaleRebuildEnv set to 1 rebuilds the cached store (and so measures
	// the import again).
	scaleRebuildEnv = "CONTRACTGRAPH_SCALE_REBUILD"
	// scaleCacheEnv overrides the cache directory
	// (default ~/.cache/contractgraph/bench).
	scaleCacheEnv = "CONTRACTGRAPH_BENCH_CACHE"
)

// scaleBuild is what the build of a cached store measured: the whole
// import command as a child process.
type scaleBuild struct {
	Contracts   int     `json:"contracts"`
	Command     string  `json:"command"`
	WallSeconds float64 `json:"wall_seconds"`
	UserSeconds float64 `json:"user_seconds"`
	SysSeconds  float64 `json:"sys_seconds"`
	PeakRSSMiB  float64 `json:"peak_rss_mib"`
	StoreMiB    float64 `json:"store_mib"`
	BuiltAt     string  `json:"built_at"`
}

func (sb scaleBuild) cpuSeconds() float64 { return sb.UserSeconds + sb.SysSeconds }

// scaleSize is the contract count asked for with CONTRACTGRAPH_SCALE; it
// skips the benchmark when the variable is unset.
func scaleSize(tb testing.TB) int {
	tb.Helper()
	v := strings.ToLower(strings.TrimSpace(os.Getenv(scaleEnv)))
	switch v {
	case "":
		tb.Skipf("scale benchmark skipped: set %s=1 to build (once, cached under %s) and measure a 1,000,000-contract store, or %s=100000 for another size",
			scaleEnv, scaleCacheDirDoc, scaleEnv)
	case "1", "1m", "true", "yes":
		return 1_000_000
	}
	n, err := strconv.Atoi(strings.ReplaceAll(v, "_", ""))
	if err != nil || n < 1 {
		tb.Fatalf("%s=%q: want 1 (a million contracts) or a contract count", scaleEnv, v)
	}
	return n
}

const scaleCacheDirDoc = "~/.cache/contractgraph/bench"

func scaleCacheDir(tb testing.TB) string {
	tb.Helper()
	if d := os.Getenv(scaleCacheEnv); d != "" {
		return d
	}
	home, err := os.UserHomeDir()
	if err != nil {
		tb.Fatalf("scale cache: %v (set %s)", err, scaleCacheEnv)
	}
	return filepath.Join(home, ".cache", "contractgraph", "bench")
}

// synthKey fingerprints the generator: a hash of its first contracts, so
// that a change to synth makes a new corpus.
func synthKey(tb testing.TB) string {
	tb.Helper()
	h := sha256.New()
	w := bufio.NewWriter(h)
	if err := synth.WriteJSONL(w, 1, 200); err != nil {
		tb.Fatal(err)
	}
	if err := w.Flush(); err != nil {
		tb.Fatal(err)
	}
	return hex.EncodeToString(h.Sum(nil))[:12]
}

// migrationsKey fingerprints the schema: names and bodies of every
// migration, so that a store built by another schema is never reused.
func migrationsKey(tb testing.TB) string {
	tb.Helper()
	names, err := fs.Glob(migrationFS, "*.sql")
	if err != nil {
		tb.Fatal(err)
	}
	h := sha256.New()
	for _, name := range names {
		body, err := fs.ReadFile(migrationFS, name)
		if err != nil {
			tb.Fatal(err)
		}
		fmt.Fprintf(h, "%s\x00%d\x00", name, len(body))
		h.Write(body)
	}
	return hex.EncodeToString(h.Sum(nil))[:12]
}

// scaleStore opens the cached store of n synthetic contracts (synth seed 1,
// the corpus of the 100k benchmarks), building it first if the cache lacks
// it: the corpus is generated into the cache, the contractgraph binary is
// built, and `contractgraph --db STORE import CORPUS` runs as a child
// process whose wall time, CPU time and peak RSS are recorded next to the
// store. Builders in several processes take turns through a lock file.
// The benchmarks only read the store; the test's cleanup closes it.
func scaleStore(tb testing.TB, n int) (*Store, scaleBuild) {
	tb.Helper()
	if testing.Short() {
		tb.Skip("scale store skipped in -short mode")
	}
	dir := scaleCacheDir(tb)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		tb.Fatal(err)
	}
	corpusKey := fmt.Sprintf("synth-%s-n%d", synthKey(tb), n)
	storeKey := corpusKey + "-schema-" + migrationsKey(tb)
	storePath := filepath.Join(dir, storeKey+".db")
	infoPath := filepath.Join(dir, storeKey+".json")

	unlock := lockFile(tb, filepath.Join(dir, storeKey+".lock"))
	if os.Getenv(scaleRebuildEnv) == "1" {
		for _, p := range []string{storePath, storePath + "-wal", storePath + "-shm", infoPath} {
			if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
				tb.Fatal(err)
			}
		}
	}
	var build scaleBuild
	if raw, err := os.ReadFile(infoPath); err == nil {
		if err := json.Unmarshal(raw, &build); err != nil {
			tb.Fatalf("scale cache %s: %v (delete it to rebuild)", infoPath, err)
		}
	} else {
		corpus := scaleCorpus(tb, dir, corpusKey, n)
		build = buildScaleStore(tb, dir, corpus, storePath, n)
		raw, err := json.MarshalIndent(build, "", "  ")
		if err != nil {
			tb.Fatal(err)
		}
		if err := os.WriteFile(infoPath, raw, 0o644); err != nil {
			tb.Fatal(err)
		}
	}
	unlock()

	s, err := Open(storePath)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { s.Close() })
	var got int
	if err := s.rdb.QueryRow(`SELECT count(*) FROM contracts`).Scan(&got); err != nil {
		tb.Fatal(err)
	}
	if got != n {
		tb.Fatalf("cached store %s holds %d contracts, want %d: delete it (or set %s=1) to rebuild", storePath, got, n, scaleRebuildEnv)
	}
	return s, build
}

// lockFile takes an exclusive lock on path, waiting for other processes,
// and returns its release.
func lockFile(tb testing.TB, path string) func() {
	tb.Helper()
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		tb.Fatal(err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		f.Close()
		tb.Fatalf("lock %s: %v", path, err)
	}
	return func() {
		syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		f.Close()
	}
}

// scaleCorpus returns the cached JSONL corpus of n contracts, writing it
// first (to a temporary name, renamed when complete).
func scaleCorpus(tb testing.TB, dir, key string, n int) string {
	tb.Helper()
	path := filepath.Join(dir, key+".jsonl")
	if _, err := os.Stat(path); err == nil {
		return path
	}
	fmt.Fprintf(os.Stderr, "scale: generating %d contracts into %s\n", n, path)
	tmp := path + ".tmp"
	writeCorpus(tb, tmp, n)
	if err := os.Rename(tmp, path); err != nil {
		tb.Fatal(err)
	}
	return path
}

// buildScaleStore builds the binary and runs its import of corpus into
// storePath, as a user would, and returns what the command cost.
func buildScaleStore(tb testing.TB, dir, corpus, storePath string, n int) scaleBuild {
	tb.Helper()
	work, err := os.MkdirTemp(dir, "build-")
	if err != nil {
		tb.Fatal(err)
	}
	defer os.RemoveAll(work)
	bin := filepath.Join(work, "contractgraph")
	out, err := exec.Command("go", "build", "-o", bin, "github.com/contractgraph/contractgraph/cmd/contractgraph").CombinedOutput()
	if err != nil {
		tb.Fatalf("build contractgraph: %v\n%s", err, out)
	}
	tmp := filepath.Join(work, "store.db")
	logPath := storePath + ".log"
	logFile, err := os.Create(logPath)
	if err != nil {
		tb.Fatal(err)
	}
	defer logFile.Close()
	args := []string{"--db", tmp, "import", corpus}
	fmt.Fprintf(os.Stderr, "scale: building the %d-contract store: contractgraph %s (log: %s)\n", n, strings.Join(args, " "), logPath)
	cmd := exec.Command(bin, args...)
	cmd.Stdout, cmd.Stderr = logFile, logFile
	start := time.Now()
	if err := cmd.Run(); err != nil {
		tb.Fatalf("contractgraph %s: %v (see %s)", strings.Join(args, " "), err, logPath)
	}
	build := scaleBuild{
		Contracts:   n,
		Command:     "contractgraph " + strings.Join(args[2:], " "),
		WallSeconds: time.Since(start).Seconds(),
		UserSeconds: cmd.ProcessState.UserTime().Seconds(),
		SysSeconds:  cmd.ProcessState.SystemTime().Seconds(),
		BuiltAt:     time.Now().UTC().Format(time.RFC3339),
	}
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		build.PeakRSSMiB = float64(ru.Maxrss) / 1024 // KiB on Linux
	}
	// A closed store has no WAL left; move whatever SQLite kept with it.
	for _, suffix := range []string{"-wal", "-shm", ""} {
		err := os.Rename(tmp+suffix, storePath+suffix)
		if err != nil && (suffix == "" || !errors.Is(err, fs.ErrNotExist)) {
			tb.Fatal(err)
		}
	}
	if fi, err := os.Stat(storePath); err == nil {
		build.StoreMiB = float64(fi.Size()) / (1 << 20)
	}
	fmt.Fprintf(os.Stderr, "scale: built in %.0f s (%.0f s CPU, peak RSS %.0f MiB)\n", build.WallSeconds, build.cpuSeconds(), build.PeakRSSMiB)
	return build
}

// scaleClauseQueries are issue 12's five realistic clause searches.
var scaleClauseQueries = []struct{ id, query string }{
	{"c-convenience", "terminate for convenience"},
	{"c-liability", "limitation of liability consequential damages"},
	{"c-distributor", "exclusive distributor territory"},
	{"c-governing-law", "governing law New York"},
	{"c-non-solicit", "non-solicitation employees"},
}

// BenchmarkScale1M measures the store at scale (a million contracts unless
// CONTRACTGRAPH_SCALE says otherwise; skipped when it is unset): the import
// command that built it (sub-benchmark "import": contracts per second and
// per CPU second, peak RSS, store size), every dev call and its extras,
// and the five clause searches (p50/p95, wall and thread CPU).
//
//	CONTRACTGRAPH_SCALE=1 go test ./internal/graph/sqlite -run '^$' -bench Scale1M -benchtime 20x -timeout 3h
func BenchmarkScale1M(b *testing.B) {
	n := scaleSize(b)
	s, build := scaleStore(b, n)
	ctx := context.Background()
	b.Run("import", func(b *testing.B) {
		for b.Loop() {
		}
		b.ReportMetric(float64(build.Contracts)/build.WallSeconds, "contracts/s")
		b.ReportMetric(float64(build.Contracts)/build.cpuSeconds(), "contracts/cpu_s")
		b.ReportMetric(build.SysSeconds, "sys_s")
		b.ReportMetric(build.PeakRSSMiB, "peak_rss_MiB")
		b.ReportMetric(build.StoreMiB, "store_MiB")
	})
	for _, dc := range devCalls {
		b.Run(dc.id, func(b *testing.B) { measureCall(b, func() error { return dc.run(ctx, s) }) })
	}
	for _, q := range scaleClauseQueries {
		b.Run(q.id, func(b *testing.B) {
			measureCall(b, func() error {
				_, err := s.SearchClauses(ctx, graph.ClauseQuery{Query: q.query, Limit: 5})
				return err
			})
		})
	}
}
