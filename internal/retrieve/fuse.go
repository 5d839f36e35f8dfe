package retrieve

import (
	"sort"
	"strconv"

	"github.com/contractgraph/contractgraph/internal/graph"
)

// DefaultRRFK is the rank constant of reciprocal rank fusion; 60 is the
// value of Cormack, Clarke and Büttcher (2009), robust across collections.
const DefaultRRFK = 60

// Fuse merges ranked lists by reciprocal rank fusion: a passage scores
// Σ 1/(k + rank) over the lists it appears in (rank from 1). The same
// passage (same contract, clause or span) in several lists is one result;
// its other fields come from the first list that has it. Ties keep the
// order of first appearance. The result's Score is the fused score.
func Fuse(k int, lists ...[]graph.ClauseHit) []graph.ClauseHit {
	if k <= 0 {
		k = DefaultRRFK
	}
	type entry struct {
		hit   graph.ClauseHit
		score float64
		first int
	}
	byKey := map[string]*entry{}
	var order []*entry
	for _, list := range lists {
		for rank, h := range list {
			key := hitKey(h)
			e, ok := byKey[key]
			if !ok {
				e = &entry{hit: h, first: len(order)}
				byKey[key] = e
				order = append(order, e)
			}
			e.score += 1 / float64(k+rank+1)
		}
	}
	sort.SliceStable(order, func(i, j int) bool { return order[i].score > order[j].score })
	out := make([]graph.ClauseHit, len(order))
	for i, e := range order {
		out[i] = e.hit
		out[i].Score = e.score
	}
	return out
}

func hitKey(h graph.ClauseHit) string {
	if h.ClauseID != "" {
		return h.ContractID + "\x00clause\x00" + h.ClauseID
	}
	return h.ContractID + "\x00" + strconv.Itoa(h.Start) + "\x00" + strconv.Itoa(h.End)
}
