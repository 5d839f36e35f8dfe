package httpapi

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/contractgraph/contractgraph/internal/contract"
	"github.com/contractgraph/contractgraph/internal/graph/graphtest"
	"github.com/contractgraph/contractgraph/internal/graph/sqlite"
	"github.com/contractgraph/contractgraph/internal/tools"
)

// The contract page tags each unverified value with its reason, the
// contracts list keeps the contract out of a filter on such a value until
// "Include unverified values" is ticked, and the API's contract carries
// the marks.
func TestUnverifiedValuesMarked(t *testing.T) {
	store, err := sqlite.Open(filepath.Join(t.TempDir(), "unverified.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	if _, err := store.PutContracts(context.Background(), append(graphtest.Fixture(), graphtest.UnverifiedContract())); err != nil {
		t.Fatal(err)
	}
	now := func() time.Time { return testNow }
	s, err := New(Config{Store: store, Tools: tools.New(store, tools.Options{Now: now}), Now: now})
	if err != nil {
		t.Fatal(err)
	}
	h := s.Handler()

	rec := do(t, h, "GET", "/contracts/c13", "", nil)
	if rec.Code != 200 {
		t.Fatalf("GET /contracts/c13: %d %s", rec.Code, rec.Body)
	}
	page := rec.Body.String()
	tag := func(reason string) string {
		return `<span class="tag unverified" data-unverified title="` + reason + `">unverified</span> <span class="muted unverified-reason">` + reason + `</span>`
	}
	notFound := contract.ReasonNotFound
	for _, want := range []string{
		`<dt>Effective</dt><dd>2099-03-03 ` + tag(notFound) + `</dd>`,
		`<dt>Ends</dt><dd>2100-03-03 ` + tag("worked out from an unverified effective_date") + `</dd>`,
		`<dt>Type</dt><dd>Sponsorship ` + tag(notFound) + `</dd>`,
		`Acme Phantom Holdings</a> — Sponsor <span class="muted">(CA)</span> ` + tag(notFound),
		`id="unverified-note">8 values of this contract could not be verified`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("contract page lacks %s", want)
		}
	}
	// Details: type, effective, ends, duration, amount, governing law and
	// Acme Phantom; the timeline: start, end and renewal kind. Nu and the
	// renewal term and notice period are verified or have no evidence.
	if n := strings.Count(page, "data-unverified"); n != 10 {
		t.Errorf("contract page has %d unverified tags, want 10", n)
	}
	if i := strings.Index(page, "Nu Sponsorship Partners</a>"); i < 0 || strings.Contains(page[i:i+200], "data-unverified") {
		t.Errorf("the verified party Nu is missing or tagged")
	}
	// A verified contract's page has no tag.
	if rec := do(t, h, "GET", "/contracts/c01", "", nil); strings.Contains(rec.Body.String(), "data-unverified") || strings.Contains(rec.Body.String(), "unverified-note") {
		t.Error("c01's page tags a value as unverified")
	}

	list := do(t, h, "GET", "/contracts?min_effective_date=2090-01-01", "", nil).Body.String()
	if !strings.Contains(list, `id="results-h">0 contracts</h2>`) {
		t.Errorf("min_effective_date 2090 lists contracts without include_unverified")
	}
	list = do(t, h, "GET", "/contracts?min_effective_date=2090-01-01&include_unverified=true", "", nil).Body.String()
	if !strings.Contains(list, `id="results-h">1 contract</h2>`) || !strings.Contains(list, `2099-03-03 <span class="tag unverified" title="`+notFound+`">unverified</span>`) ||
		!strings.Contains(list, `name="include_unverified" type="checkbox" value="true" checked`) {
		t.Errorf("with include_unverified the list lacks c13 with its tag, or the ticked box")
	}

	rec = do(t, h, "GET", "/api/contracts/c13", "", nil)
	var body struct {
		ID         string                `json:"id"`
		Unverified []contract.Unverified `json:"unverified"`
	}
	if err := json.Unmarshal(rec.Body.Bytes(), &body); err != nil || body.ID != "c13" || len(body.Unverified) != 8 {
		t.Errorf("GET /api/contracts/c13: %+v (%v), want c13 with 8 marks", body, err)
	}
	rec = do(t, h, "GET", "/api/contracts?min_effective_date=2090-01-01&include_unverified=true", "", nil)
	if !strings.Contains(rec.Body.String(), `"unverified":[{"field":"contract_type"`) {
		t.Errorf("GET /api/contracts with include_unverified: %d %s, want c13 with its marks", rec.Code, rec.Body)
	}
}
