package extract

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/contractgraph/contractgraph/internal/contract"
	"github.com/contractgraph/contractgraph/internal/resolve"
)

// build validates x against text and turns it into a contract. Invalid
// values are left out of the contract and described in problems, each
// naming its field, so that they can be shown to the model in a repair
// round (or reported as warnings after it). Evidence that cannot be
// located is not a problem: the value is kept and marked unverified.
func build(id, text string, loc *Locator, x *Extraction) (*contract.Contract, []string) {
	b := &builder{id: id, text: text, loc: loc}
	c := &contract.Contract{ID: id, Text: text, Summary: strings.TrimSpace(x.Summary), Title: title(text)}

	if v := b.value("contract_type", x.ContractType); v != "" {
		t, err := contract.ParseContractType(v, id)
		if err != nil {
			b.problem("contract_type", err)
		} else {
			c.ContractType = t
		}
	}
	c.EffectiveDate = b.date("effective_date", x.EffectiveDate)
	c.EndDate = b.date("end_date", x.EndDate)
	c.Duration = b.duration("duration", x.Duration)
	c.RenewalTerm = b.duration("renewal_term", x.RenewalTerm)
	c.NoticePeriod = b.duration("notice_period", x.NoticePeriod)
	c.TerminationNotice = b.duration("termination_notice", x.Termination)
	if v := b.value("renewal_kind", x.RenewalKind); v != "" {
		if k, ok := contract.ParseRenewalKind(v); ok {
			c.RenewalKind = k
			b.setEvidenceValue("renewal_kind", k)
			// A limit on the renewals ("for one additional three-year
			// term") is read from the quote that states the kind.
			if k == contract.RenewalAutomatic && c.RenewalTerm != "" {
				c.RenewalCount = contract.ParseRenewal(x.RenewalKind.Evidence).Count
			}
		} else {
			b.problem("renewal_kind", fmt.Errorf("%q is not one of %s", v, strings.Join(contract.RenewalKinds, ", ")))
			b.dropEvidence("renewal_kind")
		}
	}
	c.Scope = b.value("contract_scope", x.Scope)

	if c.Duration != "" {
		days, _ := contract.ParseISODuration(c.Duration)
		c.DurationDays = &days
		if c.EndDate == "" && c.EffectiveDate != "" {
			if end, err := contract.DurationEnd(c.EffectiveDate, c.Duration); err == nil {
				c.EndDate = end
			}
		}
	}
	if c.EffectiveDate != "" && c.EndDate != "" && c.EndDate < c.EffectiveDate {
		b.problem("end_date", fmt.Errorf("%s is before effective_date %s", c.EndDate, c.EffectiveDate))
		c.EndDate = ""
	}

	if v := b.value("total_amount", x.TotalAmount); v != "" {
		amount, err := parseAmount(v)
		if err != nil {
			b.problem("total_amount", err)
		} else {
			c.TotalAmount = &amount
			b.checkEvidence("total_amount")
		}
	}
	if v := b.value("currency", x.Currency); v != "" {
		if code, ok := contract.NormalizeCurrency(v); ok {
			c.Currency = code
		} else if len(v) == 3 && strings.ToUpper(v) == v {
			c.Currency = v
		} else {
			b.problem("currency", fmt.Errorf("%q is not an ISO 4217 currency code", v))
		}
	}
	c.GoverningLaw = b.governingLaw(x.GoverningLaw)

	for i, p := range x.Parties {
		if pr, ok := b.party(i, p); ok {
			c.Parties = append(c.Parties, pr)
		}
	}
	for i, cl := range x.Clauses {
		if clause, ok := b.clause(i, cl); ok {
			c.Clauses = append(c.Clauses, clause)
		}
	}
	c.Evidence = b.evidence
	return c, b.problems
}

type builder struct {
	id, text string
	loc      *Locator
	evidence []contract.Evidence
	problems []string
}

func (b *builder) problem(field string, err error) {
	b.problems = append(b.problems, field+": "+err.Error())
}

// value returns v's trimmed value and records its evidence.
func (b *builder) value(field string, v Value) string {
	val := strings.TrimSpace(v.Value)
	if val == "" {
		return ""
	}
	b.addEvidence(field, val, v.Evidence)
	return val
}

