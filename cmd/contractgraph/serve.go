package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/contractgraph/contractgraph/internal/agent"
	"github.com/contractgraph/contractgraph/internal/extract"
	"github.com/contractgraph/contractgraph/internal/graph"
	"github.com/contractgraph/contractgraph/internal/httpapi"
	"github.com/contractgraph/contractgraph/internal/ingest"
	"github.com/contractgraph/contractgraph/internal/llm"
)

// serveOptions are the flags of serve; demo uses them too.
type serveOptions struct {
	addr       string
	corsOrigin string
	uploadDir  string
	// secureCookies marks the session cookie Secure behind a
	// TLS-terminating proxy, where requests arrive as plain HTTP.
	secureCookies bool
	// create makes a new, empty embedded database where none exists.
	create bool
	// limits overrides the admission limits, "class=concurrency[/queue[/wait]],...".
	limits string
	// practices are the chat's defaults for the agent's optional
	// practices; each request may switch them.
	practices agent.Options
	// playbook is the file GET /api/contracts/{id}/playbook checks
	// against; "" is the example playbook.
	playbook string
}

func newServeCmd(a *app) *cobra.Command {
	var opts serveOptions
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Serve the web app, the HTTP API and streamed answers",
		Long: "Serve the web app (dashboard, contracts browser, contract pages, graph view, chat, upload) and\n" +
			"the JSON API (described at /api/openapi.json) until interrupted.\n\n" +
			"The chat, the upload and the risk review need a model (--model or CONTRACTGRAPH_MODEL); without\n" +
			"one the server runs and the chat page says how to configure it. On an address other than loopback the\n" +
			"server requires a bearer token, taken from CONTRACTGRAPH_TOKEN, and refuses to start without one.\n\n" +
			"Like every other command, serve refuses a database file that does not exist (so that a mistyped\n" +
			"--db is not served as an empty graph); --create starts a new, empty one there.",
		Example: `  contractgraph --db contractgraph-demo.db serve
  contractgraph serve --model ollama:qwen2.5:7b --addr 127.0.0.1:9000
  contractgraph --db new.db serve --create --model openai:gpt-4o-mini   # start empty, upload documents
  CONTRACTGRAPH_TOKEN=$(openssl rand -hex 16) contractgraph serve --addr 0.0.0.0:8080`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx := cmd.Context()
			if !opts.create {
				if err := a.checkDBExists(); err != nil {
					var nd noDatabaseError
					if errors.As(err, &nd) {
						nd.also = "pass --create to serve a new, empty database there"
						return usageError(nd)
					}
					return err
				}
			}
			ln, err := a.listenHTTP(opts.addr)
			if err != nil {
				return err
			}
			store, err := a.openStore(ctx)
			if err != nil {
				ln.Close()
				return err
			}
			defer store.Close()
			return a.serveOn(ctx, ln, store, opts)
		},
	}
	f := cmd.Flags()
	f.StringVar(&opts.addr, "addr", "127.0.0.1:8080", "address to listen on (host:port; port 0 picks a free one)")
	f.StringVar(&opts.corsOrigin, "cors-origin", "", "let web pages from this origin (e.g. https://intranet.example.com) call the API; off by default")
	f.StringVar(&opts.limits, "limits", "", "admission limits per class of request, as class=concurrency[/queue[/wait]],... with classes lookup, query, text (full-text and vector search), model (ask, upload, risk); e.g. text=2/64/10s. A request that finds its class full gets 503 with Retry-After")
	f.BoolVar(&opts.secureCookies, "secure-cookies", false, "mark the sign-in cookie Secure even on plain HTTP (behind a TLS-terminating proxy); it always is over TLS")
	f.BoolVar(&opts.create, "create", false, "create an empty database at --db if there is none (otherwise a missing database is an error)")
	f.StringVar(&opts.playbook, "playbook", "", "playbook file (YAML or JSON) that GET /api/contracts/{id}/playbook checks against (default: the example playbook for commercial agreements)")
	f.StringVar(&opts.uploadDir, "upload-dir", "", "where uploaded documents are kept (default: contractgraph-uploads beside the database)")
	registerPractices(cmd, &opts.practices)
	return cmd
}

