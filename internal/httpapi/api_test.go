package httpapi

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/contractgraph/contractgraph/internal/contract"
	"github.com/contractgraph/contractgraph/internal/graph"
	"github.com/contractgraph/contractgraph/internal/tools"
	"github.com/contractgraph/contractgraph/internal/web"
)

func TestToolRoutesMatchTheToolSet(t *testing.T) {
	s, set := newTestServer(t, nil)
	h := s.Handler()

	rec := do(t, h, "GET", "/api/tools", "", nil)
	want, _ := json.Marshal(set.Tools())
	if rec.Code != 200 || strings.TrimSpace(rec.Body.String()) != string(want) {
		t.Errorf("GET /api/tools = %d %s\nwant the tool list %s", rec.Code, rec.Body, want)
	}

	// The same bytes as `contractgraph tools call` prints.
	for _, c := range []struct{ name, args string }{
		{"contract_search", `{"contract_type":"Distributor"}`},
		{"contract_aggregate", `{"group_by":"contract_type"}`},
		{"party_search", `{"name":"acme"}`},
		{"get_contract", `{"contract_id":"initech-license"}`},
		{"clause_search", `{"query":"confidential information"}`},
	} {
		wantOut, err := set.Call(context.Background(), c.name, json.RawMessage(c.args))
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		rec := do(t, h, "POST", "/api/tools/"+c.name, "application/json", strings.NewReader(c.args))
		if rec.Code != 200 || strings.TrimSpace(rec.Body.String()) != string(wantOut) {
			t.Errorf("POST /api/tools/%s = %d %s\nwant %s", c.name, rec.Code, rec.Body, wantOut)
		}
	}
}

func TestAPIErrors(t *testing.T) {
	s, _ := newTestServer(t, func(c *Config) { c.MaxBodyBytes = 2 << 10 })
	h := s.Handler()
	big := `{"question":"` + strings.Repeat("x", 4<<10) + `"}`
	bigArgs := `{"summary_search":"` + strings.Repeat("x", tools.MaxArgsBytes) + `"}`
	tests := []struct {
		name        string
		method, url string
		ctype, body string
		status      int
		code, field string
	}{
		{"bad tool argument", "POST", "/api/tools/contract_search", "application/json", `{"contract_type":"Spaceship"}`, 400, codeInvalidArgument, "contract_type"},
		{"unknown tool argument", "POST", "/api/tools/contract_search", "application/json", `{"colour":"red"}`, 400, codeInvalidArgument, "colour"},
		{"malformed JSON", "POST", "/api/tools/contract_search", "application/json", `{"contract_type":`, 400, codeInvalidArgument, ""},
		{"wrong content type", "POST", "/api/tools/contract_search", "text/plain", `{}`, 400, codeInvalidArgument, ""},
		{"unknown tool", "POST", "/api/tools/launch_rockets", "application/json", `{}`, 404, codeUnknownTool, ""},
		{"tool arguments too large", "POST", "/api/tools/contract_search", "application/json", bigArgs, 413, codeTooLarge, ""},
		{"missing contract", "GET", "/api/contracts/no-such-contract", "", "", 404, codeNotFound, ""},
		{"missing contract graph", "GET", "/api/contracts/no-such-contract/graph", "", "", 404, codeNotFound, ""},
		{"missing party", "GET", "/api/parties/nobody-at-all/graph", "", "", 404, codeNotFound, ""},
		{"bad boolean parameter", "GET", "/api/contracts?active=maybe", "", "", 400, codeInvalidArgument, "active"},
		{"unknown parameter", "GET", "/api/contracts?colour=red", "", "", 400, codeInvalidArgument, "colour"},
		{"bad date parameter", "GET", "/api/contracts?min_end_date=yesterday", "", "", 400, codeInvalidArgument, "min_end_date"},
		{"repeated scalar", "GET", "/api/contracts?contract_type=Supply&contract_type=IP", "", "", 400, codeInvalidArgument, "contract_type"},
		{"bad limit", "GET", "/api/contracts?limit=500", "", "", 400, codeInvalidArgument, "limit"},
		{"offset and page", "GET", "/api/contracts?offset=5&page=2", "", "", 400, codeInvalidArgument, "page"},
		{"offset too large", "GET", "/api/contracts?offset=10001", "", "", 400, codeInvalidArgument, "offset"},
		{"negative offset", "GET", "/api/contracts?offset=-1", "", "", 400, codeInvalidArgument, "offset"},
		{"page too large", "GET", "/api/contracts?limit=10&page=1002", "", "", 400, codeInvalidArgument, "page"},
		{"bad group_by", "GET", "/api/aggregate?group_by=colour", "", "", 400, codeInvalidArgument, "group_by"},
		{"unknown API route", "GET", "/api/nothing-here", "", "", 404, codeNotFound, ""},
		{"wrong method", "PUT", "/api/contracts/acme-distribution", "", "", 405, "method_not_allowed", ""},
		{"ask without a model", "POST", "/api/ask", "application/json", `{"question":"hi"}`, 503, codeNoModel, ""},
		{"ingest without a pipeline", "POST", "/api/ingest", "multipart/form-data; boundary=x", "", 503, codeNoIngest, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var body *strings.Reader
			if tt.body != "" {
				body = strings.NewReader(tt.body)
			} else {
				body = strings.NewReader("")
			}
			rec := do(t, h, tt.method, tt.url, tt.ctype, body)
			if rec.Code != tt.status {
				t.Fatalf("status %d, want %d; body %s", rec.Code, tt.status, rec.Body)
			}
			if tt.code == "" {
				return
			}
			if ct := rec.Header().Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
				t.Errorf("Content-Type %q, want JSON", ct)
			}
			e := errorOf(t, rec.Body.Bytes())
			if e.Code != tt.code || e.Field != tt.field || e.Message == "" {
				t.Errorf("error = %+v, want code %q field %q and a message", e, tt.code, tt.field)
			}
		})
	}
	// The ask body limit is MaxBodyBytes (2 KiB here).
	s2, _ := newTestServer(t, func(c *Config) { c.MaxBodyBytes = 2 << 10; c.Agent = &scriptAsker{} })
	rec := do(t, s2.Handler(), "POST", "/api/ask", "application/json", strings.NewReader(big))
	if rec.Code != 413 || errorOf(t, rec.Body.Bytes()).Code != codeTooLarge {
		t.Errorf("oversized ask: %d %s, want 413 too_large", rec.Code, rec.Body)
	}
	// A value of the wrong type is described in JSON's words, not Go's.
	rec = do(t, s2.Handler(), "POST", "/api/ask", "application/json", strings.NewReader(`{"question":5}`))
	if e := errorOf(t, rec.Body.Bytes()); rec.Code != 400 || e.Field != "question" || e.Message != "question: expected a string, got JSON number" {
		t.Errorf(`ask {"question":5}: %d %+v`, rec.Code, e)
	}
}

