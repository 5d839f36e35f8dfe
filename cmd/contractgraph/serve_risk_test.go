package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/contractgraph/contractgraph/internal/contract"
	"github.com/contractgraph/contractgraph/internal/graph/sqlite"
	"github.com/contractgraph/contractgraph/internal/risk"
)

// TestServeRiskReview runs the risk review through `serve` on a CUAD
// contract with the imported statutes and an OpenAI-compatible fake model:
// the contract page links to the risk page, POST /api/risk/{id} streams
// stages and then the report the CLI would write, whose citations resolve.
func TestServeRiskReview(t *testing.T) {
	db := importSharedStatutes(t)
	c := cuadContract(t)
	store, err := sqlite.Open(db)
	if err != nil {
		t.Fatal(err)
	}
	outcomes, err := store.PutContracts(context.Background(), []*contract.Contract{c})
	store.Close()
	if err != nil || outcomes[0].Err != nil {
		t.Fatalf("put contract: %v %v", err, outcomes)
	}
	fake := &fakeRiskServer{}
	model := httptest.NewServer(streamingAdapter{fake})
	defer model.Close()
	t.Setenv("OPENAI_BASE_URL", model.URL+"/v1")
	t.Setenv("OPENAI_API_KEY", "test-key")
	t.Setenv("CONTRACTGRAPH_TOKEN", "")

	base, _, _ := startCommand(t, false, urlRE, "--db", db, "--model", "openai:any", "serve", "--addr", "127.0.0.1:0", "--upload-dir", t.TempDir())
	id := url.PathEscape(c.ID)

	resp, err := http.Get(base + "contracts/" + id)
	if err != nil {
		t.Fatal(err)
	}
	page, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !strings.Contains(string(page), `href="/contracts/`+strings.ReplaceAll(id, "&", "&amp;")+`/risk"`) {
		t.Errorf("the contract page (%d) does not link to its risk review", resp.StatusCode)
	}

	resp, err = http.Post(base+"api/risk/"+id, "application/json", strings.NewReader(`{"jurisdiction":"us"}`))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(resp.Body)
		t.Fatalf("POST /api/risk: %d %s", resp.StatusCode, b)
	}
	var names []string
	var report struct {
		Report risk.Report `json:"report"`
		HTML   string      `json:"html"`
	}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 0, 1<<20), 4<<20)
	name := ""
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "event: "):
			name = strings.TrimPrefix(line, "event: ")
			names = append(names, name)
		case strings.HasPrefix(line, "data: ") && name == "report":
			if err := json.Unmarshal([]byte(strings.TrimPrefix(line, "data: ")), &report); err != nil {
				t.Fatal(err)
			}
		case strings.HasPrefix(line, "data: ") && name == "error":
			t.Errorf("error event: %s", line)
		}
	}
	if n := len(names); n < 4 || names[0] != "stage" || names[n-2] != "report" || names[n-1] != "done" {
		t.Fatalf("events %v, want stages first and report, done last", names)
	}

	rep := report.Report
	if rep.Partial || !rep.CitationsChecked || len(rep.Items) != 1 || len(rep.ReviewTrail) != 2 {
		t.Fatalf("report: partial=%v checked=%v items=%d trail=%+v notices=%q", rep.Partial, rep.CitationsChecked, len(rep.Items), rep.ReviewTrail, rep.Notices)
	}
	store, err = sqlite.Open(db)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	it := rep.Items[0]
	if len(it.Citations) == 0 {
		t.Fatal("no citation survived; the fake analyst cites a statute statute_search returned")
	}
	for _, cit := range it.Citations {
		st, err := store.GetStatute(context.Background(), cit.StatuteID)
		if err != nil {
			t.Fatalf("citation %s does not resolve: %v", cit.StatuteID, err)
		}
		if !strings.Contains(strings.Join(strings.Fields(st.Text), " "), strings.Join(strings.Fields(cit.Quote), " ")) {
			t.Errorf("quote %q is not in %s", cit.Quote, cit.StatuteID)
		}
	}
	spanLink := fmt.Sprintf(`href="/contracts/%s?span=%d-%d#cited"`, strings.ReplaceAll(id, "&", "&amp;"), it.ClauseStart, it.ClauseEnd)
	for _, want := range []string{spanLink, "statute not found", "Round 2: approve", "Token usage"} {
		if !strings.Contains(report.HTML, want) {
			t.Errorf("report html lacks %s", want)
		}
	}
}

func TestServeRiskWithoutModel(t *testing.T) {
	db := fixtureDB(t)
	t.Setenv("CONTRACTGRAPH_MODEL", "")
	t.Setenv("CONTRACTGRAPH_TOKEN", "")
	base, _, _ := startCommand(t, false, urlRE, "--db", db, "serve", "--addr", "127.0.0.1:0")
	// A stored contract with text: the review needs the model it lacks.
	resp, err := http.Post(base+"api/risk/c01", "application/json", nil)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 503 || !strings.Contains(string(b), `"code":"no_model"`) || !strings.Contains(string(b), "--model") {
		t.Errorf("risk without a model: %d %s", resp.StatusCode, b)
	}
	// An unknown contract is a 404, model or not, as the README says.
	resp, err = http.Post(base+"api/risk/any-id", "application/json", nil)
	if err != nil {
		t.Fatal(err)
	}
	b, _ = io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 404 || !strings.Contains(string(b), `"code":"not_found"`) {
		t.Errorf("risk of an unknown contract without a model: %d %s", resp.StatusCode, b)
	}
}
