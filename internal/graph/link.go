package graph

import (
	"context"
	"fmt"
	"math"
)

// Contract link kinds: the relationship types (:Contract)-[:AMENDS]->
// (:Contract) and (:Contract)-[:SUPPLEMENTS]->(:Contract). A restatement
// is AMENDS with ContractLink.Restates.
const (
	LinkAmends      = "AMENDS"
	LinkSupplements = "SUPPLEMENTS"
)

// Sources of contract links.
const (
	LinkDetected = "detected" // proposed by family detection
	LinkManual   = "manual"   // recorded by a person
)

// ContractLink is one (From)-[Kind]->(To) relationship between contracts:
// From amends or supplements To, its master.
type ContractLink struct {
	From       string  `json:"from"`
	To         string  `json:"to"`
	Kind       string  `json:"kind"`
	Restates   bool    `json:"restates,omitempty"`
	Confidence float64 `json:"confidence"`
	// Quote is From's words that refer to To; Start and End are their
	// byte offsets in From's text, both 0 when the quote is from the title.
	Quote  string `json:"quote,omitempty"`
	Start  int    `json:"start"`
	End    int    `json:"end"`
	Source string `json:"source"`
}

// Check says what is wrong with a link as a store would receive it, or
// nil; the error matches ErrInvalidQuery.
func (l ContractLink) Check() error {
	switch {
	case l.From == "" || l.To == "":
		return fmt.Errorf("%w: link %q -> %q: both contract ids are required", ErrInvalidQuery, l.From, l.To)
	case l.From == l.To:
		return fmt.Errorf("%w: link %q -> %q: a contract cannot amend itself", ErrInvalidQuery, l.From, l.To)
	case l.Kind != LinkAmends && l.Kind != LinkSupplements:
		return fmt.Errorf("%w: link %q -> %q: kind %q is not %s or %s", ErrInvalidQuery, l.From, l.To, l.Kind, LinkAmends, LinkSupplements)
	case l.Restates && l.Kind != LinkAmends:
		return fmt.Errorf("%w: link %q -> %q: only AMENDS restates", ErrInvalidQuery, l.From, l.To)
	case l.Source != LinkDetected && l.Source != LinkManual:
		return fmt.Errorf("%w: link %q -> %q: source %q is not %s or %s", ErrInvalidQuery, l.From, l.To, l.Source, LinkDetected, LinkManual)
	case math.IsNaN(l.Confidence) || l.Confidence < 0 || l.Confidence > 1:
		return fmt.Errorf("%w: link %q -> %q: confidence %v is not in [0, 1]", ErrInvalidQuery, l.From, l.To, l.Confidence)
	case l.Start < 0 || l.End < l.Start:
		return fmt.Errorf("%w: link %q -> %q: span %d:%d", ErrInvalidQuery, l.From, l.To, l.Start, l.End)
	}
	return nil
}

// LinkStore is an optional capability of a Store: the AMENDS and
// SUPPLEMENTS relationships between contracts, which family detection
// writes and contract pages read. A link is keyed by (From, To, Kind);
// a manual link outranks a detected one with its key. A contract's links
// go with it when it is deleted or replaced by PutContracts (family
// detection, which runs after every import, proposes them again).
type LinkStore interface {
	// ReplaceLinks replaces, in one transaction, every stored link of
	// source with links, each of which must have that source. A link that
	// fails ContractLink.Check is an error matching ErrInvalidQuery, one
	// naming a contract that is not stored an error matching ErrNotFound;
	// then nothing changes. A detected link whose key a manual link holds
	// is skipped; a manual link replaces a detected one with its key.
	ReplaceLinks(ctx context.Context, source string, links []ContractLink) error

	// ContractLinks returns the links from or to the contract id, or every
	// link when id is "", sorted by From, then To, then Kind (bytewise).
	// An id that is not stored has no links; it is not an error.
	ContractLinks(ctx context.Context, id string) ([]ContractLink, error)
}

// ContractHeadLister is an optional capability of a Store: it lists what
// family detection reads of every contract (ContractHead) without loading
// whole contracts, which at a million contracts is most of detection's
// time. Stores without it are read with Store.Contracts.
type ContractHeadLister interface {
	// ContractHeads calls fn with the head of every stored contract, in
	// id order (bytewise), the Text cut to its first textBytes bytes
	// (textBytes > 0). An error of fn stops the listing and is returned as
	// is; so is the context's error.
	ContractHeads(ctx context.Context, textBytes int, fn func(ContractHead) error) error
}

// ContractHead is what family detection reads of a contract: its id,
// title, type, effective date, the opening of its text and its parties in
// order, each with its resolved party id and the name written in the
// contract.
type ContractHead struct {
	ID, Title, ContractType, EffectiveDate string
	Text                                   string
	Parties                                []HeadParty
}

// HeadParty is one party of a ContractHead.
type HeadParty struct {
	ID, Name string
}

// ClauseCounter is an optional capability of a Store: it counts the
// clauses stored under a clause type or group (a clause's type for a type,
// its type or group for a group, as the clause_types filter reads them) of
// the contracts a filter matches, so that clause_compare reads only the
// contracts whose clauses it compares. Stores without it have every
// matching contract read, up to the deepest page contract search reaches.
type ClauseCounter interface {
	// CountClauses counts the clauses of kind, a canonical clause type or
	// group name, in the contracts f matches.
	CountClauses(ctx context.Context, f Filter, kind string) (int, error)
}
