package main

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// complete runs cobra's hidden __complete command, as the shell scripts of
// `contractgraph completion SHELL` do, and returns the candidates.
func complete(t *testing.T, args ...string) []string {
	t.Helper()
	out, stderr, code := runContractgraph(t, "", append([]string{"__complete"}, args...)...)
	if code != 0 {
		t.Fatalf("__complete %q: exit %d: %s", args, code, stderr)
	}
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	if len(lines) == 0 || !strings.HasPrefix(lines[len(lines)-1], ":") {
		t.Fatalf("__complete %q: no directive line:\n%s", args, out)
	}
	var cands []string
	for _, l := range lines[:len(lines)-1] {
		name, _, _ := strings.Cut(l, "\t")
		cands = append(cands, name)
	}
	return cands
}

func TestCompletion(t *testing.T) {
	db := fixtureDB(t)
	tests := []struct {
		name string
		args []string
		want []string
	}{
		{"tool names", []string{"--db", db, "tools", "call", "con"}, []string{"contract_search", "contract_aggregate"}},
		{"tool names without a database", []string{"--db", filepath.Join(t.TempDir(), "none.db"), "tools", "call", "get_"}, []string{"get_contract"}},
		{"contract ids in JSON", []string{"--db", db, "tools", "call", "get_contract", `{"contract_id":"c1`}, []string{`{"contract_id":"c10"}`, `{"contract_id":"c11"}`, `{"contract_id":"c12"}`}},
		{"contract types in JSON", []string{"--db", db, "tools", "call", "contract_search", `{"limit":3,"contract_type":"Jo`}, []string{`{"limit":3,"contract_type":"Joint Venture"}`}},
		{"clause types in a list", []string{"--db", db, "tools", "call", "contract_search", `{"clause_types":["Cap On Liability","Governing L`}, []string{`{"clause_types":["Cap On Liability","Governing Law"]}`}},
		{"clause type of clause_compare", []string{"--db", db, "tools", "call", "clause_compare", `{"clause_type":"Cap`}, []string{`{"clause_type":"Cap On Liability"}`}},
		{"argument names", []string{"--db", db, "tools", "call", "get_contract", `{"contract_id":"c01","include`}, []string{`{"contract_id":"c01","include_text":`}},
		{"risk contract ids", []string{"--db", db, "risk", "c0"}, []string{"c01", "c02", "c03", "c04", "c05", "c06", "c07", "c08", "c09"}},
		{"store values", []string{"--store", ""}, []string{"sqlite", "neo4j"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := complete(t, tt.args...); !slices.Equal(got, tt.want) {
				t.Errorf("completions %q, want %q", got, tt.want)
			}
		})
	}
	// The scripts themselves come from cobra.
	out, _, code := runContractgraph(t, "", "completion", "bash")
	if code != 0 || !strings.Contains(out, "__start_contractgraph") {
		t.Errorf("completion bash: exit %d, %.200s", code, out)
	}
}
