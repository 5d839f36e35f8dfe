package tools

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/contractgraph/contractgraph/internal/contract"
	"github.com/contractgraph/contractgraph/internal/graph"
)

// Filters are the contract filters shared by contract_search,
// contract_aggregate and clause_search. All are optional and ANDed.
type Filters struct {
	MinEffectiveDate    string         `json:"min_effective_date,omitempty" jsonschema:"Only contracts that became effective on or after this date (YYYY-MM-DD, inclusive)."`
	MaxEffectiveDate    string         `json:"max_effective_date,omitempty" jsonschema:"Only contracts that became effective on or before this date (YYYY-MM-DD, inclusive)."`
	MinEndDate          string         `json:"min_end_date,omitempty" jsonschema:"Only contracts whose end (expiration) date is on or after this date (YYYY-MM-DD, inclusive)."`
	MaxEndDate          string         `json:"max_end_date,omitempty" jsonschema:"Only contracts whose end (expiration) date is on or before this date (YYYY-MM-DD, inclusive)."`
	ContractType        string         `json:"contract_type,omitempty" jsonschema:"Only contracts of this type."`
	Parties             []string       `json:"parties,omitempty" jsonschema:"Only contracts where, for every entry, some party's name or alias contains it. Case and punctuation are ignored, so 'acme' matches 'ACME Corp.'." compact:"name parts; all must match"`
	PartyCountry        string         `json:"party_country,omitempty" jsonschema:"Only contracts with a party located in this country: ISO 3166-1 alpha-2 code such as US, CN, GB (a country name such as 'United States' also works)." compact:"ISO code, e.g. US"`
	GoverningLawCountry string         `json:"governing_law_country,omitempty" jsonschema:"Only contracts governed by the law of this country: ISO 3166-1 alpha-2 code such as US or GB (a country name also works)."`
	GoverningLawState   string         `json:"governing_law_state,omitempty" jsonschema:"Only contracts governed by the law of this state or province. In the US a state name or its two-letter code ('New York' or 'NY'); elsewhere the region's name."`
	Active              *bool          `json:"active,omitempty" jsonschema:"true: only contracts still in force on as_of (end date on or after it); false: only contracts that ended before as_of. Contracts without an end date match neither." compact:"in force on as_of"`
	AsOf                string         `json:"as_of,omitempty" jsonschema:"Reference date for active (YYYY-MM-DD). Defaults to today."`
	MonetaryValue       *MonetaryValue `json:"monetary_value,omitempty" jsonschema:"Compare the contract's total amount with a value; contracts without an amount never match." compact:"compare total_amount"`
	ClauseTypes         []string       `json:"clause_types,omitempty" jsonschema:"Only contracts that contain a clause of every listed kind. Each entry is a clause type (e.g. 'Governing Law', 'Cap On Liability') or a clause group (e.g. 'Liability & Indemnification') that matches any type in the group." compact:"all present, e.g. Cap On Liability"`
	SummarySearch       string         `json:"summary_search,omitempty" jsonschema:"Free-text search over contract titles, summaries and scopes, e.g. 'software hosting for hospitals'. Matching contracts are those containing the words." compact:"words in title or summary"`
}

// MonetaryValue compares a contract's total amount with Value.
type MonetaryValue struct {
	Operator string   `json:"operator" jsonschema:"Comparison operator."`
	Value    *float64 `json:"value" jsonschema:"Amount to compare with, in the contract's currency, e.g. 10000000 for 10 million."`
}

// Monetary comparison operators.
var monetaryOperators = []string{"=", ">", "<", ">=", "<="}

// Sort directions.
var orders = []string{"asc", "desc"}

const dateLayout = "2006-01-02"

// Input size limits.
const (
	maxTextArg    = 500 // characters of a free-text argument
	maxListArg    = 20  // entries of a list argument
	maxIdentifier = 300 // characters of an id or a name
)

// tuneFilters adds the enums and formats of the shared filters to a schema
// that embeds Filters.
func tuneFilters(s *jsonschema.Schema) {
	setDate(s, "min_effective_date", "max_effective_date", "min_end_date", "max_end_date", "as_of")
	setEnum(s, "contract_type", contract.ContractTypes)
	if _, ok := s.Properties["clause_types"]; ok {
		setEnum(s, "clause_types", contract.ClauseTypeNames())
	}
	mv := property(s, "monetary_value")
	setEnum(mv, "operator", monetaryOperators)
}

