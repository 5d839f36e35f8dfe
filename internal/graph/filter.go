package graph

import (
	"fmt"
	"math"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/contractgraph/contractgraph/internal/contract"
	"github.com/contractgraph/contractgraph/internal/textmatch"
)

// Filter is the set of shared contract filters of the tool API, and the one
// definition of them: the tools' JSON Schemas, argument decoding and query
// API parameters are generated from its tags, Normalize validates a caller's
// values, and every backend compiles the normalised struct (for contract
// search, aggregates, clause search and vector search alike). The zero value
// matches every contract; all conditions are ANDed.
//
// Adding a filter means a field here (with its json and jsonschema tags and
// a line in Normalize), a case in each backend's filter compiler and a case
// in graphtest's filter table; tests fail when any of them is missing (see
// docs/ARCHITECTURE.md, "How to add a filter").
type Filter struct {
	MinEffectiveDate string `json:"min_effective_date,omitempty" jsonschema:"Only contracts that became effective on or after this date (YYYY-MM-DD, inclusive)."`
	MaxEffectiveDate string `json:"max_effective_date,omitempty" jsonschema:"Only contracts that became effective on or before this date (YYYY-MM-DD, inclusive)."`
	MinEndDate       string `json:"min_end_date,omitempty" jsonschema:"Only contracts whose end (expiration) date is on or after this date (YYYY-MM-DD, inclusive)."`
	MaxEndDate       string `json:"max_end_date,omitempty" jsonschema:"Only contracts whose end (expiration) date is on or before this date (YYYY-MM-DD, inclusive)."`
	ContractType     string `json:"contract_type,omitempty" jsonschema:"Only contracts of this type."`
	// Parties: each entry must match some party of the contract whose name
	// or alias, reduced by contract.MatchKey, contains contract.MatchKey(entry).
	Parties []string `json:"parties,omitempty" jsonschema:"Only contracts where, for every entry (or any entry, with parties_match any), some party's name or alias contains it. Case and punctuation are ignored, so 'acme' matches 'ACME Corp.'; an entry that no party name contains is matched to the names within one or two typos of it (shown in party_matches)." compact:"name parts; all must match"`
	// PartiesMatch is "" (every entry must match, the default) or
	// PartiesAny; Normalize drops it when there are no parties.
	PartiesMatch string `json:"parties_match,omitempty" jsonschema:"all (default): a contract must have a party matching every parties entry; any: a party matching at least one entry, e.g. contracts with Acme or Globex." compact:"all (default) or any"`
	// PartyIDSets are parties entries resolved to stored parties by typo
	// tolerance (ResolveParties moves an entry here from Parties): a
	// contract meets a set when one of its parties has an id in it. Sets
	// count as entries for PartiesMatch. It is not a tool argument.
	PartyIDSets [][]string `json:"-"`
	// PartyCountry (ISO alpha-2): some party has a location in it.
	PartyCountry        string `json:"party_country,omitempty" jsonschema:"Only contracts with a party located in this country: ISO 3166-1 alpha-2 code such as US, CN, GB (a country name such as 'United States' also works)." compact:"ISO code, e.g. US"`
	GoverningLawCountry string `json:"governing_law_country,omitempty" jsonschema:"Only contracts governed by the law of this country: ISO 3166-1 alpha-2 code such as US or GB (a country name also works)."`
	// GoverningLawState is normalised: the USPS code in the US.
	GoverningLawState string `json:"governing_law_state,omitempty" jsonschema:"Only contracts governed by the law of this state or province. In the US a state name or its two-letter code ('New York' or 'NY'); elsewhere the region's name."`
	// Active, when set, keeps contracts whose end_date >= AsOf (true) or
	// < AsOf (false). Contracts without an end date match neither.
	Active *bool `json:"active,omitempty" jsonschema:"true: only contracts still in force on as_of (end date on or after it); false: only contracts that ended before as_of. Contracts without an end date match neither." compact:"in force on as_of"`
	// AsOf is YYYY-MM-DD; Normalize sets it to today when it is not given.
	AsOf string `json:"as_of,omitempty" jsonschema:"Reference date for active (YYYY-MM-DD). Defaults to today."`
	// Monetary compares total_amount; contracts without an amount never match.
	Monetary *Monetary `json:"monetary_value,omitempty" jsonschema:"Compare the contract's total amount with a value; contracts without an amount never match." compact:"compare total_amount"`
	// Currency is an ISO 4217 code: only contracts whose amounts are in it.
	Currency string `json:"currency,omitempty" jsonschema:"Only contracts whose amounts are in this currency: ISO 4217 code such as USD, EUR, GBP (a name or symbol such as 'US dollars' or '€' also works). Combine it with monetary_value so that amounts in different currencies are not compared." compact:"e.g. EUR"`
	// ClauseTypes: every entry must be present, as a clause type or group.
	ClauseTypes []string `json:"clause_types,omitempty" jsonschema:"Only contracts that contain a clause of every listed kind. Each entry is a clause type (e.g. 'Governing Law', 'Cap On Liability') or a clause group (e.g. 'Liability & Indemnification') that matches any type in the group." compact:"all present, e.g. Cap On Liability"`
	// WithoutClauseTypes: no entry may be present, as a clause type or group.
	WithoutClauseTypes []string `json:"without_clause_types,omitempty" jsonschema:"Only contracts with no clause of any listed kind, e.g. ['Cap On Liability'] for contracts without a liability cap. Entries are clause types or groups, as in clause_types. Absent means extraction found no such clause: read the contract before relying on it." compact:"none present, e.g. Cap On Liability"`
	// SummarySearch is free text matched (full-text, every word) against
	// summary, scope and title.
	SummarySearch string `json:"summary_search,omitempty" jsonschema:"Free-text search over contract titles, summaries and scopes, e.g. 'software hosting for hospitals'. Matching contracts contain most of the words (two of three, three of four; all of one or two), in any form ('hospital' finds 'hospitals')." compact:"words in title or summary"`
	// SummaryMatch is "" (most of SummarySearch's words, SummaryGroups)
	// or SummaryAll; Normalize drops it without a summary search.
	SummaryMatch string `json:"summary_match,omitempty" jsonschema:"most (default): contracts containing most of the summary_search words; all: every word."`
	// SummaryIDs are contracts found for SummarySearch by meaning: the
	// tools set them from summary embeddings (SummaryVectorStore) when the
	// store keeps them. A contract meets SummarySearch when its words match
	// or its id is here; Normalize drops them without a summary search. It
	// is not a tool argument.
	SummaryIDs []string `json:"-"`
	// RenewalKind is one of contract.RenewalKinds.
	RenewalKind string `json:"renewal_kind,omitempty" jsonschema:"Only contracts that renew this way: automatic (renews by itself unless notice is given), option (only if a party exercises an option or the parties agree), evergreen (continues until terminated), none (ends on its end date)."`
	// MinNoticeDeadline and MaxNoticeDeadline keep contracts with a notice
	// deadline (contract.DeadlineNotice, automatic renewals rolled forward
	// term by term) in the range; either end may be open.
	MinNoticeDeadline string `json:"min_notice_deadline,omitempty" jsonschema:"Only contracts with a notice deadline (the last day to give notice of non-renewal, or to exercise a renewal option; automatic renewals rolled forward term by term) on or after this date (YYYY-MM-DD, inclusive)."`
	MaxNoticeDeadline string `json:"max_notice_deadline,omitempty" jsonschema:"Only contracts with a notice deadline on or before this date (YYYY-MM-DD, inclusive)."`
	// IncludeUnverified makes the other conditions, and the ordering,
	// grouping and metric of the query, read unverified values too
	// (contract.UnverifiedValues: a value whose evidence quote was not found
	// in the text or does not state it). By default such a value is treated
	// as missing: an unverified effective date matches no date range, is in
	// no year's group and an unverified amount is in no sum.
	IncludeUnverified bool `json:"include_unverified,omitempty" jsonschema:"Also use values whose evidence could not be verified (the extraction's quote was not found in the contract text, or does not state the value). By default such values are treated as missing in every filter, ordering, grouping and metric; results mark them as unverified either way." compact:"also use unverified values"`
	// ContractIDs restricts to these ids when non-empty. It is not a tool
	// argument: clause_search's contract_id and the risk review's scope set it.
	ContractIDs []string `json:"-"`
}

