package agent

import (
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/contractgraph/contractgraph/internal/llm"
)

var update = flag.Bool("update", false, "rewrite golden files in testdata")

func TestPromptsGolden(t *testing.T) {
	tests := []struct {
		name, tmpl string
		data       any
	}{
		{"system", "system.tmpl", systemData{Date: "2026-03-14", Tools: []string{"contract_search", "contract_aggregate", "get_contract"}}},
		{"rewrite", "rewrite.tmpl", rewriteData{Date: "2026-03-14", Question: "and when does it end?",
			History: []llm.Message{{Role: llm.RoleUser, Content: "Which licence do we have with Acme?"}, {Role: llm.RoleAssistant, Content: "c02."}}}},
		{"rewrite-no-history", "rewrite.tmpl", rewriteData{Date: "2026-03-14", Question: "How many contracts?"}},
		{"critic", "critic.tmpl", criticData{Question: "q?", Calls: []string{`contract_search {"limit":1}`}, Draft: "draft.", MaxFollowUps: 3}},
		{"followup", "followup.tmpl", followUpData{FollowUps: []string{"a?", "b?"}, Question: "q?"}},
		{"noanswer", "noanswer.tmpl", noAnswerData{Question: "How many Distributor contracts ended in 2005?", HadResults: true}},
		{"retry", "retry.tmpl", retryData{Question: "How many franchise agreements end in 2031?",
			Gaps: []string{`contract_search {"contract_type":"Franchise","min_end_date":"2031-01-01"} returned no results`}}},
		{"noanswer-no-results", "noanswer.tmpl", noAnswerData{Question: "How many contracts?"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := render(tt.tmpl, tt.data)
			if err != nil {
				t.Fatal(err)
			}
			path := filepath.Join("testdata", tt.name+".golden")
			if *update {
				if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run go test -update to create it)", err)
			}
			if got != string(want) {
				t.Errorf("prompt %s changed; run go test -update and review the diff.\ngot:\n%s\nwant:\n%s", tt.name, got, want)
			}
		})
	}
}
