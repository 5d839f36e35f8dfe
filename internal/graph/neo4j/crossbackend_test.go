package neo4j_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/contractgraph/contractgraph/internal/contract"
	"github.com/contractgraph/contractgraph/internal/graph"
	"github.com/contractgraph/contractgraph/internal/graph/neo4j/neo4jtest"
	"github.com/contractgraph/contractgraph/internal/graph/sqlite"
	"github.com/contractgraph/contractgraph/internal/importer"
	"github.com/contractgraph/contractgraph/internal/sharedtest"
	"github.com/contractgraph/contractgraph/internal/tools"
)

// devCall is one entry of dev_calls.json.
type devCall struct {
	ID   string          `json:"id"`
	Q    string          `json:"q"`
	Tool string          `json:"tool"`
	Args json.RawMessage `json:"args"`
}

func readDevCalls(t testing.TB, shared string) []devCall {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(shared, "questions", "dev_calls.json"))
	if err != nil {
		t.Fatal(err)
	}
	var calls []devCall
	if err := json.Unmarshal(b, &calls); err != nil {
		t.Fatalf("dev_calls.json: %v", err)
	}
	if len(calls) != 22 {
		t.Fatalf("dev_calls.json holds %d calls, want 22", len(calls))
	}
	return calls
}

// readContracts reads a file every importer format accepts.
func readContracts(t testing.TB, path string) []*contract.Contract {
	t.Helper()
	var cs []*contract.Contract
	err := importer.Read(context.Background(), path, importer.Options{}, func(r importer.Record) error {
		if r.Err != nil {
			t.Errorf("read %s: %v", path, r.Err)
			return nil
		}
		cs = append(cs, r.Contract)
		return nil
	})
	if err != nil {
		t.Fatalf("read %s: %v", path, err)
	}
	return cs
}

func put(t testing.TB, s graph.Store, cs []*contract.Contract, want graph.PutStatus) {
	t.Helper()
	out, err := s.PutContracts(context.Background(), cs)
	if err != nil {
		t.Fatalf("put: %v", err)
	}
	if len(out) != len(cs) {
		t.Fatalf("put: %d outcomes for %d contracts", len(out), len(cs))
	}
	for _, o := range out {
		if o.Status != want {
			t.Fatalf("put %s: %s (%v), want %s", o.ID, o.Status, o.Err, want)
		}
	}
}

// fixedNow pins as_of's default so both backends see the same day.
func fixedNow() time.Time { return time.Date(2024, 6, 1, 0, 0, 0, 0, time.UTC) }

// answers runs every dev call through the tools layer, the entry point the
// agent, CLI, API and MCP server use, and returns the decoded results.
func answers(t *testing.T, s graph.Store, calls []devCall) map[string]any {
	t.Helper()
	set := tools.New(s, tools.Options{Now: fixedNow})
	out := map[string]any{}
	for _, c := range calls {
		raw, err := set.Call(context.Background(), c.Tool, c.Args)
		if err != nil {
			t.Fatalf("%s (%s %s): %v", c.ID, c.Tool, c.Args, err)
		}
		var v any
		if err := json.Unmarshal(raw, &v); err != nil {
			t.Fatalf("%s: decode result: %v", c.ID, err)
		}
		out[c.ID] = v
	}
	return out
}

// sameAnswers compares results allowing for the last bits of floating-point
// sums, which the two engines add up in different orders.
var sameAnswers = cmpopts.EquateApprox(1e-9, 1e-6)

// TestDevCallsMatchSQLite imports the reference extraction (510 contracts)
// into both backends and checks that every dev question gets the same answer
// from each; then it exports the Neo4j graph as JSONL, imports that into an
// emptied Neo4j database and checks the answers again (the round trip).
func TestDevCallsMatchSQLite(t *testing.T) {
	shared := sharedtest.Dir(t)
	neo := neo4jtest.Open(t)
	ctx := context.Background()
	calls := readDevCalls(t, shared)
	cs := readContracts(t, filepath.Join(shared, "data", "legal-tech-chat", "contract_data.json"))
	if len(cs) != 510 {
		t.Fatalf("read %d contracts, want 510", len(cs))
	}

	lite, err := sqlite.Open(filepath.Join(t.TempDir(), "graph.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer lite.Close()
	put(t, lite, cs, graph.PutCreated)
	put(t, neo, cs, graph.PutCreated)

	want := answers(t, lite, calls)
	got := answers(t, neo, calls)
	for _, c := range calls {
		if diff := cmp.Diff(want[c.ID], got[c.ID], sameAnswers); diff != "" {
			t.Errorf("%s %q: neo4j differs from sqlite (-sqlite +neo4j):\n%s", c.ID, c.Q, diff)
		}
	}
	liteStats, err := lite.Stats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	neoStats, err := neo.Stats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(liteStats, neoStats); diff != "" {
		t.Errorf("stats differ (-sqlite +neo4j):\n%s", diff)
	}

	// Re-importing the same data changes nothing.
	put(t, neo, cs, graph.PutUnchanged)

	// Round trip: export, empty the database, import the export.
	var buf bytes.Buffer
	if err := importer.Export(ctx, neo, &buf); err != nil {
		t.Fatalf("export: %v", err)
	}
	path := filepath.Join(t.TempDir(), "export.jsonl")
	if err := os.WriteFile(path, buf.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	exported := readContracts(t, path)
	if len(exported) != len(cs) {
		t.Fatalf("export holds %d contracts, want %d", len(exported), len(cs))
	}
	if err := neo4jtest.Wipe(ctx, neo4jtest.Config(t)); err != nil {
		t.Fatal(err)
	}
	put(t, neo, exported, graph.PutCreated)
	// The export lists contracts in id order, and a party is named by the
	// first spelling imported, so the reference is SQLite loaded from the
	// same export.
	lite2, err := sqlite.Open(filepath.Join(t.TempDir(), "roundtrip.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer lite2.Close()
	put(t, lite2, exported, graph.PutCreated)
	want = answers(t, lite2, calls)
	again := answers(t, neo, calls)
	for _, c := range calls {
		if diff := cmp.Diff(want[c.ID], again[c.ID], sameAnswers); diff != "" {
			t.Errorf("%s after the JSONL round trip (-sqlite +neo4j):\n%s", c.ID, diff)
		}
	}
	// Every contract reads back the same from both backends.
	err = lite2.Contracts(ctx, func(lc *contract.Contract) error {
		nc, err := neo.GetContract(ctx, lc.ID)
		if err != nil {
			t.Errorf("get %s: %v", lc.ID, err)
			return nil
		}
		if diff := cmp.Diff(lc, nc); diff != "" {
			t.Errorf("contract %s (-sqlite +neo4j):\n%s", lc.ID, diff)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