func TestSearchContracts(t *testing.T) {
	s, set := newTestServer(t, nil)
	h := s.Handler()
	get := func(t *testing.T, target string) contractPage {
		t.Helper()
		rec := do(t, h, "GET", target, "", nil)
		if rec.Code != 200 {
			t.Fatalf("GET %s: %d %s", target, rec.Code, rec.Body)
		}
		var p contractPage
		if err := json.Unmarshal(rec.Body.Bytes(), &p); err != nil {
			t.Fatal(err)
		}
		return p
	}
	ids := func(p contractPage) []string {
		var out []string
		for _, e := range p.Examples {
			out = append(out, e.ContractID)
		}
		return out
	}
	tests := []struct {
		query     string
		wantTotal int
		wantIDs   []string
	}{
		{"contract_type=Distributor", 1, []string{"acme-distribution"}},
		{"parties=acme&order_by=effective_date&order=asc", 2, []string{"acme-distribution", "initech-license"}},
		{"parties=acme&parties=initech", 1, []string{"initech-license"}},
		{"governing_law_state=New+York", 1, []string{"acme-distribution"}},
		{"monetary_value.operator=%3E%3D&monetary_value.value=300000&order_by=total_amount", 2, []string{"umbrella-supply", "acme-distribution"}},
		{"active=false&parties=acme", 1, []string{"initech-license"}},
		{"clause_types=Cap+On+Liability", 1, []string{"initech-license"}},
		{"clause_types=Liability+%26+Indemnification&clause_types=License+Grant", 1, []string{"initech-license"}},
		{"summary_search=reagents", 1, []string{"umbrella-supply"}},
		{"contract_type=&parties=&party_country=DE", 1, []string{"umbrella-supply"}}, // empty form fields are ignored
	}
	for _, tt := range tests {
		t.Run(tt.query, func(t *testing.T) {
			p := get(t, "/api/contracts?"+tt.query)
			if p.TotalCount != tt.wantTotal {
				t.Errorf("total_count %d, want %d", p.TotalCount, tt.wantTotal)
			}
			if diff := cmp.Diff(tt.wantIDs, ids(p)); diff != "" {
				t.Errorf("ids (-want +got):\n%s", diff)
			}
		})
	}

	t.Run("paging", func(t *testing.T) {
		all, err := set.ContractSearch(context.Background(), tools.ContractSearchInput{Filters: tools.Filters{ContractType: "Hosting"}, OrderBy: "end_date", Limit: 50})
		if err != nil {
			t.Fatal(err)
		}
		p := get(t, "/api/contracts?contract_type=Hosting&order_by=end_date&limit=20&offset=20")
		if p.TotalCount != 60 || p.Offset != 20 || p.Limit != 20 {
			t.Fatalf("page = total %d offset %d limit %d, want 60 20 20", p.TotalCount, p.Offset, p.Limit)
		}
		var want []string
		for _, e := range all.Examples[20:40] {
			want = append(want, e.ContractID)
		}
		if diff := cmp.Diff(want, ids(p)); diff != "" {
			t.Errorf("page 2 (-want +got):\n%s", diff)
		}
		if diff := cmp.Diff(ids(p), ids(get(t, "/api/contracts?contract_type=Hosting&order_by=end_date&limit=20&page=2"))); diff != "" {
			t.Errorf("page=2 differs from offset=20:\n%s", diff)
		}
		// Paging goes past the first 50 matches, contract_search's largest
		// limit: pages of 20 cover all 60, each contract once.
		seen := map[string]bool{}
		for off := 0; off < 60; off += 20 {
			pg := get(t, "/api/contracts?contract_type=Hosting&order_by=end_date&limit=20&offset="+strconv.Itoa(off))
			if len(pg.Examples) != 20 {
				t.Errorf("offset %d: %d examples, want 20", off, len(pg.Examples))
			}
			for _, id := range ids(pg) {
				if seen[id] {
					t.Errorf("offset %d: %s already on an earlier page", off, id)
				}
				seen[id] = true
			}
		}
		if len(seen) != 60 {
			t.Errorf("pages hold %d distinct contracts, want all 60", len(seen))
		}
		if pg := get(t, "/api/contracts?contract_type=Hosting&order_by=end_date&limit=20&page=4"); pg.TotalCount != 60 || len(pg.Examples) != 0 {
			t.Errorf("page past the end = total %d with %d examples, want 60 and none", pg.TotalCount, len(pg.Examples))
		}
	})
}

