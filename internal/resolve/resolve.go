package resolve

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sort"
	"strings"
	"time"

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
	// DryRun proposes merges without making them (and records nothing).
	DryRun bool
	// All compares every party again, not only those new or changed since
	// the last run.
	All bool
	// Progress, when set, is called as the run goes: when a phase starts
	// (Done 0) and at most every few thousand units of it, then at its end.
	Progress func(Progress)
	Logger   *slog.Logger
}

// Progress is how far a run is.
type Progress struct {
	// Phase is what the run is doing: PhaseRead, PhaseCompare or PhaseMerge.
	Phase string
	// Done of Total units: parties read, candidate pairs scored, merges made.
	Done, Total int
}

// The phases of a run, in order.
const (
	PhaseRead    = "reading parties"
	PhaseCompare = "comparing parties"
	PhaseMerge   = "merging parties"
)

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

// Report is what a run found and did. When Run returns an error (an
// interrupt) the report says how far it got: the first Made merges were made
// and are kept; the parties still to compare are compared by the next run.
type Report struct {
	Parties int `json:"parties"`
	// Compared counts the parties compared with every other: those new or
	// changed since the last run (all of them with Options.All or a store
	// that keeps no marks).
	Compared int     `json:"compared"`
	Pairs    int     `json:"pairs_scored"`
	Merges   []Merge `json:"merges"`
	// Made counts the merges made, in the order of Merges.
	Made int `json:"merges_made"`
	// Applied is true when every merge was made.
	Applied bool `json:"applied"`
}

// MergedParties counts the parties the merges made merged into others.
func (r *Report) MergedParties() int {
	n := 0
	for _, m := range r.Merges[:r.Made] {
		n += len(m.Others)
	}
	return n
}

// ErrUnsupported is returned when the store cannot list and merge parties.
var ErrUnsupported = errors.New("the store does not support entity resolution")

// markBatch is how many merges are made between two records of the merged
// parties' marks.
const markBatch = 256

// Run resolves the parties of store: it scores candidate pairs, clusters
// those at or above the threshold, and (unless DryRun) merges each cluster
// into its canonical party, one transaction per cluster.
//
// When the store implements graph.ResolutionMarker, Run is incremental: it
// compares only the parties whose mark (a fingerprint of what scoring reads
// of a party, and of the threshold) differs from the one recorded when the
// party was last compared, against all others, and records the marks of
// what it finished. An interrupted run thus loses at most the clusters it
// had not merged yet, which the next run finds again.
//
// It returns ErrUnsupported (wrapped) when store does not implement
// graph.PartyMerger, and the context's error, with the report of what was
// done, when ctx ends.
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
	progress := opts.Progress
	if progress == nil {
		progress = func(Progress) {}
	}
	progress(Progress{Phase: PhaseRead})
	infos, err := pm.Parties(ctx)
	if err != nil {
		return nil, fmt.Errorf("resolve: %w", err)
	}
	marker, _ := store.(graph.ResolutionMarker)
	var marks map[string]string
	if marker != nil && !opts.All {
		if marks, err = marker.ResolutionMarks(ctx); err != nil {
			return nil, fmt.Errorf("resolve: %w", err)
		}
	}
	ents, err := entities(ctx, infos)
	if err != nil {
		return nil, fmt.Errorf("resolve: %w", err)
	}
	infos = nil
	progress(Progress{Phase: PhaseRead, Done: len(ents), Total: len(ents)})
	rep := &Report{Parties: len(ents), Merges: []Merge{}}
	fps := make([]string, len(ents))
	compare := make([]bool, len(ents))
	for i, e := range ents {
		if i%checkEvery == 0 {
			if err := ctx.Err(); err != nil {
				return rep, fmt.Errorf("resolve: %w", err)
			}
		}
		e.prepare()
		fps[i] = e.mark(opts.Threshold)
		if compare[i] = marks[e.ID] != fps[i]; compare[i] {
			rep.Compared++
		}
	}
	if rep.Compared == 0 {
		rep.Applied = !opts.DryRun
		return rep, nil
	}
	merges, pairs, err := plan(ctx, ents, compare, opts.Threshold, progress)
	rep.Pairs = pairs
	if err != nil {
		return rep, fmt.Errorf("resolve: %w", err)
	}
	rep.Merges = merges
	if opts.DryRun {
		return rep, nil
	}
	// The compared parties that merge with nothing are done with.
	index := make(map[string]int, len(ents))
	for i, e := range ents {
		index[e.ID] = i
	}
	inMerge := map[string]bool{}
	for _, m := range merges {
		inMerge[m.CanonicalID] = true
		for _, o := range m.Others {
			inMerge[o.ID] = true
		}
	}
	done := map[string]string{}
	for i, e := range ents {
		if compare[i] && !inMerge[e.ID] {
			done[e.ID] = fps[i]
		}
	}
	record := func() error {
		if marker == nil || len(done) == 0 {
			return nil
		}
		if err := marker.SetResolutionMarks(ctx, done); err != nil {
			return err
		}
		clear(done)
		return nil
	}
	if err := record(); err != nil {
		return rep, fmt.Errorf("resolve: %w", err)
	}
	progress(Progress{Phase: PhaseMerge, Total: len(merges)})
	interrupted := func(err error) (*Report, error) {
		// Record the merges made, in a short transaction of its own, so
		// that the next run need not compare their parties again.
		if marker != nil && len(done) > 0 {
			rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 500*time.Millisecond)
			defer cancel()
			if rerr := marker.SetResolutionMarks(rctx, done); rerr != nil {
				log.Warn("entity resolution: the merges made are not recorded; the next run compares their parties again", "err", rerr)
			}
		}
		return rep, fmt.Errorf("resolve: %w", err)
	}
	for k, m := range merges {
		if err := ctx.Err(); err != nil {
			return interrupted(err)
		}
		ids := make([]string, len(m.Others))
		members := []*Entity{ents[index[m.CanonicalID]]}
		for i, o := range m.Others {
			ids[i] = o.ID
			members = append(members, ents[index[o.ID]])
		}
		if err := pm.MergeParties(ctx, m.CanonicalID, ids); err != nil {
			if ctx.Err() != nil {
				return interrupted(err)
			}
			return rep, fmt.Errorf("resolve: %w", err)
		}
		rep.Made++
		done[m.CanonicalID] = mergedMark(members, opts.Threshold)
		log.Debug("merged parties", "canonical", m.CanonicalName, "others", len(ids))
		if rep.Made%markBatch == 0 || rep.Made == len(merges) {
			if err := record(); err != nil {
				return rep, fmt.Errorf("resolve: %w", err)
			}
		}
		if (k+1)%64 == 0 || k+1 == len(merges) {
			progress(Progress{Phase: PhaseMerge, Done: k + 1, Total: len(merges)})
		}
	}
	rep.Applied = true
	log.Info("entity resolution", "parties", rep.Parties, "compared", rep.Compared, "pairs", rep.Pairs, "merged", rep.MergedParties())
	return rep, nil
}