// Monetary is a comparison on a contract's total amount. After Normalize,
// Op is one of MonetaryOperators and Value is set and finite.
type Monetary struct {
	Op    string   `json:"operator" jsonschema:"Comparison operator."`
	Value *float64 `json:"value" jsonschema:"Amount to compare with, in the contract's currency, e.g. 10000000 for 10 million."`
}

// MonetaryOperators are the amount comparisons Monetary.Op accepts; they
// are SQL and Cypher operators as written.
var MonetaryOperators = []string{"=", ">", "<", ">=", "<="}

// Comparison returns the operator, from MonetaryOperators and so safe to
// write into a statement, and the value; an error matching ErrInvalidQuery
// for an unknown operator or a missing value.
func (m *Monetary) Comparison() (op string, value float64, err error) {
	i := slices.Index(MonetaryOperators, m.Op)
	if i < 0 {
		return "", 0, &ArgError{Field: "monetary_value.operator", Msg: fmt.Sprintf("unknown operator %q", m.Op), Valid: MonetaryOperators}
	}
	if m.Value == nil {
		return "", 0, &ArgError{Field: "monetary_value.value", Msg: "missing"}
	}
	return MonetaryOperators[i], *m.Value, nil
}

// Sizes of filter and query arguments.
const (
	MaxTextArg    = 500 // characters of a free-text argument
	MaxListArg    = 20  // entries of a list argument
	MaxIdentifier = 300 // characters of an id or a name
)

