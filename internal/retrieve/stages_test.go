package retrieve_test

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/contractgraph/contractgraph/internal/contract"
	"github.com/contractgraph/contractgraph/internal/graph"
	"github.com/contractgraph/contractgraph/internal/graph/sqlite"
	"github.com/contractgraph/contractgraph/internal/llm"
	"github.com/contractgraph/contractgraph/internal/llm/llmtest"
	"github.com/contractgraph/contractgraph/internal/retrieve"
)

func TestDefaultThesaurusParsesAndCoversTheTaxonomy(t *testing.T) {
	th := retrieve.DefaultThesaurus()
	ctx := context.Background()
	// Every CUAD category named in a query expands: the thesaurus has a
	// line for each of the 41.
	for _, c := range contract.ClauseCategories {
		got, err := th.Expand(ctx, c.Name)
		if err != nil || len(got) == 0 {
			t.Errorf("%s: expansion %q, %v", c.Name, got, err)
		}
		if len(got) > retrieve.MaxExpansions {
			t.Errorf("%s: %d phrases, over the bound", c.Name, len(got))
		}
	}
	got, _ := th.Expand(ctx, "may the customer terminate this agreement for convenience?")
	for _, want := range []string{"terminate without cause", "terminate at any time"} {
		if !slices.Contains(got, want) {
			t.Errorf("termination for convenience query: expansion %q lacks %q", got, want)
		}
	}
	if slices.Contains(got, "terminate for convenience") {
		t.Errorf("expansion %q repeats what the query says", got)
	}
	if got, _ := th.Expand(ctx, "payment of invoices in euros"); slices.Contains(got, "terminate without cause") {
		t.Errorf("an unrelated query expanded to %q", got)
	}
}

func TestParseThesaurusErrorsNameTheLine(t *testing.T) {
	for _, tc := range []struct{ text, want string }{
		{"Governing Law: governed by\nNot A Category: x | y\n", "t.txt:2: \"Not A Category\" is neither"},
		{"*: only one\n", "t.txt:1: a * set needs two phrases"},
		{"# c\n\nno colon here\n", "t.txt:3: want KEY"},
		{"*: alpha | | beta\n", "t.txt:1: an empty phrase"},
		{"*: the | of\n", "has only stop words"},
	} {
		_, err := retrieve.ParseThesaurus(strings.NewReader(tc.text), "t.txt")
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: error %v, want %q", tc.text, err, tc.want)
		}
	}
}

func TestLexicalRerankPrefersPhraseAndProximity(t *testing.T) {
	cands := []string{
		"Notice. Any notice shall be in writing. The parties agree that convenience stores are excluded. Either party may terminate if the other defaults.",
		"Either party may terminate this Agreement for convenience upon thirty days written notice.",
		"Payment is due within thirty days of invoice.",
	}
	order, scores, err := retrieve.Lexical{}.Rerank(context.Background(), retrieve.RerankQuery{Text: "terminate for convenience"}, cands)
	if err != nil {
		t.Fatal(err)
	}
	if len(order) != 3 || order[0] != 1 || order[2] != 2 {
		t.Fatalf("order %v scores %v: want the phrase match first and the payment clause last", order, scores)
	}
	if scores[2] != 0 || scores[0] <= scores[1] {
		t.Errorf("scores %v: want falling, 0 without any query word", scores)
	}
	// An expansion finds the passage that words the same thing otherwise,
	// but weighs less than the query's own words.
	cands = []string{
		"The Company may end this Agreement without cause at any time.",
		"Rates may change at any time; the parties shall confer.",
	}
	order, _, _ = retrieve.Lexical{}.Rerank(context.Background(), retrieve.RerankQuery{Text: "terminate for convenience", Expansions: []string{"without cause", "at any time"}}, cands)
	if order[0] != 0 {
		t.Errorf("order %v: want the without-cause clause first", order)
	}
}

// With Fuse the first stage's order counts as much as the lexical one
// (reciprocal rank fusion): the passage the first stage ranked first and
// the lexical scores second is first again, ahead of the one the lexical
// scores prefer but the first stage ranked last.
func TestLexicalFuseKeepsTheFirstStagesJudgement(t *testing.T) {
	cands := []string{
		"Either party may terminate this Agreement upon thirty days notice for convenience.",
		"Payment is due within thirty days of invoice.",
		"Rates may change.",
		"The Company may terminate for convenience at any time.",
	}
	q := retrieve.RerankQuery{Text: "terminate for convenience"}
	plain, _, err := retrieve.Lexical{}.Rerank(context.Background(), q, cands)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(plain, []int{3, 0, 1, 2}) {
		t.Fatalf("lexical order %v: want [3 0 1 2]", plain)
	}
	fused, scores, err := retrieve.Lexical{Fuse: true}.Rerank(context.Background(), q, cands)
	if err != nil {
		t.Fatal(err)
	}
	// 0: 1/61 + 1/62; 3: 1/64 + 1/61; 1: 1/62 + 1/63; 2: 1/63 + 1/64.
	if !slices.Equal(fused, []int{0, 3, 1, 2}) {
		t.Errorf("fused order %v (scores %v): want [0 3 1 2]", fused, scores)
	}
	for i := 1; i < len(scores); i++ {
		if scores[i] > scores[i-1] {
			t.Errorf("fused scores %v not falling", scores)
		}
	}
}