// maxCoPartyContract is the most parties a contract may have for them to
// count as one another's counterparties: a contract signed by hundreds says
// little about which of them are the same, and listing them all for each
// would grow with the square of its parties.
const maxCoPartyContract = 32

// Entities turns stored parties into entities, deriving co-parties from
// shared contracts (of at most maxCoPartyContract parties).
func Entities(infos []graph.PartyInfo) []*Entity {
	ents, _ := entities(context.Background(), infos)
	return ents
}

// entities is Entities stopping with the context's error.
func entities(ctx context.Context, infos []graph.PartyInfo) ([]*Entity, error) {
	byContract := map[string][]int32{}
	keys := make([]string, len(infos))
	for i, p := range infos {
		if i%checkEvery == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		keys[i] = contract.PartyKey(p.Name)
		for _, c := range p.ContractIDs {
			byContract[c] = append(byContract[c], int32(i))
		}
	}
	ents := make([]*Entity, len(infos))
	for i, p := range infos {
		if i%checkEvery == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		e := &Entity{ID: p.ID, Name: p.Name, Aliases: p.Aliases, ContractIDs: p.ContractIDs}
		for _, l := range p.Locations {
			if l.Country != "" && !slices.Contains(e.Countries, l.Country) {
				e.Countries = append(e.Countries, l.Country)
			}
		}
		for _, c := range p.ContractIDs {
			if co := byContract[c]; len(co) <= maxCoPartyContract {
				for _, j := range co {
					if int(j) != i {
						e.CoParties = append(e.CoParties, keys[j])
					}
				}
			}
		}
		if len(e.CoParties) > 1 {
			slices.Sort(e.CoParties)
			e.CoParties = slices.Compact(e.CoParties)
		}
		ents[i] = e
	}
	return ents, nil
}