func (b *builder) addEvidence(field, value, quote string) {
	ev := contract.Evidence{Field: field, Value: value, Quote: strings.TrimSpace(quote)}
	if m, ok := b.loc.Locate(ev.Quote); ok {
		// Store the document's own words so that Text[Start:End] == Quote.
		ev.Start, ev.End, ev.Verified = m.Start, m.End, true
		ev.Quote = b.text[m.Start:m.End]
	}
	b.evidence = append(b.evidence, ev)
}

// checkEvidence keeps field's evidence verified only when its quote states
// the final value (see QuoteStates); run once the value is normalised.
func (b *builder) checkEvidence(field string) {
	if n := len(b.evidence); n > 0 && b.evidence[n-1].Field == field {
		ev := &b.evidence[n-1]
		if ev.Verified && !QuoteStates(field, ev.Value, ev.Quote) {
			ev.Verified = false
		}
	}
}

func (b *builder) date(field string, v Value) string {
	s := b.value(field, v)
	if s == "" {
		return ""
	}
	d, err := contract.NormalizeDate(s)
	if err != nil {
		if iso, precision, ok := contract.NormalizePartialDate(s); ok {
			// The contract names only a year or a month: the field (a
			// calendar day) stays empty, and the value is kept, with its
			// precision, in the field's evidence rather than dropped or
			// completed to a day the contract does not state.
			b.setEvidenceValue(field, iso+" ("+precision+" precision)")
			return ""
		}
		b.problem(field, err)
		b.dropEvidence(field)
		return ""
	}
	b.setEvidenceValue(field, d)
	b.checkEvidence(field)
	return d
}

func (b *builder) duration(field string, v Value) string {
	s := strings.ToUpper(strings.ReplaceAll(b.value(field, v), " ", ""))
	if s == "" {
		return ""
	}
	if _, err := contract.ParseISODuration(s); err != nil {
		// A period in words ("ninety (90) days", "successive one-year
		// terms") is read as written.
		iso, ok := contract.ParseDuration(v.Value)
		if !ok {
			b.problem(field, fmt.Errorf("%q is not an ISO 8601 duration such as P1Y, P6M or P30D", v.Value))
			b.dropEvidence(field)
			return ""
		}
		s = iso
	}
	b.setEvidenceValue(field, s)
	b.checkEvidence(field)
	return s
}

func (b *builder) dropEvidence(field string) {
	if n := len(b.evidence); n > 0 && b.evidence[n-1].Field == field {
		b.evidence = b.evidence[:n-1]
	}
}

func (b *builder) setEvidenceValue(field, v string) {
	if n := len(b.evidence); n > 0 && b.evidence[n-1].Field == field {
		b.evidence[n-1].Value = v
	}
}

func (b *builder) governingLaw(g GoverningLaw) *contract.Location {
	country, state := strings.TrimSpace(g.Country), strings.TrimSpace(g.State)
	if placeholder(state) {
		state = "" // "none", "N/A": the model had no state to give
	}
	if placeholder(country) {
		country = ""
	}
	if country == "" && state == "" {
		return nil
	}
	loc := &contract.Location{}
	if country != "" {
		code, ok := contract.NormalizeCountry(country)
		if st, isState := stateAsCountry(country, state); !ok && isState {
			code, ok, state = "US", true, st
		}
		if !ok {
			b.problem("governing_law.country", fmt.Errorf("unknown country %q", country))
			return nil
		}
		loc.Country = code
	}
	if state != "" {
		if loc.Country == "" {
			if code, ok := contract.NormalizeUSState(state); ok {
				loc.Country = "US"
				loc.State = code
			}
		}
		if loc.Country == "" {
			b.problem("governing_law.state", fmt.Errorf("%q is not a US state; give the country too", state))
			return nil
		}
		if loc.State == "" {
			loc.State = contract.NormalizeState(loc.Country, state)
		}
	}
	b.addEvidence("governing_law", strings.Trim(loc.State+", "+loc.Country, ", "), g.Evidence)
	b.checkEvidence("governing_law")
	return loc
}

