package tools

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/contractgraph/contractgraph/internal/contract"
	"github.com/contractgraph/contractgraph/internal/graph"
	"github.com/contractgraph/contractgraph/internal/llm"
	"github.com/contractgraph/contractgraph/internal/retrieve"
	"github.com/contractgraph/contractgraph/internal/statute"
)

// Statute tool names.
const (
	NameStatuteSearch = "statute_search"
	NameGetStatute    = "get_statute"
)

const statuteSearchDescription = `Search the statute knowledge base (US Code titles, Taiwan Civil Code and other imported laws; full-text BM25 ranking) and return the best sections or articles, each with statute_id, citation (e.g. "9 U.S.C. § 2"), jurisdiction, heading, the official url, the statute text (long sections are shortened to the lines that best match the query; text_truncated tells) and score (higher is better). Use it before citing any law: cite only statute_ids it returned, and quote only words from the returned text. If nothing relevant comes back, say that no applicable statute was found instead of citing one.`

const getStatuteDescription = `Get one statute (section or article) by the statute_id that statute_search returned: citation, jurisdiction, heading, official url and its verbatim text (at most 24 KB; text_truncated tells whether it was cut).`

var (
	statuteSearchCompact = Compact{
		Description: `Search statutes: statute_id, citation, heading, text. Cite only statute_ids it returned; if none applies, say so.`,
	}
	getStatuteCompact = Compact{Description: `One statute's text by a statute_id from statute_search.`}
)

// StatuteSearchInput is the input of statute_search.
type StatuteSearchInput struct {
	Query        string `json:"query" jsonschema:"The legal issue in plain words, e.g. 'arbitration agreement enforceable' or 'penalty for breach of contract'." compact:"legal issue in plain words"`
	Jurisdiction string `json:"jurisdiction,omitempty" jsonschema:"Only statutes of this jurisdiction, e.g. 'us' or 'tw' (default: all)." compact:"e.g. us, tw"`
	Limit        int    `json:"limit,omitempty" jsonschema:"How many statutes to return."`
}

// StatutePassage is one statute as the statute tools return it.
type StatutePassage struct {
	StatuteID     string  `json:"statute_id"`
	Citation      string  `json:"citation"`
	Jurisdiction  string  `json:"jurisdiction"`
	Heading       string  `json:"heading,omitempty"`
	URL           string  `json:"url,omitempty"`
	Text          string  `json:"text"`
	TextTruncated bool    `json:"text_truncated,omitempty"`
	Score         float64 `json:"score,omitempty"`
}

// StatuteSearchResult is statute_search's answer.
type StatuteSearchResult struct {
	Statutes []StatutePassage `json:"statutes"`
	// Ranking is "hybrid" when BM25 and vector similarity were fused,
	// "bm25" otherwise (no embedder, or no statute embeddings, which Note
	// then says). A query that cannot be embedded is an error, not a
	// silent BM25 ranking.
	Ranking string `json:"ranking"`
	// Reranked tells that a second stage ordered the candidates again
	// (StatuteOptions.Reranker); scores are then the reranker's.
	Reranked bool `json:"reranked,omitempty"`
	// Note says why an embedding model is configured but the ranking is
	// BM25 alone.
	Note string `json:"note,omitempty"`
}

// GetStatuteInput is the input of get_statute.
type GetStatuteInput struct {
	StatuteID string `json:"statute_id" jsonschema:"The statute's id as returned by statute_search, e.g. /us/usc/t9/s2."`
}

// Statute tool bounds.
const (
	maxJurisdiction = 20
	// DefaultStatuteExcerptBytes bounds each statute's text in statute_search results.
	DefaultStatuteExcerptBytes = 4 << 10
	// DefaultStatuteTextBytes bounds the text get_statute returns.
	DefaultStatuteTextBytes = 24 << 10
)

// StatuteOptions configure the statute tools.
type StatuteOptions struct {
	// ExcerptBytes bounds each statute's text in a search result; zero
	// means DefaultStatuteExcerptBytes.
	ExcerptBytes int
	// Embedder, when set and the store keeps statute embeddings
	// (graph.StatuteVectorStore), makes statute_search fuse vector
	// similarity with BM25 by reciprocal rank fusion.
	Embedder llm.Embedder
	// Expander widens each query (its phrases are searched too and weigh
	// less in reranking); nil means none. Its errors leave the query as
	// given.
	Expander retrieve.Expander
	// Reranker orders the first RerankDepth candidates again by their
	// heading and text; nil keeps the first stage's order, as does any
	// error of the reranker (a model failing).
	Reranker retrieve.Reranker
	// RerankDepth is how many candidates Reranker sees; 0 means
	// DefaultStatuteRerankDepth, at most graph.StatuteStoreLimits.Max.
	RerankDepth int
}