// Plan scores the candidate pairs of ents and clusters those scoring at
// least threshold (single linkage, but never joining two clusters any of
// whose members a hard rule keeps apart). It returns the merges, largest
// cluster first, and how many pairs it scored.
func Plan(ents []*Entity, threshold float64) ([]Merge, int) {
	for _, e := range ents {
		e.prepare()
	}
	merges, pairs, _ := plan(context.Background(), ents, nil, threshold, func(Progress) {})
	return merges, pairs
}

// plan is Plan over prepared entities, scoring only the pairs with an
// entity to compare (compare[i]; nil compares all) and stopping with the
// context's error.
func plan(ctx context.Context, ents []*Entity, compare []bool, threshold float64, progress func(Progress)) ([]Merge, int, error) {
	progress(Progress{Phase: PhaseCompare})
	pairs, err := candidates(ctx, ents, compare)
	if err != nil {
		return nil, 0, err
	}
	words := CountWords(ents)
	var links []link
	for k, p := range pairs {
		if k%checkEvery == 0 {
			if err := ctx.Err(); err != nil {
				return nil, k, err
			}
			if k > 0 {
				progress(Progress{Phase: PhaseCompare, Done: k, Total: len(pairs)})
			}
		}
		if s := score(ents[p[0]], ents[p[1]], words); s.Value >= threshold {
			links = append(links, link{p[0], p[1], s})
		}
	}
	progress(Progress{Phase: PhaseCompare, Done: len(pairs), Total: len(pairs)})
	merges, err := clusters(ctx, ents, links)
	return merges, len(pairs), err
}

// link is a scored pair at or above the threshold.
type link struct {
	i, j int
	s    Score
}

// group is a cluster being built: its members, the contracts they are
// parties to and the one legal form among them ("" when none has one).
type group struct {
	members   []int
	contracts map[string]struct{}
	form      string
}

// clusters joins the links, best first, into clusters and returns their
// merges (see Plan). A link whose two clusters a hard rule keeps apart (a
// shared contract, different legal forms) is skipped; each check takes time
// in the smaller cluster's contracts, and a join moves the smaller cluster
// into the larger.
func clusters(ctx context.Context, ents []*Entity, links []link) ([]Merge, error) {
	sort.SliceStable(links, func(a, b int) bool { return links[a].s.Value > links[b].s.Value })
	parent := map[int]int{}
	groups := map[int]*group{}
	find := func(i int) int {
		for {
			p, ok := parent[i]
			if !ok || p == i {
				return i
			}
			if gp, ok := parent[p]; ok {
				parent[i] = gp
			}
			i = p
		}
	}
	groupOf := func(root int) *group {
		if g := groups[root]; g != nil {
			return g
		}
		e := ents[root]
		g := &group{members: []int{root}, contracts: make(map[string]struct{}, len(e.contracts)), form: e.form}
		for _, c := range e.contracts {
			g.contracts[c] = struct{}{}
		}
		groups[root] = g
		return g
	}
	best := map[int]Score{} // entity -> score of the link that joined it
	for k, l := range links {
		if k%checkEvery == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		ri, rj := find(l.i), find(l.j)
		if ri == rj {
			continue
		}
		gi, gj := groupOf(ri), groupOf(rj)
		if vetoed(gi, gj) {
			continue
		}
		if len(gi.contracts) < len(gj.contracts) {
			ri, rj, gi, gj = rj, ri, gj, gi
		}
		parent[rj] = ri
		gi.members = append(gi.members, gj.members...)
		for c := range gj.contracts {
			gi.contracts[c] = struct{}{}
		}
		if gi.form == "" {
			gi.form = gj.form
		}
		delete(groups, rj)
		for _, x := range []int{l.i, l.j} {
			if _, ok := best[x]; !ok {
				best[x] = l.s
			}
		}
	}
	var merges []Merge
	for _, g := range groups {
		ms := g.members
		if len(ms) < 2 {
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
	return merges, nil
}

// vetoed reports whether a hard rule keeps some member of one cluster
// apart from some member of the other: they share a contract, or have
// different legal forms.
func vetoed(a, b *group) bool {
	if a.form != "" && b.form != "" && a.form != b.form {
		return true
	}
	if len(a.contracts) > len(b.contracts) {
		a, b = b, a
	}
	for c := range a.contracts {
		if _, ok := b.contracts[c]; ok {
			return true
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

// ScorePair scores two entities as Plan would among parties whose words
// words counts (nil: none), for evaluation and tests.
func ScorePair(a, b *Entity, words Words) Score {
	a.prepare()
	b.prepare()
	return score(a, b, words)
}

// Prepare computes what scoring reads of ents, for CountWords.
func Prepare(ents []*Entity) {
	for _, e := range ents {
		e.prepare()
	}
}
