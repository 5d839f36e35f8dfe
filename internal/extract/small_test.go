package extract_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/contractgraph/contractgraph/internal/contract"
	"github.com/contractgraph/contractgraph/internal/extract"
	"github.com/contractgraph/contractgraph/internal/extract/extracttest"
	"github.com/contractgraph/contractgraph/internal/llm"
)

// Tests of the behaviour that lets extraction finish on a small local
// model: clauses last and in a call of their own, list caps, and a budget
// that repair rounds cannot run past.

// facts is good() without clauses: a facts-only reply.
func facts() extract.Extraction {
	x := good()
	x.Clauses = nil
	return x
}

// factsJSON is the facts reply as the facts schema wants it: no clauses.
func factsJSON(t *testing.T, in, out int) extracttest.Reply {
	t.Helper()
	b, err := json.Marshal(facts())
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	delete(m, "clauses")
	return extracttest.JSON(m, in, out)
}

func clausesJSON(cs []extract.ClauseValue, in, out int) extracttest.Reply {
	return extracttest.JSON(map[string]any{"clauses": cs}, in, out)
}

// schemaName is the response format a request asked for.
func schemaName(r extracttest.Request) string {
	if r.ResponseFormat == nil {
		return ""
	}
	return r.ResponseFormat.JSONSchema.Name
}

// repeated is the degenerate clause list a 1.5B model wrote: every
// category, the same sentence.
func repeated(n int) []extract.ClauseValue {
	var cs []extract.ClauseValue
	for _, c := range contract.ClauseCategories[:n] {
		cs = append(cs, extract.ClauseValue{ClauseType: c.Name, Text: "This Agreement shall be governed by the laws of the State of New York.", Summary: "The contract contains this clause."})
	}
	return cs
}

func TestLongClauseListCutOffAsksForClausesOnTheirOwn(t *testing.T) {
	long := good()
	long.Clauses = repeated(41)
	whole := extracttest.JSON(long, 0, 0).Content
	// The reply hit its token limit two thirds of the way into the list.
	cutAt := strings.Index(whole, `"clauses":`) + (len(whole)-strings.Index(whole, `"clauses":`))*2/3
	srv := extracttest.NewServer(t, func(n int, req extracttest.Request) extracttest.Reply {
		if n == 0 {
			return extracttest.Reply{Content: whole[:cutAt], FinishReason: "length", InputTokens: 1500, OutputTokens: 8192}
		}
		return clausesJSON(good().Clauses, 1600, 120)
	})
	res, err := newExtractor(t, srv.Model(t), extract.Options{}).Extract(context.Background(), "supply-1", supplyText)
	if err != nil {
		t.Fatal(err)
	}
	reqs := srv.Requests()
	if len(reqs) != 2 || schemaName(reqs[0]) != "contract_extraction" || schemaName(reqs[1]) != "contract_clauses" {
		t.Fatalf("requests: %d, schemas %q then %q; want the full extraction, then the clauses alone", len(reqs), schemaName(reqs[0]), schemaName(reqs[1]))
	}
	if !strings.Contains(reqs[1].Last(), "List the clauses of the contract above") || reqs[1].ContractText() != supplyText {
		t.Errorf("clause request is not the focused clause prompt over the text:\n%s", reqs[1].Last())
	}
	c := res.Contract
	// The facts come from the cut-off reply, the clauses from the second.
	if c.EffectiveDate != "2019-03-01" || len(c.Parties) != 2 || c.GoverningLaw == nil {
		t.Errorf("facts lost: date %q, %d parties, law %+v", c.EffectiveDate, len(c.Parties), c.GoverningLaw)
	}
	if len(c.Clauses) != 2 || c.Clauses[0].Type != "Governing Law" || c.Clauses[1].Type != "Cap On Liability" {
		t.Errorf("clauses = %+v, want the two of the focused reply", c.Clauses)
	}
	if res.Calls != 2 || len(res.Warnings) != 0 {
		t.Errorf("calls %d warnings %v", res.Calls, res.Warnings)
	}
	if c.Usage.OutputTokens != 8192+120 {
		t.Errorf("usage %+v, want both calls", c.Usage)
	}
}

func TestRepeatedPassageAsksForClausesOnTheirOwn(t *testing.T) {
	// A complete reply whose clause list gives one sentence for many
	// categories is evidence for none of them.
	x := good()
	x.Clauses = repeated(12)
	srv := extracttest.NewServer(t, func(n int, req extracttest.Request) extracttest.Reply {
		if n == 0 {
			return extracttest.JSON(x, 10, 10)
		}
		return clausesJSON(good().Clauses, 10, 10)
	})
	res, err := newExtractor(t, srv.Model(t), extract.Options{}).Extract(context.Background(), "s", supplyText)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(srv.Requests()); n != 2 || len(res.Contract.Clauses) != 2 {
		t.Errorf("%d requests, clauses %+v", n, res.Contract.Clauses)
	}
}

