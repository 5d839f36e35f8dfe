// Command loadmix sends a mix of API calls to a running `contractgraph
// serve` at a fixed concurrency and reports, per class of call, latency
// percentiles and the count of each status, so that admission control can
// be measured: cheap calls must stay fast while expensive ones queue or
// are refused with 503.
//
//	go run ./scripts/loadmix -url http://127.0.0.1:8080 -n 2000 -c 200
//
// The mix, by default 40 % contract lookups, 30 % structured searches and
// aggregates, 30 % clause searches, draws contract ids from the store's
// first page of each contract type, so it needs no list of ids.
package main

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/url"
	"os"
	"slices"
	"strings"
	"sync"
	"time"
)

type call struct {
	class  string
	method string
	path   string
	body   string
}

type result struct {
	class   string
	status  int
	elapsed time.Duration
	err     error
}

func main() {
	base := flag.String("url", "http://127.0.0.1:8080", "the server's base URL")
	n := flag.Int("n", 2000, "calls in all")
	c := flag.Int("c", 200, "calls in flight at once")
	lookup := flag.Float64("lookup", 0.4, "share of contract lookups")
	query := flag.Float64("query", 0.3, "share of structured searches and aggregates")
	timeout := flag.Duration("timeout", 60*time.Second, "client timeout per call")
	seed := flag.Uint64("seed", 1, "seed of the mix")
	asJSON := flag.Bool("json", false, "print the report as JSON")
	flag.Parse()
	if err := run(*base, *n, *c, *lookup, *query, *timeout, *seed, *asJSON); err != nil {
		fmt.Fprintln(os.Stderr, "loadmix:", err)
		os.Exit(1)
	}
}

func run(base string, n, conc int, lookupShare, queryShare float64, timeout time.Duration, seed uint64, asJSON bool) error {
	if n < 1 || conc < 1 || lookupShare < 0 || queryShare < 0 || lookupShare+queryShare > 1 {
		return fmt.Errorf("want -n and -c of at least 1 and shares that sum to at most 1")
	}
	client := &http.Client{Timeout: timeout, Transport: &http.Transport{MaxIdleConnsPerHost: conc, MaxConnsPerHost: 0}}
	ids, err := sampleIDs(client, base)
	if err != nil {
		return err
	}
	rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	calls := make([]call, n)
	for i := range calls {
		calls[i] = pick(rng, ids, lookupShare, queryShare)
	}
	results := make([]result, n)
	jobs := make(chan int)
	var wg sync.WaitGroup
	start := time.Now()
	for range conc {
		wg.Go(func() {
			for i := range jobs {
				results[i] = do(client, base, calls[i])
			}
		})
	}
	for i := range calls {
		jobs <- i
	}
	close(jobs)
	wg.Wait()
	return report(os.Stdout, results, time.Since(start), n, conc, asJSON)
}

var (
	contractTypes = []string{"Distributor", "License Agreement", "Service", "Supply", "Strategic Alliance", "Joint Venture", "Franchise", "Consulting"}
	clauseQueries = []string{"terminate for convenience", "limitation of liability consequential damages",
		"exclusive distributor territory", "governing law New York", "non-solicitation employees"}
	groupings = []string{"contract_type", "governing_law_state", "effective_year", "party_country"}
)

func pick(rng *rand.Rand, ids []string, lookupShare, queryShare float64) call {
	switch r := rng.Float64(); {
	case r < lookupShare:
		return call{class: "lookup", method: "GET", path: "/api/contracts/" + url.PathEscape(ids[rng.IntN(len(ids))])}
	case r < lookupShare+queryShare:
		if rng.IntN(2) == 0 {
			return call{class: "query", method: "GET", path: "/api/contracts?contract_type=" + url.QueryEscape(contractTypes[rng.IntN(len(contractTypes))])}
		}
		return call{class: "query", method: "GET", path: "/api/aggregate?group_by=" + groupings[rng.IntN(len(groupings))] + "&limit=5"}
	default:
		q, _ := json.Marshal(map[string]any{"query": clauseQueries[rng.IntN(len(clauseQueries))], "limit": 5})
		return call{class: "text", method: "POST", path: "/api/tools/clause_search", body: string(q)}
	}
}

