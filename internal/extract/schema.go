package extract

import (
	"encoding/json"
	"fmt"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/contractgraph/contractgraph/internal/contract"
	"github.com/contractgraph/contractgraph/internal/llm"
)

// Extraction is the model's reply. Every field is required by the schema,
// so that strict structured-output modes accept it; a value the contract
// does not state is the empty string.
type Extraction struct {
	Summary       string        `json:"summary" jsonschema:"two or three sentences: what the contract is, between whom, and its main obligations"`
	ContractType  Value         `json:"contract_type" jsonschema:"the kind of contract; value is one of the listed types"`
	Parties       []Party       `json:"parties" jsonschema:"every party that signs the contract (legal entities or people), not defined role words"`
	EffectiveDate Value         `json:"effective_date" jsonschema:"the date the contract takes effect, as written"`
	EndDate       Value         `json:"end_date" jsonschema:"the date the contract ends when stated explicitly, as written"`
	Duration      Value         `json:"duration" jsonschema:"the initial term as an ISO 8601 duration such as P2Y or P6M"`
	RenewalTerm   Value         `json:"renewal_term" jsonschema:"the automatic renewal term as an ISO 8601 duration such as P1Y"`
	NoticePeriod  Value         `json:"notice_period" jsonschema:"the notice needed to terminate or prevent renewal, as an ISO 8601 duration such as P90D"`
	TotalAmount   Value         `json:"total_amount" jsonschema:"the total contract value as a plain number such as 250000.00"`
	Currency      Value         `json:"currency" jsonschema:"the ISO 4217 currency code of the amounts, such as USD"`
	Scope         Value         `json:"contract_scope" jsonschema:"what the contract covers (products, services, territory), in one or two sentences"`
	GoverningLaw  GoverningLaw  `json:"governing_law" jsonschema:"the jurisdiction whose law governs the contract"`
	Clauses       []ClauseValue `json:"clauses" jsonschema:"clauses of the listed CUAD categories that the contract contains"`
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

// schemaFor builds the structured-output schema of Extraction with the
// contract-type and clause-category enums filled in from the contract
// package, the single source of both taxonomies.
func schemaFor() (*llm.Schema, error) {
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
	cats := make([]any, 0, len(contract.ClauseCategories))
	for _, c := range contract.ClauseCategories {
		cats = append(cats, c.Name)
	}
	s.Properties["clauses"].Items.Properties["clause_type"].Enum = cats
	raw, err := json.Marshal(s)
	if err != nil {
		return nil, fmt.Errorf("encode extraction schema: %w", err)
	}
	res, err := s.Resolve(nil)
	if err != nil {
		return nil, fmt.Errorf("resolve extraction schema: %w", err)
	}
	return &llm.Schema{Name: "contract_extraction", Raw: raw, Resolved: res}, nil
}
