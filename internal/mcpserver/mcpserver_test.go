package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/contractgraph/contractgraph/internal/contract"
	"github.com/contractgraph/contractgraph/internal/graph/sqlite"
	"github.com/contractgraph/contractgraph/internal/tools"
)

var testNow = time.Date(2026, 11, 20, 0, 0, 0, 0, time.UTC)

// fixture stores contracts authored for this test in a real SQLite file:
// n with text (ids "text-000"…) plus one without ("no-text").
func fixture(t *testing.T, n int) (*sqlite.Store, *tools.Set) {
	t.Helper()
	store, err := sqlite.Open(filepath.Join(t.TempDir(), "mcp.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	var cs []*contract.Contract
	for i := range n {
		cs = append(cs, &contract.Contract{
			ID: fmt.Sprintf("text-%03d", i), Title: fmt.Sprintf("Services Agreement %d", i), ContractType: "Service",
			EffectiveDate: fmt.Sprintf("20%02d-03-01", 10+i%15),
			Parties:       []contract.PartyRole{{Name: "Acme Corp", Role: "Provider"}, {Name: fmt.Sprintf("Client %d", i), Role: "Client"}},
			Text:          fmt.Sprintf("SERVICES AGREEMENT %d\nAcme Corp provides services to Client %d.\n", i, i),
		})
	}
	cs = append(cs, &contract.Contract{ID: "no-text", Title: "Structured Only", ContractType: "Supply",
		Parties: []contract.PartyRole{{Name: "Globex Ltd", Role: "Supplier"}}})
	out, err := store.PutContracts(context.Background(), cs)
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range out {
		if o.Err != nil {
			t.Fatal(o.Err)
		}
	}
	return store, tools.New(store, tools.Options{Now: func() time.Time { return testNow }})
}

// connectInMemory connects a client to a new server over in-memory pipes.
func connectInMemory(t *testing.T, srv *mcp.Server) *mcp.ClientSession {
	t.Helper()
	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := srv.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test-client", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// connectHTTP connects a client over streamable HTTP to srv on a loopback
// httptest server.
func connectHTTP(t *testing.T, srv *mcp.Server, token string) *mcp.ClientSession {
	t.Helper()
	ts := httptest.NewServer(HTTPHandler(srv, token, nil))
	t.Cleanup(ts.Close)
	client := ts.Client()
	if token != "" {
		client = &http.Client{Transport: bearer{token: token, base: http.DefaultTransport}}
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test-client", Version: "1"}, nil).Connect(context.Background(),
		&mcp.StreamableClientTransport{Endpoint: ts.URL, HTTPClient: client, DisableStandaloneSSE: true, MaxRetries: -1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

type bearer struct {
	token string
	base  http.RoundTripper
}

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return b.base.RoundTrip(r)
}

func TestMCP(t *testing.T) {
	for _, transport := range []string{"in-memory", "streamable-http"} {
		t.Run(transport, func(t *testing.T) {
			store, set := fixture(t, 3)
			srv := New(set, store, Options{Version: "test"})
			var cs *mcp.ClientSession
			if transport == "in-memory" {
				cs = connectInMemory(t, srv)
			} else {
				cs = connectHTTP(t, srv, "")
			}
			testSession(t, cs, set, store)
		})
	}
}

func testSession(t *testing.T, cs *mcp.ClientSession, set *tools.Set, store *sqlite.Store) {
	ctx := context.Background()

	// Tools: the same names, descriptions and schemas as the tool set.
	lt, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	type toolInfo struct {
		Name, Description string
		Schema            any
	}
	var got, want []toolInfo
	for _, tl := range lt.Tools {
		got = append(got, toolInfo{tl.Name, tl.Description, tl.InputSchema})
		if tl.Annotations == nil || !tl.Annotations.ReadOnlyHint {
			t.Errorf("tool %s is not marked read-only", tl.Name)
		}
	}
	for _, tl := range set.Tools() {
		var schema any
		if err := json.Unmarshal(tl.InputSchema, &schema); err != nil {
			t.Fatal(err)
		}
		want = append(want, toolInfo{tl.Name, tl.Description, schema})
	}
	byName := func(a, b toolInfo) int { return strings.Compare(a.Name, b.Name) }
	slices.SortFunc(got, byName)
	slices.SortFunc(want, byName)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("tools (-tool set +MCP):\n%s", diff)
	}

	// contract_search gives exactly the tool set's (and so the CLI's) JSON.
	args := map[string]any{"parties": []string{"acme"}, "order_by": "effective_date", "limit": 2}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "contract_search", Arguments: args})
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := json.Marshal(args)
	wantOut, err := set.Call(ctx, "contract_search", raw)
	if err != nil {
		t.Fatal(err)
	}
	if res.IsError || len(res.Content) != 1 {
		t.Fatalf("contract_search result: %+v", res)
	}
	if text := res.Content[0].(*mcp.TextContent).Text; text != string(wantOut) {
		t.Errorf("contract_search over MCP:\n%s\nwant the tool's own JSON:\n%s", text, wantOut)
	}
	var structured, wantStructured any
	sc, _ := json.Marshal(res.StructuredContent)
	json.Unmarshal(sc, &structured)
	json.Unmarshal(wantOut, &wantStructured)
	if diff := cmp.Diff(wantStructured, structured); diff != "" {
		t.Errorf("structured content (-want +got):\n%s", diff)
	}

	// A bad argument is a tool error the model can read, naming the field.
	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "contract_search", Arguments: map[string]any{"contract_type": "Spaceship"}})
	if err != nil {
		t.Fatal(err)
	}
	if !res.IsError || !strings.Contains(res.Content[0].(*mcp.TextContent).Text, "contract_type") {
		t.Errorf("bad argument: %+v", res.Content)
	}

	// Resources: a template, and one listed resource per contract with text.
	tpl, err := cs.ListResourceTemplates(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(tpl.ResourceTemplates) != 1 || tpl.ResourceTemplates[0].URITemplate != URITemplate {
		t.Errorf("templates = %+v", tpl.ResourceTemplates)
	}
	var uris []string
	for r, err := range cs.Resources(ctx, nil) {
		if err != nil {
			t.Fatal(err)
		}
		uris = append(uris, r.URI)
	}
	if diff := cmp.Diff([]string{URIPrefix + "text-000", URIPrefix + "text-001", URIPrefix + "text-002"}, uris); diff != "" {
		t.Errorf("resources (-want +got):\n%s", diff)
	}
	rr, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: URIPrefix + "text-001"})
	if err != nil {
		t.Fatal(err)
	}
	c, _ := store.GetContract(ctx, "text-001")
	if len(rr.Contents) != 1 || rr.Contents[0].Text != c.Text || rr.Contents[0].MIMEType != "text/plain" {
		t.Errorf("read resource = %+v, want the contract text %q", rr.Contents, c.Text)
	}
	if _, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: URIPrefix + "missing"}); err == nil {
		t.Error("reading a missing contract succeeded")
	}
	if _, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: URIPrefix + "no-text"}); err == nil || !strings.Contains(err.Error(), "no stored text") {
		t.Errorf("reading a contract without text: %v", err)
	}
}

