package ingest

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/contractgraph/contractgraph/internal/contract"
	"github.com/contractgraph/contractgraph/internal/extract"
	"github.com/contractgraph/contractgraph/internal/graph"
	"github.com/contractgraph/contractgraph/internal/llm"
	"github.com/contractgraph/contractgraph/internal/resolve"
	"github.com/contractgraph/contractgraph/internal/retrieve"
)

// Extractor extracts one document; *extract.Extractor is the implementation.
type Extractor interface {
	Extract(ctx context.Context, id, text string) (*extract.Result, error)
}

// Status is what happened to one file.
type Status string

// File outcomes.
const (
	StatusOK        Status = "ok"        // extracted and written
	StatusUnchanged Status = "unchanged" // same bytes and model as the stored contract: no model call
	StatusFailed    Status = "failed"    // could not be loaded, extracted or written; nothing was written
	StatusSkipped   Status = "skipped"   // unsupported file type found while walking a directory
)

// FileResult is one file's outcome.
type FileResult struct {
	Path       string    `json:"path"`
	ContractID string    `json:"contract_id,omitempty"`
	Status     Status    `json:"status"`
	Error      string    `json:"error,omitempty"`
	Usage      llm.Usage `json:"usage"`
	EmbedUsage llm.Usage `json:"embedding_usage"`
	Calls      int       `json:"model_calls"`
	Warnings   []string  `json:"warnings,omitempty"`
	// OCR says which pages were recognised and which of them have a low
	// confidence; nil for a file without recognised pages.
	OCR *OCRReport `json:"ocr,omitempty"`
	err error
}

// Err returns the error of a failed or skipped file.
func (r *FileResult) Err() error { return r.err }

// Summary is a batch's outcome.
type Summary struct {
	Files     []FileResult    `json:"files"`
	OK        int             `json:"ok"`
	Unchanged int             `json:"unchanged"`
	Failed    int             `json:"failed"`
	Skipped   int             `json:"skipped"`
	Usage     llm.Usage       `json:"usage"`
	Embedding llm.Usage       `json:"embedding_usage"`
	Resolve   *resolve.Report `json:"resolve,omitempty"`
	Elapsed   time.Duration   `json:"elapsed_ns"`
}

// Progress is reported after each file.
type Progress struct {
	Done, Total int
	Last        FileResult
	Usage       llm.Usage // so far, all files
	Elapsed     time.Duration
}

// Options configures a Pipeline.
type Options struct {
	// Model is the extraction model's name (provider:model). With the
	// file's SHA-256 it decides whether a stored contract is up to date, and
	// it is recorded as the contract's extracted_by.
	Model string
	// Concurrency is how many files are processed at once; 0 means 4.
	Concurrency int
	// Force re-extracts files whose stored contract is up to date.
	Force bool
	// Chunk bounds chunk sizes.
	Chunk retrieve.ChunkOptions
	// Embedder, when set, embeds the chunks of every extracted contract;
	// EmbedModel names it in logs. Contracts skipped as unchanged keep the
	// chunks they were stored with; Force re-ingests them.
	Embedder   llm.Embedder
	EmbedModel string
	// Resolve runs entity resolution after a batch that wrote contracts,
	// with ResolveThreshold (0: the default) when the store supports it.
	Resolve          bool
	ResolveThreshold float64
	// Progress, when set, is called after each file, from one goroutine
	// at a time.
	Progress func(Progress)
	Logger   *slog.Logger
	// Now stamps extracted_at; time.Now when nil.
	Now func() time.Time
}

// Pipeline ingests documents into a store.
type Pipeline struct {
	loader *Loader
	ext    Extractor
	store  graph.Store
	opts   Options
	log    *slog.Logger
}

