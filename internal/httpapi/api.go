package httpapi

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"

	"github.com/contractgraph/contractgraph/internal/contract"
	"github.com/contractgraph/contractgraph/internal/graph"
	"github.com/contractgraph/contractgraph/internal/tools"
)

// handleListTools answers the tools as `contractgraph tools list` prints
// them: [{name, description, input_schema}].
func (s *Server) handleListTools(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, s.tools.Tools())
}

// handleCallTool runs one tool on the JSON body (empty means {}) and
// answers exactly the tool's JSON result, as `contractgraph tools call`
// prints it.
func (s *Server) handleCallTool(w http.ResponseWriter, r *http.Request) {
	if ct := r.Header.Get("Content-Type"); ct != "" && !strings.HasPrefix(ct, "application/json") {
		s.fail(w, r, &tools.ArgError{Msg: fmt.Sprintf("Content-Type %q: send the arguments as application/json", ct)})
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, tools.MaxArgsBytes))
	if err != nil {
		s.fail(w, r, err)
		return
	}
	if len(bytes.TrimSpace(body)) == 0 {
		body = []byte("{}")
	}
	if !json.Valid(body) {
		s.fail(w, r, &tools.ArgError{Msg: "the request body is not valid JSON"})
		return
	}
	out, err := s.tools.Call(r.Context(), r.PathValue("name"), body)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	writeRawJSON(w, http.StatusOK, out)
}

// contractPage is one page of contract_search results.
type contractPage struct {
	TotalCount int                     `json:"total_count"`
	Offset     int                     `json:"offset"`
	Limit      int                     `json:"limit"`
	Examples   []graph.ContractSummary `json:"examples"`
}

// Paging of the contracts list.
const (
	defaultAPIPageSize = 20
	maxPageSize        = 50 // contract_search's largest limit
)

// handleSearchContracts is contract_search with query parameters, paged
// with offset (or 1-based page) and limit.
func (s *Server) handleSearchContracts(w http.ResponseWriter, r *http.Request) {
	page, err := s.searchContracts(r.Context(), r.URL.Query(), defaultAPIPageSize)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, page)
}

// searchContracts runs contract_search for one page: limit matches after
// skipping offset (given directly or as a 1-based page), which the store
// pages through natively up to graph.MaxOffset.
func (s *Server) searchContracts(ctx context.Context, q url.Values, defLimit int) (contractPage, error) {
	schema, err := toolSchema(s.tools, tools.NameContractSearch)
	if err != nil {
		return contractPage{}, err
	}
	limit, err := intParam(q, "limit", defLimit)
	if err != nil {
		return contractPage{}, err
	}
	if limit < 1 || limit > maxPageSize {
		return contractPage{}, &tools.ArgError{Field: "limit", Msg: fmt.Sprintf("%d is outside 1..%d", limit, maxPageSize)}
	}
	offset, err := intParam(q, "offset", 0)
	if err != nil {
		return contractPage{}, err
	}
	if q.Get("page") != "" {
		if q.Get("offset") != "" {
			return contractPage{}, &tools.ArgError{Field: "page", Msg: "give offset or page, not both"}
		}
		p, err := intParam(q, "page", 1)
		if err != nil || p < 1 || p > graph.MaxOffset/limit+1 {
			return contractPage{}, &tools.ArgError{Field: "page", Msg: fmt.Sprintf("%q is not a page number (1 to %d at this limit)", q.Get("page"), graph.MaxOffset/limit+1)}
		}
		offset = (p - 1) * limit
	}
	raw, err := argsFromQuery(schema, q, "limit", "offset", "page")
	if err != nil {
		return contractPage{}, err
	}
	var args map[string]any
	if err := json.Unmarshal(raw, &args); err != nil {
		return contractPage{}, fmt.Errorf("contracts query: %w", err)
	}
	args["offset"] = offset // out of range: the tool's error names the field
	args["limit"] = limit
	body, err := json.Marshal(args)
	if err != nil {
		return contractPage{}, fmt.Errorf("contracts query: %w", err)
	}
	out, err := s.tools.Call(ctx, tools.NameContractSearch, body)
	if err != nil {
		return contractPage{}, err
	}
	var res graph.ContractResult
	if err := json.Unmarshal(out, &res); err != nil {
		return contractPage{}, fmt.Errorf("decode contract_search result: %w", err)
	}
	examples := res.Examples
	if examples == nil {
		examples = []graph.ContractSummary{}
	}
	return contractPage{TotalCount: res.TotalCount, Offset: offset, Limit: limit, Examples: examples}, nil
}

