package tools_test

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/contractgraph/contractgraph/internal/contract"
	"github.com/contractgraph/contractgraph/internal/graph"
	"github.com/contractgraph/contractgraph/internal/graph/sqlite"
	"github.com/contractgraph/contractgraph/internal/llm/llmtest"
	"github.com/contractgraph/contractgraph/internal/retrieve"
	"github.com/contractgraph/contractgraph/internal/tools"
)

// With summary embeddings, summary_search also takes the contracts nearest
// in meaning: here a search whose words too few of a summary holds (two
// of four, where most words means three) still finds it, says so in
// summary_by_meaning, and leaves out the contracts far from it.
func TestSummarySearchByMeaning(t *testing.T) {
	ctx := context.Background()
	store, err := sqlite.Open(filepath.Join(t.TempDir(), "graph.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	mk := func(id, title, summary string) *contract.Contract {
		return &contract.Contract{ID: id, Title: title, Summary: summary, ContractType: "Service"}
	}
	if _, err := store.PutContracts(ctx, []*contract.Contract{
		mk("records", "Services Agreement", "Hosting of patient records for a clinic network."),
		mk("gloves", "Supply Agreement", "Supply of surgical gloves."),
		mk("forklifts", "Equipment Lease", "Lease of forklifts for a warehouse."),
	}); err != nil {
		t.Fatal(err)
	}
	emb := &llmtest.Embedder{Dim: 256}
	if _, err := retrieve.EmbedMissing(ctx, store, emb, retrieve.EmbedOptions{Model: "test:bag", Kinds: []string{graph.EmbedSummaries}}); err != nil {
		t.Fatal(err)
	}
	finder, err := retrieve.NewSummaryFinder(store, emb, retrieve.SummaryOptions{Model: "test:bag", MinScore: 0.2})
	if err != nil {
		t.Fatal(err)
	}
	words := tools.New(store, tools.Options{})
	meaning := tools.New(store, tools.Options{Summaries: finder})
	args := json.RawMessage(`{"summary_search":"patient records platform migration"}`)
	var before, after graph.ContractResult
	for _, run := range []struct {
		set *tools.Set
		out *graph.ContractResult
	}{{words, &before}, {meaning, &after}} {
		raw, err := run.set.Call(ctx, tools.NameContractSearch, args)
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(raw, run.out); err != nil {
			t.Fatal(err)
		}
	}
	if before.TotalCount != 0 {
		t.Errorf("by words: %d contracts, want 0 (2 of 4 words)", before.TotalCount)
	}
	if after.TotalCount != 1 || len(after.Examples) != 1 || after.Examples[0].ContractID != "records" {
		t.Fatalf("by meaning: %+v, want the records contract alone", after)
	}
	if len(after.SummaryByMeaning) != 1 || after.SummaryByMeaning[0].ContractID != "records" || after.SummaryByMeaning[0].Score <= 0.2 {
		t.Errorf("summary_by_meaning = %+v", after.SummaryByMeaning)
	}
	// The other filters still apply to what meaning finds.
	raw, err := meaning.Call(ctx, tools.NameContractSearch, json.RawMessage(`{"summary_search":"patient records platform migration","contract_type":"Supply"}`))
	if err != nil {
		t.Fatal(err)
	}
	var leases graph.ContractResult
	if err := json.Unmarshal(raw, &leases); err != nil {
		t.Fatal(err)
	}
	if leases.TotalCount != 0 || len(leases.SummaryByMeaning) != 0 {
		t.Errorf("leases: %+v, want none", leases)
	}
	// The person's layout names them.
	var buf bytes.Buffer
	if err := tools.WriteText(&buf, tools.NameContractSearch, args, mustJSON(t, after), tools.TextOptions{}); err != nil {
		t.Fatal(err)
	}
	if text := buf.String(); !strings.Contains(text, "summary_search by meaning also takes 1 contract (similarity") || !strings.Contains(text, "records") {
		t.Errorf("text layout:\n%s", buf.String())
	}
	// Without a summary search nothing is embedded or added.
	raw, err = meaning.Call(ctx, tools.NameContractSearch, json.RawMessage(`{"contract_type":"Service"}`))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(raw), "summary_by_meaning") {
		t.Errorf("no summary search, yet %s", raw)
	}
	ids := func(hits []graph.SummaryHit) []string {
		var out []string
		for _, h := range hits {
			out = append(out, h.ContractID)
		}
		return out
	}
	if _, hits, err := finder.Find(ctx, graph.Filter{SummarySearch: "supply of surgical gloves"}); err != nil || !slices.Equal(ids(hits), []string{"gloves"}) {
		t.Errorf("find gloves = %v, %v", ids(hits), err)
	}
}

func mustJSON(t *testing.T, v any) json.RawMessage {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