func TestDedupCollapsesOneContractsNearDuplicates(t *testing.T) {
	text := "Either party may terminate this Agreement for convenience upon thirty days written notice to the other party."
	hits := []graph.ClauseHit{
		{ContractID: "a", ClauseID: "a#clause-1", Text: text, Start: 100, End: 200, Score: 3},
		{ContractID: "a", Text: "chunk holding it: " + text, Start: 80, End: 210, Score: 2},           // overlaps the clause
		{ContractID: "b", Text: text, Start: 100, End: 200, Score: 2},                                 // same words, other contract
		{ContractID: "a", Text: text + " Exhibit copy.", Start: 5000, End: 5110, Score: 1},            // same words elsewhere in a
		{ContractID: "a", Text: "Payment is due within thirty days.", Start: 300, End: 340, Score: 1}, // different
	}
	got := retrieve.Dedup(hits)
	var keys []string
	for _, h := range got {
		keys = append(keys, h.ContractID+":"+strings.Fields(h.Text)[0])
	}
	if want := []string{"a:Either", "b:Either", "a:Payment"}; !slices.Equal(keys, want) {
		t.Errorf("kept %v, want %v", keys, want)
	}
}

// scriptedJSON is a model step replying with v as JSON.
func scriptedJSON(t *testing.T, v any) llmtest.Step {
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return llmtest.Text(string(b))
}

func TestModelRerankerKeepsOnlyValidIDs(t *testing.T) {
	model := llmtest.NewScripted(scriptedJSON(t, map[string]any{"ranking": []int{3, 0, 3, 9, 1}}))
	cands := []string{"alpha passage", "beta passage", "gamma passage", "delta passage"}
	order, scores, err := retrieve.ModelReranker{Model: model, MaxCandidates: 3, PassageBytes: 8}.Rerank(context.Background(), retrieve.RerankQuery{Text: "which passage"}, cands)
	if err != nil {
		t.Fatal(err)
	}
	// 0 and 9 are out of range (ids are 1..3), the second 3 a repeat.
	if !slices.Equal(order, []int{2, 0}) || len(scores) != 2 || scores[0] <= scores[1] {
		t.Errorf("order %v scores %v, want [2 0] falling", order, scores)
	}
	req := model.Requests()[0]
	user := req.Messages[len(req.Messages)-1].Content
	if !strings.Contains(user, "[3] gamma pa…") || strings.Contains(user, "delta") {
		t.Errorf("prompt shows %q: want 3 candidates clipped to 8 bytes", user)
	}
	if req.MaxTokens == 0 || req.MaxTokens > 512 || req.ResponseFormat == nil {
		t.Errorf("request max tokens %d, format %v: want a bounded structured reply", req.MaxTokens, req.ResponseFormat)
	}
	// A reply that is not the schema's is an error, with no repair round.
	model = llmtest.NewScripted(llmtest.Text(`{"ranking": ["first"]}`))
	if _, _, err := (retrieve.ModelReranker{Model: model}).Rerank(context.Background(), retrieve.RerankQuery{Text: "q"}, cands); err == nil {
		t.Error("a reply with string ids was accepted")
	}
	if n := len(model.Requests()); n != 1 {
		t.Errorf("%d model calls, want 1", n)
	}
}

func TestModelExpanderBoundsPhrases(t *testing.T) {
	long := strings.Repeat("word ", 30)
	model := llmtest.NewScripted(scriptedJSON(t, map[string]any{"phrases": []string{"terminate without cause", " terminate  without cause ", long, "", "the of", "terminate for convenience", "cancel at any time"}}))
	got, err := retrieve.ModelExpander{Model: model}.Expand(context.Background(), "terminate for convenience")
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"terminate without cause", "cancel at any time"}; !slices.Equal(got, want) {
		t.Errorf("phrases %q, want %q (repeats, over-long, stop-word-only and the query itself dropped)", got, want)
	}
	boom := errors.New("server down")
	got, err = retrieve.Expanders{retrieve.DefaultThesaurus(), retrieve.ModelExpander{Model: llmtest.NewScripted(llmtest.Fail(boom))}}.Expand(context.Background(), "terminate for convenience")
	if !errors.Is(err, boom) || !slices.Contains(got, "terminate without cause") {
		t.Errorf("with a failing model: %q, %v; want the thesaurus's phrases and the error", got, err)
	}
}