// filter validates and normalises f into a graph filter.
func (s *Set) filter(f Filters) (graph.Filter, error) {
	var g graph.Filter
	dates := []struct {
		field string
		in    string
		out   *string
	}{
		{"min_effective_date", f.MinEffectiveDate, &g.MinEffectiveDate},
		{"max_effective_date", f.MaxEffectiveDate, &g.MaxEffectiveDate},
		{"min_end_date", f.MinEndDate, &g.MinEndDate},
		{"max_end_date", f.MaxEndDate, &g.MaxEndDate},
		{"as_of", f.AsOf, &g.AsOf},
	}
	for _, d := range dates {
		v, err := parseDate(d.field, d.in)
		if err != nil {
			return g, err
		}
		*d.out = v
	}
	if g.AsOf == "" {
		g.AsOf = s.now().Format(dateLayout)
	}
	if err := checkRange("effective_date", g.MinEffectiveDate, g.MaxEffectiveDate); err != nil {
		return g, err
	}
	if err := checkRange("end_date", g.MinEndDate, g.MaxEndDate); err != nil {
		return g, err
	}

	var err error
	if g.ContractType, err = parseContractType("contract_type", f.ContractType); err != nil {
		return g, err
	}
	if g.Parties, err = parseParties("parties", f.Parties); err != nil {
		return g, err
	}
	if g.PartyCountry, err = parseCountry("party_country", f.PartyCountry); err != nil {
		return g, err
	}
	if g.GoverningLawCountry, err = parseCountry("governing_law_country", f.GoverningLawCountry); err != nil {
		return g, err
	}
	if g.GoverningLawState, err = parseState("governing_law_state", g.GoverningLawCountry, f.GoverningLawState); err != nil {
		return g, err
	}
	if f.Active != nil {
		active := *f.Active
		g.Active = &active
	}
	if g.Monetary, err = parseMonetary(f.MonetaryValue); err != nil {
		return g, err
	}
	if g.ClauseTypes, err = parseClauseTypes("clause_types", f.ClauseTypes); err != nil {
		return g, err
	}
	if g.SummarySearch, err = parseText("summary_search", f.SummarySearch, false); err != nil {
		return g, err
	}
	return g, nil
}

func parseDate(field, v string) (string, error) {
	v = strings.TrimSpace(v)
	if v == "" {
		return "", nil
	}
	t, err := time.Parse(dateLayout, v)
	if err != nil {
		return "", &ArgError{Field: field, Msg: fmt.Sprintf("%q is not a date in the form YYYY-MM-DD (e.g. 2019-10-01)", v)}
	}
	return t.Format(dateLayout), nil
}

// checkRange reports a minimum after its maximum. ISO dates compare as strings.
func checkRange(name, minimum, maximum string) error {
	if minimum != "" && maximum != "" && minimum > maximum {
		return &ArgError{Field: "max_" + name, Msg: fmt.Sprintf("%s is before min_%s %s", maximum, name, minimum)}
	}
	return nil
}

func parseContractType(field, v string) (string, error) {
	if strings.TrimSpace(v) == "" {
		return "", nil
	}
	t, err := contract.ParseContractType(v, "")
	if err != nil {
		return "", &ArgError{Field: field, Msg: fmt.Sprintf("unknown contract type %q", v), Valid: contract.ContractTypes}
	}
	return t, nil
}

