package resolve

import (
	"context"
	"fmt"
	"testing"

	"github.com/contractgraph/contractgraph/internal/contract"
	"github.com/contractgraph/contractgraph/internal/graph"
	"github.com/contractgraph/contractgraph/internal/synth"
)

// corpusParties lists the parties of the synthetic corpus of seed 1 and n
// contracts as a store would (graph.PartyInfo, sorted by id), merged by
// contract.PartyKey as a store merges them.
func corpusParties(b *testing.B, n int) []graph.PartyInfo {
	byKey := map[string]*graph.PartyInfo{}
	var order []string
	err := synth.Generate(1, n, func(c *contract.Contract) error {
		for _, p := range c.Parties {
			k := contract.PartyKey(p.Name)
			info := byKey[k]
			if info == nil {
				info = &graph.PartyInfo{ID: graph.PartyID(k), Name: p.Name, NormalizedName: k}
				byKey[k] = info
				order = append(order, k)
			}
			var l contract.Location
			if p.Location != nil {
				l = *p.Location
			}
			info.AddRole(c.ID, p.Role, l)
		}
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
	out := make([]graph.PartyInfo, len(order))
	for i, k := range order {
		out[i] = *byKey[k]
	}
	return out
}

// BenchmarkPlan100k plans the merges of the parties of the 100k-contract
// synthetic corpus from scratch (every party compared): entities, blocking,
// scoring and clustering, what `resolve` does between reading the parties
// and merging them.
func BenchmarkPlan100k(b *testing.B) { benchmarkPlan(b, corpusParties(b, 100000)) }

// BenchmarkPlanOneContract10k plans 10,000 parties of one contract.
func BenchmarkPlanOneContract10k(b *testing.B) {
	infos := make([]graph.PartyInfo, 10000)
	for i := range infos {
		infos[i] = graph.PartyInfo{ID: fmt.Sprint("p", i), Name: fmt.Sprintf("Member %s Holdings %d LLC", []string{"Apex", "Blue", "Summit"}[i%3], i)}
		infos[i].AddRole("consortium", "Member", contract.Location{})
	}
	benchmarkPlan(b, infos)
}

func benchmarkPlan(b *testing.B, infos []graph.PartyInfo) {
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	var pairs int
	for b.Loop() {
		ents, err := entities(ctx, infos)
		if err != nil {
			b.Fatal(err)
		}
		Prepare(ents)
		_, pairs, err = plan(ctx, ents, nil, DefaultThreshold, func(Progress) {})
		if err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(infos)), "parties")
	b.ReportMetric(float64(pairs), "pairs")
}