// DateLayout is the layout of every date in filters and results.
const DateLayout = time.DateOnly

// Normalize validates f and returns it in the canonical form backends
// compile: dates checked and ranges ordered, the contract type, clause
// types, countries, states and currency mapped to their canonical names and
// codes, lists bounded and deduplicated, free text trimmed. today
// (YYYY-MM-DD) is AsOf's default. An invalid value is a *ArgError naming
// the field; the result is then the zero Filter.
func (f Filter) Normalize(today string) (Filter, error) {
	var g Filter
	dates := []struct {
		field string
		in    string
		out   *string
	}{
		{"min_effective_date", f.MinEffectiveDate, &g.MinEffectiveDate},
		{"max_effective_date", f.MaxEffectiveDate, &g.MaxEffectiveDate},
		{"min_end_date", f.MinEndDate, &g.MinEndDate},
		{"max_end_date", f.MaxEndDate, &g.MaxEndDate},
		{"min_notice_deadline", f.MinNoticeDeadline, &g.MinNoticeDeadline},
		{"max_notice_deadline", f.MaxNoticeDeadline, &g.MaxNoticeDeadline},
		{"as_of", f.AsOf, &g.AsOf},
	}
	for _, d := range dates {
		v, err := ParseDate(d.field, d.in)
		if err != nil {
			return Filter{}, err
		}
		*d.out = v
	}
	if g.AsOf == "" {
		g.AsOf = today
	}
	if err := checkRange("effective_date", g.MinEffectiveDate, g.MaxEffectiveDate); err != nil {
		return Filter{}, err
	}
	if err := checkRange("end_date", g.MinEndDate, g.MaxEndDate); err != nil {
		return Filter{}, err
	}
	if err := checkRange("notice_deadline", g.MinNoticeDeadline, g.MaxNoticeDeadline); err != nil {
		return Filter{}, err
	}
	var err error
	if g.ContractType, err = ParseContractType("contract_type", f.ContractType); err != nil {
		return Filter{}, err
	}
	if g.Parties, err = parseParties("parties", f.Parties); err != nil {
		return Filter{}, err
	}
	if g.PartiesMatch, err = parsePartiesMatch(f.PartiesMatch); err != nil {
		return Filter{}, err
	}
	for _, set := range f.PartyIDSets {
		if len(set) > 0 {
			g.PartyIDSets = append(g.PartyIDSets, slices.Clone(set))
		}
	}
	if len(g.Parties) == 0 && len(g.PartyIDSets) == 0 {
		g.PartiesMatch = ""
	}
	if g.PartyCountry, err = ParseCountry("party_country", f.PartyCountry); err != nil {
		return Filter{}, err
	}
	if g.GoverningLawCountry, err = ParseCountry("governing_law_country", f.GoverningLawCountry); err != nil {
		return Filter{}, err
	}
	if g.GoverningLawState, err = parseState("governing_law_state", g.GoverningLawCountry, f.GoverningLawState); err != nil {
		return Filter{}, err
	}
	if f.Active != nil {
		active := *f.Active
		g.Active = &active
	}
	if g.Monetary, err = parseMonetary(f.Monetary); err != nil {
		return Filter{}, err
	}
	if g.Currency, err = parseCurrency("currency", f.Currency); err != nil {
		return Filter{}, err
	}
	if g.ClauseTypes, err = ParseClauseTypes("clause_types", f.ClauseTypes); err != nil {
		return Filter{}, err
	}
	if g.WithoutClauseTypes, err = ParseClauseTypes("without_clause_types", f.WithoutClauseTypes); err != nil {
		return Filter{}, err
	}
	if g.SummarySearch, err = ParseText("summary_search", f.SummarySearch, false); err != nil {
		return Filter{}, err
	}
	if g.SummaryMatch, err = parseSummaryMatch(f.SummaryMatch); err != nil {
		return Filter{}, err
	}
	if g.SummarySearch == "" {
		g.SummaryMatch = ""
	} else if len(f.SummaryIDs) > 0 {
		g.SummaryIDs = slices.Clone(f.SummaryIDs)
	}
	if g.RenewalKind, err = ParseRenewalKind("renewal_kind", f.RenewalKind); err != nil {
		return Filter{}, err
	}
	g.IncludeUnverified = f.IncludeUnverified
	if len(f.ContractIDs) > 0 {
		g.ContractIDs = slices.Clone(f.ContractIDs)
	}
	return g, nil
}

