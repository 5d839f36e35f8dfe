package agent_test

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/contractgraph/contractgraph/internal/agent"
	"github.com/contractgraph/contractgraph/internal/llm/llmtest"
	"github.com/contractgraph/contractgraph/internal/tools"
)

// oneTool is a toolbox with a single canned contract_search.
type oneTool struct{}

func (oneTool) Tools() []tools.Tool {
	return []tools.Tool{{Name: "contract_search", Description: "Find contracts.", InputSchema: json.RawMessage(`{"type":"object"}`)}}
}

func (oneTool) Call(ctx context.Context, name string, args json.RawMessage) (json.RawMessage, error) {
	return json.RawMessage(`{"total_count":1,"examples":[{"contract_id":"acme-supply-2024","title":"Supply Agreement"}]}`), nil
}

// The model calls a tool, then answers; the answer cites only what the
// tool returned, whatever the model's own Sources line claims, and flags
// the id no tool returned.
func ExampleAgent_Run() {
	model := llmtest.NewScripted(
		llmtest.Calls(llmtest.Call("1", "contract_search", `{"parties":["Acme"]}`)),
		llmtest.Text("We have one supply agreement with Acme.\nSources: acme-supply-2024, acme-nda-2019"),
	)
	a := &agent.Agent{Model: model, Tools: oneTool{}}
	ans, err := a.Run(context.Background(), nil, "Which contracts do we have with Acme?", func(e agent.Event) {
		if e.Type == agent.EventToolCall {
			fmt.Println("tool:", e.ToolCall.Name, string(e.ToolCall.Arguments))
		}
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(ans.Text)
	for _, c := range ans.Citations {
		fmt.Println("cites:", c.ContractID, "-", c.Title)
	}
	fmt.Println("unverified:", ans.Unverified)
	// Output:
	// tool: contract_search {"parties":["Acme"]}
	// We have one supply agreement with Acme.
	// cites: acme-supply-2024 - Supply Agreement
	// unverified: [acme-nda-2019]
}
