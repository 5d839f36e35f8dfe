package resolve

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sort"
	"strings"

	"github.com/contractgraph/contractgraph/internal/contract"
	"github.com/contractgraph/contractgraph/internal/graph"
)

// DefaultThreshold is the score at or above which two parties are merged.
// It is set so that precision on the labelled pairs in testdata stays at
// or above 0.95 (see resolve_eval_test.go and docs/EVALUATION.md).
const DefaultThreshold = 0.9

// Options configures a resolution run.
type Options struct {
	// Threshold is the minimum score to merge; 0 means DefaultThreshold.
	Threshold float64
	// DryRun proposes merges without making them.
	DryRun bool
	Logger *slog.Logger
}

// Merge is one proposed or applied merge: Others become aliases of the
// canonical party.
type Merge struct {
	CanonicalID   string        `json:"canonical_id"`
	CanonicalName string        `json:"canonical_name"`
	Others        []MergedParty `json:"others"`
}

// MergedParty is a party merged into a canonical one, with the score of
// its best link into the cluster.
type MergedParty struct {
	ID    string `json:"id"`
	Name  string `json:"name"`
	Score Score  `json:"score"`
}

// Report is what a run found and did.
type Report struct {
	Parties int     `json:"parties"`
	Pairs   int     `json:"pairs_scored"`
	Merges  []Merge `json:"merges"`
	Applied bool    `json:"applied"`
}

// ErrUnsupported is returned when the store cannot list and merge parties.
var ErrUnsupported = errors.New("the store does not support entity resolution")

