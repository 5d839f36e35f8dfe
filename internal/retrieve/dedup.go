package retrieve

import (
	"github.com/contractgraph/contractgraph/internal/graph"
)

// Near-duplicate thresholds of Dedup.
const (
	// dupOverlap is the share of the shorter span two passages of one
	// contract must share to be one passage (a clause and the chunk that
	// holds it).
	dupOverlap = 0.5
	// dupJaccard is the share of word trigrams two passages of one contract
	// must share to be one passage (a clause repeated in an exhibit, a
	// summary-only clause and its words).
	dupJaccard = 0.8
)

// Dedup collapses near-duplicate passages of one contract, keeping the
// first (best ranked) of each group: passages whose byte spans overlap by
// half of the shorter one, or whose word trigrams are at least 80% the
// same. Passages of different contracts are never collapsed: the same
// wording in two contracts is two answers to "which contracts say this".
// The order of what is kept is unchanged.
func Dedup(hits []graph.ClauseHit) []graph.ClauseHit {
	if len(hits) < 2 {
		return hits
	}
	type kept struct {
		hit    graph.ClauseHit
		shingl map[uint64]bool
	}
	byContract := map[string][]*kept{}
	out := make([]graph.ClauseHit, 0, len(hits))
	for _, h := range hits {
		var sh map[uint64]bool
		dup := false
		for _, k := range byContract[h.ContractID] {
			if spanOverlap(h, k.hit) {
				dup = true
				break
			}
			if sh == nil {
				sh = shingles(h.Passage())
			}
			if k.shingl == nil {
				k.shingl = shingles(k.hit.Passage())
			}
			if jaccard(sh, k.shingl) >= dupJaccard {
				dup = true
				break
			}
		}
		if dup {
			continue
		}
		byContract[h.ContractID] = append(byContract[h.ContractID], &kept{hit: h, shingl: sh})
		out = append(out, h)
	}
	return out
}

// spanOverlap reports whether two located passages share at least
// dupOverlap of the shorter one's bytes.
func spanOverlap(a, b graph.ClauseHit) bool {
	if a.SummaryOnly() || b.SummaryOnly() || a.End <= a.Start || b.End <= b.Start {
		return false
	}
	lo, hi := max(a.Start, b.Start), min(a.End, b.End)
	if hi <= lo {
		return false
	}
	shorter := min(a.End-a.Start, b.End-b.Start)
	return float64(hi-lo) >= dupOverlap*float64(shorter)
}

// shingles hashes the word trigrams of text (FNV-1a); a text of fewer
// than three words is its words.
func shingles(text string) map[uint64]bool {
	ws := words(text)
	out := map[uint64]bool{}
	n := 3
	if len(ws) < n {
		n = max(len(ws), 1)
	}
	for i := 0; i+n <= len(ws); i++ {
		h := uint64(14695981039346656037)
		for _, w := range ws[i : i+n] {
			for j := 0; j < len(w); j++ {
				h ^= uint64(w[j])
				h *= 1099511628211
			}
			h ^= ' '
			h *= 1099511628211
		}
		out[h] = true
	}
	return out
}

func jaccard(a, b map[uint64]bool) float64 {
	if len(a) == 0 || len(b) == 0 {
		return 0
	}
	inter := 0
	for k := range a {
		if b[k] {
			inter++
		}
	}
	return float64(inter) / float64(len(a)+len(b)-inter)
}
