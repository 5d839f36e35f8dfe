// Package httpapi is ContractGraph's HTTP server: the JSON API over the typed
// tools and the store, the agent's answers streamed as server-sent events,
// document upload and the risk review with streamed progress, the OpenAPI
// document, and the web app's pages (rendered by package web).
//
// Handlers are methods on Server, whose dependencies are fields set from
// Config; routing is the standard library's ServeMux with method patterns;
// middleware is func(http.Handler) http.Handler. Errors leave the server in
// one JSON shape, {"error":{"code","message","field"}}, produced by
// writeError from the error's type (see errorFor).
package httpapi

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/contractgraph/contractgraph/internal/agent"
	"github.com/contractgraph/contractgraph/internal/graph"
	"github.com/contractgraph/contractgraph/internal/llm"
	"github.com/contractgraph/contractgraph/internal/playbook"
	"github.com/contractgraph/contractgraph/internal/risk"
	"github.com/contractgraph/contractgraph/internal/tools"
	"github.com/contractgraph/contractgraph/internal/web"
)

// ToolSet is the typed tools, as *tools.Set provides them.
type ToolSet interface {
	// Tools lists the tools with their descriptions and input schemas.
	Tools() []tools.Tool
	// Call runs a tool on JSON arguments and returns its JSON result.
	// Invalid arguments are *tools.ArgError, an unknown name
	// tools.ErrUnknownTool, a missing contract graph.ErrNotFound.
	Call(ctx context.Context, name string, args json.RawMessage) (json.RawMessage, error)
}

// Asker answers questions, as *agent.Agent does.
type Asker interface {
	// RunWith answers question in the conversation history with the
	// optional practices opts switches on, calling emit with each event as
	// it happens (emit may be called from several goroutines, never
	// concurrently). It returns when the run ends; an error means the run
	// failed or ctx was cancelled.
	RunWith(ctx context.Context, history []llm.Message, question string, opts agent.Options, emit func(agent.Event)) (*agent.Answer, error)
}

// Config is what a Server needs. Store and Tools are required; everything
// else has a default or disables a feature when unset.
type Config struct {
	Store graph.Store
	Tools ToolSet
	// Agent answers /api/ask. Nil means no model is configured: /api/ask
	// answers 503 and the chat page explains how to configure one.
	Agent Asker
	// AskOptions are the agent's practices (rewrite, critic, sufficiency
	// check) for an /api/ask request that does not set them, and the chat
	// page's toggles' initial state.
	AskOptions agent.Options
	// ModelName is shown on the chat page, e.g. "ollama:qwen2.5:7b".
	ModelName string
	// ExplainError, when set, rewrites a failed run's error into advice for
	// the person asking (e.g. which server could not be reached and which
	// variable moves it); it returns err itself when it has none.
	ExplainError func(error) error
	// Risk runs /api/risk/{id}: the risk pipeline's collaborators. Nil (or
	// a nil Model) means no model is configured: /api/risk answers 503 and
	// the risk page explains how to configure one. Clauses defaults to
	// Store, Statutes to Store when it is a graph.StatuteStore, Log to Log.
	Risk *risk.Deps
	// RiskTimeout bounds one risk review; default DefaultRiskTimeout.
	RiskTimeout time.Duration
	// Playbook is what GET /api/contracts/{id}/playbook checks contracts
	// against; nil means the example playbook for commercial agreements.
	Playbook *playbook.Playbook
	// Ingester stores uploaded documents. Nil disables /api/ingest (503).
	Ingester Ingester
	// Log receives one line per request and every internal error. Nil
	// discards.
	Log *slog.Logger
	// Now is the server's clock: the dashboard's "expiring soon", session
	// expiry and the sign-in rate limit. Nil means time.Now.
	Now func() time.Time
	// Token, when set, is required as "Authorization: Bearer TOKEN" (or the
	// session cookie the login page sets) on every route but /healthz and
	// the static files. Serve refuses a non-loopback listener without one.
	Token string
	// SecureCookies marks the session cookie Secure on every response, not
	// only on requests that arrived over TLS: for a TLS-terminating proxy
	// in front of a plain-HTTP server.
	SecureCookies bool
	// CORSOrigin, when set, is the one origin allowed to call the API from a
	// browser page it serves (e.g. https://intranet.example.com). Empty
	// means no cross-origin access.
	CORSOrigin string
	// MaxBodyBytes bounds JSON request bodies; default 1 MiB.
	MaxBodyBytes int64
	// MaxUploadBytes bounds one /api/ingest upload; default 64 MiB.
	MaxUploadBytes int64
	// AskTimeout bounds one agent run; default 5 minutes.
	AskTimeout time.Duration
	// ReadTimeout and WriteTimeout bound reading a request and writing a
	// response (defaults 5 minutes and 2 minutes). Event streams lift both
	// once the request body is read.
	ReadTimeout, WriteTimeout time.Duration
	// Limits bound each class of requests (see Class); a class missing
	// from the map gets DefaultLimits(GOMAXPROCS).
	Limits map[Class]Limit
}

