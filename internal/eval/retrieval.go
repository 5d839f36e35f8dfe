package eval

import (
	"bufio"
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/contractgraph/contractgraph/internal/contract"
	"github.com/contractgraph/contractgraph/internal/graph"
	"github.com/contractgraph/contractgraph/internal/llm"
	"github.com/contractgraph/contractgraph/internal/retrieve"
)

// The files of the CUAD directory that the retrieval measurement reads.
const (
	CUADSpansFile        = "cuad_spans_derived.jsonl"
	CUADDescriptionsFile = "category_descriptions.csv"
	CUADTextsDir         = "full_contract_txt"
)

// Retrieval methods.
const (
	MethodBM25   = "bm25"   // the store's full-text ranking alone
	MethodHybrid = "hybrid" // BM25 fused with vector similarity (retrieve.Searcher)
)

// PreambleCategories are the CUAD categories whose spans sit in the
// preamble and whose descriptions ("The name of the contract") share few
// words with it: extraction answers them, not clause search. The report
// gives the score without them too.
var PreambleCategories = []string{"Document Name", "Parties", "Agreement Date", "Effective Date"}

// Span is an annotated passage: byte offsets into a contract's text.
type Span struct {
	Start int `json:"start"`
	End   int `json:"end"`
}

// RetrievalSet is the clause-search benchmark: contract texts, the spans
// experts annotated in them per CUAD category, and one query per category.
type RetrievalSet struct {
	TextsDir string
	// Spans maps a text file name to canonical category to spans.
	Spans map[string]map[string][]Span
	// Queries maps a canonical category to its query: the category's name
	// and CUAD description, "Governing Law: Which state/country's law
	// governs the interpretation of the contract?".
	Queries map[string]string
}

// ReadRetrievalSet reads the benchmark from a CUAD directory (CUADSpansFile,
// CUADDescriptionsFile and the CUADTextsDir directory).
func ReadRetrievalSet(dir string) (*RetrievalSet, error) {
	texts := filepath.Join(dir, CUADTextsDir)
	if !isDir(texts) {
		return nil, fmt.Errorf("CUAD texts: %s is not a directory", texts)
	}
	spans, err := ReadSpans(filepath.Join(dir, CUADSpansFile))
	if err != nil {
		return nil, err
	}
	queries, err := ReadCategoryQueries(filepath.Join(dir, CUADDescriptionsFile))
	if err != nil {
		return nil, err
	}
	return &RetrievalSet{TextsDir: texts, Spans: spans, Queries: queries}, nil
}

// ReadSpans reads CUAD span offsets, one JSON object per line with file,
// category, byte_start and byte_end. Categories are canonicalised
// (contract.ParseClauseType). Errors name the file, line and field.
func ReadSpans(path string) (map[string]map[string][]Span, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("spans: %w", err)
	}
	defer f.Close()
	out := map[string]map[string][]Span{}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for line := 1; sc.Scan(); line++ {
		if strings.TrimSpace(sc.Text()) == "" {
			continue
		}
		var r struct {
			File      string `json:"file"`
			Category  string `json:"category"`
			ByteStart *int   `json:"byte_start"`
			ByteEnd   *int   `json:"byte_end"`
		}
		bad := func(field string, err error) error {
			return fmt.Errorf("spans: %s:%d: field %s: %w", path, line, field, err)
		}
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			return nil, fmt.Errorf("spans: %s:%d: %w", path, line, err)
		}
		switch {
		case r.File == "":
			return nil, bad("file", errors.New("missing"))
		case r.ByteStart == nil:
			return nil, bad("byte_start", errors.New("missing"))
		case r.ByteEnd == nil:
			return nil, bad("byte_end", errors.New("missing"))
		case *r.ByteStart < 0 || *r.ByteEnd <= *r.ByteStart:
			return nil, bad("byte_end", fmt.Errorf("span %d–%d is empty or negative", *r.ByteStart, *r.ByteEnd))
		}
		typ, _, err := contract.ParseClauseType(r.Category)
		if err != nil || contract.IsClauseGroup(typ) {
			return nil, bad("category", fmt.Errorf("%q is not one of CUAD's 41 categories", r.Category))
		}
		if out[r.File] == nil {
			out[r.File] = map[string][]Span{}
		}
		out[r.File][typ] = append(out[r.File][typ], Span{*r.ByteStart, *r.ByteEnd})
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("spans: %s: %w", path, err)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("spans: %s holds no span", path)
	}
	return out, nil
}

