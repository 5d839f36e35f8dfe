package httpapi

import (
	"context"
	"encoding/json"
	"errors"
	"net/url"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/contractgraph/contractgraph/internal/contract"
	"github.com/contractgraph/contractgraph/internal/graph"
	"github.com/contractgraph/contractgraph/internal/graph/sqlite"
	"github.com/contractgraph/contractgraph/internal/importer"
	"github.com/contractgraph/contractgraph/internal/sharedtest"
	"github.com/contractgraph/contractgraph/internal/tools"
)

// errEnough stops an import early.
var errEnough = errors.New("enough contracts")

// importShared imports the first max contracts (all when max is 0) of one
// shared data file into a real SQLite store.
func importShared(t *testing.T, path string, max int) graph.Store {
	t.Helper()
	ctx := context.Background()
	store, err := sqlite.Open(filepath.Join(t.TempDir(), "shared.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	var batch []*contract.Contract
	flush := func() {
		if _, err := store.PutContracts(ctx, batch); err != nil {
			t.Fatal(err)
		}
		batch = batch[:0]
	}
	n := 0
	err = importer.Read(ctx, path, importer.Options{}, func(r importer.Record) error {
		if r.Err == nil {
			batch = append(batch, r.Contract)
			n++
		}
		if len(batch) == 100 {
			flush()
		}
		if n == max {
			return errEnough
		}
		return nil
	})
	if err != nil && !errors.Is(err, errEnough) {
		t.Fatal(err)
	}
	flush()
	return store
}

func sharedServer(t *testing.T, path string, max int) *Server {
	store := importShared(t, path, max)
	now := func() time.Time { return time.Date(2024, 6, 1, 0, 0, 0, 0, time.UTC) }
	s, err := New(Config{Store: store, Tools: tools.New(store, tools.Options{Now: now}), Now: now})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestReferenceData serves the reference extraction (510 contracts) and
// checks the API and pages against the tools on the same store.
func TestReferenceData(t *testing.T) {
	shared := sharedtest.Dir(t)
	s := sharedServer(t, filepath.Join(shared, "data", "legal-tech-chat", "contract_data.json"), 0)
	h := s.Handler()

	rec := do(t, h, "GET", "/", "", nil)
	if rec.Code != 200 || !strings.Contains(rec.Body.String(), `<span class="n">510</span>Contracts`) {
		t.Fatalf("dashboard: %d", rec.Code)
	}
	res, err := s.tools.Call(context.Background(), "contract_search", json.RawMessage(`{"contract_type":"Distributor","governing_law_country":"US"}`))
	if err != nil {
		t.Fatal(err)
	}
	var want graph.ContractResult
	json.Unmarshal(res, &want)
	rec = do(t, h, "GET", "/api/contracts?contract_type=Distributor&governing_law_country=United+States&limit=50", "", nil)
	var page contractPage
	if err := json.Unmarshal(rec.Body.Bytes(), &page); err != nil || rec.Code != 200 {
		t.Fatalf("contracts: %d %v", rec.Code, err)
	}
	if page.TotalCount != want.TotalCount || page.TotalCount == 0 || len(page.Examples) != min(50, want.TotalCount) {
		t.Errorf("total %d (%d examples), want %d as the tool counts", page.TotalCount, len(page.Examples), want.TotalCount)
	}
	// Every listed contract's page, graph and party graphs answer.
	for _, e := range page.Examples[:min(5, len(page.Examples))] {
		for _, p := range []string{"/contracts/", "/api/contracts/"} {
			if rec := do(t, h, "GET", p+url.PathEscape(e.ContractID), "", nil); rec.Code != 200 {
				t.Errorf("GET %s%s: %d", p, e.ContractID, rec.Code)
			}
		}
		rec := do(t, h, "GET", "/api/contracts/"+url.PathEscape(e.ContractID)+"/graph", "", nil)
		if rec.Code != 200 {
			t.Fatalf("graph of %s: %d", e.ContractID, rec.Code)
		}
		c, _ := s.store.GetContract(context.Background(), e.ContractID)
		for _, p := range c.Parties {
			if p.PartyID == "" {
				continue
			}
			if rec := do(t, h, "GET", "/api/parties/"+url.PathEscape(p.PartyID)+"/graph", "", nil); rec.Code != 200 {
				t.Errorf("party graph of %q (%s): %d %s", p.Name, p.PartyID, rec.Code, rec.Body)
			}
		}
	}
	rec = do(t, h, "GET", "/api/aggregate?group_by=governing_law_state&governing_law_country=US&limit=3", "", nil)
	if rec.Code != 200 || !strings.Contains(rec.Body.String(), `"total_groups"`) {
		t.Errorf("aggregate: %d %s", rec.Code, rec.Body)
	}
}

// TestCUADContractPage serves part of the CUAD import (texts and annotated spans)
// and checks that each verified clause span is highlighted in its page.
func TestCUADContractPage(t *testing.T) {
	shared := sharedtest.Dir(t)
	s := sharedServer(t, filepath.Join(shared, "data", "cuad", "master_clauses.csv"), 8)
	ctx := context.Background()
	checked := 0
	marks := regexp.MustCompile(`<mark id="clause-(\d+)"|<span class="anchor" id="clause-(\d+)"`)
	err := s.store.Contracts(ctx, func(c *contract.Contract) error {
		if checked == 5 {
			return nil
		}
		checked++
		rec := do(t, s.Handler(), "GET", "/contracts/"+url.PathEscape(c.ID), "", nil)
		if rec.Code != 200 {
			t.Errorf("%s: %d", c.ID, rec.Code)
			return nil
		}
		got := map[string]bool{}
		for _, m := range marks.FindAllStringSubmatch(rec.Body.String(), -1) {
			got[m[1]+m[2]] = true
		}
		verified := 0
		for i, cl := range c.Clauses {
			if !cl.Verified {
				continue
			}
			verified++
			// The page's anchor is the API's clause id after "#".
			if want := c.ID + "#clause-" + strconv.Itoa(i+1); cl.ID != want {
				t.Errorf("%s: clause %d has id %q, want %q", c.ID, i, cl.ID, want)
			}
			if !got[strconv.Itoa(i+1)] {
				t.Errorf("%s: verified clause %s (%s) has no highlight #clause-%d", c.ID, cl.ID, cl.Type, i+1)
			}
		}
		if verified == 0 {
			t.Errorf("%s: no verified clauses to check", c.ID)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