func TestGetContractWithSpans(t *testing.T) {
	s, _ := newTestServer(t, nil)
	rec := do(t, s.Handler(), "GET", "/api/contracts/acme-distribution", "", nil)
	if rec.Code != 200 {
		t.Fatalf("%d %s", rec.Code, rec.Body)
	}
	var c contract.Contract
	if err := json.Unmarshal(rec.Body.Bytes(), &c); err != nil {
		t.Fatal(err)
	}
	if c.Text != distributionText {
		t.Errorf("text not returned whole: %q", c.Text)
	}
	if len(c.Clauses) != 3 {
		t.Fatalf("%d clauses, want 3", len(c.Clauses))
	}
	for _, cl := range c.Clauses {
		if got := c.Text[cl.Start:cl.End]; got != cl.Text || !cl.Verified {
			t.Errorf("clause %s: text[%d:%d] = %q, want %q (verified %v)", cl.Type, cl.Start, cl.End, got, cl.Text, cl.Verified)
		}
	}
	if c.Chunks != nil {
		t.Errorf("chunks returned")
	}
}

func TestNeighbourhoodGraphs(t *testing.T) {
	s, _ := newTestServer(t, nil)
	h := s.Handler()
	var g web.Graph
	rec := do(t, h, "GET", "/api/contracts/acme-distribution/graph", "", nil)
	if rec.Code != 200 {
		t.Fatalf("%d %s", rec.Code, rec.Body)
	}
	if err := json.Unmarshal(rec.Body.Bytes(), &g); err != nil {
		t.Fatal(err)
	}
	label := map[string]string{}
	kinds := map[string]int{}
	for _, n := range g.Nodes {
		label[n.ID] = n.Label
		kinds[n.Kind]++
	}
	if diff := cmp.Diff(map[string]int{"contract": 1, "party": 2, "location": 3, "clause": 3}, kinds); diff != "" {
		t.Errorf("node kinds (-want +got):\n%s", diff)
	}
	var rels []string
	for _, e := range g.Edges {
		rels = append(rels, label[e.Source]+" -"+e.Label+"("+e.Role+")-> "+label[e.Target])
	}
	slices.Sort(rels)
	want := []string{
		"Acme Corp -HAS_LOCATION()-> New York, NY, US",
		"Acme Corp -PARTY_TO(Distributor)-> Acme Distribution Agreement",
		"Acme Distribution Agreement -HAS_CLAUSE()-> Confidentiality & Non-Disclosure",
		"Acme Distribution Agreement -HAS_CLAUSE()-> Governing Law",
		"Acme Distribution Agreement -HAS_CLAUSE()-> Termination For Convenience",
		"Acme Distribution Agreement -HAS_GOVERNING_LAW()-> NY, US",
		"Globex Ltd -HAS_LOCATION()-> London, GB",
		"Globex Ltd -PARTY_TO(Supplier)-> Acme Distribution Agreement",
	}
	if diff := cmp.Diff(want, rels); diff != "" {
		t.Errorf("edges (-want +got):\n%s", diff)
	}

	// The party graph of Acme, reached by the id the contract gives it.
	c, err := s.store.GetContract(context.Background(), "acme-distribution")
	if err != nil {
		t.Fatal(err)
	}
	var acmeID string
	for _, p := range c.Parties {
		if p.Name == "Acme Corp" {
			acmeID = p.PartyID
		}
	}
	if acmeID == "" {
		t.Fatal("store gave Acme no party id")
	}
	rec = do(t, h, "GET", "/api/parties/"+url.PathEscape(acmeID)+"/graph", "", nil)
	if rec.Code != 200 {
		t.Fatalf("party graph: %d %s", rec.Code, rec.Body)
	}
	g = web.Graph{}
	if err := json.Unmarshal(rec.Body.Bytes(), &g); err != nil {
		t.Fatal(err)
	}
	label = map[string]string{}
	for _, n := range g.Nodes {
		label[n.ID] = n.Label
	}
	rels = nil
	for _, e := range g.Edges {
		rels = append(rels, label[e.Source]+" -"+e.Role+"-> "+label[e.Target])
	}
	slices.Sort(rels)
	want = []string{
		"Acme Corp -Distributor-> Acme Distribution Agreement",
		"Acme Corp -Licensee-> Initech Software License",
		"Globex Ltd -Supplier-> Acme Distribution Agreement",
		"Initech Inc. -Licensor-> Initech Software License",
	}
	if diff := cmp.Diff(want, rels); diff != "" {
		t.Errorf("party graph edges (-want +got):\n%s", diff)
	}
}

