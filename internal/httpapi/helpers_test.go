package httpapi

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/contractgraph/contractgraph/internal/contract"
	"github.com/contractgraph/contractgraph/internal/graph"
	"github.com/contractgraph/contractgraph/internal/graph/sqlite"
	"github.com/contractgraph/contractgraph/internal/tools"
)

// testNow is the fixed clock of the tests: the fixture's acme-distribution
// contract ends within 90 days of it.
var testNow = time.Date(2026, 11, 20, 9, 0, 0, 0, time.UTC)

const distributionText = `DISTRIBUTION AGREEMENT

This Distribution Agreement is made on 15 January 2019 between Globex Ltd ("Supplier") and Acme Corp ("Distributor").

1. Term. This Agreement ends on 31 December 2026 unless renewed. Either party may terminate this Agreement on ninety (90) days' written notice.

2. Confidentiality. Each party shall keep the other's Confidential Information secret for five years.

3. Governing Law. This Agreement is governed by the laws of the State of New York.
`

const licenseText = `LICENSE AGREEMENT between Initech Inc. (Licensor) and Acme Corp (Licensee).
The Licensor grants the Licensee a non-exclusive, non-transferable licence to the Software.
Liability of either party is capped at the fees paid in the preceding twelve months.
This Agreement is governed by the laws of California.
`

// span returns a verified clause of typ covering quote in text.
func span(t testing.TB, text, typ, quote string) contract.Clause {
	t.Helper()
	i := strings.Index(text, quote)
	if i < 0 {
		t.Fatalf("fixture: %q not in text", quote)
	}
	_, group, err := contract.ParseClauseType(typ)
	if err != nil {
		t.Fatal(err)
	}
	return contract.Clause{Type: typ, Group: group, Text: quote, Start: i, End: i + len(quote), Verified: true}
}

func ptr[T any](v T) *T { return &v }

// fixtureContracts are the contracts of the test store, authored for these
// tests: three detailed ones and bulk filler for paging.
func fixtureContracts(t testing.TB, bulk int) []*contract.Contract {
	cs := []*contract.Contract{
		{
			ID: "acme-distribution", Title: "Acme Distribution Agreement", ContractType: "Distributor",
			Summary: "Globex appoints Acme as exclusive distributor of widgets in North America.",
			Scope:   "Distribution of widgets", EffectiveDate: "2019-01-15", EndDate: "2026-12-31",
			TotalAmount: ptr(500000.0), Currency: "USD", NoticePeriod: "P90D", RenewalKind: contract.RenewalAutomatic, RenewalTerm: "P1Y",
			GoverningLaw: &contract.Location{Country: "US", State: "NY"},
			Parties: []contract.PartyRole{
				{Name: "Globex Ltd", Role: "Supplier", Location: &contract.Location{Country: "GB", City: "London"}},
				{Name: "Acme Corp", Role: "Distributor", Location: &contract.Location{Country: "US", State: "NY", City: "New York"}},
			},
			Text: distributionText,
			Clauses: []contract.Clause{
				span(t, distributionText, "Termination For Convenience", "Either party may terminate this Agreement on ninety (90) days' written notice."),
				span(t, distributionText, "Confidentiality & Non-Disclosure", "Each party shall keep the other's Confidential Information secret for five years."),
				span(t, distributionText, "Governing Law", "This Agreement is governed by the laws of the State of New York."),
			},
		},
		{
			ID: "initech-license", Title: "Initech Software License", ContractType: "License Agreement",
			Summary:       "Initech licenses its accounting software to Acme.",
			EffectiveDate: "2021-03-01", EndDate: "2024-02-28", TotalAmount: ptr(250000.0), Currency: "USD",
			RenewalKind: contract.RenewalAutomatic, RenewalTerm: "P1Y", NoticePeriod: "P60D",
			GoverningLaw: &contract.Location{Country: "US", State: "CA"},
			Parties: []contract.PartyRole{
				{Name: "Initech Inc.", Role: "Licensor", Location: &contract.Location{Country: "US", State: "TX"}},
				{Name: "Acme Corp", Role: "Licensee", Location: &contract.Location{Country: "US", State: "NY"}},
			},
			Text: licenseText,
			Clauses: []contract.Clause{
				span(t, licenseText, "License Grant", "The Licensor grants the Licensee a non-exclusive, non-transferable licence to the Software."),
				span(t, licenseText, "Cap On Liability", "Liability of either party is capped at the fees paid in the preceding twelve months."),
			},
		},
		{
			ID: "umbrella-supply", Title: "Umbrella Supply Contract", ContractType: "Supply",
			Summary:       "Umbrella supplies reagents to Globex.",
			EffectiveDate: "2015-06-01", EndDate: "2030-06-01", TotalAmount: ptr(1000000.0), Currency: "EUR",
			GoverningLaw: &contract.Location{Country: "DE"},
			Parties: []contract.PartyRole{
				{Name: "Umbrella Corporation", Role: "Supplier", Location: &contract.Location{Country: "DE"}},
				{Name: "Globex Ltd", Role: "Buyer", Location: &contract.Location{Country: "GB"}},
			},
		},
	}
	for i := range bulk {
		cs = append(cs, &contract.Contract{
			ID: fmt.Sprintf("bulk-%03d", i), Title: fmt.Sprintf("Hosting Order %03d", i), ContractType: "Hosting",
			EffectiveDate: fmt.Sprintf("20%02d-01-01", 10+i%10), EndDate: fmt.Sprintf("20%02d-12-31", 30+i%10),
			Parties: []contract.PartyRole{{Name: "Hooli Cloud", Role: "Provider"}, {Name: fmt.Sprintf("Customer %03d", i), Role: "Customer"}},
		})
	}
	return cs
}

