// Package compare puts the clauses of one kind, taken from many contracts,
// side by side: it groups them by how alike their wording is (average-link
// agglomerative clustering over textmatch.Similarity, with a stated
// threshold), names each group's representative clause (its medoid) and
// typical key terms, and flags the outliers. It does no I/O: the caller
// gives the clauses, their key terms and the similarity function.
package compare

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"

	"github.com/contractgraph/contractgraph/internal/terms"
	"github.com/contractgraph/contractgraph/internal/textmatch"
)

// DefaultThreshold is the average similarity two groups need to be merged
// when Options.Threshold is zero.
const DefaultThreshold = 0.3

// FarFactor is how far from its group's median a clause's key term must be
// to make the clause an outlier: more than FarFactor times the median, or
// less than the median divided by FarFactor.
const FarFactor = 5.0

// MinTermValues is how many of a group's clauses must state a key term
// (of one kind, unit and currency) before a value far from their median
// counts as an outlier.
const MinTermValues = 3

// Clause is one clause to compare. Start and End are its byte offsets in
// its contract's text; a clause known only by a summary has no span
// (Start == End == 0) and its Summary is compared instead of its Text.
type Clause struct {
	ContractID string `json:"contract_id"`
	Title      string `json:"title,omitempty"`
	ClauseID   string `json:"clause_id,omitempty"`
	ClauseType string `json:"clause_type"`
	Text       string `json:"text,omitempty"`
	Summary    string `json:"summary,omitempty"`
	Start      int    `json:"start"`
	End        int    `json:"end"`
	Verified   bool   `json:"verified"`
	// Truncated says Text was cut short for display; Start and End still
	// span the whole clause.
	Truncated bool `json:"truncated,omitempty"`
	// Terms are the clause's key terms (terms.Extract), with offsets in
	// the contract text; without a span, in the passage compared.
	Terms []terms.Term `json:"terms"`
}

// Passage is what the clause says: its text, or its summary when it has
// no located text.
func (c Clause) Passage() string {
	if c.Text == "" {
		return c.Summary
	}
	return c.Text
}

// key is what makes two terms' values comparable.
func key(t terms.Term) termKey { return termKey{string(t.Kind), t.Unit, t.Currency} }

type termKey struct{ kind, unit, currency string }

// Options configure Cluster.
type Options struct {
	// Threshold is the average similarity two groups need to be merged;
	// zero means DefaultThreshold.
	Threshold float64
}

// Result is the clauses grouped.
type Result struct {
	// Threshold is the similarity threshold the groups were made with.
	Threshold float64 `json:"threshold"`
	// Groups have two or more clauses each, largest first.
	Groups []Group `json:"groups"`
	// Outliers are the grouped clauses that are loosely held by their
	// group or whose key terms are far from their group's, by group, then
	// the clauses like no other (a group of their own); each in the order
	// of the input.
	Outliers []Outlier `json:"outliers"`
}

// Group is clauses worded alike.
type Group struct {
	// ID numbers the groups from 1, largest first.
	ID int `json:"id"`
	// Size is the number of clauses, Contracts the number of contracts
	// they come from.
	Size      int `json:"size"`
	Contracts int `json:"contracts"`
	// Cohesion is the mean similarity of the group's clauses to one
	// another.
	Cohesion float64 `json:"cohesion"`
	// Representative is the medoid: the clause most like the others (of
	// equals, the first with a span).
	Representative Member `json:"representative"`
	// Members are the other clauses, most like the representative first.
	Members []Member `json:"members"`
	// KeyTerms summarise the members' key terms, most common first.
	KeyTerms []TermSummary `json:"key_terms"`
}

// Member is one clause of a group, or an outlier, with its similarity to
// its group's representative (1 for the representative itself).
type Member struct {
	Clause
	Similarity float64 `json:"similarity"`
}

// TermSummary is what a group's clauses state for one kind of key term in
// one unit and currency: how many state it, and the median, smallest and
// largest value (a clause stating several counts its largest).
type TermSummary struct {
	Kind     string  `json:"kind"`
	Unit     string  `json:"unit,omitempty"`
	Currency string  `json:"currency,omitempty"`
	Count    int     `json:"count"`
	Median   float64 `json:"median"`
	Min      float64 `json:"min"`
	Max      float64 `json:"max"`
}