// listenHTTP opens the listener first, so that a bad or busy address is
// reported before anything else starts, and a non-loopback address without
// a token is refused as a usage error.
func (a *app) listenHTTP(addr string) (net.Listener, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, usageError(fmt.Errorf("--addr %s: %w", addr, err))
	}
	if tcp, ok := ln.Addr().(*net.TCPAddr); ok && !tcp.IP.IsLoopback() && os.Getenv("CONTRACTGRAPH_TOKEN") == "" {
		ln.Close()
		return nil, usageError(fmt.Errorf("--addr %s: %w (or listen on 127.0.0.1)", addr, httpapi.ErrTokenRequired))
	}
	return ln, nil
}

// serveOn serves the web app and API for store on ln until ctx ends,
// printing the URL first.
func (a *app) serveOn(ctx context.Context, ln net.Listener, store graph.Store, opts serveOptions) error {
	srv, err := a.newHTTPServer(ctx, store, opts)
	if err != nil {
		ln.Close()
		return err
	}
	fmt.Fprintf(a.stdout, "ContractGraph is serving on %s (Ctrl+C stops it)\n", serverURL(ln.Addr()))
	err = srv.Serve(ctx, ln)
	if errors.Is(err, httpapi.ErrTokenRequired) {
		return usageError(err)
	}
	return err
}

// startServer starts the web app for store on a free loopback port in the
// background and returns its URL; wait blocks until the server has shut
// down after ctx ends. demo uses it.
func (a *app) startServer(ctx context.Context, store graph.Store) (url string, wait func() error, err error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", nil, fmt.Errorf("listen on a loopback port: %w", err)
	}
	srv, err := a.newHTTPServer(ctx, store, serveOptions{})
	if err != nil {
		ln.Close()
		return "", nil, err
	}
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ctx, ln) }()
	return serverURL(ln.Addr()), func() error { return <-done }, nil
}

func serverURL(addr net.Addr) string {
	if tcp, ok := addr.(*net.TCPAddr); ok && tcp.IP.IsUnspecified() {
		return fmt.Sprintf("http://localhost:%d/", tcp.Port)
	}
	return "http://" + addr.String() + "/"
}

// newHTTPServer wires the server: the shared tool set over store, the agent
// when a model is configured (without one the chat page explains how to
// set it), and document upload through the ingestion pipeline.
func (a *app) newHTTPServer(ctx context.Context, store graph.Store, opts serveOptions) (*httpapi.Server, error) {
	set, err := a.newToolSet(ctx, store)
	if err != nil {
		return nil, err
	}
	cfg := httpapi.Config{
		Store:         store,
		Tools:         set,
		Log:           a.log,
		Token:         os.Getenv("CONTRACTGRAPH_TOKEN"),
		CORSOrigin:    opts.corsOrigin,
		SecureCookies: opts.secureCookies,
	}
	if cfg.Playbook, err = loadPlaybook(opts.playbook); err != nil {
		return nil, err
	}
	limits, err := httpapi.ParseLimits(opts.limits, httpapi.DefaultLimits(runtime.GOMAXPROCS(0)))
	if err != nil {
		return nil, usageError(fmt.Errorf("--limits: %w", err))
	}
	cfg.Limits = limits
	model, err := a.openModel(ctx)
	switch {
	case errors.Is(err, llm.ErrNoModel) && strings.TrimSpace(a.cfg.Model) == "":
		fmt.Fprintln(a.stderr, "note: no chat model configured; the chat, the upload and the risk review are off (set --model or CONTRACTGRAPH_MODEL)")
	case err != nil:
		return nil, usageError(err)
	default:
		cfg.Agent = &agent.Agent{Model: model, Tools: set, Temperature: a.agentTemperature(), Log: a.log}
		cfg.AskOptions = opts.practices
		cfg.ModelName = a.cfg.Model
		cfg.ExplainError = a.explainModelError
		ing, err := a.newUploadIngester(ctx, store, model, opts.uploadDir)
		if err != nil {
			return nil, err
		}
		cfg.Ingester = ing
		// The risk review cites from the store's statutes (httpapi finds
		// them); an embedding model makes its statute search hybrid.
		deps, err := a.riskDeps(ctx, model, nil)
		if err != nil {
			return nil, err
		}
		cfg.Risk = &deps
	}
	srv, err := httpapi.New(cfg)
	if errors.Is(err, httpapi.ErrBadCORSOrigin) {
		return nil, usageError(fmt.Errorf("--cors-origin: %w", err))
	}
	return srv, err
}

