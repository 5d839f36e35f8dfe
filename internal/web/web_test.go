package web

import (
	"bytes"
	"html"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/contractgraph/contractgraph/internal/contract"
	"github.com/contractgraph/contractgraph/internal/graph"
)

func TestHighlightText(t *testing.T) {
	tests := []struct {
		name   string
		text   string
		spans  []Span
		want   string
		wantOK []bool
	}{
		{
			name: "no spans escapes",
			text: `a <b> & "c"`,
			want: `a &lt;b&gt; &amp; &#34;c&#34;`,
		},
		{
			name:   "one span",
			text:   "The law of Nevada applies.",
			spans:  []Span{{Start: 11, End: 17, ID: "clause-0", Title: "Governing Law"}},
			want:   `The law of <mark id="clause-0" class="hl" title="Governing Law">Nevada</mark> applies.`,
			wantOK: []bool{true},
		},
		{
			name: "overlapping spans are cut into pieces",
			text: "abcdef",
			spans: []Span{
				{Start: 0, End: 4, ID: "x"},
				{Start: 2, End: 6, ID: "y", Class: "cited"},
			},
			want:   `<mark id="x" class="hl">ab</mark><mark id="y" class="hl cited">cd</mark><mark class="hl cited">ef</mark>`,
			wantOK: []bool{true, true},
		},
		{
			name: "same start gets an anchor",
			text: "abcd",
			spans: []Span{
				{Start: 0, End: 4, ID: "long"},
				{Start: 0, End: 2, ID: "short"},
			},
			want:   `<span class="anchor" id="short"></span><mark id="long" class="hl">ab</mark><mark class="hl">cd</mark>`,
			wantOK: []bool{true, true},
		},
		{
			name: "invalid spans are skipped",
			text: "héllo",
			spans: []Span{
				{Start: 2, End: 4, ID: "mid-rune"}, // byte 2 is inside é
				{Start: 3, End: 99, ID: "past-end"},
				{Start: 4, End: 4, ID: "empty"},
				{Start: 3, End: 6, ID: "ok"},
			},
			want:   `hé<mark id="ok" class="hl">llo</mark>`,
			wantOK: []bool{false, false, false, true},
		},
		{
			name:   "markup inside a span is escaped",
			text:   "<script>x</script>",
			spans:  []Span{{Start: 0, End: 8, ID: `"><x`}},
			want:   `<mark id="&#34;&gt;&lt;x" class="hl">&lt;script&gt;</mark>x&lt;/script&gt;`,
			wantOK: []bool{true},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := HighlightText(tt.text, tt.spans)
			if diff := cmp.Diff(tt.want, string(got)); diff != "" {
				t.Errorf("html (-want +got):\n%s", diff)
			}
			if tt.wantOK == nil {
				tt.wantOK = []bool{}
			}
			if diff := cmp.Diff(tt.wantOK, ok); diff != "" {
				t.Errorf("valid (-want +got):\n%s", diff)
			}
		})
	}
}

// FuzzHighlightText checks that highlighting never loses or alters text:
// removing the tags and unescaping gives the input back.
func FuzzHighlightText(f *testing.F) {
	f.Add("The <law> of Nevada", 4, 9, 0, 19)
	f.Add("héllo wörld", 1, 3, 2, 8)
	tags := regexp.MustCompile(`<[^>]*>`)
	f.Fuzz(func(t *testing.T, text string, s1, e1, s2, e2 int) {
		got, _ := HighlightText(text, []Span{{Start: s1, End: e1, ID: "a"}, {Start: s2, End: e2, ID: "b", Class: "cited"}})
		plain := html.UnescapeString(tags.ReplaceAllString(string(got), ""))
		// HTMLEscapeString turns NUL into U+FFFD; everything else must survive.
		if want := strings.ReplaceAll(text, "\x00", "\uFFFD"); plain != want {
			t.Fatalf("text changed:\n in: %q\nout: %q", text, got)
		}
	})
}

