package httpapi

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/contractgraph/contractgraph/internal/playbook"
)

func TestPlaybookCheck(t *testing.T) {
	s, _ := newTestServer(t, nil)
	h := s.Handler()
	rec := do(t, h, "GET", "/api/contracts/initech-license/playbook", "", nil)
	if rec.Code != 200 || !strings.HasPrefix(rec.Header().Get("Content-Type"), "application/json") {
		t.Fatalf("GET playbook: %d %s", rec.Code, rec.Body)
	}
	var rep playbook.Report
	if err := json.Unmarshal(rec.Body.Bytes(), &rep); err != nil {
		t.Fatal(err)
	}
	pb, _ := playbook.ParseExample()
	if rep.ContractID != "initech-license" || len(rep.Results) != len(pb.Entries) {
		t.Fatalf("report on %q with %d results", rep.ContractID, len(rep.Results))
	}
	var capResult *playbook.Result
	for i := range rep.Results {
		if rep.Results[i].EntryID == "liability-cap" {
			capResult = &rep.Results[i]
		}
	}
	if capResult == nil || capResult.Clause == nil || len(capResult.Terms) != 1 || capResult.Terms[0].Status != playbook.TermMet ||
		capResult.Terms[0].Found[0].Value != 12 || capResult.Terms[0].Found[0].Unit != "months_fees" {
		t.Errorf("liability cap: %+v", capResult)
	}

	html := do(t, h, "GET", "/api/contracts/initech-license/playbook?format=html", "", nil)
	if html.Code != 200 || !strings.HasPrefix(html.Header().Get("Content-Type"), "text/html") ||
		!strings.Contains(html.Body.String(), `href="/contracts/initech-license?span=`) || strings.Contains(html.Body.String(), "<script") {
		t.Errorf("HTML: %d %s %.300s", html.Code, html.Header().Get("Content-Type"), html.Body)
	}
	md := do(t, h, "GET", "/api/contracts/initech-license/playbook?format=md", "", nil)
	if md.Code != 200 || !strings.Contains(md.Body.String(), "# Playbook check: initech-license") {
		t.Errorf("Markdown: %d %.300s", md.Code, md.Body)
	}

	if rec := do(t, h, "GET", "/api/contracts/no-such/playbook", "", nil); rec.Code != 404 {
		t.Errorf("unknown contract: %d %s", rec.Code, rec.Body)
	}
	rec = do(t, h, "GET", "/api/contracts/initech-license/playbook?format=pdf", "", nil)
	if e := errorOf(t, rec.Body.Bytes()); rec.Code != 400 || e.Field != "format" {
		t.Errorf("bad format: %d %+v", rec.Code, e)
	}
}
