package retrieve

import (
	"context"
	"math"
	"slices"
)

// RerankQuery is what a Reranker ranks candidates for: the caller's query
// and the phrases it was expanded with (which weigh less).
type RerankQuery struct {
	Text       string
	Expansions []string
}

// Reranker orders a first stage's candidates again.
type Reranker interface {
	// Rerank returns indexes into cands, best first, and a score for each
	// (higher is better). Indexes it leaves out follow in their first-stage
	// order; invalid or repeated ones are ignored. An error leaves the
	// first-stage order as it is (the Searcher logs it).
	Rerank(ctx context.Context, q RerankQuery, cands []string) (order []int, scores []float64, err error)
}

// Lexical is the deterministic reranker: BM25 over the candidates (the
// pool's own statistics, as rankPool), expansion words weighted by
// ExpansionWeight, plus bonuses for the query's phrases found in order
// and for query words standing close together. It needs no model and
// gives the same order for the same candidates on every backend.
type Lexical struct {
	// ExpansionWeight is an expansion word's weight relative to a query
	// word's; 0 means DefaultExpansionWeight.
	ExpansionWeight float64
	// Phrase weighs the phrase bonus, Proximity the proximity bonus; both
	// relative to BM25. Negative turns one off; 0 means the default.
	Phrase, Proximity float64
	// Fuse keeps the first stage's judgement: the final order is the
	// reciprocal rank fusion of the candidates' given order (which Rerank
	// takes to be the first stage's, best first) and the lexical score's.
	Fuse bool
}

// Defaults of Lexical, chosen on the first 100 CUAD contracts by file name
// (docs/EVALUATION.md).
const (
	DefaultExpansionWeight = 0.3
	DefaultPhraseWeight    = 0.5
	DefaultProximityWeight = 0.5
)

// proximityWindow is the largest distance, in words, at which two query
// words still count as near each other.
const proximityWindow = 8

func (l Lexical) weights() (exp, phrase, prox float64) {
	exp, phrase, prox = l.ExpansionWeight, l.Phrase, l.Proximity
	if exp == 0 {
		exp = DefaultExpansionWeight
	}
	if phrase == 0 {
		phrase = DefaultPhraseWeight
	}
	if prox == 0 {
		prox = DefaultProximityWeight
	}
	return max(exp, 0), max(phrase, 0), max(prox, 0)
}

