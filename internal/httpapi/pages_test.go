package httpapi

import (
	"context"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

func TestPages(t *testing.T) {
	s, _ := newTestServer(t, nil)
	h := s.Handler()
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
	gl := c.Clauses[2]
	tests := []struct {
		name    string
		target  string
		status  int
		want    []string
		notWant []string
	}{
		{"dashboard", "/", 200, []string{
			`<span class="n">63</span>Contracts`,
			`<a href="/contracts?contract_type=Hosting">Hosting</a>`,
			// Act on these: Initech's notice (2026-12-30) first, then
			// Acme's automatic renewal (2026-12-31).
			`from 2026-11-20 to 2027-02-18: 2 deadlines.`,
			`<a href="/api/deadlines.ics">Subscribe to the calendar</a>`,
			`<td class="date">2026-12-30</td>
      <td><strong>Notice deadline</strong></td>
      <td><a href="/contracts/initech-license">Initech Software License</a></td>`,
			`<a href="/contracts/acme-distribution">Acme Distribution Agreement</a>`,
		}, []string{"Umbrella Supply Contract"}},
		{"contracts filtered", "/contracts?contract_type=Distributor", 200,
			[]string{`<option selected>Distributor</option>`, "1 contract<", `href="/contracts/acme-distribution"`, "500,000 USD", "NY, US"},
			[]string{"initech-license"}},
		{"contracts by governing law name", "/contracts?governing_law_state=California", 200, []string{`href="/contracts/initech-license"`}, nil},
		{"contracts bad filter", "/contracts?min_effective_date=soon", 400, []string{`role="alert"`, "min_effective_date", "YYYY-MM-DD"}, nil},
		{"contracts first page", "/contracts?contract_type=Hosting&order_by=end_date", 200,
			[]string{"60 contracts", "Showing 1–25 of 60", `href="/contracts?contract_type=Hosting&amp;offset=25&amp;order_by=end_date"`}, []string{"Previous"}},
		{"contracts second page", "/contracts?contract_type=Hosting&order_by=end_date&offset=25", 200,
			[]string{"Showing 26–50 of 60", "← Previous", `href="/contracts?contract_type=Hosting&amp;offset=50&amp;order_by=end_date"`}, nil},
		{"contracts past the first 50", "/contracts?contract_type=Hosting&order_by=end_date&offset=50", 200,
			[]string{"Showing 51–60 of 60", `href="/contracts?contract_type=Hosting&amp;offset=25&amp;order_by=end_date"`}, []string{"Next →"}},
		{"contract", "/contracts/acme-distribution", 200, []string{
			"<h1>Acme Distribution Agreement</h1>",
			// Anchors count from 1, as the API's clause ids do (acme-distribution#clause-3).
			`<mark id="clause-3" class="hl" title="Governing Law">This Agreement is governed by the laws of the State of New York.</mark>`,
			`<a href="#clause-3">Governing Law</a>`,
			`<h3>Renewal &amp; Termination</h3>`,
			`href="/parties/` + url.PathEscape(acmeID) + `/graph">Acme Corp</a> — Distributor`,
			// Its timeline on 2026-11-20: the 2026 notice deadline has
			// passed, so the next is the renewed term's.
			`<h2 id="timeline-h">Timeline</h2>`,
			`<dt>Notice deadline</dt><dd><strong>2027-10-02</strong>`,
			`<dt>Next renewal</dt><dd><strong>2026-12-31</strong>`,
			`<dt>Renewal</dt><dd>automatic`,
		}, nil},
		{"contract with a cited span", "/contracts/acme-distribution?span=" + strconv.Itoa(gl.Start) + "-" + strconv.Itoa(gl.Start+16), 200,
			[]string{`<mark id="cited" class="hl cited"`}, nil},
		{"contract without text", "/contracts/umbrella-supply", 200, []string{"text of this contract is not stored"}, nil},
		{"missing contract", "/contracts/nope", 404, []string{`role="alert"`, `contract &#34;nope&#34;`}, nil},
		{"contract graph", "/contracts/acme-distribution/graph", 200,
			[]string{`data-src="/api/contracts/acme-distribution/graph"`, "PARTY_TO (Supplier) → Acme Distribution Agreement", "cytoscape-3.35.0.min.js"}, nil},
		{"party graph", "/parties/" + url.PathEscape(acmeID) + "/graph", 200,
			[]string{"Acme Corp and its contracts", "Initech Software License"}, nil},
		{"chat without a model", "/chat", 200, []string{"No chat model is configured", "--model ollama:qwen2.5:7b", `<textarea id="question" name="question" rows="3" required disabled`}, nil},
		{"upload without ingestion", "/upload", 200, []string{"Uploading is not available", `accept=".pdf,.docx,.html,.htm,.txt,.md"`}, nil},
		{"login without a token", "/login", 303, nil, nil},
		{"unknown page", "/no/such/page", 404, []string{"There is no page at /no/such/page."}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := do(t, h, "GET", tt.target, "", nil)
			if rec.Code != tt.status {
				t.Fatalf("status %d, want %d\n%s", rec.Code, tt.status, rec.Body)
			}
			body := rec.Body.String()
			for _, w := range tt.want {
				if !strings.Contains(body, w) {
					t.Errorf("page lacks %q", w)
				}
			}
			for _, w := range tt.notWant {
				if strings.Contains(body, w) {
					t.Errorf("page has %q", w)
				}
			}
			if tt.status == 200 && !strings.Contains(rec.Header().Get("Content-Security-Policy"), "script-src 'self'") {
				t.Errorf("no CSP header")
			}
		})
	}
}

func TestContractsFragmentForHTMX(t *testing.T) {
	s, _ := newTestServer(t, nil)
	req := newRequest("GET", "/contracts?parties=acme", "")
	req.Header.Set("HX-Request", "true")
	rec := newRecorder()
	s.Handler().ServeHTTP(rec, req)
	body := rec.Body.String()
	if rec.Code != 200 || strings.Contains(body, "<html") || !strings.HasPrefix(strings.TrimSpace(body), `<section id="results"`) {
		t.Fatalf("htmx request got %d:\n%s", rec.Code, body)
	}
	if n := len(regexp.MustCompile(`<tr>\s*<td`).FindAllString(body, -1)); n != 2 {
		t.Errorf("%d result rows, want 2", n)
	}
}

func TestChatPageWithModel(t *testing.T) {
	s, _ := newTestServer(t, func(c *Config) { c.Agent = &scriptAsker{}; c.ModelName = "openai:gpt-4o-mini" })
	rec := do(t, s.Handler(), "GET", "/chat", "", nil)
	body := rec.Body.String()
	if strings.Contains(body, "No chat model") || !strings.Contains(body, "<code>openai:gpt-4o-mini</code>") || strings.Contains(body, "required disabled") {
		t.Errorf("chat page with a model:\n%s", body)
	}
}
