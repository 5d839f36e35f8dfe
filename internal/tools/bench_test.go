package tools_test

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/contractgraph/contractgraph/internal/contract"
	"github.com/contractgraph/contractgraph/internal/graph"
	"github.com/contractgraph/contractgraph/internal/graph/graphtest"
	"github.com/contractgraph/contractgraph/internal/graph/sqlite"
	"github.com/contractgraph/contractgraph/internal/sharedtest"
	"github.com/contractgraph/contractgraph/internal/synth"
	"github.com/contractgraph/contractgraph/internal/tools"
)

// benchContracts is the size of the synthetic store the dev calls are
// measured on (the target: p95 <= 100 ms at 100,000 contracts).
const benchContracts = 100_000

// synthStore fills a fresh SQLite store with n generated contracts.
func synthStore(b *testing.B, n int) graph.Store {
	b.Helper()
	ctx := context.Background()
	store, err := sqlite.Open(filepath.Join(b.TempDir(), "synth.db"))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { store.Close() })
	start := time.Now()
	err = graphtest.PutAll(ctx, store, func(yield func(*contract.Contract) error) error {
		return synth.Generate(1, n, yield)
	})
	if err != nil {
		b.Fatal(err)
	}
	b.Logf("loaded %d synthetic contracts in %s", n, time.Since(start).Round(time.Millisecond))
	return store
}

// BenchmarkDevCalls measures each of the 22 dev calls through tools.Set on
// a 100,000-contract synthetic store and reports its p50 and p95 latency,
// and the p95 of the CPU time a call takes (which, unlike wall time, does
// not grow when other processes keep the cores busy).
//
//	go test ./internal/tools -run '^$' -bench DevCalls
func BenchmarkDevCalls(b *testing.B) {
	shared := sharedtest.Dir(b)
	calls := readDevCalls(b, shared)
	store := synthStore(b, benchContracts)
	set := tools.New(store, tools.Options{Now: func() time.Time { return time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC) }})
	ctx := context.Background()
	for _, c := range calls {
		b.Run(c.ID+"_"+c.Tool, func(b *testing.B) {
			var lat, cpu []time.Duration
			for b.Loop() {
				start := time.Now()
				cpu0, cpuOK := processCPU()
				if _, err := set.Call(ctx, c.Tool, c.Args); err != nil {
					b.Fatalf("%s: %v", c.ID, err)
				}
				lat = append(lat, time.Since(start))
				if cpu1, ok := processCPU(); ok && cpuOK {
					cpu = append(cpu, cpu1-cpu0)
				}
			}
			slices.Sort(lat)
			b.ReportMetric(ms(percentile(lat, 50)), "p50-ms")
			b.ReportMetric(ms(percentile(lat, 95)), "p95-ms")
			if len(cpu) > 0 {
				slices.Sort(cpu)
				b.ReportMetric(ms(percentile(cpu, 95)), "cpu-p95-ms")
			}
			b.ReportMetric(0, "ns/op") // the percentiles say more than the mean
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

// BenchmarkPartyTypos measures typo-tolerant party matching on the
// 100,000-contract synthetic store: contract_search, contract_aggregate
// and party_search with a party name as stored (the exact path, which
// adds a look-up of the names version and a scan of the cached names;
// _only is the same call with ExactParties), and with two letters of it
// swapped and one dropped (the names matched in Go, then the query by
// party ids), and reports p50 and p95. The names are read once, at the
// first call, and again only after a write changes them.
//
//	go test ./internal/tools -run '^$' -bench PartyTypos
func BenchmarkPartyTypos(b *testing.B) {
	store := synthStore(b, benchContracts)
	ctx := context.Background()
	names, err := store.(graph.PartyNameLister).PartyNames(ctx)
	if err != nil {
		b.Fatal(err)
	}
	b.Logf("%d parties", len(names))
	// Parties spread over the list, of names long enough to allow a typo.
	var picks []string
	for i := 0; i < len(names) && len(picks) < 20; i += max(1, len(names)/50) {
		if w := strings.Fields(names[i].Keys[0]); len(w[0]) >= 6 {
			picks = append(picks, names[i].Name)
		}
	}
	if len(picks) == 0 {
		b.Fatal("no party to misspell")
	}
	typo := func(name string) string { // swap the 2nd and 3rd letters, drop the 5th
		r := []rune(name)
		r[1], r[2] = r[2], r[1]
		return string(append(r[:4:4], r[5:]...))
	}
	set := tools.New(store, tools.Options{})
	exact := tools.New(store, tools.Options{ExactParties: true})
	for _, c := range []struct {
		name, tool, args string
		typo             bool
	}{
		{"contract_search_exact_only", tools.NameContractSearch, `{"parties":[%q]}`, false}, // ExactParties: the baseline
		{"contract_search_exact", tools.NameContractSearch, `{"parties":[%q]}`, false},
		{"contract_search_typo", tools.NameContractSearch, `{"parties":[%q]}`, true},
		{"contract_aggregate_typo", tools.NameContractAggregate, `{"parties":[%q],"group_by":"contract_type"}`, true},
		{"party_search_exact", tools.NamePartySearch, `{"name":%q}`, false},
		{"party_search_typo", tools.NamePartySearch, `{"name":%q}`, true},
	} {
		b.Run(c.name, func(b *testing.B) {
			var lat []time.Duration
			i := 0
			for b.Loop() {
				name := picks[i%len(picks)]
				i++
				if c.typo {
					name = typo(name)
				}
				on := set
				if strings.HasSuffix(c.name, "_only") {
					on = exact
				}
				start := time.Now()
				out, err := on.Call(ctx, c.tool, json.RawMessage(fmt.Sprintf(c.args, name)))
				if err != nil {
					b.Fatal(err)
				}
				lat = append(lat, time.Since(start))
				if c.typo && !strings.Contains(string(out), `"party_matches"`) {
					b.Fatalf("%s %q: no party match in %s", c.tool, name, out)
				}
			}
			slices.Sort(lat)
			b.ReportMetric(ms(percentile(lat, 50)), "p50-ms")
			b.ReportMetric(ms(percentile(lat, 95)), "p95-ms")
			b.ReportMetric(0, "ns/op")
		})
	}
}
