package sqlite

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/contractgraph/contractgraph/internal/contract"
	"github.com/contractgraph/contractgraph/internal/graph"
	"github.com/contractgraph/contractgraph/internal/importer"
	"github.com/contractgraph/contractgraph/internal/sharedtest"
	"github.com/contractgraph/contractgraph/internal/synth"
)

// importFile reads every contract of path with the importer and puts them
// in batches, reading the next batch while the store writes the last one,
// as an import command would. It fails on any record or put failure.
func importFile(ctx context.Context, s *Store, path string, batch int) (int, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	batches := make(chan []*contract.Contract, 2)
	readErr := make(chan error, 1)
	go func() {
		defer close(batches)
		var buf []*contract.Contract
		err := importer.Read(ctx, path, importer.Options{}, func(r importer.Record) error {
			if r.Err != nil {
				return r.Err
			}
			buf = append(buf, r.Contract)
			if len(buf) == batch {
				select {
				case batches <- buf:
				case <-ctx.Done():
					return ctx.Err()
				}
				buf = nil
			}
			return nil
		})
		if err == nil && len(buf) > 0 {
			batches <- buf
		}
		readErr <- err
	}()
	n := 0
	for cs := range batches {
		out, err := s.PutContracts(ctx, cs)
		if err != nil {
			return n, err
		}
		for _, o := range out {
			if o.Status == graph.PutFailed {
				return n, o.Err
			}
		}
		n += len(cs)
	}
	return n, <-readErr
}

// peakRSS is the process's peak resident set size in bytes (VmHWM), or 0
// where /proc is unavailable.
func peakRSS() float64 {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "VmHWM:"); ok {
			kb, _ := strconv.Atoi(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")))
			return float64(kb) * 1024
		}
	}
	return 0
}