func (b *builder) party(i int, p Party) (contract.PartyRole, bool) {
	field := fmt.Sprintf("parties[%d]", i)
	name := contract.CleanPartyName(p.Name)
	switch {
	case name == "":
		b.problem(field+".name", fmt.Errorf("empty name"))
		return contract.PartyRole{}, false
	case resolve.IsRoleWord(name):
		b.problem(field+".name", fmt.Errorf("%q is a role word, not the party's name; give the legal name the contract defines it as", name))
		return contract.PartyRole{}, false
	}
	pr := contract.PartyRole{Name: name, Role: strings.TrimSpace(p.Role)}
	l := p.Location
	loc := &contract.Location{Address: strings.TrimSpace(l.Address), City: strings.TrimSpace(l.City)}
	if c := strings.TrimSpace(l.Country); c != "" {
		if code, ok := contract.NormalizeCountry(c); ok {
			loc.Country = code
		} else if st, ok := stateAsCountry(c, l.State); ok {
			loc.Country = "US"
			l.State = st
		} else {
			b.problem(field+".location.country", fmt.Errorf("unknown country %q", c))
		}
	}
	if s := strings.TrimSpace(l.State); s != "" {
		if loc.Country == "" {
			if _, ok := contract.NormalizeUSState(s); ok {
				loc.Country = "US"
			}
		}
		loc.State = contract.NormalizeState(loc.Country, s)
	}
	if !loc.IsZero() {
		pr.Location = loc
	}
	quote := p.Evidence
	if strings.TrimSpace(quote) == "" {
		quote = name
	}
	b.addEvidence(field+".name", name, quote)
	return pr, true
}

func (b *builder) clause(i int, cv ClauseValue) (contract.Clause, bool) {
	field := fmt.Sprintf("clauses[%d]", i)
	text := strings.TrimSpace(cv.Text)
	if text == "" {
		// A category listed without a passage (small models fill the list
		// up to its cap this way) states nothing: not a problem to repair.
		return contract.Clause{}, false
	}
	typ, group, err := contract.ParseClauseType(cv.ClauseType)
	if err != nil {
		b.problem(field+".clause_type", err)
		return contract.Clause{}, false
	}
	cl := contract.Clause{Type: typ, Group: group, Summary: strings.TrimSpace(cv.Summary), Text: text}
	if m, ok := b.loc.Locate(text); ok {
		cl.Start, cl.End, cl.Verified = m.Start, m.End, true
		cl.Text = b.text[m.Start:m.End]
	}
	return cl, true
}

// stateAsCountry reads a US state written in the country field, as small
// models do ("FL", "Florida"), when the state field is empty or names the
// same state; it returns the state's code.
func stateAsCountry(country, state string) (string, bool) {
	c, ok := contract.NormalizeUSState(country)
	if !ok {
		return "", false
	}
	if strings.TrimSpace(state) == "" {
		return c, true
	}
	s, ok := contract.NormalizeUSState(state)
	return c, ok && s == c
}

// parseAmount reads a plain number, tolerating thousands separators,
// currency symbols and codes the model left in.
func parseAmount(s string) (float64, error) {
	clean := strings.Map(func(r rune) rune {
		switch {
		case r >= '0' && r <= '9', r == '.', r == '-':
			return r
		case r == ',', r == ' ', r == '$', r == '€', r == '£', r == '¥':
			return -1
		}
		return r
	}, s)
	clean = strings.TrimSpace(strings.TrimSuffix(strings.TrimPrefix(clean, "USD"), "USD"))
	f, err := strconv.ParseFloat(clean, 64)
	if err != nil {
		return 0, fmt.Errorf("%q is not a plain number such as 250000.00", s)
	}
	if f < 0 {
		return 0, fmt.Errorf("%q is negative", s)
	}
	return f, nil
}

// title is the document's first non-blank line, trimmed of Markdown
// heading marks and cut to 200 bytes at a character boundary.
func title(text string) string {
	for line := range strings.SplitSeq(text, "\n") {
		line = strings.TrimSpace(strings.TrimLeft(strings.TrimSpace(line), "#*"))
		line = strings.TrimSpace(strings.Trim(line, "*"))
		if line == "" {
			continue
		}
		if len(line) > 200 {
			cut := 200
			for cut > 0 && !isRuneStart(line[cut]) {
				cut--
			}
			line = strings.TrimSpace(line[:cut])
		}
		return line
	}
	return ""
}

// placeholder reports a value that stands for no value.
func placeholder(s string) bool {
	switch strings.ToLower(strings.Trim(s, " .()[]")) {
	case "none", "n/a", "na", "null", "nil", "unknown", "not specified", "not stated", "-":
		return true
	}
	return false
}