// NewPipeline returns a pipeline loading with loader, extracting with ext
// and writing to store.
func NewPipeline(loader *Loader, ext Extractor, store graph.Store, opts Options) *Pipeline {
	if opts.Concurrency <= 0 {
		opts.Concurrency = 4
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Pipeline{loader: loader, ext: ext, store: store, opts: opts, log: log}
}

// Run ingests the files under paths. Every file gets a result; a file's
// failure never stops the batch and never leaves part of its contract
// written. The error is for the batch as a whole: a path that does not
// exist, or a cancelled context (the files already finished stay written,
// so running again resumes where this run stopped).
func (p *Pipeline) Run(ctx context.Context, paths []string) (*Summary, error) {
	start := time.Now()
	files, skipped, err := Walk(paths)
	if err != nil {
		return nil, fmt.Errorf("ingest: %w", err)
	}
	explicit := map[string]bool{}
	for _, path := range paths {
		explicit[path] = true
	}
	sum := &Summary{}
	var mu sync.Mutex
	record := func(r FileResult) {
		mu.Lock()
		defer mu.Unlock()
		sum.Files = append(sum.Files, r)
		switch r.Status {
		case StatusOK:
			sum.OK++
		case StatusUnchanged:
			sum.Unchanged++
		case StatusFailed:
			sum.Failed++
		case StatusSkipped:
			sum.Skipped++
		}
		sum.Usage = sum.Usage.Add(r.Usage)
		sum.Embedding = sum.Embedding.Add(r.EmbedUsage)
		if p.opts.Progress != nil && r.Status != StatusSkipped {
			p.opts.Progress(Progress{Done: sum.OK + sum.Unchanged + sum.Failed, Total: len(files), Last: r, Usage: sum.Usage, Elapsed: time.Since(start)})
		}
	}
	for _, s := range skipped {
		r := FileResult{Path: s.Path, Status: StatusSkipped, Error: s.Err.Error(), err: s}
		if explicit[s.Path] {
			// A file named on the command line that cannot be read fails.
			r.Status = StatusFailed
		}
		record(r)
	}

	// Two files with the same stem would be the same contract.
	owner := map[string]string{}
	var todo []string
	for _, f := range files {
		id := stem(f)
		if prev, dup := owner[id]; dup {
			record(failed(f, id, fmt.Errorf("contract id %q is already taken by %s in this batch; rename one of the files", id, prev)))
			continue
		}
		owner[id] = f
		todo = append(todo, f)
	}

	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(p.opts.Concurrency)
	for _, f := range todo {
		if gctx.Err() != nil {
			break
		}
		g.Go(func() error {
			r := p.one(gctx, f)
			if gctx.Err() != nil && r.Status == StatusFailed {
				// Interrupted, not failed: the next run does this file.
				return gctx.Err()
			}
			record(r)
			return nil
		})
	}
	err = g.Wait()
	finish := func() {
		slices.SortFunc(sum.Files, func(a, b FileResult) int { return strings.Compare(a.Path, b.Path) })
		sum.Elapsed = time.Since(start)
	}
	if err != nil || ctx.Err() != nil {
		finish()
		if err == nil {
			err = ctx.Err()
		}
		return sum, fmt.Errorf("ingest interrupted after %d of %d files: %w", sum.OK+sum.Unchanged+sum.Failed, len(files), err)
	}
	if p.opts.Resolve && sum.OK > 0 {
		rep, err := resolve.Run(ctx, p.store, resolve.Options{Threshold: p.opts.ResolveThreshold, Logger: p.log})
		switch {
		case errors.Is(err, resolve.ErrUnsupported):
			p.log.Info("entity resolution skipped", "reason", err)
		case err != nil:
			finish()
			return sum, fmt.Errorf("ingest: %w", err)
		default:
			sum.Resolve = rep
		}
	}
	finish()
	return sum, nil
}

func failed(path, id string, err error) FileResult {
	return FileResult{Path: path, ContractID: id, Status: StatusFailed, Error: err.Error(), err: err}
}

// one ingests one file.
func (p *Pipeline) one(ctx context.Context, path string) FileResult {
	log := p.log.With("file", path)
	if r, ok := p.unchangedScan(ctx, path); ok {
		log.Debug("unchanged, not recognised or extracted again")
		return r
	}
	doc, err := p.loader.Load(ctx, path)
	if err != nil {
		return failed(path, stem(path), err)
	}
	r := FileResult{Path: path, ContractID: doc.ID, OCR: doc.OCR}
	if !p.opts.Force {
		stored, err := p.store.GetContract(ctx, doc.ID)
		switch {
		case err == nil && stored.SHA256 == doc.SHA256 && stored.ExtractedBy == p.opts.Model:
			r.Status = StatusUnchanged
			log.Debug("unchanged, not extracted again")
			return r
		case err == nil && stored.SHA256 != doc.SHA256 && stored.SourcePath != "" && stored.SourcePath != absPath(path):
			log.Warn("replacing a contract with the same id from another file", "id", doc.ID, "previous", stored.SourcePath)
		case err != nil && !errors.Is(err, graph.ErrNotFound):
			return failed(path, doc.ID, fmt.Errorf("read stored contract: %w", err))
		}
	}
	res, err := p.ext.Extract(ctx, doc.ID, doc.Text)
	if res != nil {
		r.Usage, r.Calls = res.Usage, res.Calls
	}
	if err != nil {
		f := failed(path, doc.ID, err)
		f.Usage, f.Calls = r.Usage, r.Calls
		return f
	}
	c := res.Contract
	r.Warnings = res.Warnings
	c.ID = doc.ID
	c.SourcePath = absPath(path)
	c.SHA256 = doc.SHA256
	c.ExtractedBy = p.opts.Model
	c.ExtractedAt = p.opts.Now().UTC().Format(time.RFC3339)
	c.Chunks = retrieve.Chunk(doc.Text, p.opts.Chunk)
	if p.opts.Embedder != nil {
		u, err := p.embed(ctx, c.Chunks)
		r.EmbedUsage = u
		if err != nil {
			f := failed(path, doc.ID, err)
			f.Usage, f.Calls, f.EmbedUsage = r.Usage, r.Calls, r.EmbedUsage
			return f
		}
	}
	out, err := p.store.PutContracts(ctx, []*contract.Contract{c})
	if err == nil && len(out) == 1 && out[0].Status == graph.PutFailed {
		err = out[0].Err
	}
	if err != nil {
		f := failed(path, doc.ID, fmt.Errorf("write contract: %w", err))
		f.Usage, f.Calls = r.Usage, r.Calls
		return f
	}
	r.Warnings = append(r.Warnings, p.putPages(ctx, doc)...)
	r.Status = StatusOK
	log.Debug("ingested", "chunks", len(c.Chunks), "clauses", len(c.Clauses), "calls", r.Calls, "embed_model", p.opts.EmbedModel)
	return r
}

// unchangedScan reports a PDF or image whose stored contract has the
// same bytes and model as unchanged before loading it, which for a scan
// would mean minutes of OCR for nothing.
func (p *Pipeline) unchangedScan(ctx context.Context, path string) (FileResult, bool) {
	if p.opts.Force {
		return FileResult{}, false
	}
	if f := Formats[strings.ToLower(filepath.Ext(path))]; f != "pdf" && f != "image" {
		return FileResult{}, false
	}
	id := stem(path)
	stored, err := p.store.GetContract(ctx, id)
	if err != nil || stored.ExtractedBy != p.opts.Model || stored.SHA256 == "" {
		return FileResult{}, false
	}
	sum, err := fileSHA256(path, p.loader.maxBytes)
	if err != nil || sum != stored.SHA256 {
		return FileResult{}, false
	}
	return FileResult{Path: path, ContractID: id, Status: StatusUnchanged}, true
}

// putPages stores the pages of a document read page by page (and clears
// those of an earlier version otherwise) when the store keeps pages, and
// returns warnings: the pages OCR read with a low confidence, pages that
// could not be stored. The contract is written by then; its page view is
// what a failure here loses.
func (p *Pipeline) putPages(ctx context.Context, doc *Document) []string {
	var warns []string
	if doc.OCR != nil {
		for _, lc := range doc.OCR.LowConfidence {
			warns = append(warns, fmt.Sprintf("page %d: OCR confidence %.0f%% is under %.0f%%; check its text", lc.Page, lc.Confidence, doc.OCR.MinConfidence))
		}
	}
	ps, ok := p.store.(graph.PageStore)
	if !ok {
		if doc.OCR != nil {
			warns = append(warns, "this store keeps no page images: the contract page shows the recognised text without the scan")
		}
		return warns
	}
	if err := ps.PutPages(ctx, graph.ContractPages{ContractID: doc.ID, SHA256: doc.SHA256, Pages: doc.Pages}); err != nil {
		warns = append(warns, fmt.Sprintf("page images not stored: %v", err))
	}
	return warns
}

// embedBatch is how many chunks go into one embedding request.
const embedBatch = 64

func (p *Pipeline) embed(ctx context.Context, chunks []contract.Chunk) (llm.Usage, error) {
	var total llm.Usage
	for i := 0; i < len(chunks); i += embedBatch {
		batch := chunks[i:min(i+embedBatch, len(chunks))]
		texts := make([]string, len(batch))
		for j, ch := range batch {
			texts[j] = ch.Text
		}
		vecs, u, err := p.opts.Embedder.Embed(ctx, texts)
		total = total.Add(u)
		if err != nil {
			return total, fmt.Errorf("embed chunks: %w", err)
		}
		if len(vecs) != len(batch) {
			return total, fmt.Errorf("embed chunks: %d vectors for %d texts", len(vecs), len(batch))
		}
		for j := range batch {
			batch[j].Embedding, batch[j].EmbeddingModel = vecs[j], p.opts.EmbedModel
		}
	}
	return total, nil
}

func absPath(p string) string {
	if a, err := filepath.Abs(p); err == nil {
		return a
	}
	return p
}
