package risk_test

import (
	"context"
	"fmt"

	"github.com/contractgraph/contractgraph/internal/contract"
	"github.com/contractgraph/contractgraph/internal/llm/llmtest"
	"github.com/contractgraph/contractgraph/internal/risk"
)

// Run without a statute store: the review still runs, the report says that
// no legal citation could be checked, and the Markdown renderer writes it.
func ExampleRun() {
	text := "1. Term. This Agreement renews automatically for successive one-year terms unless terminated."
	model := llmtest.NewScripted(
		llmtest.Text(`{"contract_type":"Services","rules":[{"id":"R1","title":"Auto-renewal","severity":"Medium","description":"Renewal without notice.","keywords":["renew"]}]}`),
		llmtest.Text(`{"items":[{"rule_id":"R1","clause_quote":"This Agreement renews automatically for successive one-year terms","clause_start":0,"clause_end":0,"risk_level":"Medium","reasoning":"Renews silently.","affected_party":"Customer","citations":[],"legal_basis":"no statute knowledge base available","recommendation":"Add a renewal notice."}],"notes":""}`),
		llmtest.Text(`{"decision":"approve","problems":[],"items":[]}`),
		llmtest.Text(`{"core_issues":["The contract renews silently."],"conclusion":"Add a renewal notice."}`),
	)
	rep, err := risk.Run(context.Background(), risk.Deps{Model: model}, risk.Input{
		Contract: &contract.Contract{ID: "msa-1", Text: text},
	}, func(p risk.Progress) { fmt.Println("progress:", p.Stage) })
	if err != nil {
		fmt.Println(err)
		return
	}
	it := rep.Items[0]
	fmt.Printf("%s %s %q at %d..%d\n", it.RuleID, it.RiskLevel, text[it.ClauseStart:it.ClauseEnd], it.ClauseStart, it.ClauseEnd)
	fmt.Println(rep.Notices[0])
	// Output:
	// progress: rules
	// progress: analysis
	// progress: review
	// progress: gate
	// progress: summary
	// progress: done
	// R1 Medium "This Agreement renews automatically for successive one-year terms" at 9..74
	// No statute store is configured: no legal citations could be checked, and none are reported.
}