// DefaultStatuteRerankDepth is how many statute candidates are reranked.
const DefaultStatuteRerankDepth = 20

// statuteRerankBytes bounds the text of a statute a reranker reads: its
// heading and the start of its text, where a section states its subject.
const statuteRerankBytes = 3 << 10

// StatuteTools are statute_search and get_statute over a statute store.
// They are separate from the contract tools because the statute knowledge
// base is an optional capability of a store.
type StatuteTools struct {
	store        graph.StatuteStore
	excerptBytes int
	embedder     llm.Embedder
	vectors      graph.StatuteVectorStore // nil unless hybrid search is possible
	expander     retrieve.Expander
	reranker     retrieve.Reranker
	rerankDepth  int
}

// NewStatuteTools returns the statute tools over store.
func NewStatuteTools(store graph.StatuteStore, opts StatuteOptions) *StatuteTools {
	t := &StatuteTools{store: store, excerptBytes: opts.ExcerptBytes, expander: opts.Expander, reranker: opts.Reranker, rerankDepth: opts.RerankDepth}
	if t.rerankDepth <= 0 {
		t.rerankDepth = DefaultStatuteRerankDepth
	}
	t.rerankDepth = min(t.rerankDepth, graph.StatuteStoreLimits.Max)
	if t.excerptBytes <= 0 {
		t.excerptBytes = DefaultStatuteExcerptBytes
	}
	if vs, ok := store.(graph.StatuteVectorStore); ok && opts.Embedder != nil {
		t.embedder, t.vectors = opts.Embedder, vs
	}
	return t
}

// AddTo registers statute_search and get_statute on s.
func (t *StatuteTools) AddTo(s *Set) error {
	return errors.Join(
		RegisterCompact(s, NameStatuteSearch, statuteSearchDescription, t.Search, tuneStatuteSearch, statuteSearchCompact),
		RegisterCompact(s, NameGetStatute, getStatuteDescription, t.Get, tuneGetStatute, getStatuteCompact),
	)
}

func tuneStatuteSearch(s *jsonschema.Schema) {
	setLimit(s, graph.StatuteLimits)
	property(s, "query").MinLength = new(1)
}

func tuneGetStatute(s *jsonschema.Schema) {
	property(s, "statute_id").MinLength = new(1)
}

// Search runs statute_search.
func (t *StatuteTools) Search(ctx context.Context, in StatuteSearchInput) (StatuteSearchResult, error) {
	query, err := viaGraph(graph.ParseText("query", in.Query, true))
	if err != nil {
		return StatuteSearchResult{}, err
	}
	jur := strings.ToLower(strings.TrimSpace(in.Jurisdiction))
	if len(jur) > maxJurisdiction || strings.ContainsAny(jur, " \t") {
		return StatuteSearchResult{}, &ArgError{Field: "jurisdiction", Msg: fmt.Sprintf("%q is not a jurisdiction code such as us or tw", in.Jurisdiction)}
	}
	limit, err := parseLimit("limit", in.Limit, graph.StatuteLimits)
	if err != nil {
		return StatuteSearchResult{}, err
	}
	// In hybrid mode each ranking contributes a deeper list to the fusion,
	// as deep as a StatuteStore's searches go; a reranker sees its depth.
	depth := limit
	if t.vectors != nil {
		depth = min(graph.StatuteStoreLimits.Max, 3*limit)
	}
	if t.reranker != nil {
		depth = max(depth, t.rerankDepth)
	}
	storeQuery, exps := query, t.expand(ctx, query)
	if len(exps) > 0 {
		storeQuery = query + " " + strings.Join(exps, " ")
	}
	hits, err := t.store.SearchStatutes(ctx, graph.StatuteQuery{Query: storeQuery, Jurisdiction: jur, Limit: depth})
	if err != nil {
		return StatuteSearchResult{}, fmt.Errorf("%s: %w", NameStatuteSearch, err)
	}
	ranking, note := "bm25", ""
	near, err := t.nearest(ctx, query, jur, depth)
	switch {
	case err != nil:
		return StatuteSearchResult{}, fmt.Errorf("%s: %w", NameStatuteSearch, err)
	case len(near) > 0:
		hits, ranking = fuseStatutes(hits, near), "hybrid"
	case t.vectors != nil:
		note = noStatuteVectorsNote
	}
	reranked := false
	if t.reranker != nil && len(hits) > 1 {
		hits, reranked = t.rerank(ctx, retrieve.RerankQuery{Text: query, Expansions: exps}, hits[:min(len(hits), t.rerankDepth)])
	}
	hits = hits[:min(limit, len(hits))]
	out := StatuteSearchResult{Statutes: make([]StatutePassage, 0, len(hits)), Ranking: ranking, Reranked: reranked, Note: note}
	for _, h := range hits {
		p := passage(&h.Statute, query, t.excerptBytes)
		p.Score = h.Score
		out.Statutes = append(out.Statutes, p)
	}
	return out, nil
}

