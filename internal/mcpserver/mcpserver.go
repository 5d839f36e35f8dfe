// Package mcpserver exposes ContractGraph over the Model Context Protocol,
// on github.com/modelcontextprotocol/go-sdk: every typed tool of a tool set
// (with its JSON Schema and description, so text2cypher appears when the
// set holds it) and each stored contract's text as a resource
// (contractgraph://contracts/{id}). It is a thin adapter: tool calls go to
// the same tools.Set the CLI and the HTTP API use and return the same JSON.
package mcpserver

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/contractgraph/contractgraph/internal/agent"
	"github.com/contractgraph/contractgraph/internal/contract"
	"github.com/contractgraph/contractgraph/internal/graph"
	"github.com/contractgraph/contractgraph/internal/tools"
)

// ToolSet is the typed tools, as *tools.Set provides them.
type ToolSet interface {
	// Tools lists the tools with their descriptions and input schemas.
	Tools() []tools.Tool
	// Call runs a tool on JSON arguments and returns its JSON result.
	Call(ctx context.Context, name string, args json.RawMessage) (json.RawMessage, error)
}

// Contracts is the part of graph.Store the resources read.
type Contracts interface {
	// GetContract returns a contract with its text, or graph.ErrNotFound.
	GetContract(ctx context.Context, id string) (*contract.Contract, error)
	// Contracts calls fn for every contract in id order until fn returns an
	// error, which is then returned.
	Contracts(ctx context.Context, fn func(*contract.Contract) error) error
}

// Options configure the server.
type Options struct {
	// Version is reported to clients; "dev" when empty.
	Version string
	// Log receives the SDK's diagnostics; nothing when nil.
	Log *slog.Logger
	// PageSize bounds the resources of one resources/list page; 100 when zero.
	PageSize int
	// Asker, when set (a model is configured), is offered as the ask tool:
	// ContractGraph's own agent, with AskOptions as the practices of a call
	// that does not set them.
	Asker      Asker
	AskOptions agent.Options
}

// URIPrefix starts every contract resource URI; URITemplate is the
// resource template clients read contract texts with.
const (
	URIPrefix   = "contractgraph://contracts/"
	URITemplate = URIPrefix + "{id}"
)

// ContractURI is the resource URI of a contract's text.
func ContractURI(id string) string { return URIPrefix + url.PathEscape(id) }

const instructions = "ContractGraph answers questions about commercial contracts from a knowledge graph. " +
	"Use contract_search to find and count contracts, contract_aggregate for statistics, party_search for parties, " +
	"get_contract for one contract's record and clauses, clause_search for clause wording, " +
	"clause_compare to see how contracts differ on one clause type (groups, key terms, outliers). " +
	"Each contract's full text is a resource at " + URITemplate + "."

// New returns an MCP server with ts's tools and the contracts' texts.
func New(ts ToolSet, store Contracts, opts Options) *mcp.Server {
	if opts.Version == "" {
		opts.Version = "dev"
	}
	if opts.PageSize <= 0 {
		opts.PageSize = 100
	}
	s := mcp.NewServer(&mcp.Implementation{Name: "contractgraph", Title: "ContractGraph", Version: opts.Version},
		&mcp.ServerOptions{Instructions: instructions, Logger: opts.Log})
	for _, t := range ts.Tools() {
		s.AddTool(&mcp.Tool{
			Name:        t.Name,
			Description: t.Description,
			InputSchema: t.InputSchema,
			Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true, IdempotentHint: true, OpenWorldHint: new(false)},
		}, toolHandler(ts, t.Name))
	}
	if opts.Asker != nil {
		s.AddTool(&mcp.Tool{
			Name:        AskToolName,
			Title:       "Ask the ContractGraph agent",
			Description: askDescription,
			InputSchema: json.RawMessage(askSchema),
			// Model calls are neither idempotent nor free, but they only read.
			Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: new(false)},
		}, askHandler(opts.Asker, opts.AskOptions))
	}
	res := resources{store: store, pageSize: opts.PageSize}
	s.AddResourceTemplate(&mcp.ResourceTemplate{
		Name:        "contract-text",
		Title:       "Contract text",
		Description: "The full text of a stored contract; clause offsets from get_contract are UTF-8 byte offsets into it.",
		MIMEType:    "text/plain",
		URITemplate: URITemplate,
	}, res.read)
	s.AddReceivingMiddleware(res.listMiddleware)
	return s
}