// Unrestricted reports whether f matches every contract: it sets no
// condition (AsOf and IncludeUnverified alone are none). It compares the
// whole struct, so a new field needs no change here.
func (f Filter) Unrestricted() bool {
	return reflect.DeepEqual(f, Filter{AsOf: f.AsOf, IncludeUnverified: f.IncludeUnverified})
}

// Facts returns c as f's queries see it: c itself with IncludeUnverified,
// otherwise c without the values in unverified (contract.WithoutUnverified).
// Backends that work a query out in Go (deadlines) call it on what they read.
func (f Filter) Facts(c *contract.Contract, unverified []contract.Unverified) *contract.Contract {
	if f.IncludeUnverified {
		return c
	}
	return contract.WithoutUnverified(c, unverified)
}

// ArgError reports an invalid query argument: which field (its JSON name),
// what is wrong and, for a closed set, the valid values. It matches
// ErrInvalidQuery with errors.Is; the tools package turns it into its own
// *tools.ArgError. (FieldError is the write-side counterpart.)
type ArgError struct {
	Field string
	Msg   string
	Valid []string
}

func (e *ArgError) Error() string {
	s := e.Msg
	if e.Field != "" {
		s = e.Field + ": " + s
	}
	if len(e.Valid) > 0 {
		s += "; valid values: " + strings.Join(e.Valid, ", ")
	}
	return s
}

// Is makes a ArgError match ErrInvalidQuery.
func (e *ArgError) Is(target error) bool { return target == ErrInvalidQuery }

// UnknownValue is the error for a value of field outside valid, such as an
// ordering a backend does not know.
func UnknownValue(field, v string, valid []string) error {
	return &ArgError{Field: field, Msg: fmt.Sprintf("unknown value %q", v), Valid: valid}
}

// NoWords is the error for a free-text argument with no searchable word.
func NoWords(field, text string) error {
	return &ArgError{Field: field, Msg: fmt.Sprintf("%q holds no searchable word", text)}
}

// ErrActiveNeedsAsOf is the error for Filter.Active without Filter.AsOf,
// which Normalize always sets.
var ErrActiveNeedsAsOf error = &ArgError{Field: "as_of", Msg: "missing: active needs a reference date"}

// ParseDate checks a YYYY-MM-DD date; "" stays "".
func ParseDate(field, v string) (string, error) {
	v = strings.TrimSpace(v)
	if v == "" {
		return "", nil
	}
	t, err := time.Parse(DateLayout, v)
	if err != nil {
		return "", &ArgError{Field: field, Msg: fmt.Sprintf("%q is not a date in the form YYYY-MM-DD (e.g. 2019-10-01)", v)}
	}
	return t.Format(DateLayout), nil
}

// checkRange reports a minimum after its maximum. ISO dates compare as strings.
func checkRange(name, minimum, maximum string) error {
	if minimum != "" && maximum != "" && minimum > maximum {
		return &ArgError{Field: "max_" + name, Msg: fmt.Sprintf("%s is before min_%s %s", maximum, name, minimum)}
	}
	return nil
}

