package risk

import (
	"github.com/contractgraph/contractgraph/internal/llm"
)

// Risk levels, used for rule severities and item risk levels alike.
const (
	LevelHigh   = "High"
	LevelMedium = "Medium"
	LevelLow    = "Low"
)

// levels lists the risk levels from most to least severe.
var levels = []string{LevelHigh, LevelMedium, LevelLow}

// Rule is one dynamic risk rule the rule generator derives for a contract.
type Rule struct {
	ID          string   `json:"id" jsonschema:"Short stable id, e.g. R1."`
	Title       string   `json:"title"`
	Severity    string   `json:"severity" jsonschema:"High, Medium or Low."`
	Description string   `json:"description" jsonschema:"What to look for and why it is a risk."`
	Keywords    []string `json:"keywords" jsonschema:"Words that find the relevant clauses."`
}

// RuleSet is the rule generator's output.
type RuleSet struct {
	ContractType string `json:"contract_type" jsonschema:"The kind of contract, e.g. Distributor Agreement."`
	Rules        []Rule `json:"rules"`
}

// Citation is a statute quoted in support of a risk item.
type Citation struct {
	StatuteID string `json:"statute_id" jsonschema:"An id returned by statute_search, e.g. /us/usc/t9/s2."`
	Quote     string `json:"quote" jsonschema:"Verbatim words from that statute's text."`
}

// Item is one risk the analyst (or the reviewer) found.
type Item struct {
	RuleID         string     `json:"rule_id"`
	ClauseQuote    string     `json:"clause_quote" jsonschema:"Verbatim words from the contract text."`
	ClauseStart    int        `json:"clause_start" jsonschema:"Byte offset where the quote starts in the contract text, or 0 if unknown."`
	ClauseEnd      int        `json:"clause_end" jsonschema:"Byte offset where the quote ends, or 0 if unknown."`
	RiskLevel      string     `json:"risk_level" jsonschema:"High, Medium or Low."`
	Reasoning      string     `json:"reasoning"`
	AffectedParty  string     `json:"affected_party"`
	Citations      []Citation `json:"citations" jsonschema:"Statutes returned by statute_search that support the reasoning; empty when none applies."`
	LegalBasis     string     `json:"legal_basis" jsonschema:"When citations is empty, say why: e.g. no applicable statute was found by statute_search."`
	Recommendation string     `json:"recommendation"`
}

// Analysis is the risk analyst's output.
type Analysis struct {
	Items []Item `json:"items"`
	Notes string `json:"notes" jsonschema:"Anything the reviewer should know, e.g. rules with no matching clause."`
}

// Reviewer decisions.
const (
	DecisionApprove  = "approve"
	DecisionFeedback = "feedback"
	DecisionRewrite  = "rewrite"
)

// ReviewDecision is the senior reviewer's output.
type ReviewDecision struct {
	Decision string   `json:"decision" jsonschema:"approve, feedback or rewrite."`
	Problems []string `json:"problems" jsonschema:"Specific problems the analyst must fix (feedback), or what the rewrite changed."`
	Items    []Item   `json:"items" jsonschema:"The corrected items when decision is rewrite; empty otherwise."`
}

// Summary is the executive summariser's output.
type Summary struct {
	CoreIssues []string `json:"core_issues"`
	Conclusion string   `json:"conclusion"`
}

// Progress reports a pipeline step to a caller (the CLI prints it, the web
// app streams it).
type Progress struct {
	Stage     string `json:"stage"` // rules, analysis, review, revision, batch, summary, gate, done
	Message   string `json:"message"`
	Iteration int    `json:"iteration,omitempty"`
	Done      int    `json:"done,omitempty"` // batch: chunks analysed so far
	Total     int    `json:"total,omitempty"`
}

// Report is the outcome of a risk review.
type Report struct {
	ContractID    string `json:"contract_id"`
	ContractTitle string `json:"contract_title,omitempty"`
	ContractType  string `json:"contract_type,omitempty"`
	Jurisdiction  string `json:"jurisdiction,omitempty"`
	Mode          string `json:"mode"` // review or batch
	GeneratedAt   string `json:"generated_at"`

	Rules   []Rule       `json:"rules"`
	Items   []ReportItem `json:"items"`
	Summary *Summary     `json:"summary,omitempty"`

	ReviewTrail      []ReviewRound     `json:"review_trail"`
	RemovedCitations []RemovedCitation `json:"removed_citations"`
	RemovedItems     []RemovedItem     `json:"removed_items"`
	// CitationsProposed counts the distinct citations (per rule, clause
	// quote, statute and quote) in every draft the analyst, a revision, a
	// reviewer's rewrite or a batch passage produced. Those that did not
	// reach the final gate were dropped during the review; the gate's
	// removals are RemovedCitations and the rest are in Items.
	CitationsProposed int `json:"citations_proposed,omitempty"`

	// Partial is true when the review did not run to completion; Notices
	// say why, and also carry warnings such as an empty statute store.
	Partial bool     `json:"partial"`
	Notices []string `json:"notices"`
	// CitationsChecked is false when there was no statute store (or no
	// statute in it), so no legal citation could be checked or kept.
	CitationsChecked bool `json:"citations_checked"`

	Usage llm.Usage `json:"usage"`
	// ContractText is the text the clause offsets refer to; it is not
	// serialised but lets the renderers show each clause in context.
	ContractText string `json:"-"`
}

// ReportItem is a validated risk item with its citations resolved.
type ReportItem struct {
	Number         int              `json:"number"`
	RuleID         string           `json:"rule_id"`
	RuleTitle      string           `json:"rule_title,omitempty"`
	ClauseQuote    string           `json:"clause_quote"`
	ClauseStart    int              `json:"clause_start"`
	ClauseEnd      int              `json:"clause_end"`
	RiskLevel      string           `json:"risk_level"`
	Reasoning      string           `json:"reasoning"`
	AffectedParty  string           `json:"affected_party,omitempty"`
	Citations      []ReportCitation `json:"citations"`
	LegalBasis     string           `json:"legal_basis,omitempty"`
	Recommendation string           `json:"recommendation"`
}

// ReportCitation is a citation that passed the final gate.
type ReportCitation struct {
	StatuteID string `json:"statute_id"`
	Citation  string `json:"citation"` // e.g. 9 U.S.C. § 2
	Heading   string `json:"heading,omitempty"`
	URL       string `json:"url,omitempty"`
	Quote     string `json:"quote"`
}

// RemovedCitation is a citation the final gate took out, and why.
type RemovedCitation struct {
	ItemNumber int    `json:"item_number,omitempty"` // 0 when the whole item was removed
	RuleID     string `json:"rule_id"`
	StatuteID  string `json:"statute_id"`
	Citation   string `json:"citation,omitempty"` // empty when the statute was not found
	Quote      string `json:"quote"`
	Reason     string `json:"reason"`
}

// RemovedItem is a risk item left out of the report because its clause
// quote could not be found in the contract.
type RemovedItem struct {
	RuleID      string `json:"rule_id"`
	ClauseQuote string `json:"clause_quote"`
	Reason      string `json:"reason"`
}

// ReviewRound is one iteration of the review loop.
type ReviewRound struct {
	Iteration int      `json:"iteration"`
	Decision  string   `json:"decision"`           // the reviewer's decision, or "error"
	Problems  []string `json:"problems,omitempty"` // the reviewer's and the deterministic checks'
	Changes   []string `json:"changes,omitempty"`  // what the revision or rewrite changed
}
