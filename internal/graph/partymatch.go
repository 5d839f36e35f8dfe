package graph

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/contractgraph/contractgraph/internal/contract"
	"github.com/contractgraph/contractgraph/internal/textmatch"
)

// PartyName is a stored party as typo-tolerant party matching reads it.
type PartyName struct {
	ID   string
	Name string
	// Keys are contract.MatchKey of the party's name and of each alias,
	// sorted and distinct.
	Keys []string
}

// PartyNameLister is an optional capability of a Store: every party's
// name keys, which typo-tolerant party matching (PartyResolver,
// MatchPartyNames) compares with a parties entry that no name contains.
type PartyNameLister interface {
	// PartyNames returns every stored party, sorted by id, with the match
	// keys of its name and aliases; errors are the store's failures.
	PartyNames(ctx context.Context) ([]PartyName, error)

	// PartyNamesVersion returns a value that changes whenever PartyNames
	// would return other ids or keys (a write by any process), and that is
	// much cheaper to read, so that a PartyResolver re-reads the names
	// only then; errors are the store's failures.
	PartyNamesVersion(ctx context.Context) (string, error)
}

// PartyMatch says what one parties entry that no stored party name or
// alias contains was matched to instead: the stored parties whose names
// hold a run of words within Edits edits of it (PartyEdits). Without any,
// Parties is empty and the entry matched nothing.
type PartyMatch struct {
	Entry   string   `json:"entry"`
	Parties []string `json:"parties"` // stored party names, in name order
	Edits   int      `json:"edits,omitempty"`
	// More counts the equally near parties beyond MaxPartyMatches, which
	// were left out of the filter.
	More int `json:"more,omitempty"`
}

// MaxPartyMatches bounds the parties one entry is matched to by typos.
const MaxPartyMatches = 20

// PartyEdits is how many edits typo-tolerant matching allows between a
// parties entry of n letters and digits and a name: none below 4 (every
// short word is a few edits from many names), one up to 7, two from 8.
func PartyEdits(n int) int {
	switch {
	case n < 4:
		return 0
	case n < 8:
		return 1
	}
	return 2
}

// NameMatch is what MatchPartyNames found for one entry.
type NameMatch struct {
	// Contained says some name or alias contains the entry, which the
	// exact filter matches; nothing else is then set.
	Contained bool
	Parties   []PartyName // the nearest parties, at most MaxPartyMatches
	Edits     int         // their edits from the entry
	More      int         // equally near parties left out of Parties
}

// MatchPartyNames returns the parties of names nearest to entry by typos:
// those holding a run of consecutive words (of a name's or alias's match
// key, spaces ignored, so "Micro Soft" meets "Microsoft") at the fewest
// edits from entry, at most PartyEdits of its length, ordered by name and
// id.
func MatchPartyNames(names []PartyName, entry string) NameMatch {
	return matchPrepared(prepareNames(names), entry)
}

// preparedName is a PartyName with each key's words as runes, spaces
// removed, and the offset of each word's start and of the end: what
// matching compares, worked out once per read of the names.
type preparedName struct {
	PartyName
	runes  [][]rune
	starts [][]int
}

func prepareNames(names []PartyName) []preparedName {
	out := make([]preparedName, len(names))
	for i, n := range names {
		p := preparedName{PartyName: n, runes: make([][]rune, len(n.Keys)), starts: make([][]int, len(n.Keys))}
		for j, k := range n.Keys {
			p.runes[j], p.starts[j] = compactWords(k, nil, nil)
		}
		out[i] = p
	}
	return out
}

func matchPrepared(names []preparedName, entry string) NameMatch {
	key := contract.MatchKey(entry)
	q := []rune(strings.ReplaceAll(key, " ", ""))
	k := PartyEdits(len(q))
	words := len(strings.Fields(key))
	best := k + 1
	var matched []PartyName
	for _, p := range names {
		d := -1 // the party's fewest edits, -1 while none is within best
		for ki, pk := range p.Keys {
			if key != "" && strings.Contains(pk, key) {
				return NameMatch{Contained: true}
			}
			if k == 0 {
				continue
			}
			runes, starts := p.runes[ki], p.starts[ki]
			// Windows of up to one word more than the entry has, starting
			// at each word: a typo may join or split words.
			for i := 0; i+1 < len(starts); i++ {
				for j := i + 1; j < len(starts) && j-i <= words+1; j++ {
					w := runes[starts[i]:starts[j]]
					if len(w) > len(q)+k {
						break
					}
					bound := min(best, k)
					if d >= 0 {
						bound = d
					}
					if e, ok := textmatch.EditsWithin(q, w, bound); ok {
						d = e
					}
				}
			}
		}
		switch {
		case d < 0:
		case d < best:
			best, matched = d, append(matched[:0], p.PartyName)
		case d == best:
			matched = append(matched, p.PartyName)
		}
	}
	if len(matched) == 0 {
		return NameMatch{}
	}
	slices.SortFunc(matched, func(a, b PartyName) int {
		return cmp.Or(strings.Compare(a.Name, b.Name), strings.Compare(a.ID, b.ID))
	})
	m := NameMatch{Parties: matched, Edits: best}
	if len(matched) > MaxPartyMatches {
		m.More = len(matched) - MaxPartyMatches
		m.Parties = matched[:MaxPartyMatches]
	}
	return m
}