// ReadCategoryQueries reads CUAD's category_descriptions.csv into one query
// per canonical category: "Category: Description".
func ReadCategoryQueries(path string) (map[string]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("category descriptions: %w", err)
	}
	defer f.Close()
	r := csv.NewReader(bufio.NewReader(f))
	r.FieldsPerRecord = -1
	out := map[string]string{}
	for row := 0; ; row++ {
		rec, err := r.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("category descriptions: %s: %w", path, err)
		}
		if row == 0 {
			if len(rec) < 2 || !strings.HasPrefix(strings.TrimPrefix(rec[0], "\ufeff"), "Category") {
				return nil, fmt.Errorf("category descriptions: %s: row 1 (header): want Category and Description columns first, got %q", path, rec)
			}
			continue
		}
		if len(rec) < 2 {
			return nil, fmt.Errorf("category descriptions: %s: row %d: has %d columns, want Category and Description", path, row+1, len(rec))
		}
		cat := strings.TrimSpace(strings.TrimPrefix(rec[0], "Category:"))
		desc := strings.TrimSpace(strings.TrimPrefix(rec[1], "Description:"))
		// The descriptions and the spans spell some names differently
		// ("Cap on Liability", "Cap On Liability"): key by the canonical name.
		typ, _, err := contract.ParseClauseType(cat)
		if err != nil || contract.IsClauseGroup(typ) {
			return nil, fmt.Errorf("category descriptions: %s: row %d: field Category: %q is not one of CUAD's 41 categories", path, row+1, cat)
		}
		if desc == "" {
			return nil, fmt.Errorf("category descriptions: %s: row %d: field Description: empty", path, row+1)
		}
		out[typ] = cat + ": " + desc
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("category descriptions: %s holds no category", path)
	}
	return out, nil
}

// RetrievalOptions configures Retrieval.
type RetrievalOptions struct {
	// Files are the text file names to measure; nil means every file with
	// spans, in name order.
	Files []string
	// K is the rank cut-off of recall@k and MRR; 0 means 5.
	K int
	// Chunk bounds the chunks the texts are split into.
	Chunk retrieve.ChunkOptions
	// Embedder, when set, embeds every chunk and adds the hybrid method;
	// EmbedModel names it. An embedding failure ends the measurement with
	// an error: hybrid numbers are never silently BM25's.
	Embedder   llm.Embedder
	EmbedModel string
	// Variants are further methods measured beside BM25 (and hybrid): the
	// Searcher clause_search uses with other stages switched on.
	Variants []RetrievalVariant
	// Progress, when set, is called as contracts are stored and queries run.
	Progress func(RetrievalProgress)
	Logger   *slog.Logger
}

// RetrievalVariant is one more method to measure: a retrieve.Searcher with
// Options (Embedder and Model are filled in from RetrievalOptions when
// Hybrid is set, and cleared otherwise).
type RetrievalVariant struct {
	Name    string
	Hybrid  bool
	Options retrieve.Options
}

// RetrievalProgress reports Retrieval's advance.
type RetrievalProgress struct {
	Stage string // "store" (chunking and embedding) or "query"
	Done  int
	Total int
}

