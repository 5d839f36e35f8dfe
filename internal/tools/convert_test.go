package tools_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/contractgraph/contractgraph/internal/graph"
	"github.com/contractgraph/contractgraph/internal/tools"
)

// TestAggregateConversion converts amounts only with the rates a caller
// gives: every currency of the matching amounts needs one, and the result
// says what it converted with. Fixture Sponsorship: USD 100,000 and CAD
// 300,000; all amounts: USD, EUR, GBP, CAD and three contracts without.
func TestAggregateConversion(t *testing.T) {
	ctx := context.Background()
	set := fixtureToolSet(t)
	call := func(args string) (graph.AggregateResult, error) {
		out, err := set.Call(ctx, tools.NameContractAggregate, json.RawMessage(args))
		var r graph.AggregateResult
		if err == nil {
			err = json.Unmarshal(out, &r)
		}
		return r, err
	}
	usd := "USD"
	got, err := call(`{"contract_type":"Sponsorship","metric":"sum_amount","convert_to":"usd","rates":{"CAD":0.75}}`)
	if err != nil {
		t.Fatal(err)
	}
	want := graph.AggregateResult{TotalGroups: 1, Groups: []graph.Group{{Key: "all", Currency: &usd, Value: ptr(325000.0), Count: 2}},
		Conversion: &graph.Conversion{To: "USD", Rates: map[string]float64{"USD": 1, "CAD": 0.75}}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("converted sum (-want +got):\n%s", diff)
	}
	got, err = call(`{"group_by":"contract_type","metric":"max_amount","convert_to":"EUR","rates":{"USD":0.9,"GBP":1.2,"CAD":0.7},"currency":"","limit":2,"contract_type":"Joint Venture"}`)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Groups) != 1 || got.Groups[0].Key != "Joint Venture" || *got.Groups[0].Value != 18000000 || *got.Groups[0].Currency != "EUR" {
		t.Errorf("max in EUR of USD 20M and EUR 5M = %+v", got.Groups)
	}
	for args, field := range map[string]string{
		// Amounts in GBP and EUR have no rate (the contracts without an amount need none).
		`{"metric":"sum_amount","convert_to":"USD","rates":{"CAD":0.75}}`:                           "rates",
		`{"metric":"sum_amount","convert_to":"USD"}`:                                                "rates",
		`{"metric":"sum_amount","rates":{"EUR":1.1}}`:                                               "convert_to",
		`{"metric":"avg_amount","convert_to":"USD","rates":{"EUR":1.1}}`:                            "metric",
		`{"metric":"sum_amount","convert_to":"USD","rates":{"EUR":-1}}`:                             "rates.EUR",
		`{"metric":"sum_amount","convert_to":"dollars and cents","rates":{"EUR":1}}`:                "convert_to",
		`{"contract_type":"Sponsorship","metric":"sum_amount","convert_to":"USD","rates":{"XX":1}}`: "rates.XX",
	} {
		_, err := call(args)
		var ae *tools.ArgError
		if !errors.As(err, &ae) || ae.Field != field {
			t.Errorf("%s: %v, want an argument error on %s", args, err, field)
		}
	}
	_, err = call(`{"metric":"sum_amount","convert_to":"USD","rates":{"CAD":0.75}}`)
	if err == nil || !strings.Contains(err.Error(), "no rate for EUR, GBP among") {
		t.Errorf("missing rates: %v, want them named", err)
	}
}

func ptr[T any](v T) *T { return &v }
