package httpapi

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"slices"

	"github.com/contractgraph/contractgraph/internal/tools"
)

// openAPI is the hand-written OpenAPI 3 description of the API, without the
// query parameters of the endpoints that take a tool's arguments: those are
// generated from the tools' schemas (queryParameters), so that a filter
// added to graph.Filter is documented with nothing else to edit. A test
// checks that the document parses and covers exactly the server's routes.
//
//go:embed openapi.json
var openAPI []byte

// queryEndpoints maps the GET endpoints whose query parameters are a tool's
// arguments to that tool.
var queryEndpoints = map[string]string{
	"/api/contracts":     tools.NameContractSearch,
	"/api/aggregate":     tools.NameContractAggregate,
	"/api/deadlines":     tools.NameDeadlineSearch,
	"/api/deadlines.ics": tools.NameDeadlineSearch,
	"/api/compare":       tools.NameClauseCompare,
}

func (s *Server) handleOpenAPI(w http.ResponseWriter, r *http.Request) {
	s.openAPIOnce.Do(func() { s.openAPIDoc, s.openAPIErr = openAPIDocument(s.tools) })
	if s.openAPIErr != nil {
		s.fail(w, r, fmt.Errorf("openapi document: %w", s.openAPIErr))
		return
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Write(s.openAPIDoc)
}

// openAPIDocument is openAPI with the query endpoints' tool arguments added
// as parameters, before the endpoint's own hand-written ones (such as page).
func openAPIDocument(ts ToolSet) ([]byte, error) {
	var doc map[string]any
	if err := json.Unmarshal(openAPI, &doc); err != nil {
		return nil, err
	}
	paths, _ := doc["paths"].(map[string]any)
	for _, path := range slices.Sorted(maps.Keys(queryEndpoints)) {
		item, _ := paths[path].(map[string]any)
		op, _ := item["get"].(map[string]any)
		if op == nil {
			return nil, fmt.Errorf("no GET %s in openapi.json", path)
		}
		params, err := queryParameters(ts, queryEndpoints[path])
		if err != nil {
			return nil, err
		}
		own, _ := op["parameters"].([]any)
		op["parameters"] = append(params, own...)
	}
	return json.Marshal(doc)
}

// queryParameters describes a tool's arguments as OpenAPI query parameters,
// as argsFromQuery reads them: arrays repeat the parameter, an object's
// fields are dotted (monetary_value.operator).
func queryParameters(ts ToolSet, tool string) ([]any, error) {
	var schema struct {
		Properties map[string]map[string]any `json:"properties"`
	}
	for _, t := range ts.Tools() {
		if t.Name == tool {
			if err := json.Unmarshal(t.InputSchema, &schema); err != nil {
				return nil, fmt.Errorf("tool %s: parse input schema: %w", tool, err)
			}
		}
	}
	if schema.Properties == nil {
		return nil, fmt.Errorf("%w %q", tools.ErrUnknownTool, tool)
	}
	var out []any
	for _, name := range slices.Sorted(maps.Keys(schema.Properties)) {
		prop := schema.Properties[name]
		if prop["type"] == "object" {
			sub, _ := prop["properties"].(map[string]any)
			for _, field := range slices.Sorted(maps.Keys(sub)) {
				p, _ := sub[field].(map[string]any)
				out = append(out, queryParameter(name+"."+field, p))
			}
			continue
		}
		out = append(out, queryParameter(name, prop))
	}
	return out, nil
}

func queryParameter(name string, prop map[string]any) map[string]any {
	schema := maps.Clone(prop)
	delete(schema, "description")
	p := map[string]any{"name": name, "in": "query", "schema": schema}
	if d, ok := prop["description"]; ok {
		p["description"] = d
	}
	if prop["type"] == "array" {
		p["style"], p["explode"] = "form", true
	}
	return p
}