func TestAggregateMatchesTool(t *testing.T) {
	s, set := newTestServer(t, nil)
	want, err := set.Call(context.Background(), "contract_aggregate", json.RawMessage(`{"group_by":"governing_law_country","metric":"sum_amount","parties":["acme"]}`))
	if err != nil {
		t.Fatal(err)
	}
	rec := do(t, s.Handler(), "GET", "/api/aggregate?group_by=governing_law_country&metric=sum_amount&parties=acme", "", nil)
	if rec.Code != 200 || strings.TrimSpace(rec.Body.String()) != string(want) {
		t.Errorf("GET /api/aggregate = %d %s\nwant %s", rec.Code, rec.Body, want)
	}
	var res graph.AggregateResult
	if err := json.Unmarshal(want, &res); err != nil || res.TotalGroups != 1 || *res.Groups[0].Value != 750000 {
		t.Errorf("aggregate over Acme's contracts = %s, want one US group of 750000", want)
	}
}

func TestAuthentication(t *testing.T) {
	const token = "s3cret-token"
	s, _ := newTestServer(t, func(c *Config) { c.Token = token })
	h := s.Handler()

	send := func(method, target string, hdr map[string]string, body string) *http.Response {
		req, _ := http.NewRequest(method, target, strings.NewReader(body))
		for k, v := range hdr {
			req.Header.Set(k, v)
		}
		rec := newRecorder()
		h.ServeHTTP(rec, req.WithContext(context.Background()))
		return rec.Result()
	}
	if r := send("GET", "/healthz", nil, ""); r.StatusCode != 200 {
		t.Errorf("healthz needs no token, got %d", r.StatusCode)
	}
	if r := send("GET", "/static/app.css", nil, ""); r.StatusCode != 200 {
		t.Errorf("static files need no token, got %d", r.StatusCode)
	}
	r := send("GET", "/api/tools", nil, "")
	if r.StatusCode != 401 || !strings.HasPrefix(r.Header.Get("WWW-Authenticate"), "Bearer") {
		t.Errorf("no token: %d %q, want 401 with WWW-Authenticate", r.StatusCode, r.Header.Get("WWW-Authenticate"))
	}
	if r := send("GET", "/api/tools", map[string]string{"Authorization": "Bearer wrong"}, ""); r.StatusCode != 401 {
		t.Errorf("wrong token: %d, want 401", r.StatusCode)
	}
	if r := send("GET", "/api/tools", map[string]string{"Authorization": "Bearer " + token}, ""); r.StatusCode != 200 {
		t.Errorf("right token: %d, want 200", r.StatusCode)
	}
	r = send("GET", "/contracts?contract_type=Supply", nil, "")
	if r.StatusCode != 303 || r.Header.Get("Location") != "/login?next="+url.QueryEscape("/contracts?contract_type=Supply") {
		t.Errorf("page without token: %d to %q, want a redirect to the login page", r.StatusCode, r.Header.Get("Location"))
	}
	form := map[string]string{"Content-Type": "application/x-www-form-urlencoded"}
	if r := send("POST", "/login", form, "token=nope&next=/chat"); r.StatusCode != 401 {
		t.Errorf("login with a wrong token: %d, want 401", r.StatusCode)
	}
	r = send("POST", "/login", form, "token="+token+"&next=//evil.example/")
	if r.StatusCode != 303 || r.Header.Get("Location") != "/" {
		t.Errorf("login: %d to %q, want 303 to / (the off-site next is dropped)", r.StatusCode, r.Header.Get("Location"))
	}
	var cookie *http.Cookie
	for _, c := range r.Cookies() {
		if c.Name == sessionCookie {
			cookie = c
		}
	}
	if cookie == nil || !cookie.HttpOnly || cookie.SameSite != http.SameSiteLaxMode || strings.Contains(cookie.Value, token) {
		t.Fatalf("session cookie = %+v, want HttpOnly, SameSite=Lax, not holding the token", cookie)
	}
	r = send("GET", "/chat", map[string]string{"Cookie": cookie.Name + "=" + cookie.Value}, "")
	page, _ := io.ReadAll(r.Body)
	if r.StatusCode != 200 || !strings.Contains(string(page), `<form class="sign-out" method="post" action="/logout">`) {
		t.Errorf("page with the session cookie: %d, want 200 with a sign-out button", r.StatusCode)
	}
	r = send("GET", "/login", nil, "")
	if page, _ := io.ReadAll(r.Body); strings.Contains(string(page), `action="/logout"`) {
		t.Error("the sign-in page shows a sign-out button")
	}
}

