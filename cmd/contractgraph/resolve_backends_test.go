package main

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/contractgraph/contractgraph/internal/graph/neo4j/neo4jtest"
	"github.com/contractgraph/contractgraph/internal/graph/sqlite"
	"github.com/contractgraph/contractgraph/internal/resolve"
	"github.com/contractgraph/contractgraph/internal/sharedtest"
)

// TestResolveSameOnBothBackends imports the reference extraction into SQLite
// and into Neo4j with the CLI, without the import's own resolution, and
// checks that both list the same parties and that `resolve --dry-run`
// proposes the same merges; then it resolves both and compares what the
// tools show of parties. The Neo4j half needs NEO4J_URI.
func TestResolveSameOnBothBackends(t *testing.T) {
	ref := filepath.Join(sharedtest.Dir(t), "data", "legal-tech-chat", "contract_data.json")
	ctx := context.Background()
	db := filepath.Join(t.TempDir(), "g.db")
	lite := []string{"--db", db}
	importReference(t, lite, ref)
	want := resolveReport(t, lite, "--dry-run")
	if len(want.Merges) == 0 || want.Applied {
		t.Fatalf("SQLite dry run: %+v, want proposed merges, none applied", want)
	}
	t.Logf("SQLite: %d parties, %d pairs scored, %d merges proposed", want.Parties, want.Pairs, len(want.Merges))
	store, err := sqlite.Open(db)
	if err != nil {
		t.Fatal(err)
	}
	wantParties, err := store.Parties(ctx)
	store.Close()
	if err != nil {
		t.Fatal(err)
	}

	t.Run("neo4j", func(t *testing.T) {
		s := neo4jtest.Open(t) // skips without NEO4J_URI; locks and empties the database
		neo := []string{"--store", "neo4j"}
		start := time.Now()
		importReference(t, neo, ref)
		t.Logf("import of the reference extraction into Neo4j: %s", time.Since(start).Round(time.Millisecond))
		got, err := s.Parties(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(wantParties, got); diff != "" {
			t.Fatalf("Parties (-sqlite +neo4j):\n%s", diff)
		}
		if diff := cmp.Diff(want, resolveReport(t, neo, "--dry-run")); diff != "" {
			t.Fatalf("proposed merges (-sqlite +neo4j):\n%s", diff)
		}

		// Applied, the merges leave both stores answering alike.
		applied := resolveReport(t, lite)
		if diff := cmp.Diff(applied, resolveReport(t, neo)); diff != "" || !applied.Applied {
			t.Errorf("applied merges (-sqlite +neo4j):\n%s", diff)
		}
		for _, call := range []struct{ tool, args string }{
			{"party_search", `{"min_contracts":2,"limit":50}`},
			{"party_search", `{"name":"bank","order_by":"name","limit":50}`},
			{"party_search", `{"name":"wately","limit":5}`},
			{"contract_aggregate", `{"group_by":"party","limit":100}`},
			{"contract_search", `{"parties":["AB Wately"],"order_by":"party_count","limit":50}`},
		} {
			a := toolCall(t, lite, call.tool, call.args)
			if b := toolCall(t, neo, call.tool, call.args); a != b {
				t.Errorf("%s %s after resolution differs:\nsqlite: %s\nneo4j:  %s", call.tool, call.args, a, b)
			}
		}
		for name, args := range map[string][]string{"sqlite": lite, "neo4j": neo} {
			if again := resolveReport(t, args, "--dry-run"); len(again.Merges) != 0 {
				t.Errorf("%s proposes %d more merges after resolving", name, len(again.Merges))
			}
		}
	})
}

// importReference imports ref with the CLI flags store names the backend by.
func importReference(t *testing.T, store []string, ref string) {
	t.Helper()
	out, errOut, code := runContractgraph(t, "", append(store, "import", "--no-resolve", ref)...)
	if code != 0 || !strings.HasPrefix(out, "imported 510, ") {
		t.Fatalf("import %v: code %d, stdout %q, stderr %q", store, code, out, errOut)
	}
}

// resolveReport runs resolve --json with extra flags and decodes its report.
func resolveReport(t *testing.T, store []string, flags ...string) resolve.Report {
	t.Helper()
	out, errOut, code := runContractgraph(t, "", append(append(store, "--json", "resolve"), flags...)...)
	var rep resolve.Report
	if err := json.Unmarshal([]byte(out), &rep); err != nil || code != 0 {
		t.Fatalf("resolve %v %v: code %d, %v, stderr %q", store, flags, code, err, errOut)
	}
	return rep
}

func toolCall(t *testing.T, store []string, tool, args string) string {
	t.Helper()
	out, errOut, code := runContractgraph(t, "", append(store, "--json", "tools", "call", tool, args)...)
	if code != 0 {
		t.Fatalf("tools call %s %s on %v: code %d, %s", tool, args, store, code, errOut)
	}
	return out
}
