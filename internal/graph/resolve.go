package graph

import (
	"context"
	"slices"

	"github.com/contractgraph/contractgraph/internal/contract"
)

// PartyInfo is a stored party with what entity resolution weighs: its
// spellings, the contracts it signs (co-parties follow from them), its roles
// and its locations.
type PartyInfo struct {
	ID             string              `json:"id"`
	Name           string              `json:"name"`
	NormalizedName string              `json:"normalized_name"`
	Aliases        []string            `json:"aliases,omitempty"`
	ContractIDs    []string            `json:"contract_ids"`
	Roles          []string            `json:"roles,omitempty"`
	Locations      []contract.Location `json:"locations,omitempty"`
}

// AddRole records one of the party's roles in a contract, where the
// contract places it. Backends call it in contract id order (bytewise) and,
// within a contract, in the order the contract lists its parties, so that
// every backend lists ContractIDs, Roles and Locations alike: contracts
// once each, roles and non-empty locations once each in order of first use.
func (p *PartyInfo) AddRole(contractID, role string, l contract.Location) {
	if n := len(p.ContractIDs); n == 0 || p.ContractIDs[n-1] != contractID {
		p.ContractIDs = append(p.ContractIDs, contractID)
	}
	if role != "" && !slices.Contains(p.Roles, role) {
		p.Roles = append(p.Roles, role)
	}
	if !l.IsZero() && !slices.Contains(p.Locations, l) {
		p.Locations = append(p.Locations, l)
	}
}

// PartyMerger is an optional capability of a Store used by entity
// resolution.
type PartyMerger interface {
	// Parties returns every party, sorted by id (bytewise), with its
	// aliases (sorted), contracts (sorted, never nil), distinct roles and
	// distinct locations (see PartyInfo.AddRole for their order).
	Parties(ctx context.Context) ([]PartyInfo, error)

	// MergeParties merges the parties others into canonicalID in one
	// transaction: their contracts become the canonical party's, their names
	// and aliases become its aliases (so later imports of those spellings
	// resolve to it, and party filters find it by them), and they cease to
	// exist. The merge keeps the canonical party's id and name. An id
	// repeated in others counts once and canonicalID among them not at all,
	// so empty others merge nothing. It returns ErrNotFound (wrapped, naming
	// the id) when any id does not exist, and then changes nothing.
	MergeParties(ctx context.Context, canonicalID string, others []string) error
}

// PartyGetter is an optional capability of a Store: one party by its id,
// for pages that show a party.
type PartyGetter interface {
	// GetParty returns the party with id as PartyMerger.Parties lists it,
	// or an error wrapping ErrNotFound, naming the id, when there is none.
	GetParty(ctx context.Context, id string) (*PartyInfo, error)
}

// ResolutionMarker is an optional capability of a PartyMerger that makes
// entity resolution incremental: it keeps, per party, the mark (an opaque
// fingerprint) that resolution recorded when it last compared the party, so
// that the next run compares only parties whose mark changed, and so that a
// run that was interrupted resumes where it stopped.
type ResolutionMarker interface {
	// ResolutionMarks returns the recorded mark of every party that has
	// one, by party id.
	ResolutionMarks(ctx context.Context) (map[string]string, error)

	// SetResolutionMarks records marks (party id to mark) in one
	// transaction, replacing earlier ones; ids that name no party are
	// skipped. A party's mark goes with the party when it is deleted or
	// merged into another.
	SetResolutionMarks(ctx context.Context, marks map[string]string) error
}
