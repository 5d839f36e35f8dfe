package httpapi

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/contractgraph/contractgraph/internal/contract"
	"github.com/contractgraph/contractgraph/internal/graph"
	"github.com/contractgraph/contractgraph/internal/web"
)

// putFamily stores a master, its amendment (linked by AMENDS) and an
// amendment whose master is not in the store.
func putFamily(t *testing.T, s graph.Store) {
	t.Helper()
	ctx := context.Background()
	parties := []contract.PartyRole{{Name: "Orbit Foods, Inc."}, {Name: "Halcyon Farms LLC"}}
	master := "DISTRIBUTION AGREEMENT\n1. Term\nThe term is two years.\n2. Price\nTen dollars per unit.\n"
	amend := "AMENDMENT NO. 2 TO THE DISTRIBUTION AGREEMENT dated as of March 1, 1999\n1. Term\nThe term is three years.\n"
	cs := []*contract.Contract{
		{ID: "orbit-dist", Title: "Distribution Agreement", EffectiveDate: "1999-03-01", Parties: parties, Text: master,
			Clauses: []contract.Clause{{Type: "Expiration Date", Text: "The term is two years.", Start: 31, End: 53, Verified: true}}},
		{ID: "orbit-dist-a2", Title: "Amendment No. 2", EffectiveDate: "2001-06-05", Parties: parties, Text: amend,
			Clauses: []contract.Clause{{Type: "Expiration Date", Text: "The term is three years.", Start: 80, End: 104, Verified: true}}},
		{ID: "orbit-lic-a1", Title: "First Amendment to License Agreement", Parties: parties[:1],
			Text: "FIRST AMENDMENT TO LICENSE AGREEMENT dated May 5, 2005"},
	}
	out, err := s.PutContracts(ctx, cs)
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range out {
		if o.Err != nil {
			t.Fatalf("%s: %v", o.ID, o.Err)
		}
	}
	link := graph.ContractLink{From: "orbit-dist-a2", To: "orbit-dist", Kind: graph.LinkAmends, Confidence: 1,
		Quote: amend[:71], Start: 0, End: 71, Source: graph.LinkDetected}
	if err := s.(graph.LinkStore).ReplaceLinks(ctx, graph.LinkDetected, []graph.ContractLink{link}); err != nil {
		t.Fatal(err)
	}
}

func TestContractFamilyAPI(t *testing.T) {
	s, _ := newTestServer(t, nil)
	putFamily(t, s.store)
	rec := do(t, s.Handler(), "GET", "/api/contracts/orbit-dist/family", "", nil)
	var f familyJSON
	if err := json.Unmarshal(rec.Body.Bytes(), &f); err != nil || rec.Code != 200 {
		t.Fatalf("%d %s: %v", rec.Code, rec.Body, err)
	}
	if len(f.Links) != 1 || f.Links[0].From != "orbit-dist-a2" || f.Titles["orbit-dist-a2"] != "Amendment No. 2" || f.Reference != nil {
		t.Errorf("family of the master: %+v", f)
	}
	rec = do(t, s.Handler(), "GET", "/api/contracts/orbit-lic-a1/family", "", nil)
	f = familyJSON{}
	if err := json.Unmarshal(rec.Body.Bytes(), &f); err != nil || f.Reference == nil || f.Reference.Master != "LICENSE AGREEMENT" || len(f.Links) != 0 {
		t.Errorf("family of an amendment without its master: %s", rec.Body)
	}
	if rec := do(t, s.Handler(), "GET", "/api/contracts/no-such/family", "", nil); rec.Code != 404 {
		t.Errorf("family of a missing contract: %d", rec.Code)
	}
	if rec := do(t, s.Handler(), "GET", web.DiffURL("orbit-dist", "orbit-dist-a2")+"?format=pdf", "", nil); rec.Code != 400 {
		t.Errorf("diff ?format=pdf: %d", rec.Code)
	}
}

// TestBrowserContractFamily opens a master's page: the family lists its
// amendment with a diff link; the diff page shows the changed words; the
// amendment's page names its master; an amendment whose master is not
// stored says so.
func TestBrowserContractFamily(t *testing.T) {
	if testing.Short() {
		t.Skip("browser tests are slow; skipped with -short")
	}
	s, _ := newTestServer(t, nil)
	putFamily(t, s.store)
	ts := httptest.NewServer(s.Handler())
	defer ts.Close()
	shots := shotsDir(t)
	ctx := browser(t, time.Minute)

	must(t, ctx, "open the master", chromedp.Navigate(ts.URL+web.ContractURL("orbit-dist")), chromedp.WaitVisible(chromedp.ID("family")))
	fam := eval[string](t, ctx, `document.getElementById('family').innerText`)
	if !strings.Contains(fam, "AMENDS") || !strings.Contains(fam, "Amendment No. 2") || !strings.Contains(fam, "AMENDMENT NO. 2 TO THE DISTRIBUTION AGREEMENT") {
		t.Errorf("the master's family:\n%s", fam)
	}
	viewportShot(t, ctx, shots, "contract-family")
	must(t, ctx, "open the diff", chromedp.Click(chromedp.CSS(`#family a.diff-link`)))
	waitNavigated(t, ctx, "the diff page", `location.pathname.includes('/diff/') && document.querySelector('section.change') !== null`)
	del := eval[string](t, ctx, `[...document.querySelectorAll('blockquote.words del')].map(e => e.innerText).join('|')`)
	ins := eval[string](t, ctx, `[...document.querySelectorAll('blockquote.words ins')].map(e => e.innerText).join('|')`)
	if del != "two" || ins != "three" {
		t.Errorf("diff words: deleted %q, inserted %q", del, ins)
	}
	viewportShot(t, ctx, shots, "contract-diff")

	must(t, ctx, "open the amendment", chromedp.Navigate(ts.URL+web.ContractURL("orbit-dist-a2")), chromedp.WaitVisible(chromedp.ID("family")))
	if role := eval[string](t, ctx, `document.querySelector('#family li').dataset.role`); role != "master" {
		t.Errorf("the amendment's family lists its master as %q", role)
	}
	must(t, ctx, "open the orphan amendment", chromedp.Navigate(ts.URL+web.ContractURL("orbit-lic-a1")), chromedp.WaitVisible(chromedp.ID("family-note")))
	if note := eval[string](t, ctx, `document.getElementById('family-note').innerText`); !strings.Contains(note, "LICENSE AGREEMENT dated 2005-05-05, which is not in the store") {
		t.Errorf("orphan note: %q", note)
	}
}
