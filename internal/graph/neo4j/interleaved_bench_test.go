package neo4j_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/contractgraph/contractgraph/internal/contract"
	"github.com/contractgraph/contractgraph/internal/graph"
	"github.com/contractgraph/contractgraph/internal/graph/neo4j"
	"github.com/contractgraph/contractgraph/internal/graph/neo4j/neo4jtest"
	"github.com/contractgraph/contractgraph/internal/graph/sqlite"
	"github.com/contractgraph/contractgraph/internal/sharedtest"
	"github.com/contractgraph/contractgraph/internal/synth"
	"github.com/contractgraph/contractgraph/internal/tools"
)

// benchContracts is the synthetic set's size: CONTRACTGRAPH_BENCH_CONTRACTS,
// else def.
func benchContracts(b *testing.B, def int) int {
	b.Helper()
	v := os.Getenv("CONTRACTGRAPH_BENCH_CONTRACTS")
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil || n <= 0 {
		b.Fatalf("CONTRACTGRAPH_BENCH_CONTRACTS=%q: want a positive count", v)
	}
	return n
}

// BenchmarkDevCallsInterleaved loads the same synthetic set (100,000
// contracts unless CONTRACTGRAPH_BENCH_CONTRACTS says otherwise) into both
// backends and then, each round, runs every dev call through the tools
// layer on SQLite and at once on Neo4j, so that both see the same machine
// load and the ratios hold on a busy machine. It logs per call each
// backend's p50 and p95 wall time, SQLite's thread CPU, the Neo4j server's
// CPU (when NEO4J_TEST_STATE names the test server's state directory),
// the p50 ratio and the PROFILE db hits of the call's Neo4j statements
// (printed to standard output, one line per call):
//
//	NEO4J_TEST_STATE=/tmp/dir go test ./internal/graph/neo4j -run '^$' -bench DevCallsInterleaved -benchtime 20x -timeout 2h
func BenchmarkDevCallsInterleaved(b *testing.B) {
	calls := readDevCalls(b, sharedtest.Dir(b))
	n := benchContracts(b, 100_000)
	ctx := context.Background()
	gen := func(fn func(*contract.Contract) error) error { return synth.Generate(1, n, fn) }

	lite, err := sqlite.Open(filepath.Join(b.TempDir(), "bench.db"))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { lite.Close() })
	neo := neo4jtest.Open(b)
	for _, s := range []struct {
		name  string
		store graph.Store
	}{{"sqlite", lite}, {"neo4j", neo}} {
		start := time.Now()
		load(b, s.store, gen)
		b.Logf("%s: loaded %d contracts in %s", s.name, n, time.Since(start).Round(time.Millisecond))
	}
	now := func() time.Time { return time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC) }
	sets := []*tools.Set{tools.New(lite, tools.Options{Now: now}), tools.New(neo, tools.Options{Now: now})}
	server := serverCPU(b)
	wall := [2][][]time.Duration{make([][]time.Duration, len(calls)), make([][]time.Duration, len(calls))}
	cpu := [2][]time.Duration{make([]time.Duration, len(calls)), make([]time.Duration, len(calls))}
	rounds := 0
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	for b.Loop() {
		rounds++
		for i, c := range calls {
			for k, set := range sets {
				t0, c0, s0 := time.Now(), threadCPU(), server()
				if _, err := set.Call(ctx, c.Tool, c.Args); err != nil {
					b.Fatalf("%s on %s: %v", c.ID, []string{"sqlite", "neo4j"}[k], err)
				}
				wall[k][i] = append(wall[k][i], time.Since(t0))
				if k == 0 {
					cpu[k][i] += threadCPU() - c0
				} else {
					cpu[k][i] += server() - s0
				}
			}
		}
	}
	var all [2][]time.Duration
	worst := 0.0
	for i, c := range calls {
		var p50 [2]time.Duration
		var line strings.Builder
		for k := range sets {
			lat := wall[k][i]
			all[k] = append(all[k], lat...)
			slices.Sort(lat)
			p50[k] = percentile(lat, 50)
			fmt.Fprintf(&line, " %s p50/p95 %.1f/%.1f ms cpu %.1f ms;", []string{"sqlite", "neo4j"}[k],
				ms(p50[k]), ms(percentile(lat, 95)), ms(cpu[k][i])/float64(rounds))
		}
		ratio := float64(p50[1]) / float64(max(p50[0], time.Microsecond))
		worst = max(worst, ratio)
		// Printed, not logged: a benchmark's log keeps only 10 lines.
		fmt.Printf("%s %s:%s neo4j/sqlite p50 %.2fx, %d db hits\n", c.ID, c.Tool, line.String(), ratio, dbHits(b, neo, c))
	}
	for k, name := range []string{"sqlite", "neo4j"} {
		slices.Sort(all[k])
		b.ReportMetric(ms(percentile(all[k], 50)), name+"-p50-ms")
		b.ReportMetric(ms(percentile(all[k], 95)), name+"-p95-ms")
	}
	b.ReportMetric(worst, "worst-p50-ratio")
	b.ReportMetric(0, "ns/op") // one op is all 22 calls on both backends
}