func TestTwoCallsShareTheirPrefix(t *testing.T) {
	var mu sync.Mutex
	var steps []extract.Progress
	seed := int64(42)
	srv := extracttest.NewServer(t, func(n int, req extracttest.Request) extracttest.Reply {
		switch schemaName(req) {
		case "contract_facts":
			return factsJSON(t, 1400, 300)
		case "contract_clauses":
			return clausesJSON(good().Clauses, 1450, 90)
		}
		return extracttest.Reply{Status: http.StatusBadRequest}
	})
	e := newExtractor(t, srv.Model(t), extract.Options{Clauses: extract.ClausesSeparate, Seed: &seed, Progress: func(p extract.Progress) {
		mu.Lock()
		steps = append(steps, p)
		mu.Unlock()
	}})
	res, err := e.Extract(context.Background(), "supply-1", supplyText)
	if err != nil {
		t.Fatal(err)
	}
	reqs := srv.Requests()
	if len(reqs) != 2 || schemaName(reqs[0]) != "contract_facts" || schemaName(reqs[1]) != "contract_clauses" {
		t.Fatalf("schemas asked for: %d requests", len(reqs))
	}
	if strings.Contains(string(reqs[0].ResponseFormat.JSONSchema.Schema), `"clauses"`) {
		t.Error("the facts call asks for clauses")
	}
	for i, r := range reqs {
		if !r.Stream || r.Temperature == nil || *r.Temperature != 0 || r.Seed == nil || *r.Seed != 42 {
			t.Errorf("request %d: stream %v temperature %v seed %v; want streamed, 0 and 42", i, r.Stream, r.Temperature, r.Seed)
		}
	}
	// The system prompt and the contract come first and are the same in
	// both calls, so a server with a prompt cache reads the contract once;
	// what differs is the short task at the end.
	facts, clauses := reqs[0].Messages, reqs[1].Messages
	if facts[0].Content != clauses[0].Content {
		t.Error("the two calls have different system prompts")
	}
	prefix := commonPrefix(facts[1].Content, clauses[1].Content)
	if !strings.HasSuffix(strings.TrimRight(prefix, "\n"), "</contract>") {
		t.Errorf("the user prompts diverge before the end of the contract, at %q", tail(prefix, 60))
	}
	if extra := extract.EstimateTokens(clauses[1].Content[len(prefix):]); extra > 120 {
		t.Errorf("the clause task adds %d tokens after the shared prefix; want a short task", extra)
	}
	c := res.Contract
	if c.ContractType != "Supply" || len(c.Parties) != 2 || len(c.Clauses) != 2 || !c.Clauses[1].Verified {
		t.Errorf("contract: type %q, %d parties, clauses %+v", c.ContractType, len(c.Parties), c.Clauses)
	}
	if res.Calls != 2 || c.Usage.InputTokens != 2850 || len(res.Warnings) != 0 {
		t.Errorf("calls %d usage %+v warnings %v", res.Calls, c.Usage, res.Warnings)
	}
	seen := map[string]int{}
	for _, p := range steps {
		if p.ContractID != "supply-1" || p.Parts != 1 || p.Bytes <= seen[p.Step] {
			t.Errorf("progress %+v after %d bytes", p, seen[p.Step])
		}
		seen[p.Step] = p.Bytes
	}
	if seen["facts"] == 0 || seen["clauses"] == 0 {
		t.Errorf("progress steps %v, want facts and clauses", seen)
	}
}

func commonPrefix(a, b string) string {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	return a[:n]
}

func tail(s string, n int) string { return s[max(0, len(s)-n):] }

func TestClauseCallFailureKeepsTheFacts(t *testing.T) {
	srv := extracttest.NewServer(t, func(n int, req extracttest.Request) extracttest.Reply {
		if schemaName(req) == "contract_facts" {
			return factsJSON(t, 10, 10)
		}
		return extracttest.Reply{Status: http.StatusBadRequest}
	})
	res, err := newExtractor(t, srv.Model(t), extract.Options{Clauses: extract.ClausesSeparate}).Extract(context.Background(), "s", supplyText)
	if err != nil {
		t.Fatalf("a failed clause call failed the document: %v", err)
	}
	if res.Contract.EffectiveDate != "2019-03-01" || len(res.Contract.Clauses) != 0 {
		t.Errorf("contract %+v", res.Contract)
	}
	if len(res.Warnings) != 1 || !strings.HasPrefix(res.Warnings[0], "clauses not extracted: ") || !strings.Contains(res.Warnings[0], "400") {
		t.Errorf("warnings = %q", res.Warnings)
	}
}