// handleAggregate is contract_aggregate with query parameters; it answers
// the tool's JSON result.
func (s *Server) handleAggregate(w http.ResponseWriter, r *http.Request) {
	out, err := s.queryTool(r.Context(), tools.NameContractAggregate, r.URL.Query())
	if err != nil {
		s.fail(w, r, err)
		return
	}
	writeRawJSON(w, http.StatusOK, out)
}

// handleCompare is clause_compare with query parameters; it answers the
// tool's JSON result.
func (s *Server) handleCompare(w http.ResponseWriter, r *http.Request) {
	out, err := s.queryTool(r.Context(), tools.NameClauseCompare, r.URL.Query())
	if err != nil {
		s.fail(w, r, err)
		return
	}
	writeRawJSON(w, http.StatusOK, out)
}

// queryTool calls a tool with arguments taken from query parameters.
func (s *Server) queryTool(ctx context.Context, name string, q url.Values) (json.RawMessage, error) {
	schema, err := toolSchema(s.tools, name)
	if err != nil {
		return nil, err
	}
	args, err := argsFromQuery(schema, q)
	if err != nil {
		return nil, err
	}
	return s.tools.Call(ctx, name, args)
}

// handleGetContract answers the whole stored contract with its text and
// clause spans (start/end are UTF-8 byte offsets into text). Chunks, which
// only repeat the text, are left out.
func (s *Server) handleGetContract(w http.ResponseWriter, r *http.Request) {
	c, err := s.getContract(r.Context(), r.PathValue("id"))
	if err != nil {
		s.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, contractBody{Contract: c, Unverified: contract.UnverifiedValues(c)})
}

// contractBody is GET /api/contracts/{id}'s answer: the contract with the
// values whose evidence could not be verified.
type contractBody struct {
	*contract.Contract
	Unverified []contract.Unverified `json:"unverified,omitempty"`
}

// deleteResult is DELETE /api/contracts/{id}'s answer.
type deleteResult struct {
	Deleted string `json:"deleted"`
}

// handleDeleteContract removes a contract with its clauses, chunks and
// roles and the parties and locations only it used.
func (s *Server) handleDeleteContract(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	if strings.TrimSpace(id) == "" {
		s.fail(w, r, &tools.ArgError{Field: "id", Msg: "missing contract id"})
		return
	}
	d, ok := s.store.(graph.ContractDeleter)
	if !ok {
		writeError(w, http.StatusServiceUnavailable, &apiError{Code: codeUnavailable, Message: "this store cannot delete contracts"})
		return
	}
	deleted, err := d.DeleteContracts(r.Context(), []string{id})
	if err != nil {
		s.fail(w, r, err)
		return
	}
	if len(deleted) == 0 {
		s.fail(w, r, fmt.Errorf("contract %q: %w", id, graph.ErrNotFound))
		return
	}
	s.log.Info("contract deleted", "id", id)
	writeJSON(w, http.StatusOK, deleteResult{Deleted: id})
}

func (s *Server) getContract(ctx context.Context, id string) (*contract.Contract, error) {
	if strings.TrimSpace(id) == "" {
		return nil, &tools.ArgError{Field: "id", Msg: "missing contract id"}
	}
	c, err := s.store.GetContract(ctx, id)
	if errors.Is(err, graph.ErrNotFound) {
		return nil, fmt.Errorf("contract %q: %w", id, graph.ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("get contract %q: %w", id, err)
	}
	c.Chunks = nil
	if c.Clauses == nil {
		c.Clauses = []contract.Clause{}
	}
	return c, nil
}

func (s *Server) handleContractGraph(w http.ResponseWriter, r *http.Request) {
	c, err := s.getContract(r.Context(), r.PathValue("id"))
	if err != nil {
		s.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, contractGraph(c))
}

func (s *Server) handlePartyGraph(w http.ResponseWriter, r *http.Request) {
	v, err := s.partyGraph(r.Context(), r.PathValue("id"), r.URL.Query().Get("by"))
	if err != nil {
		s.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, v.Graph)
}