// Defaults of Config's limits.
const (
	DefaultMaxBodyBytes   = 1 << 20
	DefaultMaxUploadBytes = 64 << 20
	DefaultAskTimeout     = 5 * time.Minute
)

// Server is the HTTP server. Create it with New.
type Server struct {
	store     graph.Store
	admission *admission
	// The OpenAPI document, built from openapi.json and the tool schemas
	// on first request.
	openAPIOnce  sync.Once
	openAPIDoc   []byte
	openAPIErr   error
	tools        ToolSet
	agent        Asker
	askOptions   agent.Options
	modelName    string
	explainError func(error) error
	ingester     Ingester
	risk         *risk.Deps
	riskTimeout  time.Duration
	playbook     *playbook.Playbook
	log          *slog.Logger
	now          func() time.Time
	token        string
	corsOrigin   string
	maxBody      int64
	maxUpload    int64
	askTimeout   time.Duration
	readTO       time.Duration
	writeTO      time.Duration
	pages        *web.Renderer
	handler      http.Handler

	// secureCookies, sessions and logins are the web sign-in's; see
	// auth.go.
	secureCookies bool
	sessions      *sessionStore
	logins        *loginLimiter

	// shutdown is closed when Serve shuts down, so that long-lived event
	// streams end instead of holding the shutdown up.
	shutdown     chan struct{}
	shutdownOnce sync.Once
}

// New checks cfg and builds the server's routes.
func New(cfg Config) (*Server, error) {
	if cfg.Store == nil || cfg.Tools == nil {
		return nil, errors.New("httpapi: Store and Tools are required")
	}
	if cfg.CORSOrigin != "" {
		if err := http.NewCrossOriginProtection().AddTrustedOrigin(cfg.CORSOrigin); err != nil {
			return nil, fmt.Errorf("%w %q: want scheme://host[:port], e.g. https://intranet.example.com", ErrBadCORSOrigin, cfg.CORSOrigin)
		}
	}
	pages, err := web.NewRenderer(web.RendererOptions{SignOut: cfg.Token != ""})
	if err != nil {
		return nil, fmt.Errorf("httpapi: %w", err)
	}
	s := &Server{
		store: cfg.Store, tools: cfg.Tools, agent: cfg.Agent, askOptions: cfg.AskOptions, modelName: cfg.ModelName, explainError: cfg.ExplainError, ingester: cfg.Ingester,
		log: cfg.Log, now: cfg.Now, token: cfg.Token, corsOrigin: cfg.CORSOrigin,
		maxBody: cfg.MaxBodyBytes, maxUpload: cfg.MaxUploadBytes, askTimeout: cfg.AskTimeout, pages: pages,
		risk: cfg.Risk, riskTimeout: cmp.Or(cfg.RiskTimeout, DefaultRiskTimeout), playbook: cfg.Playbook,
	}
	if s.playbook == nil {
		if s.playbook, err = playbook.ParseExample(); err != nil {
			return nil, fmt.Errorf("httpapi: %w", err)
		}
	}
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	if s.now == nil {
		s.now = time.Now
	}
	s.secureCookies = cfg.SecureCookies
	s.sessions = newSessionStore(s.now, maxSessions)
	s.logins = newLoginLimiter(s.now)
	if s.maxBody <= 0 {
		s.maxBody = DefaultMaxBodyBytes
	}
	if s.maxUpload <= 0 {
		s.maxUpload = DefaultMaxUploadBytes
	}
	if s.askTimeout <= 0 {
		s.askTimeout = DefaultAskTimeout
	}
	s.readTO, s.writeTO = cmp.Or(cfg.ReadTimeout, defaultReadTimeout), cmp.Or(cfg.WriteTimeout, defaultWriteTimeout)
	s.shutdown = make(chan struct{})
	s.admission = newAdmission(cfg.Limits)
	s.handler = s.middleware(s.routes())
	return s, nil
}

