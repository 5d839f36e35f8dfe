package extract

import (
	"strings"

	"github.com/contractgraph/contractgraph/internal/contract"
	"github.com/contractgraph/contractgraph/internal/textmatch"
)

// mergeExtractions combines the extractions of a document's parts, in
// order. A scalar value is taken from the first part that states it with
// evidence found in the text, else from the first part that states it at
// all; the summary is the first part's (it holds the preamble). Parties are
// merged by contract.PartyKey, keeping the first role and the first
// non-empty location; clauses are kept once per type and folded text.
func mergeExtractions(xs []*Extraction, loc *Locator) *Extraction {
	if len(xs) == 1 {
		return xs[0]
	}
	out := &Extraction{}
	for _, x := range xs {
		if out.Summary == "" {
			out.Summary = x.Summary
		}
	}
	pick := func(get func(*Extraction) Value) Value {
		var first Value
		for _, x := range xs {
			v := get(x)
			if strings.TrimSpace(v.Value) == "" {
				continue
			}
			if _, ok := loc.Locate(v.Evidence); ok {
				return v
			}
			if first.Value == "" {
				first = v
			}
		}
		return first
	}
	out.ContractType = pick(func(x *Extraction) Value { return x.ContractType })
	out.EffectiveDate = pick(func(x *Extraction) Value { return x.EffectiveDate })
	out.EndDate = pick(func(x *Extraction) Value { return x.EndDate })
	out.Duration = pick(func(x *Extraction) Value { return x.Duration })
	out.RenewalTerm = pick(func(x *Extraction) Value { return x.RenewalTerm })
	out.NoticePeriod = pick(func(x *Extraction) Value { return x.NoticePeriod })
	out.TotalAmount = pick(func(x *Extraction) Value { return x.TotalAmount })
	out.Currency = pick(func(x *Extraction) Value { return x.Currency })
	out.Scope = pick(func(x *Extraction) Value { return x.Scope })
	for _, x := range xs {
		if x.GoverningLaw.Country != "" || x.GoverningLaw.State != "" {
			out.GoverningLaw = x.GoverningLaw
			break
		}
	}

	partyAt := map[string]int{}
	for _, x := range xs {
		for _, p := range x.Parties {
			k := contract.PartyKey(p.Name)
			i, seen := partyAt[k]
			if !seen {
				partyAt[k] = len(out.Parties)
				out.Parties = append(out.Parties, p)
				continue
			}
			have := &out.Parties[i]
			if have.Role == "" {
				have.Role = p.Role
			}
			if have.Location == (PartyLocation{}) {
				have.Location = p.Location
			}
		}
	}
	seen := map[string]bool{}
	for _, x := range xs {
		for _, c := range x.Clauses {
			f := textmatch.Fold(c.Text)
			k := c.ClauseType + "\x00" + f
			if seen[k] {
				continue
			}
			seen[k] = true
			out.Clauses = append(out.Clauses, c)
		}
	}
	return out
}