// Rerank scores every candidate; it never fails. A candidate without any
// query or expansion word scores 0 and keeps its place after the others.
func (l Lexical) Rerank(_ context.Context, q RerankQuery, cands []string) ([]int, []float64, error) {
	expW, phraseW, proxW := l.weights()
	weight := map[string]float64{}
	var qterms []string // the query's own distinct stems, in order
	for _, s := range contentStems(q.Text) {
		if _, ok := weight[s]; !ok {
			weight[s] = 1
			qterms = append(qterms, s)
		}
	}
	// Phrases: the query's consecutive word pairs, and each expansion of two
	// words or more.
	type phrase struct {
		stems  []string
		weight float64
	}
	var phrases []phrase
	qs := contentStems(q.Text)
	for i := 0; i+1 < len(qs); i++ {
		if qs[i] != qs[i+1] {
			phrases = append(phrases, phrase{qs[i : i+2], 1})
		}
	}
	for _, e := range q.Expansions {
		st := contentStems(e)
		for _, s := range st {
			if _, ok := weight[s]; !ok {
				weight[s] = expW
			}
		}
		if len(st) > 1 {
			phrases = append(phrases, phrase{st, expW})
		}
	}
	n := len(cands)
	if n == 0 || len(weight) == 0 {
		return nil, nil, nil
	}
	type doc struct {
		stems []string         // content stems in order
		pos   map[string][]int // positions of weighted stems in stems
	}
	docs := make([]doc, n)
	df := map[string]int{}
	total := 0
	for i, c := range cands {
		st := contentStems(c)
		d := doc{stems: st, pos: map[string][]int{}}
		for p, s := range st {
			if _, ok := weight[s]; ok {
				if len(d.pos[s]) == 0 {
					df[s]++
				}
				d.pos[s] = append(d.pos[s], p)
			}
		}
		total += len(st)
		docs[i] = d
	}
	avg := max(float64(total)/float64(n), 1)
	idf := func(t string) float64 {
		return math.Log(1 + (float64(n)-float64(df[t])+0.5)/(float64(df[t])+0.5))
	}
	scores := make([]float64, n)
	for i, d := range docs {
		if len(d.pos) == 0 {
			continue
		}
		var bm25 float64
		for t, ps := range d.pos {
			tf := float64(len(ps))
			bm25 += weight[t] * idf(t) * tf * (bm25K1 + 1) / (tf + bm25K1*(1-bm25B+bm25B*float64(len(d.stems))/avg))
		}
		var ph float64
		for _, p := range phrases {
			if containsSeq(d.stems, p.stems, 1) {
				var s float64
				for _, t := range p.stems {
					s += idf(t)
				}
				ph += p.weight * s / float64(len(p.stems))
			}
		}
		// Proximity: for each pair of the query's own words present, the
		// smaller idf over their closest distance, averaged over the
		// query's words so that long queries do not outweigh BM25.
		var prox float64
		for a := 0; a < len(qterms); a++ {
			pa := d.pos[qterms[a]]
			if len(pa) == 0 {
				continue
			}
			for b := a + 1; b < len(qterms); b++ {
				pb := d.pos[qterms[b]]
				if len(pb) == 0 {
					continue
				}
				if dist := minDistance(pa, pb); dist <= proximityWindow {
					prox += min(idf(qterms[a]), idf(qterms[b])) / float64(dist)
				}
			}
		}
		if len(qterms) > 1 {
			prox /= float64(len(qterms) - 1)
		}
		scores[i] = bm25 + phraseW*ph + proxW*prox
	}
	order := make([]int, n)
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int {
		switch {
		case scores[a] > scores[b]:
			return -1
		case scores[a] < scores[b]:
			return 1
		}
		return 0
	})
	if l.Fuse {
		fused := make([]float64, n)
		for rank, k := range order {
			fused[k] = 1/float64(DefaultRRFK+k+1) + 1/float64(DefaultRRFK+rank+1)
		}
		scores = fused
		slices.SortStableFunc(order, func(a, b int) int {
			switch {
			case scores[a] > scores[b]:
				return -1
			case scores[a] < scores[b]:
				return 1
			}
			return a - b
		})
	}
	out := make([]float64, n)
	for i, k := range order {
		out[i] = scores[k]
	}
	return order, out, nil
}

// minDistance is the smallest |x-y| over sorted positions xs and ys.
func minDistance(xs, ys []int) int {
	best := math.MaxInt
	i, j := 0, 0
	for i < len(xs) && j < len(ys) {
		d := xs[i] - ys[j]
		if d < 0 {
			d = -d
		}
		best = min(best, d)
		if xs[i] < ys[j] {
			i++
		} else {
			j++
		}
	}
	return max(best, 1)
}

// ApplyOrder returns items in the reranker's order, followed by those it
// left out in their original order, and the score of each reranked one
// (NaN for the rest). Out-of-range and repeated indexes are dropped.
func ApplyOrder[T any](items []T, order []int, scores []float64) ([]T, []float64) {
	out := make([]T, 0, len(items))
	sc := make([]float64, 0, len(items))
	used := make([]bool, len(items))
	for i, k := range order {
		if k < 0 || k >= len(items) || used[k] {
			continue
		}
		used[k] = true
		out = append(out, items[k])
		s := math.NaN()
		if i < len(scores) {
			s = scores[i]
		}
		sc = append(sc, s)
	}
	for k, it := range items {
		if !used[k] {
			out = append(out, it)
			sc = append(sc, math.NaN())
		}
	}
	return out, sc
}