// ParseRenewalKind maps a renewal kind ("automatic", "auto-renewal",
// "perpetual", "by option", ...) to one of contract.RenewalKinds; "" stays "".
func ParseRenewalKind(field, v string) (string, error) {
	if strings.TrimSpace(v) == "" {
		return "", nil
	}
	k, ok := contract.ParseRenewalKind(v)
	if !ok || len(v) > MaxIdentifier {
		return "", &ArgError{Field: field, Msg: fmt.Sprintf("unknown renewal kind %q", v), Valid: contract.RenewalKinds}
	}
	return k, nil
}

// ParseContractType maps a contract type name to its canonical name.
func ParseContractType(field, v string) (string, error) {
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
	if len(in) > MaxListArg {
		return nil, &ArgError{Field: field, Msg: fmt.Sprintf("%d entries, more than the limit of %d", len(in), MaxListArg)}
	}
	var out []string
	for i, p := range in {
		p = strings.TrimSpace(p)
		if len(p) > MaxIdentifier {
			return nil, &ArgError{Field: fmt.Sprintf("%s[%d]", field, i), Msg: fmt.Sprintf("longer than %d characters", MaxIdentifier)}
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

// SummaryAll is Filter.SummaryMatch for contracts holding every word.
const SummaryAll = "all"

// SummaryMatches are the values Filter.SummaryMatch accepts.
var SummaryMatches = []string{"most", SummaryAll}

// parseSummaryMatch maps "most" (and "") to "" and "all" to SummaryAll.
func parseSummaryMatch(v string) (string, error) {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "", "most":
		return "", nil
	case SummaryAll:
		return SummaryAll, nil
	}
	return "", &ArgError{Field: "summary_match", Msg: fmt.Sprintf("unknown value %q", v), Valid: SummaryMatches}
}

// MaxSummaryGroups bounds the word groups SummaryGroups returns; a query
// whose "most words" would need more (nine words or more) needs them all.
const MaxSummaryGroups = 64

// SummaryGroups is what a summary search asks the full-text index for:
// groups of its search words (textmatch.SearchWords), a contract matching
// when it holds every word of some group. With all, or one or two words,
// that is one group of every word; otherwise every choice of n - n/3 of
// the n words (two of three, three of four, four of five or six), unless
// there would be more than MaxSummaryGroups. Both backends build their
// queries from it, so that they match the same contracts.
func SummaryGroups(text string, all bool) [][]string {
	words := textmatch.SearchWords(text)
	n := len(words)
	if n == 0 {
		return nil
	}
	need := n
	if !all && n >= 3 {
		need = n - n/3
	}
	if binomial(n, need) > MaxSummaryGroups {
		need = n
	}
	var groups [][]string
	var pick func(start int, group []string)
	pick = func(start int, group []string) {
		if len(group) == need {
			groups = append(groups, slices.Clone(group))
			return
		}
		for i := start; i <= n-(need-len(group)); i++ {
			pick(i+1, append(group, words[i]))
		}
	}
	pick(0, make([]string, 0, need))
	return groups
}

// binomial is n choose k.
func binomial(n, k int) int {
	r := 1
	for i := 1; i <= k; i++ {
		r = r * (n - k + i) / i
	}
	return r
}

// PartiesAny is Filter.PartiesMatch for contracts matching any entry.
const PartiesAny = "any"

// PartiesMatches are the values Filter.PartiesMatch accepts.
var PartiesMatches = []string{"all", PartiesAny}

// parsePartiesMatch maps "all" (and "") to "" and "any" to PartiesAny.
func parsePartiesMatch(v string) (string, error) {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "", "all":
		return "", nil
	case PartiesAny:
		return PartiesAny, nil
	}
	return "", &ArgError{Field: "parties_match", Msg: fmt.Sprintf("unknown value %q", v), Valid: PartiesMatches}
}

// PartyConditions is the number of party conditions f sets (its parties
// entries and id sets), which backends combine by f.PartiesMatch.
func (f Filter) PartyConditions() int { return len(f.Parties) + len(f.PartyIDSets) }

// ParseCountry maps a country name or code to its ISO 3166-1 alpha-2 code.
// An unknown country is an error that suggests the nearest country names.
func ParseCountry(field, v string) (string, error) {
	c, err := parseCode(field, v, contract.NormalizeCountry, "a country name or ISO 3166-1 alpha-2 code (such as US, GB, CN, DE)")
	if ae, ok := err.(*ArgError); ok {
		ae.Msg += didYouMean(v, countryPlaces)
	}
	return c, err
}

// parseCode maps a name or code to its canonical code with normalize; ""
// stays "", and a value normalize does not know is an error saying what
// was expected.
func parseCode(field, v string, normalize func(string) (string, bool), want string) (string, error) {
	v = strings.TrimSpace(v)
	if v == "" {
		return "", nil
	}
	c, ok := normalize(v)
	if !ok {
		return "", &ArgError{Field: field, Msg: fmt.Sprintf("%q is not %s", v, want)}
	}
	return c, nil
}

// parseState normalises a governing-law state: a US state name or code
// becomes its USPS code and a Canadian province its ISO code (whether or
// not the country is given, since they are by far the most common);
// outside the US and Canada, with the country given, the region is kept as
// cleaned free text. A value that is none of these is an error that
// suggests the nearest state or province, so that a misspelling ("Nwe
// York") is not silently a filter that matches nothing.
func parseState(field, country, v string) (string, error) {
	v = strings.TrimSpace(v)
	if v == "" {
		return "", nil
	}
	if len(v) > MaxIdentifier {
		return "", &ArgError{Field: field, Msg: fmt.Sprintf("longer than %d characters", MaxIdentifier)}
	}
	switch country {
	case "US":
		c, ok := contract.NormalizeUSState(v)
		if !ok {
			return "", &ArgError{Field: field, Msg: fmt.Sprintf("%q is not a US state name or USPS code%s", v, didYouMean(v, usStatePlaces)), Valid: placeCodes(usStatePlaces)}
		}
		return c, nil
	case "CA":
		c, ok := contract.NormalizeCAProvince(v)
		if !ok {
			return "", &ArgError{Field: field, Msg: fmt.Sprintf("%q is not a Canadian province or territory name or code%s", v, didYouMean(v, caProvincePlaces)), Valid: placeCodes(caProvincePlaces)}
		}
		return c, nil
	case "":
		if c, ok := contract.NormalizeUSState(v); ok {
			return c, nil
		}
		if c, ok := contract.NormalizeCAProvince(v); ok {
			return c, nil
		}
		msg := fmt.Sprintf("%q is not a US state or Canadian province", v)
		if c, ok := contract.NormalizeCountry(v); ok {
			msg += fmt.Sprintf("; it is a country: use governing_law_country %q", c)
		} else if s := didYouMean(v, usStatePlaces, caProvincePlaces); s != "" {
			msg += s
		} else {
			msg += "; for a region of another country, give governing_law_country too"
		}
		return "", &ArgError{Field: field, Msg: msg}
	default:
		return contract.NormalizeState(country, v), nil
	}
}

func parseMonetary(m *Monetary) (*Monetary, error) {
	if m == nil {
		return nil, nil
	}
	op := strings.TrimSpace(m.Op)
	if op == "==" {
		op = "="
	}
	if !slices.Contains(MonetaryOperators, op) {
		return nil, &ArgError{Field: "monetary_value.operator", Msg: fmt.Sprintf("unknown operator %q", m.Op), Valid: MonetaryOperators}
	}
	if m.Value == nil {
		return nil, &ArgError{Field: "monetary_value.value", Msg: "missing: give the amount to compare with"}
	}
	if math.IsNaN(*m.Value) || math.IsInf(*m.Value, 0) {
		return nil, &ArgError{Field: "monetary_value.value", Msg: "must be a finite number"}
	}
	v := *m.Value
	return &Monetary{Op: op, Value: &v}, nil
}

func parseCurrency(field, v string) (string, error) {
	return parseCode(field, v, contract.NormalizeCurrency, "an ISO 4217 currency code or a currency name (such as USD, EUR, GBP, 'US dollars')")
}

// ParseClauseTypes maps clause type and group names to their canonical
// names, bounded and deduplicated.
func ParseClauseTypes(field string, in []string) ([]string, error) {
	if len(in) > MaxListArg {
		return nil, &ArgError{Field: field, Msg: fmt.Sprintf("%d entries, more than the limit of %d", len(in), MaxListArg)}
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

// ParseText collapses the white space of a free-text argument and bounds
// its length; required makes an empty one an error.
func ParseText(field, v string, required bool) (string, error) {
	v = strings.Join(strings.Fields(v), " ")
	if required && v == "" {
		return "", &ArgError{Field: field, Msg: "missing: give the words to search for"}
	}
	if n := len([]rune(v)); n > MaxTextArg {
		return "", &ArgError{Field: field, Msg: fmt.Sprintf("%d characters, more than the limit of %d", n, MaxTextArg)}
	}
	return v, nil
}
