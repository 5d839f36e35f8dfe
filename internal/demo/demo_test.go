package demo

import (
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/contractgraph/contractgraph/internal/contract"
	"github.com/contractgraph/contractgraph/internal/graph"
	"github.com/contractgraph/contractgraph/internal/graph/sqlite"
	"github.com/contractgraph/contractgraph/internal/tools"
)

var update = flag.Bool("update", false, "rewrite golden files")

func buildStore(t *testing.T, opts Options) (graph.Store, Summary) {
	t.Helper()
	store, err := sqlite.Open(filepath.Join(t.TempDir(), "demo.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	sum, err := Build(context.Background(), store, opts)
	if err != nil {
		t.Fatal(err)
	}
	return store, sum
}

// The tour over the samples alone is fixed by the shipped data; its
// rendering is pinned by a golden file (refresh with -update).
func TestTourGolden(t *testing.T) {
	store, sum := buildStore(t, Options{Contracts: -1})
	if sum.Generated != 0 || sum.Samples != 6 {
		t.Fatalf("summary %+v", sum)
	}
	set := tools.New(store, tools.Options{Now: func() time.Time { return time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC) }})
	answers, err := RunTour(context.Background(), set)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := Render(&b, answers, "contractgraph --db demo.db", tools.TextOptions{}); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join("testdata", "tour.golden")
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if diff := cmp.Diff(string(want), b.String()); diff != "" {
		t.Errorf("tour output changed (-golden +got); run with -update if intended:\n%s", diff)
	}
}

// With the generated corpus mixed in, each tour answer still finds the
// sample contracts it is about.
func TestTourOnFullCorpus(t *testing.T) {
	store, sum := buildStore(t, Options{Contracts: 300, Seed: 3})
	if sum.Generated != 300 {
		t.Fatalf("generated %d contracts, want 300", sum.Generated)
	}
	st, err := store.Stats(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if st.Nodes["Contract"] != 306 {
		t.Errorf("store holds %d contracts, want 306", st.Nodes["Contract"])
	}
	answers, err := RunTour(context.Background(), tools.New(store, tools.Options{}))
	if err != nil {
		t.Fatal(err)
	}
	if len(answers) != len(Tour()) || len(answers) < 5 {
		t.Fatalf("%d answers", len(answers))
	}

	var total struct {
		TotalGroups int           `json:"total_groups"`
		Groups      []graph.Group `json:"groups"`
	}
	decode(t, answers[0].Result, &total)
	if len(total.Groups) != 5 || total.TotalGroups < 10 {
		t.Errorf("contract types: %+v", total)
	}

	var active graph.ContractResult
	decode(t, answers[1].Result, &active)
	var ids []string
	for _, e := range active.Examples {
		ids = append(ids, e.ContractID)
	}
	if diff := cmp.Diff([]string{"demo-transport-lumen", "demo-distribution-nordlicht"}, ids); diff != "" {
		t.Errorf("Cascade contracts in force on 2025-07-01 (-want +got):\n%s", diff)
	}

	var passages tools.ClauseResult
	decode(t, answers[3].Result, &passages)
	if len(passages.Passages) == 0 || passages.Passages[0].ContractID != "demo-saas-kestrel" ||
		passages.Passages[0].ClauseType != "Cap On Liability" || !passages.Passages[0].Verified {
		t.Errorf("liability passages: %+v", passages.Passages)
	}

	var parties graph.PartyResult
	decode(t, answers[4].Result, &parties)
	found := false
	for _, p := range parties.Examples {
		if p.Country != "DE" {
			t.Errorf("party %s in %s, want DE", p.Name, p.Country)
		}
	}
	if parties.TotalCount == 0 {
		t.Errorf("no parties in Germany")
	}
	res, err := store.SearchParties(context.Background(), graph.PartyQuery{Name: "Nordlicht", Country: "DE", Limit: 5})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range res.Examples {
		found = found || p.Name == "Nordlicht Sensorik GmbH"
	}
	if !found {
		t.Errorf("Nordlicht Sensorik GmbH is not a party in Germany: %+v", res.Examples)
	}

	var rec tools.ContractRecord
	decode(t, answers[5].Result, &rec)
	if rec.ID != "demo-distribution-nordlicht" || len(rec.Clauses) != 9 || rec.TextLength == 0 {
		t.Errorf("get_contract: id %s, %d clauses, text length %d", rec.ID, len(rec.Clauses), rec.TextLength)
	}
	for _, cl := range rec.Clauses {
		if !cl.Verified {
			t.Errorf("clause %s not verified", cl.Type)
		}
	}
}

// Building twice stores the same corpus: every contract is unchanged.
func TestBuildIsDeterministic(t *testing.T) {
	store, _ := buildStore(t, Options{Contracts: 50, Seed: 11})
	samples, err := Samples()
	if err != nil {
		t.Fatal(err)
	}
	outs, err := store.PutContracts(context.Background(), samples)
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range outs {
		if o.Status != graph.PutUnchanged {
			t.Errorf("re-putting sample %s: %s %v", o.ID, o.Status, o.Err)
		}
	}
	if _, err := Build(context.Background(), store, Options{Contracts: 50, Seed: 11}); err != nil {
		t.Fatal(err)
	}
	st, err := store.Stats(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if st.Nodes["Contract"] != 56 {
		t.Errorf("after a second build: %d contracts, want 56", st.Nodes["Contract"])
	}
}

func decode(t *testing.T, raw json.RawMessage, v any) {
	t.Helper()
	if err := json.Unmarshal(raw, v); err != nil {
		t.Fatalf("%s: %v", raw, err)
	}
}

// TestDemoCalendarNeverEmpty checks that the demo corpus, as
// `contractgraph demo` builds it, has notice deadlines in every 90-day
// window of the next three years from today, which is what the dashboard's
// "Act on these" panel shows; and that the samples alone, whose renewals
// roll forward, have some in the coming year.
func TestDemoCalendarNeverEmpty(t *testing.T) {
	ctx := context.Background()
	today := time.Now()
	check := func(store graph.Store, from time.Time, days int) int {
		t.Helper()
		res, err := store.(graph.DeadlineSearcher).SearchDeadlines(ctx, graph.DeadlineQuery{
			From: from.Format(time.DateOnly), To: from.AddDate(0, 0, days).Format(time.DateOnly),
			Kinds: []string{contract.DeadlineNotice}, Limit: 1})
		if err != nil {
			t.Fatal(err)
		}
		return res.TotalCount
	}
	samples, _ := buildStore(t, Options{Contracts: -1})
	if n := check(samples, today, 365); n == 0 {
		t.Errorf("the sample contracts have no notice deadline in the year from %s", today.Format(time.DateOnly))
	}
	// The demo's own corpus (the default size; at least 33 notice
	// deadlines in every window when this test was written). Under the
	// race detector a smaller corpus over one year, which still has some.
	opts, years := Options{}, 3
	if raceEnabled {
		opts, years = Options{Contracts: 600}, 1
	}
	store, _ := buildStore(t, opts)
	for d := today; d.Before(today.AddDate(years, 0, 0)); d = d.AddDate(0, 0, 7) {
		if n := check(store, d, 90); n == 0 {
			t.Errorf("no notice deadline in the 90 days from %s", d.Format(time.DateOnly))
		}
	}
}

// TestCascadeAmountsKeepTheirCurrencies: the demo's Cascade Instruments
// contracts are CAD 1,280,000 and EUR 6,000,000; their sum is one value per
// currency, never 7,280,000 of nothing, and contract_search shows each
// amount's currency.
func TestCascadeAmountsKeepTheirCurrencies(t *testing.T) {
	store, _ := buildStore(t, Options{Contracts: -1}) // the samples alone
	set := tools.New(store, tools.Options{})
	out, err := set.Call(context.Background(), tools.NameContractAggregate, json.RawMessage(`{"parties":["Cascade Instruments"],"metric":"sum_amount"}`))
	if err != nil {
		t.Fatal(err)
	}
	var agg graph.AggregateResult
	decode(t, out, &agg)
	got := map[string]float64{}
	for _, g := range agg.Groups {
		if g.Currency == nil || g.Value == nil {
			t.Fatalf("group %+v has no currency or value", g)
		}
		got[*g.Currency] = *g.Value
	}
	if diff := cmp.Diff(map[string]float64{"CAD": 1280000, "EUR": 6000000}, got); diff != "" || agg.TotalGroups != 2 {
		t.Errorf("Cascade's sum_amount: %d groups (-want +got):\n%s", agg.TotalGroups, diff)
	}
	out, err = set.Call(context.Background(), tools.NameContractSearch, json.RawMessage(`{"parties":["Cascade Instruments"],"order_by":"total_amount","limit":5}`))
	if err != nil {
		t.Fatal(err)
	}
	var res graph.ContractResult
	decode(t, out, &res)
	var amounts []string
	for _, e := range res.Examples {
		if e.TotalAmount != nil {
			amounts = append(amounts, e.Currency+" "+strconv.FormatFloat(*e.TotalAmount, 'f', -1, 64))
		}
	}
	if diff := cmp.Diff([]string{"EUR 6000000", "CAD 1280000"}, amounts); diff != "" {
		t.Errorf("contract_search amounts (-want +got):\n%s", diff)
	}
}

// The tour's playbook stop on the samples: its verdicts are fixed by the
// shipped data and the example playbook; the rendering is pinned by a
// golden file (refresh with -update).
func TestTourPlaybookGolden(t *testing.T) {
	store, _ := buildStore(t, Options{Contracts: -1})
	rep, err := CheckPlaybook(context.Background(), store, time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	if err != nil {
		t.Fatal(err)
	}
	if rep.Counts.MeetsStandard == 0 || rep.Counts.Deviation == 0 || rep.Counts.RedFlag == 0 {
		t.Errorf("the demo contract should show several verdicts: %+v", rep.Counts)
	}
	var b strings.Builder
	if err := RenderPlaybook(&b, len(Tour())+1, rep, "contractgraph --db demo.db"); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join("testdata", "playbook.golden")
	if *update {
		if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if diff := cmp.Diff(string(want), b.String()); diff != "" {
		t.Errorf("playbook stop changed (-golden +got); run with -update if intended:\n%s", diff)
	}
}
