package tools

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/contractgraph/contractgraph/internal/contract"
	"github.com/contractgraph/contractgraph/internal/graph"
)

// convertible are the amount metrics a rate table can combine: a sum, a
// minimum and a maximum of converted amounts follow from those per
// currency. (An average would need the number of amounts per currency.)
var convertible = []string{graph.MetricSumAmount, graph.MetricMinAmount, graph.MetricMaxAmount}

// conversion is a validated convert_to with its rate table: units of To
// per unit of each currency (To itself is 1).
type conversion struct {
	to    string
	rates map[string]float64
}

// parseConversion checks convert_to and rates: both or neither, an amount
// metric that conversion can combine, ISO 4217 codes, positive finite rates.
func parseConversion(to string, rates map[string]float64, metric string) (*conversion, error) {
	to = strings.TrimSpace(to)
	if to == "" && len(rates) == 0 {
		return nil, nil
	}
	if to == "" {
		return nil, &ArgError{Field: "convert_to", Msg: "rates were given without convert_to: name the ISO 4217 currency to convert into, e.g. \"USD\""}
	}
	if len(rates) == 0 {
		return nil, &ArgError{Field: "rates", Msg: "convert_to needs the rates to convert with, which are never assumed: an object of ISO 4217 code -> units of " + to + " per unit, e.g. {\"EUR\": 1.08}"}
	}
	if !slices.Contains(convertible, metric) {
		return nil, &ArgError{Field: "metric", Msg: fmt.Sprintf("convert_to works with %s, not %s", strings.Join(convertible, ", "), metric), Valid: convertible}
	}
	code, ok := contract.NormalizeCurrency(to)
	if !ok {
		return nil, &ArgError{Field: "convert_to", Msg: fmt.Sprintf("%q is not an ISO 4217 currency code such as USD, EUR, GBP", to)}
	}
	c := &conversion{to: code, rates: map[string]float64{code: 1}}
	for k, r := range rates {
		cur, ok := contract.NormalizeCurrency(k)
		if !ok {
			return nil, &ArgError{Field: "rates." + k, Msg: fmt.Sprintf("%q is not an ISO 4217 currency code", k)}
		}
		if !(r > 0) || math.IsInf(r, 0) {
			return nil, &ArgError{Field: "rates." + k, Msg: fmt.Sprintf("%v is not a positive rate (units of %s per %s)", r, code, cur)}
		}
		if cur == code && r != 1 {
			return nil, &ArgError{Field: "rates." + k, Msg: fmt.Sprintf("the rate of %s into itself is 1, not %v", code, r)}
		}
		c.rates[cur] = r
	}
	return c, nil
}

// aggregateConverted answers q in one currency: the store's groups per
// currency, each amount multiplied by its rate, combined per key. Amounts
// in a currency the table lacks (or in none) are an error that names them:
// nothing is converted silently.
func (s *Set) aggregateConverted(ctx context.Context, q graph.AggregateQuery, conv *conversion) (graph.AggregateResult, error) {
	limit, err := q.EffectiveLimit()
	if err != nil {
		return graph.AggregateResult{}, err
	}
	all := q
	all.Limit = graph.AggregateLimits.Max
	res, err := s.store.AggregateContracts(ctx, all)
	if err != nil {
		return graph.AggregateResult{}, fmt.Errorf("%s: %w", NameContractAggregate, err)
	}
	if res.TotalGroups > len(res.Groups) {
		return graph.AggregateResult{}, &ArgError{Field: "convert_to", Msg: fmt.Sprintf(
			"%d groups by currency, more than the %d that can be converted at once: narrow the filters", res.TotalGroups, len(res.Groups))}
	}
	missing := map[string]int{}
	type acc struct {
		value *float64
		count int
	}
	byKey := map[string]*acc{}
	var keys []string
	for _, g := range res.Groups {
		a := byKey[g.Key]
		if a == nil {
			a = &acc{}
			byKey[g.Key] = a
			keys = append(keys, g.Key)
		}
		a.count += g.Count
		if g.Value == nil {
			continue
		}
		cur := ""
		if g.Currency != nil {
			cur = *g.Currency
		}
		rate, ok := conv.rates[cur]
		if !ok {
			missing[cur] += g.Count
			continue
		}
		v := *g.Value * rate
		switch {
		case a.value == nil:
			a.value = &v
		case q.Metric == graph.MetricSumAmount:
			*a.value += v
		case q.Metric == graph.MetricMinAmount:
			*a.value = min(*a.value, v)
		default:
			*a.value = max(*a.value, v)
		}
	}
	if len(missing) > 0 {
		var names []string
		for cur := range missing {
			if cur == "" {
				names = append(names, "amounts that name no currency")
			} else {
				names = append(names, cur)
			}
		}
		sort.Strings(names)
		return graph.AggregateResult{}, &ArgError{Field: "rates", Msg: fmt.Sprintf(
			"no rate for %s among the matching contracts: give a rate for each, or keep them out with the currency filter", strings.Join(names, ", "))}
	}
	out := graph.AggregateResult{TotalGroups: len(keys), Groups: []graph.Group{}, Conversion: &graph.Conversion{To: conv.to, Rates: conv.rates}}
	for _, k := range keys {
		a := byKey[k]
		cur := conv.to
		out.Groups = append(out.Groups, graph.Group{Key: k, Currency: &cur, Value: a.value, Count: a.count})
	}
	slices.SortStableFunc(out.Groups, func(a, b graph.Group) int {
		switch {
		case a.Value == nil && b.Value == nil:
		case a.Value == nil:
			return 1
		case b.Value == nil:
			return -1
		case *a.Value != *b.Value:
			if q.Asc {
				return cmp.Compare(*a.Value, *b.Value)
			}
			return cmp.Compare(*b.Value, *a.Value)
		}
		if q.Asc {
			return strings.Compare(a.Key, b.Key)
		}
		return strings.Compare(b.Key, a.Key)
	})
	out.Groups = out.Groups[:min(limit, len(out.Groups))]
	return out, nil
}
