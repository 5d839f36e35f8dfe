package agent

import (
	"slices"
	"testing"

	"github.com/contractgraph/contractgraph/internal/llm"
)

// TestAddedFigures: rewrites the local model wrote for the dev questions
// (docs/EVALUATION.md), and rewrites that keep to what the user said.
func TestAddedFigures(t *testing.T) {
	const date = "2026-12-02"
	history := []llm.Message{{Role: llm.RoleUser, Content: "Which contracts did Acme sign in 2019?"}, {Role: llm.RoleAssistant, Content: "Three: c01, c02, c03."}}
	tests := []struct {
		name, question, rewrite string
		history                 []llm.Message
		want                    []string
	}{
		{"invented dates", "What is the total value of all Sponsorship contracts?",
			"What is the total value of all Sponsorship contracts that were signed between January 1, 2025, and December 31, 2026?", nil, []string{"1", "2025", "31", "2026"}},
		{"today's date without a relative time", "Which License Agreement has the latest effective date?",
			"Which License Agreement has the latest effective date as of December 2, 2026?", nil, []string{"2", "2026"}},
		{"an invented count", "How many contracts does Excite, Inc. have, and of which types?",
			"Excite, Inc. has 10 contracts, all of which are of the type 'software development'.", nil, []string{"10"}},
		{"an ISO date written out", "How many contracts were still active on 2015-06-30?",
			"How many contracts were still active on June 30, 2015?", nil, nil},
		{"an amount in other words", "How many Joint Venture contracts are worth more than $10 million?",
			"How many Joint Venture contracts have a value above $10,000,000?", nil, nil},
		{"today resolved for a relative time", "Which contracts expire this year?",
			"Which contracts expire in 2026?", nil, nil},
		{"a figure from the conversation", "and which of those are worth over $1 million?",
			"Which contracts signed by Acme in 2019 are worth over $1 million?", history, nil},
		{"no figures", "franchises?", "How many franchise agreements are there?", nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := addedFigures(tt.rewrite, tt.question, tt.history, date); !slices.Equal(got, tt.want) {
				t.Errorf("addedFigures(%q) = %q, want %q", tt.rewrite, got, tt.want)
			}
		})
	}
}