func TestBrowserProtections(t *testing.T) {
	t.Run("dns rebinding", func(t *testing.T) {
		s, _ := newTestServer(t, nil)
		req := newRequest("GET", "http://evil.example/api/tools", "")
		local := &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 8080}
		req = req.WithContext(context.WithValue(req.Context(), http.LocalAddrContextKey, local))
		rec := newRecorder()
		s.Handler().ServeHTTP(rec, req)
		if rec.Code != 403 || errorOf(t, rec.Body.Bytes()).Code != codeForbidden {
			t.Errorf("foreign Host: %d %s, want 403", rec.Code, rec.Body)
		}
	})
	t.Run("cross-site post", func(t *testing.T) {
		s, _ := newTestServer(t, nil)
		req := newRequest("POST", "/api/tools/contract_search", "{}")
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Sec-Fetch-Site", "cross-site")
		req.Header.Set("Origin", "https://evil.example")
		rec := newRecorder()
		s.Handler().ServeHTTP(rec, req)
		if rec.Code != 403 {
			t.Errorf("cross-site POST: %d, want 403", rec.Code)
		}
	})
	t.Run("cors off by default", func(t *testing.T) {
		s, _ := newTestServer(t, nil)
		req := newRequest("GET", "/api/tools", "")
		req.Header.Set("Origin", "https://app.example")
		rec := newRecorder()
		s.Handler().ServeHTTP(rec, req)
		if got := rec.Header().Get("Access-Control-Allow-Origin"); got != "" {
			t.Errorf("Access-Control-Allow-Origin = %q without --cors-origin", got)
		}
	})
	t.Run("cors for the configured origin", func(t *testing.T) {
		s, _ := newTestServer(t, func(c *Config) { c.CORSOrigin = "https://app.example" })
		pre := newRequest("OPTIONS", "/api/ask", "")
		pre.Header.Set("Origin", "https://app.example")
		pre.Header.Set("Access-Control-Request-Method", "POST")
		rec := newRecorder()
		s.Handler().ServeHTTP(rec, pre)
		if rec.Code != 204 || rec.Header().Get("Access-Control-Allow-Origin") != "https://app.example" ||
			!strings.Contains(rec.Header().Get("Access-Control-Allow-Headers"), "Authorization") {
			t.Errorf("preflight: %d %v", rec.Code, rec.Header())
		}
		other := newRequest("GET", "/api/tools", "")
		other.Header.Set("Origin", "https://other.example")
		rec = newRecorder()
		s.Handler().ServeHTTP(rec, other)
		if got := rec.Header().Get("Access-Control-Allow-Origin"); got != "" {
			t.Errorf("other origin allowed: %q", got)
		}
		post := newRequest("POST", "/api/tools/contract_search", "{}")
		post.Header.Set("Content-Type", "application/json")
		post.Header.Set("Origin", "https://app.example")
		post.Header.Set("Sec-Fetch-Site", "cross-site")
		rec = newRecorder()
		s.Handler().ServeHTTP(rec, post)
		if rec.Code != 200 {
			t.Errorf("POST from the configured origin: %d %s", rec.Code, rec.Body)
		}
	})
}