// Report is the PartyMatch of m for entry.
func (m NameMatch) Report(entry string) PartyMatch {
	r := PartyMatch{Entry: entry, Parties: []string{}, Edits: m.Edits, More: m.More}
	for _, p := range m.Parties {
		r.Parties = append(r.Parties, p.Name)
	}
	return r
}

// IDs are the ids of m's parties, sorted.
func (m NameMatch) IDs() []string {
	ids := make([]string, len(m.Parties))
	for i, p := range m.Parties {
		ids[i] = p.ID
	}
	slices.Sort(ids)
	return ids
}

// compactWords appends the runes of key's words, without spaces, to runes,
// and the offset of each word's start (and of the end) to starts.
func compactWords(key string, runes []rune, starts []int) ([]rune, []int) {
	starts = append(starts, 0)
	for _, w := range strings.Fields(key) {
		runes = append(runes, []rune(w)...)
		starts = append(starts, len(runes))
	}
	return runes, starts
}

// PartyResolver makes parties filters and party names typo-tolerant over
// one store: it keeps the store's party names (PartyNameLister), read
// again only when their version changes, and matches entries against them
// in Go, so that both backends match alike. It is safe for concurrent use.
type PartyResolver struct {
	lister PartyNameLister // nil: the store cannot list names; nothing is resolved

	mu      sync.Mutex
	version string
	names   []preparedName // nil until read
}

// NewPartyResolver returns the resolver of s; over a store without
// PartyNameLister it resolves nothing.
func NewPartyResolver(s Store) *PartyResolver {
	l, _ := s.(PartyNameLister)
	return &PartyResolver{lister: l}
}

// partyNames returns the store's party names, read again when their
// version has changed since the last read.
func (r *PartyResolver) partyNames(ctx context.Context) ([]preparedName, error) {
	v, err := r.lister.PartyNamesVersion(ctx)
	if err != nil {
		return nil, fmt.Errorf("party names version: %w", err)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.names != nil && v == r.version {
		return r.names, nil
	}
	names, err := r.lister.PartyNames(ctx)
	if err != nil {
		return nil, fmt.Errorf("party names: %w", err)
	}
	r.version, r.names = v, prepareNames(names)
	return r.names, nil
}

// Match is MatchPartyNames over the store's names; a store without
// PartyNameLister gives the zero NameMatch.
func (r *PartyResolver) Match(ctx context.Context, entry string) (NameMatch, error) {
	if r == nil || r.lister == nil {
		return NameMatch{}, nil
	}
	names, err := r.partyNames(ctx)
	if err != nil {
		return NameMatch{}, err
	}
	return matchPrepared(names, entry), nil
}

// Resolve makes f's parties filter typo-tolerant: each entry of f.Parties
// that no stored party name or alias contains is replaced by the ids of
// the parties MatchPartyNames finds for it (a set in f.PartyIDSets), and
// reported in the returned matches, one per such entry in entry order, so
// that a caller can say "Excte → Excite Inc.". An entry near no party
// stays, matching nothing, and is reported with no parties. Over a store
// without PartyNameLister, or for an f without parties, f is returned
// unchanged. f must be normalised; errors are the store's failures.
func (r *PartyResolver) Resolve(ctx context.Context, f Filter) (Filter, []PartyMatch, error) {
	if r == nil || r.lister == nil || len(f.Parties) == 0 {
		return f, nil, nil
	}
	names, err := r.partyNames(ctx)
	if err != nil {
		return f, nil, err
	}
	g := f
	g.Parties = nil
	g.PartyIDSets = slices.Clone(f.PartyIDSets)
	var matches []PartyMatch
	for _, p := range f.Parties {
		m := matchPrepared(names, p)
		if m.Contained {
			g.Parties = append(g.Parties, p) // the store matches it as written
			continue
		}
		matches = append(matches, m.Report(p))
		if len(m.Parties) == 0 {
			g.Parties = append(g.Parties, p)
			continue
		}
		g.PartyIDSets = append(g.PartyIDSets, m.IDs())
	}
	if len(matches) == 0 {
		return f, nil, nil
	}
	return g, matches, nil
}