func TestBars(t *testing.T) {
	one := 1.0
	groups := []graph.Group{{Key: "Supply", Count: 8, Value: &one}, {Key: "Service", Count: 2}, {Key: "IP", Count: 3}}
	got := Bars(groups, func(k string) string { return "/contracts?contract_type=" + url.QueryEscape(k) })
	want := []Bar{
		{Label: "Supply", Value: 8, Percent: 100, Href: "/contracts?contract_type=Supply"},
		{Label: "Service", Value: 2, Percent: 25, Href: "/contracts?contract_type=Service"},
		{Label: "IP", Value: 3, Percent: 37.5, Href: "/contracts?contract_type=IP"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Bars (-want +got):\n%s", diff)
	}
}

func TestFormatAmount(t *testing.T) {
	v := func(f float64) *float64 { return &f }
	tests := []struct {
		in   *float64
		cur  string
		want string
	}{
		{nil, "USD", ""},
		{v(0), "", "0"},
		{v(1234567.5), "USD", "1,234,567.50 USD"},
		{v(999), "EUR", "999 EUR"},
		{v(-1000), "", "-1,000"},
	}
	for _, tt := range tests {
		if got := formatAmount(tt.in, tt.cur); got != tt.want {
			t.Errorf("formatAmount(%v, %q) = %q, want %q", tt.in, tt.cur, got, tt.want)
		}
	}
}

func TestRenderPages(t *testing.T) {
	r, err := NewRenderer(RendererOptions{})
	if err != nil {
		t.Fatal(err)
	}
	amount := 1500.0
	c := &contract.Contract{
		ID: "acme supply #1", Title: "Acme Supply Agreement", ContractType: "Supply", TotalAmount: &amount, Currency: "USD",
		GoverningLaw: &contract.Location{Country: "US", State: "NY"},
		Parties:      []contract.PartyRole{{PartyID: "p1", Name: "Acme <Corp>", Role: "Supplier"}},
		Text:         "This agreement is governed by the laws of New York.",
	}
	html, _ := HighlightText(c.Text, []Span{{Start: 42, End: 50, ID: "clause-0"}})
	pages := []struct {
		page string
		data any
		want []string
	}{
		{PageDashboard, DashboardPage{Base: Base{Title: "Dashboard", Nav: "dashboard"}, Counts: []Count{{"Contracts", 3}},
			ByType: []Bar{{Label: "Supply", Value: 3, Percent: 100}}, Today: "2026-01-01", Horizon: "2026-04-01"},
			[]string{`aria-current="page">Dashboard`, `<span class="n">3</span>Contracts`, "width: 100%", "0 deadlines", "Act on these"}},
		{PageContracts, ContractsPage{Base: Base{Title: "Contracts", Nav: "contracts"}, Query: url.Values{"contract_type": {"Supply"}},
			ContractTypes: contract.ContractTypes, ClauseGroups: ClauseOptions(),
			Result: graph.ContractResult{TotalCount: 1, Examples: []graph.ContractSummary{{ContractID: c.ID, Title: c.Title}}},
			Rows:   ContractRows([]graph.ContractSummary{{ContractID: c.ID, Title: c.Title}}, "")},
			[]string{`<option selected>Supply</option>`, `href="/contracts/acme%20supply%20%231"`, "1 contract<", `<optgroup label="Liability &amp; Indemnification">`}},
		{PageContract, ContractPage{Base: Base{Title: c.Title}, C: c, TextHTML: html,
			Groups: []ClauseGroup{{Name: "General Information", Clauses: []ClauseItem{{Type: "Governing Law", Anchor: "clause-0", Verified: true}}}}},
			[]string{`<mark id="clause-0" class="hl">New York</mark>`, `<a href="#clause-0">Governing Law</a>`, "Acme &lt;Corp&gt;", "1,500 USD", "NY, US", `href="/contracts/acme%20supply%20%231/risk"`}},
		{PageRisk, RiskPage{Base: Base{Title: "Risk review"}, ID: c.ID, ContractTitle: "Acme <Supply>", HasText: true, APIURL: "/api/risk/acme%20supply%20%231",
			ModelConfigured: true, ModelName: "ollama:qwen2.5:7b", Jurisdictions: []Option{{Value: "", Label: "Any"}, {Value: "tw", Label: "Taiwan"}}},
			[]string{`data-api="/api/risk/acme%20supply%20%231"`, `href="/contracts/acme%20supply%20%231">← Acme &lt;Supply&gt;`, `<option value="tw">Taiwan</option>`, "/static/risk.js", `id="risk-start" >`}},
		{PageRisk, RiskPage{Base: Base{Title: "Risk review"}, ID: c.ID, ContractTitle: "X", APIURL: "/api/risk/x"},
			[]string{`id="no-model"`, "--model ollama:qwen2.5:7b", `id="risk-start" disabled`}},
		{PageChat, ChatPage{Base: Base{Title: "Ask", Nav: "chat"}}, []string{"No chat model is configured", "--model ollama:qwen2.5:7b", "CONTRACTGRAPH_MODEL"}},
		{PageUpload, UploadPage{Base: Base{Title: "Upload", Nav: "upload"}, Enabled: true, Accept: ".pdf,.txt", MaxMB: 64}, []string{`accept=".pdf,.txt"`, "at most 64 MB"}},
		{PageGraph, GraphPage{Base: Base{Title: "Graph"}, DataURL: "/api/contracts/x/graph",
			Graph: Graph{Nodes: []GraphNode{{ID: "c", Kind: "contract", Label: "X"}, {ID: "p", Kind: "party", Label: "Acme"}},
				Edges: []GraphEdge{{ID: "e", Source: "p", Target: "c", Label: "PARTY_TO", Role: "Supplier"}}}},
			[]string{`data-src="/api/contracts/x/graph"`, "PARTY_TO (Supplier) → X", "cytoscape-3.35.0.min.js"}},
		{PageLogin, LoginPage{Base: Base{Title: "Sign in"}, Failed: true, Next: "/chat"}, []string{"not valid", `value="/chat"`}},
		{PageError, ErrorPage{Base: Base{Title: "Not found"}, Message: "no contract <x>"}, []string{"no contract &lt;x&gt;"}},
	}
	for _, p := range pages {
		t.Run(p.page, func(t *testing.T) {
			var buf bytes.Buffer
			if err := r.Render(&buf, p.page, p.data); err != nil {
				t.Fatal(err)
			}
			out := buf.String()
			for _, w := range append(p.want, `<a class="skip-link" href="#main">`, `<main id="main"`) {
				if !strings.Contains(out, w) {
					t.Errorf("page %s lacks %q", p.page, w)
				}
			}
		})
	}
	// A filter that matches more than paging reaches says so.
	var capped bytes.Buffer
	if err := r.RenderFragment(&capped, PageContracts, "results", ContractsPage{Result: graph.ContractResult{TotalCount: 48000}, Reachable: 10025,
		Rows: ContractRows([]graph.ContractSummary{{ContractID: "x"}}, "")}); err != nil {
		t.Fatal(err)
	}
	if s := capped.String(); !strings.Contains(s, "48,000 contracts") || !strings.Contains(s, "Only the first 10,025 of these 48,000 contracts can be paged through") {
		t.Errorf("capped results lack the paging limit:\n%s", s)
	}
	var buf bytes.Buffer
	if err := r.RenderFragment(&buf, PageContracts, "results", ContractsPage{}); err != nil {
		t.Fatal(err)
	}
	if s := buf.String(); strings.Contains(s, "<html") || !strings.Contains(s, `id="results"`) {
		t.Errorf("results fragment is not just the results section:\n%s", s)
	}
	if err := r.Render(io.Discard, "nope", nil); err == nil {
		t.Error("unknown page rendered without error")
	}
}

// TestVendoredAssets checks that every script and stylesheet a template
// references is embedded and served, and that the vendored files carry
// their licences.
func TestVendoredAssets(t *testing.T) {
	ref := regexp.MustCompile(`(?:src|href)="(/static/[^"]+)"`)
	seen := map[string]bool{}
	err := fs.WalkDir(templateFiles, "templates", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := fs.ReadFile(templateFiles, path)
		if err != nil {
			return err
		}
		for _, m := range ref.FindAllStringSubmatch(string(b), -1) {
			seen[m[1]] = true
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"/static/app.css", "/static/vendor/htmx-2.0.11.min.js", "/static/vendor/cytoscape-3.35.0.min.js", "/static/chat.js"} {
		if !seen[want] {
			t.Errorf("no template references %s", want)
		}
	}
	h := Static()
	for path := range seen {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
		if rec.Code != http.StatusOK || rec.Body.Len() < 100 {
			t.Errorf("GET %s: status %d, %d bytes", path, rec.Code, rec.Body.Len())
		}
		if strings.HasPrefix(path, "/static/vendor/") && !strings.Contains(rec.Header().Get("Cache-Control"), "immutable") {
			t.Errorf("GET %s: Cache-Control %q, want immutable", path, rec.Header().Get("Cache-Control"))
		}
	}
	for _, lic := range []string{"static/vendor/LICENSE.htmx.txt", "static/vendor/LICENSE.cytoscape.txt", "static/vendor/VENDOR.md"} {
		if _, err := fs.Stat(staticFiles, lic); err != nil {
			t.Errorf("missing %s: %v", lic, err)
		}
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/static/vendor/", nil))
	if rec.Code != http.StatusNotFound {
		t.Errorf("directory listing: status %d, want 404", rec.Code)
	}
}

// The contracts table names repeated and generic titles by counterparty
// and date, and lists the first party with the number of others.
func TestContractRows(t *testing.T) {
	parties := func(names ...string) []graph.PartyRef {
		var out []graph.PartyRef
		for _, n := range names {
			out = append(out, graph.PartyRef{Name: n})
		}
		return out
	}
	ex := []graph.ContractSummary{
		{ContractID: "a", Title: "Strategic Alliance Agreement", ContractType: "Strategic Alliance", EffectiveDate: "2017-11-30", Parties: parties("Bravatek Solutions", "Acme Corp")},
		{ContractID: "b", Title: "Strategic Alliance Agreement", ContractType: "Strategic Alliance", EffectiveDate: "2016-02-17", Parties: parties("Acme Corp", "EDGE Communication Solutions, LLC", "Third Ltd")},
		{ContractID: "c", Title: "Hosting Order 003", ContractType: "Hosting", EffectiveDate: "2013-01-01", Parties: parties("Hooli Cloud")},
		{ContractID: "d", Title: "Agreement", EffectiveDate: "not a date", Parties: parties("Solo Inc")},
	}
	type row struct {
		Party, Date, First string
		Others             int
	}
	got := func(party string) []row {
		var out []row
		for _, r := range ContractRows(ex, party) {
			out = append(out, row{r.DistinctParty, r.DistinctDate, r.FirstParty, len(r.Others)})
		}
		return out
	}
	want := []row{
		{"Acme Corp", "30 Nov 2017", "Bravatek Solutions", 1},
		{"EDGE Communication Solutions, LLC", "17 Feb 2016", "Acme Corp", 2},
		{"", "", "Hooli Cloud", 0},
		{"Solo Inc", "not a date", "Solo Inc", 0},
	}
	if diff := cmp.Diff(want, got("")); diff != "" {
		t.Errorf("rows (-want +got):\n%s", diff)
	}
	// Filtered by Acme, the counterparty is never Acme.
	want[0].Party = "Bravatek Solutions"
	if diff := cmp.Diff(want, got("acme")); diff != "" {
		t.Errorf("rows filtered by acme (-want +got):\n%s", diff)
	}
}

func TestSourceName(t *testing.T) {
	for in, want := range map[string]string{
		"/work/shared/data/cuad/full_contract_txt/LIMEENERGYCO.txt": "LIMEENERGYCO.txt",
		`C:\Users\counsel\Lease.docx`:                               "Lease.docx",
		"internal/demo/samples/consulting-raman.md":                 "consulting-raman.md",
		"offer.pdf": "offer.pdf",
	} {
		if got := SourceName(in); got != want {
			t.Errorf("SourceName(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestThousands(t *testing.T) {
	for n, want := range map[int]string{0: "0", 25: "25", 10025: "10,025", 1234567: "1,234,567", -4000: "-4,000"} {
		if got := thousands(n); got != want {
			t.Errorf("thousands(%d) = %q, want %q", n, got, want)
		}
	}
}