// Outlier reasons.
const (
	// ReasonUnique: the clause joined no group; Nearest is its best
	// similarity to any other clause.
	ReasonUnique = "unique"
	// ReasonLoose: the clause is in a group but less than half the
	// threshold like its representative.
	ReasonLoose = "loosely_grouped"
	// ReasonFarTerm: a key term is more than FarFactor times from its
	// group's median.
	ReasonFarTerm = "far_term"
)

// Outlier is a clause flagged as unlike the others.
type Outlier struct {
	Member
	// Group is the ID of the clause's group; 0 for a unique clause.
	Group int `json:"group"`
	// Reasons say why it is an outlier (ReasonUnique, ReasonLoose,
	// ReasonFarTerm), Details say it in words.
	Reasons []string `json:"reasons"`
	Details []string `json:"details"`
	// Nearest is the clause's best similarity to any other clause.
	Nearest float64 `json:"nearest"`
}

// Cluster groups clauses by the similarity of their passages
// (textmatch.Similarity). Each clause
// starts as a group of its own; the two groups with the highest average
// similarity between their clauses are merged, again and again, while that
// average is at least the threshold. Ties go to the pair that comes first
// in the input's order, so the same input always gives the same groups.
// It fails only with a threshold outside (0, 1], or when ctx ends.
func Cluster(ctx context.Context, clauses []Clause, opts Options) (Result, error) {
	th := opts.Threshold
	if th == 0 {
		th = DefaultThreshold
	}
	if !(th > 0 && th <= 1) {
		return Result{}, fmt.Errorf("compare: threshold %v is outside (0, 1]", th)
	}
	m, err := similarities(ctx, clauses)
	if err != nil {
		return Result{}, err
	}
	clusters, err := agglomerate(ctx, m, th)
	if err != nil {
		return Result{}, err
	}
	res := Result{Threshold: th, Groups: []Group{}, Outliers: []Outlier{}}
	flagged := map[int]*Outlier{}
	flag := func(i, group int, rep int, reason, detail string) {
		o := flagged[i]
		if o == nil {
			s := 0.0
			if rep >= 0 {
				s = m.at(i, rep)
			}
			o = &Outlier{Member: Member{Clause: clauses[i], Similarity: round(s)}, Group: group, Nearest: round(m.nearest(i))}
			flagged[i] = o
		}
		o.Reasons = append(o.Reasons, reason)
		o.Details = append(o.Details, detail)
	}
	var groups [][]int
	for _, c := range clusters {
		if len(c) > 1 {
			groups = append(groups, c)
		}
	}
	slices.SortStableFunc(groups, func(a, b []int) int {
		return cmp.Or(cmp.Compare(len(b), len(a)), cmp.Compare(a[0], b[0]))
	})
	for gi, members := range groups {
		id := gi + 1
		g, rep := describe(clauses, members, m)
		g.ID = id
		res.Groups = append(res.Groups, g)
		for _, i := range members {
			if i != rep && m.at(i, rep) < th/2 {
				flag(i, id, rep, ReasonLoose, fmt.Sprintf("only %.2f similar to its group's representative (threshold %.2f)", m.at(i, rep), th))
			}
		}
		for _, f := range farTerms(clauses, members) {
			flag(f.clause, id, rep, ReasonFarTerm, f.detail)
		}
	}
	for _, c := range clusters {
		if len(c) == 1 {
			detail := fmt.Sprintf("like no other clause: the nearest is %.2f similar (threshold %.2f)", m.nearest(c[0]), th)
			if m.nearest(c[0]) >= th {
				detail = fmt.Sprintf("in no group: its nearest clause is %.2f similar, but that clause's group is less than %.2f similar to it on average", m.nearest(c[0]), th)
			}
			flag(c[0], 0, -1, ReasonUnique, detail)
		}
	}
	for i := range clauses {
		if o, ok := flagged[i]; ok {
			res.Outliers = append(res.Outliers, *o)
		}
	}
	// The outliers of groups first, by group: a cap ten times its
	// group's says more than a clause like no other.
	slices.SortStableFunc(res.Outliers, func(a, b Outlier) int {
		return cmp.Compare(groupOrder(a.Group), groupOrder(b.Group))
	})
	return res, nil
}

// groupOrder sorts group IDs first and 0 (no group) last.
func groupOrder(id int) int {
	if id == 0 {
		return math.MaxInt
	}
	return id
}

// matrix holds the similarity of every pair of clauses.
type matrix struct {
	n int
	v []float32
}

