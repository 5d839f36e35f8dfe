// Package contract holds ContractGraph's domain types, its taxonomies (contract
// types and CUAD clause categories with their groups) and the normalisation
// functions every importer, extractor and tool shares. It does no I/O.
package contract

// Contract is one commercial agreement and everything the graph knows about it.
// Dates are ISO 8601 (YYYY-MM-DD) strings, empty when unknown, so that a value
// read from a contract is never silently turned into a wrong time.Time.
type Contract struct {
	ID            string   `json:"id"`
	Title         string   `json:"title,omitempty"`
	Summary       string   `json:"summary,omitempty"`
	ContractType  string   `json:"contract_type,omitempty"`
	EffectiveDate string   `json:"effective_date,omitempty"`
	EndDate       string   `json:"end_date,omitempty"`
	Duration      string   `json:"duration,omitempty"`      // ISO 8601 duration, e.g. P2Y
	DurationDays  *int     `json:"duration_days,omitempty"` // derived from Duration, or from the dates
	RenewalTerm   string   `json:"renewal_term,omitempty"`
	NoticePeriod  string   `json:"notice_period,omitempty"`
	TotalAmount   *float64 `json:"total_amount,omitempty"`
	Currency      string   `json:"currency,omitempty"` // ISO 4217
	Scope         string   `json:"scope,omitempty"`
	SourcePath    string   `json:"source_path,omitempty"`
	SHA256        string   `json:"sha256,omitempty"`
	ExtractedBy   string   `json:"extracted_by,omitempty"`
	ExtractedAt   string   `json:"extracted_at,omitempty"` // RFC 3339

	// RenewalKind is one of RenewalKinds, "" when not known; RenewalCount
	// limits how many times an automatic renewal happens (0: no stated
	// limit). TerminationNotice is the ISO 8601 notice a party needs to
	// terminate for convenience. RenewalTerm and NoticePeriod (ISO 8601:
	// each renewal term, and the notice that stops or exercises a renewal)
	// complete the timeline that TimelineOf reads.
	RenewalKind       string `json:"renewal_kind,omitempty"`
	RenewalCount      int    `json:"renewal_count,omitempty"`
	TerminationNotice string `json:"termination_notice,omitempty"`

	GoverningLaw *Location   `json:"governing_law,omitempty"`
	Parties      []PartyRole `json:"parties,omitempty"`
	Clauses      []Clause    `json:"clauses,omitempty"`
	Chunks       []Chunk     `json:"chunks,omitempty"`

	// Text is the full contract text that clause and chunk offsets refer to.
	Text string `json:"text,omitempty"`

	// Evidence records, per extracted field, the quote that supports it.
	Evidence []Evidence `json:"evidence,omitempty"`

	// Provenance names, for each value that did not come from the source
	// ExtractedBy names, the label of the source it came from, keyed by
	// field: "summary", "total_amount" (with the currency), "text" (with
	// the source file and chunks), "parties[<PartyKey>]",
	// "parties[<PartyKey>].location", "clauses[<index>]", ... Merge writes
	// it when a contract combines several sources; it is empty otherwise.
	Provenance map[string]string `json:"provenance,omitempty"`

	// Usage is the LLM token usage spent extracting this contract.
	Usage *TokenUsage `json:"usage,omitempty"`
}

// PartyRole is a party as it appears in one contract: the (PARTY_TO {role})
// relationship together with the party's name and location in that contract.
type PartyRole struct {
	PartyID  string    `json:"party_id,omitempty"` // set by the store once resolved
	Name     string    `json:"name"`
	Role     string    `json:"role,omitempty"`
	Location *Location `json:"location,omitempty"`
}

// Party is a canonical legal entity shared by every contract it signs.
type Party struct {
	ID             string   `json:"id"`
	Name           string   `json:"name"`
	NormalizedName string   `json:"normalized_name"`
	Aliases        []string `json:"aliases,omitempty"`
}

// Location is a place: a party's seat or a contract's governing law.
// Country is ISO 3166-1 alpha-2; State is a USPS code in the US and an
// ISO 3166-2 subdivision code elsewhere where known.
type Location struct {
	Country string `json:"country,omitempty"`
	State   string `json:"state,omitempty"`
	City    string `json:"city,omitempty"`
	Address string `json:"address,omitempty"`
}

// IsZero reports whether l holds no information.
func (l *Location) IsZero() bool {
	return l == nil || (l.Country == "" && l.State == "" && l.City == "" && l.Address == "")
}

// Clause is one clause of a contract. Start and End are UTF-8 byte offsets
// into Contract.Text; Verified is true only when Text[Start:End] equals the
// clause text exactly.
type Clause struct {
	ID       string `json:"id,omitempty"`
	Type     string `json:"type"`
	Group    string `json:"group,omitempty"`
	Summary  string `json:"summary,omitempty"`
	Text     string `json:"text,omitempty"`
	Start    int    `json:"start,omitempty"`
	End      int    `json:"end,omitempty"`
	Verified bool   `json:"verified,omitempty"`
}

// Chunk is a passage of the contract text split at clause boundaries.
type Chunk struct {
	ID        string    `json:"id,omitempty"`
	Ord       int       `json:"ord"`
	Text      string    `json:"text"`
	Start     int       `json:"start"`
	End       int       `json:"end"`
	Embedding []float32 `json:"embedding,omitempty"`
	// EmbeddingModel names the model that made Embedding (as configured,
	// e.g. "openai:text-embedding-3-small"), so that a store can tell which
	// vectors a model change must redo; "" means unknown.
	EmbeddingModel string `json:"embedding_model,omitempty"`
}

// Evidence ties one extracted field value to the words that support it.
type Evidence struct {
	Field    string `json:"field"`
	Value    string `json:"value,omitempty"`
	Quote    string `json:"quote"`
	Start    int    `json:"start,omitempty"`
	End      int    `json:"end,omitempty"`
	Verified bool   `json:"verified"`
}

// TokenUsage counts LLM tokens.
type TokenUsage struct {
	InputTokens  int `json:"input_tokens"`
	OutputTokens int `json:"output_tokens"`
}

// Statute is one section or article of a law.
type Statute struct {
	ID           string `json:"id"` // stable, e.g. /us/usc/t9/s2
	Jurisdiction string `json:"jurisdiction"`
	Code         string `json:"code"`
	Number       string `json:"number"`
	Heading      string `json:"heading,omitempty"`
	Text         string `json:"text"`
	URL          string `json:"url,omitempty"`
}