func TestClauseReplyCutOffKeepsCompleteClauses(t *testing.T) {
	cs := good().Clauses
	whole := clausesJSON(cs, 0, 0).Content
	srv := extracttest.NewServer(t, func(n int, req extracttest.Request) extracttest.Reply {
		if schemaName(req) == "contract_facts" {
			return factsJSON(t, 10, 10)
		}
		// Cut inside the second clause's text.
		return extracttest.Reply{Content: whole[:strings.Index(whole, "in no event")+20], FinishReason: "length"}
	})
	res, err := newExtractor(t, srv.Model(t), extract.Options{Clauses: extract.ClausesSeparate}).Extract(context.Background(), "s", supplyText)
	if err != nil {
		t.Fatal(err)
	}
	if got := res.Contract.Clauses; len(got) != 1 || got[0].Type != "Governing Law" || !got[0].Verified {
		t.Errorf("clauses = %+v, want the complete first one", got)
	}
	if res.Calls != 2 || len(res.Warnings) != 1 || !strings.Contains(res.Warnings[0], "kept the 1 complete clauses") {
		t.Errorf("calls %d warnings %q", res.Calls, res.Warnings)
	}
}

func TestBudgetRunsOutDuringRepair(t *testing.T) {
	bad := good()
	bad.EffectiveDate = extract.Value{Value: "February 30, 2019", Evidence: "March 1, 2019"}
	srv := extracttest.NewServer(t, func(n int, req extracttest.Request) extracttest.Reply {
		if n == 0 {
			return extracttest.JSON(bad, 100, 50)
		}
		// The repair round would take far longer than the budget.
		r := extracttest.JSON(good(), 100, 50)
		r.Delay = 5 * time.Second
		return r
	})
	start := time.Now()
	res, err := newExtractor(t, srv.Model(t), extract.Options{Budget: 400 * time.Millisecond}).Extract(context.Background(), "s", supplyText)
	if err != nil {
		t.Fatalf("the budget failed the document: %v", err)
	}
	if el := time.Since(start); el > 3*time.Second {
		t.Errorf("took %s; the repair round ran past the 400ms budget", el)
	}
	c := res.Contract
	// What validated is kept; the invalid date is dropped, with warnings
	// for both.
	if c.EffectiveDate != "" || c.ContractType != "Supply" || len(c.Parties) != 2 || len(c.Clauses) != 2 {
		t.Errorf("contract: date %q type %q parties %d clauses %d", c.EffectiveDate, c.ContractType, len(c.Parties), len(c.Clauses))
	}
	joined := strings.Join(res.Warnings, "\n")
	if !strings.Contains(joined, "time budget of 400ms ran out") || !strings.Contains(joined, "effective_date:") {
		t.Errorf("warnings = %q", res.Warnings)
	}
}

func TestTokenBudgetStopsRepairOfUnparsableReply(t *testing.T) {
	srv := extracttest.NewServer(t, func(n int, req extracttest.Request) extracttest.Reply {
		return extracttest.Reply{Content: `I cannot produce JSON for this contract.`, InputTokens: 900, OutputTokens: 20}
	})
	res, err := newExtractor(t, srv.Model(t), extract.Options{BudgetTokens: 1000}).Extract(context.Background(), "s", supplyText)
	var perr *llm.ParseError
	if !errors.As(err, &perr) {
		t.Fatalf("err = %v, want a *llm.ParseError", err)
	}
	// A reply that never parses is a failure, and the error says why no
	// repair was tried.
	if !strings.Contains(err.Error(), "invalid JSON") || !strings.Contains(err.Error(), "budget of 1000 tokens") {
		t.Errorf("error %q does not name the reply's problem and the budget", err)
	}
	if res.Calls != 1 || len(srv.Requests()) != 1 {
		t.Errorf("calls %d, requests %d; want no repair round", res.Calls, len(srv.Requests()))
	}
}

func TestBudgetSkipsTheClauseCall(t *testing.T) {
	srv := extracttest.NewServer(t, func(n int, req extracttest.Request) extracttest.Reply {
		return factsJSON(t, 5000, 400)
	})
	res, err := newExtractor(t, srv.Model(t), extract.Options{Clauses: extract.ClausesSeparate, BudgetTokens: 6000}).Extract(context.Background(), "s", supplyText)
	if err != nil {
		t.Fatal(err)
	}
	if len(srv.Requests()) != 1 || res.Contract.EffectiveDate != "2019-03-01" {
		t.Errorf("requests %d, date %q", len(srv.Requests()), res.Contract.EffectiveDate)
	}
	if len(res.Warnings) != 1 || !strings.Contains(res.Warnings[0], "clauses not extracted: budget spent: the document's budget of 6000 tokens would be exceeded (5400 used)") {
		t.Errorf("warnings = %q", res.Warnings)
	}
}

func TestListCapsEnforced(t *testing.T) {
	x := good()
	for i := range 10 {
		name := fmt.Sprintf("Party %c Holdings LLC", 'A'+i)
		x.Parties = append(x.Parties, extract.Party{Name: name, Role: "Guarantor", Evidence: name})
	}
	x.Clauses = nil
	for i, c := range contract.ClauseCategories[5:30] {
		x.Clauses = append(x.Clauses, extract.ClauseValue{ClauseType: c.Name, Text: fmt.Sprintf("Clause number %d of the agreement.", i), Summary: "s"})
	}
	srv := extracttest.NewServer(t, func(int, extracttest.Request) extracttest.Reply { return extracttest.JSON(x, 10, 10) })
	res, err := newExtractor(t, srv.Model(t), extract.Options{}).Extract(context.Background(), "s", supplyText)
	if err != nil {
		t.Fatal(err)
	}
	c := res.Contract
	if len(c.Parties) != extract.MaxParties || len(c.Clauses) != extract.MaxClauses {
		t.Errorf("%d parties, %d clauses; want the caps %d and %d", len(c.Parties), len(c.Clauses), extract.MaxParties, extract.MaxClauses)
	}
	if c.Parties[0].Name != "Acme Widgets, Inc." || c.Clauses[0].Type != contract.ClauseCategories[5].Name {
		t.Errorf("the first items were not the ones kept: %q, %q", c.Parties[0].Name, c.Clauses[0].Type)
	}
	want := []string{"parties: the reply listed 12, kept the first 8", "clauses: the reply listed 25, kept the first 20"}
	if strings.Join(res.Warnings, "\n") != strings.Join(want, "\n") {
		t.Errorf("warnings = %q, want %q", res.Warnings, want)
	}
	// The caps went out in the schema, and the prompt states them.
	schema := string(srv.Requests()[0].ResponseFormat.JSONSchema.Schema)
	if !strings.Contains(schema, `"maxItems":8`) || !strings.Contains(schema, `"maxItems":20`) {
		t.Error("schema lacks the maxItems caps")
	}
	if sys := srv.Requests()[0].Messages[0].Content; !strings.Contains(sys, "(at most 8)") || !strings.Contains(sys, "at most 40 words") {
		t.Error("system prompt does not state the caps")
	}
}

func TestRepeatedPassageDroppedFromClauseReply(t *testing.T) {
	srv := extracttest.NewServer(t, func(n int, req extracttest.Request) extracttest.Reply {
		if schemaName(req) == "contract_facts" {
			return factsJSON(t, 10, 10)
		}
		cs := append(repeated(6), good().Clauses[1])
		return clausesJSON(cs, 10, 10)
	})
	res, err := newExtractor(t, srv.Model(t), extract.Options{Clauses: extract.ClausesSeparate}).Extract(context.Background(), "s", supplyText)
	if err != nil {
		t.Fatal(err)
	}
	if got := res.Contract.Clauses; len(got) != 1 || got[0].Type != "Cap On Liability" {
		t.Errorf("clauses = %+v, want only the one with its own passage", got)
	}
	if len(res.Warnings) != 1 || res.Warnings[0] != "clauses: dropped 6 that gave the same passage for several categories" {
		t.Errorf("warnings = %q", res.Warnings)
	}
}

