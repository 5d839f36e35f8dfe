package synth

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/contractgraph/contractgraph/internal/contract"
	"github.com/contractgraph/contractgraph/internal/importer"
)

var update = flag.Bool("update", false, "rewrite golden files in testdata")

// TestGolden pins the corpus for one seed across versions, so benchmark
// numbers stay comparable; a deliberate change is accepted with -update.
func TestGolden(t *testing.T) {
	var buf bytes.Buffer
	if err := WriteJSONL(&buf, 1, 5); err != nil {
		t.Fatal(err)
	}
	golden := filepath.Join("testdata", "seed1-5.golden.jsonl")
	if *update {
		if err := os.WriteFile(golden, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if !bytes.Equal(want, buf.Bytes()) {
		t.Errorf("generated corpus differs from %s; if the change is intended, run go test -update", golden)
	}
}

func TestWriteJSONLDeterministic(t *testing.T) {
	var a, b, c bytes.Buffer
	if err := WriteJSONL(&a, 42, 300); err != nil {
		t.Fatal(err)
	}
	if err := WriteJSONL(&b, 42, 300); err != nil {
		t.Fatal(err)
	}
	if err := WriteJSONL(&c, 43, 300); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a.Bytes(), b.Bytes()) {
		t.Error("same seed gave different bytes")
	}
	if bytes.Equal(a.Bytes(), c.Bytes()) {
		t.Error("different seeds gave the same bytes")
	}
}

// TestImportable writes a corpus and reads it back through the strict JSONL
// importer: every contract must pass its validation.
func TestImportable(t *testing.T) {
	path := filepath.Join(t.TempDir(), "gen.jsonl")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := WriteJSONL(f, 7, 1000); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	n := 0
	err = importer.Read(context.Background(), path, importer.Options{}, func(r importer.Record) error {
		if r.Err != nil {
			t.Errorf("generated contract rejected: %v", r.Err)
		}
		n++
		return nil
	})
	if err != nil || n != 1000 {
		t.Fatalf("Read = %v after %d records, want 1000", err, n)
	}
}

func TestDistributions(t *testing.T) {
	const n = 20000
	types := map[string]int{}
	countries := map[string]int{}
	partyContracts := map[string]int{}
	var withAmount, withDuration, withLaw, withConf, partyRoles int
	err := Generate(1, n, func(c *contract.Contract) error {
		types[c.ContractType]++
		if c.EffectiveDate < "1995-01-01" || c.EffectiveDate > "2025-12-31" {
			t.Errorf("%s: effective date %s outside 1995-2025", c.ID, c.EffectiveDate)
		}
		if c.Duration != "" {
			withDuration++
			end, err := contract.DurationEnd(c.EffectiveDate, c.Duration)
			if err != nil || end != c.EndDate {
				t.Errorf("%s: end %s, but %s + %s = %s (%v)", c.ID, c.EndDate, c.EffectiveDate, c.Duration, end, err)
			}
		}
		if c.EndDate != "" && c.EndDate < c.EffectiveDate {
			t.Errorf("%s: ends before it starts", c.ID)
		}
		if c.TotalAmount != nil {
			withAmount++
			if *c.TotalAmount <= 0 || c.Currency == "" {
				t.Errorf("%s: amount %v %q", c.ID, *c.TotalAmount, c.Currency)
			}
		}
		if c.GoverningLaw != nil {
			withLaw++
		}
		seen := map[string]bool{}
		for _, p := range c.Parties {
			key := contract.PartyKey(p.Name)
			if seen[key] {
				t.Errorf("%s: party %q twice", c.ID, p.Name)
			}
			seen[key] = true
			partyContracts[key]++
			partyRoles++
			countries[p.Location.Country]++
		}
		if len(c.Parties) < 2 {
			t.Errorf("%s: %d parties", c.ID, len(c.Parties))
		}
		for _, cl := range c.Clauses {
			if cl.Type == contract.GroupConfidentiality {
				withConf++
			}
			if _, g, err := contract.ParseClauseType(cl.Type); err != nil || g != cl.Group || cl.Text == "" {
				t.Errorf("%s: clause %+v", c.ID, cl)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(types) < 20 || types["Service"] < types["Marketing"]*5 {
		t.Errorf("contract types %v: want >= 20 types, Service far more common than Marketing", types)
	}
	us := float64(countries["US"]) / float64(partyRoles)
	if us < 0.5 || us > 0.75 || countries["CN"] == 0 || countries["GB"] == 0 {
		t.Errorf("US share %.2f, countries %v", us, countries)
	}
	frac := func(k int) float64 { return float64(k) / n }
	if f := frac(withAmount); f < 0.2 || f > 0.4 {
		t.Errorf("%.2f of contracts have an amount, want about 0.3", f)
	}
	if f := frac(withDuration); f < 0.7 || f > 0.85 {
		t.Errorf("%.2f of contracts have a duration, want about 0.78", f)
	}
	if f := frac(withLaw); f < 0.7 || f > 0.9 {
		t.Errorf("%.2f of contracts have a governing law, want about 0.8", f)
	}
	if f := frac(withConf); f < 0.35 || f > 0.55 {
		t.Errorf("%.2f of contracts have a confidentiality clause, want about 0.45", f)
	}
	// Long tail: a few parties in many contracts, most in one or two.
	counts := make([]int, 0, len(partyContracts))
	for _, k := range partyContracts {
		counts = append(counts, k)
	}
	sort.Sort(sort.Reverse(sort.IntSlice(counts)))
	small := 0
	for _, k := range counts {
		if k <= 2 {
			small++
		}
	}
	if counts[0] < 200 || float64(small)/float64(len(counts)) < 0.5 {
		t.Errorf("party contract counts: top %v, %d of %d parties with <= 2 contracts; want a long tail", counts[:5], small, len(counts))
	}
}

func TestClauseTablesValid(t *testing.T) {
	check := func(cat string) {
		if typ, _, err := contract.ParseClauseType(cat); err != nil || contract.IsClauseGroup(typ) {
			t.Errorf("clause table names %q: %v", cat, err)
		}
	}
	for typ, cats := range typeClauses {
		if _, err := contract.ParseContractType(typ, ""); err != nil {
			t.Errorf("typeClauses: %v", err)
		}
		for _, c := range cats {
			check(c)
		}
	}
	for _, g := range generalClauses {
		check(g.v)
	}
	for _, w := range contractTypes.vals {
		if _, ok := roles[w]; !ok {
			t.Errorf("no roles for %q", w)
		}
		if _, ok := typeClauses[w]; !ok {
			t.Errorf("no clauses for %q", w)
		}
	}
}

func TestGenerateStopsOnError(t *testing.T) {
	stop := errors.New("stop")
	n := 0
	err := Generate(1, 100, func(*contract.Contract) error {
		n++
		if n == 5 {
			return stop
		}
		return nil
	})
	if !errors.Is(err, stop) || n != 5 {
		t.Errorf("Generate = %v after %d, want stop after 5", err, n)
	}
}

func BenchmarkGenerate(b *testing.B) {
	for b.Loop() {
		if err := Generate(1, 10000, func(*contract.Contract) error { return nil }); err != nil {
			b.Fatal(err)
		}
	}
}