// route is one entry of the routing table. The OpenAPI test checks that
// every API route is documented.
type route struct {
	method, pattern string
	handler         http.HandlerFunc
}

func (s *Server) routeTable() []route {
	lookup, query, model := fixed(ClassLookup), fixed(ClassQuery), fixed(ClassModel)
	return []route{
		{"GET", "/healthz", s.handleHealth},
		{"GET", "/api/openapi.json", s.admit(lookup, s.handleOpenAPI)},
		{"GET", "/api/tools", s.admit(lookup, s.handleListTools)},
		{"POST", "/api/tools/{name}", s.admit(toolClass, s.handleCallTool)},
		{"GET", "/api/contracts", s.admit(query, s.handleSearchContracts)},
		{"GET", "/api/contracts/{id}", s.admit(lookup, s.handleGetContract)},
		{"DELETE", "/api/contracts/{id}", s.admit(query, s.handleDeleteContract)},
		{"GET", "/api/contracts/{id}/graph", s.admit(lookup, s.handleContractGraph)},
		{"GET", "/api/contracts/{id}/family", s.admit(lookup, s.handleContractFamily)},
		{"GET", "/api/contracts/{id}/playbook", s.admit(lookup, s.handlePlaybook)},
		{"GET", "/api/parties/{id}/graph", s.admit(lookup, s.handlePartyGraph)},
		{"GET", "/api/aggregate", s.admit(query, s.handleAggregate)},
		{"GET", "/api/deadlines", s.admit(query, s.handleDeadlines)},
		{"GET", "/api/compare", s.admit(query, s.handleCompare)},
		{"GET", "/api/deadlines.ics", s.admit(query, s.handleDeadlinesICS)},
		{"POST", "/api/ask", s.admit(model, s.handleAsk)},
		{"POST", "/api/ingest", s.admit(model, s.handleIngest)},
		{"POST", "/api/risk/{id}", s.admit(model, s.handleRisk)},

		{"GET", "/{$}", s.admit(query, s.pageDashboard)},
		{"GET", "/contracts", s.admit(query, s.pageContracts)},
		{"GET", "/contracts/{id}", s.admit(lookup, s.pageContract)},
		{"GET", "/contracts/{id}/graph", s.admit(lookup, s.pageContractGraph)},
		{"GET", "/contracts/{id}/diff/{other}", s.admit(lookup, s.pageDiff)},
		{"GET", "/contracts/{id}/risk", s.admit(lookup, s.pageRisk)},
		{"GET", "/compare", s.admit(query, s.pageCompare)},
		{"GET", "/contracts/{id}/pages/{page}", s.admit(lookup, s.pagePageImage)},
		{"GET", "/parties/{id}/graph", s.admit(lookup, s.pagePartyGraph)},
		{"GET", "/chat", s.admit(lookup, s.pageChat)},
		{"GET", "/upload", s.admit(lookup, s.pageUpload)},
		{"GET", "/login", s.pageLogin},
		{"POST", "/login", s.handleLogin},
		{"POST", "/logout", s.handleLogout},
	}
}

func (s *Server) routes() http.Handler {
	mux := http.NewServeMux()
	for _, rt := range s.routeTable() {
		mux.HandleFunc(rt.method+" "+rt.pattern, rt.handler)
	}
	mux.Handle("GET /static/", web.Static())
	// Unrouted API requests get a JSON error: 405 when the path exists
	// with other methods, else 404.
	mux.HandleFunc("/api/", func(w http.ResponseWriter, r *http.Request) {
		var allowed []string
		for _, m := range []string{http.MethodGet, http.MethodPost, http.MethodDelete} {
			probe := r.Clone(r.Context())
			probe.Method = m
			if _, pattern := mux.Handler(probe); pattern != "/api/" && pattern != "" {
				allowed = append(allowed, m)
			}
		}
		if len(allowed) > 0 {
			w.Header().Set("Allow", strings.Join(allowed, ", "))
			writeError(w, http.StatusMethodNotAllowed, &apiError{Code: "method_not_allowed", Message: fmt.Sprintf("%s %s: use %s", r.Method, r.URL.Path, strings.Join(allowed, " or "))})
			return
		}
		writeError(w, http.StatusNotFound, &apiError{Code: codeNotFound, Message: fmt.Sprintf("no API route %s %s; see /api/openapi.json", r.Method, r.URL.Path)})
	})
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		s.renderError(w, r, http.StatusNotFound, "Not found", "There is no page at "+r.URL.Path+".")
	})
	return mux
}