// stagedStore holds one contract whose sections and near-duplicate
// clause/chunk pairs the staged searcher is tested on.
func stagedStore(t *testing.T) (*sqlite.Store, *contract.Contract) {
	t.Helper()
	store, err := sqlite.Open(filepath.Join(t.TempDir(), "g.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	text := "ARTICLE 1 TERM\n\n1.1 Term. This Agreement runs for three years.\n\n1.2 Convenience. The Customer may end this Agreement without cause at any time on notice.\n\n" +
		"ARTICLE 2 PAYMENT\n\n2.1 Fees. Customer pays the fees within thirty days; late fees accrue on notice.\n\n2.2 Taxes. Each party pays its own taxes."
	c := &contract.Contract{ID: "k1", Text: text, Chunks: retrieve.Chunk(text, retrieve.ChunkOptions{Max: 120, Min: 10})}
	start := strings.Index(text, "The Customer may end")
	quote := "The Customer may end this Agreement without cause at any time on notice."
	c.Clauses = []contract.Clause{{Type: "Termination For Convenience", Text: quote, Start: start, End: start + len(quote), Verified: true}}
	if _, err := store.PutContracts(context.Background(), []*contract.Contract{c}); err != nil {
		t.Fatal(err)
	}
	return store, c
}

func TestSearcherStages(t *testing.T) {
	ctx := context.Background()
	store, c := stagedStore(t)
	q := graph.ClauseQuery{Query: "terminate for convenience notice", Filter: graph.Filter{ContractIDs: []string{"k1"}}, Limit: 3}
	plain, err := retrieve.New(store, retrieve.Options{}).Search(ctx, q)
	if err != nil {
		t.Fatal(err)
	}
	staged, err := retrieve.New(store, retrieve.Options{Expander: retrieve.DefaultThesaurus(), Reranker: retrieve.Lexical{}, Dedup: true, Sections: true}).Search(ctx, q)
	if err != nil {
		t.Fatal(err)
	}
	conv := strings.Index(c.Text, "The Customer may end")
	if len(staged) == 0 || staged[0].Start > conv || staged[0].End < conv {
		t.Fatalf("staged top hit %+v, want the convenience clause (plain BM25 gave %+v)", staged, plain)
	}
	for i, a := range staged {
		for _, b := range staged[i+1:] {
			if a.Start < b.End && b.Start < a.End {
				t.Errorf("overlapping hits kept: %d..%d and %d..%d", a.Start, a.End, b.Start, b.End)
			}
		}
	}
	sec := staged[0].Section
	if sec == nil || sec.Heading != "ARTICLE 1 TERM" || c.Text[sec.Start:sec.End] != strings.TrimSpace(c.Text[:strings.Index(c.Text, "ARTICLE 2")]) {
		t.Errorf("section %+v, want ARTICLE 1 up to ARTICLE 2", sec)
	}
	for _, h := range plain {
		if h.Section != nil {
			t.Errorf("sections off, yet hit %+v has one", h)
		}
	}
}

func TestSearcherKeepsFirstStageOrderWhenTheModelFails(t *testing.T) {
	ctx := context.Background()
	store, _ := stagedStore(t)
	q := graph.ClauseQuery{Query: "fees notice", Filter: graph.Filter{ContractIDs: []string{"k1"}}, Limit: 5}
	want, err := store.SearchClauses(ctx, q)
	if err != nil {
		t.Fatal(err)
	}
	for name, step := range map[string]llmtest.Step{
		"error":   llmtest.Fail(llm.ErrUnavailable),
		"garbage": llmtest.Text("the second passage is best"),
	} {
		model := llmtest.NewScripted(step)
		got, err := retrieve.New(store, retrieve.Options{Reranker: retrieve.ModelReranker{Model: model}}).Search(ctx, q)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if len(got) != len(want) {
			t.Fatalf("%s: %d hits, want %d", name, len(got), len(want))
		}
		for i := range got {
			if got[i].Start != want[i].Start || got[i].ClauseID != want[i].ClauseID {
				t.Errorf("%s: hit %d is %d..%d, first stage had %d..%d", name, i, got[i].Start, got[i].End, want[i].Start, want[i].End)
			}
		}
	}
	// A model that answers reorders: the last first-stage hit comes first.
	model := llmtest.NewScripted(scriptedJSON(t, map[string]any{"ranking": []int{len(want)}}))
	got, err := retrieve.New(store, retrieve.Options{Reranker: retrieve.ModelReranker{Model: model}}).Search(ctx, q)
	if err != nil {
		t.Fatal(err)
	}
	if got[0].Start != want[len(want)-1].Start || got[1].Start != want[0].Start {
		t.Errorf("model order not applied: got %d, %d first; first stage ended with %d", got[0].Start, got[1].Start, want[len(want)-1].Start)
	}
}
