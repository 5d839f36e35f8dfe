package neo4j_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/contractgraph/contractgraph/internal/contract"
	"github.com/contractgraph/contractgraph/internal/graph"
	"github.com/contractgraph/contractgraph/internal/graph/graphtest"
	"github.com/contractgraph/contractgraph/internal/graph/neo4j/neo4jtest"
	"github.com/contractgraph/contractgraph/internal/graph/sqlite"
	"github.com/contractgraph/contractgraph/internal/sharedtest"
	"github.com/contractgraph/contractgraph/internal/synth"
	"github.com/contractgraph/contractgraph/internal/tools"
)

// load puts cs into s in batches of 1000, failing b on any failure.
func load(b *testing.B, s graph.Store, gen func(func(*contract.Contract) error) error) {
	b.Helper()
	if err := graphtest.PutAll(context.Background(), s, gen); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkSideBySide runs the 22 dev calls through the tools layer on both
// backends over the same data — the 510 reference contracts, then a
// synthetic set (100,000 by default; CONTRACTGRAPH_BENCH_CONTRACTS changes
// it) — and reports each backend's p50 and p95 latency per call:
//
//	scripts/neo4j-test-server.sh start && eval "$(scripts/neo4j-test-server.sh env)"
//	go test ./internal/graph/neo4j -run '^$' -bench SideBySide -benchtime 10x
func BenchmarkSideBySide(b *testing.B) {
	shared := sharedtest.Dir(b)
	calls := readDevCalls(b, shared)
	n := 100_000
	if v := os.Getenv("CONTRACTGRAPH_BENCH_CONTRACTS"); v != "" {
		var err error
		if n, err = strconv.Atoi(v); err != nil || n <= 0 {
			b.Fatalf("CONTRACTGRAPH_BENCH_CONTRACTS=%q: want a positive count", v)
		}
	}
	reference := readContracts(b, filepath.Join(shared, "data", "legal-tech-chat", "contract_data.json"))
	datasets := []struct {
		name string
		gen  func(func(*contract.Contract) error) error
	}{
		{"reference-510", func(fn func(*contract.Contract) error) error {
			for _, c := range reference {
				if err := fn(c); err != nil {
					return err
				}
			}
			return nil
		}},
		{"synthetic-" + strconv.Itoa(n), func(fn func(*contract.Contract) error) error { return synth.Generate(1, n, fn) }},
	}
	now := func() time.Time { return time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC) }
	ctx := context.Background()
	for _, ds := range datasets {
		b.Run(ds.name, func(b *testing.B) {
			stores := []struct {
				name string
				open func(b *testing.B) graph.Store
			}{
				{"sqlite", func(b *testing.B) graph.Store {
					s, err := sqlite.Open(filepath.Join(b.TempDir(), "bench.db"))
					if err != nil {
						b.Fatal(err)
					}
					b.Cleanup(func() { s.Close() })
					return s
				}},
				{"neo4j", func(b *testing.B) graph.Store { return neo4jtest.Open(b) }},
			}
			for _, st := range stores {
				b.Run(st.name, func(b *testing.B) {
					s := st.open(b)
					start := time.Now()
					load(b, s, ds.gen)
					b.Logf("%s: loaded %s in %s", st.name, ds.name, time.Since(start).Round(time.Millisecond))
					set := tools.New(s, tools.Options{Now: now})
					var lat []time.Duration
					perCall := make([]time.Duration, len(calls))
					for b.Loop() {
						for i, c := range calls {
							t0 := time.Now()
							if _, err := set.Call(ctx, c.Tool, c.Args); err != nil {
								b.Fatalf("%s: %v", c.ID, err)
							}
							d := time.Since(t0)
							lat = append(lat, d)
							perCall[i] += d
						}
					}
					order := make([]int, len(calls))
					for i := range order {
						order[i] = i
					}
					slices.SortFunc(order, func(x, y int) int { return int(perCall[y] - perCall[x]) })
					for _, i := range order[:3] {
						b.Logf("%s: slow call %s (%s): %.1f ms on average", st.name, calls[i].ID, calls[i].Tool,
							ms(perCall[i])/float64(len(lat)/len(calls)))
					}
					slices.Sort(lat)
					b.ReportMetric(ms(percentile(lat, 50)), "p50-ms")
					b.ReportMetric(ms(percentile(lat, 95)), "p95-ms")
					b.ReportMetric(ms(lat[len(lat)-1]), "max-ms")
					b.ReportMetric(0, "ns/op") // one op is all 22 calls; the percentiles are per call
				})
			}
		})
	}
}

func percentile(sorted []time.Duration, p int) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	i := (len(sorted)*p + 99) / 100
	return sorted[min(max(i-1, 0), len(sorted)-1)]
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