func (m matrix) at(i, j int) float64 {
	if i == j {
		return 1
	}
	return float64(m.v[i*m.n+j])
}

// nearest is clause i's best similarity to any other clause.
func (m matrix) nearest(i int) float64 {
	best := 0.0
	for j := range m.n {
		if j != i {
			best = max(best, m.at(i, j))
		}
	}
	return best
}

// similarities scores every pair of passages once (Similarity is
// symmetric), each passage read once.
func similarities(ctx context.Context, clauses []Clause) (matrix, error) {
	n := len(clauses)
	m := matrix{n: n, v: make([]float32, n*n)}
	read := make([]textmatch.Passage, n)
	for i, c := range clauses {
		read[i] = textmatch.NewPassage(c.Passage())
	}
	for i := range n {
		if i%32 == 0 {
			if err := ctx.Err(); err != nil {
				return matrix{}, err
			}
		}
		for j := i + 1; j < n; j++ {
			s := float32(read[i].Similarity(read[j]))
			m.v[i*n+j], m.v[j*n+i] = s, s
		}
	}
	return m, nil
}

// agglomerate clusters 0..n-1 by average linkage until no two clusters
// are at least th alike on average; each cluster lists its clauses in
// input order, and the clusters come in the order of their first clause.
func agglomerate(ctx context.Context, m matrix, th float64) ([][]int, error) {
	n := m.n
	// link[i*n+j] is the average similarity of clusters i and j, each
	// named by its first clause.
	link := make([]float64, n*n)
	for i := range n {
		for j := range n {
			link[i*n+j] = m.at(i, j)
		}
	}
	members := make([][]int, n)
	active := make([]bool, n)
	for i := range n {
		members[i] = []int{i}
		active[i] = true
	}
	// best[i] is the active cluster most like i (ties: the lowest index),
	// or -1 when i has no other.
	best := make([]int, n)
	bestOf := func(i int) int {
		b := -1
		for j := range n {
			if j != i && active[j] && (b < 0 || link[i*n+j] > link[i*n+b]) {
				b = j
			}
		}
		return b
	}
	for i := range n {
		best[i] = bestOf(i)
	}
	for {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		a, b := -1, -1
		for i := range n {
			if !active[i] || best[i] < 0 {
				continue
			}
			j := best[i]
			if a < 0 || link[i*n+j] > link[a*n+b] {
				a, b = i, j
			}
		}
		if a < 0 || link[a*n+b] < th {
			break
		}
		if b < a {
			a, b = b, a
		}
		na, nb := float64(len(members[a])), float64(len(members[b]))
		for k := range n {
			if k == a || k == b || !active[k] {
				continue
			}
			v := (na*link[a*n+k] + nb*link[b*n+k]) / (na + nb)
			link[a*n+k], link[k*n+a] = v, v
		}
		members[a] = append(members[a], members[b]...)
		slices.Sort(members[a])
		active[b], members[b] = false, nil
		for k := range n {
			if !active[k] {
				continue
			}
			if k == a || best[k] == a || best[k] == b {
				best[k] = bestOf(k)
			} else if link[k*n+a] > link[k*n+best[k]] || link[k*n+a] == link[k*n+best[k]] && a < best[k] {
				best[k] = a
			}
		}
	}
	var out [][]int
	for i := range n {
		if active[i] {
			out = append(out, members[i])
		}
	}
	return out, nil
}

// describe summarises one group and returns it with its representative.
func describe(clauses []Clause, members []int, m matrix) (Group, int) {
	rep, repSum := -1, -1.0
	pairs, total := 0, 0.0
	for _, i := range members {
		sum := 0.0
		for _, j := range members {
			if i != j {
				sum += m.at(i, j)
			}
		}
		total += sum
		pairs += len(members) - 1
		// Among equals, a clause with words in the text represents the
		// group better than a summary.
		if sum > repSum || sum == repSum && located(clauses[i]) && !located(clauses[rep]) {
			rep, repSum = i, sum
		}
	}
	g := Group{Size: len(members), Representative: Member{Clause: clauses[rep], Similarity: 1}}
	if pairs > 0 {
		g.Cohesion = round(total / float64(pairs))
	}
	contracts := map[string]bool{}
	for _, i := range members {
		contracts[clauses[i].ContractID] = true
		if i != rep {
			g.Members = append(g.Members, Member{Clause: clauses[i], Similarity: round(m.at(i, rep))})
		}
	}
	g.Contracts = len(contracts)
	slices.SortStableFunc(g.Members, func(a, b Member) int { return cmp.Compare(b.Similarity, a.Similarity) })
	g.KeyTerms = summarise(clauses, members)
	return g, rep
}

