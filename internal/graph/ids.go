package graph

import "context"

// MaxContractIDs bounds one ContractIDs call.
const MaxContractIDs = 1000

// ContractIDLister is the optional capability of listing contract ids by
// prefix without reading the contracts, for shell completion.
type ContractIDLister interface {
	// ContractIDs returns up to limit (1..MaxContractIDs; others mean
	// MaxContractIDs) ids of stored contracts that start with prefix
	// (byte for byte; "" lists from the first), in ascending byte order.
	// It fails only when the store cannot be read.
	ContractIDs(ctx context.Context, prefix string, limit int) ([]string, error)
}

// ContractIDLimit is the number of ids a ContractIDs call with limit
// returns at most; backends use it so that they bound the call alike.
func ContractIDLimit(limit int) int {
	if limit < 1 || limit > MaxContractIDs {
		return MaxContractIDs
	}
	return limit
}