// cpuTime is the CPU time (user + system) the process has used so far.
// Throughput per CPU second is reported next to wall-clock throughput
// because the benchmark machine is shared: wall time there measures the
// neighbours as much as the store.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// threadCPU is the CPU time of the calling OS thread (pin the goroutine
// with runtime.LockOSThread around a measurement). A query runs on the
// calling goroutine, so this is its cost without the time spent waiting for
// a processor on a busy machine.
func threadCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(1 /* RUSAGE_THREAD */, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkImportReference imports the reference contract_data.json (510
// contracts) into a fresh store: parse, normalise, write. Target: well under
// one second per import.
func BenchmarkImportReference(b *testing.B) {
	path := filepath.Join(sharedtest.Dir(b), "data", "legal-tech-chat", "contract_data.json")
	ctx := context.Background()
	b.ReportAllocs()
	var n int
	cpu0 := cpuTime()
	for i := 0; b.Loop(); i++ {
		s, err := Open(filepath.Join(b.TempDir(), fmt.Sprintf("ref%d.db", i)))
		if err != nil {
			b.Fatal(err)
		}
		if n, err = importFile(ctx, s, path, 500); err != nil {
			b.Fatal(err)
		}
		s.Close()
	}
	if n != 510 {
		b.Fatalf("imported %d contracts, want 510", n)
	}
	b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "contracts/s")
	b.ReportMetric(float64(n)*float64(b.N)/(cpuTime()-cpu0).Seconds(), "contracts/cpu_s")
}

// bigCorpus is the size of the scale benchmarks' synthetic corpus.
const bigCorpus = 100_000

// BenchmarkImport100k imports a generated 100,000-contract JSONL corpus
// (written by synth before the timer starts) into a fresh store. Targets:
// at least 5,000 contracts/s on two cores and a peak RSS under 1 GiB.
// Run it on its own for a meaningful peak_rss_MiB.
func BenchmarkImport100k(b *testing.B) {
	if testing.Short() {
		b.Skip("100k import skipped in -short mode")
	}
	path := filepath.Join(b.TempDir(), "corpus.jsonl")
	writeCorpus(b, path, bigCorpus)
	ctx := context.Background()
	b.ReportAllocs()
	cpu0 := cpuTime()
	for i := 0; b.Loop(); i++ {
		s, err := Open(filepath.Join(b.TempDir(), fmt.Sprintf("big%d.db", i)))
		if err != nil {
			b.Fatal(err)
		}
		n, err := importFile(ctx, s, path, 1000)
		if err != nil {
			b.Fatal(err)
		}
		if n != bigCorpus {
			b.Fatalf("imported %d, want %d", n, bigCorpus)
		}
		s.Close()
	}
	b.ReportMetric(float64(bigCorpus)*float64(b.N)/b.Elapsed().Seconds(), "contracts/s")
	b.ReportMetric(float64(bigCorpus)*float64(b.N)/(cpuTime()-cpu0).Seconds(), "contracts/cpu_s")
	b.ReportMetric(peakRSS()/(1<<20), "peak_rss_MiB")
}

func writeCorpus(tb testing.TB, path string, n int) {
	tb.Helper()
	f, err := os.Create(path)
	if err != nil {
		tb.Fatal(err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	if err := synth.WriteJSONL(w, 1, n); err != nil {
		tb.Fatal(err)
	}
	if err := errors.Join(w.Flush(), f.Close()); err != nil {
		tb.Fatal(err)
	}
}

// big is the 100k-contract store the query benchmarks share, built once per
// process.
var big struct {
	once  sync.Once
	dir   string
	store *Store
	err   error
}

func bigStore(b *testing.B) *Store {
	b.Helper()
	if testing.Short() {
		b.Skip("100k query benchmarks skipped in -short mode")
	}
	big.once.Do(func() {
		big.dir, big.err = os.MkdirTemp("", "contractgraph-bench-")
		if big.err != nil {
			return
		}
		path := filepath.Join(big.dir, "corpus.jsonl")
		writeCorpus(b, path, bigCorpus)
		big.store, big.err = Open(filepath.Join(big.dir, "big.db"))
		if big.err != nil {
			return
		}
		_, big.err = importFile(context.Background(), big.store, path, 1000)
	})
	if big.err != nil {
		b.Fatal(big.err)
	}
	return big.store
}

func TestMain(m *testing.M) {
	code := m.Run()
	if big.store != nil {
		big.store.Close()
	}
	if big.dir != "" {
		os.RemoveAll(big.dir)
	}
	os.Exit(code)
}

// devCall is one call of ../shared/questions/dev_calls.json, translated by
// hand into the graph query the tools layer compiles it to (tool defaults:
// contract_search limit 5, contract_aggregate limit 10, party_search limit 10).
type devCall struct {
	id  string
	run func(ctx context.Context, s graph.Store) error
}

func contractSearch(q graph.ContractQuery) func(context.Context, graph.Store) error {
	if q.Limit == 0 {
		q.Limit = 5
	}
	return func(ctx context.Context, s graph.Store) error { _, err := s.SearchContracts(ctx, q); return err }
}

func aggregate(q graph.AggregateQuery) func(context.Context, graph.Store) error {
	if q.Limit == 0 {
		q.Limit = 10
	}
	return func(ctx context.Context, s graph.Store) error { _, err := s.AggregateContracts(ctx, q); return err }
}

func partySearch(q graph.PartyQuery) func(context.Context, graph.Store) error {
	if q.Limit == 0 {
		q.Limit = 10
	}
	return func(ctx context.Context, s graph.Store) error { _, err := s.SearchParties(ctx, q); return err }
}

func clauseSearch(q graph.ClauseQuery) func(context.Context, graph.Store) error {
	return func(ctx context.Context, s graph.Store) error { _, err := s.SearchClauses(ctx, q); return err }
}

var (
	yes = true
	no  = false
)

// devCalls are the 22 dev calls plus two text searches the agent often
// makes (clause_search and summary_search), which the dev set lacks.
var devCalls = []devCall{
	{"d01", contractSearch(graph.ContractQuery{Filter: graph.Filter{ContractType: "Distributor", MinEndDate: "2005-01-01", MaxEndDate: "2005-12-31"}})},
	{"d02", aggregate(graph.AggregateQuery{Filter: graph.Filter{GoverningLawCountry: "US"}, GroupBy: graph.GroupGoverningLawState, Metric: graph.MetricCount, Limit: 3})},
	{"d03", contractSearch(graph.ContractQuery{Filter: graph.Filter{PartyCountry: "CN"}})},
	{"d04", aggregate(graph.AggregateQuery{Filter: graph.Filter{ContractType: "Sponsorship"}, Metric: graph.MetricSumAmount})},
	{"d05", aggregate(graph.AggregateQuery{GroupBy: graph.GroupParty, Metric: graph.MetricCount, Limit: 3})},
	{"d06", contractSearch(graph.ContractQuery{Filter: graph.Filter{MinEffectiveDate: "2019-10-01", MaxEffectiveDate: "2019-12-31"}})},
	{"d07", aggregate(graph.AggregateQuery{Filter: graph.Filter{ContractType: "Franchise"}, Metric: graph.MetricAvgDurationDays})},
	{"d08", contractSearch(graph.ContractQuery{Filter: graph.Filter{ClauseTypes: []string{contract.GroupConfidentiality}}})},
	{"d09", aggregate(graph.AggregateQuery{GroupBy: graph.GroupContractType, Metric: graph.MetricAvgAmount, Limit: 3})},
	{"d10", partySearch(graph.PartyQuery{Country: "CA"})},
	{"d11", contractSearch(graph.ContractQuery{Filter: graph.Filter{Active: &yes, AsOf: "2015-06-30"}})},
	{"d12", contractSearch(graph.ContractQuery{Filter: graph.Filter{ContractType: "License Agreement"}, OrderBy: graph.OrderEffectiveDate, Desc: true, Limit: 1})},
	{"d13", contractSearch(graph.ContractQuery{OrderBy: graph.OrderDurationDays, Desc: true, Limit: 1})},
	{"d14", contractSearch(graph.ContractQuery{Filter: graph.Filter{ContractType: "Joint Venture", Monetary: &graph.Monetary{Op: ">", Value: new(10_000_000.0)}}})},
	{"d15", aggregate(graph.AggregateQuery{GroupBy: graph.GroupEndYear, Metric: graph.MetricCount, Limit: 1})},
	{"d16", aggregate(graph.AggregateQuery{GroupBy: graph.GroupPartyCountry, Metric: graph.MetricCount, Limit: 5})},
	{"d17", contractSearch(graph.ContractQuery{Filter: graph.Filter{GoverningLawState: "DE", ClauseTypes: []string{contract.GroupLiability}}})},
	{"d18", partySearch(graph.PartyQuery{MinContracts: 4, Limit: 20})},
	{"d19", aggregate(graph.AggregateQuery{Filter: graph.Filter{ContractType: "Service"}, Metric: graph.MetricMaxAmount})},
	{"d20", contractSearch(graph.ContractQuery{Filter: graph.Filter{ContractType: "Endorsement", Active: &no, AsOf: "2010-01-01"}})},
	{"d21", aggregate(graph.AggregateQuery{Filter: graph.Filter{Parties: []string{"Excite"}}, GroupBy: graph.GroupContractType, Metric: graph.MetricCount})},
	{"d22", contractSearch(graph.ContractQuery{Filter: graph.Filter{MinEffectiveDate: "2018-01-01", MaxEffectiveDate: "2018-12-31", MaxEndDate: "2020-12-31"}})},
	{"x-clause", clauseSearch(graph.ClauseQuery{Query: "termination for convenience written notice", Limit: 5})},
	{"x-clause-filtered", clauseSearch(graph.ClauseQuery{Query: "liability cap", Filter: graph.Filter{ContractType: "Service", GoverningLawState: "NY"}, Limit: 5})},
	{"x-summary", contractSearch(graph.ContractQuery{Filter: graph.Filter{SummarySearch: "software development services"}})},
	// deadline_search's default (90 days, 20 deadlines), a year of notice
	// deadlines, and the notice-deadline filter, which reads every
	// timeline whose bounds reach its range.
	{"x-deadlines", deadlineSearch(graph.DeadlineQuery{From: "2024-01-01", To: "2024-03-31", Limit: 20})},
	{"x-deadlines-notice-year", deadlineSearch(graph.DeadlineQuery{From: "2024-01-01", To: "2024-12-31", Kinds: []string{contract.DeadlineNotice}, Limit: 20})},
	{"x-notice-filter", contractSearch(graph.ContractQuery{Filter: graph.Filter{MinNoticeDeadline: "2024-01-01", MaxNoticeDeadline: "2024-03-31"}})},
}

func deadlineSearch(q graph.DeadlineQuery) func(context.Context, graph.Store) error {
	return func(ctx context.Context, s graph.Store) error {
		_, err := s.(graph.DeadlineSearcher).SearchDeadlines(ctx, q)
		return err
	}
}

// BenchmarkQueries100k runs each dev call against a 100,000-contract store
// and reports its latency percentiles. Target: p95 at most 100 ms.
func BenchmarkQueries100k(b *testing.B) {
	s := bigStore(b)
	ctx := context.Background()
	for _, dc := range devCalls {
		b.Run(dc.id, func(b *testing.B) { measureCall(b, func() error { return dc.run(ctx, s) }) })
	}
}

// measureCall runs call b.N times on a pinned OS thread and reports its
// wall-clock and thread-CPU percentiles.
func measureCall(b *testing.B, call func() error) {
	var lat, cpu []time.Duration
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	for b.Loop() {
		start, cpu0 := time.Now(), threadCPU()
		if err := call(); err != nil {
			b.Fatal(err)
		}
		cpu = append(cpu, threadCPU()-cpu0)
		lat = append(lat, time.Since(start))
	}
	b.ReportMetric(percentileMS(lat, 0.50), "p50_ms")
	b.ReportMetric(percentileMS(lat, 0.95), "p95_ms")
	b.ReportMetric(percentileMS(cpu, 0.50), "p50_cpu_ms")
	b.ReportMetric(percentileMS(cpu, 0.95), "p95_cpu_ms")
}

// percentileMS is the p-th quantile of d (nearest rank below), in
// milliseconds; it sorts d.
func percentileMS(d []time.Duration, p float64) float64 {
	if len(d) == 0 {
		return 0
	}
	slices.Sort(d)
	return float64(d[int(p*float64(len(d)-1))]) / float64(time.Millisecond)
}

// BenchmarkGetContract100k reads one full contract from the 100k store.
func BenchmarkGetContract100k(b *testing.B) {
	s := bigStore(b)
	ctx := context.Background()
	i := 0
	for b.Loop() {
		i = (i*7919 + 1) % bigCorpus
		if _, err := s.GetContract(ctx, fmt.Sprintf("gen-1-%07d", i+1)); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkPutSynthetic10k isolates the store's write path: 10,000
// generated contracts, already in memory, put in batches of 1,000.
func BenchmarkPutSynthetic10k(b *testing.B) {
	const n = 10_000
	var cs []*contract.Contract
	if err := synth.Generate(1, n, func(c *contract.Contract) error { cs = append(cs, c); return nil }); err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	b.ReportAllocs()
	cpu0 := cpuTime()
	for i := 0; b.Loop(); i++ {
		s, err := Open(filepath.Join(b.TempDir(), fmt.Sprintf("put%d.db", i)))
		if err != nil {
			b.Fatal(err)
		}
		for j := 0; j < n; j += 1000 {
			if _, err := s.PutContracts(ctx, cs[j:j+1000]); err != nil {
				b.Fatal(err)
			}
		}
		s.Close()
	}
	b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "contracts/s")
	b.ReportMetric(float64(n)*float64(b.N)/(cpuTime()-cpu0).Seconds(), "contracts/cpu_s")
}