func parseParties(field string, in []string) ([]string, error) {
	if len(in) > maxListArg {
		return nil, &ArgError{Field: field, Msg: fmt.Sprintf("%d entries, more than the limit of %d", len(in), maxListArg)}
	}
	var out []string
	for i, p := range in {
		p = strings.TrimSpace(p)
		if len(p) > maxIdentifier {
			return nil, &ArgError{Field: fmt.Sprintf("%s[%d]", field, i), Msg: fmt.Sprintf("longer than %d characters", maxIdentifier)}
		}
		if contract.MatchKey(p) == "" {
			return nil, &ArgError{Field: fmt.Sprintf("%s[%d]", field, i), Msg: fmt.Sprintf("%q has no letters or digits to match a party name", p)}
		}
		if !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	return out, nil
}

func parseCountry(field, v string) (string, error) {
	v = strings.TrimSpace(v)
	if v == "" {
		return "", nil
	}
	c, ok := contract.NormalizeCountry(v)
	if !ok {
		return "", &ArgError{Field: field, Msg: fmt.Sprintf("%q is not a country name or ISO 3166-1 alpha-2 code (such as US, GB, CN, DE)", v)}
	}
	return c, nil
}

// usStateCodes lists the USPS codes contract.USStateName knows, sorted.
var usStateCodes = func() []string {
	var codes []string
	for a := 'A'; a <= 'Z'; a++ {
		for b := 'A'; b <= 'Z'; b++ {
			if c := string([]rune{a, b}); contract.USStateName(c) != "" {
				codes = append(codes, c)
			}
		}
	}
	return codes
}()

// parseState normalises a governing-law state: a US state name or code
// becomes its USPS code (whether or not the country is given, since US
// states are by far the most common), a Canadian province its ISO code, and
// anything else outside the US is kept as cleaned free text.
func parseState(field, country, v string) (string, error) {
	v = strings.TrimSpace(v)
	if v == "" {
		return "", nil
	}
	if len(v) > maxIdentifier {
		return "", &ArgError{Field: field, Msg: fmt.Sprintf("longer than %d characters", maxIdentifier)}
	}
	switch country {
	case "US":
		c, ok := contract.NormalizeUSState(v)
		if !ok {
			return "", &ArgError{Field: field, Msg: fmt.Sprintf("%q is not a US state name or USPS code", v), Valid: usStateCodes}
		}
		return c, nil
	case "":
		if c, ok := contract.NormalizeUSState(v); ok {
			return c, nil
		}
		return contract.NormalizeState("CA", v), nil
	default:
		return contract.NormalizeState(country, v), nil
	}
}

func parseMonetary(m *MonetaryValue) (*graph.Monetary, error) {
	if m == nil {
		return nil, nil
	}
	op := strings.TrimSpace(m.Operator)
	if op == "==" {
		op = "="
	}
	if !slices.Contains(monetaryOperators, op) {
		return nil, &ArgError{Field: "monetary_value.operator", Msg: fmt.Sprintf("unknown operator %q", m.Operator), Valid: monetaryOperators}
	}
	if m.Value == nil {
		return nil, &ArgError{Field: "monetary_value.value", Msg: "missing: give the amount to compare with"}
	}
	if math.IsNaN(*m.Value) || math.IsInf(*m.Value, 0) {
		return nil, &ArgError{Field: "monetary_value.value", Msg: "must be a finite number"}
	}
	return &graph.Monetary{Op: op, Value: *m.Value}, nil
}

func parseClauseTypes(field string, in []string) ([]string, error) {
	if len(in) > maxListArg {
		return nil, &ArgError{Field: field, Msg: fmt.Sprintf("%d entries, more than the limit of %d", len(in), maxListArg)}
	}
	var out []string
	for _, v := range in {
		t, _, err := contract.ParseClauseType(v)
		if err != nil {
			return nil, &ArgError{Field: field, Msg: fmt.Sprintf("unknown clause type %q", v), Valid: contract.ClauseTypeNames()}
		}
		if !slices.Contains(out, t) {
			out = append(out, t)
		}
	}
	return out, nil
}

// parseText trims a free-text argument and bounds its length.
func parseText(field, v string, required bool) (string, error) {
	v = strings.Join(strings.Fields(v), " ")
	if required && v == "" {
		return "", &ArgError{Field: field, Msg: "missing: give the words to search for"}
	}
	if n := len([]rune(v)); n > maxTextArg {
		return "", &ArgError{Field: field, Msg: fmt.Sprintf("%d characters, more than the limit of %d", n, maxTextArg)}
	}
	return v, nil
}

// parseOrder returns whether the order is descending; "" gives def.
func parseOrder(field, v string, def bool) (bool, error) {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "":
		return def, nil
	case "asc":
		return false, nil
	case "desc":
		return true, nil
	}
	return false, &ArgError{Field: field, Msg: fmt.Sprintf("unknown order %q", v), Valid: orders}
}

// parseLimit applies a default to 0 and bounds the rest to 1..maximum.
func parseLimit(field string, v, def, maximum int) (int, error) {
	if v == 0 {
		return def, nil
	}
	if v < 1 || v > maximum {
		return 0, &ArgError{Field: field, Msg: fmt.Sprintf("%d is out of range: give 1 to %d", v, maximum)}
	}
	return v, nil
}

// parseEnum matches v case-insensitively against valid; "" gives def.
func parseEnum(field, v, def string, valid []string) (string, error) {
	v = strings.ToLower(strings.TrimSpace(v))
	if v == "" {
		return def, nil
	}
	if !slices.Contains(valid, v) {
		return "", &ArgError{Field: field, Msg: fmt.Sprintf("unknown value %q", v), Valid: valid}
	}
	return v, nil
}
