package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/contractgraph/contractgraph/internal/extract"
	"github.com/contractgraph/contractgraph/internal/graph"
	"github.com/contractgraph/contractgraph/internal/ingest"
	"github.com/contractgraph/contractgraph/internal/llm"
	"github.com/contractgraph/contractgraph/internal/resolve"
	"github.com/contractgraph/contractgraph/internal/retrieve"
)

// ingestFlags are the options of `contractgraph ingest`.
type ingestFlags struct {
	concurrency   int
	force         bool
	rpm, tpm      int
	contextTokens int
	maxChunk      int
	maxBytes      int64
	maxTextBytes  int
	maxCalls      int
	noResolve     bool
	threshold     float64
	// clauseCalls is auto, one or two (see clauseMode); "" is auto.
	clauseCalls string
	// docBudget bounds one document's repair rounds and follow-up calls;
	// 0 means none.
	docBudget time.Duration
	// ocr is auto, always or never; ocrLang Tesseract's languages.
	ocr, ocrLang string
}

func newIngestCmd(a *app) *cobra.Command {
	var f ingestFlags
	cmd := &cobra.Command{
		Use:   "ingest PATH...",
		Short: "Extract raw contracts (PDF, DOCX, HTML, TXT, MD, scans) into the graph with an LLM",
		Long: `Ingest loads documents (directories are walked), extracts each with the
chat model (--model) into the typed contract schema with verbatim evidence,
chunks the text for clause search (embedding the chunks when --embed-model is
set), writes each contract atomically and finally resolves duplicate parties.

Scans are recognised with Tesseract (OCR): a PDF page without a usable text
layer, and PNG, JPEG and TIFF files. --ocr always recognises every PDF page,
--ocr never none; --ocr-lang names Tesseract's languages (eng, eng+deu; each
needs its package, such as tesseract-ocr-deu). The stored text is built from
the recognised words, so clause and evidence offsets point into it as for any
document, and each recognised word keeps its page and box for the contract
page's scan view. Pages recognised with a low confidence are listed in the
summary. Without Tesseract a scanned file fails with the command that
installs it, and the other files go on.

A file whose bytes and model are unchanged since it was last ingested is not
sent to the model again, so an interrupted run resumes where it stopped.
The exit status is 1 when any file failed.`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.runIngest(cmd, args, f)
		},
	}
	fl := cmd.Flags()
	fl.IntVar(&f.concurrency, "concurrency", 4, "files processed at once (1 for a local server unless given: it serves one request at a time)")
	fl.BoolVar(&f.force, "force", false, "extract again even files whose stored contract is up to date")
	fl.IntVar(&f.rpm, "rpm", 0, "model requests per minute (0: unlimited)")
	fl.IntVar(&f.tpm, "tpm", 0, "model tokens per minute, estimated (0: unlimited)")
	fl.IntVar(&f.contextTokens, "context-tokens", 0, "the model's context window; longer documents are extracted in parts (0: 32768 for a local server, 100000 otherwise)")
	fl.StringVar(&f.clauseCalls, "clause-calls", "auto", "ask for the clauses in the same call as the facts (one), in a call of their own (two), or auto: two for a local server, otherwise one with a focused follow-up when the reply is cut off")
	fl.DurationVar(&f.docBudget, "doc-budget", defaultDocBudget, "time one document may take before its repair rounds and follow-up calls are skipped, keeping what validated (0: none)")
	fl.IntVar(&f.maxChunk, "max-chunk", retrieve.DefaultMaxChunkBytes, "largest chunk for clause search, in bytes")
	fl.Int64Var(&f.maxBytes, "max-file-size", ingest.DefaultMaxBytes, "largest file accepted, in bytes")
	fl.IntVar(&f.maxTextBytes, "max-text-bytes", ingest.DefaultMaxTextBytes, "most text extracted from one file, in bytes; a file with more fails before any model call")
	fl.IntVar(&f.maxCalls, "max-model-calls", extract.DefaultMaxCalls, "most model calls for one file, repairs included; a file that needs more fails before any call")
	fl.StringVar(&f.ocr, "ocr", "auto", "recognise scanned pages with Tesseract: auto (pages without a text layer, and images), always (every PDF page) or never")
	fl.StringVar(&f.ocrLang, "ocr-lang", "eng", "Tesseract languages, joined by + (eng+deu); each needs its tesseract-ocr-LANG package")
	fl.BoolVar(&f.noResolve, "no-resolve", false, "skip entity resolution after the batch")
	fl.Float64Var(&f.threshold, "threshold", resolve.DefaultThreshold, "entity resolution merge threshold")
	return cmd
}