// Handler returns the server's HTTP handler with all middleware applied.
func (s *Server) Handler() http.Handler { return s.handler }

// Server timeouts. Event-stream handlers lift the read and write deadlines
// for their own connection once the request body has been read.
const (
	readHeaderTimeout   = 10 * time.Second
	defaultReadTimeout  = 5 * time.Minute // long enough for a large upload
	defaultWriteTimeout = 2 * time.Minute
	idleTimeout         = 2 * time.Minute
	shutdownGrace       = 10 * time.Second
	maxHeaderBytes      = 64 << 10
)

// ErrBadCORSOrigin is returned by New for a CORS origin that is not a
// bare scheme://host[:port].
var ErrBadCORSOrigin = errors.New("invalid CORS origin")

// ErrTokenRequired is returned by Serve for a listener on a non-loopback
// address when no token is configured.
var ErrTokenRequired = errors.New("a token is required to serve on a non-loopback address: set CONTRACTGRAPH_TOKEN")

// Serve serves HTTP on ln until ctx is cancelled, then shuts down
// gracefully: it stops accepting connections, ends open event streams and
// waits up to 10 s for requests in flight. It refuses to serve on a
// non-loopback address without a token. Serve closes ln.
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	if !isLoopbackAddr(ln.Addr()) && s.token == "" {
		ln.Close()
		return fmt.Errorf("serve on %s: %w", ln.Addr(), ErrTokenRequired)
	}
	srv := &http.Server{
		Handler:           s.handler,
		ReadHeaderTimeout: readHeaderTimeout,
		ReadTimeout:       s.readTO,
		WriteTimeout:      s.writeTO,
		IdleTimeout:       idleTimeout,
		MaxHeaderBytes:    maxHeaderBytes,
		ErrorLog:          slog.NewLogLogger(s.log.Handler(), slog.LevelWarn),
	}
	srv.RegisterOnShutdown(func() { s.shutdownOnce.Do(func() { close(s.shutdown) }) })
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return fmt.Errorf("serve: %w", err)
	case <-ctx.Done():
	}
	shutdownCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), shutdownGrace)
	defer cancel()
	if err := srv.Shutdown(shutdownCtx); err != nil {
		srv.Close()
		return fmt.Errorf("shutdown: %w", err)
	}
	if err := <-errc; err != nil && !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("serve: %w", err)
	}
	return nil
}

// streamContext is the context of an event stream: the request's, bounded
// by timeout (none when 0), and cancelled when the server shuts down.
func (s *Server) streamContext(r *http.Request, timeout time.Duration) (context.Context, context.CancelFunc) {
	var ctx context.Context
	var cancel context.CancelFunc
	if timeout > 0 {
		ctx, cancel = context.WithTimeout(r.Context(), timeout)
	} else {
		ctx, cancel = context.WithCancel(r.Context())
	}
	go func() {
		select {
		case <-s.shutdown:
			cancel()
		case <-ctx.Done():
		}
	}()
	return ctx, cancel
}

// isLoopbackAddr reports whether a listener address is on a loopback
// interface only (127.0.0.0/8 or ::1). Unspecified addresses (0.0.0.0, ::)
// listen on every interface and are not loopback.
func isLoopbackAddr(a net.Addr) bool {
	switch a := a.(type) {
	case *net.TCPAddr:
		return a.IP.IsLoopback()
	case *net.UnixAddr:
		return true
	}
	host, _, err := net.SplitHostPort(a.String())
	if err != nil {
		return false
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

func (s *Server) handleHealth(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, map[string]string{"status": "ok"})
}
