package llm_test

import (
	"context"
	"fmt"

	"github.com/contractgraph/contractgraph/internal/llm"
	"github.com/contractgraph/contractgraph/internal/llm/llmtest"
)

// A typed reply: the schema is derived from the struct, sent as the
// response format, and the reply is validated before it is decoded.
func ExampleGenerateData() {
	type party struct {
		Name    string `json:"name" jsonschema:"The party's legal name."`
		Country string `json:"country" jsonschema:"ISO 3166-1 alpha-2 code."`
	}
	model := llmtest.NewScripted(llmtest.Text(`{"name":"Acme Corp","country":"US"}`))
	p, _, err := llm.GenerateData[party](context.Background(), model, &llm.Request{
		Messages: []llm.Message{{Role: llm.RoleUser, Content: "Who is the supplier in: ACME CORP (Delaware) supplies..."}},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%s (%s), schema %q\n", p.Name, p.Country, model.Requests()[0].ResponseFormat.Name)
	// Output: Acme Corp (US), schema "party"
}