// MethodScore is one method's recall@k and MRR over a set of queries.
// A query is a hit when one of the first k passages overlaps (by byte
// offsets) a span of the query's category in the queried contract; MRR
// averages 1/rank of the first such passage, 0 when none of the first k is.
type MethodScore struct {
	Method  string  `json:"method"`
	Queries int     `json:"queries"`
	Hits    int     `json:"hits"`
	Recall  float64 `json:"recall_at_k"`
	MRR     float64 `json:"mrr"`
	rrSum   float64
}

func (m *MethodScore) add(rank int) {
	m.Queries++
	if rank > 0 {
		m.Hits++
		m.rrSum += 1 / float64(rank)
	}
}

func (m *MethodScore) finish() {
	m.Recall = ratio(m.Hits, m.Queries)
	if m.Queries > 0 {
		m.MRR = m.rrSum / float64(m.Queries)
	}
}

// CategoryRetrieval is one category's scores, one per method.
type CategoryRetrieval struct {
	Category string        `json:"category"`
	Queries  int           `json:"queries"`
	Methods  []MethodScore `json:"methods"`
}

// RetrievalReport is the outcome of Retrieval.
type RetrievalReport struct {
	K             int      `json:"k"`
	Contracts     int      `json:"contracts"`
	Chunks        int      `json:"chunks"`
	MaxChunkBytes int      `json:"max_chunk_bytes"`
	Queries       int      `json:"queries"`
	Methods       []string `json:"methods"`
	EmbedModel    string   `json:"embed_model,omitempty"`
	// EmbedUsage counts the tokens embedded: chunks and queries.
	EmbedUsage llm.Usage `json:"embed_usage"`
	// Overall covers every query; Clauses leaves out PreambleCategories.
	Overall    []MethodScore       `json:"overall"`
	Clauses    []MethodScore       `json:"clauses"`
	Categories []CategoryRetrieval `json:"categories"`

	StoreSeconds float64 `json:"store_seconds"`
	QuerySeconds float64 `json:"query_seconds"`
}

// embedBatch is how many chunk texts go into one embedding request.
const embedBatch = 64

