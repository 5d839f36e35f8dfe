package contract

import (
	"regexp"
	"slices"
	"strconv"
)

// Fields whose values UnverifiedValues judges, by their JSON names (and
// provenance keys). FieldTotalAmount stands for the amount with its
// currency, which are one value (as in Merge): unverified evidence of either
// flags both. FieldParties stands for each party of the contract.
const (
	FieldContractType = "contract_type"
	FieldDuration     = "duration"
	FieldTotalAmount  = "total_amount"
	FieldCurrency     = "currency"
	FieldGoverningLaw = "governing_law"
	FieldParties      = "parties"
)

// UnverifiableFields lists, in order, the fields UnverifiedValues judges:
// every field a filter, ordering, grouping or metric reads, except the
// clauses (each Clause has its own Verified), the summary, scope and title
// (free text that no quote states) and party_count.
var UnverifiableFields = []string{
	FieldContractType, FieldEffectiveDate, FieldEndDate, FieldDuration, FieldTotalAmount, FieldGoverningLaw,
	FieldRenewalKind, FieldRenewalTerm, FieldNoticePeriod, FieldTerminationNotice, FieldParties,
}

// Unverified is a stored value whose supporting evidence could not be
// verified: the quote was not found in the contract text, or was found but
// does not state the value (see Evidence.Verified). Field is one of
// UnverifiableFields; for FieldParties, Value is the party's name as the
// contract gives it (Contract.Parties[i].Name).
type Unverified struct {
	Field  string `json:"field"`
	Value  string `json:"value,omitempty"`
	Reason string `json:"reason"`
}

// Reasons a value is unverified.
const (
	ReasonNoQuote      = "no supporting quote was given"
	ReasonNotFound     = "the supporting quote was not found in the contract text"
	ReasonNotStated    = "the quote found in the text does not state this value"
	reasonDerivedStart = "worked out from an unverified "
)

// partyEvidenceField matches the evidence field of a party's name as
// extraction records it ("parties[3].name"; the index is the model's, not
// the contract's, so the party is found by name).
var partyEvidenceField = regexp.MustCompile(`^parties\[\d+\]\.name$`)

// UnverifiedValues lists c's unverified values, in the order of
// UnverifiableFields and then of c.Parties. The rule, the same on every
// backend and surface:
//
//   - Only a value that is set is judged, and only against the evidence of
//     the value's own source (c.SourceOf of the field, compared with the
//     source of each evidence record, Provenance "evidence[i]", by
//     SourceKey): evidence another source gave for a value it lost in a
//     merge says nothing about the value kept.
//   - A value with at least one such evidence record for its field, none of
//     them Verified, is unverified, for the reason of the first. For
//     FieldTotalAmount the records of total_amount and of currency count
//     together, and either being all unverified flags the amount; for a
//     party, the records "parties[N].name" whose value has the party's
//     PartyKey, under the party's provenance key "parties[<PartyKey>]".
//   - A value without any evidence record of its source is not flagged:
//     records imported without evidence (the reference contract_data.json,
//     synthetic corpora, CUAD's fields it cites no span for) keep their
//     values as facts.
//   - An end date without evidence of its own that is the effective date
//     plus the duration (extraction works it out so) is unverified when
//     either of those is.
func UnverifiedValues(c *Contract) []Unverified {
	var out []Unverified
	flagged := map[string]bool{}
	// judge returns the reason field's value is unverified ("" when it is
	// not) and whether any evidence of its source exists.
	judge := func(provKey string, match func(e *Evidence) bool) (reason string, found bool) {
		src := SourceKey(c.SourceOf(provKey))
		verified := false
		for i := range c.Evidence {
			e := &c.Evidence[i]
			if !match(e) || SourceKey(c.SourceOf("evidence["+strconv.Itoa(i)+"]")) != src {
				continue
			}
			if !found {
				reason = e.unverifiedReason()
			}
			found = true
			verified = verified || e.Verified
		}
		if !found || verified {
			return "", found
		}
		return reason, true
	}
	byField := func(fields ...string) func(e *Evidence) bool {
		return func(e *Evidence) bool { return slices.Contains(fields, e.Field) }
	}
	for _, f := range UnverifiableFields {
		var reason string
		switch f {
		case FieldParties:
			continue
		case FieldTotalAmount:
			if c.TotalAmount == nil && c.Currency == "" {
				continue
			}
			// Each of the two judged alone: either all unverified flags.
			if r, _ := judge(f, byField(FieldTotalAmount)); r != "" {
				reason = r
			} else if r, _ := judge(f, byField(FieldCurrency)); r != "" {
				reason = r
			}
		case FieldEndDate:
			if c.EndDate == "" {
				continue
			}
			r, found := judge(f, byField(f))
			reason = r
			if !found && c.EffectiveDate != "" && c.Duration != "" {
				if end, err := DurationEnd(c.EffectiveDate, c.Duration); err == nil && end == c.EndDate {
					for _, from := range []string{FieldEffectiveDate, FieldDuration} {
						if flagged[from] {
							reason = reasonDerivedStart + from
							break
						}
					}
				}
			}
		default:
			if c.scalarValue(f) == "" {
				continue
			}
			reason, _ = judge(f, byField(f))
		}
		if reason != "" {
			flagged[f] = true
			out = append(out, Unverified{Field: f, Reason: reason})
		}
	}
	seen := map[string]int{}
	for _, p := range c.Parties {
		key := PartyKey(CleanPartyName(p.Name))
		seen[key]++
		provKey := "parties[" + key + "]"
		if n := seen[key]; n > 1 {
			provKey = "parties[" + key + "#" + strconv.Itoa(n) + "]"
		}
		reason, _ := judge(provKey, func(e *Evidence) bool {
			return partyEvidenceField.MatchString(e.Field) && PartyKey(CleanPartyName(e.Value)) == key
		})
		if reason != "" {
			out = append(out, Unverified{Field: FieldParties, Value: p.Name, Reason: reason})
		}
	}
	return out
}

