package resolve

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"
)

// Blocking. Two names can score above 0.65 only when their keys are equal
// but for spacing or within one edit of each other (see nameSimilarity; every
// other pair gets at most 0.6, which country and counterparty evidence raise
// by at most 0.05), or hold the same words in another order. So each entity
// gets these blocking keys, hashed: its words sorted; its compact key (the
// key without spaces); and, when that has at least five letters, every
// string one rune shorter: two compact keys within one edit (insertion,
// deletion, substitution or adjacent swap) share one of these. At the
// default threshold blocking thus misses no pair that could merge.
//
// The keys of all entities are sorted together and entities sharing a key are
// paired, but only pairs with an entity to compare (a new or changed one), and
// a key shared by more than maxBlock entities pairs each of them with its
// blockWindow neighbours in the order of their compact keys only
// (sorted-neighbourhood blocking), so that no key, whatever the data, makes
// the number of pairs grow with the square of its entities.
const (
	maxBlock    = 32
	blockWindow = 8
	// maxDeletionRunes bounds the compact keys whose one-rune deletions are
	// keys: longer ones (rare) are blocked by their compact key and sorted
	// words only, so their typos go unseen.
	maxDeletionRunes = 64
	// checkEvery is how many units of work pass between two looks at the
	// context.
	checkEvery = 1 << 12
)

// idBits is how many low bits of a packed blocking key hold the entity's
// index; the rest hold the key's hash.
const idBits = 26

// maxEntities is the most entities one run can block.
const maxEntities = 1<<idBits - 1

// fnv is the 64-bit FNV-1a hash, written out so that hashing a string less
// one rune allocates nothing; a fixed hash keeps the blocks, and so the
// merges, the same on every run.
type fnv uint64

func newFNV(tag byte) fnv { return fnv(14695981039346656037).byte(tag) }

func (h fnv) byte(b byte) fnv { return (h ^ fnv(b)) * 1099511628211 }

func (h fnv) string(s string) fnv {
	for i := 0; i < len(s); i++ {
		h = h.byte(s[i])
	}
	return h
}

// blockKeys calls add with the hash of each blocking key of e.
func (e *Entity) blockKeys(add func(uint64)) {
	c := e.compact
	add(uint64(newFNV('c').string(c)))
	if n := utf8.RuneCountInString(c); n >= 5 && n <= maxDeletionRunes {
		for i := 0; i < len(c); {
			_, w := utf8.DecodeRuneInString(c[i:])
			add(uint64(newFNV('c').string(c[:i]).string(c[i+w:])))
			i += w
		}
	}
	if len(e.tokens) > 1 {
		words := slices.Clone(e.tokens)
		slices.Sort(words)
		add(uint64(newFNV('w').string(strings.Join(words, " "))))
	}
}

// candidates returns the pairs worth scoring (i < j, sorted) in which at
// least one entity is to be compared (compare[i]; nil compares all), blocked
// as described above. Role words and placeholders are never candidates. It
// stops with the context's error.
func candidates(ctx context.Context, ents []*Entity, compare []bool) ([][2]int, error) {
	if len(ents) > maxEntities {
		return nil, fmt.Errorf("%d parties: one run blocks at most %d", len(ents), maxEntities)
	}
	cmp := func(i int) bool { return compare == nil || compare[i] }
	keys := make([]uint64, 0, len(ents)*8)
	for i, e := range ents {
		if i%checkEvery == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		if e.role {
			continue
		}
		e.blockKeys(func(h uint64) { keys = append(keys, h<<idBits|uint64(i)) })
	}
	slices.Sort(keys)
	keys = slices.Compact(keys) // an entity with one key twice ("aab" less either a)
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	const idMask = 1<<idBits - 1
	var pairs []uint64
	pair := func(a, b int) {
		if a > b {
			a, b = b, a
		}
		pairs = append(pairs, uint64(a)<<32|uint64(b))
	}
	block := make([]int, 0, maxBlock)
	for lo := 0; lo < len(keys); {
		hi := lo + 1
		for hi < len(keys) && keys[hi]>>idBits == keys[lo]>>idBits {
			hi++
		}
		if hi-lo > 1 {
			block = block[:0]
			any := false
			for _, k := range keys[lo:hi] {
				i := int(k & idMask)
				block = append(block, i)
				any = any || cmp(i)
			}
			if any {
				if len(block) <= maxBlock {
					for x, i := range block {
						for _, j := range block[x+1:] {
							if cmp(i) || cmp(j) {
								pair(i, j)
							}
						}
					}
				} else {
					slices.SortFunc(block, func(a, b int) int {
						if c := strings.Compare(ents[a].compact, ents[b].compact); c != 0 {
							return c
						}
						return a - b
					})
					for x, i := range block {
						for _, j := range block[x+1 : min(len(block), x+1+blockWindow)] {
							if cmp(i) || cmp(j) {
								pair(i, j)
							}
						}
					}
				}
			}
		}
		if lo/checkEvery != hi/checkEvery {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		lo = hi
	}
	slices.Sort(pairs)
	pairs = slices.Compact(pairs)
	out := make([][2]int, len(pairs))
	for i, p := range pairs {
		out[i] = [2]int{int(p >> 32), int(p & (1<<32 - 1))}
	}
	return out, nil
}
