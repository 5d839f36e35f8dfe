package extract

import (
	"encoding/json"
	"fmt"
	"slices"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/contractgraph/contractgraph/internal/contract"
	"github.com/contractgraph/contractgraph/internal/llm"
)

// Extraction is the model's reply. Every field is required by the schema,
// so that strict structured-output modes accept it; a value the contract
// does not state is the empty string.
//
// The field order is the order of the schema's properties on the wire,
// and models write their reply in that order (llama.cpp's grammar enforces
// it): short values first, then the lists, clauses last, so that a reply
// cut off at its token limit has lost only the tail of the clause list.
type Extraction struct {
	Summary       string        `json:"summary" jsonschema:"two or three sentences: what the contract is, between whom, and its main obligations"`
	ContractType  Value         `json:"contract_type" jsonschema:"the kind of contract; value is one of the listed types"`
	EffectiveDate Value         `json:"effective_date" jsonschema:"the date the contract takes effect, as written"`
	EndDate       Value         `json:"end_date" jsonschema:"the date the contract ends when stated explicitly, as written"`
	Duration      Value         `json:"duration" jsonschema:"the initial term as an ISO 8601 duration such as P2Y or P6M"`
	RenewalTerm   Value         `json:"renewal_term" jsonschema:"the automatic renewal term as an ISO 8601 duration such as P1Y"`
	NoticePeriod  Value         `json:"notice_period" jsonschema:"the notice needed to terminate or prevent renewal, as an ISO 8601 duration such as P90D"`
	RenewalKind   Value         `json:"renewal_kind" jsonschema:"how the term continues past its end: automatic (renews unless notice is given), option (only if a party exercises an option or the parties agree), evergreen (continues until terminated), none; value is one of these"`
	Termination   Value         `json:"termination_notice" jsonschema:"the notice either party needs to terminate for convenience (without cause), as an ISO 8601 duration such as P60D"`
	TotalAmount   Value         `json:"total_amount" jsonschema:"the total contract value as a plain number such as 250000.00"`
	Currency      Value         `json:"currency" jsonschema:"the ISO 4217 currency code of the amounts, such as USD"`
	Scope         Value         `json:"contract_scope" jsonschema:"what the contract covers (products, services, territory), in one or two sentences"`
	GoverningLaw  GoverningLaw  `json:"governing_law" jsonschema:"the jurisdiction whose law governs the contract"`
	Parties       []Party       `json:"parties" jsonschema:"every party that signs the contract (legal entities or people), not defined role words; at most 8"`
	Clauses       []ClauseValue `json:"clauses" jsonschema:"clauses of the listed CUAD categories that the contract contains, each a different passage; at most 20"`
}

// Caps on the lists a reply may hold. They go out as maxItems (a grammar-
// constrained server cannot exceed them) and in the prompt; a reply with
// more items keeps the first ones and warns. CUAD's 510 expert-annotated
// contracts have 13 of the 41 categories on average and 21 or fewer in
// nine of ten contracts, counting the five that are facts here (document
// name, parties, dates).
const (
	MaxParties = 8
	MaxClauses = 20
	// MaxEvidenceWords is the longest quote the prompt asks for; longer
	// quotes are kept (they are still located in the text).
	MaxEvidenceWords = 40
)

// propertyOrder is the order of the reply's properties, set explicitly so
// that it does not depend on how the schema library orders struct fields.
var propertyOrder = []string{
	"summary", "contract_type", "effective_date", "end_date", "duration", "renewal_term",
	"notice_period", "renewal_kind", "termination_notice", "total_amount", "currency", "contract_scope", "governing_law", "parties", "clauses",
}

// Value is one extracted value and the quote that supports it.
type Value struct {
	Value    string `json:"value" jsonschema:"the value, or empty when the contract does not state it"`
	Evidence string `json:"evidence" jsonschema:"the exact words of the contract that state the value, copied verbatim; empty when value is empty"`
}

// Party is a party as the model reports it.
type Party struct {
	Name     string        `json:"name" jsonschema:"the party's legal name as written, without its role"`
	Role     string        `json:"role" jsonschema:"the party's role in the contract, such as Licensor, Distributor, Customer"`
	Location PartyLocation `json:"location" jsonschema:"where the party is seated, as stated in the contract"`
	Evidence string        `json:"evidence" jsonschema:"the exact words of the contract that name the party, copied verbatim"`
}

// PartyLocation is a party's seat as written.
type PartyLocation struct {
	Address string `json:"address"`
	City    string `json:"city"`
	State   string `json:"state"`
	Country string `json:"country"`
}