// scalarValue is c's value of one of the single-valued UnverifiableFields,
// "" when it is not set.
func (c *Contract) scalarValue(field string) string {
	switch field {
	case FieldContractType:
		return c.ContractType
	case FieldEffectiveDate:
		return c.EffectiveDate
	case FieldEndDate:
		return c.EndDate
	case FieldDuration:
		if c.Duration == "" && c.DurationDays != nil {
			return strconv.Itoa(*c.DurationDays)
		}
		return c.Duration
	case FieldGoverningLaw:
		if c.GoverningLaw.IsZero() {
			return ""
		}
		return c.GoverningLaw.String()
	case FieldRenewalKind:
		return c.RenewalKind
	case FieldRenewalTerm:
		return c.RenewalTerm
	case FieldNoticePeriod:
		return c.NoticePeriod
	case FieldTerminationNotice:
		return c.TerminationNotice
	}
	return ""
}

// unverifiedReason says why e is not verified ("" when it is).
func (e *Evidence) unverifiedReason() string {
	switch {
	case e.Verified:
		return ""
	case e.Quote == "":
		return ReasonNoQuote
	case e.End > e.Start:
		return ReasonNotStated
	}
	return ReasonNotFound
}

// UnverifiedField returns the reason c's field (one of UnverifiableFields
// other than FieldParties) is unverified in list, "" when it is not.
func UnverifiedField(list []Unverified, field string) string {
	for _, u := range list {
		if u.Field == field {
			return u.Reason
		}
	}
	return ""
}

// UnverifiedParty returns the reason the party named name is unverified in
// list, "" when it is not.
func UnverifiedParty(list []Unverified, name string) string {
	for _, u := range list {
		if u.Field == FieldParties && u.Value == name {
			return u.Reason
		}
	}
	return ""
}

// WithoutUnverified returns a copy of c with the unverified values in list
// removed (parties dropped, fields emptied), as queries that leave
// unverified values out see the contract; c is not changed.
func WithoutUnverified(c *Contract, list []Unverified) *Contract {
	if len(list) == 0 {
		return c
	}
	d := *c
	d.Parties = nil
	for _, p := range c.Parties {
		if UnverifiedParty(list, p.Name) == "" {
			d.Parties = append(d.Parties, p)
		}
	}
	for _, u := range list {
		switch u.Field {
		case FieldContractType:
			d.ContractType = ""
		case FieldEffectiveDate:
			d.EffectiveDate = ""
		case FieldEndDate:
			d.EndDate = ""
		case FieldDuration:
			d.Duration, d.DurationDays = "", nil
		case FieldTotalAmount:
			d.TotalAmount, d.Currency = nil, ""
		case FieldGoverningLaw:
			d.GoverningLaw = nil
		case FieldRenewalKind:
			d.RenewalKind, d.RenewalCount = "", 0
		case FieldRenewalTerm:
			d.RenewalTerm = ""
		case FieldNoticePeriod:
			d.NoticePeriod = ""
		case FieldTerminationNotice:
			d.TerminationNotice = ""
		}
	}
	return &d
}
