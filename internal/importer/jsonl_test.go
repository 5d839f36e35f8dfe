package importer

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/contractgraph/contractgraph/internal/contract"
	"github.com/contractgraph/contractgraph/internal/graph"
	"github.com/contractgraph/contractgraph/internal/graph/sqlite"
	"github.com/contractgraph/contractgraph/internal/sharedtest"
)

func TestJSONLMalformed(t *testing.T) {
	dir := t.TempDir()
	good := `{"id":"a","contract_type":"Service","effective_date":"2020-01-01","parties":[{"name":"Acme Inc.","location":{"country":"US","state":"NY"}}],"text":"Acme agrees.","clauses":[{"type":"governing law","text":"Acme agrees.","start":0,"end":12,"verified":true}]}`
	tests := []struct {
		name      string
		content   string
		wantIDs   []string
		wantRecs  []string
		wantFatal string
	}{
		{name: "header and good line", content: `{"contractgraph_export":1}` + "\n\n" + good + "\n", wantIDs: []string{"a"}},
		{name: "no header, no final newline", content: good, wantIDs: []string{"a"}},
		{name: "future version", content: `{"contractgraph_export":2}` + "\n" + good, wantFatal: "F: line 1: field contractgraph_export: unsupported export version 2 (want 1)"},
		{
			name: "bad records continue",
			content: strings.Join([]string{
				`{"contractgraph_export":1}`,
				`{"id":"b","colour":"red"}`,
				`{"id":"c","effective_date":"2019-02-30"}`,
				`{"id":"d","effective_date":"March 1, 2019"}`,
				`{"id":"e","total_amount":"lots"}`,
				`{"id":"f","contract_type":"Lease"}`,
				`{"id":"g","text":"abc","clauses":[{"type":"Insurance","text":"abd","start":0,"end":3,"verified":true}]}`,
				`{"id":"h","parties":[{"name":"X","location":{"country":"USA"}}]}`,
				`{"id":"i","duration":"PUN"}`,
				`{"id":"j"`,
				`{"id":""}`,
				good,
			}, "\n"),
			wantIDs: []string{"a"},
			wantRecs: []string{
				`F: line 2 (id "b"): field colour: unknown field`,
				`F: line 3 (id "c"): field effective_date: invalid date "2019-02-30": day 30 does not exist in 2019-02`,
				`F: line 4 (id "d"): field effective_date: date "March 1, 2019" must be written YYYY-MM-DD (2019-03-01)`,
				`F: line 5 (id "e"): field total_amount: expected a number, got JSON string`,
				`F: line 6 (id "f"): field contract_type: unknown contract type "Lease"; valid values: ` + strings.Join(contract.ContractTypes, ", "),
				`F: line 7 (id "g"): field clauses[0].verified: the text at [0,3) differs from the clause text`,
				`F: line 8 (id "h"): field parties[0].location.country: "USA" is not an ISO 3166-1 alpha-2 code`,
				`F: line 9 (id "i"): field duration: invalid ISO 8601 duration "PUN": expected a number at "UN"`,
				`F: line 10: malformed JSON: unexpected EOF`,
				`F: line 11: field id: empty`,
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := writeFile(t, dir, "in.jsonl", tt.content)
			var ids, recErrs []string
			err := Read(context.Background(), path, Options{}, func(r Record) error {
				if r.Err != nil {
					recErrs = append(recErrs, strings.ReplaceAll(r.Err.Error(), path, "F"))
					return nil
				}
				ids = append(ids, r.Contract.ID)
				return nil
			})
			gotFatal := ""
			if err != nil {
				gotFatal = strings.ReplaceAll(err.Error(), path, "F")
			}
			if gotFatal != tt.wantFatal {
				t.Errorf("Read error = %q, want %q", gotFatal, tt.wantFatal)
			}
			if diff := cmp.Diff(tt.wantIDs, ids); diff != "" {
				t.Errorf("ids (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantRecs, recErrs); diff != "" {
				t.Errorf("record errors (-want +got):\n%s", diff)
			}
		})
	}
}

// importInto reads path and writes every good contract to store.
func importInto(t *testing.T, store graph.Store, path string, opts Options) map[graph.PutStatus]int {
	t.Helper()
	return importFirst(t, store, path, opts, -1)
}

// errEnough stops a Read after the first records.
var errEnough = errors.New("enough records")

// importFirst is importInto for the first n records (all when n < 0).
func importFirst(t *testing.T, store graph.Store, path string, opts Options, n int) map[graph.PutStatus]int {
	t.Helper()
	ctx := context.Background()
	var batch []*contract.Contract
	counts := map[graph.PutStatus]int{}
	flush := func() {
		out, err := store.PutContracts(ctx, batch)
		if err != nil {
			t.Fatal(err)
		}
		for _, o := range out {
			counts[o.Status]++
			if o.Err != nil {
				t.Errorf("put %s: %v", o.ID, o.Err)
			}
		}
		batch = batch[:0]
	}
	err := Read(ctx, path, opts, func(r Record) error {
		if n >= 0 && r.Index > n {
			return errEnough
		}
		if r.Err != nil {
			t.Errorf("record %d: %v", r.Index, r.Err)
			return nil
		}
		batch = append(batch, r.Contract)
		if len(batch) == 200 {
			flush()
		}
		return nil
	})
	if err != nil && !errors.Is(err, errEnough) {
		t.Fatal(err)
	}
	flush()
	return counts
}

func openStore(t *testing.T, name string) *sqlite.Store {
	t.Helper()
	s, err := sqlite.Open(filepath.Join(t.TempDir(), name))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// TestRoundTrip imports the reference data and the CUAD data, exports the
// store, imports the export into an empty store and checks that both stores
// hold the same contracts and give the same tool answers.
func TestRoundTrip(t *testing.T) {
	shared := sharedtest.Dir(t)
	ctx := context.Background()
	a := openStore(t, "a.db")
	if got := importInto(t, a, filepath.Join(shared, "data", "legal-tech-chat", "contract_data.json"), Options{}); got[graph.PutCreated] != 510 {
		t.Fatalf("first import: %v, want 510 created", got)
	}
	if got := importInto(t, a, filepath.Join(shared, "data", "legal-tech-chat", "contract_data.json"), Options{}); got[graph.PutUnchanged] != 510 {
		t.Errorf("re-import: %v, want 510 unchanged", got)
	}

	var buf bytes.Buffer
	if err := Export(ctx, a, &buf); err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(buf.Bytes(), []byte(`{"contractgraph_export":1,`)) {
		t.Errorf("export starts %q", buf.String()[:40])
	}
	exported := filepath.Join(t.TempDir(), "export.jsonl")
	if err := os.WriteFile(exported, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	b := openStore(t, "b.db")
	if got := importInto(t, b, exported, Options{}); got[graph.PutCreated] != 510 {
		t.Fatalf("import of export: %v, want 510 created", got)
	}

	var ca, cb []*contract.Contract
	collect := func(dst *[]*contract.Contract) func(*contract.Contract) error {
		return func(c *contract.Contract) error { *dst = append(*dst, c); return nil }
	}
	if err := a.Contracts(ctx, collect(&ca)); err != nil {
		t.Fatal(err)
	}
	if err := b.Contracts(ctx, collect(&cb)); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(ca, cb); diff != "" {
		t.Errorf("contracts differ after round trip (-a +b):\n%s", diff)
	}

	yes := true
	searches := []graph.ContractQuery{
		{Filter: graph.Filter{ContractType: "Distributor", MinEndDate: "2005-01-01", MaxEndDate: "2005-12-31"}, Limit: 10},
		{Filter: graph.Filter{PartyCountry: "CN"}, Limit: 5},
		{Filter: graph.Filter{Active: &yes, AsOf: "2015-06-30"}, Limit: 5},
		{Filter: graph.Filter{GoverningLawState: "DE", ClauseTypes: []string{contract.GroupLiability}}, Limit: 5},
		{Filter: graph.Filter{Parties: []string{"Excite"}}, OrderBy: graph.OrderDurationDays, Desc: true, Limit: 3},
	}
	for _, q := range searches {
		ra, err := a.SearchContracts(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		rb, err := b.SearchContracts(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		if ra.TotalCount == 0 {
			t.Errorf("query %+v matched nothing; a useless comparison", q)
		}
		if diff := cmp.Diff(ra, rb); diff != "" {
			t.Errorf("SearchContracts(%+v) differs (-a +b):\n%s", q, diff)
		}
	}
	aggs := []graph.AggregateQuery{
		{Filter: graph.Filter{GoverningLawCountry: "US"}, GroupBy: graph.GroupGoverningLawState, Metric: graph.MetricCount, Limit: 5},
		{GroupBy: graph.GroupParty, Metric: graph.MetricCount, Limit: 100},
		{GroupBy: graph.GroupContractType, Metric: graph.MetricAvgAmount, Limit: 5},
		{Filter: graph.Filter{ContractType: "Franchise"}, Metric: graph.MetricAvgDurationDays},
	}
	for _, q := range aggs {
		ra, err := a.AggregateContracts(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		rb, err := b.AggregateContracts(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(ra, rb); diff != "" {
			t.Errorf("AggregateContracts(%+v) differs (-a +b):\n%s", q, diff)
		}
	}
	// A merged party is shown under the preferred of its spellings, not the
	// first one the store saw, so the export (in id order, not input order)
	// shows every party under the same name with the same aliases.
	for _, q := range []graph.PartyQuery{
		{Country: "CA", Limit: 10},
		{MinContracts: 2, Limit: 50},
	} {
		pa, err := a.SearchParties(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		pb, err := b.SearchParties(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		if pa.TotalCount == 0 {
			t.Errorf("party query %+v matched nothing; a useless comparison", q)
		}
		if diff := cmp.Diff(pa, pb, cmpIgnorePartyIDs); diff != "" {
			t.Errorf("SearchParties(%+v) differs (-a +b):\n%s", q, diff)
		}
	}
}

var cmpIgnorePartyIDs = cmp.FilterPath(func(p cmp.Path) bool { return strings.HasSuffix(p.String(), "PartyID") }, cmp.Ignore())

// TestCUADRoundTrip checks that texts and verified clause offsets survive
// the store and the export.
func TestCUADRoundTrip(t *testing.T) {
	if testing.Short() {
		t.Skip("imports 16 MB of contract text")
	}
	shared := sharedtest.Dir(t)
	ctx := context.Background()
	a := openStore(t, "cuad.db")
	n := 306
	if raceEnabled {
		n = 20 // the race detector makes the pure-Go SQLite ~20x slower
	}
	if got := importFirst(t, a, filepath.Join(shared, "data", "cuad"), Options{}, n); got[graph.PutCreated] != n {
		t.Fatalf("import: %v, want %d created", got, n)
	}
	if got := importFirst(t, a, filepath.Join(shared, "data", "cuad"), Options{}, n); got[graph.PutUnchanged] != n {
		t.Errorf("re-import: %v, want %d unchanged", got, n)
	}
	var buf bytes.Buffer
	if err := Export(ctx, a, &buf); err != nil {
		t.Fatal(err)
	}
	exported := filepath.Join(t.TempDir(), "cuad.jsonl")
	if err := os.WriteFile(exported, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	b := openStore(t, "cuad2.db")
	if got := importInto(t, b, exported, Options{}); got[graph.PutCreated] != n {
		t.Fatalf("import of export: %v, want %d created", got, n)
	}
	id := "CybergyHoldingsInc_20140520_10-Q_EX-10.27_8605784_EX-10.27_Affiliate Agreement"
	ga, err := a.GetContract(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	gb, err := b.GetContract(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(ga, gb, cmpIgnorePartyIDs); diff != "" {
		t.Errorf("GetContract differs (-a +b):\n%s", diff)
	}
	verified := 0
	for _, cl := range gb.Clauses {
		if cl.Verified && gb.Text[cl.Start:cl.End] == cl.Text {
			verified++
		}
	}
	if verified != len(gb.Clauses) || verified == 0 {
		t.Errorf("%d of %d clauses verified after the round trip", verified, len(gb.Clauses))
	}
}