// fixtureStore is a real SQLite store in a temporary directory holding the
// fixture contracts.
func fixtureStore(t testing.TB, bulk int) graph.Store {
	t.Helper()
	store, err := sqlite.Open(filepath.Join(t.TempDir(), "test.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	out, err := store.PutContracts(context.Background(), fixtureContracts(t, bulk))
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range out {
		if o.Err != nil {
			t.Fatalf("put %s: %v", o.ID, o.Err)
		}
	}
	return store
}

// newTestServer builds a Server over the fixture store; mod adjusts the
// config first.
func newTestServer(t testing.TB, mod func(*Config)) (*Server, *tools.Set) {
	t.Helper()
	store := fixtureStore(t, 60)
	set := tools.New(store, tools.Options{Now: func() time.Time { return testNow }})
	cfg := Config{Store: store, Tools: set, Now: func() time.Time { return testNow }}
	if mod != nil {
		mod(&cfg)
	}
	s, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return s, set
}

// do sends a request to the handler and returns the recorded response.
func do(t testing.TB, h http.Handler, method, target, contentType string, body io.Reader) *httptest.ResponseRecorder {
	t.Helper()
	req := httptest.NewRequest(method, target, body)
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec
}

// errorOf decodes the stable error shape.
func errorOf(t testing.TB, body []byte) apiError {
	t.Helper()
	var e errorBody
	if err := json.Unmarshal(body, &e); err != nil || e.Error == nil {
		t.Fatalf("not an error body (%v): %s", err, body)
	}
	return *e.Error
}

// sseEvent is one parsed server-sent event.
type sseEvent struct {
	Name string
	Data string
}

// readEvents parses an event stream until EOF.
func readEvents(t testing.TB, r io.Reader) []sseEvent {
	t.Helper()
	var out []sseEvent
	var cur sseEvent
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case line == "":
			if cur.Name != "" || cur.Data != "" {
				out = append(out, cur)
			}
			cur = sseEvent{}
		case strings.HasPrefix(line, ":"):
		case strings.HasPrefix(line, "event: "):
			cur.Name = strings.TrimPrefix(line, "event: ")
		case strings.HasPrefix(line, "data: "):
			if cur.Data != "" {
				cur.Data += "\n"
			}
			cur.Data += strings.TrimPrefix(line, "data: ")
		default:
			t.Fatalf("unexpected SSE line %q", line)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatalf("read events: %v", err)
	}
	return out
}

func newRecorder() *httptest.ResponseRecorder { return httptest.NewRecorder() }

func newRequest(method, target, body string) *http.Request {
	return httptest.NewRequest(method, target, strings.NewReader(body))
}
