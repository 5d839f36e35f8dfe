package main

import (
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/spf13/cobra"

	"github.com/contractgraph/contractgraph/internal/agent"
	"github.com/contractgraph/contractgraph/internal/llm"
	"github.com/contractgraph/contractgraph/internal/mcpserver"
)

func newMCPCmd(a *app) *cobra.Command {
	var httpAddr string
	var practices agent.Options
	cmd := &cobra.Command{
		Use:   "mcp",
		Short: "Serve the typed tools and contract texts to MCP clients (stdio or streamable HTTP)",
		Long: "Run a Model Context Protocol server over the graph: every typed tool with its JSON Schema\n" +
			"(" + servedToolsHelp() + ")\n" +
			"and each contract's text as a resource contractgraph://contracts/{id}. With a model (--model or\n" +
			"CONTRACTGRAPH_MODEL) it also offers the ask tool: ContractGraph's own agent, whose calls may switch\n" +
			"rewrite, critic and check (defaults: the flags below).\n\n" +
			"By default it speaks MCP on stdin/stdout, for clients that start it as a subprocess. With\n" +
			"--http ADDR it serves the streamable HTTP transport instead; on a non-loopback address it\n" +
			"requires the bearer token in CONTRACTGRAPH_TOKEN.",
		Example: `  contractgraph --db contracts.db mcp
  contractgraph --db contracts.db mcp --http 127.0.0.1:8090`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx := cmd.Context()
			token := os.Getenv("CONTRACTGRAPH_TOKEN")
			var ln net.Listener
			if httpAddr != "" {
				l, err := net.Listen("tcp", httpAddr)
				if err != nil {
					return usageError(fmt.Errorf("--http %s: %w", httpAddr, err))
				}
				if tcp, ok := l.Addr().(*net.TCPAddr); ok && !tcp.IP.IsLoopback() && token == "" {
					l.Close()
					return usageError(fmt.Errorf("--http %s: %w", httpAddr, mcpserver.ErrTokenRequired))
				}
				ln = l
			}
			store, err := a.openExistingStore(ctx)
			if err != nil {
				if ln != nil {
					ln.Close()
				}
				return err
			}
			defer store.Close()
			set, err := a.newListedToolSet(ctx, store)
			if err != nil {
				return err
			}
			opts := mcpserver.Options{Log: a.log, AskOptions: practices}
			model, err := a.openModel(ctx)
			switch {
			case errors.Is(err, llm.ErrNoModel) && strings.TrimSpace(a.cfg.Model) == "":
				// No model: the typed tools only.
			case err != nil:
				return usageError(err)
			default:
				// The ask tool returns the whole answer, so nothing is
				// streamed (and servers that stream badly are spared).
				opts.Asker = &agent.Agent{Model: model, Tools: set, NoStream: true, Temperature: a.agentTemperature(), Log: a.log}
			}
			srv := mcpserver.New(set, store, opts)
			if ln != nil {
				fmt.Fprintf(a.stderr, "ContractGraph MCP server on %s (streamable HTTP)\n", serverURL(ln.Addr()))
				return mcpserver.ServeHTTP(ctx, ln, srv, token, a.log)
			}
			// stdout carries the protocol; nothing else may be written there.
			err = srv.Run(ctx, &mcp.IOTransport{Reader: io.NopCloser(a.stdin), Writer: nopWriteCloser{a.stdout}})
			if ctx.Err() != nil {
				return nil // interrupted: a normal way for a stdio server to end
			}
			return err
		},
	}
	cmd.Flags().StringVar(&httpAddr, "http", "", "serve streamable HTTP on this address (host:port) instead of stdio")
	registerPractices(cmd, &practices)
	return cmd
}

// nopWriteCloser lets the transport "close" stdout without closing it.
type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }
