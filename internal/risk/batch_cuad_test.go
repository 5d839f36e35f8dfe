package risk

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/contractgraph/contractgraph/internal/contract"
	"github.com/contractgraph/contractgraph/internal/llm"
	"github.com/contractgraph/contractgraph/internal/llm/llmtest"
	"github.com/contractgraph/contractgraph/internal/sharedtest"
	"github.com/contractgraph/contractgraph/internal/statute"
)

var statuteTagRE = regexp.MustCompile(`<statute id="([^"]+)"`)

// TestBatchRetrievesStatutesPerPassage runs batch mode on a real CUAD
// licence (a content licence with an arbitration clause) against titles 9
// (arbitration) and 17 (copyright) of the US Code, read from ../shared:
// each passage's statute query is built from its own words, so passages
// about different things are offered different statutes, and the
// arbitration passage gets title 9 while a copyright passage gets title 17.
// (Before, the query was the rules' keywords, the same for every passage,
// and every passage was offered the same statutes.)
func TestBatchRetrievesStatutesPerPassage(t *testing.T) {
	shared := sharedtest.Dir(t)
	dir := filepath.Join(shared, "data", "statutes", "uscode")
	sts, files := statute.Load([]string{filepath.Join(dir, "usc09.xml"), filepath.Join(dir, "usc17.xml")})
	for _, f := range files {
		if f.Err != nil {
			t.Fatalf("%s: %v", f.File, f.Err)
		}
	}
	if len(sts) < 100 {
		t.Fatalf("loaded %d statutes from titles 9 and 17", len(sts))
	}
	store := openStore(t, sts)
	name := "PacificapEntertainmentHoldingsInc_20051115_8-KA_EX-1.01_4300894_EX-1.01_Content License Agreement.txt"
	text, err := os.ReadFile(filepath.Join(shared, "data", "cuad", "full_contract_txt", name))
	if err != nil {
		t.Fatal(err)
	}
	rules := RuleSet{ContractType: "License Agreement", Rules: []Rule{
		{ID: "R1", Title: "Licence scope", Severity: "Medium", Description: "What the licence covers.", Keywords: []string{"license", "copyright", "content", "rights"}},
		{ID: "R2", Title: "Disputes", Severity: "High", Description: "How disputes are settled.", Keywords: []string{"arbitration", "dispute"}},
		{ID: "R3", Title: "Payment", Severity: "Medium", Description: "Fees and royalties.", Keywords: []string{"fee", "royalty", "payment", "revenue"}},
		{ID: "R4", Title: "Termination", Severity: "Medium", Description: "Ending the agreement.", Keywords: []string{"terminate", "breach"}},
	}}
	var mu sync.Mutex
	offered := map[string][]string{} // passage text → statute ids offered, in order
	router := func(req *llm.Request) (*llm.Response, error) {
		user := req.Messages[len(req.Messages)-1].Content
		var v any
		switch req.ResponseFormat.Name {
		case "RuleSet":
			v = rules
		case "Summary":
			v = summary()
		case "Analysis":
			p := user[strings.Index(user, "<passage>"):strings.Index(user, "</passage>")]
			var ids []string
			for _, m := range statuteTagRE.FindAllStringSubmatch(user, -1) {
				ids = append(ids, m[1])
			}
			mu.Lock()
			offered[p] = ids
			mu.Unlock()
			v = Analysis{Items: []Item{}}
		default:
			return nil, fmt.Errorf("unexpected response format %q", req.ResponseFormat.Name)
		}
		b, _ := json.Marshal(v)
		return &llm.Response{Message: llm.Message{Role: llm.RoleAssistant, Content: string(b)}, Usage: llm.Usage{InputTokens: 1, OutputTokens: 1}}, nil
	}
	steps := make([]llmtest.Step, 200)
	for i := range steps {
		steps[i] = llmtest.Step{Func: router}
	}
	in := Input{Contract: &contract.Contract{ID: "pacificap", Text: string(text)}, Jurisdiction: "us", Batch: true, Concurrency: 2}
	rep, err := Run(context.Background(), Deps{Model: llmtest.NewScripted(steps...), Statutes: store, Now: fixedNow}, in, nil)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Partial {
		t.Fatalf("partial report: %q", rep.Notices)
	}
	if len(offered) < 5 {
		t.Fatalf("%d passages analysed, want at least 5", len(offered))
	}
	firsts := map[string]int{}
	sets := map[string]bool{}
	arbitration, copyright := false, false
	for p, ids := range offered {
		if len(ids) == 0 {
			continue
		}
		firsts[ids[0]]++
		sets[strings.Join(ids, ",")] = true
		lower := strings.ToLower(p)
		if strings.Contains(lower, "arbitration") && strings.HasPrefix(ids[0], "/us/usc/t9/") {
			arbitration = true
		}
		if strings.Contains(lower, "copyright") && strings.HasPrefix(ids[0], "/us/usc/t17/") {
			copyright = true
		}
	}
	t.Logf("%d passages; first statutes: %v; %d distinct statute sets", len(offered), firsts, len(sets))
	if len(firsts) < 3 || len(sets) < len(offered)/2 {
		t.Errorf("passages were offered %d distinct first statutes and %d distinct sets over %d passages; want passage-specific retrieval", len(firsts), len(sets), len(offered))
	}
	for id, n := range firsts {
		if n > len(offered)/2 {
			t.Errorf("%s came first for %d of %d passages", id, n, len(offered))
		}
	}
	if !arbitration {
		t.Error("no passage about arbitration was offered a title 9 statute first")
	}
	if !copyright {
		t.Error("no passage about copyright was offered a title 17 statute first")
	}
}
