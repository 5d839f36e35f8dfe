package mcpserver

import (
	"context"
	"crypto/subtle"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// ErrTokenRequired is returned by ServeHTTP for a listener on a non-loopback
// address without a token.
var ErrTokenRequired = errors.New("a token is required to serve MCP on a non-loopback address: set CONTRACTGRAPH_TOKEN")

// HTTPHandler serves s over the streamable HTTP transport. With a token,
// every request needs "Authorization: Bearer TOKEN". The SDK itself rejects
// requests to a loopback listener that name a foreign Host (DNS rebinding).
func HTTPHandler(s *mcp.Server, token string, log *slog.Logger) http.Handler {
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, &mcp.StreamableHTTPOptions{
		Logger:         log,
		SessionTimeout: 30 * time.Minute,
	})
	if token == "" {
		return h
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		if !ok || subtle.ConstantTimeCompare([]byte(strings.TrimSpace(got)), []byte(token)) != 1 {
			w.Header().Set("WWW-Authenticate", `Bearer realm="contractgraph"`)
			http.Error(w, "missing or wrong token: send Authorization: Bearer <CONTRACTGRAPH_TOKEN>", http.StatusUnauthorized)
			return
		}
		h.ServeHTTP(w, r)
	})
}

// ServeHTTP serves s on ln (at any path) until ctx is cancelled, then shuts
// down within 10 s. It refuses a non-loopback listener without a token.
// The write timeout is off because MCP streams stay open; the header read
// timeout and the session timeout bound idle clients. ServeHTTP closes ln.
func ServeHTTP(ctx context.Context, ln net.Listener, s *mcp.Server, token string, log *slog.Logger) error {
	if tcp, ok := ln.Addr().(*net.TCPAddr); ok && !tcp.IP.IsLoopback() && token == "" {
		ln.Close()
		return fmt.Errorf("serve MCP on %s: %w", ln.Addr(), ErrTokenRequired)
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	srv := &http.Server{
		Handler:           HTTPHandler(s, token, log),
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       2 * time.Minute,
		MaxHeaderBytes:    64 << 10,
		ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelWarn),
	}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return fmt.Errorf("serve MCP: %w", err)
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil {
		srv.Close()
		return fmt.Errorf("shutdown MCP server: %w", err)
	}
	if err := <-errc; err != nil && !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("serve MCP: %w", err)
	}
	return nil
}
