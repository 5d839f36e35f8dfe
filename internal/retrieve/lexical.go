package retrieve

import (
	"math"
	"slices"
	"strings"
	"unicode"

	"github.com/contractgraph/contractgraph/internal/graph"
	"github.com/contractgraph/contractgraph/internal/textmatch"
)

// BM25 parameters of the candidate ranking, the usual ones (and those of
// SQLite FTS5 and Lucene).
const (
	bm25K1 = 1.2
	bm25B  = 0.75
)

// rankPool ranks the candidate passages of a hybrid search lexically, by
// BM25 over the pool itself: the statistics (document frequency, average
// length) are the pool's, so the ranking depends only on which passages
// are candidates, not on the backend's full-text engine. SQLite FTS5 and
// Neo4j's Lucene index find the same matching passages but score them
// differently (idf formulas, lossy length norms in Lucene, their own
// stemmers), which would otherwise order one contract's passages
// differently on each backend. Passages with none of the query's words are
// left out; ties are broken by contract, start and clause id.
func rankPool(query string, pool []graph.ClauseHit) []graph.ClauseHit {
	terms := map[string]bool{}
	for _, w := range textmatch.SearchWords(query) {
		terms[stem(w)] = true
	}
	if len(terms) == 0 || len(pool) == 0 {
		return nil
	}
	type doc struct {
		tf  map[string]int
		len int
	}
	docs := make([]doc, len(pool))
	df := map[string]int{}
	total := 0
	for i, h := range pool {
		d := doc{tf: map[string]int{}}
		for _, w := range words(h.Passage()) {
			d.len++
			if s := stem(w); terms[s] {
				if d.tf[s] == 0 {
					df[s]++
				}
				d.tf[s]++
			}
		}
		total += d.len
		docs[i] = d
	}
	avg := float64(total) / float64(len(pool))
	if avg == 0 {
		avg = 1
	}
	n := float64(len(pool))
	var out []graph.ClauseHit
	for i, d := range docs {
		var score float64
		for t, f := range d.tf {
			idf := math.Log(1 + (n-float64(df[t])+0.5)/(float64(df[t])+0.5))
			tf := float64(f)
			score += idf * tf * (bm25K1 + 1) / (tf + bm25K1*(1-bm25B+bm25B*float64(d.len)/avg))
		}
		if score > 0 {
			h := pool[i]
			h.Score = score
			out = append(out, h)
		}
	}
	sortHits(out, func(h graph.ClauseHit) float64 { return h.Score })
	return out
}

// sortHits orders hits by key, highest first, then by contract, start and
// clause id, so that equal keys come out the same on every backend.
func sortHits(hits []graph.ClauseHit, key func(graph.ClauseHit) float64) {
	slices.SortStableFunc(hits, func(a, b graph.ClauseHit) int {
		ka, kb := key(a), key(b)
		switch {
		case ka != kb:
			if ka > kb {
				return -1
			}
			return 1
		case a.ContractID != b.ContractID:
			return strings.Compare(a.ContractID, b.ContractID)
		case a.Start != b.Start:
			return a.Start - b.Start
		}
		return strings.Compare(a.ClauseID, b.ClauseID)
	})
}

// scoreDigits is the precision vector scores are compared at: Neo4j
// computes cosine similarity in float32 and SQLite in float64, so scores
// equal to six digits may come back in either order.
const scoreDigits = 1e6

// stableRanks orders vector hits by their score rounded to scoreDigits,
// then by contract, start and clause id, so that near-ties rank the same
// on every backend.
func stableRanks(hits []graph.ClauseHit) []graph.ClauseHit {
	out := slices.Clone(hits)
	sortHits(out, func(h graph.ClauseHit) float64 { return math.Round(h.Score * scoreDigits) })
	return out
}

// pool is the union of the ranked lists, each passage once (the first
// list's copy), in order of first appearance.
func pool(lists ...[]graph.ClauseHit) []graph.ClauseHit {
	seen := map[string]bool{}
	var out []graph.ClauseHit
	for _, list := range lists {
		for _, h := range list {
			if k := hitKey(h); !seen[k] {
				seen[k] = true
				out = append(out, h)
			}
		}
	}
	return out
}

// words splits text as textmatch.SearchWords does, keeping every word.
func words(text string) []string {
	return strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	})
}

// stemSuffixes are stripped, longest first, by stem.
var stemSuffixes = []string{
	"ments", "ities", "ings", "ions", "ness", "ment", "ing", "ion", "ity", "ies", "ed", "es", "ly", "s",
}

// stem is a light English stemmer: it strips one common suffix (keeping at
// least three letters) and then a final e, so that "terminate",
// "terminated" and "termination" all become "terminat", and "liability"
// and "liabilities" "liabil". It only orders passages the full-text index
// already found, so it needs to be consistent, not linguistically exact.
func stem(w string) string {
	for _, suf := range stemSuffixes {
		if strings.HasSuffix(w, suf) && len(w)-len(suf) >= 3 {
			w = strings.TrimSuffix(w, suf)
			break
		}
	}
	if len(w) > 3 && strings.HasSuffix(w, "e") {
		w = strings.TrimSuffix(w, "e")
	}
	return w
}
