package tools_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/contractgraph/contractgraph/internal/demo"
	"github.com/contractgraph/contractgraph/internal/graph/sqlite"
	"github.com/contractgraph/contractgraph/internal/tools"
)

// A Set answers JSON tool calls over a store; bad arguments come back as an
// *ArgError that names the field and the valid values.
func ExampleSet_Call() {
	dir, err := os.MkdirTemp("", "tools-example")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	store, err := sqlite.Open(filepath.Join(dir, "example.db"))
	if err != nil {
		panic(err)
	}
	defer store.Close()
	ctx := context.Background()
	if _, err := demo.Build(ctx, store, demo.Options{Contracts: -1}); err != nil {
		panic(err)
	}

	set := tools.New(store, tools.Options{})
	out, err := set.Call(ctx, "contract_aggregate", json.RawMessage(
		`{"governing_law_country":"United States","group_by":"governing_law_state","metric":"sum_amount"}`))
	if err != nil {
		panic(err)
	}
	fmt.Println(string(out))

	_, err = set.Call(ctx, "contract_search", json.RawMessage(`{"order_by":"price"}`))
	var argErr *tools.ArgError
	if errors.As(err, &argErr) {
		fmt.Println(argErr.Field, "->", argErr)
	}
	// Output:
	// {"total_groups":3,"groups":[{"key":"NY","currency":"USD","value":540000,"count":1},{"key":"DE","currency":"USD","value":180000,"count":1},{"key":"IL","currency":"USD","value":75000,"count":1}]}
	// order_by -> order_by: unknown value "price"; valid values: effective_date, end_date, total_amount, duration_days, party_count
}

// Register adds a typed tool: its schema comes from the input struct, and
// its arguments are decoded strictly.
func ExampleRegister() {
	set := tools.New(nil, tools.Options{})
	type greetInput struct {
		Name string `json:"name" jsonschema:"Who to greet."`
	}
	type greeting struct {
		Text string `json:"text"`
	}
	err := tools.Register(set, "greet", "Greets someone by name.", func(_ context.Context, in greetInput) (greeting, error) {
		return greeting{Text: "Hello, " + in.Name}, nil
	}, nil)
	if err != nil {
		panic(err)
	}
	out, _ := set.Call(context.Background(), "greet", json.RawMessage(`{"name":"Ada"}`))
	fmt.Println(string(out))
	_, err = set.Call(context.Background(), "greet", json.RawMessage(`{"nmae":"Ada"}`))
	fmt.Println(err)
	// Output:
	// {"text":"Hello, Ada"}
	// nmae: unknown argument (did you mean name?); valid arguments: name
}
