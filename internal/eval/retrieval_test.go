package eval

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/contractgraph/contractgraph/internal/graph/sqlite"
	"github.com/contractgraph/contractgraph/internal/llm"
	"github.com/contractgraph/contractgraph/internal/llm/llmtest"
	"github.com/contractgraph/contractgraph/internal/retrieve"
)

func miniStore(t *testing.T) *sqlite.Store {
	t.Helper()
	store, err := sqlite.Open(filepath.Join(t.TempDir(), "r.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	return store
}

func miniSet(t *testing.T) *RetrievalSet {
	t.Helper()
	set, err := ReadRetrievalSet(filepath.Join("testdata", "cuad-mini"))
	if err != nil {
		t.Fatal(err)
	}
	return set
}

// The mini set has two contracts of four passages each and eight
// annotated (contract, category) pairs; the passages are small enough
// that each paragraph is its own chunk.
var miniChunks = retrieve.ChunkOptions{Max: 200, Min: 50}

func TestRetrievalBM25(t *testing.T) {
	set := miniSet(t)
	if len(set.Queries) != 7 || !strings.HasPrefix(set.Queries["Governing Law"], "Governing Law: Which law governs") {
		t.Fatalf("queries = %q", set.Queries)
	}
	var stages []string
	rep, err := Retrieval(context.Background(), miniStore(t), set, RetrievalOptions{K: 1, Chunk: miniChunks, Progress: func(p RetrievalProgress) {
		if p.Done == p.Total {
			stages = append(stages, p.Stage)
		}
	}})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Contracts != 2 || rep.Queries != 8 || rep.Chunks != 8 || len(rep.Overall) != 1 || rep.Overall[0].Method != MethodBM25 {
		t.Fatalf("report = %+v", rep)
	}
	if strings.Join(stages, ",") != "store,query" {
		t.Errorf("progress stages finished: %v", stages)
	}
	byCat := map[string]MethodScore{}
	for _, c := range rep.Categories {
		byCat[c.Category] = c.Methods[0]
	}
	// Each clause paragraph shares the query's words and ranks first, but
	// the License Grant query ("Does one party grant the other a license?")
	// ranks the assignment paragraph ("Neither party ... the other party")
	// above the grant; the Parties query ("Who are the parties that signed
	// this contract") has no word of the preamble that names them.
	for _, cat := range []string{"Governing Law", "Insurance", "Audit Rights", "Non-Transferable License", "Anti-Assignment"} {
		if m := byCat[cat]; m.Hits != m.Queries || m.MRR != 1 {
			t.Errorf("%s: %+v, want the annotated passage first", cat, m)
		}
	}
	for _, cat := range []string{"License Grant", "Parties"} {
		if m := byCat[cat]; m.Queries != 1 || m.Hits != 0 || m.MRR != 0 {
			t.Errorf("%s: %+v, want a miss at k = 1", cat, m)
		}
	}
	all, clauses := rep.Overall[0], rep.Clauses[0]
	if all.Queries != 8 || all.Hits != 6 || all.Recall != 0.75 || all.MRR != 0.75 {
		t.Errorf("overall %+v, want 6 of 8 and MRR = recall at k = 1", all)
	}
	if clauses.Queries != 7 || clauses.Hits != 6 {
		t.Errorf("without the preamble %+v, want 6 of 7", clauses)
	}

	// At k = 5 the grant counts at rank 2: MRR (6 + 1/2) / 8.
	rep5, err := Retrieval(context.Background(), miniStore(t), set, RetrievalOptions{Chunk: miniChunks})
	if err != nil {
		t.Fatal(err)
	}
	if m := rep5.Overall[0]; rep5.K != 5 || m.Hits != 7 || m.Recall != 0.875 || m.MRR != 0.8125 {
		t.Errorf("k = 5: %+v", m)
	}
	for _, c := range rep5.Categories {
		if c.Category == "License Grant" && c.Methods[0].MRR != 0.5 {
			t.Errorf("License Grant at k = 5: %+v, want MRR 0.5", c.Methods[0])
		}
	}

	var md, txt bytes.Buffer
	if err := WriteRetrievalMarkdown(&md, rep); err != nil {
		t.Fatal(err)
	}
	if err := WriteRetrievalText(&txt, rep); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"| category | queries | bm25 recall@1 | bm25 MRR |", "| Parties | 1 | 0.000 | 0.000 |", "| Insurance | 1 | 1.000 | 1.000 |"} {
		if !strings.Contains(md.String(), want) {
			t.Errorf("Markdown lacks %q:\n%s", want, md.String())
		}
	}
	var page bytes.Buffer
	if err := WriteRetrievalHTML(&page, rep); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(page.String(), `<th class="num">bm25 recall@1</th>`) || !strings.Contains(page.String(), "<td>Parties</td>") {
		t.Errorf("HTML:\n%s", page.String())
	}
	if !strings.Contains(txt.String(), "Clause search on 2 CUAD contracts (8 chunks, max 200 bytes), 8 queries: bm25 recall@1") {
		t.Errorf("text:\n%s", txt.String())
	}
}

func TestRetrievalHybrid(t *testing.T) {
	set := miniSet(t)
	emb := &llmtest.Embedder{}
	rep, err := Retrieval(context.Background(), miniStore(t), set, RetrievalOptions{K: 1, Chunk: miniChunks, Embedder: emb, EmbedModel: "test:bag-of-words"})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Overall) != 2 || rep.Overall[1].Method != MethodHybrid || rep.Overall[1].Queries != 8 {
		t.Fatalf("overall = %+v", rep.Overall)
	}
	if rep.EmbedUsage.InputTokens == 0 || rep.EmbedModel != "test:bag-of-words" {
		t.Errorf("embedding usage %+v, model %q", rep.EmbedUsage, rep.EmbedModel)
	}
	for _, c := range rep.Categories {
		if len(c.Methods) != 2 {
			t.Errorf("%s has %d methods", c.Category, len(c.Methods))
		}
	}
}