func located(c Clause) bool { return c.End > c.Start }

// largest maps each term key a clause states to its largest value.
func largest(c Clause) map[termKey]float64 {
	out := map[termKey]float64{}
	for _, t := range c.Terms {
		if v, ok := out[key(t)]; !ok || t.Value > v {
			out[key(t)] = t.Value
		}
	}
	return out
}

// summarise counts and bounds the key terms the members state, most
// stated first (then by kind, unit and currency).
func summarise(clauses []Clause, members []int) []TermSummary {
	values := map[termKey][]float64{}
	for _, i := range members {
		for k, v := range largest(clauses[i]) {
			values[k] = append(values[k], v)
		}
	}
	out := []TermSummary{}
	for k, vs := range values {
		slices.Sort(vs)
		out = append(out, TermSummary{Kind: k.kind, Unit: k.unit, Currency: k.currency, Count: len(vs), Median: median(vs), Min: vs[0], Max: vs[len(vs)-1]})
	}
	slices.SortFunc(out, func(a, b TermSummary) int {
		return cmp.Or(cmp.Compare(b.Count, a.Count), cmp.Compare(a.Kind, b.Kind), cmp.Compare(a.Unit, b.Unit), cmp.Compare(a.Currency, b.Currency))
	})
	return out
}

// median of sorted values.
func median(vs []float64) float64 {
	n := len(vs)
	if n%2 == 1 {
		return vs[n/2]
	}
	return (vs[n/2-1] + vs[n/2]) / 2
}

type farTerm struct {
	clause int
	detail string
}

// farTerms finds the members with a key term more than FarFactor times
// from the group's median of it, for the terms at least MinTermValues
// members state.
func farTerms(clauses []Clause, members []int) []farTerm {
	byKey := map[termKey][]float64{}
	stated := make([]map[termKey]float64, len(members))
	for mi, i := range members {
		stated[mi] = largest(clauses[i])
		for k, v := range stated[mi] {
			byKey[k] = append(byKey[k], v)
		}
	}
	var out []farTerm
	for mi, i := range members {
		keys := slices.SortedFunc(func(yield func(termKey) bool) {
			for k := range stated[mi] {
				if !yield(k) {
					return
				}
			}
		}, func(a, b termKey) int {
			return cmp.Or(cmp.Compare(a.kind, b.kind), cmp.Compare(a.unit, b.unit), cmp.Compare(a.currency, b.currency))
		})
		for _, k := range keys {
			vs := byKey[k]
			if len(vs) < MinTermValues {
				continue
			}
			sorted := slices.Sorted(slices.Values(vs))
			med := median(sorted)
			v := stated[mi][k]
			if med <= 0 || v <= 0 {
				continue
			}
			if v > med*FarFactor || v < med/FarFactor {
				out = append(out, farTerm{i, fmt.Sprintf("%s of %s is far from the group's median of %s (more than %g times more or less)",
					k.kind, formatValue(v, k), formatValue(med, k), FarFactor)})
			}
		}
	}
	return out
}

// FormatValue writes a term value with its unit or currency, as a
// person reads it: "1,000,000 USD", "30 days", "2 × fees", "12 months of
// fees", "15%".
func FormatValue(v float64, unit, currency string) string {
	n := fmt.Sprintf("%.10g", v)
	if v == math.Trunc(v) && math.Abs(v) < 1e15 {
		n = commas(int64(v))
	}
	switch {
	case currency != "":
		return n + " " + currency
	case unit == terms.UnitPercent:
		return n + "%"
	case unit == terms.UnitFees:
		return n + " × fees"
	case unit == terms.UnitMonthsFees:
		return n + " months of fees"
	case unit != "":
		return n + " " + unit
	}
	return n
}

func formatValue(v float64, k termKey) string { return FormatValue(v, k.unit, k.currency) }

// commas writes n with thousands separators.
func commas(n int64) string {
	s := fmt.Sprint(n)
	neg := s[0] == '-'
	if neg {
		s = s[1:]
	}
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	if neg {
		return "-" + s
	}
	return s
}

// round keeps a similarity to three decimals, for stable JSON.
func round(v float64) float64 { return math.Round(v*1000) / 1000 }
