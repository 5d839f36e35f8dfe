package httpapi

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/contractgraph/contractgraph/internal/contract"
	"github.com/contractgraph/contractgraph/internal/tools"
)

// GET /api/compare is clause_compare with query parameters: it counts
// the store's clauses of the type, and answers a bad argument with 400
// naming it.
func TestAPICompare(t *testing.T) {
	s, _ := newTestServer(t, nil)
	want := 0
	err := s.store.Contracts(context.Background(), func(c *contract.Contract) error {
		for _, cl := range c.Clauses {
			if cl.Type == "Cap On Liability" {
				want++
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if want == 0 {
		t.Fatal("the fixture has no Cap On Liability clause")
	}
	rec := do(t, s.Handler(), http.MethodGet, "/api/compare?clause_type=cap+on+liability&examples=1", "", nil)
	if rec.Code != http.StatusOK {
		t.Fatalf("GET /api/compare: %d %s", rec.Code, rec.Body)
	}
	var res tools.ClauseCompareResult
	if err := json.Unmarshal(rec.Body.Bytes(), &res); err != nil {
		t.Fatal(err)
	}
	if res.ClauseType != "Cap On Liability" || res.TotalClauses != want || res.Compared != want {
		t.Errorf("clause_type %q, %d clauses (%d compared), want %d", res.ClauseType, res.TotalClauses, res.Compared, want)
	}
	for _, tt := range []struct{ target, field string }{
		{"/api/compare", "clause_type"},
		{"/api/compare?clause_type=Lunch", "clause_type"},
		{"/api/compare?clause_type=Insurance&threshold=high", "threshold"},
		{"/api/compare?clause_type=Insurance&groups=999", "groups"},
	} {
		rec := do(t, s.Handler(), http.MethodGet, tt.target, "", nil)
		var body struct {
			Error struct {
				Field string `json:"field"`
			} `json:"error"`
		}
		json.Unmarshal(rec.Body.Bytes(), &body)
		if rec.Code != http.StatusBadRequest || body.Error.Field != tt.field {
			t.Errorf("GET %s: %d, field %q, want 400 on %s: %s", tt.target, rec.Code, body.Error.Field, tt.field, rec.Body)
		}
	}
}

// The comparison page: the form alone without a clause type, an error
// notice with 400 for an unknown one, and the clauses, linked at their
// spans, for a known one.
func TestPageCompare(t *testing.T) {
	s, _ := newTestServer(t, nil)
	for _, tt := range []struct {
		target string
		code   int
		want   []string
	}{
		{"/compare", http.StatusOK, []string{`id="compare-form"`, `aria-current="page">Compare`, `href="/compare?clause_type=Cap+On+Liability"`}},
		{"/compare?clause_type=Lunch", http.StatusBadRequest, []string{`class="notice error"`, "unknown clause type", `id="compare-form"`}},
		{"/compare?clause_type=Cap+On+Liability", http.StatusOK, []string{"Cap On Liability: ", `class="compare-clause`, `?span=`, `<option selected>Cap On Liability</option>`}},
	} {
		rec := do(t, s.Handler(), http.MethodGet, tt.target, "", nil)
		body := rec.Body.String()
		if rec.Code != tt.code {
			t.Errorf("GET %s: %d, want %d", tt.target, rec.Code, tt.code)
		}
		for _, w := range tt.want {
			if !strings.Contains(body, w) {
				t.Errorf("GET %s lacks %q", tt.target, w)
			}
		}
	}
}