// Retrieval measures clause_search on the set: each text is stored in
// store as a raw ingested document is (text and chunks, no clauses;
// embedded chunks with an embedder), then for each contract and each
// category annotated in it the category's query, scoped to that contract,
// is run through the store's BM25 search and, with an embedder, through
// the hybrid retrieve.Searcher that clause_search uses. store should be
// empty: contracts with the same ids are replaced.
func Retrieval(ctx context.Context, store graph.Store, set *RetrievalSet, opts RetrievalOptions) (*RetrievalReport, error) {
	if opts.K <= 0 {
		opts.K = 5
	}
	if opts.Chunk.Max <= 0 {
		opts.Chunk.Max = retrieve.DefaultMaxChunkBytes
	}
	progress := opts.Progress
	if progress == nil {
		progress = func(RetrievalProgress) {}
	}
	files := opts.Files
	if files == nil {
		for f := range set.Spans {
			files = append(files, f)
		}
		slices.Sort(files)
	}
	if len(files) == 0 {
		return nil, errors.New("retrieval: no contract to measure")
	}
	for _, f := range files {
		for cat := range set.Spans[f] {
			if _, ok := set.Queries[cat]; !ok {
				return nil, fmt.Errorf("retrieval: category %q of %s has no description to query with", cat, f)
			}
		}
	}
	rep := &RetrievalReport{K: opts.K, MaxChunkBytes: opts.Chunk.Max, Methods: []string{MethodBM25}, EmbedModel: opts.EmbedModel}
	// Every query is scoped to one contract, whose matching passages the
	// store ranks in full whatever the limit, so one store search per query
	// text serves every method (searchCache).
	cached := &searchCache{Store: store, hits: map[string][]graph.ClauseHit{}}
	searchers := map[string]*retrieve.Searcher{}
	var counting llm.Embedder
	if opts.Embedder != nil {
		counting = &countingEmbedder{e: opts.Embedder, usage: &rep.EmbedUsage}
		searcher := retrieve.New(cached, retrieve.Options{Embedder: counting, Model: opts.EmbedModel, Log: opts.Logger})
		if _, ok := store.(graph.VectorStore); !ok {
			return nil, errors.New("retrieval: the store cannot search vectors, so the hybrid method cannot be measured")
		}
		rep.Methods = append(rep.Methods, MethodHybrid)
		searchers[MethodHybrid] = searcher
	}
	for _, v := range opts.Variants {
		if v.Name == "" || slices.Contains(rep.Methods, v.Name) {
			return nil, fmt.Errorf("retrieval: variant %q: empty or repeated name", v.Name)
		}
		o := v.Options
		o.Embedder, o.Model, o.Log = nil, "", opts.Logger
		if v.Hybrid {
			if counting == nil {
				return nil, fmt.Errorf("retrieval: variant %s is hybrid but no embedder is configured", v.Name)
			}
			o.Embedder, o.Model = counting, opts.EmbedModel
		}
		rep.Methods = append(rep.Methods, v.Name)
		searchers[v.Name] = retrieve.New(cached, o)
	}

	started := time.Now()
	var batch []*contract.Contract
	put := func() error {
		if len(batch) == 0 {
			return nil
		}
		out, err := store.PutContracts(ctx, batch)
		if err != nil {
			return fmt.Errorf("retrieval: store contracts: %w", err)
		}
		for _, o := range out {
			if o.Status == graph.PutFailed {
				return fmt.Errorf("retrieval: store %s: %w", o.ID, o.Err)
			}
		}
		batch = batch[:0]
		return nil
	}
	for i, f := range files {
		data, err := os.ReadFile(filepath.Join(set.TextsDir, f))
		if err != nil {
			return nil, fmt.Errorf("retrieval: %w", err)
		}
		text := string(data)
		c := &contract.Contract{ID: textID(f), Text: text, Chunks: retrieve.Chunk(text, opts.Chunk)}
		rep.Chunks += len(c.Chunks)
		if opts.Embedder != nil {
			if err := embedChunks(ctx, opts.Embedder, opts.EmbedModel, c.Chunks, &rep.EmbedUsage); err != nil {
				return nil, fmt.Errorf("retrieval: %s: %w", f, err)
			}
		}
		batch = append(batch, c)
		if len(batch) == 50 {
			if err := put(); err != nil {
				return nil, err
			}
		}
		progress(RetrievalProgress{Stage: "store", Done: i + 1, Total: len(files)})
	}
	if err := put(); err != nil {
		return nil, err
	}
	rep.Contracts = len(files)
	rep.StoreSeconds = time.Since(started).Seconds()

	started = time.Now()
	total := 0
	for _, f := range files {
		total += len(set.Spans[f])
	}
	newScores := func() []MethodScore {
		ms := make([]MethodScore, len(rep.Methods))
		for i, m := range rep.Methods {
			ms[i].Method = m
		}
		return ms
	}
	overall, clauses := newScores(), newScores()
	perCat := map[string][]MethodScore{}
	done := 0
	for _, f := range files {
		id := textID(f)
		cats := make([]string, 0, len(set.Spans[f]))
		for cat := range set.Spans[f] {
			cats = append(cats, cat)
		}
		slices.Sort(cats)
		for _, cat := range cats {
			q := graph.ClauseQuery{Query: set.Queries[cat], Filter: graph.Filter{ContractIDs: []string{id}}, Limit: opts.K}
			if perCat[cat] == nil {
				perCat[cat] = newScores()
			}
			for i, m := range rep.Methods {
				var hits []graph.ClauseHit
				var err error
				if m == MethodBM25 {
					hits, err = cached.SearchClauses(ctx, q)
				} else {
					hits, err = searchers[m].Search(ctx, q)
				}
				if err != nil {
					return nil, fmt.Errorf("retrieval: %s query for %s / %s: %w", m, id, cat, err)
				}
				rank := firstOverlap(hits, set.Spans[f][cat], opts.K)
				overall[i].add(rank)
				perCat[cat][i].add(rank)
				if !slices.Contains(PreambleCategories, cat) {
					clauses[i].add(rank)
				}
			}
			rep.Queries++
			done++
			progress(RetrievalProgress{Stage: "query", Done: done, Total: total})
		}
	}
	for i := range overall {
		overall[i].finish()
		clauses[i].finish()
	}
	rep.Overall, rep.Clauses = overall, clauses
	for _, c := range contract.ClauseCategories {
		ms, ok := perCat[c.Name]
		if !ok {
			continue
		}
		for i := range ms {
			ms[i].finish()
		}
		rep.Categories = append(rep.Categories, CategoryRetrieval{Category: c.Name, Queries: ms[0].Queries, Methods: ms})
	}
	rep.QuerySeconds = time.Since(started).Seconds()
	return rep, nil
}