// GoverningLaw is the governing-law jurisdiction.
type GoverningLaw struct {
	Country  string `json:"country" jsonschema:"country name or ISO code, empty when not stated"`
	State    string `json:"state" jsonschema:"state or province, empty when none"`
	Evidence string `json:"evidence" jsonschema:"the governing-law sentence copied verbatim; empty when not stated"`
}

// ClauseValue is one clause.
type ClauseValue struct {
	ClauseType string `json:"clause_type" jsonschema:"one of the listed CUAD clause categories"`
	Text       string `json:"text" jsonschema:"the clause's words copied verbatim from the contract (one sentence or short passage)"`
	Summary    string `json:"summary" jsonschema:"one sentence saying what the clause means for the parties"`
}

// schemas are the three structured-output schemas of an extraction: the
// whole reply, the facts without clauses (the first of two calls), and the
// clauses alone (the second).
type schemas struct {
	full, facts, clauses *llm.Schema
}

// clauseReply is the reply of the focused clause call.
type clauseReply struct {
	Clauses []ClauseValue `json:"clauses" jsonschema:"clauses of the listed CUAD categories that the contract contains, each a different passage; at most 20"`
}

// schemaFor builds the schemas with the contract-type and clause-category
// enums filled in from the contract package, the single source of both
// taxonomies, the properties in propertyOrder and the list caps. The caps
// go into the schema sent to the model only: a reply over a cap is
// truncated with a warning rather than rejected, which would cost a whole
// repair round on a slow model.
func schemaFor() (*schemas, error) {
	s, err := jsonschema.For[Extraction](nil)
	if err != nil {
		return nil, fmt.Errorf("derive extraction schema: %w", err)
	}
	types := make([]any, 0, len(contract.ContractTypes)+1)
	types = append(types, "")
	for _, t := range contract.ContractTypes {
		types = append(types, t)
	}
	s.Properties["contract_type"].Properties["value"].Enum = types
	kinds := []any{""}
	for _, k := range contract.RenewalKinds {
		kinds = append(kinds, k)
	}
	s.Properties["renewal_kind"].Properties["value"].Enum = kinds
	s.PropertyOrder = slices.Clone(propertyOrder)
	if len(s.Properties) != len(propertyOrder) {
		return nil, fmt.Errorf("extraction schema: %d properties but propertyOrder names %d", len(s.Properties), len(propertyOrder))
	}
	clauses := s.Properties["clauses"]
	clauses.Items.Properties["clause_type"].Enum = clauseEnum()
	clauses.Items.PropertyOrder = []string{"clause_type", "text", "summary"}
	s.Properties["parties"].Items.PropertyOrder = []string{"name", "role", "location", "evidence"}

	full, err := finish(s, "contract_extraction")
	if err != nil {
		return nil, err
	}

	facts := s.CloneSchemas()
	delete(facts.Properties, "clauses")
	facts.Required = slices.DeleteFunc(slices.Clone(facts.Required), func(r string) bool { return r == "clauses" })
	facts.PropertyOrder = propertyOrder[:len(propertyOrder)-1]
	factsSchema, err := finish(facts, "contract_facts")
	if err != nil {
		return nil, err
	}

	cs, err := jsonschema.For[clauseReply](nil)
	if err != nil {
		return nil, fmt.Errorf("derive clause schema: %w", err)
	}
	cs.Properties["clauses"].Items.Properties["clause_type"].Enum = clauseEnum()
	cs.Properties["clauses"].Items.PropertyOrder = []string{"clause_type", "text", "summary"}
	clauseSchema, err := finish(cs, "contract_clauses")
	if err != nil {
		return nil, err
	}
	return &schemas{full: full, facts: factsSchema, clauses: clauseSchema}, nil
}

func clauseEnum() []any {
	cats := make([]any, 0, len(contract.ClauseCategories))
	for _, c := range contract.ClauseCategories {
		cats = append(cats, c.Name)
	}
	return cats
}

// finish encodes s with the list caps for the model and resolves it
// without them for validation.
func finish(s *jsonschema.Schema, name string) (*llm.Schema, error) {
	setCaps(s, true)
	raw, err := json.Marshal(s)
	if err != nil {
		return nil, fmt.Errorf("encode %s schema: %w", name, err)
	}
	v := s.CloneSchemas()
	setCaps(v, false)
	res, err := v.Resolve(nil)
	if err != nil {
		return nil, fmt.Errorf("resolve %s schema: %w", name, err)
	}
	return &llm.Schema{Name: name, Raw: raw, Resolved: res}, nil
}

func setCaps(s *jsonschema.Schema, on bool) {
	for name, n := range map[string]int{"parties": MaxParties, "clauses": MaxClauses} {
		p, ok := s.Properties[name]
		if !ok {
			continue
		}
		if on {
			p.MaxItems = jsonschema.Ptr(n)
		} else {
			p.MaxItems = nil
		}
	}
}
