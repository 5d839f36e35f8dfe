package httpapi

import (
	"encoding/json"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/contractgraph/contractgraph/internal/tools"
)

type openAPIDoc struct {
	OpenAPI string                                `json:"openapi"`
	Paths   map[string]map[string]json.RawMessage `json:"paths"`
	Comps   struct {
		Parameters map[string]openAPIParam `json:"parameters"`
	} `json:"components"`
}

type openAPIParam struct {
	Ref  string `json:"$ref"`
	Name string `json:"name"`
	In   string `json:"in"`
}

func parseOpenAPI(t *testing.T) openAPIDoc {
	t.Helper()
	s, _ := newTestServer(t, nil)
	rec := do(t, s.Handler(), "GET", "/api/openapi.json", "", nil)
	if rec.Code != 200 {
		t.Fatalf("GET /api/openapi.json: %d", rec.Code)
	}
	var doc openAPIDoc
	if err := json.Unmarshal(rec.Body.Bytes(), &doc); err != nil {
		t.Fatalf("openapi.json does not parse: %v", err)
	}
	if !strings.HasPrefix(doc.OpenAPI, "3.") {
		t.Fatalf("openapi = %q, want 3.x", doc.OpenAPI)
	}
	return doc
}

// TestOpenAPICoversEveryRoute checks that the document describes exactly
// the API routes the server has, method by method.
func TestOpenAPICoversEveryRoute(t *testing.T) {
	doc := parseOpenAPI(t)
	var documented, routed []string
	for path, ops := range doc.Paths {
		for method := range ops {
			documented = append(documented, strings.ToUpper(method)+" "+path)
		}
	}
	s, _ := newTestServer(t, nil)
	for _, rt := range s.routeTable() {
		if strings.HasPrefix(rt.pattern, "/api/") || rt.pattern == "/healthz" {
			routed = append(routed, rt.method+" "+rt.pattern)
		}
	}
	slices.Sort(documented)
	slices.Sort(routed)
	if diff := cmp.Diff(routed, documented); diff != "" {
		t.Errorf("routes (-routed +documented):\n%s", diff)
	}
}

// TestOpenAPIDocumentsToolArguments checks that every contract_search and
// contract_aggregate argument is a documented query parameter, so the
// document cannot fall behind the tools.
func TestOpenAPIDocumentsToolArguments(t *testing.T) {
	doc := parseOpenAPI(t)
	_, set := newTestServer(t, nil)
	for path, tool := range map[string]string{"/api/contracts": tools.NameContractSearch, "/api/aggregate": tools.NameContractAggregate} {
		var op struct {
			Parameters []openAPIParam `json:"parameters"`
		}
		if err := json.Unmarshal(doc.Paths[path]["get"], &op); err != nil {
			t.Fatal(err)
		}
		params := map[string]bool{}
		for _, p := range op.Parameters {
			if p.Ref != "" {
				ref, ok := doc.Comps.Parameters[strings.TrimPrefix(p.Ref, "#/components/parameters/")]
				if !ok {
					t.Errorf("%s: dangling $ref %s", path, p.Ref)
				}
				p = ref
			}
			params[p.Name] = true
		}
		schema, err := toolSchema(set, tool)
		if err != nil {
			t.Fatal(err)
		}
		for _, name := range slices.Sorted(maps.Keys(schema.Properties)) {
			prop := schema.Properties[name]
			if prop.kind() == "object" {
				for sub := range prop.Properties {
					if !params[name+"."+sub] {
						t.Errorf("%s: argument %s.%s of %s is not documented", path, name, sub, tool)
					}
				}
				continue
			}
			if !params[name] {
				t.Errorf("%s: argument %s of %s is not documented", path, name, tool)
			}
		}
	}
}