// searchCache answers SearchClauses for one-contract queries from one
// store search of graph.MaxClauseCandidates per query text (the store
// ranks all of a contract's matching passages anyway), cut to each
// query's limit. It is reset for each contract, whose queries all come
// together. Other methods go to the store.
type searchCache struct {
	graph.Store
	contract string
	hits     map[string][]graph.ClauseHit
}

func (c *searchCache) SearchClauses(ctx context.Context, q graph.ClauseQuery) ([]graph.ClauseHit, error) {
	if len(q.Filter.ContractIDs) != 1 || len(q.ClauseTypes) > 0 {
		return c.Store.SearchClauses(ctx, q)
	}
	limit, err := q.EffectiveLimit()
	if err != nil {
		return nil, err
	}
	if id := q.Filter.ContractIDs[0]; id != c.contract {
		c.contract, c.hits = id, map[string][]graph.ClauseHit{}
	}
	hits, ok := c.hits[q.Query]
	if !ok {
		wide := q
		wide.Limit = graph.MaxClauseCandidates
		if hits, err = c.Store.SearchClauses(ctx, wide); err != nil {
			return nil, err
		}
		c.hits[q.Query] = hits
	}
	return slices.Clone(hits[:min(limit, len(hits))]), nil
}

// SearchVectors passes the vector search through (the hybrid methods need
// the store's graph.VectorStore capability).
func (c *searchCache) SearchVectors(ctx context.Context, q graph.VectorQuery) ([]graph.ClauseHit, error) {
	vs, ok := c.Store.(graph.VectorStore)
	if !ok {
		return nil, errors.New("retrieval: the store cannot search vectors")
	}
	return vs.SearchVectors(ctx, q)
}

// textID is the contract id of a CUAD text file, as ingest derives it.
func textID(file string) string {
	return strings.TrimSpace(strings.TrimSuffix(file, filepath.Ext(file)))
}

// firstOverlap returns the 1-based rank of the first of the first k hits
// that overlaps a span, or 0.
func firstOverlap(hits []graph.ClauseHit, spans []Span, k int) int {
	for i, h := range hits {
		if i >= k {
			break
		}
		for _, s := range spans {
			if h.Start < s.End && s.Start < h.End {
				return i + 1
			}
		}
	}
	return 0
}

// embedChunks embeds chunks in batches, recording the model's name with
// each vector.
func embedChunks(ctx context.Context, e llm.Embedder, model string, chunks []contract.Chunk, usage *llm.Usage) error {
	for i := 0; i < len(chunks); i += embedBatch {
		part := chunks[i:min(i+embedBatch, len(chunks))]
		texts := make([]string, len(part))
		for j, ch := range part {
			texts[j] = ch.Text
		}
		vecs, u, err := e.Embed(ctx, texts)
		*usage = usage.Add(u)
		if err != nil {
			return fmt.Errorf("embed chunks: %w", err)
		}
		if len(vecs) != len(part) {
			return fmt.Errorf("embed chunks: %d vectors for %d texts", len(vecs), len(part))
		}
		for j := range part {
			part[j].Embedding, part[j].EmbeddingModel = vecs[j], model
		}
	}
	return nil
}