// Run resolves the parties of store: it scores candidate pairs, clusters
// those at or above the threshold, and (unless DryRun) merges each cluster
// into its canonical party. It returns ErrUnsupported (wrapped) when store
// does not implement graph.PartyMerger.
func Run(ctx context.Context, store graph.Store, opts Options) (*Report, error) {
	pm, ok := store.(graph.PartyMerger)
	if !ok {
		return nil, fmt.Errorf("resolve: %w", ErrUnsupported)
	}
	if opts.Threshold <= 0 {
		opts.Threshold = DefaultThreshold
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	infos, err := pm.Parties(ctx)
	if err != nil {
		return nil, fmt.Errorf("resolve: %w", err)
	}
	ents := Entities(infos)
	merges, pairs := Plan(ents, opts.Threshold)
	rep := &Report{Parties: len(ents), Pairs: pairs, Merges: merges}
	if opts.DryRun {
		return rep, nil
	}
	for _, m := range merges {
		ids := make([]string, len(m.Others))
		for i, o := range m.Others {
			ids[i] = o.ID
		}
		if err := pm.MergeParties(ctx, m.CanonicalID, ids); err != nil {
			return rep, fmt.Errorf("resolve: %w", err)
		}
		log.Info("merged parties", "canonical", m.CanonicalName, "others", len(ids))
	}
	rep.Applied = true
	return rep, nil
}

// Entities turns stored parties into entities, deriving co-parties from
// shared contracts.
func Entities(infos []graph.PartyInfo) []*Entity {
	byContract := map[string][]int{}
	for i, p := range infos {
		for _, c := range p.ContractIDs {
			byContract[c] = append(byContract[c], i)
		}
	}
	ents := make([]*Entity, len(infos))
	for i, p := range infos {
		e := &Entity{ID: p.ID, Name: p.Name, Aliases: p.Aliases, ContractIDs: p.ContractIDs}
		for _, l := range p.Locations {
			if l.Country != "" && !contains(e.Countries, l.Country) {
				e.Countries = append(e.Countries, l.Country)
			}
		}
		for _, c := range p.ContractIDs {
			for _, j := range byContract[c] {
				if j != i {
					k := contract.PartyKey(infos[j].Name)
					if !contains(e.CoParties, k) {
						e.CoParties = append(e.CoParties, k)
					}
				}
			}
		}
		ents[i] = e
	}
	return ents
}

func contains(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}

// Plan scores the candidate pairs of ents and clusters those scoring at
// least threshold (single linkage, but never joining two clusters any of
// whose members a hard rule keeps apart). It returns the merges, largest
// cluster first, and how many pairs it scored.
func Plan(ents []*Entity, threshold float64) ([]Merge, int) {
	for _, e := range ents {
		e.prepare()
	}
	type link struct {
		i, j int
		s    Score
	}
	var links []link
	pairs := candidates(ents)
	for _, p := range pairs {
		s := score(ents[p[0]], ents[p[1]])
		if s.Value >= threshold {
			links = append(links, link{p[0], p[1], s})
		}
	}
	sort.SliceStable(links, func(a, b int) bool { return links[a].s.Value > links[b].s.Value })

	parent := make([]int, len(ents))
	members := make([][]int, len(ents))
	for i := range parent {
		parent[i] = i
		members[i] = []int{i}
	}
	find := func(i int) int {
		for parent[i] != i {
			parent[i] = parent[parent[i]]
			i = parent[i]
		}
		return i
	}
	best := map[int]Score{} // entity -> score of the link that joined it
	for _, l := range links {
		ri, rj := find(l.i), find(l.j)
		if ri == rj || vetoed(ents, members[ri], members[rj]) {
			continue
		}
		parent[rj] = ri
		members[ri] = append(members[ri], members[rj]...)
		members[rj] = nil
		for _, k := range []int{l.i, l.j} {
			if _, ok := best[k]; !ok {
				best[k] = l.s
			}
		}
	}
	var merges []Merge
	for root, ms := range members {
		if len(ms) < 2 || find(root) != root {
			continue
		}
		canon := canonical(ents, ms)
		m := Merge{CanonicalID: ents[canon].ID, CanonicalName: ents[canon].Name}
		for _, k := range ms {
			if k != canon {
				m.Others = append(m.Others, MergedParty{ID: ents[k].ID, Name: ents[k].Name, Score: best[k]})
			}
		}
		sort.Slice(m.Others, func(a, b int) bool { return m.Others[a].ID < m.Others[b].ID })
		merges = append(merges, m)
	}
	sort.SliceStable(merges, func(a, b int) bool {
		if len(merges[a].Others) != len(merges[b].Others) {
			return len(merges[a].Others) > len(merges[b].Others)
		}
		return merges[a].CanonicalID < merges[b].CanonicalID
	})
	return merges, len(pairs)
}

// vetoed reports whether a hard rule keeps some member of one cluster
// apart from some member of the other.
func vetoed(ents []*Entity, a, b []int) bool {
	for _, i := range a {
		for _, j := range b {
			x, y := ents[i], ents[j]
			if sharesContract(x, y) || (x.form != "" && y.form != "" && x.form != y.form) {
				return true
			}
		}
	}
	return false
}

// canonical picks the cluster member whose name becomes the party's: a
// plain name (no "d/b/a", "acting through" or doubled spaces), then the one
// on most contracts, then a name not written in capitals only, then the
// longer name (it keeps its legal form), then the smaller id.
func canonical(ents []*Entity, ms []int) int {
	best := ms[0]
	plain := func(e *Entity) bool {
		return stripQualifier(e.Name) == e.Name && strings.Join(strings.Fields(e.Name), " ") == e.Name
	}
	better := func(a, b *Entity) bool {
		if pa, pb := plain(a), plain(b); pa != pb {
			return pa
		}
		if len(a.ContractIDs) != len(b.ContractIDs) {
			return len(a.ContractIDs) > len(b.ContractIDs)
		}
		if ua, ub := isUpper(a.Name), isUpper(b.Name); ua != ub {
			return !ua
		}
		if len(a.Name) != len(b.Name) {
			return len(a.Name) > len(b.Name)
		}
		return a.ID < b.ID
	}
	for _, k := range ms[1:] {
		if better(ents[k], ents[best]) {
			best = k
		}
	}
	return best
}

func isUpper(s string) bool { return s == strings.ToUpper(s) }

// candidates blocks the pairs worth scoring: entities sharing a word of
// their key that at most 5% of entities (and at least 2) have, or whose
// keys without spaces share their first four characters. Role words and
// placeholders are never candidates.
func candidates(ents []*Entity) [][2]int {
	byToken := map[string][]int{}
	byPrefix := map[string][]int{}
	for i, e := range ents {
		if e.role {
			continue
		}
		seen := map[string]bool{}
		for _, t := range e.tokens {
			if len([]rune(t)) >= 3 && !seen[t] {
				seen[t] = true
				byToken[t] = append(byToken[t], i)
			}
		}
		compact := strings.ReplaceAll(e.key, " ", "")
		if r := []rune(compact); len(r) >= 4 {
			byPrefix[string(r[:4])] = append(byPrefix[string(r[:4])], i)
		}
	}
	maxDF := max(2, len(ents)/20)
	seen := map[[2]int]bool{}
	var out [][2]int
	add := func(group []int) {
		for x := 0; x < len(group); x++ {
			for y := x + 1; y < len(group); y++ {
				p := [2]int{group[x], group[y]}
				if !seen[p] {
					seen[p] = true
					out = append(out, p)
				}
			}
		}
	}
	for _, g := range byToken {
		if len(g) <= maxDF {
			add(g)
		}
	}
	for _, g := range byPrefix {
		add(g)
	}
	sort.Slice(out, func(a, b int) bool {
		if out[a][0] != out[b][0] {
			return out[a][0] < out[b][0]
		}
		return out[a][1] < out[b][1]
	})
	return out
}

// ScorePair scores two entities as Plan would, for evaluation and tests.
func ScorePair(a, b *Entity) Score {
	a.prepare()
	b.prepare()
	return score(a, b)
}