func TestServeRefusesPublicAddressWithoutToken(t *testing.T) {
	s, _ := newTestServer(t, nil)
	ln, err := net.Listen("tcp", "0.0.0.0:0")
	if err != nil {
		t.Skipf("cannot listen on all interfaces here: %v", err)
	}
	err = s.Serve(context.Background(), ln)
	if !errors.Is(err, ErrTokenRequired) {
		t.Fatalf("Serve on %s without a token = %v, want ErrTokenRequired", ln.Addr(), err)
	}
	if _, err := net.Dial("tcp", ln.Addr().String()); err == nil {
		t.Error("the refused listener is still open")
	}
}

func TestServeAndGracefulShutdown(t *testing.T) {
	s, _ := newTestServer(t, nil)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Serve(ctx, ln) }()
	resp, err := http.Get("http://" + ln.Addr().String() + "/healthz")
	if err != nil {
		t.Fatal(err)
	}
	var body bytes.Buffer
	body.ReadFrom(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || strings.TrimSpace(body.String()) != `{"status":"ok"}` {
		t.Errorf("healthz: %d %s", resp.StatusCode, body.String())
	}
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("Serve after shutdown = %v, want nil", err)
		}
	case <-time.After(15 * time.Second):
		t.Fatal("Serve did not return after ctx was cancelled")
	}
}

func TestLoopbackAddr(t *testing.T) {
	for addr, want := range map[string]bool{
		"127.0.0.1:8080": true, "[::1]:80": true, "127.0.0.2:1": true,
		"0.0.0.0:8080": false, "[::]:80": false, "192.168.1.10:80": false,
	} {
		a, err := net.ResolveTCPAddr("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		if got := isLoopbackAddr(a); got != want {
			t.Errorf("isLoopbackAddr(%s) = %v, want %v", addr, got, want)
		}
	}
	for host, want := range map[string]bool{
		"localhost:8080": true, "127.0.0.1": true, "[::1]:9": true, "app.localhost": true,
		"evil.example": false, "10.0.0.1:80": false, "localhost.evil.example": false,
	} {
		if got := loopbackHost(host); got != want {
			t.Errorf("loopbackHost(%s) = %v, want %v", host, got, want)
		}
	}
}

func TestNewRejectsBadCORSOrigin(t *testing.T) {
	for _, origin := range []string{"intranet.example.com", "https://app.example/path", "*"} {
		if _, err := New(Config{Store: fixtureStore(t, 0), Tools: tools.New(nil, tools.Options{}), CORSOrigin: origin}); err == nil {
			t.Errorf("CORS origin %q accepted", origin)
		}
	}
}
