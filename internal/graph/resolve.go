package graph

import (
	"context"

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

// PartyMerger is an optional capability of a Store used by entity
// resolution.
type PartyMerger interface {
	// Parties returns every party, sorted by id, with its aliases,
	// contracts (sorted), distinct roles and distinct locations.
	Parties(ctx context.Context) ([]PartyInfo, error)

	// MergeParties merges the parties others into canonicalID in one
	// transaction: their contracts become the canonical party's, their names
	// and aliases become its aliases (so later imports of those spellings
	// resolve to it), and they cease to exist. It returns ErrNotFound
	// (wrapped, naming the id) when any id does not exist, and then changes
	// nothing.
	MergeParties(ctx context.Context, canonicalID string, others []string) error
}