func TestResourceListPages(t *testing.T) {
	store, set := fixture(t, 7)
	cs := connectInMemory(t, New(set, store, Options{PageSize: 3}))
	ctx := context.Background()
	var pages [][]string
	cursor := ""
	for {
		res, err := cs.ListResources(ctx, &mcp.ListResourcesParams{Cursor: cursor})
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, r := range res.Resources {
			names = append(names, r.Name)
		}
		pages = append(pages, names)
		if res.NextCursor == "" {
			break
		}
		cursor = res.NextCursor
	}
	want := [][]string{{"text-000", "text-001", "text-002"}, {"text-003", "text-004", "text-005"}, {"text-006"}}
	if diff := cmp.Diff(want, pages); diff != "" {
		t.Errorf("pages (-want +got):\n%s", diff)
	}
}

func TestHTTPToken(t *testing.T) {
	store, set := fixture(t, 1)
	srv := New(set, store, Options{})
	ts := httptest.NewServer(HTTPHandler(srv, "tok", nil))
	defer ts.Close()
	resp, err := http.Post(ts.URL, "application/json", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("no token: status %d, want 401", resp.StatusCode)
	}
	cs := connectHTTP(t, srv, "tok")
	if err := cs.Ping(context.Background(), nil); err != nil {
		t.Errorf("ping with the token: %v", err)
	}
}

func TestServeHTTPRefusesPublicAddressWithoutToken(t *testing.T) {
	store, set := fixture(t, 1)
	ln, err := net.Listen("tcp", "0.0.0.0:0")
	if err != nil {
		t.Skipf("cannot listen on all interfaces: %v", err)
	}
	if err := ServeHTTP(context.Background(), ln, New(set, store, Options{}), "", nil); err == nil || !strings.Contains(err.Error(), "token is required") {
		t.Errorf("ServeHTTP on %s without a token = %v", ln.Addr(), err)
	}
}
