package risk

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/contractgraph/contractgraph/internal/contract"
	"github.com/contractgraph/contractgraph/internal/llm"
	"github.com/contractgraph/contractgraph/internal/llm/llmtest"
	"github.com/contractgraph/contractgraph/internal/tools"
)

// reviewToolNames are the analyst's tools when there is a statute store.
var reviewToolNames = []string{"clause_search", "get_contract", "statute_search", "get_statute"}

// TestAnalystToolsAreScopedToTheReview: the analyst may read the contract
// under review and its jurisdiction's statutes; asking for another
// contract or another jurisdiction's statute is refused with a tool error
// that names what the review allows, and nothing of it is served.
func TestAnalystToolsAreScopedToTheReview(t *testing.T) {
	const usText = "arbitration agreements are enforceable in the us"
	store := openStore(t, append(testStatutes, contract.Statute{ID: "/us/x/s1", Jurisdiction: "us", Text: usText}))
	model := llmtest.NewScripted(
		reply(t, testRules),
		llmtest.Calls(
			llmtest.Call("a", "get_contract", `{"contract_id":"other-1","include_text":true}`),
			llmtest.Call("b", "clause_search", `{"query":"arbitration","contract_id":"other-1"}`),
			llmtest.Call("c", "get_statute", `{"statute_id":"/us/x/s1"}`),
			llmtest.Call("d", "get_contract", `{"contract_id":"dist-1","include_text":true,"text_offset":10}`),
			llmtest.Call("e", "clause_search", `{"query":"binding arbitration"}`),
		),
		search("arbitration"),
		reply(t, Analysis{Items: []Item{arbItem(statuteArb, statuteQuoteArb)}}),
		reply(t, approve()),
		reply(t, summary()),
	)
	rep, _ := runReview(t, model, store, nil)
	if rep.Partial || len(rep.Items) != 1 || len(rep.Items[0].Citations) != 1 {
		t.Errorf("partial=%v items=%+v notices=%q", rep.Partial, rep.Items, rep.Notices)
	}
	reqs := model.Requests()
	var names []string
	for _, d := range reqs[1].Tools {
		names = append(names, d.Name)
	}
	if diff := cmp.Diff(reviewToolNames, names); diff != "" {
		t.Errorf("analyst tools (-want +got):\n%s", diff)
	}
	results := map[string]string{}
	for _, m := range reqs[2].Messages {
		if m.Role == llm.RoleTool {
			results[m.ToolCallID] = m.Content
		}
	}
	for _, id := range []string{"a", "b"} {
		if got := results[id]; !strings.Contains(got, `this review covers contract \"dist-1\" only`) || strings.Contains(got, "Supplier") {
			t.Errorf("call %s for another contract answered %s", id, got)
		}
	}
	if got := results["c"]; !strings.Contains(got, `this review is limited to jurisdiction \"xx\"`) || strings.Contains(got, usText) {
		t.Errorf("get_statute of a us statute in an xx review answered %s", got)
	}
	var rec tools.ContractRecord
	if err := json.Unmarshal([]byte(results["d"]), &rec); err != nil {
		t.Fatalf("get_contract: %v: %s", err, results["d"])
	}
	if rec.ID != "dist-1" || rec.TextOffset != 10 || rec.Text != testContract[10:] || rec.TextLength != len(testContract) || rec.TextTruncated {
		t.Errorf("get_contract of the contract under review = %+v", rec)
	}
	var found tools.ClauseResult
	if err := json.Unmarshal([]byte(results["e"]), &found); err != nil || len(found.Passages) == 0 || found.Passages[0].ContractID != "dist-1" {
		t.Errorf("clause_search of the contract under review = %s (%v)", results["e"], err)
	}
}

// TestAnalystStatuteToolsAreTheAgents: the analyst is sent get_contract,
// statute_search and get_statute exactly as the agent is, compact for a
// small model.
func TestAnalystStatuteToolsAreTheAgents(t *testing.T) {
	store := openStore(t, testStatutes)
	for _, mode := range []tools.Schemas{tools.SchemasFull, tools.SchemasCompact} {
		t.Run(mode.String(), func(t *testing.T) {
			agentTools := tools.New(store, tools.Options{Schemas: mode})
			if err := tools.NewStatuteTools(store, tools.StatuteOptions{}).AddTo(agentTools); err != nil {
				t.Fatal(err)
			}
			want := map[string]llm.ToolDef{}
			for _, d := range agentTools.Tools() {
				want[d.Name] = llm.ToolDef{Name: d.Name, Description: d.Description, InputSchema: d.InputSchema}
			}
			model := llmtest.NewScripted(reply(t, testRules), reply(t, Analysis{}), reply(t, approve()))
			in := Input{Contract: &contract.Contract{ID: "dist-1", Text: testContract}, Jurisdiction: "xx"}
			if _, err := Run(context.Background(), Deps{Model: model, Statutes: store, Schemas: mode}, in, nil); err != nil {
				t.Fatal(err)
			}
			sent := model.Requests()[1].Tools
			if len(sent) != len(reviewToolNames) {
				t.Fatalf("%d tools sent, want %d", len(sent), len(reviewToolNames))
			}
			for _, d := range sent[1:] {
				if diff := cmp.Diff(want[d.Name], d); diff != "" {
					t.Errorf("%s differs from the agent's (-agent +analyst):\n%s", d.Name, diff)
				}
			}
		})
	}
}

// TestAnalystToolCallWrittenAsText: a small model writes its statute_search
// into the reply text; the agent's loop runs it as a real call, so the
// statute counts as returned and its citation survives the gate.
func TestAnalystToolCallWrittenAsText(t *testing.T) {
	store := openStore(t, testStatutes)
	model := llmtest.NewScripted(
		reply(t, testRules),
		llmtest.Text("```json\n{\"name\": \"statute_search\", \"arguments\": {\"query\": \"arbitration\"}}\n```"),
		reply(t, Analysis{Items: []Item{arbItem(statuteArb, statuteQuoteArb)}}),
		reply(t, approve()),
		reply(t, summary()),
	)
	rep, _ := runReview(t, model, store, nil)
	if rep.Partial || len(rep.Items) != 1 || len(rep.Items[0].Citations) != 1 || len(rep.RemovedCitations) != 0 {
		t.Errorf("partial=%v items=%+v removed=%+v notices=%q", rep.Partial, rep.Items, rep.RemovedCitations, rep.Notices)
	}
	if last := model.Requests()[2].Messages; last[len(last)-1].Role != llm.RoleTool || !strings.Contains(last[len(last)-1].Content, statuteArb) {
		t.Errorf("the text call's result was not sent back: %+v", last[len(last)-1])
	}
}
