package main

import (
	"github.com/spf13/cobra"
)

// newEvalCmd groups the evaluation subcommands; each lives in its own
// eval_*.go file.
func newEvalCmd(a *app) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "eval",
		Short: "Measure answer, extraction, retrieval and risk-review quality",
		Long: "Evaluate ContractGraph with real models: the agent's answers to a question file, extraction\n" +
			"against CUAD's expert annotations, clause-search recall, and risk-review citations.",
	}
	// Subcommands: one file each (eval_answers.go, ...). Keep this list sorted.
	cmd.AddCommand(newEvalAnswersCmd(a), newEvalExtractionCmd(a), newEvalRetrievalCmd(a), newEvalRiskCmd(a))
	return cmd
}