// countingEmbedder adds the query embeddings' usage to the report's.
type countingEmbedder struct {
	e     llm.Embedder
	usage *llm.Usage
}

func (c *countingEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, llm.Usage, error) {
	v, u, err := c.e.Embed(ctx, texts)
	*c.usage = c.usage.Add(u)
	return v, u, err
}

// retrievalHeadline is the report's summary line.
func retrievalHeadline(rep *RetrievalReport) string {
	var parts []string
	for _, m := range rep.Overall {
		parts = append(parts, fmt.Sprintf("%s recall@%d %.3f, MRR %.3f", m.Method, rep.K, m.Recall, m.MRR))
	}
	return fmt.Sprintf("Clause search on %d CUAD contracts (%d chunks, max %d bytes), %d queries: %s",
		rep.Contracts, rep.Chunks, rep.MaxChunkBytes, rep.Queries, strings.Join(parts, "; "))
}

// retrievalDocument lays out the report for every rendering.
func retrievalDocument(rep *RetrievalReport) document {
	d := document{Title: "Clause search on CUAD"}
	intro := section{Paras: []string{retrievalHeadline(rep) + "."}}
	for _, m := range rep.Clauses {
		intro.Paras = append(intro.Paras, fmt.Sprintf("Without the %d preamble categories (%s): %s recall@%d %.3f, MRR %.3f over %d queries.",
			len(PreambleCategories), strings.Join(PreambleCategories, ", "), m.Method, rep.K, m.Recall, m.MRR, m.Queries))
	}
	if rep.EmbedModel != "" {
		intro.Paras = append(intro.Paras, fmt.Sprintf("Embedding model %s: %d tokens embedded.", rep.EmbedModel, rep.EmbedUsage.InputTokens))
	}
	intro.Paras = append(intro.Paras, fmt.Sprintf("Stored in %.1f s, queried in %.1f s.", rep.StoreSeconds, rep.QuerySeconds))
	header := []string{"category", "queries"}
	for _, m := range rep.Methods {
		header = append(header, fmt.Sprintf("%s recall@%d", m, rep.K), m+" MRR")
	}
	row := func(name string, ms []MethodScore) []string {
		q := 0
		if len(ms) > 0 {
			q = ms[0].Queries
		}
		r := []string{name, fmt.Sprint(q)}
		for _, m := range ms {
			r = append(r, fmt.Sprintf("%.3f", m.Recall), fmt.Sprintf("%.3f", m.MRR))
		}
		return r
	}
	per := section{Title: "Per category", Header: header}
	for _, c := range rep.Categories {
		per.Rows = append(per.Rows, row(c.Category, c.Methods))
	}
	scope := append([]string{"scope"}, header[1:]...)
	overall := section{Header: scope, NoText: true, Rows: [][]string{row("all categories", rep.Overall), row("without the preamble categories", rep.Clauses)}}
	d.Sections = append(d.Sections, intro, overall, per)
	return d
}

// WriteRetrievalText writes the report as plain text with aligned tables.
func WriteRetrievalText(w io.Writer, rep *RetrievalReport) error {
	return retrievalDocument(rep).writeText(w)
}

// WriteRetrievalMarkdown writes the report as Markdown.
func WriteRetrievalMarkdown(w io.Writer, rep *RetrievalReport) error {
	return retrievalDocument(rep).writeMarkdown(w)
}

// WriteRetrievalHTML writes the report as a self-contained HTML page.
func WriteRetrievalHTML(w io.Writer, rep *RetrievalReport) error {
	return retrievalDocument(rep).writeHTML(w)
}