func (a *app) runIngest(cmd *cobra.Command, args []string, f ingestFlags) error {
	ctx := cmd.Context()
	if !cmd.Flags().Changed("concurrency") && isLocalModel(a.cfg.Model) {
		// A local server such as llama-server -np 1 queues the other
		// requests, and their wait would count against their timeouts.
		f.concurrency = 1
	}
	switch {
	case f.concurrency < 1 || f.concurrency > 64:
		return usageError(fmt.Errorf("--concurrency %d: must be between 1 and 64", f.concurrency))
	case f.rpm < 0 || f.tpm < 0:
		return usageError(errors.New("--rpm and --tpm must not be negative"))
	case f.threshold <= 0 || f.threshold > 1:
		return usageError(fmt.Errorf("--threshold %g: must be in (0, 1]", f.threshold))
	case !ingest.ValidOCRLang(f.ocrLang):
		return usageError(fmt.Errorf("--ocr-lang %q: want Tesseract language codes joined by +, such as eng or eng+deu", f.ocrLang))
	}
	if _, err := ingest.ParseOCRMode(f.ocr); err != nil {
		return usageError(fmt.Errorf("--ocr: %w", err))
	}
	for _, p := range args {
		if _, err := os.Stat(p); err != nil {
			return usageError(fmt.Errorf("%s: %w", p, err))
		}
	}
	w, err := a.openIngestWiring(ctx, f)
	if err != nil {
		return err
	}
	store, err := a.openStore(ctx)
	if err != nil {
		return err
	}
	defer store.Close()

	bar := newIngestBar(a.stderr, a.cfg.JSON)
	extracting, recognising := bar.extracting, bar.recognising
	w.progress.Store(&extracting)
	w.ocrProgress.Store(&recognising)
	p := a.newIngestPipeline(w, store, f, bar.update)
	sum, runErr := p.Run(ctx, args)
	bar.clear()
	if sum == nil {
		return a.explainModelError(runErr)
	}
	if a.cfg.JSON {
		enc := json.NewEncoder(a.stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(sum); err != nil {
			return err
		}
	} else {
		printIngestSummary(a.stdout, sum)
	}
	if runErr != nil {
		return runErr
	}
	if sum.Failed > 0 {
		return silentExit(1)
	}
	return nil
}

// ingestWiring is what `ingest` and `eval extraction` share ahead of the
// store: the extractor over the rate-limited model, and the embedder.
type ingestWiring struct {
	ext      *extract.Extractor
	embedder llm.Embedder // nil without --embed-model
	// progress receives the extractor's progress once a command sets it.
	progress atomic.Pointer[func(extract.Progress)]
	// ocrProgress receives the loader's OCR progress once a command sets it.
	ocrProgress atomic.Pointer[func(path string, done, total int)]
}

// openIngestWiring opens the model (and embedder) and builds the
// extractor; a missing or malformed model name is a usage error.
func (a *app) openIngestWiring(ctx context.Context, f ingestFlags) (*ingestWiring, error) {
	model, err := a.openModel(ctx)
	if err != nil {
		return nil, usageError(err)
	}
	w := &ingestWiring{}
	if strings.TrimSpace(a.cfg.EmbedModel) != "" {
		if w.embedder, err = a.openEmbedder(ctx); err != nil {
			return nil, usageError(err)
		}
	}
	opts, err := a.extractOptions(f)
	if err != nil {
		return nil, err
	}
	opts.Progress = func(p extract.Progress) {
		if fn := w.progress.Load(); fn != nil {
			(*fn)(p)
		}
	}
	if w.ext, err = extract.New(ingest.NewRateLimitedModel(model, f.rpm, f.tpm), opts); err != nil {
		return nil, err
	}
	return w, nil
}

// defaultDocBudget is --doc-budget's default: the time one document may
// take before its optional calls are skipped.
const defaultDocBudget = 30 * time.Minute

// extractOptions resolves the extraction flags for --model. A local
// server (see isLocalModel) is assumed to have a 32k context and gets the
// clauses in a call of their own: a small model on a CPU writes a long
// one-call reply slowly and fills a long clause list with one sentence.
func (a *app) extractOptions(f ingestFlags) (extract.Options, error) {
	local := isLocalModel(a.cfg.Model)
	opts := extract.Options{ContextTokens: f.contextTokens, Budget: f.docBudget, MaxCalls: f.maxCalls, Logger: a.log}
	switch {
	case f.maxCalls < 0:
		return opts, usageError(fmt.Errorf("--max-model-calls %d: must not be negative", f.maxCalls))
	case f.maxTextBytes < 0:
		return opts, usageError(fmt.Errorf("--max-text-bytes %d: must not be negative", f.maxTextBytes))
	case f.contextTokens < 0:
		return opts, usageError(fmt.Errorf("--context-tokens %d: must not be negative", f.contextTokens))
	case f.docBudget < 0:
		return opts, usageError(fmt.Errorf("--doc-budget %s: must not be negative", f.docBudget))
	case f.contextTokens == 0 && local:
		opts.ContextTokens = extract.LocalContextTokens
	case f.contextTokens == 0:
		opts.ContextTokens = extract.DefaultContextTokens
	}
	switch strings.ToLower(strings.TrimSpace(f.clauseCalls)) {
	case "", "auto":
		if local {
			opts.Clauses = extract.ClausesSeparate
		}
	case "one", "1":
		opts.Clauses = extract.ClausesAuto
	case "two", "2":
		opts.Clauses = extract.ClausesSeparate
	default:
		return opts, usageError(fmt.Errorf("--clause-calls %q: want auto, one or two", f.clauseCalls))
	}
	return opts, nil
}

// newIngestPipeline is the ingestion pipeline over w writing to store.
func (a *app) newIngestPipeline(w *ingestWiring, store graph.Store, f ingestFlags, progress func(ingest.Progress)) *ingest.Pipeline {
	opts := loaderOptions()
	opts.MaxBytes, opts.MaxTextBytes, opts.OCRLang = f.maxBytes, f.maxTextBytes, f.ocrLang
	opts.OCR, _ = ingest.ParseOCRMode(f.ocr) // validated by runIngest
	opts.OCRProgress = func(path string, done, total int) {
		if fn := w.ocrProgress.Load(); fn != nil {
			(*fn)(path, done, total)
		}
	}
	loader := ingest.NewLoader(opts)
	return ingest.NewPipeline(loader, w.ext, store, ingest.Options{
		Model:            a.cfg.Model,
		Concurrency:      f.concurrency,
		Force:            f.force,
		Chunk:            retrieve.ChunkOptions{Max: f.maxChunk},
		Embedder:         w.embedder,
		EmbedModel:       a.cfg.EmbedModel,
		Resolve:          !f.noResolve,
		ResolveThreshold: f.threshold,
		Progress:         progress,
		Logger:           a.log,
	})
}

// loaderOptions finds the programs the loader runs: poppler's pdftotext
// and pdftoppm, and Tesseract.
func loaderOptions() ingest.LoaderOptions {
	return ingest.LoaderOptions{PDFToText: ingest.FindPDFToText(), PDFToPPM: ingest.FindPDFToPPM(), Tesseract: ingest.FindTesseract()}
}

func printIngestSummary(w io.Writer, sum *ingest.Summary) {
	for _, r := range sum.Files {
		switch r.Status {
		case ingest.StatusFailed:
			fmt.Fprintf(w, "failed:    %s\n", ingestFailure(r))
		case ingest.StatusSkipped:
			fmt.Fprintf(w, "skipped:   %s: %s\n", r.Path, r.Error)
		}
		if o := r.OCR; o != nil {
			fmt.Fprintf(w, "ocr:       %s: %s recognised, confidence %.0f%%", r.Path, pageList(o.Pages), o.Confidence)
			if len(o.LowConfidence) > 0 {
				low := make([]int, len(o.LowConfidence))
				for i, lc := range o.LowConfidence {
					low[i] = lc.Page
				}
				fmt.Fprintf(w, "; low confidence on %s", pageList(low))
			}
			fmt.Fprintln(w)
		}
		for _, warn := range r.Warnings {
			fmt.Fprintf(w, "warning:   %s: %s\n", r.ContractID, warn)
		}
	}
	fmt.Fprintf(w, "ok %d, unchanged %d, failed %d, skipped %d; tokens %d in, %d out", sum.OK, sum.Unchanged, sum.Failed, sum.Skipped, sum.Usage.InputTokens, sum.Usage.OutputTokens)
	if sum.Embedding.InputTokens > 0 {
		fmt.Fprintf(w, ", %d embedded", sum.Embedding.InputTokens)
	}
	fmt.Fprintf(w, "; %s\n", sum.Elapsed.Round(time.Millisecond))
	if r := sum.Resolve; r != nil && len(r.Merges) > 0 {
		n := 0
		for _, m := range r.Merges {
			n += len(m.Others)
		}
		fmt.Fprintf(w, "entity resolution merged %d parties into %d\n", n, len(r.Merges))
	}
}

// ingestFailure says why a file failed, naming the file (a model's error
// does not) and the flag that raises a limit it hit.
func ingestFailure(r ingest.FileResult) string {
	msg := r.Error
	if !strings.HasPrefix(msg, r.Path+": ") {
		msg = r.Path + ": " + msg
	}
	switch {
	case errors.Is(r.Err(), ingest.ErrTextTooLarge):
		msg += " (--max-text-bytes raises it)"
	case errors.Is(r.Err(), extract.ErrTooManyCalls):
		msg += " (--max-model-calls raises it)"
	case errors.Is(r.Err(), ingest.ErrNeedsOCR) && strings.Contains(msg, "turned off"):
		msg += " (--ocr auto recognises scanned pages)"
	}
	return msg
}

// pageList writes pages 1, 2, 3 and 5 as "pages 1-3, 5".
func pageList(pages []int) string {
	var parts []string
	for i := 0; i < len(pages); {
		j := i
		for j+1 < len(pages) && pages[j+1] == pages[j]+1 {
			j++
		}
		if j > i {
			parts = append(parts, fmt.Sprintf("%d-%d", pages[i], pages[j]))
		} else {
			parts = append(parts, fmt.Sprint(pages[i]))
		}
		i = j + 1
	}
	word := "pages "
	if len(pages) == 1 {
		word = "page "
	}
	return word + strings.Join(parts, ", ")
}

// ingestBar draws "[=====>    ] 12/40  ETA 3m10s  tokens 120k in 8k out  name"
// on a terminal; elsewhere it draws nothing. While a reply streams in, the
// name gives way to what is being written ("name: clauses 2.1 KB").
type ingestBar struct {
	w       io.Writer
	enabled bool
	width   int
	mu      sync.Mutex
	drawn   bool
	last    ingest.Progress // the latest file outcome
	drawnAt time.Time       // when extraction progress was last drawn
}

func newIngestBar(w io.Writer, quiet bool) *ingestBar {
	b := &ingestBar{w: w, width: 80}
	if f, ok := w.(*os.File); ok && !quiet && term.IsTerminal(int(f.Fd())) {
		b.enabled = true
		if width, _, err := term.GetSize(int(f.Fd())); err == nil && width > 30 {
			b.width = width
		}
	}
	return b
}

func (b *ingestBar) update(p ingest.Progress) {
	if !b.enabled {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.last = p
	fmt.Fprint(b.w, "\r"+renderIngestBar(b.width, p))
	b.drawn = true
}

// extracting shows a streaming reply's progress, at most four times a
// second: on a small local model one document takes minutes.
func (b *ingestBar) extracting(e extract.Progress) {
	if !b.enabled {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if time.Since(b.drawnAt) < 250*time.Millisecond {
		return
	}
	b.drawnAt = time.Now()
	p := b.last
	p.Last.ContractID = extractingLabel(e)
	fmt.Fprint(b.w, "\r"+renderIngestBar(b.width, p))
	b.drawn = true
}

// recognising shows OCR's progress through a scan's pages: "lease: OCR
// page 3/12".
func (b *ingestBar) recognising(path string, done, total int) {
	if !b.enabled {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	p := b.last
	base := filepath.Base(path)
	p.Last.ContractID = fmt.Sprintf("%s: OCR page %d/%d", strings.TrimSuffix(base, filepath.Ext(base)), min(done+1, total), total)
	fmt.Fprint(b.w, "\r"+renderIngestBar(b.width, p))
	b.drawn = true
}

// extractingLabel says what a streaming reply is: "lease: clauses 2.1 KB"
// (with the part when a document has several).
func extractingLabel(e extract.Progress) string {
	part := ""
	if e.Parts > 1 {
		part = fmt.Sprintf(" part %d/%d", e.Part, e.Parts)
	}
	return fmt.Sprintf("%s:%s %s %s", e.ContractID, part, e.Step, humanBytes(e.Bytes))
}

// humanBytes writes 2150 as 2.1 KB.
func humanBytes(n int) string {
	if n < 1024 {
		return fmt.Sprintf("%d B", n)
	}
	return fmt.Sprintf("%.1f KB", float64(n)/1024)
}

func (b *ingestBar) clear() {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.enabled && b.drawn {
		fmt.Fprint(b.w, "\r"+strings.Repeat(" ", b.width-1)+"\r")
	}
}

// renderIngestBar lays out one progress line in width columns. The ETA
// extrapolates the mean time per finished file.
func renderIngestBar(width int, p ingest.Progress) string {
	eta := "--"
	if p.Done > 0 && p.Done < p.Total {
		per := p.Elapsed / time.Duration(p.Done)
		eta = (per * time.Duration(p.Total-p.Done)).Round(time.Second).String()
	} else if p.Done >= p.Total {
		eta = "0s"
	}
	tail := fmt.Sprintf(" %d/%d  ETA %s  tokens %s in %s out  ", p.Done, p.Total, eta, humanCount(p.Usage.InputTokens), humanCount(p.Usage.OutputTokens))
	barW := max(10, min(30, width/4))
	pct := 0.0
	if p.Total > 0 {
		pct = float64(p.Done) / float64(p.Total)
	}
	fill := int(pct * float64(barW))
	bar := strings.Repeat("=", fill)
	if fill < barW {
		bar += ">" + strings.Repeat(" ", barW-fill-1)
	}
	name := p.Last.ContractID
	room := width - 1 - (barW + 2) - len(tail)
	if r := []rune(name); room > 3 && len(r) > room {
		name = string(r[:room-1]) + "…"
	} else if room <= 3 {
		name = ""
	}
	return "[" + bar + "]" + tail + name
}

// humanCount writes 1234567 as 1.2M and 12345 as 12.3k.
func humanCount(n int) string {
	switch {
	case n >= 1_000_000:
		return fmt.Sprintf("%.1fM", float64(n)/1e6)
	case n >= 1_000:
		return fmt.Sprintf("%.1fk", float64(n)/1e3)
	}
	return fmt.Sprint(n)
}
