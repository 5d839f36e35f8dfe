package textmatch

import (
	"cmp"
	"hash/maphash"
	"math"
	"slices"
)

// Passage is a passage read once for Similarity: comparing many passages
// with one another (clause_compare scores every pair of hundreds of
// clauses) then costs one reading per passage rather than one per pair,
// and a merge of two sorted lists per pair.
type Passage struct {
	keys    []uint64 // the hashed unigrams and bigrams, ascending
	weights []float64
	norm2   float64 // the sum of the squared weights, added in key order
}

// passageSeed hashes every Passage's words alike; with 64-bit hashes two
// different words collide with a probability too small to matter.
var passageSeed = maphash.MakeSeed()

// NewPassage reads s as Similarity does.
func NewPassage(s string) Passage {
	v := passageVector(s)
	type kw struct {
		k uint64
		w float64
	}
	all := make([]kw, 0, len(v))
	for word, w := range v {
		all = append(all, kw{maphash.String(passageSeed, word), w})
	}
	// Summing in key order, not map order, makes the result the same on
	// every run: two passages with the same words then have the same
	// norm2 and a dot product equal to it, and score exactly 1.
	slices.SortFunc(all, func(a, b kw) int { return cmp.Compare(a.k, b.k) })
	p := Passage{keys: make([]uint64, len(all)), weights: make([]float64, len(all))}
	for i, e := range all {
		p.keys[i], p.weights[i] = e.k, e.w
		p.norm2 += e.w * e.w
	}
	return p
}

// Similarity is Similarity(a, b) of the passages p and q were read from.
func (p Passage) Similarity(q Passage) float64 {
	if len(p.keys) == 0 || len(q.keys) == 0 {
		if len(p.keys) == 0 && len(q.keys) == 0 {
			return 1
		}
		return 0
	}
	dot := 0.0
	for i, j := 0, 0; i < len(p.keys) && j < len(q.keys); {
		switch a, b := p.keys[i], q.keys[j]; {
		case a < b:
			i++
		case a > b:
			j++
		default:
			dot += p.weights[i] * q.weights[j]
			i++
			j++
		}
	}
	return min(1, max(0, dot/math.Sqrt(p.norm2*q.norm2)))
}