// expand returns the expander's phrases for query; an expander's error
// leaves whatever phrases it returned (none from a failed model).
func (t *StatuteTools) expand(ctx context.Context, query string) []string {
	if t.expander == nil {
		return nil
	}
	ps, _ := t.expander.Expand(ctx, query)
	return ps[:min(len(ps), retrieve.MaxExpansions)]
}

// rerank orders hits by t.reranker over each statute's heading and the
// start of its text; on the reranker's error it returns hits unchanged.
func (t *StatuteTools) rerank(ctx context.Context, q retrieve.RerankQuery, hits []graph.StatuteHit) ([]graph.StatuteHit, bool) {
	texts := make([]string, len(hits))
	for i, h := range hits {
		text := h.Statute.Text
		if len(text) > statuteRerankBytes {
			text = text[:statuteRerankBytes]
		}
		texts[i] = h.Statute.Heading + "\n" + text
	}
	order, scores, err := t.reranker.Rerank(ctx, q, texts)
	if err != nil {
		return hits, false
	}
	out, sc := retrieve.ApplyOrder(hits, order, scores)
	for i := range out {
		if math.IsNaN(sc[i]) {
			sc[i] = 0
		}
		out[i].Score = sc[i]
	}
	return out, true
}

// rrfK is the rank constant of reciprocal rank fusion.
const rrfK = 60

// noStatuteVectorsNote is statute_search's Note when no statute has a
// vector the query's can be compared with.
const noStatuteVectorsNote = "ranked by BM25 alone: no statute here has a vector by this embedding model; add them with `contractgraph reindex --embeddings`"

// nearest ranks statutes by embedding similarity to the query; nil without
// an embedder or when no statute has a comparable vector. A failing
// embedding call or vector search is an error.
func (t *StatuteTools) nearest(ctx context.Context, query, jur string, depth int) ([]graph.StatuteHit, error) {
	if t.vectors == nil {
		return nil, nil
	}
	vecs, _, err := t.embedder.Embed(ctx, []string{query})
	if err != nil {
		return nil, fmt.Errorf("embed the query for hybrid search: %w", err)
	}
	if len(vecs) != 1 || len(vecs[0]) == 0 {
		return nil, fmt.Errorf("embed the query for hybrid search: got %d vectors for 1 text", len(vecs))
	}
	return t.vectors.SearchStatuteVectors(ctx, vecs[0], jur, depth)
}

// fuseStatutes merges two rankings by reciprocal rank fusion: a statute
// scores Σ 1/(rrfK + rank) over the lists it is in. Ties keep first
// appearance (BM25 first).
func fuseStatutes(lists ...[]graph.StatuteHit) []graph.StatuteHit {
	type entry struct {
		hit   graph.StatuteHit
		score float64
	}
	byID := map[string]*entry{}
	var order []*entry
	for _, list := range lists {
		for rank, h := range list {
			e, ok := byID[h.Statute.ID]
			if !ok {
				e = &entry{hit: h}
				byID[h.Statute.ID] = e
				order = append(order, e)
			}
			e.score += 1 / float64(rrfK+rank+1)
		}
	}
	slices.SortStableFunc(order, func(a, b *entry) int { return cmp.Compare(b.score, a.score) })
	out := make([]graph.StatuteHit, len(order))
	for i, e := range order {
		out[i] = e.hit
		out[i].Score = e.score
	}
	return out
}

// Get runs get_statute. A missing statute is an error wrapping
// graph.ErrNotFound.
func (t *StatuteTools) Get(ctx context.Context, in GetStatuteInput) (StatutePassage, error) {
	id := strings.TrimSpace(in.StatuteID)
	if id == "" {
		return StatutePassage{}, &ArgError{Field: "statute_id", Msg: "missing: give an id returned by statute_search"}
	}
	if len(id) > maxIdentifier {
		return StatutePassage{}, &ArgError{Field: "statute_id", Msg: fmt.Sprintf("longer than %d characters", maxIdentifier)}
	}
	st, err := t.store.GetStatute(ctx, id)
	if err != nil {
		return StatutePassage{}, fmt.Errorf("%s: %w", NameGetStatute, err)
	}
	return passage(st, "", DefaultStatuteTextBytes), nil
}

func passage(st *contract.Statute, query string, maxBytes int) StatutePassage {
	text, truncated := statute.Excerpt(st.Text, query, maxBytes)
	return StatutePassage{
		StatuteID:     st.ID,
		Citation:      statute.Cite(st),
		Jurisdiction:  st.Jurisdiction,
		Heading:       st.Heading,
		URL:           st.URL,
		Text:          text,
		TextTruncated: truncated,
	}
}