// failingEmbedder embeds the first n calls and then fails.
type failingEmbedder struct {
	inner llm.Embedder
	n     int
}

func (f *failingEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, llm.Usage, error) {
	if f.n <= 0 {
		return nil, llm.Usage{}, errors.New("embedding server: 503 Service Unavailable")
	}
	f.n--
	return f.inner.Embed(ctx, texts)
}

func TestRetrievalEmbeddingFailureIsAnError(t *testing.T) {
	set := miniSet(t)
	// Failing while storing the chunks.
	_, err := Retrieval(context.Background(), miniStore(t), set, RetrievalOptions{Chunk: miniChunks, Embedder: &failingEmbedder{inner: &llmtest.Embedder{}}})
	if err == nil || !strings.Contains(err.Error(), "503 Service Unavailable") || !strings.Contains(err.Error(), "Alpha-Supply Agreement.txt") {
		t.Errorf("chunk embedding failure: %v", err)
	}
	// Failing on the first query, after both contracts' chunks were embedded.
	_, err = Retrieval(context.Background(), miniStore(t), set, RetrievalOptions{Chunk: miniChunks, Embedder: &failingEmbedder{inner: &llmtest.Embedder{}, n: 2}})
	if err == nil || !strings.Contains(err.Error(), "hybrid query for Alpha-Supply Agreement") || !strings.Contains(err.Error(), "503") {
		t.Errorf("query embedding failure: %v", err)
	}
}

func TestReadRetrievalSetErrors(t *testing.T) {
	write := func(t *testing.T, name, content string) string {
		p := filepath.Join(t.TempDir(), name)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	spanTests := []struct {
		content, want string
	}{
		{`{"file":"a.txt","category":"Governing Law","byte_start":1,"byte_end":5}` + "\n" + `{"file":"a.txt","category":"Colour","byte_start":1,"byte_end":5}`,
			`spans.jsonl:2: field category: "Colour" is not one of CUAD's 41 categories`},
		{`{"category":"Governing Law","byte_start":1,"byte_end":5}`, `spans.jsonl:1: field file: missing`},
		{`{"file":"a.txt","category":"Governing Law","byte_start":1}`, `spans.jsonl:1: field byte_end: missing`},
		{`{"file":"a.txt","category":"Governing Law","byte_start":9,"byte_end":5}`, `spans.jsonl:1: field byte_end: span 9–5 is empty or negative`},
		{`{"file":"a.txt",`, `spans.jsonl:1: unexpected end of JSON input`},
		{"\n", `holds no span`},
	}
	for _, tt := range spanTests {
		_, err := ReadSpans(write(t, "spans.jsonl", tt.content))
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("ReadSpans(%q) = %v, want %q", tt.content, err, tt.want)
		}
	}
	descTests := []struct {
		content, want string
	}{
		{"Category,Description\nCategory: Colour,Description: x\n", `row 2: field Category: "Colour" is not one of CUAD's 41 categories`},
		{"Category,Description\nCategory: Insurance,Description:\n", `row 2: field Description: empty`},
		{"Category,Description\nCategory: Insurance\n", `row 2: has 1 columns`},
		{"Name,Text\n", `row 1 (header)`},
	}
	for _, tt := range descTests {
		_, err := ReadCategoryQueries(write(t, "descriptions.csv", tt.content))
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("ReadCategoryQueries(%q) = %v, want %q", tt.content, err, tt.want)
		}
	}
	if _, err := ReadRetrievalSet(t.TempDir()); err == nil || !strings.Contains(err.Error(), "full_contract_txt is not a directory") {
		t.Errorf("empty dir: %v", err)
	}
}