// dbHits profiles the Neo4j statements of call c and adds up their db hits.
func dbHits(b *testing.B, s *neo4j.Store, c devCall) int64 {
	b.Helper()
	sts, err := neo4j.CallStatements(context.Background(), s, c.Tool, c.Args, func() time.Time { return time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC) })
	if err != nil {
		b.Fatalf("%s: %v", c.ID, err)
	}
	var n int64
	for _, st := range sts {
		plan, err := s.Profile(context.Background(), st)
		if err != nil {
			b.Fatalf("%s: %v", c.ID, err)
		}
		n += totalDBHits(plan)
	}
	return n
}

// threadCPU is the CPU time of the calling OS thread (the benchmark pins
// its goroutine): an embedded query's cost without the time spent waiting
// for a processor.
func threadCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(1 /* RUSAGE_THREAD */, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// serverCPU returns a clock of the test server's CPU time, read from
// /proc for the pid scripts/neo4j-test-server.sh records in
// $NEO4J_TEST_STATE/server.pid; without it the clock reads 0. Linux counts
// it in ticks of 10 ms, so only the sum over many calls means much.
func serverCPU(b *testing.B) func() time.Duration {
	b.Helper()
	state := os.Getenv("NEO4J_TEST_STATE")
	if state == "" {
		b.Log("NEO4J_TEST_STATE is not set: the Neo4j server's CPU is not measured")
		return func() time.Duration { return 0 }
	}
	pid, err := os.ReadFile(filepath.Join(state, "server.pid"))
	if err != nil {
		b.Fatalf("server CPU: %v", err)
	}
	stat := filepath.Join("/proc", strings.TrimSpace(string(pid)), "stat")
	return func() time.Duration {
		raw, err := os.ReadFile(stat)
		if err != nil {
			b.Fatalf("server CPU: %v", err)
		}
		// The fields after the command name, which is in parentheses:
		// utime and stime are the 12th and 13th.
		_, rest, _ := strings.Cut(string(raw), ") ")
		f := strings.Fields(rest)
		if len(f) < 13 {
			b.Fatalf("server CPU: %s: %d fields", stat, len(f))
		}
		u, err1 := strconv.ParseInt(f[11], 10, 64)
		s, err2 := strconv.ParseInt(f[12], 10, 64)
		if err1 != nil || err2 != nil {
			b.Fatalf("server CPU: %s: utime %q, stime %q", stat, f[11], f[12])
		}
		return time.Duration(u+s) * 10 * time.Millisecond
	}
}

// BenchmarkImportNeo4j puts a synthetic set (20,000 contracts unless
// CONTRACTGRAPH_BENCH_CONTRACTS says otherwise), generated beforehand, into
// an emptied Neo4j database, and reports contracts per second of wall time
// and the client's CPU per contract:
//
//	go test ./internal/graph/neo4j -run '^$' -bench ImportNeo4j -benchtime 1x -timeout 1h
func BenchmarkImportNeo4j(b *testing.B) {
	n := benchContracts(b, 20_000)
	var cs []*contract.Contract
	if err := synth.Generate(1, n, func(c *contract.Contract) error { cs = append(cs, c); return nil }); err != nil {
		b.Fatal(err)
	}
	s := neo4jtest.Open(b)
	cfg := neo4jtest.Config(b)
	ctx := context.Background()
	server := serverCPU(b)
	var elapsed, client, srv time.Duration
	for b.Loop() {
		b.StopTimer()
		if err := neo4jtest.Wipe(ctx, cfg); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		t0, c0, s0 := time.Now(), processCPU(), server()
		for i := 0; i < len(cs); i += 1000 {
			put(b, s, cs[i:min(i+1000, len(cs))], graph.PutCreated)
		}
		elapsed += time.Since(t0)
		client += processCPU() - c0
		srv += server() - s0
	}
	total := float64(n * b.N)
	b.ReportMetric(total/elapsed.Seconds(), "contracts/s")
	b.ReportMetric(float64(client.Microseconds())/total, "client-cpu-us/contract")
	b.ReportMetric(float64(srv.Microseconds())/total, "server-cpu-us/contract")
	b.ReportMetric(0, "ns/op")
}

func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
