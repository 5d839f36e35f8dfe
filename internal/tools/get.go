package tools

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/contractgraph/contractgraph/internal/contract"
	"github.com/contractgraph/contractgraph/internal/graph"
)

const getContractDescription = `Get one contract's full record by its contract_id (as returned by contract_search or clause_search): every field (title, type, summary, scope, dates, duration, renewal term, notice period, amount, currency), the parties with their roles and locations, the governing law, and the clauses with their type, group, summary, verbatim text and start/end byte offsets into the contract text (verified is true when the offsets locate exactly those words); unverified lists the values whose evidence could not be found in the text, with the reason. text_length is the length of the contract text; set include_text to also read the text itself, a window of at most 24 KB per call starting at text_offset.`

var getContractCompact = Compact{
	Description: `One contract by contract_id: fields, parties, clauses with verbatim text; include_text adds its text from text_offset.`,
}

// GetContractInput is the input of get_contract.
type GetContractInput struct {
	ContractID  string `json:"contract_id" jsonschema:"The contract's id."`
	IncludeText bool   `json:"include_text,omitempty" jsonschema:"Also return the contract text (default false). Long texts are returned one window at a time; text_truncated tells whether more follows."`
	TextOffset  int    `json:"text_offset,omitempty" jsonschema:"Byte offset where the returned text window starts (default 0). To read on, pass the previous text_offset plus the length of the text returned."`
}

// ContractRecord is get_contract's answer: the stored contract without its
// chunks, with the text included only on request and bounded to a window.
type ContractRecord struct {
	contract.Contract
	// TextLength is the byte length of the whole contract text.
	TextLength int `json:"text_length"`
	// TextOffset is where the returned Text starts in the whole text.
	TextOffset int `json:"text_offset,omitempty"`
	// TextTruncated is true when the text continues after the returned window.
	TextTruncated bool `json:"text_truncated,omitempty"`
	// Unverified lists the values whose evidence could not be verified
	// (contract.UnverifiedValues), which searches and aggregates leave out
	// unless asked to include them.
	Unverified []contract.Unverified `json:"unverified,omitempty"`
}

func tuneGetContract(s *jsonschema.Schema) {
	setRange(s, "text_offset", 0, 0, nil)
	property(s, "contract_id").MinLength = new(1)
}

// GetContract runs get_contract. A missing contract is graph.ErrNotFound.
func (s *Set) GetContract(ctx context.Context, in GetContractInput) (ContractRecord, error) {
	if s.store == nil {
		return ContractRecord{}, errNoStore
	}
	id := strings.TrimSpace(in.ContractID)
	if id == "" {
		return ContractRecord{}, &ArgError{Field: "contract_id", Msg: "missing: give the id of a contract, as contract_search returns it"}
	}
	if len(id) > maxIdentifier {
		return ContractRecord{}, &ArgError{Field: "contract_id", Msg: fmt.Sprintf("longer than %d characters", maxIdentifier)}
	}
	if in.TextOffset < 0 {
		return ContractRecord{}, &ArgError{Field: "text_offset", Msg: fmt.Sprintf("%d is negative", in.TextOffset)}
	}
	c, err := s.store.GetContract(ctx, id)
	if errors.Is(err, graph.ErrNotFound) {
		return ContractRecord{}, fmt.Errorf("%s: contract %q: %w", NameGetContract, id, graph.ErrNotFound)
	}
	if err != nil {
		return ContractRecord{}, fmt.Errorf("%s %q: %w", NameGetContract, id, err)
	}
	rec := ContractRecord{Contract: *c, TextLength: len(c.Text), Unverified: contract.UnverifiedValues(c)}
	rec.Chunks = nil
	rec.Usage = nil
	if rec.Clauses == nil {
		rec.Clauses = []contract.Clause{}
	}
	rec.Text = ""
	if in.IncludeText {
		if in.TextOffset > len(c.Text) {
			return ContractRecord{}, &ArgError{Field: "text_offset", Msg: fmt.Sprintf("%d is past the end of the text (%d bytes)", in.TextOffset, len(c.Text))}
		}
		start, end := window(c.Text, in.TextOffset, s.maxTextBytes)
		rec.Text = c.Text[start:end]
		rec.TextOffset = start
		rec.TextTruncated = end < len(c.Text)
	}
	return rec, nil
}

// window returns the bounds of at most n bytes of text from offset, moved so
// that neither bound splits a UTF-8 sequence.
func window(text string, offset, n int) (start, end int) {
	start = offset
	for start < len(text) && !utf8.RuneStart(text[start]) {
		start++
	}
	end = min(start+n, len(text))
	for end < len(text) && end > start && !utf8.RuneStart(text[end]) {
		end--
	}
	return start, end
}