// sampleIDs reads a page of contract ids per contract type.
func sampleIDs(client *http.Client, base string) ([]string, error) {
	var ids []string
	for _, t := range contractTypes {
		resp, err := client.Get(base + "/api/contracts?limit=50&contract_type=" + url.QueryEscape(t))
		if err != nil {
			return nil, fmt.Errorf("sample contract ids: %w", err)
		}
		var page struct {
			Examples []struct {
				ID string `json:"contract_id"`
			} `json:"examples"`
		}
		err = json.NewDecoder(resp.Body).Decode(&page)
		resp.Body.Close()
		if err != nil || resp.StatusCode != http.StatusOK {
			return nil, fmt.Errorf("sample contract ids: GET /api/contracts: %s %v", resp.Status, err)
		}
		for _, e := range page.Examples {
			ids = append(ids, e.ID)
		}
	}
	if len(ids) == 0 {
		return nil, fmt.Errorf("the store has no contracts of the types %s", strings.Join(contractTypes, ", "))
	}
	return ids, nil
}

func do(client *http.Client, base string, c call) result {
	ctx := context.Background()
	var body io.Reader
	if c.body != "" {
		body = bytes.NewReader([]byte(c.body))
	}
	req, err := http.NewRequestWithContext(ctx, c.method, base+c.path, body)
	if err != nil {
		return result{class: c.class, err: err}
	}
	if c.body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	if tok := os.Getenv("CONTRACTGRAPH_TOKEN"); tok != "" {
		req.Header.Set("Authorization", "Bearer "+tok)
	}
	start := time.Now()
	resp, err := client.Do(req)
	if err != nil {
		return result{class: c.class, elapsed: time.Since(start), err: err}
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return result{class: c.class, status: resp.StatusCode, elapsed: time.Since(start)}
}

// classReport is one class's figures; latencies are of the calls answered
// 200.
type classReport struct {
	Class    string         `json:"class"`
	Calls    int            `json:"calls"`
	Statuses map[string]int `json:"statuses"`
	Errors   int            `json:"client_errors"`
	P50ms    float64        `json:"p50_ms"`
	P95ms    float64        `json:"p95_ms"`
	Maxms    float64        `json:"max_ms"`
}

func report(w io.Writer, results []result, wall time.Duration, n, conc int, asJSON bool) error {
	by := map[string][]result{}
	for _, r := range results {
		by[r.class] = append(by[r.class], r)
	}
	var out []classReport
	for _, class := range []string{"lookup", "query", "text"} {
		rs := by[class]
		if len(rs) == 0 {
			continue
		}
		cr := classReport{Class: class, Calls: len(rs), Statuses: map[string]int{}}
		var ok []time.Duration
		for _, r := range rs {
			if r.err != nil {
				cr.Errors++
				continue
			}
			cr.Statuses[fmt.Sprint(r.status)]++
			if r.status == http.StatusOK {
				ok = append(ok, r.elapsed)
			}
		}
		slices.Sort(ok)
		if len(ok) > 0 {
			cr.P50ms = ms(ok[len(ok)/2])
			cr.P95ms = ms(ok[min(len(ok)-1, len(ok)*95/100)])
			cr.Maxms = ms(ok[len(ok)-1])
		}
		out = append(out, cr)
	}
	if asJSON {
		return json.NewEncoder(w).Encode(map[string]any{"calls": n, "concurrency": conc, "wall_s": wall.Seconds(), "classes": out})
	}
	fmt.Fprintf(w, "%d calls at %d concurrent in %.1fs\n", n, conc, wall.Seconds())
	fmt.Fprintf(w, "%-7s %6s %9s %9s %9s  %s\n", "class", "calls", "p50 ms", "p95 ms", "max ms", "statuses (client errors)")
	for _, cr := range out {
		keys := make([]string, 0, len(cr.Statuses))
		for k := range cr.Statuses {
			keys = append(keys, k)
		}
		slices.SortFunc(keys, func(a, b string) int { return cmp.Compare(a, b) })
		var parts []string
		for _, k := range keys {
			parts = append(parts, fmt.Sprintf("%s×%d", k, cr.Statuses[k]))
		}
		fmt.Fprintf(w, "%-7s %6d %9.1f %9.1f %9.1f  %s (%d)\n", cr.Class, cr.Calls, cr.P50ms, cr.P95ms, cr.Maxms, strings.Join(parts, " "), cr.Errors)
	}
	return nil
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