func TestSmallModelSlipsNeedNoRepair(t *testing.T) {
	// What Qwen2.5-Coder-1.5B wrote for a CUAD contract: a US state as the
	// country, and the clause list filled to its cap with empty passages.
	x := good()
	x.Parties[0].Location = extract.PartyLocation{City: "Orlando", Country: "FL"}
	x.Parties[1].Location = extract.PartyLocation{City: "Miami", State: "FL", Country: "FL"}
	x.GoverningLaw = extract.GoverningLaw{Country: "FLorida", State: "FL", Evidence: "This Agreement shall be governed by the laws of the State of New York."}
	for _, c := range contract.ClauseCategories[10:16] {
		x.Clauses = append(x.Clauses, extract.ClauseValue{ClauseType: c.Name, Text: "", Summary: ""})
	}
	srv := extracttest.NewServer(t, func(int, extracttest.Request) extracttest.Reply { return extracttest.JSON(x, 10, 10) })
	res, err := newExtractor(t, srv.Model(t), extract.Options{}).Extract(context.Background(), "s", supplyText)
	if err != nil {
		t.Fatal(err)
	}
	if res.Calls != 1 || len(res.Warnings) != 0 {
		t.Errorf("calls %d warnings %q; want no repair round and no warnings", res.Calls, res.Warnings)
	}
	for _, p := range res.Contract.Parties {
		if l := p.Location; l == nil || l.Country != "US" || l.State != "FL" || l.City == "" {
			t.Errorf("%s location = %+v, want US / FL", p.Name, l)
		}
	}
	if g := res.Contract.GoverningLaw; g == nil || g.Country != "US" || g.State != "FL" {
		t.Errorf("governing law = %+v, want US / FL", g)
	}
	if len(res.Contract.Clauses) != 2 {
		t.Errorf("clauses = %+v, want the two with passages", res.Contract.Clauses)
	}
}

// TestLoopingReplyIsStopped: a small model that writes one clause again and
// again is stopped once its reply repeats; the facts before the loop are
// kept and the clauses are asked for on their own. Each reply is also
// limited by the length of the text, not only by MaxOutputTokens.
func TestLoopingReplyIsStopped(t *testing.T) {
	x := good()
	x.Clauses = nil
	facts := extracttest.JSON(x, 0, 0).Content
	item := `{"clause_type": "Governing Law", "text": "This Agreement shall be governed by the laws of the State of New York.", "summary": "New York law."}, `
	looping := strings.TrimSuffix(strings.TrimSpace(facts), "}") + `, "clauses": [` + strings.Repeat(item, 200)
	srv := extracttest.NewServer(t, func(n int, req extracttest.Request) extracttest.Reply {
		if n == 0 {
			return extracttest.Reply{Content: looping, FinishReason: "length"}
		}
		return clausesJSON(good().Clauses, 10, 10)
	})
	res, err := newExtractor(t, srv.Model(t), extract.Options{}).Extract(context.Background(), "supply-1", supplyText)
	if err != nil {
		t.Fatal(err)
	}
	reqs := srv.Requests()
	if len(reqs) != 2 || schemaName(reqs[1]) != "contract_clauses" {
		t.Fatalf("%d requests; want the full extraction, then the clauses alone", len(reqs))
	}
	limit := max(2048, 1024+3*extract.EstimateTokens(supplyText))
	for i, r := range reqs {
		if r.MaxTokens != limit {
			t.Errorf("request %d: max_completion_tokens %d, want %d for a text of %d bytes", i, r.MaxTokens, limit, len(supplyText))
		}
	}
	c := res.Contract
	if c.EffectiveDate != "2019-03-01" || len(c.Parties) != 2 || len(c.Clauses) != 2 {
		t.Errorf("date %q, %d parties, clauses %+v; want the facts of the looping reply and the clauses of the second", c.EffectiveDate, len(c.Parties), c.Clauses)
	}
	if len(res.Warnings) != 1 || !strings.Contains(res.Warnings[0], "repeating itself") {
		t.Errorf("warnings = %q, want one saying the reply was stopped", res.Warnings)
	}
}

// TestReplyLimitsFollowTheTask: on a long text the reply limit is what the
// task's items can fill, not MaxOutputTokens: facts 2,456 tokens, clauses
// 4,256, both in one call 6,712.
func TestReplyLimitsFollowTheTask(t *testing.T) {
	long := supplyText + strings.Repeat("The Supplier shall deliver the goods in good order. ", 2000)
	for _, tt := range []struct {
		mode extract.ClauseMode
		want []int
	}{
		{extract.ClausesSeparate, []int{2456, 4256}},
		{extract.ClausesAuto, []int{6712}},
	} {
		srv := extracttest.NewServer(t, func(n int, req extracttest.Request) extracttest.Reply {
			if schemaName(req) == "contract_clauses" {
				return clausesJSON(good().Clauses, 10, 10)
			}
			return extracttest.JSON(good(), 10, 10)
		})
		if _, err := newExtractor(t, srv.Model(t), extract.Options{Clauses: tt.mode}).Extract(context.Background(), "s", long); err != nil {
			t.Fatal(err)
		}
		var got []int
		for _, r := range srv.Requests() {
			got = append(got, r.MaxTokens)
		}
		if !slices.Equal(got, tt.want) {
			t.Errorf("mode %v: reply limits %v, want %v", tt.mode, got, tt.want)
		}
	}
}