// uploadIngester runs uploaded documents through the ingestion pipeline.
// Each upload is kept in its own directory under dir, so the stored
// contracts' source paths stay valid and re-uploading an unchanged file
// costs no model call. Only the files stored as contracts stay: a failed
// file, or one unchanged since an earlier upload (whose copy the contract
// keeps pointing at), is removed, and so is a directory left empty.
type uploadIngester struct {
	dir         string
	newPipeline func(progress func(ingest.Progress)) *ingest.Pipeline
}

func (a *app) newUploadIngester(ctx context.Context, store graph.Store, model llm.Model, dir string) (*uploadIngester, error) {
	if dir == "" {
		dir = filepath.Join(filepath.Dir(a.cfg.DB), "contractgraph-uploads")
	}
	// Uploads are extracted as `ingest` would with its defaults: a local
	// server gets its context size, the clauses in a call of their own and
	// one file at a time; every document has the default time budget.
	opts, err := a.extractOptions(ingestFlags{docBudget: defaultDocBudget})
	if err != nil {
		return nil, err
	}
	ext, err := extract.New(model, opts)
	if err != nil {
		return nil, err
	}
	concurrency := 0
	if isLocalModel(a.cfg.Model) {
		concurrency = 1
	}
	var embedder llm.Embedder
	if strings.TrimSpace(a.cfg.EmbedModel) != "" {
		if embedder, err = a.openEmbedder(ctx); err != nil {
			return nil, usageError(err)
		}
	}
	loader := ingest.NewLoader(loaderOptions())
	return &uploadIngester{
		dir: dir,
		newPipeline: func(progress func(ingest.Progress)) *ingest.Pipeline {
			return ingest.NewPipeline(loader, ext, store, ingest.Options{
				Model:       a.cfg.Model,
				Concurrency: concurrency,
				Embedder:    embedder,
				Resolve:     true,
				Progress:    progress,
				Logger:      a.log,
			})
		},
	}, nil
}

// Ingest implements httpapi.Ingester.
func (u *uploadIngester) Ingest(ctx context.Context, files []httpapi.UploadedFile, progress func(httpapi.IngestEvent)) error {
	suffix := make([]byte, 4)
	rand.Read(suffix)
	dir := filepath.Join(u.dir, time.Now().UTC().Format("20060102T150405Z")+"-"+hex.EncodeToString(suffix))
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("keep uploads: %w", err)
	}
	kept := map[string]bool{} // the paths stored as contracts
	defer func() {
		for _, f := range files {
			if p := filepath.Join(dir, filepath.Base(f.Name)); !kept[p] {
				os.Remove(p)
			}
		}
		os.Remove(dir) // only when empty
	}()
	paths := make([]string, 0, len(files))
	for _, f := range files {
		// httpapi hands over base names only; Base again so that no name
		// can ever leave dir.
		p := filepath.Join(dir, filepath.Base(f.Name))
		if err := os.WriteFile(p, f.Data, 0o600); err != nil {
			return fmt.Errorf("keep upload %s: %w", f.Name, err)
		}
		paths = append(paths, p)
		progress(httpapi.IngestEvent{File: f.Name, Stage: "queued"})
	}
	p := u.newPipeline(func(pr ingest.Progress) {
		ev := httpapi.IngestEvent{File: filepath.Base(pr.Last.Path), ContractID: pr.Last.ContractID, Message: pr.Last.Error}
		switch pr.Last.Status {
		case ingest.StatusOK:
			kept[pr.Last.Path] = true
			ev.Stage = httpapi.StageOK
		case ingest.StatusUnchanged:
			ev.Stage = httpapi.StageSkipped
			ev.Message = "unchanged since it was last ingested"
		default:
			ev.Stage = httpapi.StageFailed
		}
		progress(ev)
	})
	_, err := p.Run(ctx, paths)
	return err
}

// serveDemo serves the web app for the demo store on a free loopback port,
// prints its URL and returns when ctx ends (Ctrl+C).
func (a *app) serveDemo(ctx context.Context, store graph.Store) error {
	url, wait, err := a.startServer(ctx, store)
	if err != nil {
		return err
	}
	fmt.Fprintf(a.stdout, "\nThe web app is running on %s (dashboard, contracts, graph, chat) until you press Ctrl+C.\n", url)
	return wait()
}