// toolHandler calls one tool. Invalid arguments, unknown tools and missing
// contracts are tool errors (IsError with the message), which the client's
// model can read and correct; a cancelled context fails the request.
func toolHandler(ts ToolSet, name string) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		var args json.RawMessage
		if req.Params != nil {
			args = req.Params.Arguments
		}
		out, err := ts.Call(ctx, name, args)
		if err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: toolErrorText(err)}}}, nil
		}
		res := &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(out)}}}
		if len(out) > 0 && out[0] == '{' {
			res.StructuredContent = out
		}
		return res, nil
	}
}

// toolErrorText is the message a client sees for a failed call. Errors the
// caller can act on keep their text; others are summarised.
func toolErrorText(err error) string {
	var argErr *tools.ArgError
	switch {
	case errors.As(err, &argErr):
		return "invalid arguments: " + argErr.Error()
	case errors.Is(err, graph.ErrInvalidQuery):
		return "invalid arguments: " + err.Error()
	case errors.Is(err, tools.ErrUnknownTool), errors.Is(err, graph.ErrNotFound):
		return err.Error()
	}
	return "the tool failed: " + err.Error()
}

// resources serves contract texts.
type resources struct {
	store    Contracts
	pageSize int
}

func contractID(uri string) (string, bool) {
	rest, ok := strings.CutPrefix(uri, URIPrefix)
	if !ok || rest == "" || strings.Contains(rest, "/") {
		return "", false
	}
	id, err := url.PathUnescape(rest)
	return id, err == nil && id != ""
}

func (r resources) read(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	uri := req.Params.URI
	id, ok := contractID(uri)
	if !ok {
		return nil, mcp.ResourceNotFoundError(uri)
	}
	c, err := r.store.GetContract(ctx, id)
	if errors.Is(err, graph.ErrNotFound) {
		return nil, mcp.ResourceNotFoundError(uri)
	}
	if err != nil {
		return nil, fmt.Errorf("read contract %q: %w", id, err)
	}
	if c.Text == "" {
		return nil, fmt.Errorf("contract %q has no stored text (it was imported from structured data); use get_contract for its record", id)
	}
	return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: uri, MIMEType: "text/plain", Text: c.Text}}}, nil
}

// errPageFull stops the contract scan once a page is full.
var errPageFull = errors.New("page full")

// listMiddleware answers resources/list from the store, so the list always
// shows the contracts stored now (including ones ingested after start-up).
// Only contracts with text are listed. The cursor is the last id of the
// previous page.
func (r resources) listMiddleware(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		lr, ok := req.(*mcp.ListResourcesRequest)
		if method != "resources/list" || !ok {
			return next(ctx, method, req)
		}
		var after string
		if lr.Params != nil && lr.Params.Cursor != "" {
			b, err := base64.RawURLEncoding.DecodeString(lr.Params.Cursor)
			if err != nil {
				return nil, fmt.Errorf("invalid cursor %q", lr.Params.Cursor)
			}
			after = string(b)
		}
		res := &mcp.ListResourcesResult{Resources: []*mcp.Resource{}}
		last := ""
		err := r.store.Contracts(ctx, func(c *contract.Contract) error {
			if c.ID <= after || c.Text == "" {
				return nil
			}
			if len(res.Resources) == r.pageSize {
				res.NextCursor = base64.RawURLEncoding.EncodeToString([]byte(last))
				return errPageFull
			}
			last = c.ID
			res.Resources = append(res.Resources, &mcp.Resource{
				URI:         ContractURI(c.ID),
				Name:        c.ID,
				Title:       c.Title,
				Description: describe(c),
				MIMEType:    "text/plain",
				Size:        int64(len(c.Text)),
			})
			return nil
		})
		if err != nil && !errors.Is(err, errPageFull) {
			return nil, fmt.Errorf("list contracts: %w", err)
		}
		return res, nil
	}
}

// describe is a one-line description of a contract for the resource list.
func describe(c *contract.Contract) string {
	var parts []string
	if c.ContractType != "" {
		parts = append(parts, c.ContractType)
	}
	var names []string
	for _, p := range c.Parties {
		names = append(names, p.Name)
	}
	if len(names) > 0 {
		parts = append(parts, strings.Join(names, ", "))
	}
	if c.EffectiveDate != "" {
		parts = append(parts, "effective "+c.EffectiveDate)
	}
	return strings.Join(parts, "; ")
}
